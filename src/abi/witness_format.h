// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The witness file: one layout for the CLI's files on disk and for the
 * memfds clients hand to cuzkd (docs/PROTOCOL.md, "Witness file").  An ABI,
 * not a part of the protocol: the witness files of src/formats use it as
 * much as the daemon does, so it sits below both them and src/ipc.
 *
 *   offset 0     struct witness_header (64 bytes)
 *   offset 64    struct witness_partition[num_partitions] (64 bytes each)
 *   then         sections, each starting at a multiple of 64 bytes
 *
 * All integers little-endian.  Per partition there are eight sections:
 *   a, b, c        num_constraints scalars each (32 bytes: 4 LE u64 limbs)
 *   input          num_inputs scalars (input 0 is the constant 1)
 *   aux            num_aux scalars
 *   a_aux_density  ceil(num_aux/64) u64 words, bit i of word i/64 = aux i in A
 *   b_input_density ceil(num_inputs/64) words
 *   b_aux_density  ceil(num_aux/64) words
 * Scalars are Montgomery form (x·2^256 mod r) when CUZK_WITNESS_MONTGOMERY is
 * set in flags, canonical otherwise.  num_constraints counts a, b and c as the
 * prover sees them: the circuit's constraints followed by one per public input
 * (input_i · 0 = 0), as bellperson appends them.  Partitions may share a
 * section (e.g. density bitmaps) by pointing at the same offset. */
#ifndef CUZK_ABI_WITNESS_FORMAT_H
#define CUZK_ABI_WITNESS_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define CUZK_WITNESS_MAGIC "CUZKWTNS"
#define CUZK_WITNESS_VERSION 1u
#define CUZK_WITNESS_ALIGN 64u
#define CUZK_WITNESS_MONTGOMERY 0x1u
#define CUZK_WITNESS_KNOWN_FLAGS CUZK_WITNESS_MONTGOMERY
#define CUZK_WITNESS_MAX_PARTITIONS 64u

struct witness_header {
	char magic[8];             /* "CUZKWTNS" */
	uint32_t version;          /* CUZK_WITNESS_VERSION */
	uint32_t flags;            /* CUZK_WITNESS_* */
	uint32_t num_partitions;   /* 1 .. CUZK_WITNESS_MAX_PARTITIONS */
	uint32_t header_size;      /* 64 + 64 * num_partitions */
	uint64_t num_constraints;
	uint64_t num_inputs;       /* including the constant 1 */
	uint64_t num_aux;
	uint64_t reserved[2];      /* zero */
};

enum witness_section {
	CUZK_SEC_A, CUZK_SEC_B, CUZK_SEC_C, CUZK_SEC_INPUT, CUZK_SEC_AUX,
	CUZK_SEC_A_AUX_DENSITY, CUZK_SEC_B_INPUT_DENSITY, CUZK_SEC_B_AUX_DENSITY,
	CUZK_SEC__COUNT
};

struct witness_partition {
	uint64_t offset[CUZK_SEC__COUNT];  /* byte offsets, indexed by witness_section */
};

_Static_assert(sizeof(struct witness_header) == 64, "header is 64 bytes");
_Static_assert(sizeof(struct witness_partition) == 64, "partition entry is 64 bytes");

/* Section name for messages ("a", "b_aux_density", ...). */
const char *witness_section_name(enum witness_section s);
/* Byte length of a section for the given counts (no overflow for counts that
 * passed witness_parse; returns 0 and sets *overflow otherwise). */
uint64_t witness_section_len(enum witness_section s, uint64_t num_constraints,
			     uint64_t num_inputs, uint64_t num_aux, int *overflow);

/* A validated description of a witness file: copies of the header and the
 * partition table in the caller's memory.  Everything that indexes into the
 * file is taken from here, never re-read from the (possibly shared) file. */
struct witness_desc {
	struct witness_header hdr;
	struct witness_partition part[CUZK_WITNESS_MAX_PARTITIONS];
	uint64_t len[CUZK_SEC__COUNT];     /* byte length of each section */
	uint64_t file_size;
};

/* Copies the header and partition table out of buf (size bytes; buf may be
 * shared memory another process writes) and validates every field against
 * size, overflow-safe: magic, version, flags, counts, alignment, bounds.
 * name is used in error messages (a path, or "client 1234"). */
int witness_parse(struct witness_desc *ret, const void *buf, uint64_t size,
		  const char *name, cuzk_error *err);

/* Computes a canonical layout (sections in order, each partition's own) for
 * the given counts: fills *ret (header + table) and its total size.
 * -CUZK_E_INVAL for zero/too many partitions, -CUZK_E_NOMEM if it overflows. */
int witness_layout(struct witness_desc *ret, uint64_t num_constraints, uint64_t num_inputs,
		   uint64_t num_aux, uint32_t num_partitions, uint32_t flags, cuzk_error *err);

/* Writes the header and partition table of desc into buf (>= header_size bytes). */
void witness_write_header(void *buf, const struct witness_desc *desc);

#endif
