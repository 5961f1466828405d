// SPDX-License-Identifier: Apache-2.0 OR MIT
// The G1 bucket accumulation with field products in the "kara" form (msm/fp_impl.cuh).
#include "msm/pippenger.cuh"

CUZK_MSM_ACCUMULATE_IN(fp_t, kara)
