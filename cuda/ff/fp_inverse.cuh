// SPDX-License-Identifier: Apache-2.0 OR MIT
// 1/a in Fp by the binary extended Euclid algorithm, for the batch-affine
// rounds of the MSM (msm/affine_rounds.cuh), whose every round waits for
// one inversion per thread of its second level: Fermat's a^(p-2) is ~490
// dependent Montgomery products, this is at most ~2·381 steps of 12-limb
// subtractions and one-bit shifts, and one product at the end.
//
// Variable time: the steps depend on a.  The MSM that calls it is not
// constant time either (its buckets, sorts and counts follow the scalars),
// and its inputs are products of differences of SRS points.
#ifndef CUZK_CUDA_FF_FP_INVERSE_CUH
#define CUZK_CUDA_FF_FP_INVERSE_CUH

#include <cstdint>

#include "ff/fp.cuh"

namespace cuzk {
namespace fp_detail {

// Limb k of R^3 mod p, R = 2^384: the product that takes a Montgomery
// value's plain inverse, (aR)^-1, to the Montgomery form of 1/a, a^-1·R.
CUZK_HD constexpr uint32_t R3(int k)
{
	return k == 0 ? 0xd94ca1e0u : k == 1 ? 0xed48ac6bu : k == 2 ? 0x03a7adf8u
	     : k == 3 ? 0x315f831eu : k == 4 ? 0x615e29ddu : k == 5 ? 0x9a53352au
	     : k == 6 ? 0x921e1761u : k == 7 ? 0x34c04e5eu : k == 8 ? 0x65724728u
	     : k == 9 ? 0x2512d435u : k == 10 ? 0x91755d4du : 0x0aa63460u;
}

// r = a - b mod 2^384; the borrow out (1 when a < b).  r may be a or b.
CUZK_HD uint32_t sub_borrow(uint32_t r[12], const uint32_t a[12], const uint32_t b[12])
{
	uint32_t borrow = 0;
CUZK_UNROLL
	for (int j = 0; j < 12; j++) {
		const uint64_t d = uint64_t(a[j]) - b[j] - borrow;
		r[j] = uint32_t(d);
		borrow = uint32_t(d >> 63);
	}
	return borrow;
}

// x = x - y mod p, both below p.
CUZK_HD void sub_mod_p(uint32_t x[12], const uint32_t y[12])
{
	const uint32_t mask = 0u - sub_borrow(x, x, y);
	uint64_t c = 0;
CUZK_UNROLL
	for (int j = 0; j < 12; j++) {
		c += uint64_t(x[j]) + (P(j) & mask);
		x[j] = uint32_t(c);
		c >>= 32;
	}
}

// x = x/2 mod p, x below p: p added when x is odd (below 2p < 2^382: no
// carry out), then one bit down.
CUZK_HD void half_mod_p(uint32_t x[12])
{
	const uint32_t mask = 0u - (x[0] & 1);
	uint32_t t[12];
	uint64_t c = 0;
CUZK_UNROLL
	for (int j = 0; j < 12; j++) {
		c += uint64_t(x[j]) + (P(j) & mask);
		t[j] = uint32_t(c);
		c >>= 32;
	}
CUZK_UNROLL
	for (int j = 0; j < 11; j++)
		x[j] = (t[j] >> 1) | (t[j + 1] << 31);
	x[11] = t[11] >> 1;
}

CUZK_HD void shr1(uint32_t x[12])
{
CUZK_UNROLL
	for (int j = 0; j < 11; j++)
		x[j] = (x[j] >> 1) | (x[j + 1] << 31);
	x[11] >>= 1;
}

CUZK_HD bool limbs_zero(const uint32_t x[12])
{
	uint32_t acc = 0;
CUZK_UNROLL
	for (int j = 0; j < 12; j++)
		acc |= x[j];
	return acc == 0;
}

} // namespace fp_detail

// 1/a for a != 0 (0 gives 0).  Invariants: x1·a ≡ u and x2·a ≡ v (mod p),
// v and, after the first strip, u odd; each step subtracts the smaller
// from the larger and strips the difference's factors of 2 (halving its
// coefficient mod p with each), until u = v = gcd(a, p) = 1.
CUZK_HD fp_t inverse_gcd(const fp_t &a)
{
	using namespace fp_detail;
	uint32_t u[12], v[12], x1[12], x2[12], t[12];
CUZK_UNROLL
	for (int j = 0; j < 12; j++) {
		u[j] = a.v[j];
		v[j] = P(j);
		x1[j] = j == 0;
		x2[j] = 0;
	}
	if (limbs_zero(u))
		return fp_zero();
	while (!(u[0] & 1)) {
		shr1(u);
		half_mod_p(x1);
	}
	for (;;) {
		if (!sub_borrow(t, u, v)) {   // u >= v
			if (limbs_zero(t))
				break;
CUZK_UNROLL
			for (int j = 0; j < 12; j++)
				u[j] = t[j];
			sub_mod_p(x1, x2);
			do {
				shr1(u);
				half_mod_p(x1);
			} while (!(u[0] & 1));
		} else {
			sub_borrow(v, v, u);
			sub_mod_p(x2, x1);
			do {
				shr1(v);
				half_mod_p(x2);
			} while (!(v[0] & 1));
		}
	}
	fp_t r, c;
CUZK_UNROLL
	for (int j = 0; j < 12; j++) {
		r.v[j] = x1[j];
		c.v[j] = R3(j);
	}
	return mul(r, c);
}

} // namespace cuzk

#endif
