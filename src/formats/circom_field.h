// SPDX-License-Identifier: Apache-2.0 OR MIT
/* What circom's binary files (.r1cs, .wtns) say about their field: the
 * element size and the prime, which must be BLS12-381's r. */
#ifndef CUZK_FORMATS_CIRCOM_FIELD_H
#define CUZK_FORMATS_CIRCOM_FIELD_H

#include <stdint.h>

#include "common/error.h"
#include "formats/byte_io.h"

#define CIRCOM_FIELD_BYTES 32u

/* Reads "u32 field size, prime (field size bytes LE)" at the cursor and
 * checks them: -CUZK_E_UNSUPPORTED for any other field (circom's default
 * is bn128: compile with --prime bls12381), -CUZK_E_FORMAT if truncated. */
int circom_read_field(byte_reader *r, const char *section, cuzk_error *err);
/* The 32-byte little-endian encoding of r. */
void circom_field_prime(uint8_t out[CIRCOM_FIELD_BYTES]);

/* Reads circom's "magic, u32 version, u32 nSections" and then the section
 * table, recording where sections of type 1..max_type start and end.
 * Duplicate sections of a known type are an error; unknown types are
 * skipped.  start[t] = 0 when section t is absent. */
typedef struct circom_sections {
	uint64_t start[4], end[4];
} circom_sections;
int circom_read_sections(circom_sections *ret, byte_reader *r, const char magic[4], uint32_t version,
			 unsigned max_type, cuzk_error *err);

#endif
