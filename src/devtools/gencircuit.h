// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A synthetic circuit shaped like a Filecoin storage proof, for tests and
 * benchmarks of any size 2^k (docs/GROTH16.md, "Real workloads").  Two shapes:
 *
 * GENCIRCUIT_SHAPE_BASIC (the default, what every test used first):
 * exactly 2^k prover constraints: 2^k − num_inputs circuit constraints plus
 * the num_inputs appended input constraints, so the domain is 2^k.  One aux
 * variable per circuit constraint.  Constraints come in groups of four:
 *   pivot p (row 4g):   a boolean p·p = p (7 groups in 8), or a dense value
 *                       p = (p_prev + c)·x_in with x_in a public input
 *   rows 4g+1..4g+3:    v = op(x, p) with B = p: AND (x·p = v),
 *                       XOR (2x·p = x + p − v), OR (x·p = x + p − v);
 *                       x is the previous pivot (row 4g+1) or the previous
 *                       row's variable.  In dense groups v = x·p.
 * So B touches the pivots (a quarter of the aux variables) and the inputs,
 * A about three quarters, and ~92% of aux values are 0 or 1.
 *
 * GENCIRCUIT_SHAPE_POREP: the statistics of one partition of a 32 GiB
 * PoRep commit (docs/BENCHMARKS.md, "PoRep-shaped circuits", says why):
 * 130,278,869 prover constraints at 2^27 and the same fraction (97.07%) of
 * 2^k at other sizes, so a,b,c are zero-padded to the domain as in the real
 * circuit; 328 inputs by default; the same groups of four, but a tenth of
 * them dense, in which every value is a full-width field element
 *   dense pivot p = (p_prev + c)·x_in, then v1 = p·p, v2 = v1·p, v3 = v2·p,
 * and in the boolean groups every value a bit (row 4g+1 reads the previous
 * pivot only when that one is a bit, else the constant 1).  So aux values
 * are ~45% zeros, ~45% ones and 10% dense; B touches exactly the pivots
 * (a quarter of aux) and the inputs; A three quarters of aux.
 *
 * Everything is a function of (shape, k, num_inputs, seed): rows can be
 * produced one at a time without materialising the R1CS. */
#ifndef CUZK_DEVTOOLS_GENCIRCUIT_H
#define CUZK_DEVTOOLS_GENCIRCUIT_H

#include <stddef.h>
#include <stdint.h>

#include "bls12_381/fr.h"
#include "common/error.h"
#include "devtools/synth.h"
#include "formats/r1cs.h"

#define GENCIRCUIT_DEFAULT_INPUTS 2   /* the constant 1 and one public input */
#define GENCIRCUIT_POREP_INPUTS 328   /* a 32 GiB PoRep partition's, with the constant 1 */
#define GENCIRCUIT_MAX_LOG 32
/* Prover constraints of one 32 GiB PoRep partition (docs/GROTH16.md, "Real workloads"). */
#define GENCIRCUIT_POREP_CONSTRAINTS UINT64_C(130278869)
#define GENCIRCUIT_POREP_LOG 27

enum gencircuit_shape {
	GENCIRCUIT_SHAPE_BASIC = 0,
	GENCIRCUIT_SHAPE_POREP = 1,
};

typedef struct gencircuit_spec {
	unsigned log_constraints;     /* k: the domain is 2^k */
	size_t num_inputs;            /* including the constant 1; >= 1, < the prover constraints */
	uint64_t seed;
	enum gencircuit_shape shape;
} gencircuit_spec;

/* The shape called name ("basic", "porep"); -CUZK_E_INVAL naming it otherwise. */
int gencircuit_shape_parse(enum gencircuit_shape *ret, const char *name, cuzk_error *err);
const char *gencircuit_shape_name(enum gencircuit_shape shape);
/* Inputs (with the constant 1) a shape has unless told otherwise. */
size_t gencircuit_default_inputs(enum gencircuit_shape shape);

/* At most this many terms per row of A, B or C. */
#define GENCIRCUIT_MAX_TERMS 3
typedef struct gencircuit_row {
	unsigned n_a, n_b, n_c;
	r1cs_term a[GENCIRCUIT_MAX_TERMS], b[GENCIRCUIT_MAX_TERMS], c[GENCIRCUIT_MAX_TERMS];
} gencircuit_row;

/* -CUZK_E_INVAL naming the bad field. */
int gencircuit_check_spec(const gencircuit_spec *spec, cuzk_error *err);
/* Prover constraints: 2^k (basic), floor(2^k·130278869/2^27) (porep). */
size_t gencircuit_num_constraints(const gencircuit_spec *spec);
size_t gencircuit_num_circuit_constraints(const gencircuit_spec *spec);  /* the above − num_inputs */
size_t gencircuit_num_aux(const gencircuit_spec *spec);                  /* = circuit constraints */
/* Row j (< circuit constraints) of the circuit. */
void gencircuit_row_at(const gencircuit_spec *spec, size_t j, gencircuit_row *ret);

/* The circuit's rows as a synthesis row source (synth.h); spec must outlive it. */
void gencircuit_rows(const gencircuit_spec *spec, groth16_row_source *ret);

/* The full assignment z (num_inputs + num_aux values, Montgomery), malloc'd. */
int gencircuit_assignment(const gencircuit_spec *spec, fr_t **ret_z, cuzk_error *err);
/* The R1CS (materialised: ~220 bytes per constraint) and its assignment. */
int gencircuit_build(const gencircuit_spec *spec, r1cs *ret_cs, fr_t **ret_z, cuzk_error *err);

/* Streaming: writes a complete witness file (a, b, c, input, aux, densities)
 * for the circuit straight into the mapped file, without the R1CS.  With an
 * even number of inputs the assignment is computed in the file itself, so
 * memory is only the file's (reclaimable) pages; otherwise 32 more bytes per
 * variable.  Multi-threaded: 2^26 constraints (an 8.6 GB file) take 3.6 s
 * on 16 cores. */
int gencircuit_write_witness(const gencircuit_spec *spec, const char *path, cuzk_error *err);

#endif
