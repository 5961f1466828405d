// SPDX-License-Identifier: Apache-2.0 OR MIT
// The radix-8 NTT kernel and its launcher (design: ntt.cuh; one thread's work
// between barriers: ntt/radix8.cuh).
#include "ntt/ntt.cuh"

namespace cuzk {

namespace {

// One pass: blocks loop over tiles (a persistent grid of two or three blocks per SM);
// a tile is ntt8_rounds(k) phases with a barrier between each two, and one
// more before the next tile overwrites shared memory.
template <bool DIT, bool INV, unsigned TILE_LOG, bool PARITY>
__global__ void __launch_bounds__(1u << (TILE_LOG - 3), ntt8_blocks_per_sm(TILE_LOG)) ntt8_kernel(const ntt8_pass a)
{
	extern __shared__ uint4 ntt8_smem[];
	fr_t *roots = reinterpret_cast<fr_t *>(ntt8_smem);
	uint32_t *sm = reinterpret_cast<uint32_t *>(roots + (1u << a.k));
	ntt8_fill_roots(a, roots, threadIdx.x, blockDim.x);
	const uint32_t tiles = ntt8_tiles(a);
	const unsigned rounds = ntt8_rounds(a.k);
	for (uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
		__syncthreads();   // roots written / the previous tile's last reads done
		for (unsigned rd = 0; rd < rounds; rd++) {
			if (rd)
				__syncthreads();
			ntt8_phase<DIT, INV, PARITY>(a, tile, rd, threadIdx.x, roots, sm);
		}
	}
}

// The largest roots and tile: a 10-bit pass, 32 + 64 KiB (two blocks fit
// an SM's 227 KiB; three of the smaller tile's 32 + 32 KiB).
constexpr size_t NTT8_SMEM_MAX = sizeof(fr_t) * ((1u << NTT8_PASS_MAX) + (1u << NTT8_TILE_LOG));

// [Fr product is the parity one][tile_log == NTT8_TILE_LOG][dit][inverse]
#define CUZK_NTT8_BY_DIR(PARITY, TILE_LOG)                                                                    \
	{{(const void *)ntt8_kernel<false, false, TILE_LOG, PARITY>,                                           \
	  (const void *)ntt8_kernel<false, true, TILE_LOG, PARITY>},                                           \
	 {(const void *)ntt8_kernel<true, false, TILE_LOG, PARITY>, (const void *)ntt8_kernel<true, true, TILE_LOG, PARITY>}}
const void *const ntt8_kernels[2][2][2][2] = {
	{CUZK_NTT8_BY_DIR(false, NTT8_TILE_LOG_ALT), CUZK_NTT8_BY_DIR(false, NTT8_TILE_LOG)},
	{CUZK_NTT8_BY_DIR(true, NTT8_TILE_LOG_ALT), CUZK_NTT8_BY_DIR(true, NTT8_TILE_LOG)},
};
#undef CUZK_NTT8_BY_DIR

} // namespace

void ntt8_set_smem_limits()
{
	// Two or three blocks per SM need most of its shared memory: ask for
	// the largest carveout rather than rely on the driver's choice.
	for (const auto &by_tile : ntt8_kernels)
		for (const auto &by_dit : by_tile)
			for (const auto &by_dir : by_dit)
				for (const void *k : by_dir) {
					CUDA_OK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
								     (int)NTT8_SMEM_MAX));
					CUDA_OK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
								     (int)cudaSharedmemCarveoutMaxShared));
				}
}

void ntt8_run(const ntt_tables_view &t, fr_t *out, const fr_t *in, unsigned log_n, ntt_dir dir,
	      ntt_order order, const ntt_scale &pro, const ntt_scale &epi, const ntt_quotient &quot,
	      cudaStream_t s)
{
	ntt8_pass passes[3];
	const unsigned P = ntt8_plan(passes, t, out, in, log_n, dir, order, pro, epi, quot, t.ntt8_tile_log);
	const uint32_t cap = (uint32_t)ntt_sm_count() * ntt8_blocks_per_sm(t.ntt8_tile_log);
	for (unsigned i = 0; i < P; i++) {
		const ntt8_pass &a = passes[i];
		const uint32_t tiles = ntt8_tiles(a);
		const unsigned grid = tiles < cap ? tiles : cap;
		const size_t smem = ntt8_smem_bytes(a);
		void *args[] = {const_cast<ntt8_pass *>(&a)};
		const void *k = ntt8_kernels[t.ntt8_fr_parity][a.tile_log == NTT8_TILE_LOG][a.dit][a.inverse];
		CUDA_OK(cudaLaunchKernel(k, dim3(grid), dim3(ntt8_threads(a)), args, smem, s));
	}
}

} // namespace cuzk
