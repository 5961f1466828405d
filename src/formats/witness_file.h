// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Witness files on disk (layout: src/abi/witness_format.h): written by
 * `cuzk synth` and the synthetic generator, mapped by `cuzk prove`. */
#ifndef CUZK_FORMATS_WITNESS_FILE_H
#define CUZK_FORMATS_WITNESS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "abi/witness_format.h"
#include "bls12_381/fr.h"
#include "common/error.h"
#include "prover/types.h"

/* A witness file mapped into memory. */
typedef struct groth16_witness_map {
	struct witness_desc desc;   /* validated copy of header and table */
	uint8_t *base;
	size_t size;
	int writable;
} groth16_witness_map;

/* Creates path (replacing it) sized for a single partition with these
 * counts, maps it writable and zero-filled, header written.  Fill the
 * sections through groth16_witness_file_section(), then close. */
int groth16_witness_file_create(groth16_witness_map *ret, const char *path, uint64_t num_constraints,
				uint64_t num_inputs, uint64_t num_aux, uint32_t flags, cuzk_error *err);
/* Start of section s of partition p (a pointer into the mapping). */
void *groth16_witness_file_section(const groth16_witness_map *m, unsigned p,
				  enum witness_section s);

/* Maps path read-only and validates it (witness_parse). */
int groth16_witness_file_open(groth16_witness_map *ret, const char *path, cuzk_error *err);
/* The prover's view of partition p (pointers into the mapping).
 * -CUZK_E_INVAL if p is out of range. */
int groth16_witness_file_view(groth16_witness_view *ret, const groth16_witness_map *m, unsigned p,
			      cuzk_error *err);
/* Unmaps.  What was written through a writable map reaches the file via
 * the page cache (no msync: these files need no durability).  -CUZK_E_IO
 * if munmap fails. */
int groth16_witness_file_close(groth16_witness_map *m, cuzk_error *err);

#endif
