// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "prover/curve_ops.h"

/* Thin adapters, generated once per group: the table needs one signature for
 * both.  g is the function prefix (g1, g2), G the constant prefix (G1, G2). */
#define CURVE_ADAPTERS(g, G)                                                                  \
	static void g##_set_inf_v(void *r) { g##_set_infinity(r); }                         \
	static int g##_is_inf_v(const void *p) { return g##_is_infinity(p); }               \
	static int g##_aff_is_inf_v(const void *p) { return g##_aff_is_infinity(p); }       \
	static void g##_from_aff_v(void *r, const void *a) { g##_from_affine(r, a); }       \
	static void g##_add_v(void *r, const void *a, const void *b) { g##_add(r, a, b); }  \
	static void g##_add_aff_v(void *r, const void *a, const void *b)                    \
	{                                                                                   \
		g##_add_affine(r, a, b);                                                    \
	}                                                                                   \
	static void g##_dbl_v(void *r, const void *a) { g##_dbl(r, a); }                    \
	static void g##_aff_neg_v(void *r, const void *a) { g##_aff_neg(r, a); }            \
	static void g##_mul_fr_v(void *r, const void *p, const fr_t *k) { g##_mul_fr(r, p, k); } \
	static void g##_batch_v(void *out, const void *in, size_t n)                        \
	{                                                                                   \
		g##_batch_to_affine(out, in, n);                                            \
	}                                                                                   \
	const curve_ops CURVE_##G = {                                                       \
		.name = #G,                                                                 \
		.aff_size = sizeof(g##_aff_t),                                              \
		.jac_size = sizeof(g##_jac_t),                                              \
		.generator = &G##_GENERATOR,                                                \
		.set_inf = g##_set_inf_v,                                                   \
		.is_inf = g##_is_inf_v,                                                     \
		.aff_is_inf = g##_aff_is_inf_v,                                             \
		.from_aff = g##_from_aff_v,                                                 \
		.add = g##_add_v,                                                           \
		.add_aff = g##_add_aff_v,                                                   \
		.dbl = g##_dbl_v,                                                           \
		.aff_neg = g##_aff_neg_v,                                                   \
		.mul_fr = g##_mul_fr_v,                                                     \
		.batch_to_aff = g##_batch_v,                                                \
	};

CURVE_ADAPTERS(g1, G1)
CURVE_ADAPTERS(g2, G2)
