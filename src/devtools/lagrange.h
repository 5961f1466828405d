// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The Lagrange basis of a 2^k domain at one point, for the development
 * setup: L_i(τ) for i < m = 2^k, over the domain of ntt_domain_init (ω its
 * primitive m-th root).  The setup used to take the inverse NTT of τ's
 * powers (1/m · Σ_j τ^j·ω^(-ij)), which at 2^27 cost 13.9 s of 16 cores on
 * the H200 host; the closed form
 *
 *   L_i(τ) = (τ^m - 1)/m · ω^i/(τ - ω^i)
 *
 * is six field products a point with one inversion per thread (Montgomery's
 * batch trick over each thread's run).  When τ is itself in the domain
 * (τ^m = 1, L_i(τ) is 1 at τ = ω^i and 0 elsewhere) the formula divides by
 * zero: that case takes the inverse NTT, which is exact everywhere. */
#ifndef CUZK_DEVTOOLS_LAGRANGE_H
#define CUZK_DEVTOOLS_LAGRANGE_H

#include "bls12_381/fr.h"
#include "common/error.h"
#include "prover/ntt.h"

/* out[i] = L_i(tau) for i < d->m (d set up by the caller); allocates nothing. */
void lagrange_at(fr_t *out, const ntt_domain *d, const fr_t *tau);

/* The same by the inverse NTT alone (the reference the tests compare with). */
void lagrange_at_by_ntt(fr_t *out, const ntt_domain *d, const fr_t *tau);

#endif
