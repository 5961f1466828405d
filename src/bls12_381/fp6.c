// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u.  Formulas from Devegili, Ó hÉigeartaigh,
 * Scott and Dahab, "Multiplication and squaring on pairing-friendly fields"
 * (2006): Karatsuba multiplication and the CH-SQR2 squaring. */
#include "bls12_381/fp12.h"

/* xi^((p^k - 1)/3), k = 0..5: v^(p^k) = FROB6_V[k]·v */
static const fp2_t FROB6_V[6] = {
	{ { {
		0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
		0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} }, { {
		0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL,
		0x8eb60ebe01bacb9eULL, 0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL,
	} } },
	{ { {
		0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
		0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} }, { {
		0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
		0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL,
	} } },
	{ { {
		0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL,
		0x8eb60ebe01bacb9eULL, 0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} }, { {
		0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
		0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL,
	} } },
};
/* xi^(2(p^k - 1)/3): (v^2)^(p^k) = FROB6_V2[k]·v^2 */
static const fp2_t FROB6_V2[6] = {
	{ { {
		0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
		0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL,
		0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL,
		0x8eb60ebe01bacb9eULL, 0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL,
		0xeca8f3318332bb7aULL, 0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
		0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
	{ { {
		0xecfb361b798dba3aULL, 0xc100ddb891865a2cULL, 0x0ec08ff1232bda8eULL,
		0xd5c13cc6f1ca4721ULL, 0x47222a47bf7b5c04ULL, 0x0110f184e51c5f59ULL,
	} }, { {
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	} } },
};

void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
	fp2_add(&r->c0, &a->c0, &b->c0);
	fp2_add(&r->c1, &a->c1, &b->c1);
	fp2_add(&r->c2, &a->c2, &b->c2);
}

void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
	fp2_sub(&r->c0, &a->c0, &b->c0);
	fp2_sub(&r->c1, &a->c1, &b->c1);
	fp2_sub(&r->c2, &a->c2, &b->c2);
}

void fp6_neg(fp6_t *r, const fp6_t *a)
{
	fp2_neg(&r->c0, &a->c0);
	fp2_neg(&r->c1, &a->c1);
	fp2_neg(&r->c2, &a->c2);
}

/* Karatsuba over the three coefficients: six Fp2 multiplications. */
void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
	fp2_t t0, t1, t2, sa, sb, c0, c1, c2;
	fp2_mul(&t0, &a->c0, &b->c0);
	fp2_mul(&t1, &a->c1, &b->c1);
	fp2_mul(&t2, &a->c2, &b->c2);
	/* c0 = xi·((a1 + a2)(b1 + b2) - t1 - t2) + t0 */
	fp2_add(&sa, &a->c1, &a->c2);
	fp2_add(&sb, &b->c1, &b->c2);
	fp2_mul(&c0, &sa, &sb);
	fp2_sub(&c0, &c0, &t1);
	fp2_sub(&c0, &c0, &t2);
	fp2_mul_by_nonresidue(&c0, &c0);
	fp2_add(&c0, &c0, &t0);
	/* c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi·t2 */
	fp2_add(&sa, &a->c0, &a->c1);
	fp2_add(&sb, &b->c0, &b->c1);
	fp2_mul(&c1, &sa, &sb);
	fp2_sub(&c1, &c1, &t0);
	fp2_sub(&c1, &c1, &t1);
	fp2_mul_by_nonresidue(&sa, &t2);
	fp2_add(&c1, &c1, &sa);
	/* c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1 */
	fp2_add(&sa, &a->c0, &a->c2);
	fp2_add(&sb, &b->c0, &b->c2);
	fp2_mul(&c2, &sa, &sb);
	fp2_sub(&c2, &c2, &t0);
	fp2_sub(&c2, &c2, &t2);
	fp2_add(&c2, &c2, &t1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}

/* CH-SQR2: s0 = a0^2, s1 = 2a0a1, s2 = (a0 - a1 + a2)^2, s3 = 2a1a2, s4 = a2^2;
 * c0 = s0 + xi·s3, c1 = s1 + xi·s4, c2 = s1 + s2 + s3 - s0 - s4. */
void fp6_sqr(fp6_t *r, const fp6_t *a)
{
	fp2_t s0, s1, s2, s3, s4, t;
	fp2_sqr(&s0, &a->c0);
	fp2_mul(&s1, &a->c0, &a->c1);
	fp2_dbl(&s1, &s1);
	fp2_sub(&t, &a->c0, &a->c1);
	fp2_add(&t, &t, &a->c2);
	fp2_sqr(&s2, &t);
	fp2_mul(&s3, &a->c1, &a->c2);
	fp2_dbl(&s3, &s3);
	fp2_sqr(&s4, &a->c2);
	fp2_mul_by_nonresidue(&t, &s3);
	fp2_add(&r->c0, &s0, &t);
	fp2_mul_by_nonresidue(&t, &s4);
	fp2_add(&t, &t, &s1);
	fp2_add(&r->c2, &s1, &s2);
	fp2_add(&r->c2, &r->c2, &s3);
	fp2_sub(&r->c2, &r->c2, &s0);
	fp2_sub(&r->c2, &r->c2, &s4);
	r->c1 = t;
}

/* 1/a = (A + B·v + C·v^2)/F with A = a0^2 - xi·a1·a2, B = xi·a2^2 - a0·a1,
 * C = a1^2 - a0·a2 and F = a0·A + xi·(a2·B + a1·C). */
void fp6_inv(fp6_t *r, const fp6_t *a)
{
	fp2_t A, B, C, F, t;
	fp2_sqr(&A, &a->c0);
	fp2_mul(&t, &a->c1, &a->c2);
	fp2_mul_by_nonresidue(&t, &t);
	fp2_sub(&A, &A, &t);
	fp2_sqr(&B, &a->c2);
	fp2_mul_by_nonresidue(&B, &B);
	fp2_mul(&t, &a->c0, &a->c1);
	fp2_sub(&B, &B, &t);
	fp2_sqr(&C, &a->c1);
	fp2_mul(&t, &a->c0, &a->c2);
	fp2_sub(&C, &C, &t);
	fp2_mul(&F, &a->c2, &B);
	fp2_mul(&t, &a->c1, &C);
	fp2_add(&F, &F, &t);
	fp2_mul_by_nonresidue(&F, &F);
	fp2_mul(&t, &a->c0, &A);
	fp2_add(&F, &F, &t);
	fp2_inv(&F, &F);
	fp2_mul(&r->c0, &A, &F);
	fp2_mul(&r->c1, &B, &F);
	fp2_mul(&r->c2, &C, &F);
}

/* (a0 + a1·v + a2·v^2)·v = xi·a2 + a0·v + a1·v^2 */
void fp6_mul_by_nonresidue(fp6_t *r, const fp6_t *a)
{
	fp2_t t;
	fp2_mul_by_nonresidue(&t, &a->c2);
	r->c2 = a->c1;
	r->c1 = a->c0;
	r->c0 = t;
}

/* a·(b0 + b1·v): the sparse product the Miller loop's lines need. */
void fp6_mul_by_01(fp6_t *r, const fp6_t *a, const fp2_t *b0, const fp2_t *b1)
{
	fp2_t t0, t1, c0, c1, c2, sa, sb;
	fp2_mul(&t0, &a->c0, b0);
	fp2_mul(&t1, &a->c1, b1);
	/* c0 = xi·a2·b1 + t0 */
	fp2_mul(&c0, &a->c2, b1);
	fp2_mul_by_nonresidue(&c0, &c0);
	fp2_add(&c0, &c0, &t0);
	/* c1 = (a0 + a1)(b0 + b1) - t0 - t1 */
	fp2_add(&sa, &a->c0, &a->c1);
	fp2_add(&sb, b0, b1);
	fp2_mul(&c1, &sa, &sb);
	fp2_sub(&c1, &c1, &t0);
	fp2_sub(&c1, &c1, &t1);
	/* c2 = a2·b0 + t1 */
	fp2_mul(&c2, &a->c2, b0);
	fp2_add(&c2, &c2, &t1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}

/* a·(b1·v) = xi·a2·b1 + a0·b1·v + a1·b1·v^2 */
void fp6_mul_by_1(fp6_t *r, const fp6_t *a, const fp2_t *b1)
{
	fp2_t c0, c1, c2;
	fp2_mul(&c0, &a->c2, b1);
	fp2_mul_by_nonresidue(&c0, &c0);
	fp2_mul(&c1, &a->c0, b1);
	fp2_mul(&c2, &a->c1, b1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}

void fp6_frobenius(fp6_t *r, const fp6_t *a, unsigned power)
{
	unsigned k = power % 6;
	fp2_frobenius(&r->c0, &a->c0, power);
	fp2_frobenius(&r->c1, &a->c1, power);
	fp2_frobenius(&r->c2, &a->c2, power);
	fp2_mul(&r->c1, &r->c1, &FROB6_V[k]);
	fp2_mul(&r->c2, &r->c2, &FROB6_V2[k]);
}

int fp6_is_zero(const fp6_t *a)
{
	return fp2_is_zero(&a->c0) & fp2_is_zero(&a->c1) & fp2_is_zero(&a->c2);
}

int fp6_eq(const fp6_t *a, const fp6_t *b)
{
	return fp2_eq(&a->c0, &b->c0) & fp2_eq(&a->c1, &b->c1) & fp2_eq(&a->c2, &b->c2);
}
