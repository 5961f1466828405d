// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Fp12 = Fp6[w]/(w^2 - v). */
#include "bls12_381/fp12.h"

/* xi^((p^k - 1)/6), k = 0..11: w^(p^k) = FROB12_W[k]·w */
static const fp2_t FROB12_W[12] = {
	{ { {
		0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
		0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0x07089552b319d465ULL, 0xc6695f92b50a8313ULL, 0x97e83cccd117228fULL,
		0xa35baecab2dc29eeULL, 0x1ce393ea5daace4dULL, 0x08f2220fb0fb66ebULL,
	} }, { {
		0xb2f66aad4ce5d646ULL, 0x5842a06bfc497cecULL, 0xcf4895d42599d394ULL,
		0xc11b9cba40a8e8d0ULL, 0x2e3813cbe5a0de89ULL, 0x110eefda88847fafULL,
	} } },
	{ { {
		0xecfb361b798dba3aULL, 0xc100ddb891865a2cULL, 0x0ec08ff1232bda8eULL,
		0xd5c13cc6f1ca4721ULL, 0x47222a47bf7b5c04ULL, 0x0110f184e51c5f59ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL,
		0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL,
	} }, { {
		0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
		0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL,
	} } },
	{ { {
		0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
		0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0x3726c30af242c66cULL, 0x7c2ac1aad1b6fe70ULL, 0xa04007fbba4b14a2ULL,
		0xef517c3266341429ULL, 0x0095ba654ed2226bULL, 0x02e370eccc86f7ddULL,
	} }, { {
		0x82d83cf50dbce43fULL, 0xa2813e53df9d018fULL, 0xc6f0caa53c65e181ULL,
		0x7525cf528d50fe95ULL, 0x4a85ed50f4798a6bULL, 0x171da0fd6cf8eebdULL,
	} } },
	{ { {
		0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL,
		0xeca8f3318332bb7aULL, 0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0xb2f66aad4ce5d646ULL, 0x5842a06bfc497cecULL, 0xcf4895d42599d394ULL,
		0xc11b9cba40a8e8d0ULL, 0x2e3813cbe5a0de89ULL, 0x110eefda88847fafULL,
	} }, { {
		0x07089552b319d465ULL, 0xc6695f92b50a8313ULL, 0x97e83cccd117228fULL,
		0xa35baecab2dc29eeULL, 0x1ce393ea5daace4dULL, 0x08f2220fb0fb66ebULL,
	} } },
	{ { {
		0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL,
		0x8eb60ebe01bacb9eULL, 0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
		0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL,
	} }, { {
		0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL,
		0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL,
	} } },
	{ { {
		0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL,
		0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0x82d83cf50dbce43fULL, 0xa2813e53df9d018fULL, 0xc6f0caa53c65e181ULL,
		0x7525cf528d50fe95ULL, 0x4a85ed50f4798a6bULL, 0x171da0fd6cf8eebdULL,
	} }, { {
		0x3726c30af242c66cULL, 0x7c2ac1aad1b6fe70ULL, 0xa04007fbba4b14a2ULL,
		0xef517c3266341429ULL, 0x0095ba654ed2226bULL, 0x02e370eccc86f7ddULL,
	} } },
};

void fp12_set_one(fp12_t *r)
{
	r->c0.c0 = FP2_ONE;
	r->c0.c1 = FP2_ZERO;
	r->c0.c2 = FP2_ZERO;
	r->c1.c0 = FP2_ZERO;
	r->c1.c1 = FP2_ZERO;
	r->c1.c2 = FP2_ZERO;
}

int fp12_is_one(const fp12_t *a)
{
	fp12_t one;
	fp12_set_one(&one);
	return fp12_eq(a, &one);
}

int fp12_eq(const fp12_t *a, const fp12_t *b)
{
	return fp6_eq(&a->c0, &b->c0) & fp6_eq(&a->c1, &b->c1);
}

/* Karatsuba: c0 = a0·b0 + v·a1·b1, c1 = (a0 + a1)(b0 + b1) - a0·b0 - a1·b1. */
void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
	fp6_t t0, t1, sa, sb;
	fp6_mul(&t0, &a->c0, &b->c0);
	fp6_mul(&t1, &a->c1, &b->c1);
	fp6_add(&sa, &a->c0, &a->c1);
	fp6_add(&sb, &b->c0, &b->c1);
	fp6_mul(&r->c1, &sa, &sb);
	fp6_sub(&r->c1, &r->c1, &t0);
	fp6_sub(&r->c1, &r->c1, &t1);
	fp6_mul_by_nonresidue(&t1, &t1);
	fp6_add(&r->c0, &t0, &t1);
}

/* Complex squaring: with t = a0·a1, c0 = (a0 + a1)(a0 + v·a1) - t - v·t, c1 = 2t. */
void fp12_sqr(fp12_t *r, const fp12_t *a)
{
	fp6_t t, s, va1, vt;
	fp6_mul(&t, &a->c0, &a->c1);
	fp6_add(&s, &a->c0, &a->c1);
	fp6_mul_by_nonresidue(&va1, &a->c1);
	fp6_add(&va1, &va1, &a->c0);
	fp6_mul(&s, &s, &va1);
	fp6_mul_by_nonresidue(&vt, &t);
	fp6_sub(&s, &s, &t);
	fp6_sub(&r->c0, &s, &vt);
	fp6_add(&r->c1, &t, &t);
}

/* 1/(a0 + a1·w) = (a0 - a1·w)/(a0^2 - v·a1^2) */
void fp12_inv(fp12_t *r, const fp12_t *a)
{
	fp6_t n, t;
	fp6_sqr(&n, &a->c0);
	fp6_sqr(&t, &a->c1);
	fp6_mul_by_nonresidue(&t, &t);
	fp6_sub(&n, &n, &t);
	fp6_inv(&n, &n);
	fp6_mul(&r->c0, &a->c0, &n);
	fp6_mul(&r->c1, &a->c1, &n);
	fp6_neg(&r->c1, &r->c1);
}

/* The p^6-power map: w -> -w.  In the cyclotomic subgroup it is the inverse. */
void fp12_conj(fp12_t *r, const fp12_t *a)
{
	r->c0 = a->c0;
	fp6_neg(&r->c1, &a->c1);
}

void fp12_frobenius(fp12_t *r, const fp12_t *a, unsigned power)
{
	unsigned k = power % 12;
	fp6_frobenius(&r->c0, &a->c0, power);
	fp6_frobenius(&r->c1, &a->c1, power);
	fp2_mul(&r->c1.c0, &r->c1.c0, &FROB12_W[k]);
	fp2_mul(&r->c1.c1, &r->c1.c1, &FROB12_W[k]);
	fp2_mul(&r->c1.c2, &r->c1.c2, &FROB12_W[k]);
}

/* a·l for l = l0 + l1·v + l4·v·w (the line shape of the M-type twist). */
void fp12_mul_by_014(fp12_t *r, const fp12_t *a, const fp2_t *l0, const fp2_t *l1, const fp2_t *l4)
{
	fp6_t t0, t1, s;
	fp2_t l14;
	fp6_mul_by_01(&t0, &a->c0, l0, l1);
	fp6_mul_by_1(&t1, &a->c1, l4);
	fp2_add(&l14, l1, l4);
	fp6_add(&s, &a->c0, &a->c1);
	fp6_mul_by_01(&s, &s, l0, &l14);
	fp6_sub(&s, &s, &t0);
	fp6_sub(&r->c1, &s, &t1);
	fp6_mul_by_nonresidue(&t1, &t1);
	fp6_add(&r->c0, &t0, &t1);
}

/* (x + y·s)^2 in Fp4 = Fp2[s]/(s^2 - xi): (x^2 + xi·y^2) + 2xy·s. */
static void fp4_sqr(fp2_t *r0, fp2_t *r1, const fp2_t *x, const fp2_t *y)
{
	fp2_t x2, y2, t;
	fp2_sqr(&x2, x);
	fp2_sqr(&y2, y);
	fp2_add(&t, x, y);
	fp2_sqr(&t, &t);
	fp2_sub(&t, &t, &x2);
	fp2_sub(r1, &t, &y2);
	fp2_mul_by_nonresidue(&y2, &y2);
	fp2_add(r0, &x2, &y2);
}

/* n·3 + 2·sign·c, i.e. 3n + 2c (sign > 0) or 3n - 2c (sign < 0). */
static void three_n_two_c(fp2_t *r, const fp2_t *n, const fp2_t *c, int sign)
{
	fp2_t t;
	if (sign > 0)
		fp2_add(&t, n, c);
	else
		fp2_sub(&t, n, c);
	fp2_dbl(&t, &t);
	fp2_add(r, &t, n);
}

/* Granger and Scott, "Faster squaring in the cyclotomic subgroup of sixth
 * degree extensions" (2010).  View Fp12 as Fp4[t]/(t^3 - s) with t = w,
 * s = w^3, so a = A + B·t + C·t^2 with A = a00 + a11·s, B = a10 + a02·s,
 * C = a01 + a12·s.  For a unitary element:
 *   A' = 3A^2 - 2·conj(A),  B' = 3s·C^2 + 2·conj(B),  C' = 3B^2 - 2·conj(C). */
void fp12_cyclotomic_sqr(fp12_t *r, const fp12_t *a)
{
	fp2_t a0, a1, b0, b1, c0, c1, xi_c1;
	fp4_sqr(&a0, &a1, &a->c0.c0, &a->c1.c1);
	fp4_sqr(&b0, &b1, &a->c1.c0, &a->c0.c2);
	fp4_sqr(&c0, &c1, &a->c0.c1, &a->c1.c2);
	/* A = a00 + a11·s */
	three_n_two_c(&r->c0.c0, &a0, &a->c0.c0, -1);
	three_n_two_c(&r->c1.c1, &a1, &a->c1.c1, +1);
	/* s·C^2 = xi·c1 + c0·s; B = a10 + a02·s */
	fp2_mul_by_nonresidue(&xi_c1, &c1);
	three_n_two_c(&r->c1.c0, &xi_c1, &a->c1.c0, +1);
	three_n_two_c(&r->c0.c2, &c0, &a->c0.c2, -1);
	/* C = a01 + a12·s, from B^2 */
	three_n_two_c(&r->c0.c1, &b0, &a->c0.c1, -1);
	three_n_two_c(&r->c1.c2, &b1, &a->c1.c2, +1);
}
