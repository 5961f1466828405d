// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Fr, the BLS12-381 scalar field: r = 0x73eda753...00000001 (255 bits),
 * two-adicity 32, multiplicative generator 7.
 *
 * Elements are 4 little-endian 64-bit limbs in Montgomery form (x·2^256 mod r),
 * fully reduced: exactly blstrs' in-memory Scalar, so witness scalars written
 * by bellperson clients in Montgomery form are fr_t values as they are. */
#ifndef CUZK_BLS_FR_H
#define CUZK_BLS_FR_H

#include <stdint.h>
#include <stddef.h>

typedef struct fr {
	uint64_t l[4];
} fr_t;

extern const fr_t FR_ZERO;
extern const fr_t FR_ONE;        /* 1 in Montgomery form */
extern const uint64_t FR_MODULUS[4];
#define FR_TWO_ADICITY 32
#define FR_GENERATOR 7           /* multiplicative generator, also the coset shift */

void fr_add(fr_t *r, const fr_t *a, const fr_t *b);
void fr_sub(fr_t *r, const fr_t *a, const fr_t *b);
void fr_dbl(fr_t *r, const fr_t *a);
void fr_neg(fr_t *r, const fr_t *a);
void fr_mul(fr_t *r, const fr_t *a, const fr_t *b);
void fr_sqr(fr_t *r, const fr_t *a);
void fr_inv(fr_t *r, const fr_t *a);                 /* 1/a; 0 maps to 0 */
void fr_pow_u64(fr_t *r, const fr_t *a, uint64_t e);
/* Batch inversion (Montgomery's trick); zeros stay zero.  scratch: n elements. */
void fr_batch_inv(fr_t *out, const fr_t *in, size_t n, fr_t *scratch);

int fr_is_zero(const fr_t *a);
int fr_is_one(const fr_t *a);
int fr_eq(const fr_t *a, const fr_t *b);

void fr_from_u64(fr_t *r, uint64_t v);
/* Canonical little-endian limbs to and from Montgomery form.
 * fr_to_mont requires canon < r; fr_from_canonical checks it and returns 0
 * or -CUZK_E_NONCANONICAL. */
void fr_to_mont(fr_t *r, const uint64_t canon[4]);
int fr_from_canonical(fr_t *r, const uint64_t canon[4]);
void fr_from_mont(uint64_t canon[4], const fr_t *a);
/* 32 bytes little-endian canonical (circom .wtns, snarkjs). 0 or -CUZK_E_NONCANONICAL. */
int fr_from_le_bytes(fr_t *r, const uint8_t in[32]);
void fr_to_le_bytes(uint8_t out[32], const fr_t *a);
/* Decimal strings (snarkjs public.json). 0, or -CUZK_E_FORMAT / -CUZK_E_NONCANONICAL. */
int fr_from_decimal(fr_t *r, const char *s);
/* Writes the canonical decimal value; buf must hold at least 80 bytes. */
void fr_to_decimal(char *buf, size_t len, const fr_t *a);

/* A primitive 2^log_n-th root of unity, log_n <= 32 (7^((r-1)/2^32) squared down). */
void fr_root_of_unity(fr_t *r, unsigned log_n);

void fr_mul_ref(fr_t *r, const fr_t *a, const fr_t *b);
/* The portable C Montgomery multiplication; fr_mul uses x86-64 BMI2/ADX
 * assembly instead when the CPU has it. */
void fr_mul_portable(fr_t *r, const fr_t *a, const fr_t *b);

#endif
