// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Fr: field laws, fast vs reference multiplication, inversion (single and
 * batch), roots of unity, and the byte and decimal conversions, with known
 * answers computed independently (Python big integers). */
#include <string.h>

#include "bls12_381/fr.h"
#include "bls12_381/test_rand.h"
#include "common/error.h"
#include "../../tests/check.h"

/* sha512("a") mod r, sha512("b") mod r and their product (canonical) */
static const uint64_t KAT_A[4] = { 0x677187094ba24b88ULL, 0x26847ffc05f295ecULL,
				   0x2c63185a1ad30ddfULL, 0x1a28c1aff7f7c504ULL };
static const uint64_t KAT_B[4] = { 0x4c5d8462bb3973f7ULL, 0x3441838cc1747667ULL,
				   0x217a2711bdbcb2daULL, 0x4bf8dc48b926ee55ULL };
static const uint64_t KAT_AB[4] = { 0x7fbdf493c6f6c15fULL, 0x32e9855c57786f9aULL,
				    0x7a73f14046f92115ULL, 0x572091d373e3822aULL };
static const char KAT_A_DEC[] = "11832144726905721342602402877786510073209739231663660018161404333262236699528";
static const char R_MINUS_1_DEC[] = "52435875175126190479447740508185965837690552500527637822603658699938581184512";

static void test_known_answers(void)
{
	fr_t a, b, ab;
	uint64_t out[4];
	fr_to_mont(&a, KAT_A);
	fr_to_mont(&b, KAT_B);
	fr_mul(&ab, &a, &b);
	fr_from_mont(out, &ab);
	CHECK(memcmp(out, KAT_AB, sizeof out) == 0);

	char buf[80];
	fr_to_decimal(buf, sizeof buf, &a);
	CHECK(strcmp(buf, KAT_A_DEC) == 0);
	fr_t d;
	CHECK(fr_from_decimal(&d, KAT_A_DEC) == 0);
	CHECK(fr_eq(&d, &a));

	fr_t minus_one;
	fr_neg(&minus_one, &FR_ONE);
	fr_to_decimal(buf, sizeof buf, &minus_one);
	CHECK(strcmp(buf, R_MINUS_1_DEC) == 0);
	fr_to_decimal(buf, sizeof buf, &FR_ZERO);
	CHECK(strcmp(buf, "0") == 0);
	CHECK(fr_from_decimal(&d, "0") == 0 && fr_is_zero(&d));
	CHECK(fr_from_decimal(&d, "1") == 0 && fr_is_one(&d));
	/* r itself, 2^256 and beyond, and malformed strings */
	CHECK(fr_from_decimal(&d, "52435875175126190479447740508185965837690552500527637822603658699938581184513") ==
	      -CUZK_E_NONCANONICAL);
	CHECK(fr_from_decimal(&d, "115792089237316195423570985008687907853269984665640564039457584007913129639936") ==
	      -CUZK_E_NONCANONICAL);
	CHECK(fr_from_decimal(&d, "") == -CUZK_E_FORMAT);
	CHECK(fr_from_decimal(&d, "12a") == -CUZK_E_FORMAT);
	CHECK(fr_from_decimal(&d, "-1") == -CUZK_E_FORMAT);
}

static void test_laws(rng_t *rng)
{
	for (int iter = 0; iter < 3000; iter++) {
		fr_t a, b, c, t1, t2, t3;
		rand_fr(rng, &a);
		rand_fr(rng, &b);
		rand_fr(rng, &c);
		fr_mul(&t1, &a, &b);
		fr_mul_ref(&t2, &a, &b);
		CHECK(fr_eq(&t1, &t2));
		fr_mul(&t2, &b, &a);
		CHECK(fr_eq(&t1, &t2));
		fr_mul_portable(&t3, &a, &b);
		CHECK(fr_eq(&t2, &t3));
		fr_sqr(&t1, &a);
		fr_mul_ref(&t2, &a, &a);
		CHECK(fr_eq(&t1, &t2));
		fr_mul(&t1, &t1, &c);
		fr_mul(&t2, &a, &c);
		fr_mul(&t2, &t2, &a);
		CHECK(fr_eq(&t1, &t2));
		fr_add(&t1, &b, &c);
		fr_mul(&t1, &a, &t1);
		fr_mul(&t2, &a, &b);
		fr_mul(&t3, &a, &c);
		fr_add(&t2, &t2, &t3);
		CHECK(fr_eq(&t1, &t2));
		fr_sub(&t1, &a, &b);
		fr_add(&t1, &t1, &b);
		CHECK(fr_eq(&t1, &a));
		fr_dbl(&t1, &a);
		fr_sub(&t1, &t1, &a);
		CHECK(fr_eq(&t1, &a));
		fr_neg(&t1, &a);
		fr_add(&t1, &t1, &a);
		CHECK(fr_is_zero(&t1));
		if (iter % 30 == 0) {
			fr_inv(&t1, &a);
			fr_mul(&t1, &t1, &a);
			CHECK(fr_is_one(&t1));
		}
	}
	fr_t z;
	fr_inv(&z, &FR_ZERO);
	CHECK(fr_is_zero(&z));
	fr_t seven, p;
	fr_from_u64(&seven, 7);
	fr_pow_u64(&p, &seven, 3);
	uint64_t out[4];
	fr_from_mont(out, &p);
	CHECK(out[0] == 343 && out[1] == 0 && out[2] == 0 && out[3] == 0);
}

static void test_batch_inv(rng_t *rng)
{
	enum { N = 37 };
	fr_t in[N], out[N], scratch[N];
	for (int i = 0; i < N; i++)
		rand_fr(rng, &in[i]);
	in[0] = FR_ZERO;
	in[17] = FR_ZERO;
	fr_batch_inv(out, in, N, scratch);
	for (int i = 0; i < N; i++) {
		fr_t one;
		fr_inv(&one, &in[i]);
		CHECK(fr_eq(&one, &out[i]));
	}
}

static void test_roots(void)
{
	/* w_k has order exactly 2^k: w^(2^(k-1)) = -1 */
	fr_t minus_one;
	fr_neg(&minus_one, &FR_ONE);
	for (unsigned k = 1; k <= FR_TWO_ADICITY; k++) {
		fr_t w;
		fr_root_of_unity(&w, k);
		for (unsigned i = 0; i + 1 < k; i++)
			fr_sqr(&w, &w);
		CHECK(fr_eq(&w, &minus_one));
	}
	fr_t w0;
	fr_root_of_unity(&w0, 0);
	CHECK(fr_is_one(&w0));
	/* the 2^32-th root is 7^((r-1)/2^32) */
	fr_t seven, w, t;
	fr_from_u64(&seven, 7);
	/* (r-1)/2^32 = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff */
	static const uint64_t e[4] = { 0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL,
				       0x299d7d483339d808ULL, 0x0000000073eda753ULL };
	t = FR_ONE;
	for (int i = 3; i >= 0; i--)
		for (int bit = 63; bit >= 0; bit--) {
			fr_sqr(&t, &t);
			if ((e[i] >> bit) & 1)
				fr_mul(&t, &t, &seven);
		}
	fr_root_of_unity(&w, 32);
	CHECK(fr_eq(&w, &t));
}

static void test_bytes(rng_t *rng)
{
	uint8_t buf[32], back[32];
	fr_t a, b;
	for (int i = 0; i < 100; i++) {
		rand_fr(rng, &a);
		fr_to_le_bytes(buf, &a);
		CHECK(fr_from_le_bytes(&b, buf) == 0);
		CHECK(fr_eq(&a, &b));
		fr_to_le_bytes(back, &b);
		CHECK(memcmp(buf, back, 32) == 0);
	}
	fr_to_le_bytes(buf, &FR_ONE);
	CHECK(buf[0] == 1 && buf[1] == 0 && buf[31] == 0);
	memcpy(buf, FR_MODULUS, 32);   /* little-endian host, as the formats assume */
	CHECK(fr_from_le_bytes(&b, buf) == -CUZK_E_NONCANONICAL);
	CHECK(fr_from_canonical(&b, FR_MODULUS) == -CUZK_E_NONCANONICAL);
	uint64_t rm1[4];
	memcpy(rm1, FR_MODULUS, sizeof rm1);
	rm1[0]--;
	CHECK(fr_from_canonical(&b, rm1) == 0);
}

int main(void)
{
	rng_t rng;
	rng_seed(&rng, 0xf7);
	test_known_answers();
	test_laws(&rng);
	test_batch_inv(&rng);
	test_roots();
	test_bytes(&rng);
	CHECK_DONE();
}
