// SPDX-License-Identifier: Apache-2.0 OR MIT
/* INSECURE development setup: Groth16 parameters from an R1CS and a seed.
 *
 * The toxic waste (τ, α, β, γ, δ) is a function of the seed, so anyone who
 * knows the seed can forge proofs.  For tests and benchmarks only; never for
 * parameters that protect anything.
 *
 * Derivation: a cuzk_rng seeded with `seed` gives τ, α, β, γ, δ in that
 * order by fr_sample_rng (fr_sample.h); τ is drawn again in the (negligible)
 * case τ^m = 1.
 *
 * The parameters have bellperson's shape, for m = groth16_domain_size(
 * num_constraints + num_inputs) (one appended constraint input_i·0 = 0 per
 * public input, at domain index num_constraints + i):
 *   ic_i = (β·A_i(τ) + α·B_i(τ) + C_i(τ))/γ · G1   for the inputs,
 *   l_j  = (β·A_j(τ) + α·B_j(τ) + C_j(τ))/δ · G1   for the aux variables,
 *   h_i  = τ^i·Z(τ)/δ · G1  for i < m-1,  Z(τ) = τ^m - 1,
 *   a    = A_i(τ)·G1, b_g1 = B_i(τ)·G1, b_g2 = B_i(τ)·G2, over the variables
 *          in order (inputs first, then aux), leaving out exactly those with
 *          A_i(τ) = 0 (resp. B_i(τ) = 0), i.e. the identity points.
 * That rule matches synthesis's density bitmaps (a variable is dense iff it
 * has a term in that matrix) unless a variable's terms cancel at τ: terms
 * with coefficient 0, or the same variable twice with opposite coefficients
 * in one row; the prover then reports a shape mismatch.  The Lagrange basis
 * over the domain ω^k comes from an inverse NTT of (1, τ, ..., τ^(m-1)). */
#ifndef CUZK_GROTH16_SETUP_H
#define CUZK_GROTH16_SETUP_H

#include <stdint.h>

#include "bls12_381/fr.h"
#include "common/error.h"
#include "groth16/r1cs.h"
#include "groth16/types.h"

/* The toxic waste, Montgomery form.  Tests use it as a shortcut to the
 * expected proof (see groth16_dev_qap_at_tau). */
typedef struct groth16_dev_trapdoor_insecure {
	fr_t tau, alpha, beta, gamma, delta;
} groth16_dev_trapdoor_insecure;

/* Makes params (allocated by groth16_params_alloc; free with
 * groth16_params_free).  Multi-threaded.  0, -CUZK_E_FORMAT (a term names a
 * variable out of range), -CUZK_E_INVAL (domain too large), -CUZK_E_NOMEM. */
int groth16_dev_setup_insecure(groth16_params *ret, const r1cs *cs, uint64_t seed, cuzk_error *err);

/* The same, also returning the trapdoor (ret_td may be NULL). */
int groth16_dev_setup_insecure_trapdoor(groth16_params *ret, groth16_dev_trapdoor_insecure *ret_td,
					const r1cs *cs, uint64_t seed, cuzk_error *err);

/* A_i(τ), B_i(τ), C_i(τ) for every variable i (num_inputs + num_aux entries
 * each, appended input constraints included).  Errors as above. */
int groth16_dev_qap_at_tau(fr_t *ret_a, fr_t *ret_b, fr_t *ret_c, const r1cs *cs, const fr_t *tau,
			   cuzk_error *err);

#endif
