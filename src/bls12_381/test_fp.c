// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Fp: field laws on random values, fast vs reference multiplication,
 * inversion and square roots, byte encodings, and known answers computed
 * independently (Python big integers). */
#include <string.h>

#include "bls12_381/fp.h"
#include "bls12_381/test_rand.h"
#include "common/error.h"
#include "../../tests/check.h"

/* sha512("a") mod p, sha512("b") mod p, their product and 1/a (canonical) */
static const uint64_t KAT_A[6] = { 0x37feb681c3623ea4ULL, 0xe85975fe459cbc31ULL, 0xc854390989f6bf5aULL,
				   0x40d6a978e742373eULL, 0x098b7d727feebcfdULL, 0x03727703b21b0a81ULL };
static const uint64_t KAT_B[6] = { 0xa9397e52758faf7fULL, 0x896042b7efa49158ULL, 0x8fcd0beb744de98aULL,
				   0x20d12758346be6c6ULL, 0x4f3a3e61e5b366f3ULL, 0x0445f543aa22ac34ULL };
static const uint64_t KAT_AB[6] = { 0xeced7fe0537499fdULL, 0x3d190dcccf88778aULL, 0x820488adb7ea0fb3ULL,
				    0xd1a59551ebff5258ULL, 0x098e7ebd10f4c3c2ULL, 0x0e1d06501f07b974ULL };
static const uint64_t KAT_INV_A[6] = { 0x76c5676397d90e7cULL, 0x34ae330d4fd80f3dULL, 0x1d83ef90ad8c111eULL,
				       0x61d4f69c580df9a5ULL, 0xd8cb2818ef0624f7ULL, 0x0f8fa7a129b571b3ULL };

static void test_known_answers(void)
{
	fp_t a, b, ab, inv;
	uint64_t out[6];
	fp_to_mont(&a, KAT_A);
	fp_to_mont(&b, KAT_B);
	fp_mul(&ab, &a, &b);
	fp_from_mont(out, &ab);
	CHECK(memcmp(out, KAT_AB, sizeof out) == 0);
	fp_inv(&inv, &a);
	fp_from_mont(out, &inv);
	CHECK(memcmp(out, KAT_INV_A, sizeof out) == 0);
	fp_from_mont(out, &a);
	CHECK(memcmp(out, KAT_A, sizeof out) == 0);

	/* 2·3 = 6, and -1 · -1 = 1 at the top of the range */
	fp_t two, three, six, prod, minus_one;
	fp_from_u64(&two, 2);
	fp_from_u64(&three, 3);
	fp_from_u64(&six, 6);
	fp_mul(&prod, &two, &three);
	CHECK(fp_eq(&prod, &six));
	fp_neg(&minus_one, &FP_ONE);
	fp_mul(&prod, &minus_one, &minus_one);
	CHECK(fp_eq(&prod, &FP_ONE));
	fp_sqr(&prod, &minus_one);
	CHECK(fp_eq(&prod, &FP_ONE));
	fp_add(&prod, &minus_one, &FP_ONE);
	CHECK(fp_is_zero(&prod));
}

static void test_laws(rng_t *rng)
{
	for (int iter = 0; iter < 2000; iter++) {
		fp_t a, b, c, t1, t2, t3;
		rand_fp(rng, &a);
		rand_fp(rng, &b);
		rand_fp(rng, &c);

		fp_mul(&t1, &a, &b);
		fp_mul_ref(&t2, &a, &b);
		CHECK(fp_eq(&t1, &t2));
		fp_mul(&t2, &b, &a);
		CHECK(fp_eq(&t1, &t2));
		fp_mul_portable(&t3, &a, &b);
		CHECK(fp_eq(&t1, &t3));
		fp_sqr(&t1, &a);
		fp_mul_ref(&t2, &a, &a);
		CHECK(fp_eq(&t1, &t2));

		/* (ab)c = a(bc) */
		fp_mul(&t1, &a, &b);
		fp_mul(&t1, &t1, &c);
		fp_mul(&t2, &b, &c);
		fp_mul(&t2, &a, &t2);
		CHECK(fp_eq(&t1, &t2));
		/* a(b+c) = ab + ac */
		fp_add(&t1, &b, &c);
		fp_mul(&t1, &a, &t1);
		fp_mul(&t2, &a, &b);
		fp_mul(&t3, &a, &c);
		fp_add(&t2, &t2, &t3);
		CHECK(fp_eq(&t1, &t2));
		/* (a+b)-b = a, a+(-a) = 0, 2a = a+a */
		fp_add(&t1, &a, &b);
		fp_sub(&t1, &t1, &b);
		CHECK(fp_eq(&t1, &a));
		fp_neg(&t1, &a);
		fp_add(&t1, &t1, &a);
		CHECK(fp_is_zero(&t1));
		fp_dbl(&t1, &a);
		fp_add(&t2, &a, &a);
		CHECK(fp_eq(&t1, &t2));
		fp_mul_small(&t1, &a, 3);
		fp_add(&t2, &t2, &a);
		CHECK(fp_eq(&t1, &t2));

		if (iter % 20 == 0) {
			fp_inv(&t1, &a);
			fp_mul(&t1, &t1, &a);
			CHECK(fp_eq(&t1, &FP_ONE));
			/* a square has a root; -a^2 has none (-1 is a non-square: p = 3 mod 4) */
			fp_sqr(&t1, &a);
			CHECK(fp_sqrt(&t2, &t1));
			fp_sqr(&t3, &t2);
			CHECK(fp_eq(&t3, &t1));
			fp_neg(&t1, &t1);
			t3 = a;
			CHECK(!fp_sqrt(&t3, &t1));
			CHECK(fp_eq(&t3, &a));   /* untouched on failure */
		}
	}
	fp_t z;
	fp_inv(&z, &FP_ZERO);
	CHECK(fp_is_zero(&z));
}

/* Values next to p and to 0 exercise every carry and the final subtraction. */
static void test_edges(void)
{
	uint64_t top[6];
	fp_t vals[6], t1, t2, t3;
	memcpy(top, FP_MODULUS, sizeof top);
	for (int i = 0; i < 4; i++) {
		top[0] = FP_MODULUS[0] - 1 - (uint64_t)i;
		memcpy(vals[i].l, top, sizeof top);   /* raw limbs: any value < p is valid */
	}
	vals[4] = FP_ZERO;
	vals[5] = FP_ONE;
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++) {
			fp_mul(&t1, &vals[i], &vals[j]);
			fp_mul_ref(&t2, &vals[i], &vals[j]);
			fp_mul_portable(&t3, &vals[i], &vals[j]);
			CHECK(fp_eq(&t1, &t2) && fp_eq(&t1, &t3));
			fp_add(&t1, &vals[i], &vals[j]);
			fp_sub(&t1, &t1, &vals[j]);
			CHECK(fp_eq(&t1, &vals[i]));
		}
}

static void test_pow(rng_t *rng)
{
	fp_t a, acc = FP_ONE, p;
	rand_fp(rng, &a);
	for (int e = 0; e < 70; e++) {
		uint64_t exp[2] = { (uint64_t)e, 0 };
		fp_pow(&p, &a, exp, 2);
		CHECK(fp_eq(&p, &acc));
		fp_mul(&acc, &acc, &a);
	}
}

static void test_bytes(rng_t *rng)
{
	uint8_t buf[48], back[48];
	fp_t a, b;
	for (int i = 0; i < 100; i++) {
		rand_fp(rng, &a);
		fp_to_be_bytes(buf, &a);
		CHECK(fp_from_be_bytes(&b, buf) == 0);
		CHECK(fp_eq(&a, &b));
		fp_to_be_bytes(back, &b);
		CHECK(memcmp(buf, back, 48) == 0);
	}
	/* p itself and all-ones are non-canonical; p-1 is fine */
	uint64_t pm1[6];
	memcpy(pm1, FP_MODULUS, sizeof pm1);
	pm1[0] -= 1;
	fp_to_mont(&a, pm1);
	fp_to_be_bytes(buf, &a);
	CHECK(fp_from_be_bytes(&b, buf) == 0);
	buf[47] += 1;
	CHECK(fp_from_be_bytes(&b, buf) == -CUZK_E_NONCANONICAL);
	memset(buf, 0xff, sizeof buf);
	CHECK(fp_from_be_bytes(&b, buf) == -CUZK_E_NONCANONICAL);
	/* KAT: 1 is 47 zero bytes then 0x01 */
	fp_to_be_bytes(buf, &FP_ONE);
	CHECK(buf[47] == 1 && buf[0] == 0 && buf[46] == 0);
}

/* The variable-time inverse against Fermat's, on random values and on
 * those whose Euclid runs take the extreme paths (1, 2, p-1, powers of 2). */
static void test_inv_vartime(rng_t *rng)
{
	fp_t a, x, y;
	for (int iter = 0; iter < 200; iter++) {
		rand_fp(rng, &a);
		fp_inv(&x, &a);
		fp_inv_vartime(&y, &a);
		CHECK(fp_eq(&x, &y));
	}
	uint64_t canon[6] = { 1 };
	for (int bit = 0; bit < 381; bit += 19) {
		memset(canon, 0, sizeof(canon));
		canon[bit / 64] = (uint64_t)1 << (bit % 64);
		fp_to_mont(&a, canon);
		fp_inv(&x, &a);
		fp_inv_vartime(&y, &a);
		CHECK(fp_eq(&x, &y));
		memcpy(a.l, canon, sizeof(canon));   /* the raw limbs, too */
		fp_inv(&x, &a);
		fp_inv_vartime(&y, &a);
		CHECK(fp_eq(&x, &y));
	}
	fp_neg(&a, &FP_ONE);
	fp_inv_vartime(&y, &a);
	CHECK(fp_eq(&y, &a));
	fp_inv_vartime(&y, &FP_ONE);
	CHECK(fp_eq(&y, &FP_ONE));
	fp_inv_vartime(&y, &FP_ZERO);
	CHECK(fp_is_zero(&y));
}

static void test_lexicographic(void)
{
	/* (p-1)/2 is the largest "small" value; (p+1)/2 the smallest "large" one */
	uint64_t half[6];
	uint64_t carry = 0;
	for (size_t i = 6; i-- > 0;) {
		half[i] = (FP_MODULUS[i] >> 1) | carry;
		carry = FP_MODULUS[i] << 63;
	}
	fp_t a;
	fp_to_mont(&a, half);
	CHECK(!fp_is_lexicographically_largest(&a));
	fp_add(&a, &a, &FP_ONE);
	CHECK(fp_is_lexicographically_largest(&a));
	CHECK(!fp_is_lexicographically_largest(&FP_ZERO));
	fp_neg(&a, &FP_ONE);
	CHECK(fp_is_lexicographically_largest(&a));
}

int main(void)
{
	rng_t rng;
	rng_seed(&rng, 0xf1e1d);
	test_known_answers();
	test_laws(&rng);
	test_edges();
	test_pow(&rng);
	test_bytes(&rng);
	test_lexicographic();
	test_inv_vartime(&rng);
	CHECK_DONE();
}
