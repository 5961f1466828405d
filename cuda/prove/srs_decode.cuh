// SPDX-License-Identifier: Apache-2.0 OR MIT
// One uncompressed point of the parameter file (the zcash encoding: Fp as 48
// bytes big-endian, Fp2 as c1 then c0, flags in byte 0) to the host's affine
// layout (Montgomery limbs, infinity all-zero), per point and
// __host__ __device__: the loader's kernel (prove/srs_decode.cu) and the host
// twin test (prove/test_srs_decode_host.cpp, against src/bls12_381's
// g1_decode/g2_decode) run this exact code.
//
// It accepts and rejects what g1_decode/g2_decode do for a 96/192-byte input
// at BLS_CHECK_NONE (curve = false) or BLS_CHECK_CURVE (curve = true), with
// the same output bytes, and reports the same kind of failure:
//   flags          0x80 (compressed) or 0x20 (sort) set; or 0x40 (infinity)
//                  with any other bit of the point set
//   noncanonical   a coordinate >= p (y's top three bits are part of y, so
//                  y's "flags" make it non-canonical)
//   not_on_curve   (0, 0) without the infinity flag, whatever curve says (it
//                  is how infinity is stored, so it must not pass for a
//                  point); off y^2 = x^3 + b when curve
#ifndef CUZK_CUDA_PROVE_SRS_DECODE_CUH
#define CUZK_CUDA_PROVE_SRS_DECODE_CUH

#include <cstdint>
#include <cstring>

#include "ec/xyzz.cuh"
#include "ff/fp2.cuh"

// The words below are the file's bytes read natively: byte 0 is the low byte
// of word 0 on the device and on the x86-64 host alike.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "srs_decode.cuh reads the file's bytes as little-endian words"
#endif

namespace cuzk {

enum class decode_status : uint32_t {
	ok = 0,
	flags,
	noncanonical,
	not_on_curve,
};

// One point's file bytes as native 32-bit words (word j = bytes 4j..4j+3),
// so that the kernel fills it with 16-byte loads instead of 96 or 192 byte
// loads.  Only a change of type: nothing is reordered.
template <class F> struct raw_point_t {
	uint32_t w[2 * sizeof(F) / sizeof(uint32_t)];
};
static_assert(sizeof(raw_point_t<fp_t>) == 96 && sizeof(raw_point_t<fp2_t>) == 192,
	      "a raw point is the file's 96 (G1) or 192 (G2) bytes");

namespace decode_detail {

constexpr uint32_t FLAG_COMPRESSED = 0x80, FLAG_INFINITY = 0x40, FLAG_SORT = 0x20;
constexpr uint32_t FLAG_MASK = FLAG_COMPRESSED | FLAG_INFINITY | FLAG_SORT;

// Limb k of R^2 mod p (R = 2^384): a Montgomery product by it turns a
// canonical value into its Montgomery form, as the CPU's fp_to_mont does;
// both results are fully reduced, so they are the same bytes.
CUZK_HD constexpr uint32_t R2(int k)
{
	return k == 0 ? 0x1c341746u : k == 1 ? 0xf4df1f34u : k == 2 ? 0x09d104f1u
	     : k == 3 ? 0x0a76e6a6u : k == 4 ? 0x4c95b6d5u : k == 5 ? 0x8de5476cu
	     : k == 6 ? 0x939d83c0u : k == 7 ? 0x67eb88a9u : k == 8 ? 0xb519952du
	     : k == 9 ? 0x9a793e85u : k == 10 ? 0x92cae3aau : 0x11988fe5u;
}

CUZK_HD uint32_t bswap32(uint32_t x)
{
#ifdef __CUDA_ARCH__
	return __byte_perm(x, 0, 0x0123);
#else
	return __builtin_bswap32(x);
#endif
}

// 48 big-endian bytes to little-endian limbs: the number's last word is its
// lowest limb, each word byte-swapped.
CUZK_HD void load_be(fp_t &r, const uint32_t w[12])
{
CUZK_UNROLL
	for (int k = 0; k < 12; k++)
		r.v[k] = bswap32(w[11 - k]);
}

CUZK_HD void load_be(fp2_t &r, const uint32_t w[24])
{
	load_be(r.c1, w);   // the file writes c1 first
	load_be(r.c0, w + 12);
}

// a < p: a - p borrows.
CUZK_HD bool below_p(const fp_t &a)
{
	carry_chain c;
	(void)c.sub_cc(a.v[0], fp_detail::P(0));
CUZK_UNROLL
	for (int j = 1; j < 12; j++)
		(void)c.subc_cc(a.v[j], fp_detail::P(j));
	return c.subc(0, 0) != 0;
}

CUZK_HD bool below_p(const fp2_t &a) { return below_p(a.c0) & below_p(a.c1); }

CUZK_HD fp_t to_mont(const fp_t &a)
{
	fp_t r2;
CUZK_UNROLL
	for (int j = 0; j < 12; j++)
		r2.v[j] = R2(j);
	return mul(a, r2);
}

CUZK_HD fp2_t to_mont(const fp2_t &a) { return {to_mont(a.c0), to_mont(a.c1)}; }

// b of y^2 = x^3 + b in Montgomery form, picked by the field's type:
// 4 for G1, 4(1 + u) for G2.
CUZK_HD fp_t curve_b(const fp_t &)
{
	return dbl(dbl(fp_one()));
}

CUZK_HD fp2_t curve_b(const fp2_t &)
{
	const fp_t four = dbl(dbl(fp_one()));
	return {four, four};
}

CUZK_HD bool on_curve(const affine_t<fp_t> &p)
{
	return eq(sqr(p.y), add(mul(sqr(p.x), p.x), curve_b(p.x)));
}

// The lazy Fp2 forms (the same bytes) are inlined: the out-of-line mul and
// sqr took their operands through a 288-byte stack frame.
CUZK_HD bool on_curve(const affine_t<fp2_t> &p)
{
	return eq(sqr_lazy(p.y), add(mul_lazy(sqr_lazy(p.x), p.x), curve_b(p.x)));
}

} // namespace decode_detail

// Decodes one point; out is written only when the result is ok (as the CPU
// leaves its output alone on failure).  The checks run in the CPU's order
// (flags, x then y canonical, (0, 0), the curve), so a point that fails
// several reports the CPU's first.
template <class F> CUZK_HD decode_status decode_point(affine_t<F> &out, const raw_point_t<F> &in, bool curve)
{
	using namespace decode_detail;
	constexpr int N = sizeof(raw_point_t<F>) / sizeof(uint32_t);
	const uint32_t flags = in.w[0] & FLAG_MASK;   // byte 0's top bits
	// neither belongs on an uncompressed point, the sort flag not on infinity either
	if (flags & (FLAG_COMPRESSED | FLAG_SORT))
		return decode_status::flags;
	if (flags & FLAG_INFINITY) {
		uint32_t any = in.w[0] & ~FLAG_MASK;
CUZK_UNROLL
		for (int j = 1; j < N; j++)
			any |= in.w[j];
		if (any)
			return decode_status::flags;
		out.x = out.y = F{};   // zero is zero in Montgomery form too
		return decode_status::ok;
	}
	// No flag is set, so x's top byte needs no masking; y's is y's.
	affine_t<F> p;
	load_be(p.x, in.w);
	load_be(p.y, in.w + N / 2);
	if (!below_p(p.x) || !below_p(p.y))
		return decode_status::noncanonical;
	if (is_zero(p.x) && is_zero(p.y))
		return decode_status::not_on_curve;
	p.x = to_mont(p.x);
	p.y = to_mont(p.y);
	if (curve && !on_curve(p))
		return decode_status::not_on_curve;
	out = p;
	return decode_status::ok;
}

// The same from a byte pointer with no alignment (for the host and for
// callers that hold single points; the kernel loads words itself).
CUZK_HD decode_status decode_g1(affine_t<fp_t> &out, const uint8_t in[96], bool curve)
{
	raw_point_t<fp_t> r;
	memcpy(&r, in, sizeof r);
	return decode_point(out, r, curve);
}

CUZK_HD decode_status decode_g2(affine_t<fp2_t> &out, const uint8_t in[192], bool curve)
{
	raw_point_t<fp2_t> r;
	memcpy(&r, in, sizeof r);
	return decode_point(out, r, curve);
}

} // namespace cuzk

#endif
