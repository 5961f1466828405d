// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The operations Fp and Fr share, written once.  Internal to src/bls12_381:
 * fp.c and fr.c each include it once, after defining
 *   F(name)      the public name (fp_##name)
 *   F_T          the element type
 *   F_N          the number of 64-bit limbs
 *   F_MODULUS    the modulus limbs; F_INV = -modulus^(-1) mod 2^64
 *   F_R2         2^(128·F_N) mod modulus (an F_T), F_ONE
 *   F_MUL_ADX    the BMI2/ADX assembly multiplication from mont_x86_64.h */
#ifndef F
#error "define F, F_T, F_N, F_MODULUS, F_INV, F_R2, F_ONE and F_MUL_ADX before including field_impl.h"
#endif

void F(add)(F_T *r, const F_T *a, const F_T *b)
{
	limbs_mod_add(r->l, a->l, b->l, F_MODULUS, F_N);
}

void F(sub)(F_T *r, const F_T *a, const F_T *b)
{
	limbs_mod_sub(r->l, a->l, b->l, F_MODULUS, F_N);
}

void F(dbl)(F_T *r, const F_T *a)
{
	limbs_mod_add(r->l, a->l, a->l, F_MODULUS, F_N);
}

void F(neg)(F_T *r, const F_T *a)
{
	static const uint64_t zero[F_N];
	limbs_mod_sub(r->l, zero, a->l, F_MODULUS, F_N);
}

void F(mul)(F_T *r, const F_T *a, const F_T *b)
{
#ifdef LIMBS_HAVE_ADX_ASM
	if (__builtin_expect(limbs_cpu_has_adx(), 1)) {
		F_MUL_ADX(r->l, a->l, b->l);
		return;
	}
#endif
	limbs_mont_mul(r->l, a->l, b->l, F_MODULUS, F_INV, F_N);
}

/* Squaring is multiplication: a dedicated squaring (half the cross
 * products, then a separate reduction) measured slower in C with GCC 12 on
 * x86-64 (72 ns against 54 ns for the CIOS multiplication), and the ADX
 * assembly multiplies at 43 ns.  An ADX squaring that adds each cross
 * product once, doubled (57 mulx instead of 72), measured no faster either
 * (23.8 ns against 22.2, and no gain in the MSM): the rows' reductions,
 * not the products, set the pace. */
void F(sqr)(F_T *r, const F_T *a)
{
	F(mul)(r, a, a);
}

void F(mul_portable)(F_T *r, const F_T *a, const F_T *b)
{
	limbs_mont_mul(r->l, a->l, b->l, F_MODULUS, F_INV, F_N);
}

void F(mul_ref)(F_T *r, const F_T *a, const F_T *b)
{
	limbs_mont_mul_ref(r->l, a->l, b->l, F_MODULUS, F_INV, F_N);
}

/* a^e, left to right; e is public (the time depends on it, not on a). */
static void F(pow_limbs)(F_T *r, const F_T *a, const uint64_t *exp, size_t exp_limbs)
{
	F_T acc = F_ONE, base = *a;
	for (size_t i = exp_limbs; i-- > 0;)
		for (int bit = 63; bit >= 0; bit--) {
			F(sqr)(&acc, &acc);
			if ((exp[i] >> bit) & 1)
				F(mul)(&acc, &acc, &base);
		}
	*r = acc;
}

int F(is_zero)(const F_T *a)
{
	return limbs_is_zero(a->l, F_N);
}

int F(eq)(const F_T *a, const F_T *b)
{
	return limbs_eq(a->l, b->l, F_N);
}

void F(from_u64)(F_T *r, uint64_t v)
{
	uint64_t canon[F_N] = { v };   /* below the modulus: both exceed 2^64 */
	F(to_mont)(r, canon);
}

/* Through F(mul), so the assembly when there is one: decoding the params
 * converts every coordinate (canon < modulus is the caller's promise). */
void F(to_mont)(F_T *r, const uint64_t canon[F_N])
{
	F_T c;
	memcpy(c.l, canon, sizeof(c.l));
	F(mul)(r, &c, &F_R2);
}

void F(from_mont)(uint64_t canon[F_N], const F_T *a)
{
	static const uint64_t one[F_N] = { 1 };
	limbs_mont_mul(canon, a->l, one, F_MODULUS, F_INV, F_N);
}
