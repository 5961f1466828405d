// SPDX-License-Identifier: Apache-2.0 OR MIT
// Density-filtered scalar vectors on the device: bitmap -> per-word counts ->
// prefix sums -> compaction, so the A and B queries' scalars are built where
// they are used (the host never walks 130M bits).
#ifndef CUZK_CUDA_PROVE_DENSITY_CUH
#define CUZK_CUDA_PROVE_DENSITY_CUH

#include <cstddef>
#include <cstdint>

#include "ff/fr.cuh"

namespace cuzk {

// Scratch bytes density_compact needs for n values.
size_t density_scratch_bytes(size_t n);

// out[k] = in[i] for the k-th set bit i of bits (bit i of word i/64), i < n.
// bits, in, out and scratch are device memory; out must hold the popcount.
void density_compact(fr_t *out, const fr_t *in, size_t n, const uint64_t *bits, void *scratch,
		     size_t scratch_bytes, cudaStream_t s);

} // namespace cuzk

#endif
