// SPDX-License-Identifier: Apache-2.0 OR MIT
// The radix-8 NTT's launcher (design: ntt.cuh; the kernel: ntt/ntt8_kernel.cuh,
// one thread's work between barriers: ntt/radix8.cuh).
#include <cstring>

#include "ntt/ntt.cuh"
#include "ntt/ntt8_kernel.cuh"

namespace cuzk {

namespace {

// The largest roots and tile: a 10-bit pass, 32 + 64 KiB (two blocks fit
// an SM's 227 KiB; three or four of the smaller tile's 32 + 32 KiB).
constexpr size_t NTT8_SMEM_MAX = sizeof(fr_t) * ((1u << NTT8_PASS_MAX) + (1u << NTT8_TILE_LOG));

const void *shape_kernel(unsigned tile_log, unsigned blocks, bool dit, bool inverse)
{
	if (tile_log == NTT8_TILE_LOG)
		return ntt8_kernel_11x2(dit, inverse);
	return blocks == 4 ? ntt8_kernel_10x4(dit, inverse) : ntt8_kernel_10x3(dit, inverse);
}

} // namespace

void ntt8_set_smem_limits(const ntt8_shape &sh)
{
	// Several blocks per SM need most of its shared memory: ask for the
	// largest carveout rather than rely on the driver's choice.
	for (int dit = 0; dit < 2; dit++)
		for (int inv = 0; inv < 2; inv++) {
			const void *k = shape_kernel(sh.tile_log, sh.blocks, dit, inv);
			const cudaError_t rc = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
								    (int)NTT8_SMEM_MAX);
			const bool no_code = rc == cudaErrorInvalidDeviceFunction || rc == cudaErrorNoKernelImageForDevice;
			if (no_code && strcmp(sh.name, NTT8_SHAPES[0].name)) {
				// The other shapes are built for the last of
				// --with-cuda-arch alone (cuda/Makefile.inc); the first
				// one without code is the build's fault, CUDA_OK's error.
				cudaGetLastError();
				int dev = 0, major = 0, minor = 0;
				CUDA_OK(cudaGetDevice(&dev));
				CUDA_OK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
				CUDA_OK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
				gpu_fail(CUZK_E_INVAL, "CUZK_NTT8_SHAPE=%s: this build has that shape's kernels for the "
					 "last architecture of --with-cuda-arch only, not for this device (sm_%d%d); "
					 "unset it to use %s", sh.name, major, minor, NTT8_SHAPES[0].name);
			}
			CUDA_OK(rc);
			CUDA_OK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
						     (int)cudaSharedmemCarveoutMaxShared));
		}
}

void ntt8_run(const ntt_tables_view &t, fr_t *out, const fr_t *in, unsigned log_n, ntt_dir dir,
	      ntt_order order, const ntt_scale &pro, const ntt_scale &epi, const ntt_quotient &quot,
	      cudaStream_t s)
{
	ntt8_pass passes[3];
	const ntt8_shape &sh = t.ntt8;
	const unsigned P = ntt8_plan(passes, t, out, in, log_n, dir, order, pro, epi, quot, sh.tile_log);
	const uint32_t cap = t.ntt8_grid ? t.ntt8_grid : (uint32_t)ntt_sm_count() * sh.blocks;
	for (unsigned i = 0; i < P; i++) {
		const ntt8_pass &a = passes[i];
		const uint32_t tiles = ntt8_tiles(a);
		const unsigned grid = tiles < cap ? tiles : cap;
		const size_t smem = ntt8_smem_bytes(a);
		void *args[] = {const_cast<ntt8_pass *>(&a)};
		const void *k = shape_kernel(sh.tile_log, sh.blocks, a.dit, a.inverse);
		CUDA_OK(cudaLaunchKernel(k, dim3(grid), dim3(ntt8_threads(a)), args, smem, s));
	}
}

} // namespace cuzk
