// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Fp2 = Fp[u]/(u^2 + 1): c0 + c1·u. */
#ifndef CUZK_BLS_FP2_H
#define CUZK_BLS_FP2_H

#include "bls12_381/fp.h"

typedef struct fp2 {
	fp_t c0, c1;
} fp2_t;

extern const fp2_t FP2_ZERO;
extern const fp2_t FP2_ONE;

void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_dbl(fp2_t *r, const fp2_t *a);
void fp2_neg(fp2_t *r, const fp2_t *a);
void fp2_conj(fp2_t *r, const fp2_t *a);
void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_sqr(fp2_t *r, const fp2_t *a);
void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b);
void fp2_mul_by_nonresidue(fp2_t *r, const fp2_t *a);   /* ·(1 + u) */
void fp2_inv(fp2_t *r, const fp2_t *a);
/* The same through fp_inv_vartime: public values only. */
void fp2_inv_vartime(fp2_t *r, const fp2_t *a);
int fp2_sqrt(fp2_t *r, const fp2_t *a);                 /* 1 if square */
void fp2_frobenius(fp2_t *r, const fp2_t *a, unsigned power);
int fp2_is_zero(const fp2_t *a);
int fp2_eq(const fp2_t *a, const fp2_t *b);
/* zcash rule: compare c1; if c1 = 0 compare c0. */
int fp2_is_lexicographically_largest(const fp2_t *a);

#endif
