// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Many multiples k_i·P of one point P (the development setup's workload):
 * a table of d·2^(w·c)·P for every window w and digit 1 <= d <= 2^(c-1),
 * affine, so each product is about 255/c additions with signed digits
 * (scalar_digits.h) and no doublings.  The products of a batch are summed
 * in affine coordinates, one shared inversion per window
 * (msm_affine_add_batch), so they come out affine with no normalisation. */
#ifndef CUZK_PROVER_FIXED_BASE_H
#define CUZK_PROVER_FIXED_BASE_H

#include <stddef.h>

#include "bls12_381/fr.h"
#include "common/error.h"
#include "prover/curve_ops.h"

typedef struct fixed_base {
	const curve_ops *ops;
	unsigned c, nwin;
	size_t per_win;               /* 2^(c-1) entries per window */
	unsigned char *table;         /* nwin·per_win affine points */
} fixed_base;

/* Table for the affine point base with windows of c bits (2 <= c <= 16). */
int fixed_base_init(fixed_base *fb, const curve_ops *ops, const void *base, unsigned c,
		    cuzk_error *err);
void fixed_base_free(fixed_base *fb);

/* out[i] = k[i]·P as affine points, k in Montgomery form.  Multi-threaded. */
void fixed_base_mul_many(const fixed_base *fb, void *out, const fr_t *k, size_t n);

#endif
