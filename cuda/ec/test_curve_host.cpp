// SPDX-License-Identifier: Apache-2.0 OR MIT
// The device field and curve code (cuda/ff, cuda/ec), compiled for the CPU
// with its carry chains emulated, against its plain C twin in src/bls12_381:
// Fp and Fp2 arithmetic on random values, and XYZZ scalar multiples, sums,
// doublings and cancellations of G1 and G2 points, in every compiled form of
// the MSM's field products (msm/fp_impl.cuh).  Runs in every build (no GPU
// needed), so CI checks the exact arithmetic the kernels use.
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <vector>

#include "ec/xyzz.cuh"
#include "ff/fp2.cuh"
#include "msm/fp_impl.cuh"

extern "C" {
#include "bls12_381/fp.h"
#include "bls12_381/fp2.h"
#include "bls12_381/g1.h"
#include "bls12_381/g2.h"
#include "common/rand.h"
}

#include "../../tests/check.h"

namespace {

static_assert(sizeof(cuzk::fp_t) == sizeof(::fp_t) && sizeof(cuzk::fp2_t) == sizeof(::fp2_t),
	      "device and host fields share one layout");

template <class D, class H> D to_dev(const H &h)
{
	D d;
	std::memcpy(&d, &h, sizeof d);
	return d;
}
template <class H, class D> H to_host(const D &d)
{
	H h;
	std::memcpy(&h, &d, sizeof h);
	return h;
}

// A random element below p: random limbs with the top one cut below p's.
::fp_t random_fp(rng_t *rng)
{
	::fp_t a;
	for (int j = 0; j < 6; j++)
		a.l[j] = rng_next(rng);
	a.l[5] &= 0x0fffffffffffffffull;   // p's top limb is 0x1a0111ea...
	return a;
}

bool same(const cuzk::fp_t &d, const ::fp_t &h) { return std::memcmp(&d, &h, sizeof h) == 0; }
bool same(const cuzk::fp2_t &d, const ::fp2_t &h) { return std::memcmp(&d, &h, sizeof h) == 0; }

void check_fp(rng_t *rng)
{
	for (int i = 0; i < 2000; i++) {
		::fp_t a = random_fp(rng), b = random_fp(rng), r;
		if (i == 0)
			a = FP_ZERO;
		if (i == 1) {   // p - 1
			for (int j = 0; j < 6; j++)
				a.l[j] = FP_MODULUS[j];
			a.l[0] -= 1;
			b = a;
		}
		if (i == 2 || i == 3) {   // p - 1 against a random value, and p - 2^64·k near the top
			for (int j = 0; j < 6; j++)
				a.l[j] = FP_MODULUS[j];
			a.l[i == 2 ? 0 : 1] -= 1;
		}
		cuzk::fp_t da = to_dev<cuzk::fp_t>(a), db = to_dev<cuzk::fp_t>(b);
		fp_mul(&r, &a, &b);
		CHECK_MSG(same(cuzk::mul(da, db), r), "fp mul, case %d", i);
		fp_sqr(&r, &a);
		CHECK_MSG(same(cuzk::sqr(da), r), "fp sqr, case %d", i);
		fp_add(&r, &a, &b);
		CHECK_MSG(same(cuzk::add(da, db), r), "fp add, case %d", i);
		fp_sub(&r, &a, &b);
		CHECK_MSG(same(cuzk::sub(da, db), r), "fp sub, case %d", i);
		fp_neg(&r, &a);
		CHECK_MSG(same(cuzk::neg(da), r), "fp neg, case %d", i);
		if (i < 10) {
			fp_inv(&r, &a);
			CHECK_MSG(same(cuzk::inv(da), r), "fp inv, case %d", i);
		}
	}
	CHECK(same(cuzk::fp_one(), FP_ONE));
}

void check_fp2(rng_t *rng)
{
	for (int i = 0; i < 500; i++) {
		::fp2_t a = {random_fp(rng), random_fp(rng)}, b = {random_fp(rng), random_fp(rng)}, r;
		cuzk::fp2_t da = to_dev<cuzk::fp2_t>(a), db = to_dev<cuzk::fp2_t>(b);
		fp2_mul(&r, &a, &b);
		CHECK_MSG(same(cuzk::mul(da, db), r), "fp2 mul, case %d", i);
		fp2_sqr(&r, &a);
		CHECK_MSG(same(cuzk::sqr(da), r), "fp2 sqr, case %d", i);
		if (i < 3) {
			fp2_inv(&r, &a);
			CHECK_MSG(same(cuzk::inv(da), r), "fp2 inv, case %d", i);
		}
	}
}

// The 768-bit product against schoolbook over 64-bit words, for any 12-limb
// inputs (the lazy Fp2 product feeds it unreduced sums).
void check_mul_wide(rng_t *rng)
{
	for (int i = 0; i < 300; i++) {
		uint32_t a[12], b[12], got[24];
		for (int j = 0; j < 12; j++) {
			a[j] = (uint32_t)rng_next(rng);
			b[j] = (uint32_t)rng_next(rng);
			if (i < 4) {   // all ones, zero, and one of each
				a[j] = i & 1 ? 0xffffffffu : 0;
				b[j] = i & 2 ? 0xffffffffu : 0;
			}
		}
		uint64_t want[24] = {};
		for (int x = 0; x < 12; x++) {
			uint64_t carry = 0;
			for (int y = 0; y < 12; y++) {
				uint64_t t = (uint64_t)a[x] * b[y] + want[x + y] + carry;
				want[x + y] = (uint32_t)t;
				carry = t >> 32;
			}
			want[x + 12] = carry;
		}
		cuzk::fp_detail::mul_wide(got, a, b);
		CHECK_MSG(std::equal(got, got + 24, want), "mul_wide, case %d", i);
		// the square, of a and of b (all ones, zero, random)
		for (const uint32_t *x : {a, b}) {
			uint32_t sq[24];
			cuzk::fp_detail::mul_wide(got, x, x);
			cuzk::fp_detail::square_wide_parity(sq, x);
			CHECK_MSG(std::equal(sq, sq + 24, got), "square_wide_parity, case %d", i);
		}
	}
}

// The parity-layout reduction against redc_dual_add (which Fp's square
// uses), over its whole input range: any lo, hi < p, both at their maxima.
void check_redc_parity(rng_t *rng)
{
	for (int i = 0; i < 300; i++) {
		uint32_t lo[12], got[12], want[12];
		::fp_t h = random_fp(rng);
		for (int j = 0; j < 12; j++)
			lo[j] = i < 2 ? 0xffffffffu : (uint32_t)rng_next(rng);
		if (i == 0 || i == 2) {   // hi = p - 1
			for (int j = 0; j < 6; j++)
				h.l[j] = FP_MODULUS[j];
			h.l[0] -= 1;
		}
		if (i == 3)
			h = FP_ZERO;
		const cuzk::fp_t hi = to_dev<cuzk::fp_t>(h);
		cuzk::fp_detail::redc_parity(got, lo, hi.v);
		cuzk::redc_dual_add(want, lo, hi.v);
		CHECK_MSG(std::memcmp(got, want, sizeof got) == 0, "redc_parity, case %d", i);
	}
}

::fp_t fp_edge(int k, rng_t *rng)
{
	::fp_t a = FP_ZERO;
	switch (k) {
	case 0:
		break;
	case 1:   // the integer 1 (not the Montgomery one)
		a.l[0] = 1;
		break;
	case 2:
		a = FP_ONE;
		break;
	case 3:   // p - 1
	case 4:   // p - 2
		for (int j = 0; j < 6; j++)
			a.l[j] = FP_MODULUS[j];
		a.l[0] -= k == 3 ? 1 : 2;
		break;
	default:
		a = random_fp(rng);
	}
	return a;
}

// a mod p for a < 2p (fp_t limbs as integers).
::fp_t mod_p(::fp_t a)
{
	int k = 5;
	while (k > 0 && a.l[k] == FP_MODULUS[k])
		k--;
	if (a.l[k] < FP_MODULUS[k])
		return a;
	unsigned borrow = 0;
	for (int j = 0; j < 6; j++) {
		const uint64_t d = a.l[j] - FP_MODULUS[j] - borrow;
		borrow = a.l[j] < FP_MODULUS[j] + (unsigned __int128)borrow;
		a.l[j] = d;
	}
	return a;
}

// Values for the parity-layout product: 0, 1, the Montgomery 1, p - 1,
// p - 2, p - 2^64; then, beyond the reduced inputs the accumulation gives
// it, p, p + 1, 2^381 - 1 and 2^381 - 2^352 (its chains hold for a < 2^383
// and one subtraction reduces for a·b < p·2^384, fp.cuh's mont_parity), and
// 2^352 - 1 (every limb but the top full).
::fp_t fp_parity_edge(int k)
{
	::fp_t a = FP_ZERO;
	switch (k) {
	case 1:
		a.l[0] = 1;
		break;
	case 2:
		a = FP_ONE;
		break;
	case 3:
	case 4:
	case 5:
	case 6:
	case 7:
		for (int j = 0; j < 6; j++)
			a.l[j] = FP_MODULUS[j];
		if (k == 3 || k == 4)
			a.l[0] -= k == 3 ? 1 : 2;
		else if (k == 5)
			a.l[1] -= 1;
		else if (k == 7)
			a.l[0] += 1;
		break;
	case 8:
	case 9:
		for (int j = 0; j < 6; j++)
			a.l[j] = ~0ull;
		a.l[5] = k == 8 ? 0x1fffffffffffffffull : 0x1fffffff00000000ull;
		break;
	case 10:
		for (int j = 0; j < 5; j++)
			a.l[j] = ~0ull;
		a.l[5] = 0xffffffffull;
		break;
	}
	return a;
}
constexpr int FP_PARITY_EDGES = 11;

// The parity-layout product and square (the lazy form's Fp arithmetic) are
// the bytes of src/bls12_381's, through each way the MSM reaches them.
void check_fp_parity_one(const ::fp_t &a, const ::fp_t &b, const char *what, int i)
{
	using L = cuzk::fx_t<cuzk::fp_t, cuzk::fp_form::lazy>;
	const ::fp_t ra = mod_p(a), rb = mod_p(b);
	const cuzk::fp_t da = to_dev<cuzk::fp_t>(a), db = to_dev<cuzk::fp_t>(b);
	::fp_t r;
	fp_mul(&r, &ra, &rb);
	CHECK_MSG(same(cuzk::mul_parity(da, db), r), "fp mul_parity, %s %d", what, i);
	CHECK_MSG(same(cuzk::fp_calls::mul_lazy(da, db), r), "fp mul_lazy call, %s %d", what, i);
	CHECK_MSG(same(mul(L{da}, L{db}).f, r), "fp lazy form mul, %s %d", what, i);
	CHECK_MSG(same(cuzk::mul_kara(da, db), r), "fp mul_kara, %s %d", what, i);
	fp_sqr(&r, &ra);
	CHECK_MSG(same(cuzk::sqr_parity(da), r), "fp sqr_parity, %s %d", what, i);
	CHECK_MSG(same(cuzk::fp_calls::sqr_lazy(da), r), "fp sqr_lazy call, %s %d", what, i);
	CHECK_MSG(same(sqr(L{da}).f, r), "fp lazy form sqr, %s %d", what, i);
}

void check_fp_parity(rng_t *rng)
{
	for (int k = 0; k < FP_PARITY_EDGES * FP_PARITY_EDGES; k++)
		check_fp_parity_one(fp_parity_edge(k % FP_PARITY_EDGES), fp_parity_edge(k / FP_PARITY_EDGES), "edges", k);
	for (int i = 0; i < 6000; i++) {
		::fp_t a = random_fp(rng), b = random_fp(rng);
		if (i % 3 == 1)   // any value below 2^381, p's top limb and above included
			a.l[5] = rng_next(rng) >> 3;
		if (i % 3 == 2)   // an edge against a random value
			b = fp_parity_edge(i / 3 % FP_PARITY_EDGES);
		check_fp_parity_one(a, b, "random", i);
	}
}

// The Karatsuba 768-bit product is the schoolbook one's for every a, b <
// 2^383 (its bound): random values of every width, the halves' sums
// carrying or not, and the extremes.
void check_mul_wide_kara(rng_t *rng)
{
	for (int i = 0; i < 20000; i++) {
		uint32_t a[12], b[12], want[24], got[24];
		for (int j = 0; j < 12; j++) {
			a[j] = (uint32_t)rng_next(rng);
			b[j] = (uint32_t)rng_next(rng);
		}
		const int top = i % 8;   // 2^383 - 1 at most, smaller tops too
		a[11] >>= top == 0 ? 1 : 1 + (i / 8) % 31;
		b[11] >>= top == 1 ? 1 : 1 + (i / 256) % 31;
		if (i % 5 == 0)   // a0 + a1 and b0 + b1 both carry
			for (int j = 0; j < 6; j++)
				a[j] = b[j] = ~0u;
		if (i % 7 == 0)   // the extreme value 2^383 - 1
			for (int j = 0; j < 12; j++)
				a[j] = j == 11 ? 0x7fffffffu : ~0u;
		if (i % 11 == 0)
			for (int j = 0; j < 12; j++)
				b[j] = j < 6 ? 0 : b[j];
		cuzk::fp_detail::mul_wide(want, a, b);
		cuzk::fp_detail::mul_wide_kara(got, a, b);
		CHECK_MSG(std::memcmp(want, got, sizeof want) == 0, "mul_wide_kara, case %d", i);
	}
}

// -1, 0, 1 as t0 = a0·b0 is below, equal to or above t1 = a1·b1 (as integers).
int cmp_t0_t1(const ::fp2_t &a, const ::fp2_t &b)
{
	uint32_t t0[24], t1[24];
	cuzk::fp2_t da = to_dev<cuzk::fp2_t>(a), db = to_dev<cuzk::fp2_t>(b);
	cuzk::fp_detail::mul_wide(t0, da.c0.v, db.c0.v);
	cuzk::fp_detail::mul_wide(t1, da.c1.v, db.c1.v);
	for (int j = 23; j >= 0; j--)
		if (t0[j] != t1[j])
			return t0[j] < t1[j] ? -1 : 1;
	return 0;
}

// One lazy product and square against the host and the device's Karatsuba.
void check_fp2_lazy_one(const ::fp2_t &a, const ::fp2_t &b, const char *what, int i)
{
	::fp2_t r;
	cuzk::fp2_t da = to_dev<cuzk::fp2_t>(a), db = to_dev<cuzk::fp2_t>(b);
	fp2_mul(&r, &a, &b);
	CHECK_MSG(same(cuzk::mul_lazy(da, db), r), "fp2 mul_lazy, %s %d", what, i);
	CHECK_MSG(same(cuzk::fp_calls::fp2_mul_lazy(da, db), r), "fp2_mul_lazy call, %s %d", what, i);
	fp2_sqr(&r, &a);
	CHECK_MSG(same(cuzk::sqr_lazy(da), r), "fp2 sqr_lazy, %s %d", what, i);
}

// The lazy Fp2 product: edge values in every coordinate, a0 = a1, and t0
// below, equal to and above t1 (c0's correction taken and not), each counted
// so that the cases cannot silently stop being exercised.
void check_fp2_lazy(rng_t *rng)
{
	int seen[3] = {};
	for (int k = 0; k < 6 * 6 * 6 * 6; k++) {
		::fp2_t a = {fp_edge(k % 6, rng), fp_edge(k / 6 % 6, rng)};
		::fp2_t b = {fp_edge(k / 36 % 6, rng), fp_edge(k / 216, rng)};
		seen[cmp_t0_t1(a, b) + 1]++;
		check_fp2_lazy_one(a, b, "edges", k);
	}
	for (int i = 0; i < 3000; i++) {
		::fp2_t a = {random_fp(rng), random_fp(rng)}, b = {random_fp(rng), random_fp(rng)};
		switch (i % 6) {
		case 1:   // a0 = a1
			a.c1 = a.c0;
			break;
		case 2:   // t0 = t1
			a.c1 = a.c0;
			b.c1 = b.c0;
			break;
		case 3:   // t0 = t1 by swapped factors
			a.c1 = b.c0;
			b.c1 = a.c0;
			break;
		case 4:   // t0 < t1 by far
			a.c0.l[5] >>= 20;
			break;
		case 5:   // t0 > t1 by far
			b.c1.l[5] >>= 20;
			break;
		}
		seen[cmp_t0_t1(a, b) + 1]++;
		check_fp2_lazy_one(a, b, "random", i);
	}
	CHECK_MSG(seen[0] > 300 && seen[1] > 300 && seen[2] > 300, "t0 < t1: %d, t0 = t1: %d, t0 > t1: %d", seen[0],
		  seen[1], seen[2]);
}

// a·b - c·d in one reduction (the fused form's Y) against two products and
// a subtraction, in Fp and Fp2: edge values in every input, and the
// difference of the two products on either side of 0 (and 0), each side
// counted so that the correction cannot silently stop being exercised.
int cmp_wide(const cuzk::fp_t &a, const cuzk::fp_t &b, const cuzk::fp_t &c, const cuzk::fp_t &d)
{
	uint32_t t0[24], t1[24];
	cuzk::fp_detail::mul_wide(t0, a.v, b.v);
	cuzk::fp_detail::mul_wide(t1, c.v, d.v);
	for (int j = 23; j >= 0; j--)
		if (t0[j] != t1[j])
			return t0[j] < t1[j] ? -1 : 1;
	return 0;
}

void check_mul_sub(rng_t *rng)
{
	int seen[3] = {};
	for (int i = 0; i < 6 * 6 * 6 * 6 + 4000; i++) {
		const bool edges = i < 6 * 6 * 6 * 6;
		::fp_t h[4];
		for (int k = 0; k < 4; k++)
			h[k] = random_fp(rng);
		if (edges)
			for (int k = 0, v = i; k < 4; k++, v /= 6)
				h[k] = fp_edge(v % 6, rng);
		else if (i % 4 == 1)   // a·b = c·d
			h[2] = h[0], h[3] = h[1];
		else if (i % 4 == 2)   // a·b = d·c
			h[2] = h[1], h[3] = h[0];
		else if (i % 4 == 3)   // a·b far below c·d
			h[0].l[5] >>= 24;
		const cuzk::fp_t a = to_dev<cuzk::fp_t>(h[0]), b = to_dev<cuzk::fp_t>(h[1]),
				 c = to_dev<cuzk::fp_t>(h[2]), d = to_dev<cuzk::fp_t>(h[3]);
		seen[cmp_wide(a, b, c, d) + 1]++;
		const cuzk::fp_t want = cuzk::sub(cuzk::mul_parity(a, b), cuzk::mul_parity(c, d));
		const cuzk::fp_t fused = cuzk::fp_calls::mul_sub_fused(a, b, c, d), plain = cuzk::mul_sub(a, b, c, d);
		CHECK_MSG(std::memcmp(&want, &fused, sizeof want) == 0 && std::memcmp(&want, &plain, sizeof want) == 0,
			  "fp mul_sub, case %d", i);
		::fp_t r0, r1;
		fp_mul(&r0, &h[0], &h[1]);
		fp_mul(&r1, &h[2], &h[3]);
		fp_sub(&r0, &r0, &r1);
		CHECK_MSG(same(want, r0), "fp mul_sub against the CPU, case %d", i);
		// Fp2: the same values as the coordinates of two products, rotated
		const ::fp2_t x = {h[0], h[1]}, y = {h[2], h[3]}, z = {h[1], h[3]}, w = {h[0], h[2]};
		const auto dv = [](const ::fp2_t &v) { return to_dev<cuzk::fp2_t>(v); };
		const cuzk::fp2_t want2 = cuzk::sub(cuzk::mul_lazy(dv(x), dv(y)), cuzk::mul_lazy(dv(z), dv(w)));
		const cuzk::fp2_t got2 = cuzk::fp_calls::fp2_mul_sub_fused(dv(x), dv(y), dv(z), dv(w));
		CHECK_MSG(std::memcmp(&want2, &got2, sizeof want2) == 0, "fp2 mul_sub, case %d", i);
		::fp2_t s0, s1;
		fp2_mul(&s0, &x, &y);
		fp2_mul(&s1, &z, &w);
		fp2_sub(&s0, &s0, &s1);
		CHECK_MSG(same(want2, s0), "fp2 mul_sub against the CPU, case %d", i);
		// Fp2 with both differences exactly 0: a·b - a·b
		const cuzk::fp2_t zero2 = cuzk::fp_calls::fp2_mul_sub_fused(dv(x), dv(y), dv(x), dv(y));
		CHECK_MSG(cuzk::is_zero(zero2), "fp2 mul_sub of equal products, case %d", i);
	}
	CHECK_MSG(seen[0] > 500 && seen[1] > 500 && seen[2] > 500, "a·b < c·d: %d, =: %d, >: %d", seen[0], seen[1],
		  seen[2]);
}

// k·q by the device formulas (double-and-add over 64 bits).
template <class F> cuzk::xyzz_t<F> times(const cuzk::affine_t<F> &q, uint64_t k, const F &one)
{
	cuzk::xyzz_t<F> r;
	cuzk::set_inf(r);
	for (int b = 63; b >= 0; b--) {
		r = cuzk::dbl(r);
		if ((k >> b) & 1)
			cuzk::add_affine(r, q, false, one);
	}
	return r;
}

// G1 and G2 through one template: the host group's functions are passed in.
template <class F, class HJ, class HA> struct group {
	const HA *gen;
	F one;
	void (*mul)(HJ *, const HJ *, const uint64_t *);
	void (*from_affine)(HJ *, const HA *);
	void (*add)(HJ *, const HJ *, const HJ *);
	int (*eq)(const HJ *, const HJ *);
	int (*is_inf)(const HJ *);
	void (*to_affine)(HA *, const HJ *);
	void (*aff_neg)(HA *, const HA *);
	void (*add_affine)(HJ *, const HJ *, const HA *);
	void (*set_infinity)(HJ *);
	const char *name;
	// the same group with its field in form M (msm/fp_impl.cuh)
	template <cuzk::fp_form M> group<cuzk::fx_t<F, M>, HJ, HA> in(const char *form_name) const
	{
		return {gen, {one}, mul, from_affine, add, eq, is_inf, to_affine, aff_neg, add_affine, set_infinity,
			form_name};
	}
};

template <class F, class HJ, class HA> void check_group(const group<F, HJ, HA> &g, rng_t *rng)
{
	const cuzk::affine_t<F> q = to_dev<cuzk::affine_t<F>>(*g.gen);
	HJ G;
	g.from_affine(&G, g.gen);
	for (int i = 0; i < 6; i++) {
		uint64_t k1 = rng_next(rng), k2 = rng_next(rng) >> (i * 8);
		uint64_t kk1[4] = {k1, 0, 0, 0}, kk2[4] = {k2, 0, 0, 0};
		HJ want1, want2, want_sum, want_dbl;
		g.mul(&want1, &G, kk1);
		g.mul(&want2, &G, kk2);
		g.add(&want_sum, &want1, &want2);
		g.add(&want_dbl, &want1, &want1);

		cuzk::xyzz_t<F> p1 = times(q, k1, g.one), p2 = times(q, k2, g.one);
		HJ got1 = to_host<HJ>(cuzk::to_jacobian(p1));
		CHECK_MSG(g.eq(&got1, &want1), "%s: k·G by mixed additions, case %d", g.name, i);
		cuzk::xyzz_t<F> s = p1;
		cuzk::add(s, p2);
		HJ got_sum = to_host<HJ>(cuzk::to_jacobian(s));
		CHECK_MSG(g.eq(&got_sum, &want_sum), "%s: XYZZ addition, case %d", g.name, i);
		cuzk::xyzz_t<F> d = p1;
		cuzk::add(d, p1);   // equal inputs: the doubling branch
		HJ got_dbl = to_host<HJ>(cuzk::to_jacobian(d));
		CHECK_MSG(g.eq(&got_dbl, &want_dbl), "%s: addition of equal points, case %d", g.name, i);
		HJ got_dbl2 = to_host<HJ>(cuzk::to_jacobian(cuzk::dbl(p1)));
		CHECK_MSG(g.eq(&got_dbl2, &want_dbl), "%s: doubling, case %d", g.name, i);
	}
	// G + G by the mixed addition (doubling branch), 3G - G - G - G = infinity
	cuzk::xyzz_t<F> t;
	cuzk::set_inf(t);
	cuzk::add_affine(t, q, false, g.one);
	cuzk::add_affine(t, q, false, g.one);
	uint64_t two[4] = {2, 0, 0, 0};
	HJ want2G, got2G = to_host<HJ>(cuzk::to_jacobian(t));
	g.mul(&want2G, &G, two);
	CHECK_MSG(g.eq(&got2G, &want2G), "%s: G + G by the mixed addition", g.name);
	cuzk::add_affine(t, q, false, g.one);
	for (int j = 0; j < 3; j++)
		cuzk::add_affine(t, q, true, g.one);
	CHECK_MSG(cuzk::is_inf(t), "%s: 3G - 3G is infinity", g.name);
	HJ inf = to_host<HJ>(cuzk::to_jacobian(t));
	CHECK_MSG(g.is_inf(&inf), "%s: infinity converts to Z = 0", g.name);
	// multiples of a small scalar
	HJ want13;
	uint64_t thirteen[4] = {13, 0, 0, 0};
	g.mul(&want13, &G, thirteen);
	HJ got13 = to_host<HJ>(cuzk::to_jacobian(cuzk::mul_small(cuzk::from_affine(q, g.one), 13)));
	CHECK_MSG(g.eq(&got13, &want13), "%s: mul_small", g.name);
}

// A bucket's run of mixed additions, as the accumulation does it, in form M:
// random multiples of the generator, some negated, some repeated (the
// doubling branch) or cancelled (infinity on the way).
template <cuzk::fp_form M, class F>
cuzk::xyzz_t<F> bucket_run(const std::vector<cuzk::affine_t<F>> &pts, const std::vector<int> &seq, const F &one_f)
{
	using A = cuzk::fx_t<F, M>;
	const A one = {one_f};
	cuzk::xyzz_t<A> acc;
	cuzk::set_inf(acc);
	for (int s : seq)
		cuzk::add_affine(acc, to_dev<cuzk::affine_t<A>>(pts[s >> 1]), s & 1, one);
	return to_dev<cuzk::xyzz_t<F>>(acc);
}

// Every form's accumulation gives the same XYZZ bytes (each field result is
// fully reduced, so the forms may differ in nothing), and the CPU's sum.
template <class F, class HJ, class HA> void check_forms(const group<F, HJ, HA> &g, rng_t *rng)
{
	std::vector<cuzk::affine_t<F>> pts;
	std::vector<HA> hpts;
	HJ G;
	g.from_affine(&G, g.gen);
	for (int j = 0; j < 8; j++) {
		uint64_t k[4] = {rng_next(rng), rng_next(rng), 0, 0};
		HJ P;
		HA a;
		g.mul(&P, &G, k);
		g.to_affine(&a, &P);
		hpts.push_back(a);
		pts.push_back(to_dev<cuzk::affine_t<F>>(a));
	}
	for (int run = 0; run < 20; run++) {
		std::vector<int> seq;
		int len = 1 + (int)(rng_next(rng) % 40);
		for (int e = 0; e < len; e++) {
			int s = (int)(rng_next(rng) % 16);
			if (e && run % 4 == 1)   // the same point again: doubling
				s = seq.back() & ~1;
			if (e && run % 4 == 2 && e % 3 == 0)   // its negation: back towards infinity
				s = seq.back() ^ 1;
			seq.push_back(s);
		}
		HJ want;
		g.set_infinity(&want);
		for (int s : seq) {
			HA q = hpts[s >> 1];
			if (s & 1)
				g.aff_neg(&q, &q);
			g.add_affine(&want, &want, &q);
		}
		const cuzk::xyzz_t<F> fu = bucket_run<cuzk::fp_form::fused>(pts, seq, g.one);
		const cuzk::xyzz_t<F> lz = bucket_run<cuzk::fp_form::lazy>(pts, seq, g.one);
		CHECK_MSG(std::memcmp(&fu, &lz, sizeof fu) == 0, "%s bucket run %d: fused != lazy", g.name, run);
		HJ got = to_host<HJ>(cuzk::to_jacobian(lz));
		CHECK_MSG(g.eq(&got, &want), "%s bucket run %d (lazy) against the CPU", g.name, run);
	}
}

} // namespace

int main()
{
	rng_t rng;
	rng_seed(&rng, 0x6b1e);
	const group<cuzk::fp_t, g1_jac_t, g1_aff_t> g1{&G1_GENERATOR, cuzk::fp_one(), g1_mul, g1_from_affine, g1_add,
						       g1_eq, g1_is_infinity, g1_to_affine, g1_aff_neg, g1_add_affine,
						       g1_set_infinity, "G1"};
	const group<cuzk::fp2_t, g2_jac_t, g2_aff_t> g2{&G2_GENERATOR, cuzk::fp2_one(), g2_mul, g2_from_affine, g2_add,
							g2_eq, g2_is_infinity, g2_to_affine, g2_aff_neg, g2_add_affine,
							g2_set_infinity, "G2"};
	check_fp(&rng);
	check_fp2(&rng);
	check_group(g1, &rng);
	check_group(g2, &rng);
	check_mul_wide(&rng);
	check_redc_parity(&rng);
	check_fp_parity(&rng);
	check_mul_wide_kara(&rng);
	check_fp2_lazy(&rng);
	check_group(g1.in<cuzk::fp_form::lazy>("G1 (lazy form)"), &rng);
	check_group(g2.in<cuzk::fp_form::lazy>("G2 (lazy form)"), &rng);
	check_group(g1.in<cuzk::fp_form::fused>("G1 (fused form)"), &rng);
	check_group(g2.in<cuzk::fp_form::fused>("G2 (fused form)"), &rng);
	check_mul_sub(&rng);
	check_forms(g1, &rng);
	check_forms(g2, &rng);
	CHECK_DONE();
}
