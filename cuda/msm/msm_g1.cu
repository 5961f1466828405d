// SPDX-License-Identifier: Apache-2.0 OR MIT
// The G1 MSM: Pippenger over Fp points (96-byte affine bases).
#include "ff/fp.cuh"
#include "msm/msm.cuh"
#include "msm/pippenger.cuh"

CUZK_MSM_ENTRY_POINTS(g1, cuzk::fp_t)
