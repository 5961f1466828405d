// SPDX-License-Identifier: Apache-2.0 OR MIT
// Fixed-base products k·G for the development setup, per point, generic over
// the field (Fp for G1, Fp2 for G2) and __host__ __device__, so that the
// host twin test (cuda/setup/test_fixed_base_host.cpp) runs this exact code
// against the CPU setup without a GPU.
//
// The table is the host's (src/prover/fixed_base.h): entry w·2^(c-1) + d - 1
// is d·2^(w·c)·G for window w < nwin and 1 <= d <= 2^(c-1), affine.  Scalars
// are cut into nwin signed c-bit digits by the recoding of
// src/prover/scalar_digits.h: k' = k + OFF, then
//   d_w = window_w(k') - 2^(c-1) (w < nwin - 1),  d_{nwin-1} = window_{nwin-1}(k'),
// with nwin = floor(255/c) + 1 and OFF = sum over w < nwin-1 of 2^(w·c + c-1).
// Then k·G = sum over w of d_w·2^(w·c)·G: one mixed addition per non-zero
// digit, no doublings.
//
// Affine results need an inversion; batch_to_affine shares one among a run
// of points (Montgomery's trick) and uses 1/ZZ = (ZZ/ZZZ)^2, which holds
// because ZZ^3 = ZZZ^2.
#ifndef CUZK_CUDA_SETUP_FIXED_BASE_CUH
#define CUZK_CUDA_SETUP_FIXED_BASE_CUH

#include <cstddef>
#include <cstdint>

#include "ec/xyzz.cuh"
#include "ff/fp2.cuh"

namespace cuzk {
namespace setup {

constexpr unsigned MAX_WINDOW_BITS = 20;

// The recoding of one window width (what the kernels receive by value).
struct digit_plan {
	unsigned c, nwin;
	uint32_t off[8];   // OFF, 8 little-endian 32-bit limbs
};

CUZK_HD unsigned num_windows(unsigned c) { return 255 / c + 1; }

// The Montgomery form of 1 in either field (overloads by the field's type).
CUZK_HD fp_t one_like(const fp_t &) { return fp_one(); }
CUZK_HD fp2_t one_like(const fp2_t &) { return fp2_one(); }

// OFF for width c: bit w·c + c - 1 set for every window but the top one.
inline digit_plan make_plan(unsigned c)
{
	digit_plan p{c, num_windows(c), {0, 0, 0, 0, 0, 0, 0, 0}};
	for (unsigned w = 0; w + 1 < p.nwin; w++) {
		const unsigned bit = w * c + c - 1;
		p.off[bit / 32] |= 1u << (bit % 32);
	}
	return p;
}

// kp = k + OFF; k < r < 2^255 and OFF < 2^255, so the sum fits 256 bits.
CUZK_HD void recode(uint32_t kp[8], const uint32_t k[8], const digit_plan &p)
{
	uint64_t carry = 0;
	for (int i = 0; i < 8; i++) {
		carry += (uint64_t)k[i] + p.off[i];
		kp[i] = (uint32_t)carry;
		carry >>= 32;
	}
}

// The signed digit of window w of a recoded scalar (c <= 20 bits span at
// most two limbs).
CUZK_HD int digit(const uint32_t kp[8], unsigned w, const digit_plan &p)
{
	const unsigned bit = w * p.c, limb = bit / 32, sh = bit % 32;
	uint64_t v = kp[limb] >> sh;
	if (sh + p.c > 32 && limb < 7)
		v |= (uint64_t)kp[limb + 1] << (32 - sh);
	v &= ((uint64_t)1 << p.c) - 1;
	if (w + 1 == p.nwin)
		return (int)v;
	return (int)v - (1 << (p.c - 1));
}

// k·G from the table, k canonical (8 LE limbs, < r), in XYZZ.
template <class F> CUZK_HD xyzz_t<F> mul(const affine_t<F> *table, const uint32_t k[8], const digit_plan &p)
{
	const size_t per_win = (size_t)1 << (p.c - 1);
	const F one = one_like(F{});
	uint32_t kp[8];
	recode(kp, k, p);
	xyzz_t<F> acc;
	set_inf(acc);
	for (unsigned w = 0; w < p.nwin; w++) {
		const int d = digit(kp, w, p);
		if (d)
			add_affine(acc, table[w * per_win + (size_t)(d < 0 ? -d : d) - 1], d < 0, one);
	}
	return acc;
}

// out[i] = in[i] in affine coordinates for i < n (infinity all-zero), with
// one inversion for the run; out[i].x holds the prefix products meanwhile.
template <class F> CUZK_HD void batch_to_affine(affine_t<F> *out, const xyzz_t<F> *in, size_t n)
{
	F acc = one_like(F{});
	for (size_t i = 0; i < n; i++) {
		out[i].x = acc;   // product of the ZZZ before i
		if (!is_inf(in[i]))
			acc = mul(acc, in[i].ZZZ);
	}
	F inv_acc = inv(acc);   // 1 / (product of every ZZZ)
	for (size_t i = n; i-- > 0;) {
		if (is_inf(in[i])) {
			out[i].x = out[i].y = F{};
			continue;
		}
		const F t = mul(inv_acc, out[i].x);   // 1/ZZZ_i
		inv_acc = mul(inv_acc, in[i].ZZZ);
		const F zz_inv = sqr(mul(in[i].ZZ, t));
		out[i].x = mul(in[i].X, zz_inv);
		out[i].y = mul(in[i].Y, t);
	}
}

} // namespace setup
} // namespace cuzk

#endif
