// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The zcash BLS12-381 point encodings (used by bellperson, blst, noble).
 *
 * Fp is 48 bytes big-endian; Fp2 is c1 then c0.  Byte 0 carries flags:
 * 0x80 compressed, 0x40 infinity, 0x20 "y is the lexicographically larger
 * root" (compressed only).  G1: 48 compressed / 96 uncompressed bytes;
 * G2: 96 / 192. */
#ifndef CUZK_BLS_ENCODING_H
#define CUZK_BLS_ENCODING_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "bls12_381/g1.h"
#include "bls12_381/g2.h"

#define G1_COMPRESSED_SIZE 48
#define G1_UNCOMPRESSED_SIZE 96
#define G2_COMPRESSED_SIZE 96
#define G2_UNCOMPRESSED_SIZE 192

/* Which checks decoding performs beyond flags, length and canonical
 * coordinates (those are always checked). */
enum bls_check {
	BLS_CHECK_NONE = 0,
	BLS_CHECK_CURVE = 1,         /* on the curve */
	BLS_CHECK_SUBGROUP = 2,      /* in the order-r subgroup (implies CURVE) */
	BLS_CHECK_ALL = 3,
};

void g1_encode_compressed(uint8_t out[48], const g1_aff_t *p);
void g1_encode_uncompressed(uint8_t out[96], const g1_aff_t *p);
void g2_encode_compressed(uint8_t out[96], const g2_aff_t *p);
void g2_encode_uncompressed(uint8_t out[192], const g2_aff_t *p);

/* Decodes len bytes: 48/96 (G1) or 96/192 (G2), the form chosen by the
 * compression flag, which must agree with len.  Errors, each with a message
 * naming what is wrong: -CUZK_E_LENGTH, -CUZK_E_FLAGS (bad flag combination,
 * infinity with non-zero bytes), -CUZK_E_NONCANONICAL (a coordinate >= p),
 * -CUZK_E_NOT_ON_CURVE (also: compressed x with no y), -CUZK_E_NOT_IN_SUBGROUP.
 * On failure *r is unchanged. */
int g1_decode(g1_aff_t *r, const uint8_t *in, size_t len, unsigned checks, cuzk_error *err);
int g2_decode(g2_aff_t *r, const uint8_t *in, size_t len, unsigned checks, cuzk_error *err);

#endif
