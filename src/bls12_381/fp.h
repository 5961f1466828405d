// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Fp, the BLS12-381 base field: p = 0x1a0111ea...ffffaaab (381 bits).
 *
 * Elements are 6 little-endian 64-bit limbs in Montgomery form (x·2^384 mod p),
 * always fully reduced to [0, p).  This is also the layout the GPU backend
 * and the resident SRS use, so arrays of fp_t cross that boundary as is. */
#ifndef CUZK_BLS_FP_H
#define CUZK_BLS_FP_H

#include <stdint.h>
#include <stddef.h>

typedef struct fp {
	uint64_t l[6];
} fp_t;

extern const fp_t FP_ZERO;
extern const fp_t FP_ONE;       /* 1 in Montgomery form */
extern const uint64_t FP_MODULUS[6];

void fp_add(fp_t *r, const fp_t *a, const fp_t *b);
void fp_sub(fp_t *r, const fp_t *a, const fp_t *b);
void fp_dbl(fp_t *r, const fp_t *a);
void fp_neg(fp_t *r, const fp_t *a);
void fp_mul(fp_t *r, const fp_t *a, const fp_t *b);
void fp_sqr(fp_t *r, const fp_t *a);
void fp_mul_small(fp_t *r, const fp_t *a, uint64_t k);  /* a·k for small constants */
void fp_inv(fp_t *r, const fp_t *a);                    /* 1/a; 0 maps to 0 */
/* The same by the binary extended Euclid algorithm, ~5× faster but its time
 * depends on a: only for public values (MSM bucket sums of public points). */
void fp_inv_vartime(fp_t *r, const fp_t *a);
/* Square root: returns 1 and sets r (either root) if a is a square, else 0. */
int fp_sqrt(fp_t *r, const fp_t *a);
void fp_pow(fp_t *r, const fp_t *a, const uint64_t *exp, size_t exp_limbs);

int fp_is_zero(const fp_t *a);
int fp_eq(const fp_t *a, const fp_t *b);
/* 1 if a > (p-1)/2 as integers (the zcash "larger root" test). */
int fp_is_lexicographically_largest(const fp_t *a);

void fp_from_u64(fp_t *r, uint64_t v);
/* Canonical little-endian limbs (must be < p) to and from Montgomery form. */
void fp_to_mont(fp_t *r, const uint64_t canon[6]);
void fp_from_mont(uint64_t canon[6], const fp_t *a);
/* 48 bytes big-endian.  from_be returns 0, or -CUZK_E_NONCANONICAL if >= p. */
int fp_from_be_bytes(fp_t *r, const uint8_t in[48]);
void fp_to_be_bytes(uint8_t out[48], const fp_t *a);

/* Plain-C twins of the optimised routines, for tests that compare them. */
void fp_mul_ref(fp_t *r, const fp_t *a, const fp_t *b);
/* The portable C Montgomery multiplication; fp_mul uses x86-64 BMI2/ADX
 * assembly instead when the CPU has it. */
void fp_mul_portable(fp_t *r, const fp_t *a, const fp_t *b);

#endif
