// SPDX-License-Identifier: Apache-2.0 OR MIT
// The G1 batch-affine rounds (msm/affine_rounds.cuh), fused form, in their
// own translation unit so that they compile beside the others.
#include "msm/affine_rounds.cuh"

cuzk::msm::rounds_result cuzk::msm::affine_rounds_g1(const uint4 *bases, const uint32_t *keys, const uint32_t *vals,
						       size_t npairs, uint32_t nb, const rounds_scratch &sc,
						       cudaStream_t s)
{
	return rounds::run<fp_t>(bases, keys, vals, npairs, nb, sc, s);
}
