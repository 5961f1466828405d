// SPDX-License-Identifier: Apache-2.0 OR MIT
// Self-made data for checking and timing the GPU MSM: bases k_i·G made on the
// device, scalars of a chosen shape, and a host reference (Σ s_i·k_i mod r)·G
// that uses no MSM code (only Fr arithmetic and one scalar multiplication).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "ff/fp2.cuh"
#include "msm/msm.cuh"
#include "msm/msm_check.h"
#include "msm/pippenger.cuh"
#include "util/gpu_t.cuh"

namespace cuzk {
namespace {

// ---- generators of both groups, Montgomery form ----

const uint32_t G1_X[12] = {0xfd530c16u, 0x5cb38790u, 0x9976fff5u, 0x7817fc67u, 0x143ba1c1u, 0x154f95c7u,
			   0xf3d0e747u, 0xf0ae6acdu, 0x21dbf440u, 0xedce6eccu, 0x9e0bfb75u, 0x12017741u};
const uint32_t G1_Y[12] = {0x0ce72271u, 0xbaac93d5u, 0x7918fd8eu, 0x8c22631au, 0x570725ceu, 0xdd595f13u,
			   0x50405194u, 0x51ac5829u, 0xad0059c0u, 0x0e1c8c3fu, 0x5008a26au, 0x0bbc3efcu};
const uint32_t G2_XY[4][12] = {
	{0x02940a10u, 0xf5f28fa2u, 0x87b4961au, 0xb3f5fb26u, 0x3e2ae580u, 0xa1a893b5u, 0x1a3caee9u, 0x9894999du,
	 0x1863366bu, 0x6f67b763u, 0x4350bcd7u, 0x05819192u},
	{0x9e23f606u, 0xa5a9c075u, 0xbccd60c3u, 0xaaa0c59du, 0xe2867806u, 0x3bb17e18u, 0x8541b367u, 0x1b1ab6ccu,
	 0xf2158547u, 0xc2b6ed0eu, 0x7360edf3u, 0x11922a09u},
	{0x60494c4au, 0x4c730af8u, 0x5e369c5au, 0x597cfa1fu, 0xaa0a635au, 0xe7e6856cu, 0x6e0d495fu, 0xbbefb5e9u,
	 0xf0ef25a2u, 0x07d3a975u, 0x7e80dae5u, 0x0083fd8eu},
	{0xdf64b05du, 0xadc0fc92u, 0x2b1461dcu, 0x18aa270au, 0x3be4eba0u, 0x86adac6au, 0xc93da33au, 0x79495c4eu,
	 0xa43ccaedu, 0xe7175850u, 0x63de1bf2u, 0x0b2bc2a1u}};

fp_t load_fp(const uint32_t v[12])
{
	fp_t r;
	for (int j = 0; j < 12; j++)
		r.v[j] = v[j];
	return r;
}

template <class F> affine_t<F> generator();
template <> affine_t<fp_t> generator<fp_t>() { return {load_fp(G1_X), load_fp(G1_Y)}; }
template <> affine_t<fp2_t> generator<fp2_t>()
{
	return {{load_fp(G2_XY[0]), load_fp(G2_XY[1])}, {load_fp(G2_XY[2]), load_fp(G2_XY[3])}};
}
template <class F> F one_of();
template <> fp_t one_of<fp_t>() { return fp_one(); }
template <> fp2_t one_of<fp2_t>() { return fp2_one(); }

// k·q, most significant bit first, for a scalar of `limbs` 64-bit limbs.
template <class F>
CUZK_HD xyzz_t<F> scalar_mul(const affine_t<F> &q, const uint64_t *k, int limbs, const F &one)
{
	xyzz_t<F> r;
	set_inf(r);
	for (int i = 64 * limbs - 1; i >= 0; i--) {
		if (!is_inf(r))
			r = dbl(r);
		if ((k[i / 64] >> (i % 64)) & 1)
			add_affine(r, q, false, one);
	}
	return r;
}

// out[i] = ks[i]·G as affine (one inversion per point; 0 gives all-zero).
template <class F>
__global__ void __launch_bounds__(128) make_points(affine_t<F> *out, const uint64_t *ks, size_t n, affine_t<F> g)
{
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	const F one = msm::field_one<F>();
	xyzz_t<F> p = scalar_mul(g, ks + i, 1, one);
	F t = inv(mul(p.ZZ, p.ZZZ));   // 1/ZZ = t·ZZZ, 1/ZZZ = t·ZZ
	out[i] = {mul(p.X, mul(t, p.ZZZ)), mul(p.Y, mul(t, p.ZZ))};
}

__host__ __device__ inline uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

// Uniform-ish 255-bit values reduced below r (canonical).
__global__ void __launch_bounds__(256) random_scalars(uint64_t *out, size_t n, uint64_t seed)
{
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	uint64_t s[4];
	for (int k = 0; k < 4; k++)
		s[k] = splitmix(seed ^ splitmix(4 * i + k));
	s[3] &= 0x7fffffffffffffffull;
	msm_scalar::sub_r_if_ge(s);
	for (int k = 0; k < 4; k++)
		out[4 * i + k] = s[k];
}

// ---- host Fr arithmetic for the reference ----

struct fr4 {
	uint64_t l[4];
};
using u128 = unsigned __int128;

fr4 r_minus(uint64_t v)   // r - v for small v
{
	fr4 x{{msm_scalar::R(0) - v, msm_scalar::R(1), msm_scalar::R(2), msm_scalar::R(3)}};
	return x;
}

// a·b·2^-256 mod r (CIOS with 64-bit limbs)
fr4 fr_montmul(const fr4 &a, const fr4 &b)
{
	uint64_t t[6] = {0, 0, 0, 0, 0, 0};
	for (int i = 0; i < 4; i++) {
		u128 c = 0;
		for (int j = 0; j < 4; j++) {
			c += (u128)a.l[j] * b.l[i] + t[j];
			t[j] = (uint64_t)c;
			c >>= 64;
		}
		c += t[4];
		t[4] = (uint64_t)c;
		t[5] = (uint64_t)(c >> 64);
		uint64_t m = t[0] * msm_scalar::RINV;
		c = ((u128)m * msm_scalar::R(0) + t[0]) >> 64;
		for (int j = 1; j < 4; j++) {
			c += (u128)m * msm_scalar::R(j) + t[j];
			t[j - 1] = (uint64_t)c;
			c >>= 64;
		}
		c += t[4];
		t[3] = (uint64_t)c;
		t[4] = t[5] + (uint64_t)(c >> 64);
	}
	fr4 r{{t[0], t[1], t[2], t[3]}};
	msm_scalar::sub_r_if_ge(r.l);
	return r;
}

const fr4 R2{{0xc999e990f3f29c6dull, 0x2b6cedcb87925c23ull, 0x05d314967254398full, 0x0748d9d99f59ff11ull}};

fr4 to_mont(const fr4 &a) { return fr_montmul(a, R2); }

// The PoRep shape (docs/BENCHMARKS.md): 45% zeros, 45% ones (one: 1, or
// R mod r in Montgomery form), 10% as random_scalars left them.
__global__ void __launch_bounds__(256) witness_scalars(uint64_t *out, size_t n, uint64_t seed, fr4 one)
{
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	const unsigned u = unsigned(splitmix(seed ^ splitmix(~i)) % 100);
	if (u >= 90)
		return;
	for (int k = 0; k < 4; k++)
		out[4 * i + k] = u < 45 ? 0 : one.l[k];
}

// acc (6 limbs) += s·k
void mac(uint64_t acc[6], const fr4 &s, uint64_t k)
{
	u128 c = 0;
	for (int j = 0; j < 4; j++) {
		c += (u128)s.l[j] * k + acc[j];
		acc[j] = (uint64_t)c;
		c >>= 64;
	}
	for (int j = 4; j < 6; j++) {
		c += acc[j];
		acc[j] = (uint64_t)c;
		c >>= 64;
	}
}

// A 384-bit value mod r, bit by bit.
fr4 mod_r(const uint64_t a[6])
{
	fr4 x{{0, 0, 0, 0}};
	for (int i = 383; i >= 0; i--) {
		// x < r < 2^255, so 2x + 1 < 2^256: no bit is lost
		for (int j = 3; j > 0; j--)
			x.l[j] = (x.l[j] << 1) | (x.l[j - 1] >> 63);
		x.l[0] = (x.l[0] << 1) | ((a[i / 64] >> (i % 64)) & 1);
		msm_scalar::sub_r_if_ge(x.l);
	}
	return x;
}

fr4 pattern_scalar(int pattern, uint64_t seed, size_t i)
{
	uint64_t h = splitmix(seed ^ splitmix(0x5ca1a5 + i));
	fr4 rnd{{splitmix(h + 1), splitmix(h + 2), splitmix(h + 3), splitmix(h + 4) & 0x7fffffffffffffffull}};
	msm_scalar::sub_r_if_ge(rnd.l);
	switch (pattern) {
	case CUZK_MSM_ZERO:
		return fr4{{0, 0, 0, 0}};
	case CUZK_MSM_ONE:
		return fr4{{1, 0, 0, 0}};
	case CUZK_MSM_MINUS_ONE:
		return r_minus(1);
	case CUZK_MSM_SMALL:
		return fr4{{h & 0xfffff, 0, 0, 0}};
	case CUZK_MSM_WITNESS: {
		unsigned u = unsigned(h % 100);
		if (u < 45)
			return fr4{{0, 0, 0, 0}};
		if (u < 90)
			return fr4{{1, 0, 0, 0}};
		if (u < 95)
			return r_minus(1);
		return rnd;
	}
	default:
		return rnd;
	}
}

// Projective equality of two host Jacobian points.
template <class F> bool same_point(const jacobian_t<F> &a, const jacobian_t<F> &b)
{
	bool ia = is_zero(a.Z), ib = is_zero(b.Z);
	if (ia || ib)
		return ia && ib;
	F za2 = sqr(a.Z), zb2 = sqr(b.Z);
	return eq(mul(a.X, zb2), mul(b.X, za2)) && eq(mul(mul(a.Y, zb2), b.Z), mul(mul(b.Y, za2), a.Z));
}

// fast: the scratch with which a G1 MSM also takes the rounds (msm.cuh).
size_t scratch_bytes_of(int curve, size_t n, bool fast)
{
	if (curve == 1)
		return fast ? cuzk_msm_g1_scratch_bytes_fast(n) : cuzk_msm_g1_scratch_bytes(n);
	return fast ? cuzk_msm_g2_scratch_bytes_fast(n) : cuzk_msm_g2_scratch_bytes(n);
}

void run_msm(const void *bases, const void *scalars, size_t n, bool mont, jacobian_t<fp_t> *out, void *scratch,
	     size_t bytes, cudaStream_t s, msm::profile_t *prof, const cuzk_gpu_host_ops *ops)
{
	msm::run_g1(bases, scalars, n, mont, out, scratch, bytes, s, prof, ops);
}
void run_msm(const void *bases, const void *scalars, size_t n, bool mont, jacobian_t<fp2_t> *out, void *scratch,
	     size_t bytes, cudaStream_t s, msm::profile_t *prof, const cuzk_gpu_host_ops *ops)
{
	msm::run_g2(bases, scalars, n, mont, out, scratch, bytes, s, prof, ops);
}

template <class F> void make_bases(affine_t<F> *d_bases, const uint64_t *d_ks, size_t n, cudaStream_t s)
{
	make_points<F><<<unsigned((n + 127) / 128), 128, 0, s>>>(d_bases, d_ks, n, generator<F>());
	CUDA_LAUNCHED("msm check make_points");
}

template <class F> void check(size_t n, int pattern, bool mont, uint64_t seed, const cuzk_gpu_host_ops *ops)
{
	std::vector<uint64_t> ks(n);
	std::vector<fr4> sc(n), up(n);
	uint64_t acc[6] = {0, 0, 0, 0, 0, 0};
	for (size_t i = 0; i < n; i++) {
		ks[i] = i % 97 == 5 ? 0 : splitmix(seed + 7 * i) | 1;
		sc[i] = pattern_scalar(pattern, seed, i);
		up[i] = mont ? to_mont(sc[i]) : sc[i];
		mac(acc, sc[i], ks[i]);
		if (i % 4096 == 4095) {   // keep the accumulator below 2^384
			fr4 red = mod_r(acc);
			std::memset(acc, 0, sizeof acc);
			std::memcpy(acc, red.l, sizeof red.l);
		}
	}
	fr4 total = mod_r(acc);
	xyzz_t<F> ref = scalar_mul(generator<F>(), total.l, 4, one_of<F>());
	jacobian_t<F> want = to_jacobian(ref);

	stream_t s;
	dev_mem d_ks(8 * n), d_sc(32 * n), d_bases(sizeof(affine_t<F>) * n);
	// The least scratch, and where a larger one takes another path (the
	// rounds), that one too.
	const size_t sb = scratch_bytes_of(sizeof(F) == 48 ? 1 : 2, n, false);
	const size_t sb_fast = scratch_bytes_of(sizeof(F) == 48 ? 1 : 2, n, true);
	dev_mem d_scratch(std::max(sb, sb_fast));
	CUDA_OK(cudaMemcpyAsync(d_ks.get(), ks.data(), 8 * n, cudaMemcpyHostToDevice, s));
	CUDA_OK(cudaMemcpyAsync(d_sc.get(), up.data(), 32 * n, cudaMemcpyHostToDevice, s));
	make_bases<F>(static_cast<affine_t<F> *>(d_bases.get()), static_cast<const uint64_t *>(d_ks.get()), n, s);
	const size_t scratch_sizes[2] = {sb, sb_fast};
	const unsigned sizes = sb_fast > sb ? 2u : 1u;
	unsigned compared = 0;   // whole MSMs compared: a loop that skips them all must not pass
	for (unsigned si = 0; si < sizes; si++) {
		const size_t bytes = scratch_sizes[si];
		for (const cuzk_gpu_host_ops *o : {static_cast<const cuzk_gpu_host_ops *>(nullptr), ops}) {
			if (o == nullptr && ops != nullptr && n > (size_t(1) << 20))
				continue;   // the device's single-thread finish once is enough for large n
			jacobian_t<F> got;
			run_msm(d_bases.get(), d_sc.get(), n, mont, &got, d_scratch.get(), bytes, s, nullptr, o);
			if (!same_point(got, want))
				gpu_fail(CUZK_E_MISMATCH,
					 "G%d MSM of %zu points (pattern %d, %s, windows combined on the %s, %zu bytes "
					 "of scratch): GPU result differs from the reference",
					 sizeof(F) == 48 ? 1 : 2, n, pattern, mont ? "Montgomery" : "canonical",
					 o ? "host" : "device", bytes);
			compared++;
			if (!ops)
				break;
		}
	}
	if (compared < sizes)
		gpu_fail(CUZK_E_INTERNAL, "G%d MSM check of %zu points: %u whole MSMs compared, %u scratch sizes to check",
			 sizeof(F) == 48 ? 1 : 2, n, compared, sizes);
	// The dense estimate: exact where every scalar is a sample, else close.
	size_t dense = 0, est = 0;
	for (size_t i = 0; i < n; i++)
		dense += !((sc[i].l[1] | sc[i].l[2] | sc[i].l[3]) == 0 && sc[i].l[0] <= 1);
	{
		dev_mem d_count(8);
		cuzk_error e{};
		if (cuzk_msm_dense_estimate(d_sc.get(), n, mont, &est, d_count.get(), s, &e))
			gpu_fail(e.code, "dense estimate of %zu scalars: %s", n, e.msg);
		const size_t off = est > dense ? est - dense : dense - est;
		if (n <= CUZK_MSM_DENSE_SAMPLES ? off != 0 : off > n / 32)
			gpu_fail(CUZK_E_MISMATCH, "dense estimate of %zu scalars (pattern %d, %s): %zu, but %zu are dense",
				 n, pattern, mont ? "Montgomery" : "canonical", est, dense);
	}
	// The same sum as a batched MSM (a streamed SRS's): three batches, the
	// last one shorter, and where n is small, batches of one point.  Two
	// such MSMs take turns on one stream and one scratch, each with its own
	// running sums (prove.cu interleaves a streamed SRS's queries so): both
	// must come out as the reference, so neither's batches touched the
	// other's sums.  The first is planned as all dense, the second from the
	// estimate (from 2^21 points on, a sparse one takes narrower windows).
	const int curve = sizeof(F) == 48 ? 1 : 2;
	for (size_t B : {n / 3 + 1, n <= 64 ? size_t(1) : size_t(0)}) {
		if (!B || B > n)
			continue;
		size_t bb = curve == 1 ? cuzk_msm_g1_batch_scratch_bytes(B, n) : cuzk_msm_g2_batch_scratch_bytes(B, n);
		const size_t rb = curve == 1 ? cuzk_msm_g1_batch_running_bytes(n) : cuzk_msm_g2_batch_running_bytes(n);
		dev_mem d_bscratch(bb), d_run0(rb), d_run1(rb);
		void *run[2] = {d_run0.get(), d_run1.get()};
		jacobian_t<F> got[2]{};
		const cuzk_msm_batch_shape shape[2] = {{n, B, n}, {n, B, est}};
		for (size_t at = 0; at < n; at += B) {
			const size_t cnt = std::min(B, n - at);
			const int flags = (at == 0 ? CUZK_MSM_FIRST : 0) | (at + cnt == n ? CUZK_MSM_LAST : 0);
			const char *bases = static_cast<const char *>(d_bases.get()) + at * sizeof(affine_t<F>);
			const char *scal = static_cast<const char *>(d_sc.get()) + at * 32;
			for (int j = 0; j < 2; j++) {
				cuzk_error e{};
				int rc = curve == 1 ? cuzk_msm_g1_batch(bases, scal, cnt, &shape[j], flags, mont, &got[j],
									 ops, run[j], d_bscratch.get(), bb, s, &e)
						    : cuzk_msm_g2_batch(bases, scal, cnt, &shape[j], flags, mont, &got[j],
									 ops, run[j], d_bscratch.get(), bb, s, &e);
				if (rc)
					gpu_fail(e.code, "G%d batched MSM %d, points %zu..%zu of %zu: %s", curve, j, at,
						 at + cnt, n, e.msg);
			}
		}
		for (int j = 0; j < 2; j++)
			if (!same_point(got[j], want))
				gpu_fail(CUZK_E_MISMATCH,
					 "G%d MSM of %zu points in batches of %zu (pattern %d, %s; the %s of two taking "
					 "turns): GPU result differs from the reference",
					 curve, n, B, pattern, mont ? "Montgomery" : "canonical", j ? "second" : "first");
	}
}

template <class F>
void bench(unsigned log_size, unsigned reps, bool mont, bool witness, const cuzk_gpu_host_ops *ops,
	   cuzk_msm_bench_result *out)
{
	const size_t n = size_t(1) << log_size, distinct = std::min(n, size_t(1) << 22);
	std::vector<uint64_t> ks(distinct);
	for (size_t i = 0; i < distinct; i++)
		ks[i] = splitmix(0xbe9c4 + i) | 1;
	stream_t s;
	dev_mem d_ks(8 * distinct), d_sc(32 * n), d_bases(sizeof(affine_t<F>) * n);
	const size_t sb = scratch_bytes_of(sizeof(F) == 48 ? 1 : 2, n, true);   // the fastest path
	dev_mem d_scratch(sb);
	CUDA_OK(cudaMemcpyAsync(d_ks.get(), ks.data(), 8 * distinct, cudaMemcpyHostToDevice, s));
	affine_t<F> *bases = static_cast<affine_t<F> *>(d_bases.get());
	make_bases<F>(bases, static_cast<const uint64_t *>(d_ks.get()), distinct, s);
	for (size_t at = distinct; at < n; at += distinct)
		CUDA_OK(cudaMemcpyAsync(bases + at, bases, sizeof(affine_t<F>) * distinct, cudaMemcpyDeviceToDevice, s));
	random_scalars<<<unsigned((n + 255) / 256), 256, 0, s>>>(static_cast<uint64_t *>(d_sc.get()), n, 0x5eed);
	CUDA_LAUNCHED("msm bench random_scalars");
	if (witness) {
		const fr4 one{{1, 0, 0, 0}};
		witness_scalars<<<unsigned((n + 255) / 256), 256, 0, s>>>(static_cast<uint64_t *>(d_sc.get()), n,
									 0x5eed, mont ? to_mont(one) : one);
		CUDA_LAUNCHED("msm bench witness_scalars");
	}
	CUDA_OK(cudaStreamSynchronize(s));

	jacobian_t<F> res;
	msm::profile_t prof;
	// a warm-up call (module loading), then one with the phase clock
	run_msm(bases, d_sc.get(), n, mont, &res, d_scratch.get(), sb, s, nullptr, ops);
	run_msm(bases, d_sc.get(), n, mont, &res, d_scratch.get(), sb, s, &prof, ops);
	std::vector<double> ms;
	for (unsigned r = 0; r < reps; r++) {
		auto t0 = std::chrono::steady_clock::now();
		run_msm(bases, d_sc.get(), n, mont, &res, d_scratch.get(), sb, s, nullptr, ops);
		ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
	}
	std::sort(ms.begin(), ms.end());
	out->best_ms = ms.empty() ? 0 : ms.front();
	out->median_ms = ms.empty() ? 0 : ms[ms.size() / 2];
	for (int p = 0; p < msm::PH_COUNT; p++)
		out->phase_ms[p] = prof.ms[p];
	out->window_bits = prof.c;
	out->windows = prof.windows;
	out->group = prof.group;
	out->rounds = prof.rounds;
	out->scratch_bytes = sb;
}

} // namespace
} // namespace cuzk

extern "C" int cuzk_msm_check(int curve, size_t n, int pattern, int montgomery, uint64_t seed,
			      const cuzk_gpu_host_ops *ops, cuzk_error *err)
{
	return cuzk::gpu_entry(err, [&] {
		if (curve == 1)
			cuzk::check<cuzk::fp_t>(n, pattern, montgomery != 0, seed, ops);
		else if (curve == 2)
			cuzk::check<cuzk::fp2_t>(n, pattern, montgomery != 0, seed, ops);
		else
			cuzk::gpu_fail(CUZK_E_INVAL, "msm check: curve %d is neither 1 (G1) nor 2 (G2)", curve);
	});
}

extern "C" int cuzk_msm_bench(int curve, unsigned log_size, unsigned reps, int montgomery, int pattern,
			      const cuzk_gpu_host_ops *ops, cuzk_msm_bench_result *out, cuzk_error *err)
{
	return cuzk::gpu_entry(err, [&] {
		if (log_size > 28)
			cuzk::gpu_fail(CUZK_E_INVAL, "msm bench: log size %u is above 28", log_size);
		if (pattern != CUZK_MSM_RANDOM && pattern != CUZK_MSM_WITNESS)
			cuzk::gpu_fail(CUZK_E_INVAL, "msm bench: pattern %d is neither random nor witness", pattern);
		*out = cuzk_msm_bench_result{};
		const bool witness = pattern == CUZK_MSM_WITNESS;
		if (curve == 1)
			cuzk::bench<cuzk::fp_t>(log_size, reps, montgomery != 0, witness, ops, out);
		else if (curve == 2)
			cuzk::bench<cuzk::fp2_t>(log_size, reps, montgomery != 0, witness, ops, out);
		else
			cuzk::gpu_fail(CUZK_E_INVAL, "msm bench: curve %d is neither 1 (G1) nor 2 (G2)", curve);
	});
}
