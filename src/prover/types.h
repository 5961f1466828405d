// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The Groth16 objects every part of cuzk passes around. */
#ifndef CUZK_PROVER_TYPES_H
#define CUZK_PROVER_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "bls12_381/fr.h"
#include "bls12_381/g1.h"
#include "bls12_381/g2.h"

typedef struct groth16_vk {
	g1_aff_t alpha_g1, beta_g1;
	g2_aff_t beta_g2, gamma_g2;
	g1_aff_t delta_g1;
	g2_aff_t delta_g2;
	size_t n_ic;               /* = number of public inputs including the constant 1 */
	g1_aff_t *ic;
} groth16_vk;

/* bellperson's Parameters: the VK and the five queries, points affine in
 * Montgomery form (infinity all-zero).  h has m-1 points; l one per aux
 * variable; a, b_g1, b_g2 the non-identity A_i(τ)/B_i(τ), inputs first. */
typedef struct groth16_params {
	groth16_vk vk;
	size_t n_h, n_l, n_a, n_b_g1, n_b_g2;
	g1_aff_t *h, *l, *a, *b_g1;
	g2_aff_t *b_g2;
	void *storage;             /* owns every array above; freed by groth16_params_free */
	size_t storage_len;
	int storage_mmapped;       /* storage came from mmap (anonymous or file) */
} groth16_params;

/* 192 bytes on the wire: A (G1 compressed) ‖ B (G2 compressed) ‖ C (G1 compressed). */
typedef struct groth16_proof {
	g1_aff_t a;
	g2_aff_t b;
	g1_aff_t c;
} groth16_proof;
#define GROTH16_PROOF_SIZE 192

/* One partition's witness, as the prover reads it: pointers into memory the
 * caller owns (a mapped witness file, a client's memfd).  Scalars are 4 LE
 * u64 limbs, Montgomery form iff montgomery != 0, otherwise canonical.
 * Density bitmaps: bit i of word i/64. */
typedef struct groth16_witness_view {
	size_t num_constraints;        /* length of a, b, c (input constraints included) */
	size_t num_inputs;             /* including the constant 1 */
	size_t num_aux;
	int montgomery;
	const fr_t *a, *b, *c;
	const fr_t *input;
	const fr_t *aux;
	const uint64_t *a_aux_density;     /* ceil(num_aux/64) words */
	const uint64_t *b_input_density;   /* ceil(num_inputs/64) words */
	const uint64_t *b_aux_density;     /* ceil(num_aux/64) words */
	/* The bitmaps lie in memory that another process may still write (the
	 * daemon's view of a client's memfd).  The provers read them more than
	 * once (counts, then the walk over the points), so a backend given such
	 * a view works from a copy nobody else can write: a private one on the
	 * CPU, the device's on the GPU (backend.h). */
	int density_shared;
} groth16_witness_view;

/* One phase of a proof on one lane (a CPU thread, a GPU stream), with its
 * start and end on CLOCK_MONOTONIC in milliseconds: what a timeline
 * (formats/trace_json.h) draws.  Names and lanes are static strings. */
typedef struct groth16_span {
	const char *name;          /* "msm h", "upload a,b,c", ... */
	const char *lane;          /* "cpu", "cpu worker 1", "copy", "compute", "host" */
	int device;                /* the GPU's index, -1 on the CPU */
	double start_ms, end_ms;
} groth16_span;
/* Enough for every batch of a streamed SRS at 2^27 in the smallest batches
 * (2^18 points: ~1,650 batches, a copy and a sum each; a 2^27 partition
 * under a 14 GiB budget has ~830 spans in 2^20-point batches).  160 KB a
 * groth16_timings: it lives on a worker's stack or the heap. */
#define GROTH16_MAX_SPANS 4096

/* Wall-clock milliseconds per phase of one proof (0 when a phase did not run
 * separately).  Backends fill what they can measure. */
typedef struct groth16_timings {
	double check_ms;           /* the shape check, and the private copies it needs */
	double upload_ms;          /* GPU: host to device transfers */
	double ntt_ms;             /* computing h */
	double msm_h_ms, msm_l_ms, msm_a_ms, msm_b_g1_ms, msm_b_g2_ms;
	double assemble_ms;
	double total_ms;
	unsigned n_spans;          /* the phases as spans, in no particular order */
	unsigned spans_dropped;    /* spans past GROTH16_MAX_SPANS */
	groth16_span span[GROTH16_MAX_SPANS];
} groth16_timings;

#endif
