// SPDX-License-Identifier: Apache-2.0 OR MIT
/* G1 and G2 behind one table of operations, so that Pippenger and the
 * fixed-base tables are written once for both groups.  The indirect call
 * costs nothing next to a point addition (a dozen or more field products). */
#ifndef CUZK_PROVER_CURVE_OPS_H
#define CUZK_PROVER_CURVE_OPS_H

#include <stddef.h>

#include "bls12_381/g1.h"
#include "bls12_381/g2.h"

typedef struct curve_ops {
	const char *name;             /* "G1" or "G2", for messages */
	size_t aff_size, jac_size;    /* bytes of one affine / Jacobian point */
	const void *generator;        /* affine */
	void (*set_inf)(void *r);
	int (*is_inf)(const void *p);             /* Jacobian */
	int (*aff_is_inf)(const void *p);
	void (*from_aff)(void *r, const void *a);
	void (*add)(void *r, const void *a, const void *b);
	void (*add_aff)(void *r, const void *a, const void *b);
	void (*dbl)(void *r, const void *a);
	void (*aff_neg)(void *r, const void *a);
	void (*mul_fr)(void *r, const void *p, const fr_t *k);   /* Jacobian, Montgomery scalar */
	void (*batch_to_aff)(void *out, const void *in, size_t n);
} curve_ops;

extern const curve_ops CURVE_G1;
extern const curve_ops CURVE_G2;

/* Stack room for one point of either group. */
typedef union any_aff {
	g1_aff_t g1;
	g2_aff_t g2;
} any_aff_t;

typedef union any_jac {
	g1_jac_t g1;
	g2_jac_t g2;
} any_jac_t;

#endif
