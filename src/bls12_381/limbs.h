// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Multi-precision primitives on little-endian 64-bit limb arrays, shared by
 * Fp (6 limbs) and Fr (4 limbs).  Internal to src/bls12_381.
 *
 * Every routine takes the limb count n as a parameter and is always inlined:
 * each caller passes a constant, so the compiler specialises and unrolls the
 * loops for that width.  Nothing here branches on the values: carries and
 * comparisons become masks. */
#ifndef CUZK_BLS_LIMBS_H
#define CUZK_BLS_LIMBS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* CUZK_BLS_PORTABLE builds the plain C paths only (to test them on x86-64). */
#if defined(__x86_64__) && !defined(CUZK_BLS_PORTABLE)
#define LIMBS_X86_64 1
#include <x86intrin.h>
#endif

#define LIMBS_INLINE static inline __attribute__((always_inline))
#define LIMBS_MAX 6

typedef unsigned __int128 limb_wide;

/* r = a + b; returns the carry out.  On x86-64 the carry intrinsics become
 * one add/adc chain; GCC does much worse with the 128-bit formulation. */
LIMBS_INLINE uint64_t limbs_add(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n)
{
#ifdef LIMBS_X86_64
	unsigned char carry = 0;
#pragma GCC unroll 6
	for (size_t i = 0; i < n; i++)
		carry = _addcarry_u64(carry, a[i], b[i], (unsigned long long *)&r[i]);
	return carry;
#else
	uint64_t carry = 0;
#pragma GCC unroll 6
	for (size_t i = 0; i < n; i++) {
		limb_wide s = (limb_wide)a[i] + b[i] + carry;
		r[i] = (uint64_t)s;
		carry = (uint64_t)(s >> 64);
	}
	return carry;
#endif
}

/* r = a - b; returns the borrow out (0 or 1). */
LIMBS_INLINE uint64_t limbs_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n)
{
#ifdef LIMBS_X86_64
	unsigned char borrow = 0;
#pragma GCC unroll 6
	for (size_t i = 0; i < n; i++)
		borrow = _subborrow_u64(borrow, a[i], b[i], (unsigned long long *)&r[i]);
	return borrow;
#else
	uint64_t borrow = 0;
#pragma GCC unroll 6
	for (size_t i = 0; i < n; i++) {
		limb_wide d = (limb_wide)a[i] - b[i] - borrow;
		r[i] = (uint64_t)d;
		borrow = (uint64_t)(d >> 64) & 1;
	}
	return borrow;
#endif
}

/* Hides a value from the optimiser: it can then neither turn a mask back
 * into a branch nor vectorise the limb loops (GCC's SSE version of a select
 * reloads limbs just stored one by one, a store-forwarding stall that cost
 * more than the whole addition). */
LIMBS_INLINE uint64_t limbs_opaque(uint64_t v)
{
	__asm__("" : "+r"(v));
	return v;
}

/* r = mask ? a : b, mask all-ones or zero. */
LIMBS_INLINE void limbs_select(uint64_t *r, uint64_t mask, const uint64_t *a, const uint64_t *b, size_t n)
{
#pragma GCC unroll 6
	for (size_t i = 0; i < n; i++)
		r[i] = limbs_opaque((a[i] & mask) | (b[i] & ~mask));
}

/* r = a mod m for a < 2m (a given as n limbs plus a carry bit). */
LIMBS_INLINE void limbs_reduce_once(uint64_t *r, const uint64_t *a, uint64_t carry, const uint64_t *m, size_t n)
{
	uint64_t d[LIMBS_MAX];
	uint64_t borrow = limbs_sub(d, a, m, n);
	/* keep a when it was below m: borrow set and no carry to pay it */
	uint64_t keep_a = 0 - (borrow & ~carry & 1);
	limbs_select(r, keep_a, a, d, n);
}

/* (a + b) mod m for a, b < m. */
LIMBS_INLINE void limbs_mod_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, size_t n)
{
	uint64_t s[LIMBS_MAX];
	uint64_t carry = limbs_add(s, a, b, n);
	limbs_reduce_once(r, s, carry, m, n);
}

/* (a - b) mod m for a, b < m: add m back under the borrow's mask. */
LIMBS_INLINE void limbs_mod_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, size_t n)
{
	uint64_t d[LIMBS_MAX], mm[LIMBS_MAX];
	uint64_t mask = 0 - limbs_sub(d, a, b, n);
#pragma GCC unroll 6
	for (size_t i = 0; i < n; i++)
		mm[i] = limbs_opaque(m[i] & mask);
	limbs_add(r, d, mm, n);
}

LIMBS_INLINE int limbs_is_zero(const uint64_t *a, size_t n)
{
	uint64_t acc = 0;
	for (size_t i = 0; i < n; i++)
		acc |= a[i];
	return acc == 0;
}

LIMBS_INLINE int limbs_eq(const uint64_t *a, const uint64_t *b, size_t n)
{
	uint64_t acc = 0;
	for (size_t i = 0; i < n; i++)
		acc |= a[i] ^ b[i];
	return acc == 0;
}

/* 1 if a < b. */
LIMBS_INLINE int limbs_lt(const uint64_t *a, const uint64_t *b, size_t n)
{
	uint64_t d[LIMBS_MAX];
	return (int)limbs_sub(d, a, b, n);
}

/* Montgomery multiplication, CIOS (Koç, Acar, Kaliski 1996, "Analyzing and
 * comparing Montgomery multiplication algorithms"), with the carry-word
 * elision that holds when the top limb of m is below 2^63 - 1 (true for both
 * p and r): the running sum then never needs an (n+1)-th word.
 * r = a·b·2^(-64n) mod m, for a, b < m; minv = -m^(-1) mod 2^64.  r may alias. */
LIMBS_INLINE void limbs_mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b,
				 const uint64_t *m, uint64_t minv, size_t n)
{
	uint64_t t[LIMBS_MAX] = { 0 };
#pragma GCC unroll 6
	for (size_t i = 0; i < n; i++) {
		limb_wide acc = (limb_wide)a[0] * b[i] + t[0];
		uint64_t hi_mul = (uint64_t)(acc >> 64);
		uint64_t q = (uint64_t)acc * minv;
		limb_wide red = (limb_wide)q * m[0] + (uint64_t)acc;
		uint64_t hi_red = (uint64_t)(red >> 64);
#pragma GCC unroll 6
		for (size_t j = 1; j < n; j++) {
			acc = (limb_wide)a[j] * b[i] + t[j] + hi_mul;
			hi_mul = (uint64_t)(acc >> 64);
			red = (limb_wide)q * m[j] + (uint64_t)acc + hi_red;
			hi_red = (uint64_t)(red >> 64);
			t[j - 1] = (uint64_t)red;
		}
		t[n - 1] = hi_mul + hi_red;
	}
	limbs_reduce_once(r, t, 0, m, n);
}

/* Montgomery reduction of a 2n-limb value t < m·2^(64n) (separated operand
 * scanning): adds q_i·m·2^(64i) to clear the low limbs one by one.  Since
 * m < 2^(64n)/4, t + q·m < 2^(128n) and the top carry is always zero. */
LIMBS_INLINE void limbs_mont_reduce(uint64_t *r, uint64_t *t, const uint64_t *m, uint64_t minv, size_t n)
{
	uint64_t carry_top = 0;
#pragma GCC unroll 6
	for (size_t i = 0; i < n; i++) {
		uint64_t q = t[i] * minv;
		uint64_t carry = 0;
#pragma GCC unroll 6
		for (size_t j = 0; j < n; j++) {
			limb_wide s = (limb_wide)q * m[j] + t[i + j] + carry;
			t[i + j] = (uint64_t)s;
			carry = (uint64_t)(s >> 64);
		}
		/* the carry lands in limb i+n, together with the one left by the row before */
		limb_wide s = (limb_wide)t[i + n] + carry + carry_top;
		t[i + n] = (uint64_t)s;
		carry_top = (uint64_t)(s >> 64);
	}
	limbs_reduce_once(r, t + n, carry_top, m, n);
}

/* Plain reference: the full schoolbook product, then the reduction above
 * (a different algorithm from CIOS).  Kept simple on purpose; the tests
 * compare the CIOS C routine and the assembly against it. */
LIMBS_INLINE void limbs_mont_mul_ref(uint64_t *r, const uint64_t *a, const uint64_t *b,
				     const uint64_t *m, uint64_t minv, size_t n)
{
	uint64_t t[2 * LIMBS_MAX] = { 0 };
	for (size_t i = 0; i < n; i++) {
		uint64_t carry = 0;
		for (size_t j = 0; j < n; j++) {
			limb_wide s = (limb_wide)a[i] * b[j] + t[i + j] + carry;
			t[i + j] = (uint64_t)s;
			carry = (uint64_t)(s >> 64);
		}
		t[i + n] = carry;
	}
	limbs_mont_reduce(r, t, m, minv, n);
}

/* Big-endian bytes to little-endian limbs and back (len = 8n).  Reading
 * the params decodes two of these per point: on little-endian hosts one
 * byte swap per limb instead of eight shifts. */
LIMBS_INLINE void limbs_from_be(uint64_t *r, const uint8_t *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		uint64_t v;
		memcpy(&v, in + 8 * (n - 1 - i), sizeof(v));
		r[i] = __builtin_bswap64(v);
#else
		uint64_t v = 0;
		for (size_t k = 0; k < 8; k++)
			v = (v << 8) | in[8 * (n - 1 - i) + k];
		r[i] = v;
#endif
	}
}

LIMBS_INLINE void limbs_to_be(uint8_t *out, const uint64_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < 8; k++)
			out[8 * (n - 1 - i) + k] = (uint8_t)(a[i] >> (56 - 8 * k));
}

/* The x86-64 BMI2/ADX assembly (mont_x86_64.h) runs when the CPU has both
 * extensions; the C routines above are the portable path, and the twins the
 * tests compare it with.  GCC only: clang 14 (the fuzzing build) has no
 * "adx" for __builtin_cpu_supports, and asking CPUID on every call, or
 * caching its answer in a global, is not worth it there. */
#if defined(LIMBS_X86_64) && defined(__GNUC__) && !defined(__clang__)
#include "bls12_381/mont_x86_64.h"
#define LIMBS_HAVE_ADX_ASM 1
LIMBS_INLINE int limbs_cpu_has_adx(void)
{
	return __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx");
}
#endif

#endif
