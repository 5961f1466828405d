// SPDX-License-Identifier: Apache-2.0 OR MIT
// The G1 batch-affine accumulation (msm/affine_acc.cuh), fused form, in its
// own translation unit so that it compiles beside the others.
#include "msm/pippenger.cuh"

cuzk::msm::accumulate_affine_fn cuzk::msm::accumulate_affine_g1()
{
	return &accumulate_affine<fp_t, fx_t<fp_t, fp_form::fused>>;
}
