// SPDX-License-Identifier: Apache-2.0 OR MIT
// The MSM's plan (msm/plan.cuh) and its signed digits (msm/scalar.cuh),
// compiled for the CPU: for every size and every window count a plan may
// take, the windows cover exactly 255 bits, none is wider than allowed, and
// the digits of folded scalars (random ones and the extremes) give the
// scalar back with no carry left over and every digit within its window's
// buckets; the two-dimensional window reduction's shape covers every bucket
// once and its weighted sums add up (on integers).  Runs in every build (no GPU needed).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "msm/plan.cuh"
#include "msm/scalar.cuh"

#include "../../tests/check.h"

namespace {

using cuzk::msm::plan_t;
using cuzk::msm::window_width;

uint64_t splitmix(uint64_t &x)
{
	uint64_t z = (x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

// A random canonical scalar (< r) by rejection.
void random_scalar(uint64_t s[4], uint64_t &seed)
{
	for (;;) {
		for (int k = 0; k < 4; k++)
			s[k] = splitmix(seed);
		s[3] &= (1ull << 63) - 1;
		bool below = false;
		for (int k = 3; k >= 0; k--)
			if (s[k] != cuzk::msm_scalar::R(k)) {
				below = s[k] < cuzk::msm_scalar::R(k);
				break;
			}
		if (below)
			return;
	}
}

// Six-limb two's complement: v = v·2^sh + d (sh < 64).
void shift_add(uint64_t v[6], unsigned sh, int64_t d)
{
	if (sh)
		for (int k = 5; k >= 0; k--)
			v[k] = (v[k] << sh) | (k ? v[k - 1] >> (64 - sh) : 0);
	unsigned __int128 c = (unsigned __int128)v[0] + (uint64_t)d;
	v[0] = (uint64_t)c;
	const uint64_t ext = d < 0 ? ~0ull : 0;
	for (int k = 1; k < 6; k++) {
		c = (c >> 64) + v[k] + ext;
		v[k] = (uint64_t)c;
	}
}

// The carry into every window of folded s under plan p, by the walk over
// the windows below, equals carry_in's comparison with carry_at's
// threshold (make_pairs starts a sort group there); false otherwise.
bool carries_match(const plan_t &p, const uint64_t s_in[4], const char *what)
{
	uint64_t s[4];
	memcpy(s, s_in, sizeof s);
	cuzk::msm_scalar::fold(s);
	uint32_t carry = 0;
	for (unsigned w = 0, off = 0; w < p.windows; w++) {
		const cuzk::msm::carry_start at = cuzk::msm::carry_at(p.c, p.wide, w);
		const uint32_t direct = cuzk::msm_scalar::carry_in(s, at.off, at.h);
		if (at.off != off || direct != carry) {
			fprintf(stderr, "%s: window %u (c = %u, %u wide): offset %u for %u, carry %u for %u\n", what, w,
				p.c, p.wide, at.off, off, direct, carry);
			return false;
		}
		const unsigned cw = window_width(p.c, p.wide, w);
		cuzk::msm_scalar::signed_digit(s, off, cw, carry);
		off += cw;
	}
	return true;
}

// A sort group's digits (windows [w0, w0 + g) of folded s under plan p)
// from only the limbs group_limbs names, the carry from carry_in_limbs
// reading the others, as make_pairs does with fold_dense's planes, equal
// the digits from the whole scalar; false (with a message) otherwise.
bool group_limbs_suffice(const plan_t &p, const uint64_t s_in[4], unsigned w0, unsigned g, const char *what)
{
	uint64_t s[4], t[4];
	memcpy(s, s_in, sizeof s);
	cuzk::msm_scalar::fold(s);
	const cuzk::msm::carry_start at = cuzk::msm::carry_at(p.c, p.wide, w0);
	const cuzk::msm::limb_range lr = cuzk::msm::group_limbs(p.c, p.wide, w0, g, at.off);
	if (lr.lo > lr.hi || lr.hi > 3) {
		fprintf(stderr, "%s: group %u+%u: limbs %u..%u\n", what, w0, g, lr.lo, lr.hi);
		return false;
	}
	for (unsigned j = 0; j < 4; j++)
		t[j] = j >= lr.lo && j <= lr.hi ? s[j] : 0;
	uint32_t whole = cuzk::msm_scalar::carry_in(s, at.off, at.h);
	uint32_t part = cuzk::msm_scalar::carry_in_limbs(
		[&](int j) { return unsigned(j) >= lr.lo ? t[j] : s[j]; }, at.off, at.h);
	for (unsigned w = w0, off = at.off; w < w0 + g; w++) {
		const unsigned cw = window_width(p.c, p.wide, w);
		const cuzk::msm_scalar::digit_t a = cuzk::msm_scalar::signed_digit(s, off, cw, whole);
		const cuzk::msm_scalar::digit_t b = cuzk::msm_scalar::signed_digit(t, off, cw, part);
		if (a.mag != b.mag || a.neg != b.neg) {
			fprintf(stderr, "%s: group %u+%u (limbs %u..%u), window %u: digit %c%u for %c%u\n", what, w0,
				g, lr.lo, lr.hi, w, b.neg ? '-' : '+', b.mag, a.neg ? '-' : '+', a.mag);
			return false;
		}
		off += cw;
	}
	return true;
}

// The digits of folded s under plan p recombine to s; false (with a
// message) otherwise.
bool digits_recombine(const plan_t &p, const uint64_t s_in[4], const char *what)
{
	uint64_t s[4];
	memcpy(s, s_in, sizeof s);
	cuzk::msm_scalar::fold(s);
	cuzk::msm_scalar::digit_t d[cuzk::msm::MAX_WINDOWS];
	uint32_t carry = 0;
	for (unsigned w = 0, off = 0; w < p.windows; w++) {
		const unsigned cw = window_width(p.c, p.wide, w);
		d[w] = cuzk::msm_scalar::signed_digit(s, off, cw, carry);
		off += cw;
		if (d[w].mag > (1u << (cw - 1))) {
			fprintf(stderr, "%s: window %u of %u bits: digit %u past its buckets\n", what, w, cw, d[w].mag);
			return false;
		}
		if (d[w].mag && (d[w].mag - 1) >= p.buckets) {
			fprintf(stderr, "%s: window %u: bucket %u of %zu\n", what, w, d[w].mag - 1, p.buckets);
			return false;
		}
	}
	if (carry) {
		fprintf(stderr, "%s: a carry out of the top window (%u windows, c = %u)\n", what, p.windows, p.c);
		return false;
	}
	uint64_t v[6] = {0, 0, 0, 0, 0, 0};
	for (unsigned w = p.windows; w-- > 0;) {
		const int64_t dv = d[w].neg ? -int64_t(d[w].mag) : int64_t(d[w].mag);
		shift_add(v, w + 1 < p.windows ? window_width(p.c, p.wide, w) : 0, dv);
	}
	const bool same = !memcmp(v, s, sizeof s) && v[4] == 0 && v[5] == 0;
	if (!same)
		fprintf(stderr, "%s: digits do not recombine (%u windows, c = %u, %u wide)\n", what, p.windows, p.c,
			p.wide);
	return same;
}

bool plan_ok(const plan_t &p, unsigned c_max, const char *what)
{
	unsigned bits = 0;
	for (unsigned w = 0; w < p.windows; w++)
		bits += window_width(p.c, p.wide, w);
	bool ok = bits == 255 && p.c <= c_max && p.c >= cuzk::msm::C_MIN && p.windows <= cuzk::msm::MAX_WINDOWS &&
		  p.wide >= 1 && p.wide <= p.windows && p.buckets == (size_t(1) << (p.c - 1)) && p.group >= 1 &&
		  p.group <= p.windows;
	if (!ok)
		fprintf(stderr, "%s: %u windows, c = %u, %u wide, %u bits, group %u\n", what, p.windows, p.c, p.wide,
			bits, p.group);
	return ok;
}

// The two-dimensional reduction's shape for n buckets in each of `windows`
// windows, and its arithmetic on integers (bucket j holding x_j, additions
// mod 2^64): rows and columns cover every bucket once, in the lanes and
// items window_rows_cols gives them, and C·Σ h·Row_h + Σ (l + 1)·Col_l is
// Σ (j + 1)·x_j.
bool twod_ok(size_t n, unsigned windows, uint64_t &seed)
{
	const cuzk::msm::twod_shape sh(n, windows);
	auto pow2 = [](unsigned v) { return v && !(v & (v - 1)); };
	bool ok = size_t(sh.C) * sh.R == n && sh.C <= sh.R && sh.kr * sh.lr == sh.C && sh.kc * sh.lc == sh.R &&
		  pow2(sh.lr) && pow2(sh.lc) && sh.lr <= 32 && sh.lc <= 32 && sh.col0 % 32 == 0 &&
		  sh.col0 >= sh.R * sh.lr && sh.threads == sh.col0 + sh.C * sh.lc;
	if (!ok) {
		fprintf(stderr, "2-D shape of %zu buckets, %u windows: C %u R %u, kr %u lr %u, kc %u lc %u, col0 %u\n", n,
			windows, sh.C, sh.R, sh.kr, sh.lr, sh.kc, sh.lc, sh.col0);
		return false;
	}
	std::vector<uint64_t> x(n), rows(sh.R, 0), cols(sh.C, 0);
	std::vector<unsigned> in_row(n, 0), in_col(n, 0);
	uint64_t want = 0;
	for (size_t j = 0; j < n; j++) {
		x[j] = splitmix(seed);
		want += (j + 1) * x[j];
	}
	for (unsigned g = 0; g < sh.threads; g++) {
		if (g < sh.R * sh.lr) {
			const unsigned h = g / sh.lr, q = g % sh.lr;
			for (unsigned i = 0; i < sh.kr; i++) {
				const size_t j = size_t(h) * sh.C + q * sh.kr + i;
				rows[h] += x[j];
				in_row[j]++;
			}
		} else if (g >= sh.col0) {
			const unsigned l = (g - sh.col0) / sh.lc, q = (g - sh.col0) % sh.lc;
			for (unsigned i = 0; i < sh.kc; i++) {
				const size_t j = size_t(q * sh.kc + i) * sh.C + l;
				cols[l] += x[j];
				in_col[j]++;
			}
		}
	}
	for (size_t j = 0; j < n; j++)
		if (in_row[j] != 1 || in_col[j] != 1) {
			fprintf(stderr, "2-D shape of %zu buckets: bucket %zu in %u rows and %u columns\n", n, j, in_row[j],
				in_col[j]);
			return false;
		}
	uint64_t got = 0;
	for (unsigned h = 1; h < sh.R; h++)
		got += uint64_t(sh.C) * h * rows[h];
	for (unsigned l = 0; l < sh.C; l++)
		got += uint64_t(l + 1) * cols[l];
	if (got != want)
		fprintf(stderr, "2-D reduction of %zu buckets: weighted sums differ\n", n);
	return got == want;
}

} // namespace

int main()
{
	uint64_t seed = 20261203;
	uint64_t extremes[6][4] = {
		{0, 0, 0, 0},
		{1, 0, 0, 0},
		{cuzk::msm_scalar::HALF(0), cuzk::msm_scalar::HALF(1), cuzk::msm_scalar::HALF(2),
		 cuzk::msm_scalar::HALF(3)},   // the largest folded scalar
		{cuzk::msm_scalar::HALF(0) + 1, cuzk::msm_scalar::HALF(1), cuzk::msm_scalar::HALF(2),
		 cuzk::msm_scalar::HALF(3)},   // the smallest that folds
		{cuzk::msm_scalar::R(0) - 1, cuzk::msm_scalar::R(1), cuzk::msm_scalar::R(2),
		 cuzk::msm_scalar::R(3)},   // r - 1
		{~0ull, ~0ull, ~0ull, (1ull << 61) - 1},   // all ones below bit 253
	};
	const unsigned c_maxes[2] = {cuzk::msm::C_MAX, cuzk::msm::C_BATCHED_MAX};
	for (unsigned cm : c_maxes)
		for (unsigned k = 0; k <= 28; k++) {
			char what[96];
			const plan_t p = cuzk::msm::make_plan(k, cm);
			snprintf(what, sizeof what, "2^%u, c <= %u", k, cm);
			CHECK(plan_ok(p, cm, what));
			const size_t m = k ? (size_t(1) << k) - 1 : 0;
			CHECK_MSG(m * p.group <= cuzk::msm::PAIRS_CAP || p.group == 1, "%s: group %u", what, p.group);
			for (unsigned w = 1; w <= cuzk::msm::MAX_WINDOWS + 2; w++) {
				const plan_t f = cuzk::msm::make_plan(k, cm, 0, w);
				snprintf(what, sizeof what, "2^%u, c <= %u, %u windows asked", k, cm, w);
				CHECK(plan_ok(f, cm, what));
				const bool fits = (255 + cm - 1) / cm <= w && w <= cuzk::msm::MAX_WINDOWS;
				CHECK_MSG(!fits || f.windows == w, "%s: got %u", what, f.windows);
				CHECK_MSG(fits || (f.windows == p.windows && f.c == p.c), "%s: not the model's plan", what);
			}
		}
	// Digits under every window count from the widest windows to the narrowest.
	for (unsigned w = (255 + cuzk::msm::C_MAX - 1) / cuzk::msm::C_MAX; w <= cuzk::msm::MAX_WINDOWS; w++) {
		const plan_t p = cuzk::msm::make_plan(20, cuzk::msm::C_MAX, 0, w);
		REQUIRE(p.windows == w);
		char what[64];
		for (int e = 0; e < 6; e++) {
			snprintf(what, sizeof what, "%u windows, extreme %d", w, e);
			CHECK(digits_recombine(p, extremes[e], what));
			CHECK(carries_match(p, extremes[e], what));
			for (unsigned w0 = 0; w0 < p.windows; w0++)
				for (unsigned g = 1; w0 + g <= p.windows; g++)
					CHECK(group_limbs_suffice(p, extremes[e], w0, g, what));
		}
		for (int i = 0; i < 200; i++) {
			uint64_t s[4];
			random_scalar(s, seed);
			snprintf(what, sizeof what, "%u windows, random %d", w, i);
			CHECK(digits_recombine(p, s, what));
			CHECK(carries_match(p, s, what));
			// every sort group make_pairs could be given: any start, any length
			for (unsigned w0 = 0; i < 8 && w0 < p.windows; w0++)
				for (unsigned g = 1; w0 + g <= p.windows; g++)
					CHECK(group_limbs_suffice(p, s, w0, g, what));
		}
		// Scalars whose bits below a window's offset sit at its threshold
		// and one below it (the comparison's edge), with random bits above.
		for (unsigned w1 = 1; w1 < p.windows; w1++) {
			const cuzk::msm::carry_start at = cuzk::msm::carry_at(p.c, p.wide, w1);
			for (int below = 0; below < 2; below++) {
				uint64_t s[4];
				random_scalar(s, seed);
				s[3] &= (uint64_t(1) << 61) - 1;   // under (r-1)/2: fold leaves it
				uint64_t t[4] = {at.h[0], at.h[1], at.h[2], at.h[3]};
				if (below)
					for (int k = 0; k < 4 && t[k]-- == 0; k++)
						;
				for (int k = 0; k < 4; k++) {
					const unsigned lo = 64 * unsigned(k);
					const uint64_t mask = at.off <= lo ? 0 : at.off - lo >= 64 ? ~0ull
											  : (uint64_t(1) << (at.off - lo)) - 1;
					s[k] = (s[k] & ~mask) | (t[k] & mask);
				}
				snprintf(what, sizeof what, "%u windows, window %u's threshold %s", w, w1,
					 below ? "less one" : "itself");
				CHECK(carries_match(p, s, what));
				CHECK(digits_recombine(p, s, what));
				for (unsigned g = 1; w1 + g <= p.windows; g++)
					CHECK(group_limbs_suffice(p, s, w1, g, what));
			}
		}
	}
	for (unsigned b = 3; (size_t(1) << b) <= cuzk::msm::TWOD_ITEMS; b++)
		for (unsigned w : {1u, 4u, 21u, 64u})
			CHECK(twod_ok(size_t(1) << b, w, seed));
	// Groups capped at `cap` pairs (the rounds' lists): for every m' of the
	// bit length of m, the group fits the bound its layout reserves, and
	// takes one window at least and the plan's at most.  Caps of 2^4 to
	// 2^13 with every m' to 2^14, and the default 2^27 at the sizes near
	// its divisors (m' = 2^27 / j, and one either side).
	for (size_t cap = size_t(1) << 4; cap <= (size_t(1) << 13); cap <<= 1)
		for (unsigned k = 1; k <= 14; k++) {
			const plan_t p = cuzk::msm::make_plan(k);
			const size_t top = (size_t(1) << k) - 1;
			const size_t bound = cuzk::msm::capped_group_pairs(p.group, top, cap);
			for (size_t m = top / 2 + 1; m <= top; m++) {
				const unsigned g = cuzk::msm::capped_group(p.group, m, cap);
				CHECK_MSG(g >= 1 && g <= p.group && m * g <= bound,
					  "cap %zu, m %zu: group %u of %u, %zu pairs above the bound %zu", cap, m, g,
					  p.group, m * g, bound);
			}
		}
	for (size_t j = 1; j <= 64; j++)
		for (long d = -1; d <= 1; d++) {
			const size_t cap = size_t(1) << 27, m = cap / j + size_t(d);
			const plan_t p = cuzk::msm::make_plan(cuzk::msm::bitlen(m));
			const size_t top = (size_t(1) << cuzk::msm::bitlen(m)) - 1;
			const unsigned g = cuzk::msm::capped_group(p.group, m, cap);
			CHECK_MSG(m * g <= cuzk::msm::capped_group_pairs(p.group, top, cap),
				  "cap 2^27, m %zu: group %u, %zu pairs above the bound", m, g, m * g);
		}
	// A whole MSM's plan with the rounds (G1's or G2's): fifteen windows in its band of
	// bitlengths, the model's elsewhere and without the rounds, the asked
	// count whenever one is asked.
	for (unsigned k = 0; k <= 28; k++) {
		const plan_t model = cuzk::msm::make_plan(k), plain = cuzk::msm::make_whole_plan(k, false);
		const plan_t r = cuzk::msm::make_whole_plan(k, true), f = cuzk::msm::make_whole_plan(k, true, 20);
		const bool band = k >= cuzk::msm::ROUNDS_WINDOWS_K_LO && k <= cuzk::msm::ROUNDS_WINDOWS_K_HI;
		char what[64];
		snprintf(what, sizeof what, "2^%u with the rounds", k);
		CHECK(plan_ok(r, cuzk::msm::C_MAX, what));
		CHECK_MSG(plain.windows == model.windows && plain.c == model.c, "2^%u without the rounds: %u windows", k,
			  plain.windows);
		CHECK_MSG(band ? r.windows == cuzk::msm::ROUNDS_WINDOWS && r.c == 17 : r.windows == model.windows,
			  "%s: %u windows of %u bits", what, r.windows, r.c);
		CHECK_MSG(f.windows == 20, "2^%u with the rounds, 20 windows asked: %u", k, f.windows);
	}
	// A batched MSM's windows: a 2^27 PoRep partition's streamed queries in
	// batches of 2^22 points (their 0/1 scalars ~90% of them: c = 15, as
	// measured fastest; h all dense: c = 17), an asked narrower widest
	// window kept, and the same windows for every batch of one MSM.
	{
		const size_t B = size_t(1) << 22;
		const struct {
			const char *what;
			size_t n, dense;
			unsigned c;
		} q[] = {{"h", (size_t(1) << 27) - 1, (size_t(1) << 27) - 1, 17}, {"l", 130278541, 13027854, 15},
			 {"a", 97779045, 9777904, 15},   {"b", 32568192, 3256819, 15}};
		for (const auto &x : q) {
			const unsigned c = cuzk::msm::batched_c_max(x.n, B, x.dense);
			CHECK_MSG(c == x.c, "%s, %zu points of which %zu dense: c = %u, %u expected", x.what, x.n, x.dense,
				  c, x.c);
			CHECK_MSG(cuzk::msm::batched_c_max(x.n, B, x.dense, 12) == 12, "%s: c <= 12 asked", x.what);
		}
	}
	// Every batched plan fits the running sums of its total's (the widest:
	// running_layout, pippenger.cuh), and a batch's size changes its sort
	// group alone.
	for (unsigned k = 1; k <= 28; k++) {
		const size_t n_total = (size_t(1) << k) - 1;
		size_t running = 0;
		for (unsigned j = 1; j <= k; j++) {
			const plan_t p = cuzk::msm::make_plan(j, cuzk::msm::C_BATCHED_MAX);
			running = std::max(running, size_t(p.windows) * p.buckets);
		}
		for (unsigned kb = 1; kb <= k; kb++)
			for (unsigned kd = 0; kd <= k; kd++) {
				const size_t n_batch = size_t(1) << (kb - 1), n_dense = kd ? (size_t(1) << (kd - 1)) : 0;
				const plan_t p = cuzk::msm::make_batched_plan(n_total, n_batch, n_dense, n_batch);
				const plan_t last = cuzk::msm::make_batched_plan(n_total, n_batch, n_dense, 1);
				char what[96];
				snprintf(what, sizeof what, "2^%u in batches of 2^%u, 2^%u dense", k, kb - 1, kd);
				CHECK(plan_ok(p, cuzk::msm::C_BATCHED_MAX, what));
				CHECK_MSG(p.c >= std::min(cuzk::msm::make_plan(k, cuzk::msm::C_BATCHED_MAX).c,
							  cuzk::msm::C_BATCHED_MIN),
					  "%s: c = %u", what, p.c);
				CHECK_MSG(size_t(p.windows) * p.buckets <= running, "%s: %u windows of %zu buckets", what,
					  p.windows, p.buckets);
				CHECK_MSG(last.c == p.c && last.windows == p.windows && last.wide == p.wide,
					  "%s: a short batch's windows differ", what);
			}
	}
	// The model takes balanced windows where the top one used to be narrow.
	const plan_t p16 = cuzk::msm::make_plan(16);
	CHECK_MSG(window_width(p16.c, p16.wide, p16.windows - 1) + 1 >= p16.c, "2^16: top window %u bits, c = %u",
		  window_width(p16.c, p16.wide, p16.windows - 1), p16.c);
	for (unsigned k = 12; k <= 28; k++) {
		const plan_t p = cuzk::msm::make_plan(k);
		printf("dense scalars below 2^%u: %u windows (%u of %u bits, the rest %u)\n", k, p.windows, p.wide, p.c,
		       p.c - 1);
	}
	CHECK_DONE();
}
