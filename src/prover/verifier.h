// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Groth16 verification: e(A,B) = e(α,β)·e(Σ x_i·ic_i, γ)·e(C,δ), x_0 = 1. */
#ifndef CUZK_PROVER_VERIFIER_H
#define CUZK_PROVER_VERIFIER_H

#include <stddef.h>

#include "common/error.h"
#include "prover/types.h"

/* public_inputs: the n public inputs without the leading 1, Montgomery form.
 * Checks that A, B and C are on their curves and in the order-r subgroups,
 * then one multi-pairing with one final exponentiation.  The vk is trusted
 * (its reader checks its points).
 * Returns 0 (valid), -CUZK_E_VERIFY (the equation fails),
 * -CUZK_E_MISMATCH (n + 1 != vk->n_ic), -CUZK_E_NOT_ON_CURVE or
 * -CUZK_E_NOT_IN_SUBGROUP (naming the proof element), -CUZK_E_NONCANONICAL
 * (an input >= r) or -CUZK_E_NOMEM. */
int groth16_verify(const groth16_vk *vk, const fr_t *public_inputs, size_t n,
		   const groth16_proof *proof, cuzk_error *err);

#endif
