// SPDX-License-Identifier: Apache-2.0 OR MIT
// MSM scalars on the device: Fr values as 8 LE u32 limbs, canonical or in
// Montgomery form (x·2^256 mod r, as bellperson/blstrs keep them).  Here they
// are brought to canonical form, classified (0, 1, other), folded to at most
// (r-1)/2 by negation (so 254 bits and one fewer window), and cut into signed
// digits.  Plain 64-bit C++ (not hot: once per scalar and window group).
#ifndef CUZK_CUDA_MSM_SCALAR_CUH
#define CUZK_CUDA_MSM_SCALAR_CUH

#include <cstdint>

#include "ff/hd.cuh"

namespace cuzk {
namespace msm_scalar {

// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
CUZK_HD constexpr uint64_t R(int k)
{
	return k == 0 ? 0xffffffff00000001ull : k == 1 ? 0x53bda402fffe5bfeull
	     : k == 2 ? 0x3339d80809a1d805ull : 0x73eda753299d7d48ull;
}
// (r - 1) / 2
CUZK_HD constexpr uint64_t HALF(int k)
{
	return k == 0 ? 0x7fffffff80000000ull : k == 1 ? 0xa9ded2017fff2dffull
	     : k == 2 ? 0x199cec0404d0ec02ull : 0x39f6d3a994cebea4ull;
}
constexpr uint64_t RINV = 0xfffffffeffffffffull;   // -r^-1 mod 2^64

CUZK_HD uint64_t mulhi(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
	return __umul64hi(a, b);
#else
	return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

// a > b as 256-bit integers
CUZK_HD bool gt(const uint64_t a[4], const uint64_t b[4])
{
	for (int k = 3; k >= 0; k--)
		if (a[k] != b[k])
			return a[k] > b[k];
	return false;
}

// s -= r when s >= r (borrow chain in 64-bit words).
CUZK_HD void sub_r_if_ge(uint64_t s[4])
{
	uint64_t d[4], borrow = 0;
	for (int k = 0; k < 4; k++) {
		uint64_t rk = R(k);
		uint64_t t = s[k] - rk;
		uint64_t b1 = s[k] < rk;
		d[k] = t - borrow;
		borrow = b1 | (t < borrow);
	}
	if (!borrow)
		for (int k = 0; k < 4; k++)
			s[k] = d[k];
}

// s·2^-256 mod r (Montgomery reduction, four 64-bit rounds).
CUZK_HD void from_mont(uint64_t s[4])
{
	uint64_t t[5] = {s[0], s[1], s[2], s[3], 0};
	for (int i = 0; i < 4; i++) {
		uint64_t m = t[0] * RINV;
		uint64_t carry = 0;
		for (int j = 0; j < 4; j++) {
			uint64_t lo = m * R(j), hi = mulhi(m, R(j));
			lo += t[j];
			hi += lo < t[j];
			lo += carry;
			hi += lo < carry;
			t[j] = lo;
			carry = hi;
		}
		t[4] += carry;   // t < 2^257 stays representable: t[4] <= 1 before
		for (int j = 0; j < 4; j++)
			t[j] = t[j + 1];
		t[4] = 0;
	}
	for (int k = 0; k < 4; k++)
		s[k] = t[k];
}

enum class kind : uint8_t { zero, one, other };

// Loads scalar i as a canonical value below r (Montgomery input is converted;
// any 256-bit canonical input is reduced, so a stray value >= r still means
// the right multiple) and says whether it is 0, 1 or something else.
CUZK_HD kind load(uint64_t s[4], const uint64_t *scalars, size_t i, bool montgomery)
{
	for (int k = 0; k < 4; k++)
		s[k] = scalars[4 * i + k];
	if (montgomery)
		from_mont(s);
	sub_r_if_ge(s);
	sub_r_if_ge(s);   // 2^256 < 3r
	if ((s[1] | s[2] | s[3]) == 0 && s[0] <= 1)
		return s[0] == 0 ? kind::zero : kind::one;
	return kind::other;
}

// If s > (r-1)/2, s = r - s and true (the point is negated instead).
CUZK_HD bool fold(uint64_t s[4])
{
	uint64_t h[4] = {HALF(0), HALF(1), HALF(2), HALF(3)};
	if (!gt(s, h))
		return false;
	uint64_t borrow = 0;
	for (int k = 0; k < 4; k++) {
		uint64_t rk = R(k);
		uint64_t t = rk - s[k];
		uint64_t b1 = rk < s[k];
		s[k] = t - borrow;
		borrow = b1 | (t < borrow);
	}
	return true;
}

// The c bits of s at bit offset off (c <= 32; off + c may pass bit 255).
CUZK_HD uint32_t bits(const uint64_t s[4], unsigned off, unsigned c)
{
	unsigned w = off / 64, sh = off % 64;
	uint64_t v = w < 4 ? s[w] >> sh : 0;
	if (sh + c > 64 && w + 1 < 4)
		v |= s[w + 1] << (64 - sh);
	return (uint32_t)(v & ((1ull << c) - 1));
}

// Window digits: the cw bits of s at off plus the carry from the window
// below, as a signed digit of magnitude at most 2^(cw-1) (carry updated).
struct digit_t {
	uint32_t mag;
	bool neg;
};
CUZK_HD digit_t signed_digit(const uint64_t s[4], unsigned off, unsigned cw, uint32_t &carry)
{
	const uint32_t half = 1u << (cw - 1), v = bits(s, off, cw) + carry;
	if (v > half) {
		carry = 1;
		return {(1u << cw) - v, true};   // the digit v - 2^cw
	}
	carry = 0;
	return {v, false};
}

// Whether the bits below off of a scalar whose 64-bit limb k is limb(k),
// as a number, are at least h (the carry into the window at off:
// msm/plan.cuh's carry_at).  limb(k) is asked for only below off, from the
// top down to the first limb that differs from h's.
template <class Limb> CUZK_HD uint32_t carry_in_limbs(Limb limb, unsigned off, const uint64_t h[4])
{
	for (int k = 3; k >= 0; k--) {
		const unsigned lo = 64 * unsigned(k);
		const uint64_t v = off <= lo ? 0 : off - lo >= 64 ? limb(k) : limb(k) & ((uint64_t(1) << (off - lo)) - 1);
		if (v != h[k])
			return v > h[k] ? 1 : 0;
	}
	return 1;   // equal
}

CUZK_HD uint32_t carry_in(const uint64_t s[4], unsigned off, const uint64_t h[4])
{
	return carry_in_limbs([s](int k) { return s[k]; }, off, h);
}

} // namespace msm_scalar
} // namespace cuzk

#endif
