// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "prove/density.cuh"

#include <cub/device/device_scan.cuh>

#include "util/check.cuh"
#include "util/warp_count.cuh"

namespace cuzk {

namespace {

constexpr unsigned DENSITY_THREADS = 256;

__host__ __device__ size_t words_of(size_t n) { return (n + 63) / 64; }

__global__ void __launch_bounds__(DENSITY_THREADS) word_counts(uint32_t *cnt, const uint64_t *bits, size_t n)
{
	const size_t W = words_of(n);
	for (size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x; w < W; w += (size_t)gridDim.x * blockDim.x) {
		uint64_t x = bits[w];
		if (w == W - 1 && (n & 63))
			x &= (1ull << (n & 63)) - 1;   // bits past n are not values
		cnt[w] = __popcll(x);
	}
}

__global__ void __launch_bounds__(DENSITY_THREADS) compact(fr_t *out, const fr_t *in, size_t n,
							   const uint64_t *bits, const uint32_t *off)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		const uint64_t x = bits[i >> 6];
		const unsigned b = i & 63;
		if ((x >> b) & 1)
			out[off[i >> 6] + __popcll(x & ((1ull << b) - 1))] = in[i];
	}
}

// Sums the popcounts of one bitmap into *total (atomically, one add per warp).
__global__ void __launch_bounds__(DENSITY_THREADS) count_bits(unsigned long long *total, const uint64_t *bits,
							      size_t n)
{
	const size_t W = words_of(n);
	unsigned long long c = 0;
	for (size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x; w < W; w += (size_t)gridDim.x * blockDim.x) {
		uint64_t x = bits[w];
		if (w == W - 1 && (n & 63))
			x &= (1ull << (n & 63)) - 1;   // bits past n are not values
		c += __popcll(x);
	}
	warp_count_add(total, c);
}

size_t cub_bytes(size_t W)
{
	size_t bytes = 0;
	CUDA_OK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, (const uint32_t *)nullptr, (uint32_t *)nullptr,
					      (int)W));
	return bytes;
}

unsigned grid_for(size_t n)
{
	size_t blocks = (n + DENSITY_THREADS - 1) / DENSITY_THREADS;
	return blocks < 4096 ? (unsigned)(blocks ? blocks : 1) : 4096u;
}

} // namespace

density_counts density_count(const uint64_t *a_aux, size_t num_aux, const uint64_t *b_input, size_t num_inputs,
			     const uint64_t *b_aux, uint64_t *counts_dev, cudaStream_t s)
{
	const struct {
		const uint64_t *bits;
		size_t n;
	} maps[3] = {{a_aux, num_aux}, {b_input, num_inputs}, {b_aux, num_aux}};
	unsigned long long *total = reinterpret_cast<unsigned long long *>(counts_dev);
	uint64_t host[3];

	CUDA_OK(cudaMemsetAsync(counts_dev, 0, 3 * sizeof(uint64_t), s));
	for (int i = 0; i < 3; i++) {
		if (!maps[i].n)
			continue;
		count_bits<<<grid_for(words_of(maps[i].n)), DENSITY_THREADS, 0, s>>>(total + i, maps[i].bits,
										maps[i].n);
		CUDA_LAUNCHED("count_bits");
	}
	CUDA_OK(cudaMemcpyAsync(host, counts_dev, sizeof(host), cudaMemcpyDeviceToHost, s));
	CUDA_OK(cudaStreamSynchronize(s));
	return density_counts{(size_t)host[0], (size_t)host[1], (size_t)host[2]};
}

size_t density_scratch_bytes(size_t n)
{
	const size_t W = words_of(n);
	return 2 * W * sizeof(uint32_t) + cub_bytes(W) + 256;
}

void density_compact(fr_t *out, const fr_t *in, size_t n, const uint64_t *bits, void *scratch,
		     size_t scratch_bytes, cudaStream_t s)
{
	if (n == 0)
		return;
	const size_t W = words_of(n);
	if (W > 0x7fffffff || scratch_bytes < density_scratch_bytes(n))
		gpu_fail(CUZK_E_INVAL, "density compaction of %zu values: scratch too small", n);
	uint32_t *cnt = static_cast<uint32_t *>(scratch), *off = cnt + W;
	// cub wants its temporary storage 256-byte aligned; the scratch has room.
	const uintptr_t raw = reinterpret_cast<uintptr_t>(off + W);
	void *tmp = reinterpret_cast<void *>((raw + 255) & ~(uintptr_t)255);
	size_t tmp_bytes = scratch_bytes - ((uintptr_t)tmp - reinterpret_cast<uintptr_t>(scratch));
	word_counts<<<grid_for(W), DENSITY_THREADS, 0, s>>>(cnt, bits, n);
	CUDA_LAUNCHED("word_counts");
	CUDA_OK(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, cnt, off, (int)W, s));
	compact<<<grid_for(n), DENSITY_THREADS, 0, s>>>(out, in, n, bits, off);
	CUDA_LAUNCHED("compact");
}

} // namespace cuzk
