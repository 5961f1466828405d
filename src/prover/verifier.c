// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "prover/verifier.h"

#include "bls12_381/pairing.h"
#include "prover/msm.h"

static int check_g1(const g1_aff_t *p, const char *name, cuzk_error *err)
{
	if (!g1_aff_is_on_curve(p))
		return err_fail(err, CUZK_E_NOT_ON_CURVE, "proof element %s is not on the curve", name);
	if (!g1_aff_in_subgroup(p))
		return err_fail(err, CUZK_E_NOT_IN_SUBGROUP, "proof element %s is not in G1", name);
	return 0;
}

int groth16_verify(const groth16_vk *vk, const fr_t *public_inputs, size_t n,
		   const groth16_proof *proof, cuzk_error *err)
{
	if (n + 1 != vk->n_ic)
		return err_fail(err, CUZK_E_MISMATCH,
				"%zu public inputs given, the verifying key has %zu (plus the constant 1)",
				n, vk->n_ic ? vk->n_ic - 1 : 0);
	int rc;
	if ((rc = check_g1(&proof->a, "A", err)) || (rc = check_g1(&proof->c, "C", err)))
		return rc;
	if (!g2_aff_is_on_curve(&proof->b))
		return err_fail(err, CUZK_E_NOT_ON_CURVE, "proof element B is not on the curve");
	if (!g2_aff_in_subgroup(&proof->b))
		return err_fail(err, CUZK_E_NOT_IN_SUBGROUP, "proof element B is not in G2");

	g1_jac_t acc, ic0, sum;
	if ((rc = msm_g1(&acc, vk->ic + 1, public_inputs, n, 1, err)))
		return err ? err_prefix(err, "public inputs") : rc;
	g1_from_affine(&ic0, &vk->ic[0]);
	g1_add(&sum, &acc, &ic0);

	/* e(A,B)·e(-α,β)·e(-Σ,γ)·e(-C,δ) = 1, one final exponentiation. */
	g1_aff_t p[4];
	g2_aff_t q[4];
	p[0] = proof->a;
	q[0] = proof->b;
	g1_aff_neg(&p[1], &vk->alpha_g1);
	q[1] = vk->beta_g2;
	g1_aff_t sum_aff;
	g1_to_affine(&sum_aff, &sum);
	g1_aff_neg(&p[2], &sum_aff);
	q[2] = vk->gamma_g2;
	g1_aff_neg(&p[3], &proof->c);
	q[3] = vk->delta_g2;
	if (!bls_pairing_product_is_one(p, q, 4))
		return err_fail(err, CUZK_E_VERIFY, "proof does not verify: the pairing equation fails");
	return 0;
}
