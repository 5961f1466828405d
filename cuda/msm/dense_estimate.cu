// SPDX-License-Identifier: Apache-2.0 OR MIT
// How many of a batched MSM's scalars are neither 0 nor 1, from evenly
// spaced samples (msm.cuh, cuzk_msm_dense_estimate): its plan wants the
// order of magnitude, and 2^20 samples read ~32 MB where every scalar of a
// 2^27 query would be 4 GiB.
#include "msm/msm.cuh"
#include "msm/scalar.cuh"
#include "util/check.cuh"
#include "util/warp_count.cuh"

namespace {

constexpr unsigned SAMPLE_THREADS = 256;

// Sample i is scalar i·n / samples: evenly spread, the first one 0.
__global__ void __launch_bounds__(SAMPLE_THREADS) count_dense_samples(unsigned long long *count,
								      const uint64_t *scalars, size_t n,
								      size_t samples, bool mont)
{
	unsigned long long c = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < samples;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint64_t s[4];
		c += cuzk::msm_scalar::load(s, scalars, i * n / samples, mont) == cuzk::msm_scalar::kind::other;
	}
	cuzk::warp_count_add(count, c);
}

} // namespace

extern "C" int cuzk_msm_dense_estimate(const void *d_scalars, size_t n, int scalars_montgomery, size_t *n_dense,
				       void *d_count, cudaStream_t s, cuzk_error *err)
{
	return cuzk::gpu_entry(err, [&] {
		if (!n_dense || (n && (!d_scalars || !d_count)))
			cuzk::gpu_fail(CUZK_E_INVAL, "msm dense estimate: null scalars, count or result");
		if (reinterpret_cast<uintptr_t>(d_scalars) % 8 || reinterpret_cast<uintptr_t>(d_count) % 8)
			cuzk::gpu_fail(CUZK_E_INVAL, "msm dense estimate: scalars and count must be 8-byte aligned");
		if (n > (size_t(1) << 28))
			cuzk::gpu_fail(CUZK_E_INVAL, "msm dense estimate: %zu scalars is more than the 2^28 supported", n);
		*n_dense = 0;
		if (!n)
			return;
		const size_t samples = n < CUZK_MSM_DENSE_SAMPLES ? n : CUZK_MSM_DENSE_SAMPLES;
		unsigned long long *count = static_cast<unsigned long long *>(d_count), host = 0;
		CUDA_OK(cudaMemsetAsync(count, 0, sizeof *count, s));
		const size_t blocks = (samples + SAMPLE_THREADS - 1) / SAMPLE_THREADS;
		count_dense_samples<<<unsigned(blocks < 1024 ? blocks : 1024), SAMPLE_THREADS, 0, s>>>(
			count, static_cast<const uint64_t *>(d_scalars), n, samples, scalars_montgomery != 0);
		CUDA_LAUNCHED("count_dense_samples");
		CUDA_OK(cudaMemcpyAsync(&host, count, sizeof host, cudaMemcpyDeviceToHost, s));
		CUDA_OK(cudaStreamSynchronize(s));
		// count <= samples <= 2^20 and n <= 2^28: the product fits 64 bits.
		*n_dense = size_t((host * n + samples / 2) / samples);
	});
}
