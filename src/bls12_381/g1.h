// SPDX-License-Identifier: Apache-2.0 OR MIT
/* G1: y^2 = x^3 + 4 over Fp, the prime-order-r subgroup.
 *
 * Affine points are (x, y) with the point at infinity stored as all-zero
 * limbs ((0,0) is not on the curve, so the encoding is unambiguous).  That
 * 96-byte layout is what the SRS arrays and the GPU backend use.
 * Jacobian points: (X, Y, Z) ~ (X/Z^2, Y/Z^3); infinity has Z = 0. */
#ifndef CUZK_BLS_G1_H
#define CUZK_BLS_G1_H

#include "bls12_381/fp.h"
#include "bls12_381/fr.h"

typedef struct g1_aff {
	fp_t x, y;
} g1_aff_t;

typedef struct g1_jac {
	fp_t X, Y, Z;
} g1_jac_t;

extern const g1_aff_t G1_GENERATOR;
extern const fp_t G1_B;            /* b = 4 of y^2 = x^3 + b */

void g1_set_infinity(g1_jac_t *r);
int g1_is_infinity(const g1_jac_t *p);
int g1_aff_is_infinity(const g1_aff_t *p);
void g1_from_affine(g1_jac_t *r, const g1_aff_t *p);
void g1_to_affine(g1_aff_t *r, const g1_jac_t *p);
/* p to affine given zinv = 1/Z, for callers that invert several Z together
 * (infinity, Z = 0, gives all-zero whatever zinv). */
void g1_to_affine_zinv(g1_aff_t *r, const g1_jac_t *p, const fp_t *zinv);
/* n Jacobian points to affine with one inversion.  in and out may not alias. */
void g1_batch_to_affine(g1_aff_t *out, const g1_jac_t *in, size_t n);

/* Complete: any of the inputs may be infinity or equal to each other. */
void g1_add(g1_jac_t *r, const g1_jac_t *a, const g1_jac_t *b);
void g1_add_affine(g1_jac_t *r, const g1_jac_t *a, const g1_aff_t *b);
void g1_dbl(g1_jac_t *r, const g1_jac_t *a);
void g1_neg(g1_jac_t *r, const g1_jac_t *a);
void g1_aff_neg(g1_aff_t *r, const g1_aff_t *a);
int g1_eq(const g1_jac_t *a, const g1_jac_t *b);   /* projective equality */
int g1_aff_eq(const g1_aff_t *a, const g1_aff_t *b);

/* r = k·p, k as canonical little-endian limbs (any 256-bit value). */
void g1_mul(g1_jac_t *r, const g1_jac_t *p, const uint64_t k[4]);
/* r = k·p for a Montgomery-form scalar. */
void g1_mul_fr(g1_jac_t *r, const g1_jac_t *p, const fr_t *k);
/* r = k1·p1 + k2·p2 (canonical limbs as g1_mul), with one chain of doublings
 * for both: 0.7 to 0.75 of the time of two g1_mul (bench_bls). */
void g1_mul2(g1_jac_t *r, const g1_jac_t *p1, const uint64_t k1[4], const g1_jac_t *p2, const uint64_t k2[4]);

/* phi(x, y) = (beta·x, y), an endomorphism that acts on G1 as
 * multiplication by -x^2 mod r (x the curve parameter); infinity maps to
 * itself.  The MSM splits scalars with it (GLV). */
void g1_aff_phi(g1_aff_t *r, const g1_aff_t *p);

int g1_aff_is_on_curve(const g1_aff_t *p);      /* infinity counts as on the curve */
int g1_aff_in_subgroup(const g1_aff_t *p);      /* r·p = 0 (or an equivalent endomorphism test) */

#endif
