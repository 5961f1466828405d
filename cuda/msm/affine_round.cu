// SPDX-License-Identifier: Apache-2.0 OR MIT
// One round of batch-affine pair additions over the whole grid
// (cuda/msm/affine_round.h).  The divisions of all pairs share inversions
// by Montgomery's trick in two levels, so no thread ever waits on a long
// chain of its own and every load is coalesced:
//   pass 1  thread t of T takes pairs i = j·T + t (j < K): the running
//           product of the denominators x_q - x_p before pair i goes to
//           pre[i], the thread's whole product to q[t];
//   level 2 thread u takes q[j·T2 + u] (j < 64) the same way; one Fermat
//           inversion per u; a walk back gives 1/q[t] (the MSM's rounds'
//           kernels, msm/affine_rounds.cuh);
//   pass 2  thread t walks its pairs back: 1/d_i = 1/q·pre[i], then
//           lambda, x3 = lambda^2 - x_p - x_q, y3 = lambda(x_p - x3) - y_p.
// Six products a pair (one in pass 1, two in the walk back, 2M + 1S in the
// sum) and 1/(64K) of an inversion and its walks, against the ten (8M + 2S,
// one reduction fused away) of a mixed XYZZ addition.  The XYZZ kernel
// beside it (xyzz_sum) sums the same points with the MSM's add_affine.
#include <algorithm>
#include <cstring>
#include <vector>

#include "msm/affine_round.h"
#include "msm/affine_rounds.cuh"

namespace cuzk {
namespace {

using A = msm::rounds::A_t<fp_t>;
using plane = msm::rounds::plane<fp_t>;
CUZK_HD A one_a() { return msm::rounds::one_a<fp_t>(); }
constexpr unsigned THREADS = msm::rounds::ROUND_THREADS, SAMPLES = 4096;

// The 2N points of pair_src in planes: x_p, y_p, x_q, y_q, one after the other.
struct planes {
	uint4 *base;
	size_t n;
	__device__ plane at(unsigned p) const { return plane{base + 3 * p * n, n}; }
};

// Pair i's points: planes x_p, y_p, x_q, y_q in the pairs' order, or
// (GATHER) 96-byte points at idx[2i] and idx[2i + 1], as an MSM's first
// round reads the bases.
template <bool GATHER> struct pair_src {
	planes pl;
	const uint4 *pts;
	const uint32_t *idx;
	__device__ A x(size_t i, unsigned side) const
	{
		if (!GATHER)
			return pl.at(2 * side).get(i);
		const uint4 *p = pts + size_t(idx[2 * i + side]) * 6;
		uint4 v[3] = {__ldg(p), __ldg(p + 1), __ldg(p + 2)};
		A r;
		memcpy(&r, v, sizeof r);
		return r;
	}
	__device__ affine_t<A> point(size_t i, unsigned side) const
	{
		affine_t<A> r;
		if (!GATHER) {
			r.x = pl.at(2 * side).get(i);
			r.y = pl.at(2 * side + 1).get(i);
			return r;
		}
		const uint4 *p = pts + size_t(idx[2 * i + side]) * 6;
		uint4 v[6];
#pragma unroll
		for (unsigned w = 0; w < 6; w++)
			v[w] = __ldg(p + w);
		memcpy(&r, v, sizeof r);
		return r;
	}
};

// Words of pseudo-random bits; every 48-byte element's top limb then
// cleared below p's by keep_below_p.
__global__ void fill_words(uint4 *w, size_t words, uint64_t seed)
{
	for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x) {
		uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull ^ seed;
		uint32_t v[4];
		for (int k = 0; k < 4; k++) {
			z ^= z >> 31;
			z *= 0xbf58476d1ce4e5b9ull;
			z ^= z >> 29;
			v[k] = uint32_t(z >> 16);
		}
		w[i] = make_uint4(v[0], v[1], v[2], v[3]);
	}
}
// The last word of every element: in planes, words (3p + 2)·n..; in
// points, words 2 and 5 of each.
__global__ void keep_below_p(uint4 *w, size_t elements, size_t n, bool as_points)
{
	for (size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < elements; e += size_t(gridDim.x) * blockDim.x) {
		const size_t at = as_points ? (e / 2) * 6 + (e % 2) * 3 + 2 : ((e / n) * 3 + 2) * n + e % n;
		w[at].w &= 0x0fffffffu;
	}
}
__global__ void make_indices(uint32_t *idx, size_t m, size_t points)
{
	for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += size_t(gridDim.x) * blockDim.x) {
		uint64_t z = (i + 1) * 0xd1b54a32d192ed03ull;
		z ^= z >> 31;
		z *= 0xbf58476d1ce4e5b9ull;
		z ^= z >> 29;
		idx[i] = uint32_t(z % points);
	}
}

template <unsigned K, bool GATHER>
__global__ void __launch_bounds__(THREADS) running_products(pair_src<GATHER> src, size_t T, plane pre, plane q)
{
	const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t >= T)
		return;
	A prod = one_a();
#pragma unroll 1
	for (unsigned j = 0; j < K; j++) {
		const size_t i = size_t(j) * T + t;
		pre.put(i, prod);
		prod = mul(prod, sub(src.x(i, 1), src.x(i, 0)));
	}
	q.put(t, prod);
}

// 128 registers (4 blocks of 128 an SM), as the MSM's G1 accumulation.
template <unsigned K, bool GATHER>
__global__ void __launch_bounds__(THREADS, 4) pair_sums(pair_src<GATHER> src, size_t T, plane pre, plane qinv,
							 planes out)
{
	const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t >= T)
		return;
	A r = qinv.get(t);
#pragma unroll 1
	for (unsigned j = K; j-- > 0;) {
		const size_t i = size_t(j) * T + t;
		const affine_t<A> p = src.point(i, 0), q = src.point(i, 1);
		const A d = sub(q.x, p.x);
		const A dinv = mul(r, pre.get(i));
		r = mul(r, d);
		const A lambda = mul(sub(q.y, p.y), dinv);
		const A x3 = sub(sqr(lambda), add(p.x, q.x));
		out.at(0).put(i, x3);
		out.at(1).put(i, sub(mul(lambda, sub(p.x, x3)), p.y));
	}
}

// The same 2K points of thread t summed by XYZZ mixed additions.
template <unsigned K, bool GATHER>
__global__ void __launch_bounds__(THREADS, 4) xyzz_sum(pair_src<GATHER> src, size_t T, xyzz_t<A> *out)
{
	const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t >= T)
		return;
	const A one = one_a();
	xyzz_t<A> acc;
	set_inf(acc);
#pragma unroll 1
	for (unsigned j = 0; j < 2 * K; j++)
		add_affine(acc, src.point(size_t(j / 2) * T + t, j % 2), false, one);
	out[t] = acc;
}

// Pair k·stride's inputs and output, for the host's check.
template <bool GATHER>
__global__ void collect(pair_src<GATHER> src, planes out, size_t stride, unsigned count, affine_t<A> *dst)
{
	const size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (k >= count)
		return;
	const size_t i = k * stride;
	dst[3 * k] = src.point(i, 0);
	dst[3 * k + 1] = src.point(i, 1);
	dst[3 * k + 2] = affine_t<A>{out.at(0).get(i), out.at(1).get(i)};
}

unsigned grid(size_t n) { return unsigned((n + THREADS - 1) / THREADS); }

template <unsigned K, bool GATHER> void run(unsigned log_pairs, unsigned reps, cuzk_affine_round_result *res)
{
	const unsigned level = msm::rounds_level_k();   // the MSM's $CUZK_MSM_ROUNDS_LEVEL
	const size_t N = size_t(1) << log_pairs, T = N / K, T2 = (T + level - 1) / level;
	dev_mem points(GATHER ? 2 * N * 96 : 4 * N * 48), indices(GATHER ? 2 * N * sizeof(uint32_t) : 0),
		pre(N * 48), out(2 * N * 48), q(T * 48), qpre(T * 48), qinv(T * 48), q2(T2 * 48),
		sums(T * sizeof(xyzz_t<A>)), check(3 * SAMPLES * sizeof(affine_t<A>));
	fill_words<<<4096, 256>>>(points.as<uint4>(), points.size() / 16, 0x5eed);
	CUDA_LAUNCHED("fill_words");
	keep_below_p<<<4096, 256>>>(points.as<uint4>(), 4 * N, N, GATHER);   // x and y of 2N points
	CUDA_LAUNCHED("keep_below_p");
	if (GATHER) {
		make_indices<<<4096, 256>>>(indices.as<uint32_t>(), 2 * N, 2 * N);
		CUDA_LAUNCHED("make_indices");
	}
	const pair_src<GATHER> src{{points.as<uint4>(), N}, points.as<uint4>(), indices.as<uint32_t>()};
	const plane p_pre{pre.as<uint4>(), N}, p_q{q.as<uint4>(), T}, p_qpre{qpre.as<uint4>(), T},
		p_qinv{qinv.as<uint4>(), T}, p_q2{q2.as<uint4>(), T2};
	const planes p_out{out.as<uint4>(), N};
	event_t e[5] = {event_t(true), event_t(true), event_t(true), event_t(true), event_t(true)};
	event_t inv0(true), inv1(true);   // around the inversions alone
	double best = 0, best_x = 0;
	for (unsigned r = 0; r < reps + 1; r++) {   // the first run warms up
		e[0].record(nullptr);
		running_products<K, GATHER><<<grid(T), THREADS>>>(src, T, p_pre, p_q);
		CUDA_LAUNCHED("running_products");
		e[1].record(nullptr);
		msm::rounds::level_products<fp_t><<<grid(T2), THREADS>>>(p_q, T, T2, level, p_qpre, p_q2);
		CUDA_LAUNCHED("level_products");
		inv0.record(nullptr);
		msm::rounds::invert_level<fp_t><<<grid(T2), THREADS>>>(p_q2, T2);
		CUDA_LAUNCHED("invert_level");
		inv1.record(nullptr);
		msm::rounds::level_inverses<fp_t><<<grid(T2), THREADS>>>(p_q, T, T2, level, p_qpre, p_q2, p_qinv);
		CUDA_LAUNCHED("level_inverses");
		e[2].record(nullptr);
		pair_sums<K, GATHER><<<grid(T), THREADS>>>(src, T, p_pre, p_qinv, p_out);
		CUDA_LAUNCHED("pair_sums");
		e[3].record(nullptr);
		xyzz_sum<K, GATHER><<<grid(T), THREADS>>>(src, T, sums.as<xyzz_t<A>>());
		CUDA_LAUNCHED("xyzz_sum");
		e[4].record(nullptr);
		e[4].sync();
		const double a = e[1].ms_since(e[0]), b = e[2].ms_since(e[1]), c = e[3].ms_since(e[2]),
			     x = e[4].ms_since(e[3]);
		if (r && (best == 0 || a + b + c < best)) {
			best = a + b + c;
			res->pre_ms = a;
			res->inv_ms = b;
			res->invert_ms = inv1.ms_since(inv0);
			res->sum_ms = c;
		}
		if (r && (best_x == 0 || x < best_x))
			best_x = x;
	}
	res->ns_per_add = best * 1e6 / double(N);
	res->xyzz_ms = best_x;
	// 2N points, T of them the first of a thread's sum (from infinity: a copy)
	res->xyzz_ns_per_add = best_x * 1e6 / double(2 * N - T);

	collect<GATHER><<<grid(SAMPLES), THREADS>>>(src, p_out, N / SAMPLES, SAMPLES, check.as<affine_t<A>>());
	CUDA_LAUNCHED("collect");
	std::vector<affine_t<A>> h(3 * SAMPLES);
	CUDA_OK(cudaMemcpy(h.data(), check.get(), check.size(), cudaMemcpyDeviceToHost));
	const A one = one_a();
	for (unsigned k = 0; k < SAMPLES; k++) {
		const affine_t<A> &p = h[3 * k], &qq = h[3 * k + 1], &got = h[3 * k + 2];
		const A lambda = mul(sub(qq.y, p.y), msm::affine::inverse(sub(qq.x, p.x), one));
		const A x3 = sub(sqr(lambda), add(p.x, qq.x));
		const A y3 = sub(mul(lambda, sub(p.x, x3)), p.y);
		if (!eq(x3, got.x) || !eq(y3, got.y))
			gpu_fail(CUZK_E_MISMATCH, "affine round: pair %zu of 2^%u (%u per thread, %s) differs from the "
				 "host's sum with its own inversion", size_t(k) * (N / SAMPLES), log_pairs, K,
				 GATHER ? "gathered" : "in planes");
	}
	res->checked = SAMPLES;
}

template <bool GATHER> void run_k(unsigned log_pairs, unsigned K, unsigned reps, cuzk_affine_round_result *res)
{
	if (K == 8)
		run<8, GATHER>(log_pairs, reps, res);
	else if (K == 16)
		run<16, GATHER>(log_pairs, reps, res);
	else
		run<32, GATHER>(log_pairs, reps, res);
}

} // namespace
} // namespace cuzk

extern "C" int cuzk_affine_round_bench(unsigned log_pairs, unsigned per_thread, int gather, unsigned reps,
				       cuzk_affine_round_result *out, cuzk_error *err)
{
	using namespace cuzk;
	return gpu_entry(err, [&] {
		*out = cuzk_affine_round_result{};
		if (log_pairs < 16 || log_pairs > 26 || (per_thread != 8 && per_thread != 16 && per_thread != 32) ||
		    !reps)
			gpu_fail(CUZK_E_INVAL, "affine round bench: 2^%u pairs, %u a thread, %u runs: the pairs must be "
				 "2^16..2^26, a thread's 8, 16 or 32, the runs at least 1", log_pairs, per_thread, reps);
		if (gather)
			run_k<true>(log_pairs, per_thread, reps, out);
		else
			run_k<false>(log_pairs, per_thread, reps, out);
	});
}
