// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Multi-scalar multiplication sum_i k_i·P_i on the CPU (Pippenger), for G1
 * and G2, multi-threaded.
 *
 * Scalars are 4 LE u64 limbs, Montgomery form (x·2^256 mod r) when
 * montgomery != 0, canonical otherwise; they are converted once.  Witness
 * scalars are mostly 0 and 1: zeros are skipped and ones summed by plain
 * additions; only the rest goes through the buckets (signed c-bit digits,
 * c chosen from their count, affine buckets with batched inversions); each
 * of those is first split into two 128-bit halves by an endomorphism (GLV:
 * -phi on G1, psi^2 on G2), halving the windows (not when the copies of
 * the points would pass 1 GiB, nor with CUZK_MSM_NO_GLV=1 in the environment).
 *
 * The filtered forms serve the prover's density bitmaps: scalar i takes part
 * iff bit i of density is set (bit i of word i/64), and the bases are only
 * those set bits' points, in order (n_bases must equal the popcount).
 *
 * Every function returns 0, -CUZK_E_NONCANONICAL naming the first scalar
 * >= r, -CUZK_E_MISMATCH when n_bases and the density disagree, or
 * -CUZK_E_NOMEM.  The result is Jacobian; infinity for n = 0. */
#ifndef CUZK_PROVER_MSM_H
#define CUZK_PROVER_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "bls12_381/fr.h"
#include "bls12_381/g1.h"
#include "bls12_381/g2.h"
#include "common/error.h"

int msm_g1(g1_jac_t *ret, const g1_aff_t *bases, const fr_t *scalars, size_t n, int montgomery,
	   cuzk_error *err);
int msm_g2(g2_jac_t *ret, const g2_aff_t *bases, const fr_t *scalars, size_t n, int montgomery,
	   cuzk_error *err);

int msm_g1_filtered(g1_jac_t *ret, const g1_aff_t *bases, size_t n_bases, const fr_t *scalars,
		    size_t n, const uint64_t *density, int montgomery, cuzk_error *err);
int msm_g2_filtered(g2_jac_t *ret, const g2_aff_t *bases, size_t n_bases, const fr_t *scalars,
		    size_t n, const uint64_t *density, int montgomery, cuzk_error *err);

/* Either form on exactly nthreads threads (0: parallel_nthreads()), for callers
 * that run several MSMs side by side; density NULL means every scalar takes
 * part (then n_bases must equal n). */
int msm_g1_threads(g1_jac_t *ret, const g1_aff_t *bases, size_t n_bases, const fr_t *scalars,
		   size_t n, const uint64_t *density, int montgomery, unsigned nthreads,
		   cuzk_error *err);
int msm_g2_threads(g2_jac_t *ret, const g2_aff_t *bases, size_t n_bases, const fr_t *scalars,
		   size_t n, const uint64_t *density, int montgomery, unsigned nthreads,
		   cuzk_error *err);

/* Number of set bits among the first n of a density bitmap. */
size_t msm_density_count(const uint64_t *density, size_t n);

#endif
