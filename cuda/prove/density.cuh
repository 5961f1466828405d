// SPDX-License-Identifier: Apache-2.0 OR MIT
// Density-filtered scalar vectors on the device: bitmap -> per-word counts ->
// prefix sums -> compaction, so the A and B queries' scalars are built where
// they are used (the host never walks 130M bits).  The bitmaps are counted,
// and the counts checked against the SRS, on the device's own copy, the
// one compaction then reads: a client that rewrites its memfd after the
// copy changes nothing, and a count that does not match is refused before
// compaction writes a single scalar.
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

// The popcounts of one partition's three bitmaps (device memory, bits past
// each n ignored), in the order a_aux, b_input, b_aux.  counts_dev: 3 u64
// of device scratch.  Waits for the stream and returns them on the host.
struct density_counts {
	size_t a_aux, b_input, b_aux;
};
density_counts density_count(const uint64_t *a_aux, size_t num_aux, const uint64_t *b_input, size_t num_inputs,
			     const uint64_t *b_aux, uint64_t *counts_dev, cudaStream_t s);

} // namespace cuzk

#endif
