// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Synthesis: an R1CS and a full assignment z = (1, inputs..., aux...) give
 * the prover's a, b, c and the density bitmaps (docs/GROTH16.md, "Compatibility").
 *
 * a, b, c have num_constraints + num_inputs entries: the circuit's
 * constraints, then one per input i with a = z_i, b = 0, c = 0, the
 * constraints bellperson appends (input_i · 0 = 0).  Because of those every
 * input counts as "in A", so there is no input bitmap for A. */
#ifndef CUZK_DEVTOOLS_SYNTH_H
#define CUZK_DEVTOOLS_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "bls12_381/fr.h"
#include "common/error.h"
#include "formats/r1cs.h"
#include "prover/types.h"

typedef struct groth16_synth {
	size_t num_constraints;       /* circuit constraints + num_inputs */
	size_t num_inputs;            /* including the constant 1 */
	size_t num_aux;
	fr_t *a, *b, *c;              /* num_constraints each, Montgomery */
	uint64_t *a_aux_density;      /* ceil(num_aux/64) words: aux j in some A row */
	uint64_t *b_input_density;    /* ceil(num_inputs/64) words: input i in some B row */
	uint64_t *b_aux_density;      /* ceil(num_aux/64) words */
} groth16_synth;

/* Evaluates every row of cs at z (z_len must be num_inputs + num_aux, z[0]
 * must be 1).  Multi-threaded.  0, -CUZK_E_MISMATCH (z_len, z[0]),
 * -CUZK_E_FORMAT (a term's variable out of range), -CUZK_E_NOMEM. */
int groth16_synthesize(groth16_synth *ret, const r1cs *cs, const fr_t *z, size_t z_len,
		       cuzk_error *err);
void groth16_synth_free(groth16_synth *s);

/* a_k · b_k = c_k for every row; -CUZK_E_UNSAT "constraint K not satisfied"
 * for the first K that fails.  Multi-threaded. */
int groth16_synth_check(const groth16_synth *s, cuzk_error *err);

/* The prover's view of s with z as input/aux (z must outlive the view). */
void groth16_synth_view(groth16_witness_view *ret, const groth16_synth *s, const fr_t *z);

/* Writes a complete single-partition witness file (formats/witness_file.h;
 * Montgomery scalars) from a synthesis result and the assignment z it came
 * from. */
int groth16_witness_file_write(const char *path, const struct groth16_synth *s, const fr_t *z,
			       cuzk_error *err);

/* Rows from any source, one at a time: a materialised r1cs, or a generator
 * that never stores its matrices (gencircuit).  row() fills ret with the
 * three linear combinations of circuit row k; it may point them into
 * scratch, which holds GROTH16_ROW_SCRATCH terms. */
#define GROTH16_ROW_SCRATCH 16
typedef struct groth16_row {
	const r1cs_term *terms[3];    /* A, B, C */
	size_t n[3];
} groth16_row;
typedef struct groth16_row_source {
	size_t num_rows;              /* the circuit's own constraints */
	size_t num_inputs, num_aux;
	void (*row)(const void *ctx, size_t k, groth16_row *ret, r1cs_term *scratch);
	const void *ctx;
} groth16_row_source;

/* Synthesis into arrays the caller provides (out->a, b, c of
 * num_rows + num_inputs entries; the three bitmaps zero-filled), e.g. the
 * sections of a mapped witness file.  Sets out's counts.  Errors as
 * groth16_synthesize. */
int groth16_synthesize_into(groth16_synth *out, const groth16_row_source *src, const fr_t *z,
			    size_t z_len, cuzk_error *err);

/* The same, allocating *ret's arrays (free with groth16_synth_free). */
int groth16_synthesize_rows(groth16_synth *ret, const groth16_row_source *src, const fr_t *z, size_t z_len,
			    cuzk_error *err);
/* The rows of a materialised R1CS (cs must outlive the source). */
void groth16_r1cs_rows(groth16_row_source *ret, const r1cs *cs);

/* Bit i of a density bitmap. */
static inline int groth16_density_get(const uint64_t *bits, size_t i)
{
	return (int)((bits[i / 64] >> (i % 64)) & 1);
}
size_t groth16_density_popcount(const uint64_t *bits, size_t n);

#endif
