// SPDX-License-Identifier: Apache-2.0 OR MIT
// The end of a grid-stride count: each warp sums its lanes' counts and one
// lane adds the warp's total to the result, so a count of n values costs
// n/32 atomics at most, and none for a warp that counted nothing.
#ifndef CUZK_CUDA_UTIL_WARP_COUNT_CUH
#define CUZK_CUDA_UTIL_WARP_COUNT_CUH

namespace cuzk {

// Every lane of a full warp calls it (the shuffles name all 32 lanes).
__device__ __forceinline__ void warp_count_add(unsigned long long *total, unsigned long long c)
{
	for (int d = 16; d > 0; d /= 2)
		c += __shfl_down_sync(0xffffffffu, c, d);
	if ((threadIdx.x & 31) == 0 && c)
		atomicAdd(total, c);
}

} // namespace cuzk

#endif
