// SPDX-License-Identifier: Apache-2.0 OR MIT
/* G2: y^2 = x^3 + 4(1 + u) over Fp2 (the M-type sextic twist), order-r subgroup.
 * Same conventions as g1.h: affine infinity is all-zero, Jacobian Z = 0. */
#ifndef CUZK_BLS_G2_H
#define CUZK_BLS_G2_H

#include "bls12_381/fp2.h"
#include "bls12_381/fr.h"

typedef struct g2_aff {
	fp2_t x, y;
} g2_aff_t;

typedef struct g2_jac {
	fp2_t X, Y, Z;
} g2_jac_t;

extern const g2_aff_t G2_GENERATOR;
extern const fp2_t G2_B;           /* b' = 4(1 + u) */

void g2_set_infinity(g2_jac_t *r);
int g2_is_infinity(const g2_jac_t *p);
int g2_aff_is_infinity(const g2_aff_t *p);
void g2_from_affine(g2_jac_t *r, const g2_aff_t *p);
void g2_to_affine(g2_aff_t *r, const g2_jac_t *p);
void g2_to_affine_zinv(g2_aff_t *r, const g2_jac_t *p, const fp2_t *zinv);
void g2_batch_to_affine(g2_aff_t *out, const g2_jac_t *in, size_t n);

void g2_add(g2_jac_t *r, const g2_jac_t *a, const g2_jac_t *b);
void g2_add_affine(g2_jac_t *r, const g2_jac_t *a, const g2_aff_t *b);
void g2_dbl(g2_jac_t *r, const g2_jac_t *a);
void g2_neg(g2_jac_t *r, const g2_jac_t *a);
void g2_aff_neg(g2_aff_t *r, const g2_aff_t *a);
int g2_eq(const g2_jac_t *a, const g2_jac_t *b);
int g2_aff_eq(const g2_aff_t *a, const g2_aff_t *b);

void g2_mul(g2_jac_t *r, const g2_jac_t *p, const uint64_t k[4]);
void g2_mul_fr(g2_jac_t *r, const g2_jac_t *p, const fr_t *k);
void g2_mul2(g2_jac_t *r, const g2_jac_t *p1, const uint64_t k1[4], const g2_jac_t *p2, const uint64_t k2[4]);

int g2_aff_is_on_curve(const g2_aff_t *p);
int g2_aff_in_subgroup(const g2_aff_t *p);
/* The untwist-Frobenius-twist endomorphism psi (acts on G2 as x·P). */
void g2_aff_psi(g2_aff_t *r, const g2_aff_t *p);

#endif
