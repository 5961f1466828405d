// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A rank-1 constraint system in memory: <A_k, z> · <B_k, z> = <C_k, z>
 * for every constraint k, z = (1, public inputs..., aux...).
 *
 * Variables: index 0 is the constant 1, indices 1..num_inputs-1 the public
 * inputs, then num_aux auxiliary variables.  Each matrix is stored as rows
 * (CSR): row k's terms are terms[off[k] .. off[k+1]). */
#ifndef CUZK_FORMATS_R1CS_H
#define CUZK_FORMATS_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "bls12_381/fr.h"
#include "common/error.h"

typedef struct r1cs_term {
	uint64_t var;     /* variable index, < num_inputs + num_aux */
	fr_t coeff;       /* Montgomery form */
} r1cs_term;

typedef struct r1cs_matrix {
	size_t *off;      /* num_constraints + 1 entries */
	r1cs_term *terms; /* off[num_constraints] entries */
} r1cs_matrix;

typedef struct r1cs {
	size_t num_inputs;       /* including the constant 1 */
	size_t num_aux;
	size_t num_constraints;  /* the circuit's own (input constraints are not stored) */
	r1cs_matrix a, b, c;
} r1cs;

void r1cs_free(r1cs *cs);

/* Reads circom's binary .r1cs (version 1; field must be BLS12-381's r).
 * Wires map to variables in order: wire 0 = 1, outputs and public inputs,
 * then private inputs and internal wires.  Wires that circom's label map
 * drops are kept.  Every count and section length is checked against the
 * file size before anything is allocated; errors name path, section and offset. */
int r1cs_read_circom(r1cs *ret, const char *path, cuzk_error *err);
int r1cs_write_circom(const r1cs *cs, const char *path, cuzk_error *err);
/* The same parser over len bytes in memory (fuzzers); name is used in messages. */
int r1cs_parse_circom_mem(r1cs *ret, const uint8_t *buf, size_t len, const char *name,
			  cuzk_error *err);

/* circom's .wtns: the full assignment z (num_inputs + num_aux values,
 * returned in Montgomery form). */
int wtns_read(fr_t **ret_values, size_t *ret_count, const char *path, cuzk_error *err);
int wtns_write(const fr_t *values, size_t count, const char *path, cuzk_error *err);
int wtns_parse_mem(fr_t **ret_values, size_t *ret_count, const uint8_t *buf, size_t len,
		   const char *name, cuzk_error *err);

#endif
