// SPDX-License-Identifier: Apache-2.0 OR MIT
/* INSECURE development setup: Groth16 parameters from an R1CS and a seed.
 *
 * The toxic waste (τ, α, β, γ, δ) is a function of the seed, so anyone who
 * knows the seed can forge proofs.  For tests and benchmarks only; never for
 * parameters that protect anything.
 *
 * Derivation: a rng_t seeded with `seed` gives τ, α, β, γ, δ in that
 * order by fr_sample_rng (prover/fr_sample.h); τ is drawn again in the
 * (negligible) case τ^m = 1.
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
 * over the domain ω^k comes from an inverse NTT of (1, τ, ..., τ^(m-1)).
 *
 * File order is made order: the VK (with ic), then h, l, a, b_g1, b_g2,
 * each from one scalar vector that is filled, multiplied and dropped in
 * turn, so a large setup can stream its points to a file. */
#ifndef CUZK_DEVTOOLS_SETUP_H
#define CUZK_DEVTOOLS_SETUP_H

#include <stdint.h>

#include "bls12_381/fr.h"
#include "common/error.h"
#include "devtools/synth.h"
#include "formats/params_io.h"
#include "formats/r1cs.h"
#include "prover/setup_engine.h"
#include "prover/types.h"

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

/* ---- Large setups: rows from any source, products on any engine
 * (prover/setup_engine.h) ---- */

/* Called after every run of products: done of total points so far. */
typedef void (*groth16_setup_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Where a setup's time went (`cuzk setup --timings`): wall milliseconds on
 * the caller's thread (common/clock.h), always measured (a few clock reads
 * a run of points) and handed back when asked for.  A query's total is its
 * scalars (on the CPU), plus the time the caller waited for the engine's
 * products, plus the time it spent handing them to the file's writer
 * (encoding, and waiting for a free buffer when the writes are behind). */
typedef struct groth16_setup_query_timings {
	double total_ms;
	double scalars_ms;
	double engine_ms;
	double put_ms;                /* 0 in memory */
	double blocked_ms;            /* of put: the writer waiting for a free buffer */
	uint64_t points;
} groth16_setup_query_timings;

typedef struct groth16_setup_timings {
	double lagrange_ms;           /* L_k(τ): the inverse NTT of τ's powers */
	double rows_ms;               /* the circuit's rows at τ: A_i(τ), B_i(τ), C_i(τ) */
	double prepare_ms;            /* the rest before the queries: the trapdoor, the CPU tables, the counts, the VK */
	double open_ms;               /* the file's writer opened and the VK written, or the points' memory */
	groth16_setup_query_timings query[GROTH16_PARAMS_SECTIONS];   /* h, l, a, b_g1, b_g2 */
	double close_ms;              /* the file's close: its last writes, fsync(2) when asked, close(2) */
	async_writer_stats writer;    /* the file's writer, final (all zero in memory) */
	int synced;                   /* the file was fsync(2)ed (writer.sync_ms) */
	double free_ms;               /* the scalars zeroed (they derive from the trapdoor) and freed */
	double total_ms;
} groth16_setup_timings;

typedef struct groth16_setup_opts {
	const groth16_setup_engine *engine;   /* NULL: the CPU */
	groth16_setup_progress_fn progress;   /* may be NULL */
	void *progress_ctx;
	int sync;                             /* a file: fsync(2) it before closing it */
	groth16_setup_timings *timings;       /* may be NULL; set also when the setup fails */
} groth16_setup_opts;

/* groth16_dev_setup_insecure_trapdoor for rows from src (never
 * materialised: a generator's rows cost nothing to store); opts may be
 * NULL.  Errors as above, and the engine's. */
int groth16_dev_setup_rows(groth16_params *ret, groth16_dev_trapdoor_insecure *ret_td,
			   const groth16_row_source *src, uint64_t seed, const groth16_setup_opts *opts,
			   cuzk_error *err);

/* The same parameters written to path as they are made (the streaming
 * writer of formats/params_io.h): host memory holds the per-variable
 * scalars (~4 × 32 bytes per variable) but never all the points.  ret_vk
 * (may be NULL) gets a copy of the verifying key (free with
 * groth16_vk_free).  Also the writer's errors. */
int groth16_dev_setup_rows_write(const char *path, const groth16_row_source *src, uint64_t seed,
				 const groth16_setup_opts *opts, groth16_vk *ret_vk, cuzk_error *err);

#endif
