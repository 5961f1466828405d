// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Radix-2 number-theoretic transforms over Fr, and the h polynomial of a
 * Groth16 proof (docs/GROTH16.md, "The math").
 *
 * Conventions (the GPU backend reproduces them bit for bit):
 *   - every vector is in natural order, Montgomery form, in place;
 *   - forward:  V_j = sum_i v_i·ω^(i·j), ω = fr_root_of_unity(log_m);
 *   - inverse:  v_i = m^-1 · sum_j V_j·ω^(-i·j);
 *   - coset forward: multiply coefficient i by g^i (g = 7), then forward,
 *     i.e. evaluate the polynomial at g·ω^j;
 *   - coset inverse: inverse, then multiply coefficient i by g^-i. */
#ifndef CUZK_PROVER_NTT_H
#define CUZK_PROVER_NTT_H

#include <stddef.h>

#include "bls12_381/fr.h"
#include "common/error.h"

#define NTT_MAX_LOG 28

typedef struct ntt_domain {
	size_t m;                 /* 2^log_m points */
	unsigned log_m;
	fr_t omega, omega_inv;    /* a primitive m-th root of unity and its inverse */
	fr_t m_inv;
	fr_t g, g_inv;            /* the coset shift FR_GENERATOR and its inverse */
	fr_t *tw, *tw_inv;        /* ω^i and ω^-i for i < m/2 (NULL when m = 1) */
} ntt_domain;

/* The smallest k with 2^k >= n (0 for n <= 1). */
unsigned ntt_log2_ceil(size_t n);

/* Precomputes twiddles for m = 2^log_m, log_m <= NTT_MAX_LOG.  Multi-threaded.
 * Returns 0, -CUZK_E_INVAL (size) or -CUZK_E_NOMEM. */
int ntt_domain_init(ntt_domain *d, unsigned log_m, cuzk_error *err);
void ntt_domain_free(ntt_domain *d);

/* In place on d->m elements; multi-threaded for large m. */
void ntt_forward(const ntt_domain *d, fr_t *v);
void ntt_inverse(const ntt_domain *d, fr_t *v);
void ntt_coset_forward(const ntt_domain *d, fr_t *v);
void ntt_coset_inverse(const ntt_domain *d, fr_t *v);

/* v[i] *= c·q^i for i < n.  Multi-threaded. */
void ntt_scale_by_powers(fr_t *v, size_t n, const fr_t *c, const fr_t *q);

/* The h polynomial of a proof: a, b, c are the n evaluations of A, B, C on
 * the domain of m = groth16_domain_size(n) points (zero-padded to m), in
 * Montgomery form if montgomery != 0, canonical otherwise.  Following
 * bellperson: coefficients of A, B, C by inverse NTT; evaluate on the coset
 * g·ω^j; t = (A·B - C)/(g^m - 1) pointwise; back by coset inverse NTT; h is
 * the first m-1 coefficients (Montgomery form, natural order).  When the
 * witness satisfies the constraints t has degree <= m-2, so nothing is lost.
 * Returns 0, -CUZK_E_NONCANONICAL naming the first scalar >= r, or
 * -CUZK_E_NOMEM (it needs two vectors of m scalars). */
int groth16_compute_h(fr_t *h_out, const fr_t *a, const fr_t *b, const fr_t *c, size_t n,
		      int montgomery, cuzk_error *err);

#endif
