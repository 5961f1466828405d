// SPDX-License-Identifier: Apache-2.0 OR MIT
// Multi-scalar multiplication Σ s_i·P_i for affine bases resident on the
// device, generic over the curve (G1 over Fp, G2 over Fp2).
//
// Plan (one stream, scratch memory from the caller, no allocation and no
// device-wide synchronisation):
//  1. Split by scalar: zeros are dropped, ones are summed by a plain reduction,
//     the rest ("dense", m of them) go to Pippenger.  Real witnesses are mostly
//     0/1, so this is where most of their cost disappears.
//  2. Pippenger with signed digits, the window count chosen from m.  Scalars
//     above (r-1)/2 are replaced by r - s with the point negated, so 254 bits
//     and one bit of headroom, 255 in all, shared by the windows as evenly as
//     they can (c or c - 1 bits each).  Windows are done in groups of G (bounded
//     memory): each group's (bucket, point) pairs are made and radix sorted.
//  3. Accumulation over the sorted pairs in equal chunks per thread (a thread
//     flushes a bucket whenever the key changes), so every thread does the
//     same number of mixed additions whatever the bucket sizes; buckets cut by
//     a chunk border are finished by a short fix-up pass (a scan first where
//     some bucket spans more than a few chunks).  This is the load
//     balance that "largest buckets first" buys, without sorting buckets by size.
//  4. Every window's buckets are kept, so after the last group one wide launch
//     forms Σ d·B_d per window: in two dimensions (row and column sums, then
//     two short weighted sums) for windows of up to 2^16 buckets, where the
//     reduction is bound by its depth; by levels of segmented running sums
//     above.  The host combines every window's partial sums by one Horner
//     over their exponents (a device thread does where no host curve code
//     is given); the result goes out as Jacobian.
#ifndef CUZK_CUDA_MSM_PIPPENGER_CUH
#define CUZK_CUDA_MSM_PIPPENGER_CUH

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ec/xyzz.cuh"
#include "ff/fp2.cuh"
#include "msm/affine_acc.cuh"
#include "msm/fp_impl.cuh"
#include "msm/plan.cuh"
#include "msm/scalar.cuh"
#include "util/check.cuh"

namespace cuzk {
namespace msm {

// ---- tunables ----------------------------------------------------------------

// Upper bound on accumulation threads (chunks; sized at run time to one
// resident wave): more than any current GPU keeps resident for this kernel.
constexpr size_t CHUNKS_CAP = size_t(1) << 17;
// Each level of the window reduction (window_levels) has at most 1/128 of
// the items of the one before: a handful of levels at most.
constexpr unsigned MAX_LEVELS = 8;
// Threads per block; the tree reductions keep one point per thread in shared memory.
constexpr unsigned BLOCK = 128, RBLOCK = 64, RPER = 8;

// ---- plan (msm/plan.cuh) -------------------------------------------------------

// $name as a number in [lo, hi]; dflt where it is unset or empty.
inline unsigned long env_number(const char *name, unsigned long dflt, unsigned long lo, unsigned long hi)
{
	const char *e = getenv(name);
	if (!e || !*e)
		return dflt;
	char *end = nullptr;
	unsigned long v = strtoul(e, &end, 10);
	if (*end || v < lo || v > hi)
		gpu_fail(CUZK_E_INVAL, "%s=%s: expected %lu..%lu", name, e, lo, hi);
	return v;
}

// $CUZK_MSM_WINDOWS=N (benchmarks): N windows for every MSM whose widest
// window then fits c_max bits; unset or 0, the cost model's choice.  Read
// once an MSM (scratch_layout and run), not once a plan.
inline unsigned windows_from_env() { return unsigned(env_number("CUZK_MSM_WINDOWS", 0, 0, 255)); }

// $CUZK_MSM_C_BATCHED=N (benchmarks): a batched MSM's widest window, N bits
// at most instead of C_BATCHED_MAX (batched_c_max still takes narrower ones
// down to C_BATCHED_MIN where its scalars are sparse); its running sums and
// the batch's buckets grow with it (2^(N-1) a window each).  Read where
// windows_from_env is.
inline unsigned c_batched_from_env() { return unsigned(env_number("CUZK_MSM_C_BATCHED", C_BATCHED_MAX, C_MIN, C_MAX)); }

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
// k = 16 where the level is throughput-bound: 2^22 items over its rows
// give 2^18 threads, a few resident waves.  Below, the level is bound by its
// depth (2k additions a thread): at 2^20 points, 15 windows of 2^16 buckets
// took 2.3 ms at k = 16, about what 8 windows of 2^15 did.
constexpr size_t CHUNK_LARGE_ITEMS = size_t(1) << 22;   // in all the rows

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
			unsigned kk = size_t(rows) * n >= CHUNK_LARGE_ITEMS ? CHUNK_K_LARGE : CHUNK_K_SMALL, tt = threads;
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
	}
};

// The kind of every scalar, a byte each, so that the split's two
// selections read one byte a point, not the 32-byte scalar, and a
// Montgomery scalar is converted once there, not once a selection.
static __global__ void __launch_bounds__(BLOCK) classify(const uint64_t *scalars, bool mont, size_t n,
							 msm_scalar::kind *kinds)
{
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	uint64_t s[4];
	kinds[i] = msm_scalar::load(s, scalars, i, mont);
}

// Selects scalars of one kind (cub::DeviceSelect::If predicate over indices).
struct kind_is {
	const msm_scalar::kind *kinds;
	msm_scalar::kind want;
	__device__ bool operator()(uint32_t i) const { return kinds[i] == want; }
};

// $CUZK_MSM_ACC: how the buckets are accumulated.  Unset, empty or auto:
// batch-affine rounds over the whole grid (msm/affine_rounds.cuh) shorten
// each sort group's list before the XYZZ kernel sums it, wherever the
// caller's scratch has room for their lists (*_scratch_bytes_fast: ~15 GB
// more at 2^26, groups of up to rounds_group_pairs() pairs), else XYZZ
// alone; xyzz: XYZZ alone whatever the scratch; rounds: the rounds always
// (*_scratch_bytes includes their lists, batched MSMs too); affine: the
// per-thread batch-affine kernel (msm/affine_acc.cuh, slower, kept to
// measure; G1 only: G2 then sums with XYZZ alone).  strict: an unknown
// value is an error (the driver), else automatic (the sizes).
enum class acc_mode { automatic, xyzz, rounds, affine };
inline acc_mode acc_from_env(bool strict)
{
	const char *e = getenv("CUZK_MSM_ACC");
	if (!e || !*e || !strcmp(e, "auto"))
		return acc_mode::automatic;
	if (!strcmp(e, "xyzz"))
		return acc_mode::xyzz;
	if (!strcmp(e, "rounds"))
		return acc_mode::rounds;
	if (!strcmp(e, "affine"))
		return acc_mode::affine;
	if (strict)
		gpu_fail(CUZK_E_INVAL, "CUZK_MSM_ACC=%.64s: expected auto, xyzz, rounds or affine", e);
	return acc_mode::automatic;
}
template <class F> bool affine_from_env(bool strict)
{
	return std::is_same<F, fp_t>::value && acc_from_env(strict) == acc_mode::affine;
}

// The fewest points of a whole MSM that the automatic mode gives the
// rounds' lists to: below it a round's fixed cost (an inversion chain and
// a host sync, ~1 ms) is more than it saves (on an H100, G1 2^20 5% slower
// with them, 2^22 2% faster, 2^24 8%; docs/BENCHMARKS.md, "GPU MSM,
// 2026-12-06 (night)" and "(session of 09:47)").
constexpr size_t ROUNDS_AUTO_POINTS = size_t(1) << 22;
// Whether an MSM of n points (a batch of an MSM of n_total, 0 for a whole
// one) reserves the rounds' lists: always with CUZK_MSM_ACC=rounds, and in
// the automatic mode for the fast scratch of a large whole MSM.
template <class F> bool rounds_in_layout(size_t n, size_t n_total, bool fast)
{
	if (!n)
		return false;
	const acc_mode a = acc_from_env(false);
	return a == acc_mode::rounds || (a == acc_mode::automatic && fast && !n_total && n >= ROUNDS_AUTO_POINTS);
}
inline unsigned rounds_count() { return unsigned(env_number("CUZK_MSM_ROUNDS", 3, 1, 16)); }
// $CUZK_MSM_ROUNDS_MIN: the fewest pairs a round takes (default 2^21: a
// round's inversion and its host sync cost ~1 ms whatever its size, the
// XYZZ additions of ~2 M entries).
inline size_t rounds_min_pairs() { return env_number("CUZK_MSM_ROUNDS_MIN", size_t(1) << 21, 1, size_t(1) << 30); }
// $CUZK_MSM_FOLD=0: make_pairs folds the caller's scalars in every sort
// group even where the layout has room for fold_dense's (a measurement).
inline bool fold_from_env() { return env_number("CUZK_MSM_FOLD", 1, 0, 1) != 0; }
// $CUZK_MSM_ONES_LISTED=1: the ones summed by sum_listed, a few threads
// each over a run of them, instead of as one bucket of the accumulation (a
// measurement).
inline bool ones_listed_from_env() { return env_number("CUZK_MSM_ONES_LISTED", 0, 0, 1) != 0; }

// Where the rounds of one sort group work (scratch_layout's rnd_*): two
// lists of cap entries (affine points, keys), the values of the last, the
// slots' flags and scan, and the two levels of products and inverses.
struct rounds_scratch {
	uint4 *pts[2];
	uint32_t *keys[2];
	uint32_t *vals;
	uint32_t *flags, *before;
	uint4 *pre, *q, *qpre, *qinv, *q2;
	unsigned long long *count;
	void *cub_tmp;
	size_t cub_bytes;
	size_t cap[2], slots, threads, threads2;   // cap[i]: entries of list i
	unsigned rounds, level_k;
	size_t min_pairs;
};
// The list the XYZZ kernel then sums (the sorted pairs themselves when
// rounds is 0).
struct rounds_result {
	const uint4 *bases;
	const uint32_t *keys, *vals;
	size_t npairs;
	unsigned rounds;
};
// Compiled in msm_g1_rounds.cu and msm_g2_rounds.cu.
rounds_result affine_rounds_g1(const uint4 *bases, const uint32_t *keys, const uint32_t *vals, size_t npairs,
			       uint32_t nb, const rounds_scratch &sc, cudaStream_t s);
rounds_result affine_rounds_g2(const uint4 *bases, const uint32_t *keys, const uint32_t *vals, size_t npairs,
			       uint32_t nb, const rounds_scratch &sc, cudaStream_t s);
template <class F>
rounds_result affine_rounds(const uint4 *bases, const uint32_t *keys, const uint32_t *vals, size_t npairs, uint32_t nb,
			    const rounds_scratch &sc, cudaStream_t s)
{
	if constexpr (std::is_same<F, fp_t>::value)
		return affine_rounds_g1(bases, keys, vals, npairs, nb, sc, s);
	else
		return affine_rounds_g2(bases, keys, vals, npairs, nb, sc, s);
}
// Slots a round thread takes and products a second-level thread takes
// (msm/affine_rounds.cuh): $CUZK_MSM_ROUNDS_LEVEL, ROUNDS_LEVEL_K_MIN to
// ROUNDS_LEVEL_K_MAX, the scratch sized for the least.  64, the default,
// measured best (an H100, 2^26: 16, 32, 128 and 256 slower: fewer
// products a thread leave more inversions, each ~490 products of the
// GPU's throughput; more leave longer walks; docs/BENCHMARKS.md, "GPU MSM,
// 2026-12-06 (session of 09:47)").
constexpr size_t ROUNDS_K = 32, ROUNDS_LEVEL_K_MIN = 16, ROUNDS_LEVEL_K_MAX = 256;
inline unsigned rounds_level_k()
{
	return unsigned(env_number("CUZK_MSM_ROUNDS_LEVEL", 64, ROUNDS_LEVEL_K_MIN, ROUNDS_LEVEL_K_MAX));
}
// With the rounds, a G1 sort group holds at most 2^ROUNDS_GROUP_LOG pairs
// (one window at least), and the rounds' lists are sized for that many:
// ~17 GB, where groups of PAIRS_CAP would take twice that.  G2's points
// are twice as large, so its groups hold half as many pairs, in lists of
// the same bytes: a proof's scratch, sized for its largest MSM of either
// group, does not grow for G2's rounds.  A larger group (one window of
// more points) is left to the XYZZ kernel.
// $CUZK_MSM_ROUNDS_GROUP=K (tests) caps groups at 2^K pairs instead (G2's
// at 2^(K-1)), so that small MSMs have many groups too.
constexpr unsigned ROUNDS_GROUP_LOG = 27;
template <class F> size_t rounds_group_pairs()
{
	const size_t g1 = size_t(1) << env_number("CUZK_MSM_ROUNDS_GROUP", ROUNDS_GROUP_LOG, 4, ROUNDS_GROUP_LOG);
	return g1 / (sizeof(F) / sizeof(fp_t));
}
template <class F> unsigned rounds_group(unsigned group, size_t m)
{
	return capped_group(group, m, rounds_group_pairs<F>());
}

// $CUZK_MSM_AFFINE_MIN: the fewest pairs a batch-affine round takes (default
// 128: below it the inversion costs more than the XYZZ additions it saves).
inline size_t affine_min_batch() { return env_number("CUZK_MSM_AFFINE_MIN", 128, 1, size_t(1) << 20); }

// A batched MSM's running sums, kept between its batches in memory of their
// own (the caller's d_running, msm.cuh): the ones' sum, then every window's
// buckets.  Apart from the scratch, so that batches of several MSMs can take
// turns on one stream and one scratch (prove.cu interleaves a streamed
// SRS's queries); their place depends on n_total only.
template <class F> struct running_layout {
	size_t ones = 0, buckets = 0, total = 0;
	explicit running_layout(size_t n_total)
	{
		const unsigned forced = windows_from_env(), c_max = c_batched_from_env();
		size_t nb = 0;
		for (unsigned k = 1; k <= bitlen(n_total); k++) {
			const plan_t p = make_plan(k, c_max, 0, forced);
			nb = std::max(nb, size_t(p.windows) * p.buckets);
		}
		const size_t P = sizeof(xyzz_t<F>);
		buckets = (P + 255) & ~size_t(255);
		total = buckets + P * nb;
	}
};

// n_total: 0 for a whole MSM of n points, else the total of a batched MSM
// whose batches have at most n points (its running sums are apart:
// running_layout).
template <class F> struct scratch_layout {
	size_t ones_idx, dense_idx, kinds, folded, counts, cub_tmp, cub_bytes, keys[2], vals[2], buckets, heads[2], tails, ends, max_run,
		partials, red[2], lvl_a, lvl_r, lvl_sums, wsums, ones_sum, result, twod, total;
	size_t pairs, nbuckets, nparts, nred, nlvl, ntwod;
	size_t nfolded;   // fold_dense's scalars (0: make_pairs folds the caller's)
	size_t aff_entries, aff_pts, aff_keys;   // the batch-affine lists (none without them)
	// the rounds' ($CUZK_MSM_ACC=rounds; caps 0 without them)
	size_t rnd_cap[2], rnd_slots, rnd_threads, rnd_threads2, rnd_pts[2], rnd_keys[2], rnd_vals, rnd_flags,
		rnd_before, rnd_pre, rnd_q, rnd_qpre, rnd_qinv, rnd_q2, rnd_count;

	// fast: with the lists of the automatic mode's rounds (rounds_in_layout).
	explicit scratch_layout(size_t n, size_t n_total = 0, bool fast = false)
	{
		const bool rounds = rounds_in_layout<F>(n, n_total, fast);
		const size_t group_cap = rounds ? rounds_group_pairs<F>() : 0;   // read once, not per plan
		pairs = nbuckets = nparts = nred = nlvl = ntwod = 0;
		size_t sel_bytes = 0, sort_bytes = 0;
		// Every plan a call may make: a whole MSM's follows its dense count
		// m <= n (k = bitlen(m)); a batched one's windows follow its total
		// (any up to n_total) and its widest window (batched_c_max: any
		// from C_BATCHED_MIN to c_batched), its sort group the batch's own
		// size (kp = bitlen of any batch up to n points, m below 2^kp; a
		// batch is no larger than its total, so kp <= k).
		auto below = [n](unsigned k) { return k >= 64 || (size_t(1) << k) - 1 >= n ? n : (size_t(1) << k) - 1; };
		const unsigned kmax = bitlen(n_total ? n_total : n), kpmax = n_total ? bitlen(n) : 1;
		const unsigned forced = windows_from_env(), c_batched = c_batched_from_env();
		const unsigned c_lo = std::min(c_batched, C_BATCHED_MIN);
		auto cover = [&](const plan_t &p, size_t m) {
			const size_t e = rounds ? capped_group_pairs(p.group, m, group_cap) : m * p.group;
			size_t nb = p.windows * p.buckets;
			window_levels wl(p.windows, p.buckets, chunk_threads<F>::value);
			pairs = e > pairs ? e : pairs;
			nbuckets = nb > nbuckets ? nb : nbuckets;
			nlvl = wl.total_segs > nlvl ? wl.total_segs : nlvl;
			nparts = wl.total_segs > nparts ? wl.total_segs : nparts;
			if (p.buckets <= TWOD_ITEMS) {   // rows, columns, the weighted sums' unused R
				const twod_shape sh(p.buckets, p.windows);
				ntwod = std::max(ntwod, size_t(p.windows) * (sh.R + sh.C + 2));
			}
		};
		for (unsigned k = 1; k <= kmax; k++) {
			if (!n_total) {
				cover(make_whole_plan(k, rounds, forced), below(k));
				continue;
			}
			for (unsigned kp = 1; kp <= std::min(kpmax, k); kp++)
				for (unsigned cc = c_lo; cc <= c_batched; cc++)
					cover(make_plan(k, cc, kp, forced), below(kp));
		}
		if (nparts < CHUNKS_CAP)
			nparts = CHUNKS_CAP;   // partials also hold the ones' per-thread sums
		nred = (nparts + RBLOCK * RPER - 1) / (RBLOCK * RPER) + MAX_WINDOWS;
		if (n) {
			cub::DoubleBuffer<uint32_t> kb(nullptr, nullptr), vb(nullptr, nullptr);
			cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, kb, vb, (int)(pairs ? pairs : 1), 0, 32);
			thrust::counting_iterator<uint32_t> it(0);
			cub::DeviceSelect::If(nullptr, sel_bytes, it, (uint32_t *)nullptr, (uint32_t *)nullptr,
					      (int)n, kind_is{nullptr, msm_scalar::kind::one});
		}
		cub_bytes = sort_bytes > sel_bytes ? sort_bytes : sel_bytes;
		// The rounds' lists: the first, third... round's of up to 5/8 of a
		// group's pairs, the second's 3/8 (a round that would leave more
		// leaves its list to the XYZZ kernel: a round halves a list whose
		// buckets hold more than a few entries).
		rnd_cap[0] = rnd_cap[1] = rnd_slots = rnd_threads = rnd_threads2 = 0;
		if (rounds) {
			const size_t listed = std::min(pairs, group_cap);
			rnd_cap[0] = listed / 8 * 5 + 64;
			rnd_cap[1] = listed / 8 * 3 + 64;
			rnd_slots = (listed + 1) / 2 + 1;
			rnd_threads = (rnd_slots + ROUNDS_K - 1) / ROUNDS_K;
			rnd_threads2 = (rnd_threads + ROUNDS_LEVEL_K_MIN - 1) / ROUNDS_LEVEL_K_MIN;
			size_t scan_bytes = 0;
			cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, (uint32_t *)nullptr, (uint32_t *)nullptr,
						      (int)(rnd_slots + 1));
			cub_bytes = std::max(cub_bytes, scan_bytes);
		}
		const size_t P = sizeof(xyzz_t<F>);
		size_t off = 0;
		auto take = [&](size_t bytes) {
			size_t at = off;
			off += (bytes + 255) & ~size_t(255);
			return at;
		};
		ones_idx = take(4 * n);
		dense_idx = take(4 * n);
		kinds = take(n);
		// Where the rounds make a large MSM's accumulation short enough
		// for its per-group pairs to count, fold the scalars once.
		nfolded = rounds ? n : 0;
		folded = take(32 * nfolded);
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
		result = take(sizeof(jacobian_t<F>) * (MAX_LEVELS * MAX_WINDOWS + 1));
		twod = take(P * ntwod);
		aff_entries = affine_from_env<F>(false) ? affine::list_entries(pairs, CHUNKS_CAP) : 0;
		aff_pts = take(sizeof(affine_t<F>) * aff_entries);
		aff_keys = take(sizeof(uint32_t) * aff_entries);
		const size_t E = sizeof(F);   // the products' planes: one element each
		for (int i = 0; i < 2; i++) {
			rnd_pts[i] = take(sizeof(affine_t<F>) * rnd_cap[i]);
			rnd_keys[i] = take(4 * rnd_cap[i]);
		}
		rnd_vals = take(4 * std::max(rnd_cap[0], rnd_cap[1]));
		rnd_flags = take(4 * (rnd_slots + 1));
		rnd_before = take(4 * (rnd_slots + 1));
		rnd_pre = take(E * rnd_slots);
		rnd_q = take(E * rnd_threads);
		rnd_qpre = take(E * rnd_threads);
		rnd_qinv = take(E * rnd_threads);
		rnd_q2 = take(E * rnd_threads2);
		rnd_count = take(sizeof(unsigned long long));
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

// The ones as (key, value) pairs of one bucket, key 0, value index·2 (no
// sign): the accumulation, and before it the rounds, sum them as they sum a
// sort group's bucket.
static __global__ void __launch_bounds__(BLOCK) ones_pairs(const uint32_t *idx, size_t count, uint32_t *keys,
							   uint32_t *vals)
{
	size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (e >= count)
		return;
	keys[e] = 0;
	vals[e] = idx[e] << 1;
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

// The dense scalars in their order, canonical and folded, as four planes
// of 64-bit limbs (limb j of scalar k at planes[j·stride + k]), the fold's
// sign in bit 31 of the point's index (an MSM has at most 2^28 points).
// With them make_pairs reads only the limbs its windows and their carry
// need, 8 or 16 contiguous bytes a point, instead of gathering the caller's
// 32-byte scalar and converting it (Montgomery form, the fold) once per
// sort group: a 2^27 MSM has 12 groups.
constexpr uint32_t FOLDED_NEG = 1u << 31;
static __global__ void __launch_bounds__(BLOCK) fold_dense(const uint64_t *scalars, bool mont, uint32_t *dense,
						    size_t m, size_t stride, uint64_t *planes)
{
	size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (k >= m)
		return;
	const uint32_t i = dense[k];
	uint64_t s[4];
	msm_scalar::load(s, scalars, i, mont);
	if (msm_scalar::fold(s))
		dense[k] = i | FOLDED_NEG;
#pragma unroll
	for (int j = 0; j < 4; j++)
		planes[j * stride + k] = s[j];
}

// Signed digits of dense scalar k for windows [w0, w0 + g) as (key, value)
// pairs at entry (w - w0)·m + k.  key = (w - w0)·2^(c-1) + |d| - 1, or the
// sentinel g·2^(c-1) (sorted last, skipped) for a zero digit; value = point
// index·2 + sign.  Window w has window_width(c, wide, w) bits.
// from: where window w0 starts and the carry into it (plan.cuh, carry_at).
// planes: fold_dense's scalars (stride apart), of which the group reads
// limbs (plan.cuh, group_limbs), or null to load and fold the caller's here.
static __global__ void __launch_bounds__(BLOCK) make_pairs(const uint64_t *scalars, bool mont, const uint32_t *dense,
						    const uint64_t *planes, size_t stride, size_t m, unsigned c,
						    unsigned wide, unsigned w0, unsigned g, carry_start from,
						    limb_range limbs, uint32_t *keys, uint32_t *vals)
{
	size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (k >= m)
		return;
	uint32_t i = dense[k], neg, carry;
	uint64_t s[4];
	if (planes) {
		neg = i & FOLDED_NEG ? 1 : 0;
		i &= ~FOLDED_NEG;
#pragma unroll
		for (unsigned j = 0; j < 4; j++)
			s[j] = j >= limbs.lo && j <= limbs.hi ? planes[j * stride + k] : 0;
		carry = msm_scalar::carry_in_limbs(
			[&](int j) { return unsigned(j) >= limbs.lo ? s[j] : planes[j * stride + k]; }, from.off,
			from.h);
	} else {
		msm_scalar::load(s, scalars, i, mont);
		neg = msm_scalar::fold(s) ? 1 : 0;
		carry = msm_scalar::carry_in(s, from.off, from.h);
	}
	const uint32_t sentinel = g << (c - 1);
	for (unsigned w = w0, off = from.off; w < w0 + g; w++) {
		const unsigned cw = window_width(c, wide, w);
		const msm_scalar::digit_t d = msm_scalar::signed_digit(s, off, cw, carry);
		off += cw;
		size_t e = size_t(w - w0) * m + k;
		keys[e] = d.mag ? ((w - w0) << (c - 1)) + d.mag - 1 : sentinel;
		vals[e] = (i << 1) | (uint32_t(d.neg) ^ neg);
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
// of the compiled forms of Fp (msm/fp_impl.cuh), same bytes as F.  Each
// pair's loads are read where they are used: the next point staged in
// shared memory by cp.async gave nothing (2026-12-02), the next pair loaded
// ahead and its point prefetched into L1 was 5.5% slower for G1 (one H100,
// 2026-12-06; docs/BENCHMARKS.md).
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

// Runs of at most this many chunks after their owner are summed by the
// owner itself (fixup): one addition per continued chunk, where the scan
// costs one per continued chunk per step (random scalars at 2^16: runs of
// 2-3 chunks of ~20 pairs, nearly every chunk continued).
constexpr uint32_t DIRECT_RUN = 4;

// A bucket may span many chunks (equal or structured scalars put most pairs
// of a window in one bucket), so where some run is longer than DIRECT_RUN
// the heads are summed by a segmented inclusive scan over the chunks
// (Hillis-Steele, log2 steps), not by one thread in sequence.  Step d:
// out[j] = in[j] + in[j - d] when chunk j - d continues the same bucket;
// only continuing chunks take part.
template <class F>
__global__ void __launch_bounds__(BLOCK) heads_scan(const uint32_t *keys, size_t npairs, size_t per, size_t nchunks,
						    uint32_t nbuckets, const xyzz_t<F> *in_f, xyzz_t<F> *out_f,
						    size_t d, const uint32_t *max_run)
{
	if (d >= *max_run || *max_run <= DIRECT_RUN)
		return;   // the scan is complete (out == in) or not needed
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
// heads of the chunks it reaches (no run longer than DIRECT_RUN), or plus
// the scanned heads of the last one.  The scan wrote heads1, then heads0,
// ... for as many steps as did work (d = 1, 2, 4, ... below *max_run), so
// the parity of that count says where it ended.
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
	const uint32_t longest = *max_run;
	size_t hi = (t + 1) * per;
	xyzz_t<A> acc = as_arith<A>(tails_f)[t];
	if (longest <= DIRECT_RUN) {
		for (size_t j = t + 1; j <= ends[t]; j++)
			add(acc, as_arith<A>(heads0_f)[j]);
	} else {
		unsigned steps = 0;
		for (size_t d = 1; d < longest; d <<= 1)
			steps++;
		const xyzz_t<F> *scanned_f = steps & 1 ? heads1_f : heads0_f;
		add(acc, as_arith<A>(scanned_f)[ends[t]]);
	}
	as_arith<A>(buckets_f)[keys[hi - 1]] = acc;
}

// One level of the window reduction (window_levels): block (c, w) takes
// chunk c of window w's items, in[w·stride + j] for j in [c·seg, (c+1)·seg)
// and below count, k to a thread, and writes
// a[w·nseg + c] = Σ (j - c·seg + 1)·x_j and r[w·nseg + c] = Σ x_j.
// Thread t's items give a_t (weights 1..k) and r_t; the chunk's A is
// Σ a_t + k·Σ_t t·r_t = Σ (a_t + k·S_t) with S_t = Σ_{t' >= t} r_t' for t >= 1:
// one suffix scan, k·S_t by doublings, one tree.
// Up to two such problems side by side (the two-dimensional reduction's
// weighted sums), blockIdx.z picking one, same k and block shape.
template <class F> struct chunk_job {
	const xyzz_t<F> *in;
	size_t stride;
	uint32_t count;
	xyzz_t<F> *a, *r;
};
template <class F> struct chunk_jobs {
	chunk_job<F> job[2];
};

template <class F>
__global__ void __launch_bounds__(chunk_threads<F>::value) window_chunk(chunk_jobs<F> jobs, uint32_t k, uint32_t nseg)
{
	using A = typename reduce_arith<F>::type;
	__shared__ xyzz_t<A> sh[chunk_threads<F>::value];
	const unsigned T = blockDim.x, t = threadIdx.x;   // a power of two, at most the array
	const uint32_t c = blockIdx.x, w = blockIdx.y;
	const chunk_job<F> &job = jobs.job[blockIdx.z];
	const uint32_t count = job.count;
	xyzz_t<F> *const a_f = job.a, *const r_f = job.r;
	const xyzz_t<A> *x = as_arith<A>(job.in) + size_t(w) * job.stride;
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

template <class A> __device__ __forceinline__ void shfl_xor_point(xyzz_t<A> &p, unsigned lanes)
{
	static_assert(sizeof(xyzz_t<A>) % 4 == 0, "points are whole 32-bit words");
	uint32_t *w = reinterpret_cast<uint32_t *>(&p);
	xyzz_t<A> q;
	uint32_t *v = reinterpret_cast<uint32_t *>(&q);
#pragma unroll
	for (unsigned i = 0; i < sizeof(xyzz_t<A>) / 4; i++)
		v[i] = __shfl_xor_sync(0xffffffffu, w[i], lanes);
	add(p, q);
}

// Block row (x, w): threads [x·blockDim, ...) of window w's twod_shape: the
// first R·lr sum rows (lr lanes a row, kr consecutive buckets each), those
// from col0 sum columns (lc lanes a column, kc buckets each, C apart).
// rows[w·R + h] = Row_h, cols[w·C + l] = Col_l.
template <class F>
__global__ void __launch_bounds__(BLOCK) window_rows_cols(const xyzz_t<F> *in_f, size_t stride, twod_shape sh,
							  xyzz_t<F> *rows_f, xyzz_t<F> *cols_f)
{
	using A = typename reduce_arith<F>::type;
	const unsigned g = blockIdx.x * blockDim.x + threadIdx.x, w = blockIdx.y;
	const xyzz_t<A> *x = as_arith<A>(in_f) + size_t(w) * stride;
	xyzz_t<A> acc;
	set_inf(acc);
	unsigned lanes = 0, out = 0;
	xyzz_t<A> *dst = nullptr;
	if (g < sh.R * sh.lr) {
		const unsigned h = g / sh.lr, q = g % sh.lr;
		for (unsigned i = 0; i < sh.kr; i++)
			add(acc, x[size_t(h) * sh.C + q * sh.kr + i]);
		lanes = sh.lr;
		out = w * sh.R + h;
		dst = as_arith<A>(rows_f);
	} else if (g >= sh.col0 && g < sh.threads) {
		const unsigned l = (g - sh.col0) / sh.lc, q = (g - sh.col0) % sh.lc;
		for (unsigned i = 0; i < sh.kc; i++)
			add(acc, x[size_t(q * sh.kc + i) * sh.C + l]);
		lanes = sh.lc;
		out = w * sh.C + l;
		dst = as_arith<A>(cols_f);
	}
	// a warp holds rows' lanes or columns' (col0 is warp-aligned), or
	// neither; every lane takes part in the shuffles
	const unsigned warp_lanes = __shfl_sync(0xffffffffu, lanes, 0) | __shfl_sync(0xffffffffu, lanes, 31);
	for (unsigned d = 1; d < warp_lanes; d <<= 1)
		shfl_xor_point(acc, d);
	if (dst && g % lanes == 0)
		dst[out] = acc;
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

// Every level's window sums (sums[L·MAX_WINDOWS + w], L < levels, w < windows)
// then the ones' sum, as Jacobian points in a row, for the host.
template <class F>
__global__ void __launch_bounds__(32) levels_to_jacobian(const xyzz_t<F> *sums, unsigned levels, unsigned windows,
							 const xyzz_t<F> *ones, jacobian_t<F> *out)
{
	// in the reductions' form of the field (plain fp_t products took
	// 30 us for one warp's four)
	using A = typename reduce_arith<F>::type;
	static_assert(sizeof(jacobian_t<A>) == sizeof(jacobian_t<F>), "the arithmetic type must keep the field's layout");
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	jacobian_t<A> *o = reinterpret_cast<jacobian_t<A> *>(out);
	if (t < levels * windows)
		o[t] = to_jacobian(as_arith<A>(sums)[size_t(t / windows) * MAX_WINDOWS + t % windows]);
	else if (t == levels * windows)
		o[t] = to_jacobian(*as_arith<A>(ones));
}

// Σ_w 2^(o_w)·S_w by Horner (o_w: the bits of the windows below w), plus the ones, as Jacobian (one thread: for
// callers without host curve code).
template <class F>
__global__ void __launch_bounds__(1) finish(const xyzz_t<F> *wsums, unsigned windows, unsigned c, unsigned wide,
					    const xyzz_t<F> *ones, jacobian_t<F> *out)
{
	xyzz_t<F> acc;
	set_inf(acc);
	for (unsigned w = windows; w-- > 0;) {
		if (!is_inf(acc))
			for (unsigned b = 0; b < window_width(c, wide, w); b++)
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
	unsigned c = 0, windows = 0, group = 0, wide = 0;
	unsigned rounds = 0;   // the batch-affine rounds a group may take (0: XYZZ alone)
	size_t ones = 0, dense = 0;
};

// $CUZK_MSM_PROFILE=1: every MSM prints its phases to stderr (diagnostics of
// whole proofs, where no benchmark collects them).
inline void print_profile(const profile_t &p, size_t n, const char *curve)
{
	static const char *names[PH_COUNT] = {"split", "ones", "pairs", "sort", "accumulate", "windows", "finish"};
	fprintf(stderr, "msm %s n=%zu c=%u windows=%u (%u of c bits) rounds=%u ones=%zu dense=%zu:", curve, n, p.c,
		p.windows, p.wide, p.rounds, p.ones, p.dense);
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

// The MSM on the host from its per-level window sums (levels_to_jacobian's
// row, host layout): window w's value is Σ_L 2^(e_L)·A_{L,w} (e_L: the
// log2 seg of the levels below L, window_levels), so the result is
// Σ_{L,w} 2^(o_w + e_L)·A_{L,w} + ones (o_w: the bits of the windows below
// w), one Horner over every term by descending exponent.  The doublings
// are those of the top window's terms, as with one sum a window; the
// levels cost an addition each instead of window_combine's dependent
// doublings on the device.
template <class F>
void host_horner(const host_curve<F> &hc, const jacobian_t<F> *jac, unsigned levels, const unsigned *e,
		 unsigned windows, unsigned c, unsigned wide, jacobian_t<F> *out)
{
	static_assert(sizeof(jacobian_t<F>) % sizeof(uint64_t) == 0, "Jacobian points are whole u64 words");
	struct term {
		unsigned exp, idx;
	};
	term terms[MAX_LEVELS * MAX_WINDOWS];
	unsigned nt = 0;
	for (unsigned w = 0, o = 0; w < windows; o += window_width(c, wide, w), w++)
		for (unsigned L = 0; L < levels; L++)
			if (!is_zero(jac[L * windows + w].Z))
				terms[nt++] = {o + e[L], L * windows + w};
	std::sort(terms, terms + nt, [](const term &a, const term &b) { return a.exp > b.exp; });
	jacobian_t<F> acc{};   // infinity: Z = 0
	uint64_t *a = reinterpret_cast<uint64_t *>(&acc);
	unsigned at_exp = 0;   // acc is Σ terms·2^(exp - at_exp)
	for (unsigned i = 0; i < nt; i++) {
		if (i)
			for (unsigned b = terms[i].exp; b < at_exp; b++)
				hc.dbl(a);
		at_exp = terms[i].exp;
		hc.acc(a, reinterpret_cast<const uint64_t *>(&jac[terms[i].idx]));
	}
	if (nt)
		for (unsigned b = 0; b < at_exp; b++)
			hc.dbl(a);
	const jacobian_t<F> &ones = jac[levels * windows];
	if (!is_zero(ones.Z))
		hc.acc(a, reinterpret_cast<const uint64_t *>(&ones));
	*out = acc;
}

// One batch of a batched MSM (msm.cuh, cuzk_msm_g1_batch): n_total points
// in all; the first batch clears the running sums, the last reduces them
// into h_out (which the others leave alone).
struct batch_t {
	size_t n_total, n_batch, n_dense;   // cuzk_msm_batch_shape
	bool first, last;
	void *running;   // running_layout(n_total).total bytes, untouched between the batches
};

template <class F>
void run(const void *d_bases, const void *d_scalars, size_t n, bool mont, jacobian_t<F> *h_out, void *d_scratch,
	 size_t scratch_bytes, cudaStream_t s, profile_t *prof = nullptr, const cuzk_gpu_host_ops *ops = nullptr,
	 const batch_t *batch = nullptr)
{
	using P = xyzz_t<F>;
	if (n > (size_t(1) << 28) || (batch && batch->n_total > (size_t(1) << 28)))
		gpu_fail(CUZK_E_INVAL, "msm: %zu points is more than the 2^28 supported", batch ? batch->n_total : n);
	if (batch && (n == 0 || n > batch->n_total || n > batch->n_batch))
		gpu_fail(CUZK_E_INVAL, "msm: a batch of %zu points in an MSM of %zu in batches of at most %zu", n,
			 batch->n_total, batch->n_batch);
	if (batch && (!batch->running || reinterpret_cast<uintptr_t>(batch->running) % 256))
		gpu_fail(CUZK_E_INVAL, "msm: a batched MSM needs its running sums' memory, 256-byte aligned");
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
	const size_t n_total = batch ? batch->n_total : 0;
	scratch_layout<F> L(n, n_total);
	if (!d_scratch || scratch_bytes < L.total)
		gpu_fail(CUZK_E_INVAL, "msm: scratch of %zu bytes, %zu needed for %zu points", scratch_bytes,
			 L.total, n);
	// The rounds where the caller gave the scratch they need.
	if (!L.rnd_cap[0] && rounds_in_layout<F>(n, n_total, true)) {
		const scratch_layout<F> fast(n, n_total, true);
		if (scratch_bytes >= fast.total)
			L = fast;
	}
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
	const unsigned forced_windows = windows_from_env();
	const plan_t batch_plan = batch ? make_batched_plan(batch->n_total, batch->n_batch, batch->n_dense, n,
							    forced_windows, c_batched_from_env())
					: plan_t{};
	const running_layout<F> RL(batch ? batch->n_total : 0);
	if (batch && RL.buckets + size_t(batch_plan.windows) * batch_plan.buckets * sizeof(P) > RL.total)
		gpu_fail(CUZK_E_INTERNAL, "msm: a batched plan of %u windows of 2^%u buckets outgrows its running sums",
			 batch_plan.windows, batch_plan.c - 1);
	char *running = batch ? static_cast<char *>(batch->running) : nullptr;
	P *run_buckets = batch ? reinterpret_cast<P *>(running + RL.buckets) : nullptr;
	P *run_ones = batch ? reinterpret_cast<P *>(running + RL.ones) : nullptr;
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

	rounds_scratch rounds_sc{};
	if (L.rnd_cap[0]) {
		for (int i = 0; i < 2; i++) {
			rounds_sc.pts[i] = static_cast<uint4 *>(at(L.rnd_pts[i]));
			rounds_sc.keys[i] = static_cast<uint32_t *>(at(L.rnd_keys[i]));
		}
		rounds_sc.vals = static_cast<uint32_t *>(at(L.rnd_vals));
		rounds_sc.flags = static_cast<uint32_t *>(at(L.rnd_flags));
		rounds_sc.before = static_cast<uint32_t *>(at(L.rnd_before));
		rounds_sc.pre = static_cast<uint4 *>(at(L.rnd_pre));
		rounds_sc.q = static_cast<uint4 *>(at(L.rnd_q));
		rounds_sc.qpre = static_cast<uint4 *>(at(L.rnd_qpre));
		rounds_sc.qinv = static_cast<uint4 *>(at(L.rnd_qinv));
		rounds_sc.q2 = static_cast<uint4 *>(at(L.rnd_q2));
		rounds_sc.count = static_cast<unsigned long long *>(at(L.rnd_count));
		rounds_sc.cub_tmp = at(L.cub_tmp);
		rounds_sc.cub_bytes = L.cub_bytes;
		rounds_sc.cap[0] = L.rnd_cap[0];
		rounds_sc.cap[1] = L.rnd_cap[1];
		rounds_sc.slots = L.rnd_slots;
		rounds_sc.threads = L.rnd_threads;
		rounds_sc.threads2 = L.rnd_threads2;
		rounds_sc.level_k = rounds_level_k();
		rounds_sc.rounds = rounds_count();
		rounds_sc.min_pairs = rounds_min_pairs();
	}

	phase_clock clock(prof, s);

	// 1. split: indices of the ones and of the rest, in order
	msm_scalar::kind *kinds = static_cast<msm_scalar::kind *>(at(L.kinds));
	classify<<<blocks_for(n, BLOCK), BLOCK, 0, s>>>(scalars, mont, n, kinds);
	CUDA_LAUNCHED("msm classify");
	thrust::counting_iterator<uint32_t> idx(0);
	size_t tmp_bytes = L.cub_bytes;
	CUDA_OK(cub::DeviceSelect::If(at(L.cub_tmp), tmp_bytes, idx, ones_idx, d_counts, (int)n,
				      kind_is{kinds, msm_scalar::kind::one}, s));
	tmp_bytes = L.cub_bytes;
	CUDA_OK(cub::DeviceSelect::If(at(L.cub_tmp), tmp_bytes, idx, dense_idx, d_counts + 1, (int)n,
				      kind_is{kinds, msm_scalar::kind::other}, s));
	int counts[2];
	CUDA_OK(cudaMemcpyAsync(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost, s));
	CUDA_OK(cudaStreamSynchronize(s));   // the sizes below depend on the split
	const size_t m1 = size_t(counts[0]), m = size_t(counts[1]);
	uint64_t *folded = L.nfolded && fold_from_env() ? static_cast<uint64_t *>(at(L.folded)) : nullptr;
	if (folded && m) {
		fold_dense<<<blocks_for(m, BLOCK), BLOCK, 0, s>>>(scalars, mont, dense_idx, m, L.nfolded, folded);
		CUDA_LAUNCHED("msm fold_dense");
	}
	clock.mark(PH_SPLIT);

	// Sums sorted (key, point index·2 + sign) pairs into nb buckets: the
	// rounds shorten the list where the scratch has their lists, then the
	// XYZZ kernel (or the per-thread batch-affine one) sums runs of it, a
	// bucket continued over several threads joined by heads_scan and fixup.
	auto sum_sorted = [&](const uint32_t *keys, const uint32_t *vals, size_t npairs, uint32_t nb, P *buckets) {
		P *heads[2] = {static_cast<P *>(at(L.heads[0])), static_cast<P *>(at(L.heads[1]))};
		P *tails = static_cast<P *>(at(L.tails));
		CUDA_OK(cudaMemsetAsync(buckets, 0, size_t(nb) * sizeof(P), s));
		// With the rounds, the XYZZ kernel sums the list they leave.
		const uint4 *acc_bases = bases;
		const uint32_t *acc_vals = vals;
		if (rounds_sc.rounds) {
			const rounds_result rr = affine_rounds<F>(bases, keys, vals, npairs, nb, rounds_sc, s);
			acc_bases = rr.bases;
			keys = rr.keys;
			acc_vals = rr.vals;
			npairs = rr.npairs;
		}
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
			accumulate_k<<<blocks_for(nchunks, BLOCK), BLOCK, 0, s>>>(acc_bases, keys, acc_vals, npairs, per,
										   nchunks, nb, buckets, heads[0], tails);
			CUDA_LAUNCHED("msm accumulate");
		}
		if (nb == 1) {
			// One bucket: the ones (a window group has 2^(C_MIN-1) or
			// more), with no sentinels (the rounds drop theirs).  Chunk 0
			// leaves its sum in tails[0] and every later chunk in heads[t],
			// so the bucket is the tree of those sums; the segmented scan
			// would take log2(chunks) steps of a grid of additions each,
			// ~1 ms a witness-shaped MSM whatever its size.
			if (nchunks > 1) {
				CUDA_OK(cudaMemcpyAsync(heads[0], tails, sizeof(P), cudaMemcpyDeviceToDevice, s));
				sum_rows<F>(heads[0], 1, nchunks, buckets, red0, red1, s);
			}
			return;
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
	};

	// 2. the ones: one bucket of the accumulation where its pair lists
	// hold them (the rounds' affine additions and the accumulation's
	// occupancy, where sum_listed ran two blocks an SM), else sum_listed.
	if (m1 && m1 <= L.pairs && !ones_listed_from_env()) {
		uint32_t *k0 = static_cast<uint32_t *>(at(L.keys[0])), *v0 = static_cast<uint32_t *>(at(L.vals[0]));
		ones_pairs<<<blocks_for(m1, BLOCK), BLOCK, 0, s>>>(ones_idx, m1, k0, v0);
		CUDA_LAUNCHED("msm ones_pairs");
		sum_sorted(k0, v0, m1, 1, ones_sum);
	} else if (m1) {
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
	plan_t pl = batch ? batch_plan
			  : make_whole_plan(bitlen(m), rounds_sc.rounds, forced_windows);
	if (rounds_sc.rounds)
		pl.group = rounds_group<F>(pl.group, m);   // as scratch_layout sized the lists
	// A batched MSM reduces all its windows at the end, whatever this batch had.
	unsigned windows = batch || m ? pl.windows : 0;
	for (unsigned w0 = 0; m && w0 < windows; w0 += pl.group) {
		const unsigned g = w0 + pl.group <= windows ? pl.group : windows - w0;
		size_t npairs = m * g;   // the rounds shorten it
		if (npairs > L.pairs)
			gpu_fail(CUZK_E_INTERNAL, "msm: a group of %zu pairs (%zu points, %u windows) in scratch for %zu",
				 npairs, m, g, L.pairs);
		const uint32_t nb = uint32_t(g * pl.buckets);
		uint32_t *k0 = static_cast<uint32_t *>(at(L.keys[0])), *k1 = static_cast<uint32_t *>(at(L.keys[1]));
		uint32_t *v0 = static_cast<uint32_t *>(at(L.vals[0])), *v1 = static_cast<uint32_t *>(at(L.vals[1]));
		const carry_start from = carry_at(pl.c, pl.wide, w0);
		make_pairs<<<blocks_for(m, BLOCK), BLOCK, 0, s>>>(scalars, mont, dense_idx, folded, L.nfolded, m, pl.c,
								   pl.wide, w0, g, from,
								   group_limbs(pl.c, pl.wide, w0, g, from.off), k0, v0);
		CUDA_LAUNCHED("msm make_pairs");
		clock.mark(PH_PAIRS);
		cub::DoubleBuffer<uint32_t> kb(k0, k1), vb(v0, v1);
		int end_bit = int(pl.c - 1 + bitlen(g));
		tmp_bytes = L.cub_bytes;
		CUDA_OK(cub::DeviceRadixSort::SortPairs(at(L.cub_tmp), tmp_bytes, kb, vb, (int)npairs, 0, end_bit, s));
		const uint32_t *keys = kb.Current(), *vals = vb.Current();
		clock.mark(PH_SORT);

		P *buckets = static_cast<P *>(at(L.buckets)) + size_t(w0) * pl.buckets;
		sum_sorted(keys, vals, npairs, nb, buckets);
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
	const host_curve<F> hc(ops);
	level_segs lv{0, {}};
	// All windows' buckets are kept, so their reduction is one wide launch.
	if (windows) {
		P *sums = static_cast<P *>(at(L.lvl_sums));
		const P *in = batch ? run_buckets : static_cast<const P *>(at(L.buckets));
		if (pl.buckets <= TWOD_ITEMS) {
			const twod_shape sh(pl.buckets, windows);
			P *rows = static_cast<P *>(at(L.twod)), *cols = rows + size_t(windows) * sh.R;
			P *unused_r = cols + size_t(windows) * sh.C;
			window_rows_cols<F><<<dim3(blocks_for(sh.threads, BLOCK), windows), BLOCK, 0, s>>>(
				in, pl.buckets, sh, rows, cols);
			CUDA_LAUNCHED("msm window_rows_cols");
			// Σ (l + 1)·Col_l as level 0, Σ h·Row_h as level 1 (times C)
			// (R - 1 >= C items: one shape for both)
			const window_levels wr(windows, sh.R - 1 > sh.C ? sh.R - 1 : sh.C, chunk_threads<F>::value);
			const chunk_jobs<F> jobs{{{cols, sh.C, sh.C, sums, unused_r},
						  {rows + 1, sh.R, sh.R - 1, sums + MAX_WINDOWS, unused_r + windows}}};
			window_chunk<F><<<dim3(1, windows, 2), wr.thr[0], 0, s>>>(jobs, wr.k[0], 1);
			CUDA_LAUNCHED("msm window_chunk");
			lv.count = 2;
			lv.log_seg[0] = bitlen(sh.C) - 1;
		} else {
			const window_levels wl(windows, pl.buckets, chunk_threads<F>::value);
			P *la = static_cast<P *>(at(L.lvl_a)), *lr = static_cast<P *>(at(L.lvl_r));
			size_t stride = pl.buckets;
			lv.count = wl.count;
			for (unsigned lvl = 0; lvl < wl.count; lvl++) {
				const uint32_t nseg = wl.nseg[lvl];
				const chunk_jobs<F> jobs{{{in, stride, wl.items[lvl], la, lr}, {}}};
				window_chunk<F><<<dim3(nseg, windows), wl.thr[lvl], 0, s>>>(jobs, wl.k[lvl], nseg);
				CUDA_LAUNCHED("msm window_chunk");
				sum_rows<F>(la, windows, nseg, sums + size_t(lvl) * MAX_WINDOWS, red0, red1, s);
				lv.log_seg[lvl] = bitlen(wl.seg[lvl]) - 1;
				in = lr + 1;   // the next level's items: R_1, R_2, ...
				stride = nseg;
				la += size_t(windows) * nseg;
				lr += size_t(windows) * nseg;
			}
		}
		if (!hc.usable()) {
			window_combine<F><<<blocks_for(windows, 32), 32, 0, s>>>(sums, windows, lv, wsums);
			CUDA_LAUNCHED("msm window_combine");
		}
		clock.mark(PH_WINDOWS);
	}
	if (hc.usable()) {
		// every level's window sums then the ones', as Jacobian, to the host
		const unsigned levels = windows ? lv.count : 0, nj = levels * windows + 1;
		levels_to_jacobian<F><<<blocks_for(nj, 32), 32, 0, s>>>(static_cast<const P *>(at(L.lvl_sums)), levels,
									   windows, ones_src, d_result);
		CUDA_LAUNCHED("msm levels_to_jacobian");
		std::vector<jacobian_t<F>> jac(nj);
		CUDA_OK(cudaMemcpyAsync(jac.data(), d_result, sizeof(jacobian_t<F>) * nj, cudaMemcpyDeviceToHost, s));
		clock.mark(PH_FINISH);
		CUDA_OK(cudaStreamSynchronize(s));
		const auto t0 = std::chrono::steady_clock::now();
		unsigned e[MAX_LEVELS] = {};
		for (unsigned L = 1; L < levels; L++)
			e[L] = e[L - 1] + lv.log_seg[L - 1];
		host_horner(hc, jac.data(), levels, e, windows, pl.c, pl.wide, h_out);
		clock.collect();
		if (prof)
			prof->ms[PH_FINISH] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
	} else {
		finish<F><<<1, 1, 0, s>>>(wsums, windows, pl.c, pl.wide, ones_src, d_result);
		CUDA_LAUNCHED("msm finish");
		CUDA_OK(cudaMemcpyAsync(h_out, d_result, sizeof(jacobian_t<F>), cudaMemcpyDeviceToHost, s));
		clock.mark(PH_FINISH);
		CUDA_OK(cudaStreamSynchronize(s));
		clock.collect();
	}
	if (prof) {
		prof->c = windows ? pl.c : 0;
		prof->wide = windows ? pl.wide : 0;
		prof->windows = windows;
		prof->group = windows ? pl.group : 0;
		prof->rounds = rounds_sc.rounds;
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
	extern "C" size_t cuzk_msm_##name##_scratch_bytes_fast(size_t n)                              \
	{                                                                                             \
		return cuzk::msm::scratch_layout<F>(n, 0, true).total;                               \
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
	extern "C" size_t cuzk_msm_##name##_batch_running_bytes(size_t n_total)                       \
	{                                                                                             \
		return cuzk::msm::running_layout<F>(n_total).total;                                  \
	}                                                                                             \
	extern "C" int cuzk_msm_##name##_batch(const void *d_bases, const void *d_scalars, size_t n, \
					     const cuzk_msm_batch_shape *shape, int flags,            \
					     int scalars_montgomery, void *h_out_jac,                 \
					     const cuzk_gpu_host_ops *ops, void *d_running,           \
					     void *d_scratch, size_t scratch_bytes, cudaStream_t s,   \
					     cuzk_error *err)                                         \
	{                                                                                             \
		return cuzk::gpu_entry(err, [&] {                                            \
			if (!shape)                                                                   \
				cuzk::gpu_fail(CUZK_E_INVAL, "msm: a batched MSM without its shape"); \
			const cuzk::msm::batch_t b{shape->n_total, shape->n_batch, shape->n_dense,     \
						   (flags & CUZK_MSM_FIRST) != 0,                      \
						   (flags & CUZK_MSM_LAST) != 0, d_running};           \
			cuzk::msm::run<F>(d_bases, d_scalars, n, scalars_montgomery != 0,              \
					  static_cast<cuzk::jacobian_t<F> *>(h_out_jac), d_scratch,     \
					  scratch_bytes, s, nullptr, ops, &b);                          \
		});                                                                                   \
	}

#endif
