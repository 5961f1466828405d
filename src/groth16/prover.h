/* The Groth16 prover on the CPU (DESIGN.md, "The math"). */
#ifndef CUZK_GROTH16_PROVER_H
#define CUZK_GROTH16_PROVER_H

#include "common/error.h"
#include "groth16/types.h"

/* Checks that params and the witness agree in shape: n_ic = num_inputs,
 * n_l = num_aux, n_h = m - 1 for m = the domain size of num_constraints,
 * n_a = num_inputs + popcount(a_aux_density), n_b_g1 = n_b_g2 =
 * popcount(b_input_density) + popcount(b_aux_density).  -CUZK_E_MISMATCH
 * naming the first field that disagrees. */
int groth16_check_shape(const groth16_params *p, const groth16_witness_view *w, cuzk_error *err);

/* Smallest power of two >= n (n >= 1), and its log2. */
size_t groth16_domain_size(size_t n, unsigned *ret_log2);

/* Proves one partition with the given r and s (Montgomery form).  Multi-threaded.
 * t may be NULL.  Returns 0 or a negative cuzk status. */
int groth16_prove_cpu(const groth16_params *p, const groth16_witness_view *w, const fr_t *r,
		      const fr_t *s, groth16_proof *out, groth16_timings *t, cuzk_error *err);

/* Draws r and s from getrandom(2), or from a seed (tests: fixed r and s,
 * so that CPU and GPU proofs can be compared byte for byte). */
int groth16_random_rs(fr_t *r, fr_t *s, cuzk_error *err);
void groth16_seeded_rs(fr_t *r, fr_t *s, uint64_t seed, unsigned partition);

#endif
