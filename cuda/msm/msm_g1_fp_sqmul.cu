// SPDX-License-Identifier: Apache-2.0 OR MIT
// The G1 bucket accumulation with Fp products in the "sqmul" form (msm/fp_impl.cuh).
#include "msm/pippenger.cuh"

CUZK_MSM_G1_FORM(sqmul)
