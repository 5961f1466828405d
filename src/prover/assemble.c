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

	g1_to_affine(&out->a, &a);
	g2_to_affine(&out->b, &b);
	g1_to_affine(&out->c, &c);

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
