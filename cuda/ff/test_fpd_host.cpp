// SPDX-License-Identifier: Apache-2.0 OR MIT
// The FP64 form of Fp (cuda/ff/fpd.cuh) on the CPU against src/bls12_381's
// Montgomery product: conversions both ways, products of random and edge
// values, of negated values (the balanced form's signed side), and chains
// of products kept in the FP64 form throughout (lazy values in (-2p, 2p)).
// Runs in every build (no GPU needed).
#include <cstdint>
#include <cstring>

#include "ff/fpd.cuh"

extern "C" {
#include "bls12_381/fp.h"
#include "common/rand.h"
}

#include "../../tests/check.h"

namespace {

static_assert(sizeof(cuzk::fp_t) == sizeof(::fp_t), "device and host Fp share one layout");

cuzk::fp_t to_dev(const ::fp_t &h)
{
	cuzk::fp_t d;
	std::memcpy(&d, &h, sizeof d);
	return d;
}

bool same(const cuzk::fp_t &d, const ::fp_t &h) { return std::memcmp(&d, &h, sizeof h) == 0; }

::fp_t random_fp(rng_t *rng)
{
	::fp_t a;
	for (int j = 0; j < 6; j++)
		a.l[j] = rng_next(rng);
	a.l[5] &= 0x0fffffffffffffffull;   // below p, whose top limb is 0x1a0111ea...
	return a;
}

// Edge values: 0, 1, the Montgomery one, p - 1, p - 2, one whose 48-bit
// chunks are mostly 2^47 - 1 (the balanced limbs' largest), then random.
::fp_t edge_fp(int k, rng_t *rng)
{
	if (k >= 6)
		return random_fp(rng);
	if (k == 2)
		return FP_ONE;
	::fp_t a = FP_ZERO;
	if (k == 1)
		a.l[0] = 1;
	for (int j = 0; j < 6 && k >= 3; j++)
		a.l[j] = k == 5 ? 0x7fff7fffffff7fffull : FP_MODULUS[j];
	if (k == 3 || k == 4)
		a.l[0] -= (uint64_t)k - 2;
	if (k == 5)
		a.l[5] &= 0x0fffffffffffffffull;
	return a;
}

cuzk::fpd_t neg(const cuzk::fpd_t &a)
{
	cuzk::fpd_t r;
	for (int k = 0; k < 8; k++)
		r.l[k] = -a.l[k];
	return r;
}

// Limbs balanced and integral: what mul needs of its inputs.
bool normalised(const cuzk::fpd_t &a)
{
	for (int k = 0; k < 8; k++)
		if (a.l[k] != (double)(int64_t)a.l[k] || a.l[k] > 0x1p47 || a.l[k] < -0x1p47)
			return false;
	return true;
}

void check_convert(rng_t *rng)
{
	for (int i = 0; i < 1000; i++) {
		const ::fp_t a = edge_fp(i, rng);
		const cuzk::fpd_t d = cuzk::fpd_from(to_dev(a));
		CHECK_MSG(normalised(d), "fpd_from, case %d: limbs not balanced", i);
		CHECK_MSG(same(cuzk::fpd_to(d), a), "fpd_to(fpd_from(a)) != a, case %d", i);
		// -a in the FP64 form comes back as p - a (0 as 0).
		::fp_t na;
		fp_neg(&na, &a);
		CHECK_MSG(same(cuzk::fpd_to(neg(d)), na), "fpd_to(-a) != p - a, case %d", i);
	}
}

void check_mul(rng_t *rng)
{
	for (int i = 0; i < 20000; i++) {
		const ::fp_t a = edge_fp(i % 7, rng), b = edge_fp(i / 7 % 7, rng);
		::fp_t want, nwant;
		fp_mul(&want, &a, &b);
		fp_neg(&nwant, &want);
		const cuzk::fpd_t da = cuzk::fpd_from(to_dev(a)), db = cuzk::fpd_from(to_dev(b));
		const cuzk::fpd_t r = cuzk::mul(da, db);
		CHECK_MSG(normalised(r), "mul, case %d: result limbs not balanced", i);
		CHECK_MSG(same(cuzk::fpd_to(r), want), "mul(a, b) != a·b, case %d", i);
		CHECK_MSG(same(cuzk::fpd_to(cuzk::mul(neg(da), db)), nwant), "mul(-a, b) != -(a·b), case %d", i);
		CHECK_MSG(same(cuzk::fpd_to(cuzk::mul(neg(da), neg(db))), want), "mul(-a, -b) != a·b, case %d", i);
		const cuzk::fpd_t ri = cuzk::mul_ia(da, db);
		CHECK_MSG(normalised(ri), "mul_ia, case %d: result limbs not balanced", i);
		CHECK_MSG(same(cuzk::fpd_to(ri), want), "mul_ia(a, b) != a·b, case %d", i);
		CHECK_MSG(same(cuzk::fpd_to(cuzk::mul_ia(neg(da), db)), nwant), "mul_ia(-a, b) != -(a·b), case %d", i);
		CHECK_MSG(same(cuzk::fpd_to(cuzk::mul_ia(da, neg(db))), nwant), "mul_ia(a, -b) != -(a·b), case %d", i);
	}
}

// x <- x·y for many steps without leaving the FP64 form: its lazy values
// (anywhere in (-2p, 2p)) must keep feeding the product exactly.  The
// reference negates x on even steps; mul's chain takes -y on those, mul_ia's
// on every third, so its sign differs where the two rules disagree.
void check_chains(rng_t *rng)
{
	for (int c = 0; c < 50; c++) {
		::fp_t x = random_fp(rng), y = c == 0 ? FP_ONE : random_fp(rng);
		cuzk::fpd_t dx = cuzk::fpd_from(to_dev(x)), ix = dx;
		const cuzk::fpd_t dy = cuzk::fpd_from(to_dev(y));
		for (int s = 0; s < 500; s++) {
			fp_mul(&x, &x, &y);
			dx = cuzk::mul(dx, s % 2 ? dy : neg(dy));
			ix = cuzk::mul_ia(s % 3 ? dy : neg(dy), ix);
			if (s % 2 == 0)
				fp_neg(&x, &x);
			CHECK_MSG(normalised(dx) && normalised(ix), "chain %d, step %d: limbs not balanced", c, s);
		}
		CHECK_MSG(same(cuzk::fpd_to(dx), x), "chain %d: 500 products in the FP64 form != the reference", c);
		// ix took -y on every third step (s % 3 == 0: 167 of them, an odd count).
		::fp_t nx;
		fp_neg(&nx, &x);
		::fp_t want_i = x;
		int flips = 0;
		for (int s = 0; s < 500; s++)
			flips += (s % 3 == 0) != (s % 2 == 0);
		if (flips % 2)
			want_i = nx;
		CHECK_MSG(same(cuzk::fpd_to(ix), want_i), "chain %d: 500 products with mul_ia != the reference", c);
	}
}

} // namespace

int main()
{
	rng_t rng;
	rng_seed(&rng, 0x66706400);
	check_convert(&rng);
	check_mul(&rng);
	check_chains(&rng);
	CHECK_DONE();
}
