// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The tower Fp6 = Fp2[v]/(v^3 - (1+u)) and Fp12 = Fp6[w]/(w^2 - v). */
#ifndef CUZK_BLS_FP12_H
#define CUZK_BLS_FP12_H

#include "bls12_381/fp2.h"

typedef struct fp6 {
	fp2_t c0, c1, c2;
} fp6_t;

typedef struct fp12 {
	fp6_t c0, c1;
} fp12_t;

void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_neg(fp6_t *r, const fp6_t *a);
void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_sqr(fp6_t *r, const fp6_t *a);
void fp6_inv(fp6_t *r, const fp6_t *a);
void fp6_mul_by_nonresidue(fp6_t *r, const fp6_t *a);   /* ·v */
void fp6_frobenius(fp6_t *r, const fp6_t *a, unsigned power);
int fp6_is_zero(const fp6_t *a);
int fp6_eq(const fp6_t *a, const fp6_t *b);
/* Sparse products for the Miller loop's lines: a·(b0 + b1·v) and a·(b1·v). */
void fp6_mul_by_01(fp6_t *r, const fp6_t *a, const fp2_t *b0, const fp2_t *b1);
void fp6_mul_by_1(fp6_t *r, const fp6_t *a, const fp2_t *b1);

void fp12_set_one(fp12_t *r);
int fp12_is_one(const fp12_t *a);
int fp12_eq(const fp12_t *a, const fp12_t *b);
void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_sqr(fp12_t *r, const fp12_t *a);
void fp12_inv(fp12_t *r, const fp12_t *a);
void fp12_conj(fp12_t *r, const fp12_t *a);
void fp12_frobenius(fp12_t *r, const fp12_t *a, unsigned power);
/* Squaring in the cyclotomic subgroup (after the easy part of the final exponentiation). */
void fp12_cyclotomic_sqr(fp12_t *r, const fp12_t *a);
/* a·(l0 + l1·v + l4·v·w): coefficients 0, 1 and 4 of the six Fp2 slots
 * (c0.c0, c0.c1, c1.c1), the shape of a line of the M-type twist. */
void fp12_mul_by_014(fp12_t *r, const fp12_t *a, const fp2_t *l0, const fp2_t *l1, const fp2_t *l4);

#endif
