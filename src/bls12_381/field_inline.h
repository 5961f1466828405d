// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Fp and Fp2 arithmetic as inline functions, for the hot loops of the curve
 * code and the MSM: fpi_* and fp2i_* do what fp_* and fp2_* do (fp.h,
 * fp2.h), which are the same code behind a call.
 *
 * Why: in an MSM window nearly all the time is field products and
 * additions on a handful of values; as calls every operand goes through
 * memory and every product pays a call and a CPU-feature test.  Inlined
 * into the G1 code (g1.c, the G1 batch additions) the G1 MSMs ran 2-4%
 * faster (x5 at 2^14).
 *
 * The multiplication is the ADX assembly when the CPU has it, else a call to
 * the portable C routine (inlining that too would only bloat each caller).
 *
 * Fp2 products stay calls (to fp2_mul and fp2_sqr, which inline their
 * three and two Fp products): a G2 addition holds some fifteen Fp products,
 * and with all of them inlined into it the G2 MSM ran 6-35% slower (code
 * that no longer fits the CPU's caches). */
#ifndef CUZK_BLS_FIELD_INLINE_H
#define CUZK_BLS_FIELD_INLINE_H

#include "bls12_381/fp.h"
#include "bls12_381/fp2.h"
#include "bls12_381/limbs.h"

#define FIELD_INLINE static inline __attribute__((always_inline))

FIELD_INLINE void fpi_add(fp_t *r, const fp_t *a, const fp_t *b)
{
	limbs_mod_add(r->l, a->l, b->l, FP_MODULUS, 6);
}

FIELD_INLINE void fpi_sub(fp_t *r, const fp_t *a, const fp_t *b)
{
	limbs_mod_sub(r->l, a->l, b->l, FP_MODULUS, 6);
}

FIELD_INLINE void fpi_dbl(fp_t *r, const fp_t *a)
{
	limbs_mod_add(r->l, a->l, a->l, FP_MODULUS, 6);
}

FIELD_INLINE void fpi_neg(fp_t *r, const fp_t *a)
{
	static const uint64_t zero[6];
	limbs_mod_sub(r->l, zero, a->l, FP_MODULUS, 6);
}

FIELD_INLINE void fpi_mul(fp_t *r, const fp_t *a, const fp_t *b)
{
#ifdef LIMBS_HAVE_ADX_ASM
	if (__builtin_expect(limbs_cpu_has_adx(), 1)) {
		fp_mont_mul_adx(r->l, a->l, b->l);
		return;
	}
#endif
	fp_mul_portable(r, a, b);
}

/* As fp_sqr: a dedicated squaring measured no faster (field_impl.h). */
FIELD_INLINE void fpi_sqr(fp_t *r, const fp_t *a)
{
	fpi_mul(r, a, a);
}

FIELD_INLINE int fpi_is_zero(const fp_t *a)
{
	return limbs_is_zero(a->l, 6);
}

FIELD_INLINE int fpi_eq(const fp_t *a, const fp_t *b)
{
	return limbs_eq(a->l, b->l, 6);
}

/* Out of line, as in fp.h: an inversion dwarfs a call. */
FIELD_INLINE void fpi_inv(fp_t *r, const fp_t *a)
{
	fp_inv(r, a);
}

FIELD_INLINE void fpi_inv_vartime(fp_t *r, const fp_t *a)
{
	fp_inv_vartime(r, a);
}

/* Fp2 = Fp[u]/(u^2 + 1). */
FIELD_INLINE void fp2i_add(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
	fpi_add(&r->c0, &a->c0, &b->c0);
	fpi_add(&r->c1, &a->c1, &b->c1);
}

FIELD_INLINE void fp2i_sub(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
	fpi_sub(&r->c0, &a->c0, &b->c0);
	fpi_sub(&r->c1, &a->c1, &b->c1);
}

FIELD_INLINE void fp2i_dbl(fp2_t *r, const fp2_t *a)
{
	fpi_dbl(&r->c0, &a->c0);
	fpi_dbl(&r->c1, &a->c1);
}

FIELD_INLINE void fp2i_neg(fp2_t *r, const fp2_t *a)
{
	fpi_neg(&r->c0, &a->c0);
	fpi_neg(&r->c1, &a->c1);
}

/* Products stay calls (fp2.c inlines the three Fp products in each). */
FIELD_INLINE void fp2i_mul(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
	fp2_mul(r, a, b);
}

FIELD_INLINE void fp2i_sqr(fp2_t *r, const fp2_t *a)
{
	fp2_sqr(r, a);
}

FIELD_INLINE int fp2i_is_zero(const fp2_t *a)
{
	return fpi_is_zero(&a->c0) & fpi_is_zero(&a->c1);
}

FIELD_INLINE int fp2i_eq(const fp2_t *a, const fp2_t *b)
{
	return fpi_eq(&a->c0, &b->c0) & fpi_eq(&a->c1, &b->c1);
}

FIELD_INLINE void fp2i_inv(fp2_t *r, const fp2_t *a)
{
	fp2_inv(r, a);
}

FIELD_INLINE void fp2i_inv_vartime(fp2_t *r, const fp2_t *a)
{
	fp2_inv_vartime(r, a);
}

#endif
