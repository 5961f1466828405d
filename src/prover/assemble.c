// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "prover/assemble.h"

#include <string.h>

void groth16_assemble_precompute(groth16_assembly_pre *pre, const groth16_vk *vk, const fr_t *r, const fr_t *s)
{
	g1_jac_t delta1, beta1, t1;
	g2_jac_t delta2, t2;

	fr_from_mont(pre->r, r);
	fr_from_mont(pre->s, s);

	g1_from_affine(&delta1, &vk->delta_g1);
	g1_mul(&t1, &delta1, pre->r);
	g1_from_affine(&pre->a, &vk->alpha_g1);
	g1_add(&pre->a, &pre->a, &t1);                       /* α₁ + r·δ₁ */

	/* s·(α₁ + r·δ₁) + r·β₁ = s·α₁ + r·β₁ + r·s·δ₁: one double
	 * multiplication, and r·s is never formed. */
	g1_from_affine(&beta1, &vk->beta_g1);
	g1_mul2(&pre->c, &pre->a, pre->s, &beta1, pre->r);

	g2_from_affine(&delta2, &vk->delta_g2);
	g2_mul(&t2, &delta2, pre->s);
	g2_from_affine(&pre->b, &vk->beta_g2);
	g2_add(&pre->b, &pre->b, &t2);                       /* β₂ + s·δ₂ */

	/* Multiples of δ by r and s. */
	explicit_bzero(&t1, sizeof(t1));
	explicit_bzero(&t2, sizeof(t2));
}

/* A, B and C to affine with one inversion instead of three (Montgomery's
 * trick): fp_inv, constant-time, is 23 µs, and the finish was 300 µs with
 * three of them (bench_bls, on the 2-core development machine).  B's Z is
 * in Fp2 = Fp[u]/(u² + 1), where 1/Z = conj(Z)/N(Z), N(Z) = Z0² + Z1² in
 * Fp, so N(Z) joins A's and C's Z.  A point at infinity puts 1 in the
 * product in place of its Z (0), and comes out all-zero as from
 * g1_to_affine. */
static void proof_to_affine(groth16_proof *out, const g1_jac_t *a, const g2_jac_t *b, const g1_jac_t *c)
{
	struct {
		fp_t za, nb, zc, t, zab, inv, ia, ib, ic;
		fp2_t ib2;
	} w;

	w.za = g1_is_infinity(a) ? FP_ONE : a->Z;
	fp_sqr(&w.nb, &b->Z.c0);
	fp_sqr(&w.t, &b->Z.c1);
	fp_add(&w.nb, &w.nb, &w.t);
	if (g2_is_infinity(b))
		w.nb = FP_ONE;
	w.zc = g1_is_infinity(c) ? FP_ONE : c->Z;
	fp_mul(&w.zab, &w.za, &w.nb);
	fp_mul(&w.t, &w.zab, &w.zc);
	fp_inv(&w.inv, &w.t);                      /* 1/(za·nb·zc) */
	fp_mul(&w.ic, &w.inv, &w.zab);             /* 1/zc */
	fp_mul(&w.inv, &w.inv, &w.zc);             /* 1/(za·nb) */
	fp_mul(&w.ia, &w.inv, &w.nb);              /* 1/za */
	fp_mul(&w.ib, &w.inv, &w.za);              /* 1/nb */
	fp_mul(&w.ib2.c0, &b->Z.c0, &w.ib);
	fp_mul(&w.ib2.c1, &b->Z.c1, &w.ib);
	fp_neg(&w.ib2.c1, &w.ib2.c1);              /* 1/Z_B = conj(Z_B)/N(Z_B) */

	g1_to_affine_zinv(&out->a, a, &w.ia);
	g2_to_affine_zinv(&out->b, b, &w.ib2);
	g1_to_affine_zinv(&out->c, c, &w.ic);
	/* Functions of the Z's, which follow from r and s. */
	explicit_bzero(&w, sizeof(w));
}

void groth16_assemble_finish(groth16_proof *out, groth16_assembly_pre *pre, const groth16_query_sums *q)
{
	g1_jac_t a, c;
	g2_jac_t b;

	g1_add(&a, &pre->a, &q->a);
	g2_add(&b, &pre->b, &q->b_g2);
	g1_mul2(&c, &q->a, pre->s, &q->b_g1, pre->r);       /* s·ΣA + r·ΣB_G1 */
	g1_add(&c, &c, &pre->c);
	g1_add(&c, &c, &q->h);
	g1_add(&c, &c, &q->l);

	proof_to_affine(out, &a, &b, &c);

	/* The Jacobian forms (their Z follows from r and s) and pre itself. */
	explicit_bzero(&a, sizeof(a));
	explicit_bzero(&b, sizeof(b));
	explicit_bzero(&c, sizeof(c));
	explicit_bzero(pre, sizeof(*pre));
}

void groth16_assemble(groth16_proof *out, const groth16_vk *vk, const groth16_query_sums *q,
		      const fr_t *r, const fr_t *s)
{
	groth16_assembly_pre pre;
	groth16_assemble_precompute(&pre, vk, r, s);
	groth16_assemble_finish(out, &pre, q);
}
