// SPDX-License-Identifier: Apache-2.0 OR MIT
// Fp2 = Fp[u]/(u^2 + 1) on the device: c0 + c1·u, laid out c0 then c1 like the
// host's fp2_t (and like G2 points in the SRS: x.c0, x.c1, y.c0, y.c1).
#ifndef CUZK_CUDA_FF_FP2_CUH
#define CUZK_CUDA_FF_FP2_CUH

#include "ff/fp.cuh"

// Multiplication and squaring are out of line: inlining three Fp products at
// every call site of the G2 curve code made the G2 kernels several times
// slower to compile for no measured gain.
#ifdef __CUDACC__
#define CUZK_FP2_COLD [[maybe_unused]] static __host__ __device__ __noinline__
#else
#define CUZK_FP2_COLD inline
#endif

namespace cuzk {

struct fp2_t {
	fp_t c0, c1;
};
static_assert(sizeof(fp2_t) == 96, "fp2_t must match the host layout");

CUZK_HD fp2_t fp2_zero() { return {fp_zero(), fp_zero()}; }
CUZK_HD fp2_t fp2_one() { return {fp_one(), fp_zero()}; }

CUZK_HD bool is_zero(const fp2_t &a) { return is_zero(a.c0) && is_zero(a.c1); }
CUZK_HD bool eq(const fp2_t &a, const fp2_t &b) { return eq(a.c0, b.c0) && eq(a.c1, b.c1); }
CUZK_HD fp2_t add(const fp2_t &a, const fp2_t &b) { return {add(a.c0, b.c0), add(a.c1, b.c1)}; }
CUZK_HD fp2_t sub(const fp2_t &a, const fp2_t &b) { return {sub(a.c0, b.c0), sub(a.c1, b.c1)}; }
CUZK_HD fp2_t dbl(const fp2_t &a) { return {dbl(a.c0), dbl(a.c1)}; }
CUZK_HD fp2_t neg(const fp2_t &a) { return {neg(a.c0), neg(a.c1)}; }
CUZK_HD fp2_t cneg(const fp2_t &a, bool flag) { return flag ? neg(a) : a; }

// Karatsuba: three Fp multiplications instead of four.
// (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u
CUZK_FP2_COLD fp2_t mul(const fp2_t &a, const fp2_t &b)
{
	fp_t v0 = mul(a.c0, b.c0);
	fp_t v1 = mul(a.c1, b.c1);
	fp_t s = mul(add(a.c0, a.c1), add(b.c0, b.c1));
	return {sub(v0, v1), sub(sub(s, v0), v1)};
}

// (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: two multiplications.
CUZK_FP2_COLD fp2_t sqr(const fp2_t &a)
{
	fp_t c0 = mul(add(a.c0, a.c1), sub(a.c0, a.c1));
	fp_t c1 = mul(a.c0, a.c1);
	return {c0, dbl(c1)};
}

// The same product and square with lazy reduction: the Fp products are
// taken as 768-bit integers (fp.cuh's mul_wide), combined, and only then
// reduced: two Montgomery reductions (redc_parity) instead of three full
// Montgomery products.
// With a0, a1, b0, b1 < p < 2^381 (R = 2^384):
//   t0 = a0·b0 < p², t1 = a1·b1 < p², t2 = (a0 + a1)(b0 + b1) < 4p² < 2^764,
//   the sums unreduced (< 2p < 2^382, 12 limbs).
//   c0 = REDC(t0 - t1), where t0 - t1 in (-p², p²) becomes, plus p·R when
//   negative, a value in [0, p·R): its high half (limbs 12..23) is < p.
//   c1 = REDC(t2 - t0 - t1) = REDC(a0·b1 + a1·b0), with 0 <= it < 2p² <
//   p·2^382: no correction, and its high half is < p/4.
// REDC(lo + R·hi) = (lo + m·p)/R + hi with lo, m < R, so (lo + m·p)/R <
// (R(p + 1) - p)/R < p + 1, i.e. <= p, and the sum is <= p + hi < 2p for
// hi < p: redc_parity's one conditional subtraction leaves c0 and c1 fully
// reduced, the same bytes as the Karatsuba form (which the host test
// checks).  p·R ≡ 0 mod p, so the correction changes nothing mod p, and
// every 768-bit value above is below p·R < 2^765: 24 limbs suffice.

CUZK_HD fp2_t mul_lazy(const fp2_t &a, const fp2_t &b)
{
	uint32_t t0[24], t1[24], t2[24], d[24], sa[12], sb[12];
	fp_detail::mul_wide(t0, a.c0.v, b.c0.v);
	fp_detail::mul_wide(t1, a.c1.v, b.c1.v);
	fp_detail::add_unreduced(sa, a.c0.v, a.c1.v);
	fp_detail::add_unreduced(sb, b.c0.v, b.c1.v);
	fp_detail::mul_wide(t2, sa, sb);
	fp2_t r;
	fp_detail::add_p_masked(d + 12, fp_detail::sub_wide(d, t0, t1));
	fp_detail::redc_parity(r.c0.v, d, d + 12);
	// a0·b1 + a1·b0 >= 0: neither subtraction wraps
	(void)fp_detail::sub_wide(t2, t2, t0);
	(void)fp_detail::sub_wide(t2, t2, t1);
	fp_detail::redc_parity(r.c1.v, t2, t2 + 12);
	return r;
}

// Square: c0 = REDC((a0 + a1)(a0 - a1)), c1 = REDC((a0 + a0)·a1), the sums
// unreduced (< 2p), so both products are < 2p² < p·2^382 and nonnegative:
// high halves < p/4, one conditional subtraction each as above.  Saves the
// product form's reductions of a0 + a1 and of the doubling.
CUZK_HD fp2_t sqr_lazy(const fp2_t &a)
{
	uint32_t s[12], d2[12], t[24];
	fp2_t r;
	fp_detail::add_unreduced(s, a.c0.v, a.c1.v);
	const fp_t dif = sub(a.c0, a.c1);
	fp_detail::mul_wide(t, s, dif.v);
	fp_detail::redc_parity(r.c0.v, t, t + 12);
	fp_detail::add_unreduced(d2, a.c0.v, a.c0.v);
	fp_detail::mul_wide(t, d2, a.c1.v);
	fp_detail::redc_parity(r.c1.v, t, t + 12);
	return r;
}

// a·b - c·d with two Montgomery reductions instead of four (the Y of every
// XYZZ addition in G2): the six 768-bit products of the two Karatsuba
// products combined before any reduction,
//   real = a0·b0 - a1·b1 - c0·d0 + c1·d1,
//   imag = (a0 + a1)(b0 + b1) - a0·b0 - a1·b1 - ((c0 + c1)(d0 + d1) - c0·d0 - c1·d1)
//        = a0·b1 + a1·b0 - c0·d1 - c1·d0,
// computed modulo 2^768 in any order (a wrap in between is undone by the
// end).  With every input below p both results are in (-2p², 2p²), far
// inside (-2^767, 2^767), so the top bit is the sign; a negative one gets
// p·2^384 added (p to its high half), which leaves it in [0, p·2^384), and
// a nonnegative one is below 2p² < p·2^382: the high half is below p either
// way, and redc_parity's one conditional subtraction leaves each fully
// reduced, the bytes of sub(mul(a, b), mul(c, d)).
CUZK_HD fp2_t mul_sub_lazy(const fp2_t &a, const fp2_t &b, const fp2_t &c, const fp2_t &d)
{
	uint32_t re[24], im[24], x[24], y[24], s[12], t[12];
	fp_detail::mul_wide(x, a.c0.v, b.c0.v);
	fp_detail::mul_wide(y, a.c1.v, b.c1.v);
	(void)fp_detail::sub_wide(re, x, y);
	fp_detail::add_wide(im, x, y);
	fp_detail::add_unreduced(s, a.c0.v, a.c1.v);
	fp_detail::add_unreduced(t, b.c0.v, b.c1.v);
	fp_detail::mul_wide(x, s, t);
	(void)fp_detail::sub_wide(im, x, im);   // a0·b1 + a1·b0
	fp_detail::mul_wide(x, c.c0.v, d.c0.v);
	fp_detail::mul_wide(y, c.c1.v, d.c1.v);
	(void)fp_detail::sub_wide(re, re, x);
	fp_detail::add_wide(re, re, y);
	fp_detail::add_wide(im, im, x);
	fp_detail::add_wide(im, im, y);
	fp_detail::add_unreduced(s, c.c0.v, c.c1.v);
	fp_detail::add_unreduced(t, d.c0.v, d.c1.v);
	fp_detail::mul_wide(x, s, t);
	(void)fp_detail::sub_wide(im, im, x);
	fp_detail::add_p_masked(re + 12, 0u - (re[23] >> 31));
	fp_detail::add_p_masked(im + 12, 0u - (im[23] >> 31));
	fp2_t r;
	fp_detail::redc_parity(r.c0.v, re, re + 12);
	fp_detail::redc_parity(r.c1.v, im, im + 12);
	return r;
}

// a·b - c·d as two products (see fp.cuh's mul_sub).
CUZK_HD fp2_t mul_sub(const fp2_t &a, const fp2_t &b, const fp2_t &c, const fp2_t &d)
{
	return sub(mul(a, b), mul(c, d));
}

// 1/a = conj(a) / (a0^2 + a1^2); 0 maps to 0.  Set-up work only.
CUZK_HD fp2_t inv(const fp2_t &a)
{
	fp_t t = inv(add(sqr(a.c0), sqr(a.c1)));
	return {mul(a.c0, t), neg(mul(a.c1, t))};
}

} // namespace cuzk

#endif
