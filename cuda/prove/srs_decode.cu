// SPDX-License-Identifier: Apache-2.0 OR MIT
// The parameter file's points decoded on the device: one thread a point,
// its bytes in and its limbs out as 16-byte accesses (a point is 6 or 12 of
// them, so 16-byte aligned buffers keep every point aligned), the per-point
// work in prove/srs_decode.cuh.  The load is memory-bound (a few Fp products
// a point against 192 or 384 bytes moved), so nothing is staged.
#include "prove/srs_decode.cuh"
#include "prove/srs_decode_launch.cuh"

#include <algorithm>
#include <cstring>

#include "util/check.cuh"

namespace cuzk {

namespace {

constexpr unsigned BLOCK = 256;
// Grid-stride beyond this many blocks (2^28 points a pass at BLOCK = 256).
constexpr size_t MAX_BLOCKS = (size_t)1 << 20;

template <class F>
__global__ void __launch_bounds__(BLOCK) decode_kernel(const uint4 *__restrict__ raw, uint4 *__restrict__ out,
						       size_t n, bool curve, unsigned long long *bad)
{
	constexpr int V = sizeof(raw_point_t<F>) / sizeof(uint4);
	static_assert(sizeof(affine_t<F>) == sizeof(raw_point_t<F>), "a point is as long decoded as encoded");
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		raw_point_t<F> r;
CUZK_UNROLL
		for (int j = 0; j < V; j++) {
			const uint4 q = raw[i * V + j];
			r.w[4 * j] = q.x;
			r.w[4 * j + 1] = q.y;
			r.w[4 * j + 2] = q.z;
			r.w[4 * j + 3] = q.w;
		}
		affine_t<F> p{};   // left as it is (infinity) when the point fails
		const bool failed = decode_point(p, r, curve) != decode_status::ok;
		// Lanes of one pass hold consecutive indices, so the lowest failing
		// lane of those that vote together carries their minimum: one
		// atomic per warp, not per point, when a whole file is garbage.
		const unsigned votes = __ballot_sync(__activemask(), failed);
		if (failed && (threadIdx.x & 31) == (unsigned)__ffs(votes) - 1)
			atomicMin(bad, (unsigned long long)i);
		uint4 q[V];
		memcpy(q, &p, sizeof p);
CUZK_UNROLL
		for (int j = 0; j < V; j++)
			out[i * V + j] = q[j];
	}
}

template <class F>
void launch(const uint8_t *raw, void *out, size_t n, bool curve, unsigned long long *bad, cudaStream_t s)
{
	if (reinterpret_cast<uintptr_t>(raw) % 16 || reinterpret_cast<uintptr_t>(out) % 16)
		gpu_fail(CUZK_E_INVAL, "srs_decode: raw (%p) and out (%p) must be 16-byte aligned",
			 static_cast<const void *>(raw), out);
	if (!n)
		return;
	const unsigned blocks = (unsigned)std::min((n + BLOCK - 1) / BLOCK, MAX_BLOCKS);
	decode_kernel<F><<<blocks, BLOCK, 0, s>>>(reinterpret_cast<const uint4 *>(raw), static_cast<uint4 *>(out), n,
						   curve, bad);
	CUDA_LAUNCHED("srs_decode");
}

} // namespace

void srs_decode_g1(const uint8_t *raw, void *out, size_t n, bool curve, unsigned long long *bad, cudaStream_t s)
{
	launch<fp_t>(raw, out, n, curve, bad, s);
}

void srs_decode_g2(const uint8_t *raw, void *out, size_t n, bool curve, unsigned long long *bad, cudaStream_t s)
{
	launch<fp2_t>(raw, out, n, curve, bad, s);
}

} // namespace cuzk
