// SPDX-License-Identifier: Apache-2.0 OR MIT
// Multi-scalar multiplication Σ s_i·P_i for affine bases resident on the
// device, generic over the curve (G1 over Fp, G2 over Fp2).
//
// Plan (one stream, scratch memory from the caller, no allocation and no
// device-wide synchronisation):
//  1. Split by scalar: zeros are dropped, ones are summed by a plain reduction,
//     the rest ("dense", m of them) go to Pippenger.  Real witnesses are mostly
//     0/1, so this is where most of their cost disappears.
//  2. Pippenger with signed c-bit digits, c chosen from m.  Scalars above
//     (r-1)/2 are replaced by r - s with the point negated, so 254 bits and
//     ceil(255/c) windows suffice.  Windows are done in groups of G (bounded
//     memory): each group's (bucket, point) pairs are made and radix sorted.
//  3. Accumulation over the sorted pairs in equal chunks per thread (a thread
//     flushes a bucket whenever the key changes), so every thread does the
//     same number of mixed additions whatever the bucket sizes; buckets cut by
//     a chunk border are finished by a short fix-up pass.  This is the load
//     balance that "largest buckets first" buys, without sorting buckets by size.
//  4. Every window's buckets are kept, so after the last group one wide launch
//     forms Σ d·B_d per window by segmented running sums; windows are combined
//     by doublings (Horner) in one thread; the result goes out as Jacobian.
#ifndef CUZK_CUDA_MSM_PIPPENGER_CUH
#define CUZK_CUDA_MSM_PIPPENGER_CUH

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "ec/xyzz.cuh"
#include "ff/fp2.cuh"
#include "msm/affine_acc.cuh"
#include "msm/fp_impl.cuh"
#include "msm/scalar.cuh"
#include "util/check.cuh"

namespace cuzk {
namespace msm {

// ---- tunables ----------------------------------------------------------------

// Windows between C_MIN and C_MAX bits.  C_MAX bounds bucket memory
// (2^(c-1) buckets per window); above 20 the cost model gains < 2% at 2^26.
constexpr unsigned C_MIN = 4, C_MAX = 20;
// (bucket, point) pairs sorted at once; windows are grouped to stay below it.
// 2^28 pairs = 4 GiB of sort buffers (keys and values, double buffered).
constexpr size_t PAIRS_CAP = size_t(1) << 28;
// Upper bound on accumulation threads (chunks; sized at run time to one
// resident wave): more than any current GPU keeps resident for this kernel.
constexpr size_t CHUNKS_CAP = size_t(1) << 17;
// Each level of the window reduction (window_levels) has at most 1/128 of
// the items of the one before: a handful of levels at most.
constexpr unsigned MAX_LEVELS = 8;
// Threads per block; the tree reductions keep one point per thread in shared memory.
constexpr unsigned BLOCK = 128, RBLOCK = 64, RPER = 8;
constexpr unsigned MAX_WINDOWS = (255 + C_MIN - 1) / C_MIN;
static_assert(C_MAX <= 24 && C_MIN >= 2, "digits and keys are packed in 32 bits");

// ---- plan --------------------------------------------------------------------

inline unsigned bitlen(size_t m)
{
	unsigned k = 0;
	while (m) {
		k++;
		m >>= 1;
	}
	return k;
}

struct plan_t {
	unsigned c = 0, windows = 0, group = 0;   // window bits, windows, windows per sort
	size_t buckets = 0;                        // 2^(c-1) per window
};

// The window reduction computes V = Σ_j (j+1)·x_j over each window's items
// x_j (first the buckets: bucket j holds digit j+1) in levels.  A level cuts
// a window's count items into chunks of seg; each chunk's block forms
// A_c = Σ (j - lo + 1)·x_j and R_c = Σ x_j (window_chunk).  With lo = c·seg,
// V = Σ_c A_c + seg·Σ_c c·R_c, and Σ_c c·R_c is the same problem on R_1,
// R_2, ... (R_c at position c - 1): the next level.  The last level has one
// chunk.  So V = ΣA_0 + seg_0·(ΣA_1 + seg_1·(ΣA_2 + ...)).
// A chunk is CHUNK_THREADS<F> threads of k items each: k sequential running
// sums per thread, then a scan and a tree across the block, so a level's
// depth is ~2k + 3·log2(threads) additions instead of 2·seg.
template <class F> struct chunk_threads {
	static constexpr unsigned value = 256;   // 256 XYZZ points of G1: 48 KiB of shared memory
};
template <> struct chunk_threads<fp2_t> {
	static constexpr unsigned value = 128;
};
constexpr unsigned CHUNK_K_LARGE = 16, CHUNK_K_SMALL = 4;
constexpr size_t CHUNK_LARGE_ITEMS = size_t(1) << 16;   // per window, where k = 16 pays

struct window_levels {
	unsigned count = 0;                 // levels
	unsigned seg[MAX_LEVELS] = {};      // items per chunk: threads·k, a power of two
	unsigned k[MAX_LEVELS] = {};        // items per thread
	unsigned thr[MAX_LEVELS] = {};      // threads per chunk (a power of two)
	uint32_t items[MAX_LEVELS] = {};    // items per window
	uint32_t nseg[MAX_LEVELS] = {};     // chunks per window
	size_t total_segs = 0;              // Σ rows·nseg over the levels

	window_levels(unsigned rows, size_t buckets, unsigned threads)
	{
		size_t n = buckets;
		while (n && count < MAX_LEVELS) {
			unsigned kk = n >= CHUNK_LARGE_ITEMS ? CHUNK_K_LARGE : CHUNK_K_SMALL, tt = threads;
			if (n <= size_t(threads) * kk) {
				// one chunk, latency-bound: the shape of least depth,
				// 2k additions a thread, log2 T for the scan and the
				// tree each, log2 k doublings (3 items: 2 threads of 2,
				// 7 additions deep instead of 256 threads' 26)
				unsigned best = ~0u;
				for (unsigned t2 = 1; t2 <= threads; t2 <<= 1) {
					unsigned k2 = 1;
					while (size_t(t2) * k2 < n)
						k2 <<= 1;
					const unsigned depth = 2 * k2 + 2 * (bitlen(t2) - 1) + (bitlen(k2) - 1);
					if (depth < best) {
						best = depth;
						tt = t2;
						kk = k2;
					}
				}
			}
			k[count] = kk;
			thr[count] = tt;
			seg[count] = tt * kk;
			items[count] = uint32_t(n);
			nseg[count] = uint32_t((n + seg[count] - 1) / seg[count]);
			total_segs += size_t(rows) * nseg[count];
			n = nseg[count] - 1;
			count++;
		}
		(void)rows;
	}
};

// Everything depends only on bitlen(m), so the worst case over m <= n is a
// maximum over at most 29 plans.  The cost model counts mixed additions in the
// buckets (m per window) against bucket reduction (two full additions, ~1.5
// mixed each, per bucket per window).
inline plan_t make_plan(unsigned k, unsigned c_max = C_MAX, unsigned k_pairs = 0)
{
	if (!k_pairs)
		k_pairs = k;
	double m = k ? 0.75 * double(size_t(1) << k) : 0;
	plan_t p;
	double best = 0;
	for (unsigned c = C_MIN; c <= c_max; c++) {
		unsigned w = (255 + c - 1) / c;
		double cost = w * (m + 3.0 * double(size_t(1) << (c - 1)));
		if (!p.c || cost < best) {
			best = cost;
			p.c = c;
		}
	}
	p.windows = (255 + p.c - 1) / p.c;
	p.buckets = size_t(1) << (p.c - 1);
	size_t g = k_pairs >= 28 ? 1 : PAIRS_CAP >> k_pairs;   // m < 2^k_pairs, so m·g <= PAIRS_CAP
	p.group = unsigned(g < 1 ? 1 : g > p.windows ? p.windows : g);
	return p;
}

// An MSM whose points come in batches (a streamed SRS: the points do not
// fit the device at once) keeps its buckets from batch to batch and reduces
// the windows once, after the last: one plan for the whole MSM, c from its
// total size but at most C_BATCHED_MAX (two bucket arrays, the running one
// and the batch's, of 15 windows x 2^16 XYZZ points: 189 MiB each for G1,
// 377 for G2; c = 18 has the same 15 windows, 19 would take 1.4 GiB each
// for G2), and the sort group from the batch's size.
constexpr unsigned C_BATCHED_MAX = 17;
inline plan_t make_batched_plan(size_t n_total, size_t n_batch)
{
	return make_plan(bitlen(n_total), C_BATCHED_MAX, bitlen(n_batch));
}

// Selects scalars of one kind (cub::DeviceSelect::If predicate over indices).
struct scalar_is {
	const uint64_t *scalars;
	bool mont;
	msm_scalar::kind want;
	__device__ bool operator()(uint32_t i) const
	{
		uint64_t s[4];
		return msm_scalar::load(s, scalars, i, mont) == want;
	}
};

// $CUZK_MSM_ACC=affine: G1's buckets accumulated by batch-affine rounds
// (msm/affine_acc.cuh, accumulate_affine: slower, kept to measure and
// improve) where the chunks are long enough, with their lists in the
// scratch; unset or xyzz: XYZZ additions only.  G2 is always XYZZ.
// strict: an unknown value is an error (the driver), else XYZZ (the sizes).
template <class F> bool affine_from_env(bool strict)
{
	if constexpr (!std::is_same<F, fp_t>::value) {
		return false;
	} else {
		const char *e = getenv("CUZK_MSM_ACC");
		if (!e || !*e || !strcmp(e, "xyzz"))
			return false;
		if (!strcmp(e, "affine"))
			return true;
		if (strict)
			gpu_fail(CUZK_E_INVAL, "CUZK_MSM_ACC=%s: expected xyzz or affine", e);
		return false;
	}
}

// $CUZK_MSM_AFFINE_MIN: the fewest pairs a batch-affine round takes (default
// 128: below it the inversion costs more than the XYZZ additions it saves).
inline size_t affine_min_batch()
{
	const char *e = getenv("CUZK_MSM_AFFINE_MIN");
	if (!e || !*e)
		return 128;
	char *end = nullptr;
	unsigned long v = strtoul(e, &end, 10);
	if (*end || v == 0 || v > (1ul << 20))
		gpu_fail(CUZK_E_INVAL, "CUZK_MSM_AFFINE_MIN=%s: expected 1..1048576", e);
	return size_t(v);
}

// n_total: 0 for a whole MSM of n points, else the total of a batched MSM
// whose batches have at most n points (run_buckets and run_ones then hold
// its running sums between batches).
template <class F> struct scratch_layout {
	size_t ones_idx, dense_idx, counts, cub_tmp, cub_bytes, keys[2], vals[2], buckets, heads[2], tails, ends, max_run,
		partials, red[2], lvl_a, lvl_r, lvl_sums, wsums, ones_sum, result, run_buckets, run_ones, total;
	size_t pairs, nbuckets, nparts, nred, nlvl;
	size_t aff_entries, aff_pts, aff_keys;   // the batch-affine lists (none without them)

	explicit scratch_layout(size_t n, size_t n_total = 0)
	{
		pairs = nbuckets = nparts = nred = nlvl = 0;
		size_t sel_bytes = 0, sort_bytes = 0;
		// Every plan a call may make: a whole MSM's follows its dense count
		// m <= n (k = bitlen(m)); a batched one's windows follow its total
		// (any up to n_total) and its sort group the batch's own size
		// (kp = bitlen of any batch up to n points, m below 2^kp; a batch
		// is no larger than its total, so kp <= k).
		auto below = [n](unsigned k) { return k >= 64 || (size_t(1) << k) - 1 >= n ? n : (size_t(1) << k) - 1; };
		const unsigned kmax = bitlen(n_total ? n_total : n), kpmax = n_total ? bitlen(n) : 1;
		for (unsigned k = 1; k <= kmax; k++)
			for (unsigned kp = 1; kp <= std::min(kpmax, n_total ? k : 1u); kp++) {
				plan_t p = n_total ? make_plan(k, C_BATCHED_MAX, kp) : make_plan(k);
				size_t m = below(n_total ? kp : k);
				size_t e = m * p.group;
				size_t nb = p.windows * p.buckets;
				window_levels wl(p.windows, p.buckets, chunk_threads<F>::value);
				pairs = e > pairs ? e : pairs;
				nbuckets = nb > nbuckets ? nb : nbuckets;
				nlvl = wl.total_segs > nlvl ? wl.total_segs : nlvl;
				nparts = wl.total_segs > nparts ? wl.total_segs : nparts;
			}
		if (nparts < CHUNKS_CAP)
			nparts = CHUNKS_CAP;   // partials also hold the ones' per-thread sums
		nred = (nparts + RBLOCK * RPER - 1) / (RBLOCK * RPER) + MAX_WINDOWS;
		if (n) {
			cub::DoubleBuffer<uint32_t> kb(nullptr, nullptr), vb(nullptr, nullptr);
			cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, kb, vb, (int)(pairs ? pairs : 1), 0, 32);
			thrust::counting_iterator<uint32_t> it(0);
			cub::DeviceSelect::If(nullptr, sel_bytes, it, (uint32_t *)nullptr, (uint32_t *)nullptr,
					      (int)n, scalar_is{nullptr, false, msm_scalar::kind::one});
		}
		cub_bytes = sort_bytes > sel_bytes ? sort_bytes : sel_bytes;
		const size_t P = sizeof(xyzz_t<F>);
		size_t off = 0;
		auto take = [&](size_t bytes) {
			size_t at = off;
			off += (bytes + 255) & ~size_t(255);
			return at;
		};
		// A batched MSM's running sums come first: their place depends on
		// n_total only, so every batch (the last may be shorter) finds them.
		run_buckets = run_ones = 0;
		if (n_total) {
			size_t run_nb = 0;
			for (unsigned k = 1; k <= bitlen(n_total); k++) {
				plan_t p = make_plan(k, C_BATCHED_MAX);
				run_nb = std::max(run_nb, size_t(p.windows) * p.buckets);
			}
			run_ones = take(P);
			run_buckets = take(P * run_nb);
		}
		ones_idx = take(4 * n);
		dense_idx = take(4 * n);
		counts = take(2 * sizeof(int));
		cub_tmp = take(cub_bytes);
		keys[0] = take(4 * pairs);
		keys[1] = take(4 * pairs);
		vals[0] = take(4 * pairs);
		vals[1] = take(4 * pairs);
		buckets = take(P * nbuckets);
		heads[0] = take(P * CHUNKS_CAP);
		heads[1] = take(P * CHUNKS_CAP);
		tails = take(P * CHUNKS_CAP);
		ends = take(sizeof(uint32_t) * CHUNKS_CAP);
		max_run = take(sizeof(uint32_t));
		partials = take(P * nparts);
		red[0] = take(P * nred);
		red[1] = take(P * nred);
		lvl_a = take(P * nlvl);
		lvl_r = take(P * nlvl);
		lvl_sums = take(P * MAX_LEVELS * MAX_WINDOWS);
		wsums = take(P * (MAX_WINDOWS + 1));   // the ones' sum right after the windows'
		ones_sum = wsums + P * MAX_WINDOWS;
		result = take(sizeof(jacobian_t<F>) * (MAX_WINDOWS + 1));
		aff_entries = affine_from_env<F>(false) ? affine::list_entries(pairs, CHUNKS_CAP) : 0;
		aff_pts = take(sizeof(affine_t<F>) * aff_entries);
		aff_keys = take(sizeof(uint32_t) * aff_entries);
		total = off;
	}
};

// ---- device helpers ----------------------------------------------------------

template <class F> __device__ __forceinline__ F field_one();
template <> __device__ __forceinline__ fp_t field_one<fp_t>() { return fp_one(); }
template <> __device__ __forceinline__ fp2_t field_one<fp2_t>() { return fp2_one(); }

// Affine point idx from the resident array, in 16-byte read-only loads
// (96 and 192 bytes are multiples of 16; the base pointer is checked aligned).
template <class F> __device__ __forceinline__ affine_t<F> load_affine(const uint4 *bases, uint32_t idx)
{
	constexpr unsigned Q = sizeof(affine_t<F>) / 16;
	affine_t<F> r;
	uint32_t *w = reinterpret_cast<uint32_t *>(&r);
	const uint4 *src = bases + size_t(idx) * Q;
#pragma unroll
	for (unsigned k = 0; k < Q; k++) {
		uint4 t = __ldg(src + k);
		w[4 * k] = t.x;
		w[4 * k + 1] = t.y;
		w[4 * k + 2] = t.z;
		w[4 * k + 3] = t.w;
	}
	return r;
}


// The arithmetic type of the reduction kernels: the field in the lazy form
// (msm/fp_impl.cuh: out-of-line products, inlined a dozen products per
// addition overflow the instruction cache; the parity layout; for G2 the
// Fp2 product with two reductions).
template <class F> struct reduce_arith {
	using type = fx_t<F, fp_form::lazy>;
};
template <class A, class F> __device__ __forceinline__ xyzz_t<A> *as_arith(xyzz_t<F> *p)
{
	static_assert(sizeof(A) == sizeof(F), "the arithmetic type must keep the field's layout");
	return reinterpret_cast<xyzz_t<A> *>(p);
}
template <class A, class F> __device__ __forceinline__ const xyzz_t<A> *as_arith(const xyzz_t<F> *p)
{
	return reinterpret_cast<const xyzz_t<A> *>(p);
}

// ---- kernels -----------------------------------------------------------------

// acc[i] += part[i]: a batch's buckets (or ones' sum) into the running ones
// of a batched MSM.  Most of a batch's buckets are hit (2^16 per window
// against millions of pairs), so this costs ~1% of the batch's additions.
template <class F>
__global__ void __launch_bounds__(BLOCK) merge_into(xyzz_t<F> *acc_f, const xyzz_t<F> *part_f, size_t count)
{
	using A = typename reduce_arith<F>::type;
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i >= count)
		return;
	const xyzz_t<A> p = as_arith<A>(part_f)[i];
	if (is_inf(p))
		return;
	xyzz_t<A> a = as_arith<A>(acc_f)[i];
	add(a, p);
	as_arith<A>(acc_f)[i] = a;
}

// Each thread sums a contiguous run of the listed points (the ones).
template <class F>
__global__ void __launch_bounds__(BLOCK) sum_listed(const uint4 *bases, const uint32_t *idx, size_t count,
						    size_t per, xyzz_t<F> *out, size_t nout)
{
	size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t >= nout)
		return;
	const F one = field_one<F>();
	xyzz_t<F> acc;
	set_inf(acc);
	size_t lo = t * per, hi = lo + per < count ? lo + per : count;
	for (size_t e = lo; e < hi; e++)
		add_affine(acc, load_affine<F>(bases, idx[e]), false, one);
	out[t] = acc;
}

// Signed digits of dense scalar k for windows [w0, w0 + g) as (key, value)
// pairs at entry (w - w0)·m + k.  key = (w - w0)·2^(c-1) + |d| - 1, or the
// sentinel g·2^(c-1) (sorted last, skipped) for a zero digit; value = point
// index·2 + sign.
static __global__ void __launch_bounds__(BLOCK) make_pairs(const uint64_t *scalars, bool mont, const uint32_t *dense,
						    size_t m, unsigned c, unsigned w0, unsigned g,
						    uint32_t *keys, uint32_t *vals)
{
	size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (k >= m)
		return;
	uint32_t i = dense[k];
	uint64_t s[4];
	msm_scalar::load(s, scalars, i, mont);
	uint32_t neg = msm_scalar::fold(s) ? 1 : 0;
	const uint32_t half = 1u << (c - 1), sentinel = g << (c - 1);
	uint32_t carry = 0;
	for (unsigned w = 0; w < w0 + g; w++) {
		uint32_t v = msm_scalar::bits(s, w * c, c) + carry;
		uint32_t mag, sign;
		if (v > half) {
			mag = (1u << c) - v;   // digit v - 2^c < 0
			sign = 1;
			carry = 1;
		} else {
			mag = v;
			sign = 0;
			carry = 0;
		}
		if (w >= w0) {
			size_t e = size_t(w - w0) * m + k;
			keys[e] = mag ? ((w - w0) << (c - 1)) + mag - 1 : sentinel;
			vals[e] = (i << 1) | (sign ^ neg);
		}
	}
}

// Blocks per SM the accumulation is compiled for.  G1, measured on the H200
// at 2^26: 3 blocks (157 registers) 1096 ms of accumulation, 4 blocks (128
// registers, 24 bytes of spills) 941 ms; unbounded, ptxas takes 237
// registers (2 blocks).  G2 needs ~220 registers: 1 (two blocks fit).
template <class F> struct acc_blocks {
	static constexpr int value = 4;
};
template <> struct acc_blocks<fp2_t> {
	static constexpr int value = 1;
};
template <class F, fp_form M> struct acc_blocks<fx_t<F, M>> {
	static constexpr int value = acc_blocks<F>::value;
};

// Chunk t of the sorted pairs: entries [t·per, (t+1)·per).  Complete buckets go
// straight to their slot; a bucket continued from the chunk before goes to
// heads[t]; a bucket that starts here and runs on goes to tails[t].
// A is the field type the additions are computed in: F itself, or for G1 one
// of the compiled forms of Fp (msm/fp_impl.cuh), same bytes as F.
template <class F, class A>
__global__ void __launch_bounds__(BLOCK, acc_blocks<A>::value) accumulate(const uint4 *bases, const uint32_t *keys, const uint32_t *vals,
						    size_t npairs, size_t per, size_t nchunks, uint32_t nbuckets,
						    xyzz_t<F> *buckets_f, xyzz_t<F> *heads_f, xyzz_t<F> *tails_f)
{
	static_assert(sizeof(A) == sizeof(F), "the arithmetic type must keep the field's layout");
	size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t >= nchunks)
		return;
	size_t lo = t * per, hi = lo + per < npairs ? lo + per : npairs;
	if (lo >= hi)
		return;
	xyzz_t<A> *buckets = reinterpret_cast<xyzz_t<A> *>(buckets_f);
	xyzz_t<A> *heads = reinterpret_cast<xyzz_t<A> *>(heads_f);
	xyzz_t<A> *tails = reinterpret_cast<xyzz_t<A> *>(tails_f);
	const F one_f = field_one<F>();
	A one;
	memcpy(&one, &one_f, sizeof one);
	const uint32_t first = keys[lo];
	const bool continued = lo > 0 && keys[lo - 1] == first;
	uint32_t cur = first;
	xyzz_t<A> acc;
	set_inf(acc);
	for (size_t e = lo; e < hi; e++) {
		uint32_t key = keys[e];
		if (key >= nbuckets)
			break;   // sentinels (zero digits) are sorted to the end
		if (key != cur) {
			if (cur == first && continued)
				heads[t] = acc;
			else
				buckets[cur] = acc;
			cur = key;
			set_inf(acc);
		}
		uint32_t v = vals[e];
		add_affine(acc, load_affine<A>(bases, v >> 1), v & 1, one);
	}
	if (cur >= nbuckets)
		return;   // the whole chunk was sentinels
	bool runs_on = hi < npairs && keys[hi] == cur;
	if (cur == first && continued)
		heads[t] = acc;
	else if (runs_on)
		tails[t] = acc;
	else
		buckets[cur] = acc;
}

template <class F>
using accumulate_fn = void (*)(const uint4 *, const uint32_t *, const uint32_t *, size_t, size_t, size_t, uint32_t,
			       xyzz_t<F> *, xyzz_t<F> *, xyzz_t<F> *);

// The same chunks summed by batch-affine rounds first (msm/affine_acc.cuh),
// then the list those leave summed and written out as above.  G1 only, and
// slower than the XYZZ kernel on the H200 (2026-12-02: 126 against 91 ms
// of accumulation at 2^24, 483 against 360 at 2^26; Nsight Compute: 12.5%
// occupancy, 1.65 TB/s, most stalls waiting on its list loads), so only
// where asked for ($CUZK_MSM_ACC=affine).  Two blocks per SM: at three or
// four it spills (1-1.8 KB) and was slower still (147, 180 ms at 2^24).
constexpr int AFFINE_BLOCKS = 2;
template <class F, class A>
__global__ void __launch_bounds__(BLOCK, AFFINE_BLOCKS)
	accumulate_affine(const uint4 *bases, const uint32_t *keys, const uint32_t *vals, size_t npairs, size_t per,
			  size_t nchunks, uint32_t nbuckets, xyzz_t<F> *buckets_f, xyzz_t<F> *heads_f,
			  xyzz_t<F> *tails_f, affine::lists_t lists, size_t min_batch)
{
	static_assert(sizeof(A) == sizeof(F), "the arithmetic type must keep the field's layout");
	size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t >= nchunks)
		return;
	size_t lo = t * per, hi = lo + per < npairs ? lo + per : npairs;
	if (lo >= hi || keys[lo] >= nbuckets)
		return;   // nothing, or only sentinels (zero digits, sorted last)
	size_t a = lo + 1, b = hi;   // the first sentinel in [lo, hi), or hi
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (keys[mid] < nbuckets)
			a = mid + 1;
		else
			b = mid;
	}
	size_t n = a - lo;
	const F one_f = field_one<F>();
	A one;
	memcpy(&one, &one_f, sizeof one);
	lists.t = t;
	affine::chunk_lists<A> c{{reinterpret_cast<const affine::word16_t *>(bases), keys, vals, lo}, lists};
	bool ascending = true;
	const int list = affine::rounds(c, n, min_batch, one, ascending);
	xyzz_t<A> *buckets = reinterpret_cast<xyzz_t<A> *>(buckets_f);
	xyzz_t<A> *heads = reinterpret_cast<xyzz_t<A> *>(heads_f);
	xyzz_t<A> *tails = reinterpret_cast<xyzz_t<A> *>(tails_f);
	const uint32_t first = keys[lo];
	const bool continued = lo > 0 && keys[lo - 1] == first;
	uint32_t cur = first;
	xyzz_t<A> acc;
	set_inf(acc);
	for (size_t i = 0; i < n; i++) {   // in ascending key order
		const size_t e = ascending ? i : n - 1 - i;
		const uint32_t key = c.key(list, e) & ~affine::SINGLE_KEY;
		if (key != cur) {
			if (cur == first && continued)
				heads[t] = acc;
			else
				buckets[cur] = acc;
			cur = key;
			set_inf(acc);
		}
		add_affine(acc, c.point(list, e), false, one);
	}
	if (cur == first && continued)
		heads[t] = acc;
	else if (hi < npairs && keys[hi] == cur)
		tails[t] = acc;
	else
		buckets[cur] = acc;
}

using accumulate_affine_fn = void (*)(const uint4 *, const uint32_t *, const uint32_t *, size_t, size_t, size_t,
				      uint32_t, xyzz_t<fp_t> *, xyzz_t<fp_t> *, xyzz_t<fp_t> *, affine::lists_t, size_t);
// Compiled in msm_g1_affine.cu, in the fused form of the field products.
accumulate_affine_fn accumulate_affine_g1();

// The accumulation of each curve in each form of its field (msm/fp_impl.cuh),
// one translation unit each (msm_g*_fp_*.cu) so that they compile side by side.
template <class F, fp_form M> accumulate_fn<F> accumulate_in();
template <> accumulate_fn<fp_t> accumulate_in<fp_t, fp_form::fused>();
template <> accumulate_fn<fp_t> accumulate_in<fp_t, fp_form::lazy>();
template <> accumulate_fn<fp2_t> accumulate_in<fp2_t, fp_form::fused>();
template <> accumulate_fn<fp2_t> accumulate_in<fp2_t, fp_form::lazy>();
#define CUZK_MSM_ACCUMULATE_IN(F, form)                                                               \
	template <> cuzk::msm::accumulate_fn<cuzk::F> cuzk::msm::accumulate_in<cuzk::F, cuzk::fp_form::form>() \
	{                                                                                             \
		return &accumulate<F, fx_t<F, fp_form::form>>;                                        \
	}

// The form each curve's accumulation runs in unless $CUZK_MSM_FP names one.
// Measured on one H200 (2026-12-02, tests/gpu/bench.sh, the same call as
// sppark's 2^26 561.2 ms): G1 fused 110.6 / 405.1 ms at 2^24 / 2^26 against
// lazy 115.8 / 426.8 (the accumulation 381.8 -> 359.9 ms at 2^26); G2 fused
// 344.9 ms at 2^24 against lazy 331.3 (its kernel, at 255 registers, spills
// more: a 728-byte stack frame against 672).
template <class F> constexpr fp_form default_form = fp_form::fused;
template <> constexpr fp_form default_form<fp2_t> = fp_form::lazy;

// $CUZK_MSM_FP: lazy or fused, for G1 and G2 alike; unset, each curve's default.
template <class F> fp_form form_from_env()
{
	const char *e = getenv("CUZK_MSM_FP");
	if (!e || !*e)
		return default_form<F>;
	if (!strcmp(e, "lazy"))
		return fp_form::lazy;
	if (!strcmp(e, "fused"))
		return fp_form::fused;
	gpu_fail(CUZK_E_INVAL, "CUZK_MSM_FP=%s: expected lazy or fused", e);
}

template <class F> accumulate_fn<F> pick_accumulate()
{
	if (form_from_env<F>() == fp_form::fused)
		return accumulate_in<F, fp_form::fused>();
	return accumulate_in<F, fp_form::lazy>();
}

__device__ __forceinline__ bool chunk_continues(const uint32_t *keys, size_t npairs, size_t per, uint32_t nbuckets,
						size_t j)
{
	const size_t lo = j * per;
	return j > 0 && lo < npairs && keys[lo] < nbuckets && keys[lo - 1] == keys[lo];
}

// A bucket may span many chunks (equal or structured scalars put most pairs
// of a window in one bucket), so its heads are summed by a segmented
// inclusive scan over the chunks (Hillis-Steele, log2 steps), not by one
// thread in sequence.  Step d: out[j] = in[j] + in[j - d] when chunk j - d
// continues the same bucket; only continuing chunks take part.
template <class F>
__global__ void __launch_bounds__(BLOCK) heads_scan(const uint32_t *keys, size_t npairs, size_t per, size_t nchunks,
						    uint32_t nbuckets, const xyzz_t<F> *in_f, xyzz_t<F> *out_f,
						    size_t d, const uint32_t *max_run)
{
	if (d >= *max_run)
		return;   // no bucket spans more than d chunks: the scan is complete (out == in)
	using A = typename reduce_arith<F>::type;
	const xyzz_t<A> *in = as_arith<A>(in_f);
	xyzz_t<A> *out = as_arith<A>(out_f);
	size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (j >= nchunks || !chunk_continues(keys, npairs, per, nbuckets, j))
		return;
	xyzz_t<A> v = in[j];
	if (j > d && chunk_continues(keys, npairs, per, nbuckets, j - d) && keys[(j - d) * per] == keys[j * per])
		add(v, in[j - d]);
	out[j] = v;
}

// For each chunk t whose last bucket runs on (its owner), ends[t] = the last
// chunk that bucket reaches (binary search: chunk first keys are sorted);
// *max_run = the longest such run in chunks, so that the scan of the heads
// stops after log2 of it.  Other chunks get ends[t] = 0.
static __global__ void __launch_bounds__(BLOCK) run_ends(const uint32_t *keys, size_t npairs, size_t per, size_t nchunks,
						  uint32_t nbuckets, uint32_t *ends, uint32_t *max_run)
{
	size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t >= nchunks)
		return;
	ends[t] = 0;
	size_t lo = t * per, hi = lo + per < npairs ? lo + per : npairs;
	if (lo >= hi || hi >= npairs)
		return;
	uint32_t last = keys[hi - 1];
	if (last >= nbuckets || keys[hi] != last)
		return;
	if (keys[lo] == last && lo > 0 && keys[lo - 1] == last)
		return;   // a middle chunk of a longer bucket: not the owner
	size_t a = t + 1, b = nchunks;   // keys[a·per] == last; find the end of the run in [a, b)
	while (b - a > 1) {
		size_t mid = a + (b - a) / 2;
		if (mid * per < npairs && keys[mid * per] == last)
			a = mid;
		else
			b = mid;
	}
	ends[t] = uint32_t(a);
	atomicMax(max_run, uint32_t(a - t));
}

// Finishes each bucket that starts in chunk t and runs on: its tail plus the
// scanned heads of the last chunk it reaches.  The scan wrote heads1, then
// heads0, ... for as many steps as did work (d = 1, 2, 4, ... below
// *max_run), so the parity of that count says where it ended.
template <class F>
__global__ void __launch_bounds__(BLOCK) fixup(const uint32_t *keys, size_t per, size_t nchunks,
					       xyzz_t<F> *buckets_f, const xyzz_t<F> *heads0_f,
					       const xyzz_t<F> *heads1_f, const xyzz_t<F> *tails_f,
					       const uint32_t *ends, const uint32_t *max_run)
{
	using A = typename reduce_arith<F>::type;
	size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t >= nchunks || !ends[t])
		return;
	unsigned steps = 0;
	for (size_t d = 1; d < *max_run; d <<= 1)
		steps++;
	const xyzz_t<F> *scanned_f = steps & 1 ? heads1_f : heads0_f;
	size_t hi = (t + 1) * per;
	xyzz_t<A> acc = as_arith<A>(tails_f)[t];
	add(acc, as_arith<A>(scanned_f)[ends[t]]);
	as_arith<A>(buckets_f)[keys[hi - 1]] = acc;
}

// One level of the window reduction (window_levels): block (c, w) takes
// chunk c of window w's items, in[w·stride + j] for j in [c·seg, (c+1)·seg)
// and below count, k to a thread, and writes
// a[w·nseg + c] = Σ (j - c·seg + 1)·x_j and r[w·nseg + c] = Σ x_j.
// Thread t's items give a_t (weights 1..k) and r_t; the chunk's A is
// Σ a_t + k·Σ_t t·r_t = Σ (a_t + k·S_t) with S_t = Σ_{t' >= t} r_t' for t >= 1:
// one suffix scan, k·S_t by doublings, one tree.
template <class F>
__global__ void __launch_bounds__(chunk_threads<F>::value) window_chunk(const xyzz_t<F> *in_f, size_t stride,
									 uint32_t count, uint32_t k, uint32_t nseg,
									 xyzz_t<F> *a_f, xyzz_t<F> *r_f)
{
	using A = typename reduce_arith<F>::type;
	__shared__ xyzz_t<A> sh[chunk_threads<F>::value];
	const unsigned T = blockDim.x, t = threadIdx.x;   // a power of two, at most the array
	const uint32_t c = blockIdx.x, w = blockIdx.y;
	const xyzz_t<A> *x = as_arith<A>(in_f) + size_t(w) * stride;
	const uint32_t base = c * T * k, lo = base + t * k;
	const uint32_t hi = lo + k < count ? lo + k : count;
	xyzz_t<A> run, acc;
	set_inf(run);
	set_inf(acc);
	for (uint32_t j = hi; j-- > lo;) {   // nothing when lo >= count
		add(run, x[j]);
		add(acc, run);
	}
	sh[t] = run;
	__syncthreads();
	for (unsigned d = 1; d < T; d <<= 1) {   // inclusive suffix sums
		xyzz_t<A> nb;
		if (t + d < T)
			nb = sh[t + d];
		__syncthreads();
		if (t + d < T) {
			xyzz_t<A> mine = sh[t];
			add(mine, nb);
			sh[t] = mine;
		}
		__syncthreads();
	}
	const uint32_t out = w * nseg + c;
	if (t == 0)
		as_arith<A>(r_f)[out] = sh[0];
	xyzz_t<A> v;
	set_inf(v);
	if (t > 0) {
		v = sh[t];
		if (!is_inf(v))
			for (uint32_t b = 1; b < k; b <<= 1)
				v = dbl(v);
	}
	add(v, acc);
	__syncthreads();
	sh[t] = v;
	__syncthreads();
	for (unsigned h = T / 2; h > 0; h >>= 1) {
		if (t < h) {
			xyzz_t<A> u = sh[t];
			add(u, sh[t + h]);
			sh[t] = u;
		}
		__syncthreads();
	}
	if (t == 0)
		as_arith<A>(a_f)[out] = sh[0];
}

// Window w's value from the per-level sums: v = ΣA_L + seg_L·v, from the
// last level down (seg_L a power of two: log2 seg_L doublings).
struct level_segs {
	unsigned count;
	unsigned log_seg[MAX_LEVELS];
};

template <class F>
__global__ void __launch_bounds__(32) window_combine(const xyzz_t<F> *sums_f, uint32_t rows, level_segs lv,
						     xyzz_t<F> *out_f)
{
	using A = typename reduce_arith<F>::type;
	const xyzz_t<A> *sums = as_arith<A>(sums_f);
	xyzz_t<A> *out = as_arith<A>(out_f);
	uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
	if (w >= rows)
		return;
	xyzz_t<A> v = sums[size_t(lv.count - 1) * MAX_WINDOWS + w];
	for (unsigned L = lv.count - 1; L-- > 0;) {
		if (!is_inf(v))
			for (unsigned b = 0; b < lv.log_seg[L]; b++)
				v = dbl(v);
		add(v, sums[size_t(L) * MAX_WINDOWS + w]);
	}
	out[w] = v;
}

// out[row·nout + blk] = Σ of in[row·cols + j] for j in block blk's columns.
template <class F>
__global__ void __launch_bounds__(RBLOCK) reduce_rows(const xyzz_t<F> *in_f, size_t cols, xyzz_t<F> *out_f, size_t nout)
{
	using A = typename reduce_arith<F>::type;
	const xyzz_t<A> *in = as_arith<A>(in_f);
	xyzz_t<A> *out = as_arith<A>(out_f);
	__shared__ xyzz_t<A> sh[RBLOCK];
	const size_t row = blockIdx.y, blk = blockIdx.x;
	const size_t per = RBLOCK * RPER;
	size_t lo = blk * per, hi = lo + per < cols ? lo + per : cols;
	xyzz_t<A> acc;
	set_inf(acc);
	for (size_t j = lo + threadIdx.x; j < hi; j += RBLOCK)
		add(acc, in[row * cols + j]);
	sh[threadIdx.x] = acc;
	__syncthreads();
	for (unsigned s = RBLOCK / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s) {
			xyzz_t<A> a = sh[threadIdx.x];
			add(a, sh[threadIdx.x + s]);
			sh[threadIdx.x] = a;
		}
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[row * nout + blk] = sh[0];
}

// The window sums and the ones' sum as Jacobian points, for the host.
template <class F>
__global__ void __launch_bounds__(32) to_jacobian_all(const xyzz_t<F> *in, unsigned count, jacobian_t<F> *out)
{
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t < count)
		out[t] = to_jacobian(in[t]);
}

// Σ_w 2^(c·w)·S_w by Horner, plus the ones, as Jacobian (one thread: for
// callers without host curve code).
template <class F>
__global__ void __launch_bounds__(1) finish(const xyzz_t<F> *wsums, unsigned windows, unsigned c, const xyzz_t<F> *ones,
		       jacobian_t<F> *out)
{
	xyzz_t<F> acc;
	set_inf(acc);
	for (unsigned w = windows; w-- > 0;) {
		if (!is_inf(acc))
			for (unsigned b = 0; b < c; b++)
				acc = dbl(acc);
		add(acc, wsums[w]);
	}
	add(acc, *ones);
	*out = to_jacobian(acc);
}

// ---- host driver -------------------------------------------------------------

// Optional per-phase device times (ms), for benchmarks: events are recorded
// between the phases and read after the final stream synchronisation.
enum phase { PH_SPLIT, PH_ONES, PH_PAIRS, PH_SORT, PH_ACCUMULATE, PH_WINDOWS, PH_FINISH, PH_COUNT };
struct profile_t {
	double ms[PH_COUNT] = {};
	unsigned c = 0, windows = 0, group = 0;
	size_t ones = 0, dense = 0;
};

// $CUZK_MSM_PROFILE=1: every MSM prints its phases to stderr (diagnostics of
// whole proofs, where no benchmark collects them).
inline void print_profile(const profile_t &p, size_t n, const char *curve)
{
	static const char *names[PH_COUNT] = {"split", "ones", "pairs", "sort", "accumulate", "windows", "finish"};
	fprintf(stderr, "msm %s n=%zu c=%u windows=%u ones=%zu dense=%zu:", curve, n, p.c, p.windows, p.ones, p.dense);
	for (int i = 0; i < PH_COUNT; i++)
		fprintf(stderr, " %s %.3f", names[i], p.ms[i]);
	fprintf(stderr, " ms\n");
}

class phase_clock {
	profile_t *prof_;
	cudaStream_t s_;
	cudaEvent_t ev_[2 * PH_COUNT * (MAX_WINDOWS + 1)] = {};
	int ph_[PH_COUNT * (MAX_WINDOWS + 1)] = {};
	unsigned n_ = 0;
	cudaEvent_t last_ = nullptr;

public:
	phase_clock(profile_t *prof, cudaStream_t s) : prof_(prof), s_(s)
	{
		if (prof_) {
			CUDA_OK(cudaEventCreate(&last_));
			CUDA_OK(cudaEventRecord(last_, s_));
		}
	}
	~phase_clock()
	{
		for (unsigned i = 0; i < 2 * n_; i++)
			if (ev_[i])
				cudaEventDestroy(ev_[i]);
		if (last_)
			cudaEventDestroy(last_);
	}
	phase_clock(const phase_clock &) = delete;
	phase_clock &operator=(const phase_clock &) = delete;
	// Marks the end of phase ph (which began at the previous mark).
	void mark(phase ph)
	{
		if (!prof_ || n_ >= PH_COUNT * (MAX_WINDOWS + 1))
			return;
		cudaEvent_t e;
		CUDA_OK(cudaEventCreate(&e));
		CUDA_OK(cudaEventRecord(e, s_));
		ev_[2 * n_] = last_;
		ev_[2 * n_ + 1] = e;
		ph_[n_++] = ph;
		CUDA_OK(cudaEventCreate(&last_));
		CUDA_OK(cudaEventRecord(last_, s_));
	}
	// After the stream has been synchronised.
	void collect()
	{
		if (!prof_)
			return;
		for (unsigned i = 0; i < n_; i++) {
			float ms = 0;
			CUDA_OK(cudaEventElapsedTime(&ms, ev_[2 * i], ev_[2 * i + 1]));
			prof_->ms[ph_[i]] += ms;
		}
	}
};

inline unsigned blocks_for(size_t threads, unsigned block) { return unsigned((threads + block - 1) / block); }

// Sums rows × cols points into dst[row] with tree kernels, ping-ponging
// through two scratch arrays.
template <class F>
void sum_rows(const xyzz_t<F> *in, size_t rows, size_t cols, xyzz_t<F> *dst, xyzz_t<F> *tmp0, xyzz_t<F> *tmp1,
	      cudaStream_t s)
{
	const size_t per = RBLOCK * RPER;
	xyzz_t<F> *tmp[2] = {tmp0, tmp1};
	for (int lvl = 0; cols > 1; lvl ^= 1) {
		size_t nout = (cols + per - 1) / per;
		xyzz_t<F> *out = nout == 1 ? dst : tmp[lvl];
		reduce_rows<F><<<dim3(unsigned(nout), unsigned(rows)), RBLOCK, 0, s>>>(in, cols, out, nout);
		CUDA_LAUNCHED("msm reduce_rows");
		in = out;
		cols = nout;
	}
	if (cols == 1 && in != dst)
		CUDA_OK(cudaMemcpyAsync(dst, in, rows * sizeof(xyzz_t<F>), cudaMemcpyDeviceToDevice, s));
}

// The whole MSM; throws gpu_error (caught at the C boundary).
// The host's curve operations for F (nullptr when ops lacks them).
template <class F> struct host_curve {
	void (*acc)(uint64_t *, const uint64_t *) = nullptr;
	void (*dbl)(uint64_t *) = nullptr;
	explicit host_curve(const cuzk_gpu_host_ops *ops)
	{
		if (!ops)
			return;
		if constexpr (std::is_same<F, fp_t>::value) {
			acc = ops->g1_acc;
			dbl = ops->g1_dbl;
		} else {
			acc = ops->g2_acc;
			dbl = ops->g2_dbl;
		}
	}
	bool usable() const { return acc && dbl; }
};

// Σ_w 2^(c·w)·S_w + ones on the host, from Jacobian window sums in host layout
// (jac[windows] is the ones' sum).
template <class F>
void host_horner(const host_curve<F> &hc, const jacobian_t<F> *jac, unsigned windows, unsigned c, jacobian_t<F> *out)
{
	static_assert(sizeof(jacobian_t<F>) % sizeof(uint64_t) == 0, "Jacobian points are whole u64 words");
	jacobian_t<F> acc{};   // infinity: Z = 0
	uint64_t *a = reinterpret_cast<uint64_t *>(&acc);
	bool empty = true;
	for (unsigned w = windows; w-- > 0;) {
		if (!empty)
			for (unsigned b = 0; b < c; b++)
				hc.dbl(a);
		if (!is_zero(jac[w].Z)) {
			hc.acc(a, reinterpret_cast<const uint64_t *>(&jac[w]));
			empty = false;
		}
	}
	if (!is_zero(jac[windows].Z))
		hc.acc(a, reinterpret_cast<const uint64_t *>(&jac[windows]));
	*out = acc;
}

// One batch of a batched MSM (msm.cuh, cuzk_msm_g1_batch): n_total points
// in all; the first batch clears the running sums, the last reduces them
// into h_out (which the others leave alone).
struct batch_t {
	size_t n_total;
	bool first, last;
};

template <class F>
void run(const void *d_bases, const void *d_scalars, size_t n, bool mont, jacobian_t<F> *h_out, void *d_scratch,
	 size_t scratch_bytes, cudaStream_t s, profile_t *prof = nullptr, const cuzk_gpu_host_ops *ops = nullptr,
	 const batch_t *batch = nullptr)
{
	using P = xyzz_t<F>;
	if (n > (size_t(1) << 28) || (batch && batch->n_total > (size_t(1) << 28)))
		gpu_fail(CUZK_E_INVAL, "msm: %zu points is more than the 2^28 supported", batch ? batch->n_total : n);
	if (batch && (n == 0 || n > batch->n_total))
		gpu_fail(CUZK_E_INVAL, "msm: a batch of %zu points in an MSM of %zu", n, batch->n_total);
	if (n && (!d_bases || !d_scalars || !h_out))
		gpu_fail(CUZK_E_INVAL, "msm: null bases, scalars or output");
	if (reinterpret_cast<uintptr_t>(d_bases) % 16 || reinterpret_cast<uintptr_t>(d_scalars) % 8)
		gpu_fail(CUZK_E_INVAL, "msm: bases must be 16-byte and scalars 8-byte aligned");
	if (n == 0) {
		*h_out = jacobian_t<F>{};   // infinity: Z = 0
		return;
	}
	profile_t own_prof;
	const bool print_prof = !prof && getenv("CUZK_MSM_PROFILE");
	if (print_prof)
		prof = &own_prof;
	scratch_layout<F> L(n, batch ? batch->n_total : 0);
	if (!d_scratch || scratch_bytes < L.total)
		gpu_fail(CUZK_E_INVAL, "msm: scratch of %zu bytes, %zu needed for %zu points", scratch_bytes,
			 L.total, n);
	char *base = static_cast<char *>(d_scratch);
	auto at = [&](size_t off) { return static_cast<void *>(base + off); };
	const uint4 *bases = static_cast<const uint4 *>(d_bases);
	const uint64_t *scalars = static_cast<const uint64_t *>(d_scalars);
	uint32_t *ones_idx = static_cast<uint32_t *>(at(L.ones_idx));
	uint32_t *dense_idx = static_cast<uint32_t *>(at(L.dense_idx));
	int *d_counts = static_cast<int *>(at(L.counts));
	P *partials = static_cast<P *>(at(L.partials));
	P *red0 = static_cast<P *>(at(L.red[0])), *red1 = static_cast<P *>(at(L.red[1]));
	P *wsums = static_cast<P *>(at(L.wsums));
	P *ones_sum = static_cast<P *>(at(L.ones_sum));
	jacobian_t<F> *d_result = static_cast<jacobian_t<F> *>(at(L.result));
	// A batched MSM's plan is the whole MSM's, fixed before any split.
	const plan_t batch_plan = batch ? make_batched_plan(batch->n_total, n) : plan_t{};
	P *run_buckets = batch ? static_cast<P *>(at(L.run_buckets)) : nullptr;
	P *run_ones = batch ? static_cast<P *>(at(L.run_ones)) : nullptr;
	if (batch && batch->first) {
		CUDA_OK(cudaMemsetAsync(run_buckets, 0, size_t(batch_plan.windows) * batch_plan.buckets * sizeof(P), s));
		CUDA_OK(cudaMemsetAsync(run_ones, 0, sizeof(P), s));
	}

	int dev = 0, sms = 0;
	CUDA_OK(cudaGetDevice(&dev));
	CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	// Accumulation threads: exactly the ones the device keeps resident, one
	// wave with equal work each (ncu showed 1.33 waves costing a tail).
	const accumulate_fn<F> accumulate_k = pick_accumulate<F>();
	int acc_per_sm = 0;
	CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&acc_per_sm, accumulate_k, BLOCK, 0));
	size_t acc_threads = size_t(sms) * size_t(acc_per_sm > 0 ? acc_per_sm : 1) * BLOCK;
	if (acc_threads > CHUNKS_CAP)
		acc_threads = CHUNKS_CAP;
	// The batch-affine kernel, where asked for and its lists were reserved.
	accumulate_affine_fn affine_k = nullptr;
	size_t aff_threads = 0, aff_min = 0;
	if constexpr (std::is_same<F, fp_t>::value) {
		if (affine_from_env<F>(true) && L.aff_entries) {
			affine_k = accumulate_affine_g1();
			int per_sm = 0;
			CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, affine_k, BLOCK, 0));
			aff_threads = std::min(size_t(sms) * size_t(per_sm > 0 ? per_sm : 1) * BLOCK, CHUNKS_CAP);
			aff_min = affine_min_batch();
		}
	}

	phase_clock clock(prof, s);

	// 1. split: indices of the ones and of the rest, in order
	thrust::counting_iterator<uint32_t> idx(0);
	size_t tmp_bytes = L.cub_bytes;
	CUDA_OK(cub::DeviceSelect::If(at(L.cub_tmp), tmp_bytes, idx, ones_idx, d_counts, (int)n,
				      scalar_is{scalars, mont, msm_scalar::kind::one}, s));
	tmp_bytes = L.cub_bytes;
	CUDA_OK(cub::DeviceSelect::If(at(L.cub_tmp), tmp_bytes, idx, dense_idx, d_counts + 1, (int)n,
				      scalar_is{scalars, mont, msm_scalar::kind::other}, s));
	int counts[2];
	CUDA_OK(cudaMemcpyAsync(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost, s));
	CUDA_OK(cudaStreamSynchronize(s));   // the sizes below depend on the split
	const size_t m1 = size_t(counts[0]), m = size_t(counts[1]);
	clock.mark(PH_SPLIT);

	// 2. the ones
	if (m1) {
		size_t nout = m1 < size_t(sms) * BLOCK * 2 ? m1 : size_t(sms) * BLOCK * 2;
		if (nout > CHUNKS_CAP)
			nout = CHUNKS_CAP;
		size_t per = (m1 + nout - 1) / nout;
		nout = (m1 + per - 1) / per;
		sum_listed<F><<<blocks_for(nout, BLOCK), BLOCK, 0, s>>>(bases, ones_idx, m1, per, partials, nout);
		CUDA_LAUNCHED("msm sum_listed");
		sum_rows<F>(partials, 1, nout, ones_sum, red0, red1, s);
	} else {
		CUDA_OK(cudaMemsetAsync(ones_sum, 0, sizeof(P), s));
	}
	clock.mark(PH_ONES);

	if (batch) {
		merge_into<F><<<1, 1, 0, s>>>(run_ones, ones_sum, 1);
		CUDA_LAUNCHED("msm merge_into");
	}

	// 3. Pippenger on the rest
	plan_t pl = batch ? batch_plan : make_plan(bitlen(m));
	// A batched MSM reduces all its windows at the end, whatever this batch had.
	unsigned windows = batch || m ? pl.windows : 0;
	for (unsigned w0 = 0; m && w0 < windows; w0 += pl.group) {
		const unsigned g = w0 + pl.group <= windows ? pl.group : windows - w0;
		const size_t npairs = m * g;
		const uint32_t nb = uint32_t(g * pl.buckets);
		uint32_t *k0 = static_cast<uint32_t *>(at(L.keys[0])), *k1 = static_cast<uint32_t *>(at(L.keys[1]));
		uint32_t *v0 = static_cast<uint32_t *>(at(L.vals[0])), *v1 = static_cast<uint32_t *>(at(L.vals[1]));
		make_pairs<<<blocks_for(m, BLOCK), BLOCK, 0, s>>>(scalars, mont, dense_idx, m, pl.c, w0, g, k0, v0);
		CUDA_LAUNCHED("msm make_pairs");
		clock.mark(PH_PAIRS);
		cub::DoubleBuffer<uint32_t> kb(k0, k1), vb(v0, v1);
		int end_bit = int(pl.c - 1 + bitlen(g));
		tmp_bytes = L.cub_bytes;
		CUDA_OK(cub::DeviceRadixSort::SortPairs(at(L.cub_tmp), tmp_bytes, kb, vb, (int)npairs, 0, end_bit, s));
		const uint32_t *keys = kb.Current(), *vals = vb.Current();
		clock.mark(PH_SORT);

		P *buckets = static_cast<P *>(at(L.buckets)) + size_t(w0) * pl.buckets;
		P *heads[2] = {static_cast<P *>(at(L.heads[0])), static_cast<P *>(at(L.heads[1]))};
		P *tails = static_cast<P *>(at(L.tails));
		CUDA_OK(cudaMemsetAsync(buckets, 0, size_t(nb) * sizeof(P), s));
		size_t nchunks = acc_threads;
		size_t per = (npairs + nchunks - 1) / nchunks;
		nchunks = (npairs + per - 1) / per;
		bool affine_now = false;
		if (affine_k) {   // its own chunking: its occupancy may differ
			size_t ach = aff_threads, aper = (npairs + ach - 1) / ach;
			ach = (npairs + aper - 1) / aper;
			const size_t c0 = affine::cap0(aper), c1 = affine::cap1(aper);
			const size_t c2 = affine::cap2(aper);
			if (aper >= 2 * aff_min && (c0 + c1 + c2) * ach <= L.aff_entries) {
				affine_now = true;
				nchunks = ach;
				per = aper;
				const affine::lists_t lists{static_cast<affine::word16_t *>(at(L.aff_pts)),
							    static_cast<uint32_t *>(at(L.aff_keys)), 0, {c0, c1, c2}};
				using G1 = xyzz_t<fp_t> *;   // affine_k is only set for G1
				affine_k<<<blocks_for(nchunks, BLOCK), BLOCK, 0, s>>>(
					bases, keys, vals, npairs, per, nchunks, nb, reinterpret_cast<G1>(buckets),
					reinterpret_cast<G1>(heads[0]), reinterpret_cast<G1>(tails), lists, aff_min);
				CUDA_LAUNCHED("msm accumulate_affine");
			}
		}
		if (!affine_now) {
			accumulate_k<<<blocks_for(nchunks, BLOCK), BLOCK, 0, s>>>(bases, keys, vals, npairs, per, nchunks,
										   nb, buckets, heads[0], tails);
			CUDA_LAUNCHED("msm accumulate");
		}
		uint32_t *ends = static_cast<uint32_t *>(at(L.ends)), *max_run = static_cast<uint32_t *>(at(L.max_run));
		CUDA_OK(cudaMemsetAsync(max_run, 0, sizeof(uint32_t), s));
		run_ends<<<blocks_for(nchunks, BLOCK), BLOCK, 0, s>>>(keys, npairs, per, nchunks, nb, ends, max_run);
		CUDA_LAUNCHED("msm run_ends");
		// Steps at or past the longest run return at once (they are all at
		// the end, d only grows); fixup counts the steps that worked.
		int cur = 0;
		for (size_t d = 1; d < nchunks; d <<= 1) {
			heads_scan<F><<<blocks_for(nchunks, BLOCK), BLOCK, 0, s>>>(keys, npairs, per, nchunks, nb,
										    heads[cur], heads[cur ^ 1], d, max_run);
			CUDA_LAUNCHED("msm heads_scan");
			cur ^= 1;
		}
		fixup<F><<<blocks_for(nchunks, BLOCK), BLOCK, 0, s>>>(keys, per, nchunks, buckets, heads[0], heads[1],
								       tails, ends, max_run);
		CUDA_LAUNCHED("msm fixup");
		clock.mark(PH_ACCUMULATE);
	}
	if (batch) {
		const size_t nb = size_t(windows) * pl.buckets;
		if (m) {
			merge_into<F><<<blocks_for(nb, BLOCK), BLOCK, 0, s>>>(run_buckets, static_cast<const P *>(at(L.buckets)), nb);
			CUDA_LAUNCHED("msm merge_into");
			clock.mark(PH_ACCUMULATE);
		}
		if (!batch->last) {
			if (prof) {
				CUDA_OK(cudaStreamSynchronize(s));
				clock.collect();
			}
			return;
		}
	}
	const P *ones_src = batch ? run_ones : ones_sum;
	// All windows' buckets are kept, so their reduction is one wide launch.
	if (windows) {
		const window_levels wl(windows, pl.buckets, chunk_threads<F>::value);
		P *la = static_cast<P *>(at(L.lvl_a)), *lr = static_cast<P *>(at(L.lvl_r));
		P *sums = static_cast<P *>(at(L.lvl_sums));
		const P *in = batch ? run_buckets : static_cast<const P *>(at(L.buckets));
		size_t stride = pl.buckets;
		level_segs lv{wl.count, {}};
		for (unsigned lvl = 0; lvl < wl.count; lvl++) {
			const uint32_t nseg = wl.nseg[lvl];
			window_chunk<F><<<dim3(nseg, windows), wl.thr[lvl], 0, s>>>(
				in, stride, wl.items[lvl], wl.k[lvl], nseg, la, lr);
			CUDA_LAUNCHED("msm window_chunk");
			sum_rows<F>(la, windows, nseg, sums + size_t(lvl) * MAX_WINDOWS, red0, red1, s);
			lv.log_seg[lvl] = bitlen(wl.seg[lvl]) - 1;
			in = lr + 1;   // the next level's items: R_1, R_2, ...
			stride = nseg;
			la += size_t(windows) * nseg;
			lr += size_t(windows) * nseg;
		}
		window_combine<F><<<blocks_for(windows, 32), 32, 0, s>>>(sums, windows, lv, wsums);
		CUDA_LAUNCHED("msm window_combine");
		clock.mark(PH_WINDOWS);
	}
	const host_curve<F> hc(ops);
	if (hc.usable()) {
		// the windows' sums then the ones', as Jacobian, to the host
		if (wsums + windows != ones_src)
			CUDA_OK(cudaMemcpyAsync(wsums + windows, ones_src, sizeof(P), cudaMemcpyDeviceToDevice, s));
		to_jacobian_all<F><<<blocks_for(windows + 1, 32), 32, 0, s>>>(wsums, windows + 1, d_result);
		CUDA_LAUNCHED("msm to_jacobian_all");
		jacobian_t<F> jac[MAX_WINDOWS + 1];
		CUDA_OK(cudaMemcpyAsync(jac, d_result, sizeof(jacobian_t<F>) * (windows + 1), cudaMemcpyDeviceToHost, s));
		clock.mark(PH_FINISH);
		CUDA_OK(cudaStreamSynchronize(s));
		const auto t0 = std::chrono::steady_clock::now();
		host_horner(hc, jac, windows, windows ? pl.c : 0, h_out);
		clock.collect();
		if (prof)
			prof->ms[PH_FINISH] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
	} else {
		finish<F><<<1, 1, 0, s>>>(wsums, windows, pl.c, ones_src, d_result);
		CUDA_LAUNCHED("msm finish");
		CUDA_OK(cudaMemcpyAsync(h_out, d_result, sizeof(jacobian_t<F>), cudaMemcpyDeviceToHost, s));
		clock.mark(PH_FINISH);
		CUDA_OK(cudaStreamSynchronize(s));
		clock.collect();
	}
	if (prof) {
		prof->c = windows ? pl.c : 0;
		prof->windows = windows;
		prof->group = windows ? pl.group : 0;
		prof->ones = m1;
		prof->dense = m;
	}
	if (print_prof)
		print_profile(own_prof, n, std::is_same<F, fp_t>::value ? "g1" : "g2");
}

// The concrete drivers (msm_g1.cu, msm_g2.cu), for callers that need the
// profile and should not instantiate the kernels again.
void run_g1(const void *d_bases, const void *d_scalars, size_t n, bool mont, jacobian_t<fp_t> *h_out,
	    void *d_scratch, size_t scratch_bytes, cudaStream_t s, profile_t *prof, const cuzk_gpu_host_ops *ops);
void run_g2(const void *d_bases, const void *d_scalars, size_t n, bool mont, jacobian_t<fp2_t> *h_out,
	    void *d_scratch, size_t scratch_bytes, cudaStream_t s, profile_t *prof, const cuzk_gpu_host_ops *ops);

} // namespace msm
} // namespace cuzk

// The driver and the C entry points of one curve (name g1/g2, field F); each
// curve's .cu file expands it once.
#define CUZK_MSM_ENTRY_POINTS(name, F)                                                              \
	void cuzk::msm::run_##name(const void *d_bases, const void *d_scalars, size_t n, bool mont,    \
				   jacobian_t<F> *h_out, void *d_scratch, size_t scratch_bytes,          \
				   cudaStream_t s, profile_t *prof, const cuzk_gpu_host_ops *ops)        \
	{                                                                                             \
		run<F>(d_bases, d_scalars, n, mont, h_out, d_scratch, scratch_bytes, s, prof, ops);  \
	}                                                                                             \
	extern "C" size_t cuzk_msm_##name##_scratch_bytes(size_t n)                                   \
	{                                                                                             \
		return cuzk::msm::scratch_layout<F>(n).total;                                        \
	}                                                                                             \
	extern "C" int cuzk_msm_##name(const void *d_bases, const void *d_scalars, size_t n,          \
				       int scalars_montgomery, void *h_out_jac,                         \
				       const cuzk_gpu_host_ops *ops, void *d_scratch,                   \
				       size_t scratch_bytes, cudaStream_t s, cuzk_error *err)  \
	{                                                                                             \
		return cuzk::gpu_entry(err, [&] {                                            \
			cuzk::msm::run_##name(d_bases, d_scalars, n, scalars_montgomery != 0,          \
					      static_cast<cuzk::jacobian_t<F> *>(h_out_jac), d_scratch, \
					      scratch_bytes, s, nullptr, ops);                          \
		});                                                                                   \
	}                                                                                             \
	extern "C" size_t cuzk_msm_##name##_batch_scratch_bytes(size_t n_batch, size_t n_total)      \
	{                                                                                             \
		return cuzk::msm::scratch_layout<F>(n_batch, std::max(n_batch, n_total)).total;      \
	}                                                                                             \
	extern "C" int cuzk_msm_##name##_batch(const void *d_bases, const void *d_scalars, size_t n, \
					     size_t n_total, int flags, int scalars_montgomery,      \
					     void *h_out_jac, const cuzk_gpu_host_ops *ops,          \
					     void *d_scratch, size_t scratch_bytes, cudaStream_t s,  \
					     cuzk_error *err)                                        \
	{                                                                                             \
		return cuzk::gpu_entry(err, [&] {                                            \
			const cuzk::msm::batch_t b{n_total, (flags & CUZK_MSM_FIRST) != 0,             \
						   (flags & CUZK_MSM_LAST) != 0};                      \
			cuzk::msm::run<F>(d_bases, d_scalars, n, scalars_montgomery != 0,              \
					  static_cast<cuzk::jacobian_t<F> *>(h_out_jac), d_scratch,     \
					  scratch_bytes, s, nullptr, ops, &b);                          \
		});                                                                                   \
	}

#endif
