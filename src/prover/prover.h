// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The Groth16 prover on the CPU (docs/GROTH16.md, "The math"). */
#ifndef CUZK_PROVER_PROVER_H
#define CUZK_PROVER_PROVER_H

#include "common/error.h"
#include "prover/assemble.h"
#include "prover/types.h"

/* Checks that params and the witness agree in shape: n_ic = num_inputs,
 * n_l = num_aux, n_h = m - 1 for m = the domain size of num_constraints,
 * n_a = num_inputs + popcount(a_aux_density), n_b_g1 = n_b_g2 =
 * popcount(b_input_density) + popcount(b_aux_density).  -CUZK_E_MISMATCH
 * naming the first field that disagrees. */
int groth16_check_shape(const groth16_params *p, const groth16_witness_view *w, cuzk_error *err);
/* Its two halves.  The counts alone, which cost nothing: check them before
 * spending work on the bitmaps (copying, uploading, counting them). */
int groth16_check_dims(const groth16_params *p, size_t num_constraints, size_t num_inputs, size_t num_aux,
		       cuzk_error *err);
/* The bitmaps' popcounts (a_aux, b_in, b_aux), counted by the caller on
 * memory nobody else writes. */
int groth16_check_densities(const groth16_params *p, size_t num_inputs, size_t a_aux, size_t b_in, size_t b_aux,
			    cuzk_error *err);

/* Appends a span to t, its times from monotonic_ms() (common/clock.h), the
 * clock of every groth16_span (counted in spans_dropped when t is full). */
void groth16_span_add(groth16_timings *t, const char *name, const char *lane, int device, double start_ms,
		      double end_ms);

/* Smallest power of two >= n (n >= 1), and its log2. */
size_t groth16_domain_size(size_t n, unsigned *ret_log2);

/* Proves one partition with the given r and s (Montgomery form).  Multi-threaded.
 * h by NTTs (groth16_compute_h, ntt.h), then the MSMs h·H, aux·L, the A
 * query (every input, then aux filtered by a_aux_density), B in G1 and G2
 * (inputs filtered by b_input_density, then aux by b_aux_density), and the
 * assembly of docs/GROTH16.md.  Secrets derived from r and s are scrubbed; the
 * caller owns and scrubs r and s.  Witness-dependent work (zeros skipped,
 * ones summed) is not constant-time, as in bellperson.  t may be NULL; its
 * spans are the NTTs, each query's MSM on the lane that ran it ("cpu", or
 * "cpu worker N" when the queries run side by side) and the assembly.
 * Returns 0 or a negative cuzk status: -CUZK_E_MISMATCH (shape),
 * -CUZK_E_NONCANONICAL (a witness scalar >= r, named), -CUZK_E_NOMEM. */
int groth16_prove_cpu(const groth16_params *p, const groth16_witness_view *w, const fr_t *r,
		      const fr_t *s, groth16_proof *out, groth16_timings *t, cuzk_error *err);

/* Draws r and s from getrandom(2), or from a seed (tests: fixed r and s,
 * so that CPU and GPU proofs can be compared byte for byte).
 *
 * Both draw with fr_sample (fr_sample.h): 4 u64 words as little-endian
 * limbs, top bit cleared, drawn again while >= r or 0; uniform in [1, r).
 * groth16_seeded_rs: a rng_t (xoshiro256** seeded through splitmix64)
 * seeded with seed XOR ((partition + 1) · 0x9e3779b97f4a7c15) mod 2^64;
 * r is its first accepted draw, s the next.  The GPU backend, the daemon
 * and the CLI all call this function; changing the derivation changes
 * every fixed-seed proof. */
int groth16_random_rs(fr_t *r, fr_t *s, cuzk_error *err);
void groth16_seeded_rs(fr_t *r, fr_t *s, uint64_t seed, unsigned partition);

#endif
