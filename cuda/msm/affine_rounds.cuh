// SPDX-License-Identifier: Apache-2.0 OR MIT
// Batch-affine rounds over a whole sort group ($CUZK_MSM_ACC=rounds, G1 and G2):
// before the XYZZ accumulation, each round adds the sorted list's
// neighbours (2s, 2s + 1) of the same bucket in affine coordinates and
// writes the shorter list, the divisions of every pair of the round
// sharing inversions by Montgomery's trick in two levels over the whole
// grid (msm/affine_round.cu measures one such round alone).  The XYZZ
// kernel then sums what is left, as it would have summed the pairs.
//
// A round over n entries (no sentinels) has S = ceil(n / 2) slots:
//   1. thread t takes slots s = j·T + t (j < ROUND_K): slot s is a pair when
//      2s + 1 < n, both keys are equal and both x are nonzero and differ
//      (a doubling, P + (-P), infinity and x = 0 are left to the XYZZ
//      kernel); its flag, the running product of the pairs' denominators
//      before it (pre[s]) and the thread's product q[t];
//   2. an exclusive scan of the flags: slot s's outputs go to 2s - P(s),
//      P(s) the pairs before it, so the list stays sorted; the count of
//      the next list is n - P(S), and the host reads it (one sync a round);
//   3. 1/q[t] by the second level (64 threads' products a thread, one
//      Fermat inversion each, walked back);
//   4. thread t walks its slots back: a pair's 1/d from 1/q and pre[s],
//      its affine sum; a slot that is not a pair copies its one or two
//      entries.
// The first round reads the bases through the sorted values (index·2 +
// sign); later rounds read their list in order.  Lists are affine points
// (96 bytes in G1, 192 in G2) with their keys; the last one goes to the
// XYZZ kernel with identity values (index·2, no sign).  Everything here
// is templated on the field F (fp_t or fp2_t); a G2 inversion is one of
// Fp (of the norm).
#ifndef CUZK_CUDA_MSM_AFFINE_ROUNDS_CUH
#define CUZK_CUDA_MSM_AFFINE_ROUNDS_CUH

#include <cub/device/device_scan.cuh>
#include <memory>
#include <vector>

#include "msm/affine_acc.cuh"
#include "msm/pippenger.cuh"
#include "util/gpu_t.cuh"

namespace cuzk {
namespace msm {
namespace rounds {

template <class F> using A_t = fx_t<F, fp_form::fused>;
// 16-byte words of an element of F: 3 (Fp), 6 (Fp2).
template <class F> constexpr unsigned WORDS = unsigned(sizeof(F) / 16);

template <class F> CUZK_HD A_t<F> one_a()
{
	F o;
	if constexpr (std::is_same<F, fp_t>::value)
		o = fp_one();
	else
		o = fp2_one();
	A_t<F> r;
	memcpy(&r, &o, sizeof r);
	return r;
}

// 1/a for a != 0: Fp's by Fermat (affine_acc.cuh), Fp2's from its norm's,
// 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2).
static __device__ A_t<fp_t> invert(const A_t<fp_t> &a) { return affine::inverse(a, one_a<fp_t>()); }
static __device__ A_t<fp2_t> invert(const A_t<fp2_t> &a)
{
	const A_t<fp_t> c0{a.f.c0}, c1{a.f.c1};
	const A_t<fp_t> t = affine::inverse(add(sqr(c0), sqr(c1)), one_a<fp_t>());
	return {fp2_t{mul(c0, t).f, neg(mul(c1, t)).f}};
}

// Field elements in planes of 16-byte words (word w of element i at
// base[w·n + i]): a warp's consecutive elements are contiguous.
template <class F> struct plane {
	uint4 *base;
	size_t n;
	__device__ A_t<F> get(size_t i) const
	{
		uint4 v[WORDS<F>];
#pragma unroll
		for (unsigned w = 0; w < WORDS<F>; w++)
			v[w] = base[w * n + i];
		A_t<F> r;
		memcpy(&r, v, sizeof r);
		return r;
	}
	__device__ void put(size_t i, const A_t<F> &a) const
	{
		uint4 v[WORDS<F>];
		memcpy(v, &a, sizeof v);
#pragma unroll
		for (unsigned w = 0; w < WORDS<F>; w++)
			base[w * n + i] = v[w];
	}
};

// Entry e of a round's list: the first round's through the sorted values.
template <class F, bool FIRST> struct list_src {
	static constexpr unsigned W = WORDS<F>;
	const uint4 *pts;
	const uint32_t *vals;
	__device__ const uint4 *at(size_t e) const { return pts + size_t(FIRST ? vals[e] >> 1 : e) * (2 * W); }
	__device__ A_t<F> x(size_t e) const
	{
		const uint4 *p = at(e);
		uint4 v[W];
#pragma unroll
		for (unsigned w = 0; w < W; w++)
			v[w] = __ldg(p + w);
		A_t<F> r;
		memcpy(&r, v, sizeof r);
		return r;
	}
	__device__ affine_t<A_t<F>> point(size_t e) const
	{
		const uint4 *p = at(e);
		uint4 v[2 * W];
#pragma unroll
		for (unsigned w = 0; w < 2 * W; w++)
			v[w] = __ldg(p + w);
		affine_t<A_t<F>> r;
		memcpy(&r, v, sizeof r);
		if (FIRST && (vals[e] & 1))
			r.y = neg(r.y);   // infinity stays (0, 0)
		return r;
	}
};

template <class F> __device__ __forceinline__ void store_point(uint4 *pts, size_t e, const affine_t<A_t<F>> &p)
{
	constexpr unsigned W2 = 2 * WORDS<F>;
	uint4 v[W2];
	memcpy(v, &p, sizeof v);
	uint4 *d = pts + e * W2;
#pragma unroll
	for (unsigned w = 0; w < W2; w++)
		d[w] = v[w];
}

// How many of a thread's items j·stride + t (j < cap) lie below count: the
// walks back start from the last of them.
CUZK_HD unsigned strided_count(size_t t, size_t stride, size_t count, unsigned cap)
{
	if (t >= count)
		return 0;
	const size_t k = (count - t + stride - 1) / stride;
	return k < cap ? unsigned(k) : cap;
}

// Slots a thread (steps 1 and 4) and the second level's products a
// thread: pippenger.cuh's, which sizes the scratch.
constexpr unsigned ROUND_K = unsigned(ROUNDS_K), ROUND_THREADS = 128;

// The number of entries before the first sentinel (keys sorted, sentinels >= nb last).
static __global__ void count_real(const uint32_t *keys, size_t n, uint32_t nb, unsigned long long *out)
{
	size_t a = 0, b = n;
	while (a < b) {
		const size_t mid = a + (b - a) / 2;
		if (keys[mid] < nb)
			a = mid + 1;
		else
			b = mid;
	}
	*out = a;
}

// Slots are taken PRODUCTS_AHEAD at a time, their x loaded before any is
// used, so that the first round's gathers from the bases overlap.
constexpr unsigned PRODUCTS_AHEAD = 4;
template <class F, bool FIRST>
static __global__ void __launch_bounds__(ROUND_THREADS)
	pair_products(list_src<F, FIRST> src, const uint32_t *keys, size_t n, size_t S, size_t T, uint32_t *flags,
		      plane<F> pre, plane<F> q)
{
	using A = A_t<F>;
	const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t == 0)
		flags[S] = 0;   // the scan's last entry: P(S), the round's pairs
	if (t >= T)
		return;
	A prod = one_a<F>();
#pragma unroll 1
	for (unsigned j0 = 0; j0 < ROUND_K && size_t(j0) * T + t < S; j0 += PRODUCTS_AHEAD) {
		A x0[PRODUCTS_AHEAD], x1[PRODUCTS_AHEAD];
		bool same[PRODUCTS_AHEAD];
#pragma unroll
		for (unsigned u = 0; u < PRODUCTS_AHEAD; u++) {
			const size_t s = size_t(j0 + u) * T + t, e = 2 * s;
			same[u] = s < S && e + 1 < n && keys[e] == keys[e + 1];
			if (same[u]) {
				x0[u] = src.x(e);
				x1[u] = src.x(e + 1);
			}
		}
#pragma unroll
		for (unsigned u = 0; u < PRODUCTS_AHEAD; u++) {
			const size_t s = size_t(j0 + u) * T + t;
			if (s >= S)
				break;
			const bool f = same[u] && !is_zero(x0[u]) && !is_zero(x1[u]) && !eq(x0[u], x1[u]);
			if (f) {
				pre.put(s, prod);
				prod = mul(prod, sub(x1[u], x0[u]));
			}
			flags[s] = f;
		}
	}
	q.put(t, prod);
}

// The second level over v (count values): products of level_k a thread.
template <class F>
static __global__ void __launch_bounds__(ROUND_THREADS)
	level_products(plane<F> v, size_t count, size_t T2, unsigned level_k, plane<F> pre, plane<F> q2)
{
	const size_t u = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (u >= T2)
		return;
	A_t<F> prod = one_a<F>();
#pragma unroll 1
	for (unsigned j = 0; j < level_k; j++) {
		const size_t i = size_t(j) * T2 + u;
		if (i >= count)
			break;
		pre.put(i, prod);
		prod = mul(prod, v.get(i));
	}
	q2.put(u, prod);
}

// Fermat's a^(p-2): a binary extended Euclid algorithm measured slower
// here (divergent and 64-bit-emulated steps; docs/BENCHMARKS.md, "GPU MSM,
// 2026-12-06 (session of 09:47)").
template <class F> static __global__ void __launch_bounds__(ROUND_THREADS) invert_level(plane<F> q2, size_t T2)
{
	const size_t u = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (u < T2)
		q2.put(u, invert(q2.get(u)));
}

// 1/v[i] from the level's running products and the inverses of its products.
template <class F>
static __global__ void __launch_bounds__(ROUND_THREADS)
	level_inverses(plane<F> v, size_t count, size_t T2, unsigned level_k, plane<F> pre, plane<F> inv2, plane<F> inv)
{
	const size_t u = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (u >= T2)
		return;
	A_t<F> r = inv2.get(u);
#pragma unroll 1
	for (unsigned j = strided_count(u, T2, count, level_k); j-- > 0;) {
		const size_t i = size_t(j) * T2 + u;
		inv.put(i, mul(r, pre.get(i)));
		r = mul(r, v.get(i));
	}
}

// G1: 128 registers (4 blocks of 128 an SM), as the XYZZ accumulation; G2,
// twice the field, twice the registers.
template <class F> constexpr unsigned SUMS_BLOCKS = std::is_same<F, fp_t>::value ? 4 : 2;
template <class F, bool FIRST>
__global__ void __launch_bounds__(ROUND_THREADS, SUMS_BLOCKS<F>)
	pair_sums(list_src<F, FIRST> src, const uint32_t *keys, size_t n, size_t S, size_t T, const uint32_t *flags,
		  const uint32_t *before, plane<F> pre, plane<F> qinv, uint4 *out, uint32_t *out_keys)
{
	using A = A_t<F>;
	const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t >= T)
		return;
	A r = qinv.get(t);
#pragma unroll 1
	for (unsigned j = strided_count(t, T, S, ROUND_K); j-- > 0;) {
		const size_t s = size_t(j) * T + t, e = 2 * s, pos = e - before[s];
		const uint32_t key = keys[e];
		if (flags[s]) {
			const affine_t<A> p = src.point(e), q = src.point(e + 1);
			const A d = sub(q.x, p.x);
			const A dinv = mul(r, pre.get(s));
			r = mul(r, d);
			const A lambda = mul(sub(q.y, p.y), dinv);
			affine_t<A> sum;
			sum.x = sub(sqr(lambda), add(p.x, q.x));
			sum.y = sub(mul(lambda, sub(p.x, sum.x)), p.y);
			store_point<F>(out, pos, sum);
			out_keys[pos] = key;
		} else {
			store_point<F>(out, pos, src.point(e));
			out_keys[pos] = key;
			if (e + 1 < n) {
				store_point<F>(out, pos + 1, src.point(e + 1));
				out_keys[pos + 1] = keys[e + 1];
			}
		}
	}
}

static __global__ void identity_values(uint32_t *vals, size_t n)
{
	const size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (e < n)
		vals[e] = uint32_t(e) << 1;
}

inline unsigned grid_for(size_t threads) { return unsigned((threads + ROUND_THREADS - 1) / ROUND_THREADS); }

// The rounds over one sort group; see pippenger.cuh's rounds_scratch.
template <class F>
rounds_result run(const uint4 *bases, const uint32_t *keys, const uint32_t *vals, size_t npairs, uint32_t nb,
			 const rounds_scratch &sc, cudaStream_t s)
{
	rounds_result res{bases, keys, vals, npairs, 0};
	unsigned long long *d_count = sc.count;
	count_real<<<1, 1, 0, s>>>(keys, npairs, nb, d_count);
	CUDA_LAUNCHED("msm rounds count_real");
	unsigned long long n_host = 0;
	CUDA_OK(cudaMemcpyAsync(&n_host, d_count, sizeof n_host, cudaMemcpyDeviceToHost, s));
	CUDA_OK(cudaStreamSynchronize(s));
	size_t n = size_t(n_host);
	// $CUZK_MSM_ROUNDS_PROFILE: each round's steps timed and printed (stderr).
	const bool profile = getenv("CUZK_MSM_ROUNDS_PROFILE") != nullptr;
	struct round_times {
		size_t n, pairs;
		std::unique_ptr<event_t> e[5];
	};
	std::vector<round_times> times;
	auto mark = [&](int i) {
		if (!profile)
			return;
		if (i == 0)
			times.push_back(round_times{n, 0, {}});
		times.back().e[i] = std::make_unique<event_t>(true);
		times.back().e[i]->record(s);
	};
	const uint4 *in_pts = bases;
	const uint32_t *in_keys = keys;
	for (unsigned r = 0; r < sc.rounds && n >= 2 * sc.min_pairs; r++) {
		const size_t S = (n + 1) / 2, T = (S + ROUND_K - 1) / ROUND_K, T2 = (T + sc.level_k - 1) / sc.level_k;
		if (S > sc.slots)
			break;   // the scratch was sized for fewer (a larger group than planned)
		const plane<F> pre{sc.pre, sc.slots}, q{sc.q, sc.threads}, qpre{sc.qpre, sc.threads},
			qinv{sc.qinv, sc.threads}, q2{sc.q2, sc.threads2};
		mark(0);
		if (r == 0)
			pair_products<F, true><<<grid_for(T), ROUND_THREADS, 0, s>>>(list_src<F, true>{in_pts, vals}, in_keys,
										      n, S, T, sc.flags, pre, q);
		else
			pair_products<F, false><<<grid_for(T), ROUND_THREADS, 0, s>>>(list_src<F, false>{in_pts, nullptr},
										       in_keys, n, S, T, sc.flags, pre, q);
		CUDA_LAUNCHED("msm rounds pair_products");
		mark(1);
		size_t tmp = sc.cub_bytes;
		CUDA_OK(cub::DeviceScan::ExclusiveSum(sc.cub_tmp, tmp, sc.flags, sc.before, (int)(S + 1), s));
		uint32_t pairs_host = 0;
		CUDA_OK(cudaMemcpyAsync(&pairs_host, sc.before + S, sizeof pairs_host, cudaMemcpyDeviceToHost, s));
		CUDA_OK(cudaStreamSynchronize(s));
		const size_t pairs = pairs_host, n_out = n - pairs;
		mark(2);
		if (profile)
			times.back().pairs = pairs;
		if (pairs < sc.min_pairs || n_out > sc.cap[r & 1])
			break;   // nothing worth an inversion, or no room: the XYZZ kernel takes this list
		level_products<F><<<grid_for(T2), ROUND_THREADS, 0, s>>>(q, T, T2, sc.level_k, qpre, q2);
		CUDA_LAUNCHED("msm rounds level_products");
		invert_level<F><<<grid_for(T2), ROUND_THREADS, 0, s>>>(q2, T2);
		CUDA_LAUNCHED("msm rounds invert_level");
		level_inverses<F><<<grid_for(T2), ROUND_THREADS, 0, s>>>(q, T, T2, sc.level_k, qpre, q2, qinv);
		CUDA_LAUNCHED("msm rounds level_inverses");
		mark(3);
		uint4 *out = sc.pts[r & 1];
		uint32_t *out_keys = sc.keys[r & 1];
		if (r == 0)
			pair_sums<F, true><<<grid_for(T), ROUND_THREADS, 0, s>>>(list_src<F, true>{in_pts, vals}, in_keys, n,
										  S, T, sc.flags, sc.before, pre, qinv, out,
										  out_keys);
		else
			pair_sums<F, false><<<grid_for(T), ROUND_THREADS, 0, s>>>(list_src<F, false>{in_pts, nullptr}, in_keys,
										   n, S, T, sc.flags, sc.before, pre, qinv,
										   out, out_keys);
		CUDA_LAUNCHED("msm rounds pair_sums");
		mark(4);
		in_pts = out;
		in_keys = out_keys;
		n = n_out;
		res.rounds = r + 1;
	}
	if (profile) {
		CUDA_OK(cudaStreamSynchronize(s));
		for (size_t r = 0; r < times.size(); r++) {
			const round_times &rt = times[r];
			if (!rt.e[4])
				continue;   // stopped after its scan
			fprintf(stderr, "msm round %zu: %zu entries, %zu pairs: products %.3f, scan %.3f, inverses %.3f, "
				"sums %.3f ms\n", r + 1, rt.n, rt.pairs, rt.e[1]->ms_since(*rt.e[0]),
				rt.e[2]->ms_since(*rt.e[1]), rt.e[3]->ms_since(*rt.e[2]), rt.e[4]->ms_since(*rt.e[3]));
		}
	}
	if (!res.rounds)
		return res;
	identity_values<<<grid_for(n), ROUND_THREADS, 0, s>>>(sc.vals, n);
	CUDA_LAUNCHED("msm rounds identity_values");
	res.bases = in_pts;
	res.keys = in_keys;
	res.vals = sc.vals;
	res.npairs = n;
	return res;
}

} // namespace rounds
} // namespace msm
} // namespace cuzk

#endif
