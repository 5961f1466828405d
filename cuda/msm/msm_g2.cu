// SPDX-License-Identifier: Apache-2.0 OR MIT
// The G2 MSM: Pippenger over Fp2 points (192-byte affine bases).
#include "ff/fp2.cuh"
#include "msm/msm.cuh"
#include "msm/pippenger.cuh"

CUZK_MSM_ENTRY_POINTS(g2, cuzk::fp2_t)
