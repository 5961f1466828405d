// SPDX-License-Identifier: Apache-2.0 OR MIT
// The fields as the bucket accumulation sees them: the same bytes as fp_t
// and fp2_t, with a choice of how their products are compiled.  The
// accumulation is bound by the issue rate of its multiply-adds, and which
// form issues best is an empirical question: inlined products overflow the
// instruction cache, calls keep the scheduler from overlapping two products.
// The MSM is built in two forms and $CUZK_MSM_FP picks one at run time
// (unset: fused for G1, lazy for G2, msm/pippenger.cuh's default_form):
//
//   lazy:           every Fp product and square is a call to one
//                   out-of-line copy in the parity layout (ff/fp.cuh's
//                   mul_parity, sqr_parity: no limb renamed, so no register
//                   moves to re-pair); Fp2's product and square are each one
//                   out-of-line routine with lazy reduction (fp2.cuh's
//                   mul_lazy, sqr_lazy: 768-bit products, two reductions per
//                   Fp2 product instead of three);
//   fused:          the lazy form, and the a·b - c·d of every addition's
//                   and doubling's Y as one routine with one reduction
//                   instead of two (fp.cuh's mul_sub_parity; for G2
//                   fp2.cuh's mul_sub_lazy, two instead of four): 144 of
//                   the ~2740 64-bit multiply-adds of a G1 mixed addition,
//                   288 of G2's ~6900.
//
// Measured before on one H200 (2026-12-01, tests/gpu/bench.sh, the same
// call as sppark's 2^24 157.8 ms and 2^26 563.8 ms), lazy against the form
// it replaced ("call": the shifting-window product of fp.cuh's mul and sqr,
// out of line, for G2 also inside Fp2's Karatsuba product):
//
//            G1 2^16   2^20    2^24    2^26     G2 2^16  2^20   2^24
//   lazy     2.33 ms  10.42  115.47  426.34        5.02  28.41  329.59
//   call     2.44     12.33  141.71  530.41        5.52  35.71  429.38
//
// Also tried and dropped, same card: every product inlined where it is used
// (G1 2^26 579 ms, G2 2^24 536 ms with the call form's product), squares as
// products (G1 2^26 541 ms), the G1 kernel at 3 blocks per SM instead of 4
// (548 ms), G2 at 3 or 4 blocks per SM instead of 1-2 (508-609 ms), 64-bit
// partial products (G2 509 ms).  On one H100 (2026-12-06, d1242cd's "kara"
// form): the fused form with its products and a·b - c·d by one level of
// Karatsuba (ff/fp.cuh's mul_kara; 36 fewer multiply-adds a product, ~90
// more additions), G1 2^24 / 2^26 115.9 / 421.2 ms against fused 110.8 /
// 403.5.  Values kept in [0, 2p) between operations (no last conditional
// subtraction in a product: nine fewer an addition, off the multiplier),
// same H100, 110.6 / 402.7 ms against fused 110.3 / 401.6: what bounds the
// addition is the multiply pipe, not the instructions beside it.
//
// SASS instructions of one G1 Fp product and square (the out-of-line
// routine), and of those IMAD.WIDE(.X) (one 32x32->64 multiply-add each),
// IMAD.HI, IMAD.MOV (register moves on the multiply pipe) and plain IMAD (a
// 32-bit product), sm_90, nvcc 13.0:
//
//            product: all  WIDE   HI   MOV  IMAD   square: all  WIDE   HI   MOV  IMAD
//   call              684   288    0   189    12           863   155   67   203    80
//   lazy              394   287    1    12    12           395   220    2    24    13
//
// One G1 mixed addition (8 products, 2 squares, as executed) was 8085
// instructions with call, 4823 lazy.  The G1 accumulate kernel (ptxas -v,
// 128 threads, 4 blocks per SM, so 128 registers): lazy a 336-byte stack
// frame, 356/456 bytes of spill stores/loads (around the calls; the
// products spill nothing).  For G2, one lazy Fp2 product is 1338
// instructions (715 WIDE), a square 1069 (572); the G2 accumulate kernel
// takes 255 registers (1 block per SM), a 672-byte stack frame.  The
// window reductions use the lazy form.
#ifndef CUZK_CUDA_MSM_FP_IMPL_CUH
#define CUZK_CUDA_MSM_FP_IMPL_CUH

#include "ff/fp2.cuh"

#ifdef __CUDACC__
#define CUZK_FP_CALL [[maybe_unused]] static __host__ __device__ __noinline__
#else
#define CUZK_FP_CALL inline
#endif

namespace cuzk {

enum class fp_form : int { lazy = 2, fused = 3 };

namespace fp_calls {
// By value: arguments and results travel in registers, not through a stack frame.
CUZK_FP_CALL fp_t mul_lazy(fp_t a, fp_t b) { return cuzk::mul_parity(a, b); }
CUZK_FP_CALL fp_t sqr_lazy(fp_t a) { return cuzk::sqr_parity(a); }
CUZK_FP_CALL fp2_t fp2_mul_lazy(fp2_t a, fp2_t b) { return cuzk::mul_lazy(a, b); }
CUZK_FP_CALL fp2_t fp2_sqr_lazy(fp2_t a) { return cuzk::sqr_lazy(a); }
// The fused form's a·b - c·d.
CUZK_FP_CALL fp_t mul_sub_fused(fp_t a, fp_t b, fp_t c, fp_t d) { return cuzk::mul_sub_parity(a, b, c, d); }
CUZK_FP_CALL fp2_t fp2_mul_sub_fused(fp2_t a, fp2_t b, fp2_t c, fp2_t d) { return cuzk::mul_sub_lazy(a, b, c, d); }
} // namespace fp_calls

// F (fp_t or fp2_t) with its products in form M.
template <class F, fp_form M> struct fx_t {
	F f;
};

template <class F, fp_form M> CUZK_HD bool is_zero(const fx_t<F, M> &a) { return is_zero(a.f); }
template <class F, fp_form M> CUZK_HD bool eq(const fx_t<F, M> &a, const fx_t<F, M> &b) { return eq(a.f, b.f); }
template <class F, fp_form M> CUZK_HD fx_t<F, M> add(const fx_t<F, M> &a, const fx_t<F, M> &b) { return {add(a.f, b.f)}; }
template <class F, fp_form M> CUZK_HD fx_t<F, M> sub(const fx_t<F, M> &a, const fx_t<F, M> &b) { return {sub(a.f, b.f)}; }
template <class F, fp_form M> CUZK_HD fx_t<F, M> dbl(const fx_t<F, M> &a) { return {dbl(a.f)}; }
template <class F, fp_form M> CUZK_HD fx_t<F, M> neg(const fx_t<F, M> &a) { return {neg(a.f)}; }
template <class F, fp_form M> CUZK_HD fx_t<F, M> cneg(const fx_t<F, M> &a, bool flag) { return {cneg(a.f, flag)}; }

// Both forms share the lazy products and squares.
template <fp_form M> CUZK_HD fx_t<fp_t, M> mul(const fx_t<fp_t, M> &a, const fx_t<fp_t, M> &b)
{
	return {fp_calls::mul_lazy(a.f, b.f)};
}

template <fp_form M> CUZK_HD fx_t<fp_t, M> sqr(const fx_t<fp_t, M> &a) { return {fp_calls::sqr_lazy(a.f)}; }

template <fp_form M> CUZK_HD fx_t<fp2_t, M> mul(const fx_t<fp2_t, M> &a, const fx_t<fp2_t, M> &b)
{
	return {fp_calls::fp2_mul_lazy(a.f, b.f)};
}

template <fp_form M> CUZK_HD fx_t<fp2_t, M> sqr(const fx_t<fp2_t, M> &a) { return {fp_calls::fp2_sqr_lazy(a.f)}; }

// a·b - c·d: two products and a subtraction (lazy), or one routine (fused).
template <fp_form M>
CUZK_HD fx_t<fp_t, M> mul_sub(const fx_t<fp_t, M> &a, const fx_t<fp_t, M> &b, const fx_t<fp_t, M> &c,
			      const fx_t<fp_t, M> &d)
{
	if constexpr (M == fp_form::fused)
		return {fp_calls::mul_sub_fused(a.f, b.f, c.f, d.f)};
	else
		return sub(mul(a, b), mul(c, d));
}

template <fp_form M>
CUZK_HD fx_t<fp2_t, M> mul_sub(const fx_t<fp2_t, M> &a, const fx_t<fp2_t, M> &b, const fx_t<fp2_t, M> &c,
			       const fx_t<fp2_t, M> &d)
{
	if constexpr (M == fp_form::fused)
		return {fp_calls::fp2_mul_sub_fused(a.f, b.f, c.f, d.f)};
	else
		return sub(mul(a, b), mul(c, d));
}

static_assert(sizeof(fx_t<fp_t, fp_form::lazy>) == sizeof(fp_t) &&
		      sizeof(fx_t<fp2_t, fp_form::lazy>) == sizeof(fp2_t),
	      "fx_t must keep the field's layout");

} // namespace cuzk

#endif
