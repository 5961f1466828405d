// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The assembly in two steps (assemble.h) against the formula it replaced,
 * kept here as the reference: random keys, r, s and query sums, then sums
 * chosen so that A, B or C is the point at infinity, or a sum is.  The
 * proofs must be the same struct bytes and the same wire bytes. */
#include <string.h>

#include "../../tests/check.h"
#include "formats/params_io.h"
#include "prover/assemble.h"
#include "prover/fr_sample.h"

/* The assembly as it was before the split (one pass, every product after
 * the sums):  A = α₁ + ΣA + r·δ₁;  B = β₂ + ΣB_G2 + s·δ₂;
 * C = s·A + r·B₁ − r·s·δ₁ + ΣH + ΣL,  B₁ = β₁ + ΣB_G1 + s·δ₁. */
static void reference_assemble(groth16_proof *out, const groth16_vk *vk, const groth16_query_sums *q,
			       const fr_t *r, const fr_t *s)
{
	g1_jac_t delta1, a, b1, c, t1;
	g2_jac_t delta2, b2, t2;
	fr_t rs;

	g1_from_affine(&delta1, &vk->delta_g1);
	g2_from_affine(&delta2, &vk->delta_g2);
	g1_from_affine(&a, &vk->alpha_g1);
	g1_add(&a, &a, &q->a);
	g1_mul_fr(&t1, &delta1, r);
	g1_add(&a, &a, &t1);
	g2_from_affine(&b2, &vk->beta_g2);
	g2_add(&b2, &b2, &q->b_g2);
	g2_mul_fr(&t2, &delta2, s);
	g2_add(&b2, &b2, &t2);
	g1_from_affine(&b1, &vk->beta_g1);
	g1_add(&b1, &b1, &q->b_g1);
	g1_mul_fr(&t1, &delta1, s);
	g1_add(&b1, &b1, &t1);
	g1_mul_fr(&c, &a, s);
	g1_mul_fr(&t1, &b1, r);
	g1_add(&c, &c, &t1);
	fr_mul(&rs, r, s);
	g1_mul_fr(&t1, &delta1, &rs);
	g1_neg(&t1, &t1);
	g1_add(&c, &c, &t1);
	g1_add(&c, &c, &q->h);
	g1_add(&c, &c, &q->l);
	g1_to_affine(&out->a, &a);
	g2_to_affine(&out->b, &b2);
	g1_to_affine(&out->c, &c);
}

/* Random multiples of the generators, each one where not NULL. */
static void rand_points(rng_t *rng, g1_jac_t *p1, g2_jac_t *p2)
{
	fr_t k1, k2;
	g1_jac_t g1;
	g2_jac_t g2;
	fr_sample_rng(&k1, rng);
	fr_sample_rng(&k2, rng);
	g1_from_affine(&g1, &G1_GENERATOR);
	g2_from_affine(&g2, &G2_GENERATOR);
	if (p1)
		g1_mul_fr(p1, &g1, &k1);
	if (p2)
		g2_mul_fr(p2, &g2, &k2);
}

static void rand_vk(rng_t *rng, groth16_vk *vk)
{
	g1_jac_t p1;
	g2_jac_t p2;
	memset(vk, 0, sizeof(*vk));
	rand_points(rng, &p1, &p2);
	g1_to_affine(&vk->alpha_g1, &p1);
	g2_to_affine(&vk->beta_g2, &p2);
	rand_points(rng, &p1, &p2);
	g1_to_affine(&vk->beta_g1, &p1);
	g2_to_affine(&vk->gamma_g2, &p2);
	rand_points(rng, &p1, &p2);
	g1_to_affine(&vk->delta_g1, &p1);
	g2_to_affine(&vk->delta_g2, &p2);
}

enum sums_case { RANDOM, ALL_INFINITY, A_INFINITY, B_INFINITY, C_INFINITY, SAME_POINTS, N_CASES };

static const char *const CASE_NAME[N_CASES] = {
	"random", "every sum 0", "A = 0", "B = 0", "C = 0", "every G1 sum the same point",
};

/* ΣA = −(α₁ + r·δ₁) makes A = 0; ΣB_G2 = −(β₂ + s·δ₂) makes B = 0; ΣH =
 * −(everything else in C) makes C = 0. */
static void make_sums(rng_t *rng, groth16_query_sums *q, enum sums_case c, const groth16_vk *vk, const fr_t *r,
		      const fr_t *s)
{
	rand_points(rng, &q->h, &q->b_g2);
	rand_points(rng, &q->l, NULL);
	rand_points(rng, &q->a, NULL);
	rand_points(rng, &q->b_g1, NULL);
	g1_jac_t t1, u1;
	g2_jac_t t2, u2;
	switch (c) {
	case ALL_INFINITY:
		g1_set_infinity(&q->h);
		g1_set_infinity(&q->l);
		g1_set_infinity(&q->a);
		g1_set_infinity(&q->b_g1);
		g2_set_infinity(&q->b_g2);
		break;
	case A_INFINITY:
		g1_from_affine(&t1, &vk->delta_g1);
		g1_mul_fr(&t1, &t1, r);
		g1_from_affine(&u1, &vk->alpha_g1);
		g1_add(&t1, &t1, &u1);
		g1_neg(&q->a, &t1);
		break;
	case B_INFINITY:
		g2_from_affine(&t2, &vk->delta_g2);
		g2_mul_fr(&t2, &t2, s);
		g2_from_affine(&u2, &vk->beta_g2);
		g2_add(&t2, &t2, &u2);
		g2_neg(&q->b_g2, &t2);
		break;
	case C_INFINITY: {
		/* C with ΣH = 0 is −ΣH's value. */
		groth16_proof pf;
		g1_set_infinity(&q->h);
		reference_assemble(&pf, vk, q, r, s);
		g1_from_affine(&t1, &pf.c);
		g1_neg(&q->h, &t1);
		break;
	}
	case SAME_POINTS:
		q->l = q->h;
		q->a = q->h;
		q->b_g1 = q->h;
		break;
	default:
		break;
	}
}

static void check_case(rng_t *rng, enum sums_case c, int iter)
{
	groth16_vk vk;
	groth16_query_sums q;
	groth16_proof want, got, split;
	groth16_assembly_pre pre, zero;
	fr_t r, s;
	rand_vk(rng, &vk);
	fr_sample_rng(&r, rng);
	fr_sample_rng(&s, rng);
	make_sums(rng, &q, c, &vk, &r, &s);
	reference_assemble(&want, &vk, &q, &r, &s);
	groth16_assemble(&got, &vk, &q, &r, &s);
	groth16_assemble_precompute(&pre, &vk, &r, &s);
	groth16_assemble_finish(&split, &pre, &q);
	memset(&zero, 0, sizeof(zero));
	CHECK_MSG(memcmp(&pre, &zero, sizeof(pre)) == 0, "%s: the finish scrubs pre", CASE_NAME[c]);
	uint8_t ew[GROTH16_PROOF_SIZE], eg[GROTH16_PROOF_SIZE];
	groth16_proof_encode(ew, &want);
	groth16_proof_encode(eg, &got);
	CHECK_MSG(memcmp(&want, &got, sizeof(want)) == 0, "%s (%d): assemble = the reference", CASE_NAME[c], iter);
	CHECK_MSG(memcmp(&want, &split, sizeof(want)) == 0, "%s (%d): precompute + finish = the reference",
		  CASE_NAME[c], iter);
	CHECK_MSG(memcmp(ew, eg, sizeof(ew)) == 0, "%s (%d): the same wire bytes", CASE_NAME[c], iter);
	CHECK(g1_aff_is_on_curve(&got.a) && g2_aff_is_on_curve(&got.b) && g1_aff_is_on_curve(&got.c));
	CHECK(c != A_INFINITY || g1_aff_is_infinity(&got.a));
	CHECK(c != B_INFINITY || g2_aff_is_infinity(&got.b));
	CHECK(c != C_INFINITY || g1_aff_is_infinity(&got.c));
}

int main(void)
{
	rng_t rng;
	rng_seed(&rng, 0xa55e);
	for (int iter = 0; iter < 8; iter++)
		check_case(&rng, RANDOM, iter);
	for (int c = ALL_INFINITY; c < N_CASES; c++)
		check_case(&rng, (enum sums_case)c, 0);
	CHECK_DONE();
}
