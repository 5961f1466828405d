// SPDX-License-Identifier: Apache-2.0 OR MIT
// The device Fr code (cuda/ff/fr.cuh), compiled for the CPU with its carry
// chains emulated, against src/bls12_381's Fr: products, squares, sums,
// differences, powers, inverses and the constants on random and edge values,
// and the lazy representation (values in [0, 2r)) on values near r and 2r.
// Runs in every build (no GPU needed).
#include <cstdint>
#include <cstring>

#include "ff/fr.cuh"

extern "C" {
#include "bls12_381/fr.h"
#include "common/rand.h"
}

#include "../../tests/check.h"

namespace {

static_assert(sizeof(cuzk::fr_t) == sizeof(::fr_t), "device and host Fr share one layout");

// 256-bit integers as 4 LE u64, independent of the code under test.
struct u256 {
	uint64_t l[4];
};

bool lt(const u256 &a, const u256 &b)
{
	for (int i = 3; i >= 0; i--)
		if (a.l[i] != b.l[i])
			return a.l[i] < b.l[i];
	return false;
}

u256 sub(const u256 &a, const u256 &b)
{
	u256 r;
	unsigned __int128 borrow = 0;
	for (int i = 0; i < 4; i++) {
		unsigned __int128 d = (unsigned __int128)a.l[i] - b.l[i] - borrow;
		r.l[i] = (uint64_t)d;
		borrow = (d >> 64) ? 1 : 0;
	}
	return r;
}

u256 add(const u256 &a, const u256 &b)   // callers keep the sum below 2^256
{
	u256 r;
	unsigned __int128 carry = 0;
	for (int i = 0; i < 4; i++) {
		unsigned __int128 s = (unsigned __int128)a.l[i] + b.l[i] + carry;
		r.l[i] = (uint64_t)s;
		carry = s >> 64;
	}
	return r;
}

const u256 R1 = {{FR_MODULUS[0], FR_MODULUS[1], FR_MODULUS[2], FR_MODULUS[3]}};
const u256 R2X = add(R1, R1);   // 2r < 2^256

// x mod r for any 256-bit x (x < 3r since 2^256 < 3r).
::fr_t mod_r(const u256 &x)
{
	u256 v = x;
	while (!lt(v, R1))
		v = sub(v, R1);
	::fr_t f;
	std::memcpy(&f, &v, sizeof f);
	return f;
}

u256 to_u(const cuzk::fr_t &d)
{
	u256 u;
	std::memcpy(&u, &d, sizeof u);
	return u;
}

cuzk::fr_t to_dev(const u256 &u)
{
	cuzk::fr_t d;
	std::memcpy(&d, &u, sizeof d);
	return d;
}

cuzk::fr_t to_dev(const ::fr_t &h)
{
	cuzk::fr_t d;
	std::memcpy(&d, &h, sizeof d);
	return d;
}

bool same(const cuzk::fr_t &d, const ::fr_t &h) { return std::memcmp(&d, &h, sizeof h) == 0; }

u256 random_u256(rng_t *rng)
{
	u256 u;
	for (int i = 0; i < 4; i++)
		u.l[i] = rng_next(rng);
	return u;
}

// Uniform below bound by rejection (bound is r or 2r, both above 2^254).
u256 random_below(rng_t *rng, const u256 &bound)
{
	for (;;) {
		u256 u = random_u256(rng);
		if (!(bound.l[3] >> 63))
			u.l[3] >>= 1;
		if (lt(u, bound))
			return u;
	}
}

// Edge values of [0, bound): 0, 1, bound - 1, bound - 2, r - 1, r, r + 1,
// and values with all-ones or all-zero middle limbs.
u256 edge(int i, const u256 &bound)
{
	const u256 one = {{1, 0, 0, 0}};
	u256 cand[] = {
		{{0, 0, 0, 0}},
		one,
		sub(bound, one),
		sub(bound, add(one, one)),
		sub(R1, one),
		R1,
		add(R1, one),
		{{0xffffffffffffffffull, 0xffffffffffffffffull, 0, 0}},
		{{0, 0, 0xffffffffffffffffull, 0x0fffffffffffffffull}},
		{{0xffffffff00000000ull, 0x00000000ffffffffull, 0xffffffff00000000ull, 0x1fffffffffffffffull}},
	};
	u256 v = cand[i % (int)(sizeof cand / sizeof cand[0])];
	return lt(v, bound) ? v : sub(bound, one);
}
constexpr int EDGES = 10;

void check_reduced(rng_t *rng)
{
	for (int i = 0; i < 3000; i++) {
		u256 ua = i < EDGES ? edge(i, R1) : random_below(rng, R1);
		u256 ub = i < EDGES * EDGES ? edge(i / EDGES, R1) : random_below(rng, R1);
		if (i < EDGES)
			ub = random_below(rng, R1);
		::fr_t a, b, r;
		std::memcpy(&a, &ua, sizeof a);
		std::memcpy(&b, &ub, sizeof b);
		cuzk::fr_t da = to_dev(a), db = to_dev(b);
		fr_mul(&r, &a, &b);
		CHECK_MSG(same(cuzk::fr_mul(da, db), r), "fr_mul, case %d", i);
		CHECK_MSG(same(cuzk::fr_mul<true>(da, db), r), "fr_mul<parity>, case %d", i);
		fr_sqr(&r, &a);
		CHECK_MSG(same(cuzk::fr_sqr(da), r), "fr_sqr, case %d", i);
		fr_add(&r, &a, &b);
		CHECK_MSG(same(cuzk::fr_add(da, db), r), "fr_add, case %d", i);
		fr_sub(&r, &a, &b);
		CHECK_MSG(same(cuzk::fr_sub(da, db), r), "fr_sub, case %d", i);
		CHECK_MSG(cuzk::fr_is_zero(da) == (fr_is_zero(&a) != 0), "fr_is_zero, case %d", i);
		if (i < 8) {
			fr_inv(&r, &a);
			CHECK_MSG(same(cuzk::fr_inv(da), r), "fr_inv, case %d", i);
			const uint64_t e = rng_next(rng);
			fr_pow_u64(&r, &a, e);
			CHECK_MSG(same(cuzk::fr_pow(da, e), r), "fr_pow, case %d", i);
		}
		// canonical <-> Montgomery
		uint64_t canon[4];
		fr_from_mont(canon, &a);
		const cuzk::fr_t dc = cuzk::fr_from_mont(da);
		CHECK_MSG(std::memcmp(canon, &dc, sizeof dc) == 0, "fr_from_mont, case %d", i);
		fr_to_mont(&r, ua.l);
		CHECK_MSG(same(cuzk::fr_to_mont(da), r), "fr_to_mont, case %d", i);
	}
}

// The lazy representation: every result below 2r and congruent to the
// reduced one; fr_mul_lazy takes any 256-bit first operand.
void check_lazy(rng_t *rng)
{
	const u256 full = {{~0ull, ~0ull, ~0ull, ~0ull}};
	for (int i = 0; i < 3000; i++) {
		u256 ua = i < EDGES ? edge(i, R2X) : random_below(rng, R2X);
		u256 ub = i < EDGES * EDGES ? edge(i / EDGES, R2X) : random_below(rng, R2X);
		u256 uw = i < EDGES * EDGES ? edge(i % EDGES, R1) : random_below(rng, R1);
		u256 ux = i % 7 == 0 ? sub(full, {{(uint64_t)i, 0, 0, 0}}) : random_u256(rng);   // any 256 bits
		cuzk::fr_t da = to_dev(ua), db = to_dev(ub), dw = to_dev(uw), dx = to_dev(ux);
		::fr_t a = mod_r(ua), b = mod_r(ub), w = mod_r(uw), x = mod_r(ux), r;

		cuzk::fr_t m = cuzk::fr_mul_lazy(da, dw);
		fr_mul(&r, &a, &w);
		CHECK_MSG(lt(to_u(m), R2X) && same(to_dev(mod_r(to_u(m))), r), "fr_mul_lazy, case %d", i);
		m = cuzk::fr_mul_lazy(dx, dw);
		fr_mul(&r, &x, &w);
		CHECK_MSG(lt(to_u(m), R2X) && same(to_dev(mod_r(to_u(m))), r), "fr_mul_lazy (any a), case %d", i);

		cuzk::fr_t s = cuzk::fr_add_lazy(da, db);
		fr_add(&r, &a, &b);
		CHECK_MSG(lt(to_u(s), R2X) && same(to_dev(mod_r(to_u(s))), r), "fr_add_lazy, case %d", i);
		cuzk::fr_t d = cuzk::fr_sub_lazy(da, db);
		fr_sub(&r, &a, &b);
		CHECK_MSG(lt(to_u(d), R2X) && same(to_dev(mod_r(to_u(d))), r), "fr_sub_lazy, case %d", i);
		CHECK_MSG(same(cuzk::fr_reduce(da), a), "fr_reduce, case %d", i);
	}
}

// The parity-layout product gives the very bytes of mont_mul's, lazy and
// reduced, for any 256-bit first factor and any second below r: edge
// values (0, 1, the Montgomery 1, r - 1, r - 2, r, 2r - 1, 2^256 - 1 and
// the others of edge()) against each other, then random ones, some with
// all-ones limbs.
void check_parity(rng_t *rng)
{
	const u256 full = {{~0ull, ~0ull, ~0ull, ~0ull}};
	u256 mont1;
	std::memcpy(&mont1, &FR_ONE, sizeof mont1);
	auto first = [&](int k) {
		return k == 0 ? full : k == 1 ? sub(R2X, {{1, 0, 0, 0}}) : k == 2 ? mont1 : edge(k - 3, full);
	};
	auto second = [&](int k) { return k == 0 ? mont1 : edge(k - 1, R1); };
	for (int i = 0; i < 3 + EDGES; i++)
		for (int j = 0; j < 1 + EDGES; j++) {
			const cuzk::fr_t a = to_dev(first(i)), b = to_dev(second(j));
			const cuzk::fr_t lp = cuzk::fr_mul_lazy<true>(a, b), l = cuzk::fr_mul_lazy(a, b);
			CHECK_MSG(!std::memcmp(&lp, &l, sizeof l), "fr_mul_lazy<parity>, edges %d, %d", i, j);
		}
	for (int i = 0; i < 6000; i++) {
		u256 ua = random_u256(rng), ub = random_below(rng, R1);
		if (i % 4 == 1)
			ua.l[i / 4 % 4] = ~0ull;
		if (i % 4 == 2)
			ub = edge(i / 4, R1);
		const cuzk::fr_t a = to_dev(ua), b = to_dev(ub);
		const cuzk::fr_t lp = cuzk::fr_mul_lazy<true>(a, b), l = cuzk::fr_mul_lazy(a, b);
		CHECK_MSG(!std::memcmp(&lp, &l, sizeof l), "fr_mul_lazy<parity>, case %d", i);
		if (lt(ua, R1)) {
			const cuzk::fr_t rp = cuzk::fr_mul<true>(a, b), r = cuzk::fr_mul(a, b);
			CHECK_MSG(!std::memcmp(&rp, &r, sizeof r), "fr_mul<parity>, case %d", i);
		}
	}
}

void check_constants()
{
	::fr_t r;
	CHECK(same(cuzk::fr_one(), FR_ONE));
	CHECK(same(cuzk::fr_zero(), FR_ZERO));
	fr_root_of_unity(&r, 28);
	CHECK(same(cuzk::fr_omega_2_28(false), r));
	fr_inv(&r, &r);
	CHECK(same(cuzk::fr_omega_2_28(true), r));
	::fr_t w8;
	fr_root_of_unity(&w8, 3);
	for (unsigned e = 1; e <= 3; e++) {
		fr_pow_u64(&r, &w8, e);
		CHECK_MSG(same(cuzk::fr_root_8(e, false), r), "fr_root_8(%u)", e);
		fr_inv(&r, &r);
		CHECK_MSG(same(cuzk::fr_root_8(e, true), r), "fr_root_8(%u, inverse)", e);
	}
	fr_from_u64(&r, FR_GENERATOR);
	CHECK(same(cuzk::fr_coset_gen(false), r));
	fr_inv(&r, &r);
	CHECK(same(cuzk::fr_coset_gen(true), r));
	fr_from_u64(&r, 2);
	fr_inv(&r, &r);
	CHECK(same(cuzk::fr_half(), r));
	// R2 takes canonical 1 to Montgomery 1
	CHECK(same(cuzk::fr_to_mont(cuzk::fr_t{{1, 0, 0, 0, 0, 0, 0, 0}}), FR_ONE));
}

} // namespace

int main()
{
	rng_t rng;
	rng_seed(&rng, 0xf7);
	check_constants();
	check_reduced(&rng);
	check_lazy(&rng);
	check_parity(&rng);
	CHECK_DONE();
}
