// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Fp2 = Fp[u]/(u^2 + 1). */
#include "bls12_381/fp2.h"

#include "bls12_381/field_inline.h"

const fp2_t FP2_ZERO = { { { 0 } }, { { 0 } } };
const fp2_t FP2_ONE = { { {
	0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
	0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL,
} }, { { 0 } } };

/* Exponents for the square root (p = 3 mod 4). */
static const uint64_t P_MINUS_3_DIV_4[6] = {
	0xee7fbfffffffeaaaULL, 0x07aaffffac54ffffULL, 0xd9cc34a83dac3d89ULL,
	0xd91dd2e13ce144afULL, 0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL,
};
static const uint64_t P_MINUS_1_DIV_2[6] = {
	0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL,
	0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL,
};

/* The additions live in field_inline.h, the products here (with their Fp
 * products inlined; field_inline.h says why not further). */
void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
	fp2i_add(r, a, b);
}

void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
	fp2i_sub(r, a, b);
}

void fp2_dbl(fp2_t *r, const fp2_t *a)
{
	fp2i_dbl(r, a);
}

void fp2_neg(fp2_t *r, const fp2_t *a)
{
	fp2i_neg(r, a);
}

void fp2_conj(fp2_t *r, const fp2_t *a)
{
	r->c0 = a->c0;
	fpi_neg(&r->c1, &a->c1);
}

/* Karatsuba: three Fp multiplications. */
void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
	fp_t t0, t1, sa, sb;
	fpi_mul(&t0, &a->c0, &b->c0);
	fpi_mul(&t1, &a->c1, &b->c1);
	fpi_add(&sa, &a->c0, &a->c1);
	fpi_add(&sb, &b->c0, &b->c1);
	fpi_sub(&r->c0, &t0, &t1);
	fpi_mul(&r->c1, &sa, &sb);
	fpi_sub(&r->c1, &r->c1, &t0);
	fpi_sub(&r->c1, &r->c1, &t1);
}

/* Complex squaring: (a0 + a1)(a0 - a1) + 2·a0·a1·u. */
void fp2_sqr(fp2_t *r, const fp2_t *a)
{
	fp_t s, d, m;
	fpi_add(&s, &a->c0, &a->c1);
	fpi_sub(&d, &a->c0, &a->c1);
	fpi_mul(&m, &a->c0, &a->c1);
	fpi_mul(&r->c0, &s, &d);
	fpi_dbl(&r->c1, &m);
}

void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b)
{
	fp_mul(&r->c0, &a->c0, b);
	fp_mul(&r->c1, &a->c1, b);
}

/* (a0 + a1·u)(1 + u) = (a0 - a1) + (a0 + a1)·u */
void fp2_mul_by_nonresidue(fp2_t *r, const fp2_t *a)
{
	fp_t t;
	fp_sub(&t, &a->c0, &a->c1);
	fp_add(&r->c1, &a->c0, &a->c1);
	r->c0 = t;
}

/* 1/(a0 + a1·u) = (a0 - a1·u)/(a0^2 + a1^2), the norm inverted by fp_inverse */
static void fp2_inv_with(fp2_t *r, const fp2_t *a, void (*fp_inverse)(fp_t *, const fp_t *))
{
	fp_t n, t;
	fp_sqr(&n, &a->c0);
	fp_sqr(&t, &a->c1);
	fp_add(&n, &n, &t);
	fp_inverse(&n, &n);
	fp_mul(&r->c0, &a->c0, &n);
	fp_mul(&r->c1, &a->c1, &n);
	fp_neg(&r->c1, &r->c1);
}

void fp2_inv(fp2_t *r, const fp2_t *a)
{
	fp2_inv_with(r, a, fp_inv);
}

void fp2_inv_vartime(fp2_t *r, const fp2_t *a)
{
	fp2_inv_with(r, a, fp_inv_vartime);
}

static void fp2_pow(fp2_t *r, const fp2_t *a, const uint64_t exp[6])
{
	fp2_t acc = FP2_ONE, base = *a;
	for (size_t i = 6; i-- > 0;)
		for (int bit = 63; bit >= 0; bit--) {
			fp2_sqr(&acc, &acc);
			if ((exp[i] >> bit) & 1)
				fp2_mul(&acc, &acc, &base);
		}
	*r = acc;
}

/* Square root for p = 3 mod 4: Adj and Rodríguez-Henríquez, "Square root
 * computation over even extension fields" (2012), Algorithm 9.  The result
 * is squared back and compared, so a non-square can never slip through. */
int fp2_sqrt(fp2_t *r, const fp2_t *a)
{
	fp2_t a1, alpha, x0, cand, check, minus_one;
	fp2_neg(&minus_one, &FP2_ONE);
	fp2_pow(&a1, a, P_MINUS_3_DIV_4);          /* a1 = a^((p-3)/4) */
	fp2_sqr(&alpha, &a1);
	fp2_mul(&alpha, &alpha, a);                /* alpha = a1^2·a = a^((p-1)/2) */
	fp2_mul(&x0, &a1, a);                      /* x0 = a1·a = a^((p+1)/4) */
	if (fp2_eq(&alpha, &minus_one)) {
		/* cand = u·x0 */
		fp_neg(&cand.c0, &x0.c1);
		cand.c1 = x0.c0;
	} else {
		fp2_t b;
		fp2_add(&b, &alpha, &FP2_ONE);
		fp2_pow(&b, &b, P_MINUS_1_DIV_2);  /* b = (1 + alpha)^((p-1)/2) */
		fp2_mul(&cand, &b, &x0);
	}
	fp2_sqr(&check, &cand);
	if (!fp2_eq(&check, a))
		return 0;
	*r = cand;
	return 1;
}

/* The p-power map is conjugation; its square is the identity. */
void fp2_frobenius(fp2_t *r, const fp2_t *a, unsigned power)
{
	if (power & 1)
		fp2_conj(r, a);
	else
		*r = *a;
}

int fp2_is_zero(const fp2_t *a)
{
	return fp2i_is_zero(a);
}

int fp2_eq(const fp2_t *a, const fp2_t *b)
{
	return fp2i_eq(a, b);
}

int fp2_is_lexicographically_largest(const fp2_t *a)
{
	if (!fp_is_zero(&a->c1))
		return fp_is_lexicographically_largest(&a->c1);
	return fp_is_lexicographically_largest(&a->c0);
}
