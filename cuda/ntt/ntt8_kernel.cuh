// SPDX-License-Identifier: Apache-2.0 OR MIT
// The radix-8 NTT kernel (design: ntt/ntt.cuh; one thread's work between
// barriers: ntt/radix8.cuh), instantiated for one block shape per
// translation unit (ntt8_11x2.cu, ...), so that the shapes compile side by
// side; ntt8.cu launches them.
#ifndef CUZK_CUDA_NTT_NTT8_KERNEL_CUH
#define CUZK_CUDA_NTT_NTT8_KERNEL_CUH

#include "ntt/radix8.cuh"

namespace cuzk {

// The kernel of one shape and direction: ntt8_kernel_<TILE_LOG>x<BLOCKS>.
const void *ntt8_kernel_11x2(bool dit, bool inverse);
const void *ntt8_kernel_10x3(bool dit, bool inverse);
const void *ntt8_kernel_10x4(bool dit, bool inverse);

#ifdef __CUDACC__
// One pass: blocks loop over tiles (a persistent grid of BLOCKS blocks per
// SM); a tile is ntt8_rounds(k) phases with a barrier between each two.  The
// first tile's elements are prefetched here, every later tile's during the
// last round of the one before (ntt8_phase, which also holds the barrier
// after which the next tile may overwrite shared memory).
template <bool DIT, bool INV, unsigned TILE_LOG, unsigned BLOCKS>
__global__ void __launch_bounds__(1u << (TILE_LOG - 3), BLOCKS) ntt8_kernel(const ntt8_pass a)
{
	extern __shared__ uint4 ntt8_smem[];
	fr_t *roots = reinterpret_cast<fr_t *>(ntt8_smem);
	uint32_t *sm = reinterpret_cast<uint32_t *>(roots + (1u << a.k));
	const uint32_t tiles = ntt8_tiles(a);
	if (blockIdx.x < tiles)
		ntt8_prefetch<DIT>(a, blockIdx.x, threadIdx.x, sm);
	ntt8_fill_roots(a, roots, threadIdx.x, blockDim.x);
	__syncthreads();   // roots written
	const unsigned rounds = ntt8_rounds(a.k);
	for (uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
		const uint32_t next = tile + gridDim.x < tiles ? tile + gridDim.x : NTT8_NO_TILE;
		for (unsigned rd = 0; rd < rounds; rd++) {
			if (rd)
				__syncthreads();
			ntt8_phase<DIT, INV>(a, tile, rd, threadIdx.x, roots, sm, next);
		}
	}
}

#define CUZK_NTT8_SHAPE(TILE_LOG, BLOCKS)                                                                  \
	const void *ntt8_kernel_##TILE_LOG##x##BLOCKS(bool dit, bool inverse)                                 \
	{                                                                                                  \
		if (dit)                                                                                   \
			return inverse ? (const void *)ntt8_kernel<true, true, TILE_LOG, BLOCKS>               \
				       : (const void *)ntt8_kernel<true, false, TILE_LOG, BLOCKS>;             \
		return inverse ? (const void *)ntt8_kernel<false, true, TILE_LOG, BLOCKS>                      \
			       : (const void *)ntt8_kernel<false, false, TILE_LOG, BLOCKS>;                    \
	}
#endif

} // namespace cuzk

#endif
