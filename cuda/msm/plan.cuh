// SPDX-License-Identifier: Apache-2.0 OR MIT
// The MSM's plan (msm/pippenger.cuh): how many windows, how wide, how many
// sorted at once, from the number of dense scalars.  Host code, and the
// window widths for the device; no CUDA headers, so that the CPU tests
// (cuda/msm/test_plan_host) check it in every build.
#ifndef CUZK_CUDA_MSM_PLAN_CUH
#define CUZK_CUDA_MSM_PLAN_CUH

#include <cstddef>
#include <cstdint>

#include "ff/hd.cuh"

namespace cuzk {
namespace msm {

// Windows of C_MIN to C_MAX bits.  C_MAX bounds bucket memory (2^(c-1)
// slots per window: 12 windows of 21-22 bits, the model's choice from 2^26,
// take 4.8 GB of G1 buckets).
constexpr unsigned C_MIN = 4, C_MAX = 22;
// (bucket, point) pairs sorted at once; windows are grouped to stay below it.
// 2^28 pairs = 4 GiB of sort buffers (keys and values, double buffered).
constexpr size_t PAIRS_CAP = size_t(1) << 28;
constexpr unsigned MAX_WINDOWS = (255 + C_MIN - 1) / C_MIN;
static_assert(C_MAX <= 24 && C_MIN >= 4, "digits and keys are packed in 32 bits; narrow windows have c - 1 >= 3 bits");

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
	unsigned c = 0, windows = 0, group = 0;   // widest window's bits, windows, windows per sort
	unsigned wide = 0;                         // windows of c bits (the first); the rest have c - 1
	size_t buckets = 0;                        // 2^(c-1) slots per window
};

// The windows share the 255 bits (254 of a folded scalar, and the top
// window's headroom for the carry) as evenly as they can: `wide` windows of
// c bits, then c - 1.  Equal c-bit windows left the top one narrow (c = 13:
// bits 247-253), its few buckets holding ~2^(c-7) times the others' pairs.
CUZK_HD unsigned window_width(unsigned c, unsigned wide, unsigned w)
{
	return w < wide ? c : c - 1;
}

// Where the digits of a sort group start: the bit offset of window w0 and
// the threshold h for the carry into it.  A window's digit takes a carry
// to the next when its bits plus the carry in exceed half its range
// (msm_scalar::signed_digit), so by induction the carry into window w is
// 1 exactly when the scalar's bits below off_w, as a number, are at least
// h_w = 1 + Σ_{j<w} 2^(cw_j - 1)·2^off_j (h_w <= 2^off_w).  make_pairs
// then cuts only its group's windows, not every window below them too.
struct carry_start {
	uint64_t h[4];
	unsigned off;
};
inline carry_start carry_at(unsigned c, unsigned wide, unsigned w0)
{
	carry_start r{{1, 0, 0, 0}, 0};
	for (unsigned j = 0; j < w0; j++) {
		const unsigned cw = window_width(c, wide, j);
		// add 2^(cw - 1) at bit off + cw - 1 (below 2^256: h <= 2^off <= 2^255)
		const unsigned bit = r.off + cw - 1, k = bit / 64;
		uint64_t add = uint64_t(1) << (bit % 64);
		for (unsigned i = k; i < 4 && add; i++) {
			r.h[i] += add;
			add = r.h[i] < add ? 1 : 0;
		}
		r.off += cw;
	}
	return r;
}

// The 64-bit limbs [lo, hi] that sort group [w0, w0 + g) reads from
// fold_dense's planes: those holding its windows' bits (the last window may
// run past bit 255) and the one holding the bit just below off, which
// decides the carry unless it ties with the threshold (then carry_in_limbs
// reads lower limbs itself).  The same for every point: the host computes
// it once per group, and the CPU tests check it.
struct limb_range {
	unsigned lo, hi;
};
inline limb_range group_limbs(unsigned c, unsigned wide, unsigned w0, unsigned g, unsigned off)
{
	unsigned end = off;
	for (unsigned w = w0; w < w0 + g; w++)
		end += window_width(c, wide, w);
	return limb_range{off ? (off - 1) / 64 : 0, end > 256 ? 3 : (end - 1) / 64};
}

// Everything depends only on bitlen(m), so the worst case over m <= n is a
// maximum over at most 29 plans.  The cost model counts mixed additions in
// the buckets (m per window) against bucket reduction: ~5 mixed additions a
// bucket (two full additions and the traffic; H200, G1 2^26: 0.41 ns a
// mixed addition, 2.2 ns a bucket), a narrow window's upper slots empty and
// next to free.  forced: that many windows where their
// widest fits c_max bits (0: the model's choice).
inline plan_t make_plan(unsigned k, unsigned c_max = C_MAX, unsigned k_pairs = 0, unsigned forced = 0)
{
	if (!k_pairs)
		k_pairs = k;
	double m = k ? 0.75 * double(size_t(1) << k) : 0;
	const unsigned w_lo = (255 + c_max - 1) / c_max, w_hi = (255 + C_MIN - 1) / C_MIN;
	plan_t p;
	double best = 0;
	for (unsigned w = w_lo; w <= w_hi; w++) {
		const unsigned c = (255 + w - 1) / w, wide = 255 - w * (c - 1);
		const double slots = double(wide) * double(size_t(1) << (c - 1)) +
				     double(w - wide) * double(size_t(1) << (c - 2));
		const double cost = w * m + 5.0 * slots;
		if (!p.c || cost < best || w == forced) {
			best = cost;
			p.c = c;
			p.windows = w;
			p.wide = wide;
		}
		if (w == forced)
			break;
	}
	p.buckets = size_t(1) << (p.c - 1);
	size_t g = k_pairs >= 28 ? 1 : PAIRS_CAP >> k_pairs;   // m < 2^k_pairs, so m·g <= PAIRS_CAP
	p.group = unsigned(g < 1 ? 1 : g > p.windows ? p.windows : g);
	return p;
}

// A whole MSM's plan.  With the batch-affine rounds a pair costs less
// than the model's mixed addition, and the fuller a bucket the more of its
// points the rounds pair: for dense counts of bitlength 23 to 25, fifteen
// windows (c = 17: 2^16 buckets a window, reduced in two dimensions)
// measured faster than the model's 13 or 14 in both groups (G1 4-21%, G2
// 3-18%), and from 26 on the model's fewer windows win (one H100;
// docs/BENCHMARKS.md, "GPU MSM, 2026-12-06 (session of 19:36)").
constexpr unsigned ROUNDS_WINDOWS = 15, ROUNDS_WINDOWS_K_LO = 23, ROUNDS_WINDOWS_K_HI = 25;
inline plan_t make_whole_plan(unsigned k, bool rounds, unsigned forced = 0)
{
	if (!forced && rounds && k >= ROUNDS_WINDOWS_K_LO && k <= ROUNDS_WINDOWS_K_HI)
		forced = ROUNDS_WINDOWS;
	return make_plan(k, C_MAX, 0, forced);
}

// An MSM whose points come in batches (a streamed SRS: the points do not
// fit the device at once) keeps its buckets from batch to batch and reduces
// the windows once, after the last: one plan for the whole MSM, c at most
// C_BATCHED_MAX (two bucket arrays, the running one and the batch's, of 15
// windows x 2^16 XYZZ points: 189 MiB each for G1, 377 for G2; c = 18 has
// the same 15 windows, 19 would take 1.4 GiB each for G2), and the sort
// group from the batch's size.
constexpr unsigned C_BATCHED_MAX = 17;

// Each batch pays for every bucket of every window once more than a whole
// MSM does: the batch's buckets are summed into the running ones (an XYZZ
// addition and its traffic a bucket).  Where a batch has few dense scalars
// (a witness's 0/1 queries: ~10% of a PoRep partition's aux) that is most
// of its cost at c = 17, and fewer, narrower buckets win: a 2^27
// partition's l, a, b_g1 and b_g2 under a 16 GiB budget, streamed in
// batches of 2^22 points, took 177/135/46/126 ms at c = 17, 165/125/42/118
// at 15, 167/127/43/121 at 14, 170/129/43/124 at 13 and 180/137/46/130 at
// 12 (one H100; h, all dense, took 948 ms at 17 and 1029 at 15).  The
// model: w windows cost w pairs a dense scalar, and each of their bucket
// slots MERGE_PAIRS pairs a batch plus the model's 5 for the final
// reduction (make_plan), which those figures fit and which keeps c = 17
// for a dense MSM in 32 batches; in half as many batches (2^23 points,
// a 24 GiB budget) c = 15 measured within 1% of 17, where the model still
// takes 15, and a constant of 2 (which takes 16 there) measured the same
// as 4 (docs/BENCHMARKS.md, "Issue 10's figures, 2026-12-07, seventh and
// eighth sessions").  Windows narrower than C_BATCHED_MIN
// measured no faster and would cost the sort buffers 16 bytes a point of a
// batch for each window more.
constexpr unsigned C_BATCHED_MIN = 15;
constexpr double MERGE_PAIRS = 4.0;

// The widest window of a batched MSM of n_total points in batches of at
// most n_batch, about n_dense of whose scalars are neither 0 nor 1 (the
// ones and zeros take no pairs): the same for each of its batches, since
// it depends on those three alone.
inline unsigned batched_c_max(size_t n_total, size_t n_batch, size_t n_dense, unsigned c_max = C_BATCHED_MAX)
{
	const unsigned c_lo = c_max < C_BATCHED_MIN ? c_max : C_BATCHED_MIN;
	if (!n_batch || n_batch > n_total)
		n_batch = n_total;
	const double batches = n_batch ? double((n_total + n_batch - 1) / n_batch) : 1.0;
	const double m = double(n_dense < n_total ? n_dense : n_total);
	unsigned best_c = c_max;
	double best = 0;
	for (unsigned w = (255 + c_max - 1) / c_max; w <= (255 + c_lo - 1) / c_lo; w++) {
		const unsigned c = (255 + w - 1) / w, wide = 255 - w * (c - 1);
		const double slots = double(wide) * double(size_t(1) << (c - 1)) +
				     double(w - wide) * double(size_t(1) << (c - 2));
		const double cost = w * m + (MERGE_PAIRS * batches + 5.0) * slots;
		if (w == (255 + c_max - 1) / c_max || cost < best) {
			best = cost;
			best_c = c;
		}
	}
	return best_c;
}

// A batched MSM's plan for a batch of n_this points: the windows from the
// whole MSM (its total and batched_c_max), the sort group from the batch.
inline plan_t make_batched_plan(size_t n_total, size_t n_batch, size_t n_dense, size_t n_this, unsigned forced = 0,
				unsigned c_max = C_BATCHED_MAX)
{
	return make_plan(bitlen(n_total), batched_c_max(n_total, n_batch, n_dense, c_max), bitlen(n_this), forced);
}

// A sort group whose pairs are capped at `cap` (the batch-affine rounds'
// lists, pippenger.cuh): of the plan's `group` windows, as many as m points
// fill up to the cap, at least one.
inline unsigned capped_group(unsigned group, size_t m, size_t cap)
{
	const size_t g = m ? cap / m : cap;
	return g < 1 ? 1u : g < group ? unsigned(g) : group;
}
// The most pairs such a group holds for any m' <= m points under the same
// plan: a smaller m' may take more windows, so not m·capped_group(m) but
// the cap itself (or m, where one window of m is above it).
inline size_t capped_group_pairs(unsigned group, size_t m, size_t cap)
{
	const size_t most = m > cap ? m : cap;
	return m * group < most ? m * group : most;
}

// Windows of at most TWOD_ITEMS buckets are reduced in two dimensions
// instead of by levels: bucket j = C·h + l of a window (C columns, R rows,
// C <= R, both powers of two) has weight j + 1 = C·h + (l + 1), so
// V = C·Σ_h h·Row_h + Σ_l (l + 1)·Col_l.  The row and column sums are plain
// trees (msm/pippenger.cuh's window_rows_cols: a few additions a thread,
// then shuffles), and the two weighted sums of <= 256 items one chunk each
// (window_chunk), side by side: ~20 dependent additions instead of the levels' ~40 (2^16 points:
// windows of 2^11-2^12 buckets, where the reduction is bound by its depth).
constexpr size_t TWOD_ITEMS = size_t(1) << 16;
// Where all the windows hold this many buckets the reduction is bound by its
// additions, not its depth: 8 lanes a row or column (shuffles ~1/k of the
// additions); below, 4 buckets a lane (depth ~7).
constexpr size_t TWOD_WORK_ITEMS = size_t(1) << 18;
struct twod_shape {
	unsigned C = 0, R = 0;     // columns, rows
	unsigned kr = 0, kc = 0;   // items a thread: of a row, of a column
	unsigned lr = 0, lc = 0;   // threads (lanes of one warp) a row, a column
	unsigned col0 = 0;         // first column thread (a whole warp after the rows')
	unsigned threads = 0;      // threads a window
	twod_shape(size_t n, unsigned windows)
	{
		const unsigned b = bitlen(n) - 1;   // n = 2^b
		C = 1u << (b / 2);
		R = 1u << (b - b / 2);
		const bool work_bound = size_t(windows) * n >= TWOD_WORK_ITEMS;
		lr = lanes(C, work_bound);
		lc = lanes(R, work_bound);
		kr = C / lr;
		kc = R / lc;
		col0 = (R * lr + 31) / 32 * 32;
		threads = col0 + C * lc;
	}
	static unsigned lanes(unsigned len, bool work_bound)
	{
		unsigned l = work_bound ? 8 : len / 4;
		l = l < 1 ? 1 : l > 32 ? 32 : l;
		return l < len ? l : len;
	}
};

} // namespace msm
} // namespace cuzk

#endif
