// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Fp2, Fp6 and Fp12: field laws on random values, schoolbook vs Karatsuba,
 * inverses, Fp2 square roots, Frobenius = p-th power, the sparse line
 * products and the cyclotomic squaring against their general twins. */
#include <string.h>

#include "bls12_381/fp12.h"
#include "bls12_381/test_rand.h"
#include "../../tests/check.h"

static void rand_fp6(rng_t *rng, fp6_t *r)
{
	rand_fp2(rng, &r->c0);
	rand_fp2(rng, &r->c1);
	rand_fp2(rng, &r->c2);
}

static void rand_fp12(rng_t *rng, fp12_t *r)
{
	rand_fp6(rng, &r->c0);
	rand_fp6(rng, &r->c1);
}

static void fp12_pow_p(fp12_t *r, const fp12_t *a)
{
	fp12_t acc, base = *a;
	fp12_set_one(&acc);
	for (size_t i = 6; i-- > 0;)
		for (int bit = 63; bit >= 0; bit--) {
			fp12_sqr(&acc, &acc);
			if ((FP_MODULUS[i] >> bit) & 1)
				fp12_mul(&acc, &acc, &base);
		}
	*r = acc;
}

static void test_fp2(rng_t *rng)
{
	int squares = 0;
	for (int iter = 0; iter < 300; iter++) {
		fp2_t a, b, c, t1, t2, t3;
		rand_fp2(rng, &a);
		rand_fp2(rng, &b);
		rand_fp2(rng, &c);
		/* schoolbook: (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u */
		fp_t x, y;
		fp_mul(&x, &a.c0, &b.c0);
		fp_mul(&y, &a.c1, &b.c1);
		fp_sub(&t2.c0, &x, &y);
		fp_mul(&x, &a.c0, &b.c1);
		fp_mul(&y, &a.c1, &b.c0);
		fp_add(&t2.c1, &x, &y);
		fp2_mul(&t1, &a, &b);
		CHECK(fp2_eq(&t1, &t2));
		fp2_sqr(&t1, &a);
		fp2_mul(&t2, &a, &a);
		CHECK(fp2_eq(&t1, &t2));
		fp2_mul(&t1, &a, &b);
		fp2_mul(&t1, &t1, &c);
		fp2_mul(&t2, &b, &c);
		fp2_mul(&t2, &t2, &a);
		CHECK(fp2_eq(&t1, &t2));
		fp2_add(&t1, &b, &c);
		fp2_mul(&t1, &t1, &a);
		fp2_mul(&t2, &a, &b);
		fp2_mul(&t3, &a, &c);
		fp2_add(&t2, &t2, &t3);
		CHECK(fp2_eq(&t1, &t2));
		/* xi = 1 + u */
		fp2_t xi = { FP_ONE, FP_ONE };
		fp2_mul(&t1, &a, &xi);
		fp2_mul_by_nonresidue(&t2, &a);
		CHECK(fp2_eq(&t1, &t2));
		fp2_mul_fp(&t1, &a, &b.c0);
		t3 = b;
		t3.c1 = FP_ZERO;
		fp2_mul(&t2, &a, &t3);
		CHECK(fp2_eq(&t1, &t2));
		if (iter % 10 == 0) {
			fp2_inv(&t1, &a);
			fp2_mul(&t1, &t1, &a);
			CHECK(fp2_eq(&t1, &FP2_ONE));
			fp2_sqr(&t1, &a);
			CHECK(fp2_sqrt(&t2, &t1));
			fp2_sqr(&t3, &t2);
			CHECK(fp2_eq(&t3, &t1));
			/* random elements: about half are squares; a non-square must be rejected
			 * and leave r alone, and then -xi·a ... is checked by squaring back */
			t3 = a;
			if (fp2_sqrt(&t2, &b)) {
				squares++;
				fp2_sqr(&t1, &t2);
				CHECK(fp2_eq(&t1, &b));
			} else {
				CHECK(fp2_eq(&t3, &a));
				/* b non-square, xi non-square in Fp2 (it is the sextic non-residue): xi·b square */
				fp2_mul_by_nonresidue(&t1, &b);
				CHECK(fp2_sqrt(&t2, &t1));
			}
			/* Frobenius is the p-th power, and an involution */
			fp12_t e = { { a, FP2_ZERO, FP2_ZERO }, { FP2_ZERO, FP2_ZERO, FP2_ZERO } }, ep;
			fp12_pow_p(&ep, &e);
			fp2_frobenius(&t1, &a, 1);
			CHECK(fp2_eq(&t1, &ep.c0.c0));
			fp2_frobenius(&t2, &t1, 1);
			CHECK(fp2_eq(&t2, &a));
		}
	}
	CHECK(squares > 5 && squares < 25);
	fp2_t z;
	CHECK(fp2_sqrt(&z, &FP2_ZERO) && fp2_is_zero(&z));
	/* u^2 = -1, and the zcash ordering looks at c1 first */
	fp2_t u = { FP_ZERO, FP_ONE }, m;
	fp2_sqr(&m, &u);
	fp2_neg(&m, &m);
	CHECK(fp2_eq(&m, &FP2_ONE));
	fp2_t big = { FP_ZERO, FP_ZERO };
	fp_neg(&big.c0, &FP_ONE);
	CHECK(fp2_is_lexicographically_largest(&big));
	big.c1 = FP_ONE;
	CHECK(!fp2_is_lexicographically_largest(&big));
}

static void test_fp6(rng_t *rng)
{
	for (int iter = 0; iter < 100; iter++) {
		fp6_t a, b, c, t1, t2, t3;
		rand_fp6(rng, &a);
		rand_fp6(rng, &b);
		rand_fp6(rng, &c);
		fp6_mul(&t1, &a, &b);
		fp6_mul(&t2, &b, &a);
		CHECK(fp6_eq(&t1, &t2));
		fp6_mul(&t1, &t1, &c);
		fp6_mul(&t2, &b, &c);
		fp6_mul(&t2, &a, &t2);
		CHECK(fp6_eq(&t1, &t2));
		fp6_add(&t1, &b, &c);
		fp6_mul(&t1, &a, &t1);
		fp6_mul(&t2, &a, &b);
		fp6_mul(&t3, &a, &c);
		fp6_add(&t2, &t2, &t3);
		CHECK(fp6_eq(&t1, &t2));
		fp6_sqr(&t1, &a);
		fp6_mul(&t2, &a, &a);
		CHECK(fp6_eq(&t1, &t2));
		fp6_inv(&t1, &a);
		fp6_mul(&t1, &t1, &a);
		fp6_t one = { FP2_ONE, FP2_ZERO, FP2_ZERO };
		CHECK(fp6_eq(&t1, &one));
		/* v·a: multiply by (0, 1, 0) */
		fp6_t v = { FP2_ZERO, FP2_ONE, FP2_ZERO };
		fp6_mul(&t1, &a, &v);
		fp6_mul_by_nonresidue(&t2, &a);
		CHECK(fp6_eq(&t1, &t2));
		/* sparse products */
		fp6_t s = { b.c0, b.c1, FP2_ZERO };
		fp6_mul(&t1, &a, &s);
		fp6_mul_by_01(&t2, &a, &b.c0, &b.c1);
		CHECK(fp6_eq(&t1, &t2));
		fp6_t s1 = { FP2_ZERO, b.c1, FP2_ZERO };
		fp6_mul(&t1, &a, &s1);
		fp6_mul_by_1(&t2, &a, &b.c1);
		CHECK(fp6_eq(&t1, &t2));
		fp6_sub(&t1, &a, &b);
		fp6_add(&t1, &t1, &b);
		CHECK(fp6_eq(&t1, &a));
		fp6_neg(&t1, &a);
		fp6_add(&t1, &t1, &a);
		CHECK(fp6_is_zero(&t1));
	}
}

static void test_fp12(rng_t *rng)
{
	for (int iter = 0; iter < 40; iter++) {
		fp12_t a, b, c, t1, t2, t3;
		rand_fp12(rng, &a);
		rand_fp12(rng, &b);
		rand_fp12(rng, &c);
		fp12_mul(&t1, &a, &b);
		fp12_mul(&t2, &b, &a);
		CHECK(fp12_eq(&t1, &t2));
		fp12_mul(&t1, &t1, &c);
		fp12_mul(&t2, &b, &c);
		fp12_mul(&t2, &a, &t2);
		CHECK(fp12_eq(&t1, &t2));
		fp12_sqr(&t1, &a);
		fp12_mul(&t2, &a, &a);
		CHECK(fp12_eq(&t1, &t2));
		fp12_inv(&t1, &a);
		fp12_mul(&t1, &t1, &a);
		CHECK(fp12_is_one(&t1));
		/* w^2 = v */
		fp12_t w = { { FP2_ZERO, FP2_ZERO, FP2_ZERO }, { FP2_ONE, FP2_ZERO, FP2_ZERO } };
		fp12_t vv = { { FP2_ZERO, FP2_ONE, FP2_ZERO }, { FP2_ZERO, FP2_ZERO, FP2_ZERO } };
		fp12_sqr(&t1, &w);
		CHECK(fp12_eq(&t1, &vv));
		/* line shape l0 + l1 v + l4 v w */
		fp12_t l = { { b.c0.c0, b.c0.c1, FP2_ZERO }, { FP2_ZERO, b.c1.c1, FP2_ZERO } };
		fp12_mul(&t1, &a, &l);
		fp12_mul_by_014(&t2, &a, &b.c0.c0, &b.c0.c1, &b.c1.c1);
		CHECK(fp12_eq(&t1, &t2));
		if (iter < 3) {
			/* Frobenius(1) is the p-th power; powers k compose; 12 is the identity */
			fp12_pow_p(&t1, &a);
			fp12_frobenius(&t2, &a, 1);
			CHECK(fp12_eq(&t1, &t2));
			t3 = a;
			for (unsigned k = 1; k <= 12; k++) {
				fp12_frobenius(&t3, &t3, 1);
				fp12_frobenius(&t1, &a, k);
				CHECK_MSG(fp12_eq(&t1, &t3), "frobenius power %u", k);
			}
			CHECK(fp12_eq(&t3, &a));
			/* conj is the p^6-power */
			fp12_conj(&t1, &a);
			fp12_frobenius(&t2, &a, 6);
			CHECK(fp12_eq(&t1, &t2));
		}
		/* cyclotomic squaring on g = a^((p^6 - 1)(p^2 + 1)) */
		fp12_t g;
		fp12_conj(&t1, &a);
		fp12_inv(&t2, &a);
		fp12_mul(&g, &t1, &t2);
		fp12_frobenius(&t1, &g, 2);
		fp12_mul(&g, &t1, &g);
		fp12_sqr(&t1, &g);
		fp12_cyclotomic_sqr(&t2, &g);
		CHECK(fp12_eq(&t1, &t2));
		fp12_cyclotomic_sqr(&g, &g);   /* in place */
		CHECK(fp12_eq(&g, &t1));
		/* and conj is the inverse there */
		fp12_conj(&t2, &g);
		fp12_mul(&t2, &t2, &g);
		CHECK(fp12_is_one(&t2));
	}
}

int main(void)
{
	rng_t rng;
	rng_seed(&rng, 0x70e7);
	test_fp2(&rng);
	test_fp6(&rng);
	test_fp12(&rng);
	CHECK_DONE();
}
