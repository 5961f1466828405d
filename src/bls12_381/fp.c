// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Fp: the shared field code (field_impl.h) with p, plus inversion, square
 * roots and the byte encoding. */
#include "bls12_381/fp.h"

#include <string.h>

#include "bls12_381/limbs.h"
#include "common/error.h"

#define N 6

const uint64_t FP_MODULUS[6] = {
	0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
	0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL,
};
const fp_t FP_ZERO = { { 0 } };
/* 2^384 mod p */
const fp_t FP_ONE = { {
	0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
	0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL,
} };
/* 2^768 mod p, to enter Montgomery form with one multiplication */
static const fp_t FP_R2 = { {
	0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
	0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL,
} };
static const uint64_t P_MINUS_2[6] = {
	0xb9feffffffffaaa9ULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
	0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL,
};
/* (p+1)/4: p = 3 mod 4, so a^((p+1)/4) is a root of every square a */
static const uint64_t P_PLUS_1_DIV_4[6] = {
	0xee7fbfffffffeaabULL, 0x07aaffffac54ffffULL, 0xd9cc34a83dac3d89ULL,
	0xd91dd2e13ce144afULL, 0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL,
};
static const uint64_t P_MINUS_1_DIV_2[6] = {
	0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL,
	0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL,
};

#define F(name) fp_##name
#define F_T fp_t
#define F_N 6
#define F_MODULUS FP_MODULUS
#define F_INV 0x89f3fffcfffcfffdULL    /* -p^(-1) mod 2^64 */
#define F_R2 FP_R2
#define F_ONE FP_ONE
#define F_MUL_ADX fp_mont_mul_adx
#include "bls12_381/field_impl.h"

void fp_mul_small(fp_t *r, const fp_t *a, uint64_t k)
{
	fp_t kk;
	fp_from_u64(&kk, k);
	fp_mul(r, a, &kk);
}

/* Left-to-right square and multiply; the exponents used here are public. */
void fp_pow(fp_t *r, const fp_t *a, const uint64_t *exp, size_t exp_limbs)
{
	fp_pow_limbs(r, a, exp, exp_limbs);
}

/* Fermat: a^(p-2). */
void fp_inv(fp_t *r, const fp_t *a)
{
	fp_pow(r, a, P_MINUS_2, N);
}

/* x = x/2 mod p for x < p: add p first when x is odd (x + p < 2^382). */
static void half_mod_p(uint64_t x[6])
{
	if (x[0] & 1)
		limbs_add(x, x, FP_MODULUS, N);
	for (int i = 0; i < N - 1; i++)
		x[i] = (x[i] >> 1) | (x[i + 1] << 63);
	x[N - 1] >>= 1;
}

static int is_one(const uint64_t x[6])
{
	return x[0] == 1 && (x[1] | x[2] | x[3] | x[4] | x[5]) == 0;
}

/* Invariants of the binary extended Euclid algorithm on the limbs A of a
 * (A = a·R mod p): u ≡ x1·A and v ≡ x2·A (mod p), gcd(u, v) = 1; each step
 * halves an even one or subtracts the smaller from the larger, until one is
 * 1, whose x is then 1/A = 1/(a·R).  One Montgomery product with R^3 turns
 * that into (1/a)·R, the Montgomery form of 1/a. */
void fp_inv_vartime(fp_t *r, const fp_t *a)
{
	uint64_t u[6], v[6], x1[6] = { 1 }, x2[6] = { 0 };
	if (fp_is_zero(a)) {
		*r = FP_ZERO;
		return;
	}
	memcpy(u, a->l, sizeof(u));
	memcpy(v, FP_MODULUS, sizeof(v));
	while (!is_one(u) && !is_one(v)) {
		while (!(u[0] & 1)) {
			for (int i = 0; i < N - 1; i++)
				u[i] = (u[i] >> 1) | (u[i + 1] << 63);
			u[N - 1] >>= 1;
			half_mod_p(x1);
		}
		while (!(v[0] & 1)) {
			for (int i = 0; i < N - 1; i++)
				v[i] = (v[i] >> 1) | (v[i + 1] << 63);
			v[N - 1] >>= 1;
			half_mod_p(x2);
		}
		if (!limbs_lt(u, v, N)) {
			limbs_sub(u, u, v, N);
			limbs_mod_sub(x1, x1, x2, FP_MODULUS, N);
		} else {
			limbs_sub(v, v, u, N);
			limbs_mod_sub(x2, x2, x1, FP_MODULUS, N);
		}
	}
	fp_t inv, r3;
	memcpy(inv.l, is_one(u) ? x1 : x2, sizeof(inv.l));
	fp_mul(&r3, &FP_R2, &FP_R2);   /* R^4/R */
	fp_mul(r, &inv, &r3);
}

int fp_sqrt(fp_t *r, const fp_t *a)
{
	fp_t root, check;
	fp_pow(&root, a, P_PLUS_1_DIV_4, N);
	fp_sqr(&check, &root);
	if (!fp_eq(&check, a))
		return 0;
	*r = root;
	return 1;
}

int fp_is_lexicographically_largest(const fp_t *a)
{
	uint64_t canon[6];
	fp_from_mont(canon, a);
	return limbs_lt(P_MINUS_1_DIV_2, canon, N);
}

int fp_from_be_bytes(fp_t *r, const uint8_t in[48])
{
	uint64_t canon[6];
	limbs_from_be(canon, in, N);
	if (!limbs_lt(canon, FP_MODULUS, N))
		return -CUZK_E_NONCANONICAL;
	fp_to_mont(r, canon);
	return 0;
}

void fp_to_be_bytes(uint8_t out[48], const fp_t *a)
{
	uint64_t canon[6];
	fp_from_mont(canon, a);
	limbs_to_be(out, canon, N);
}
