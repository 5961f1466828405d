// SPDX-License-Identifier: Apache-2.0 OR MIT
// The fields as the bucket accumulation sees them: the same bytes as fp_t
// and fp2_t, with a choice of how their products are compiled.  The
// accumulation is bound by the issue rate of its multiply-adds, and which
// form issues best is an empirical question: inlined products overflow the
// instruction cache, calls keep the scheduler from overlapping two products.
// The MSM is built in two forms and $CUZK_MSM_FP picks one at run time:
//
//   lazy (default): every Fp product and square is a call to one
//                   out-of-line copy in the parity layout (ff/fp.cuh's
//                   mul_parity, sqr_parity: no limb renamed, so no register
//                   moves to re-pair); Fp2's product and square are each one
//                   out-of-line routine with lazy reduction (fp2.cuh's
//                   mul_lazy, sqr_lazy: 768-bit products, two reductions per
//                   Fp2 product instead of three);
//   call:           every Fp product and square a call to one out-of-line
//                   copy of the shifting-window product (fp.cuh's mul, sqr),
//                   for G2 also those inside Fp2's Karatsuba product.
//
// Measured on one H200 (2026-12-01, tests/gpu/bench.sh, the same call as
// sppark's 2^24 157.8 ms and 2^26 563.8 ms; the window reductions in the
// lazy form in both rows):
//
//            G1 2^16   2^20    2^24    2^26     G2 2^16  2^20   2^24
//   lazy     2.33 ms  10.42  115.47  426.34        5.02  28.41  329.59
//   call     2.44     12.33  141.71  530.41        5.52  35.71  429.38
//
// Also tried and dropped, same card: every product inlined where it is used
// (G1 2^26 579 ms, G2 2^24 536 ms with the call form's product), squares as
// products (G1 2^26 541 ms), the G1 kernel at 3 blocks per SM instead of 4
// (548 ms), G2 at 3 or 4 blocks per SM instead of 1-2 (508-609 ms), 64-bit
// partial products (G2 509 ms).
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
// (call's product also has 63 plain MOVs, lazy's 1.)  One G1 mixed
// addition (8 products, 2 squares, as executed) is 8085 instructions with
// call, 4823 lazy.  The G1 accumulate kernel (ptxas -v, 128 threads, 4
// blocks per SM, so 128 registers): call a 336-byte stack frame, 364/452
// bytes of spill stores/loads; lazy 336, 356/456 (the spills sit around the
// calls, the products spill nothing).
//
// For G2, one Fp2 product and square as executed (call: the Fp2 routine
// plus its three or two calls of the Fp product):
//
//            product: all  WIDE   HI   MOV   square: all  WIDE   HI   MOV
//   call             2322   864    0   839          1524   576    0   548
//   lazy             1338   715    5    55          1069   572    4    45
//
// so one mixed addition issues 21624 (call) or 12842 (lazy) instructions in
// its field products.  The G2 accumulate kernel (ptxas -v, 128 threads, 1
// block per SM): call 255 registers, a 720-byte stack frame, 1052/1060
// bytes of spill stores/loads; lazy 255, 672, 684/932.  The window
// reductions use the lazy form too.
#ifndef CUZK_CUDA_MSM_FP_IMPL_CUH
#define CUZK_CUDA_MSM_FP_IMPL_CUH

#include "ff/fp2.cuh"

#ifdef __CUDACC__
#define CUZK_FP_CALL [[maybe_unused]] static __host__ __device__ __noinline__
#else
#define CUZK_FP_CALL inline
#endif

namespace cuzk {

enum class fp_form : int { call = 1, lazy = 2 };

namespace fp_calls {
// By value: arguments and results travel in registers, not through a stack frame.
CUZK_FP_CALL fp_t mul(fp_t a, fp_t b) { return cuzk::mul(a, b); }
CUZK_FP_CALL fp_t sqr(fp_t a) { return cuzk::sqr(a); }
// fp2.cuh's Karatsuba product and two-product square over the call above.
CUZK_FP_CALL fp2_t fp2_mul(fp2_t a, fp2_t b)
{
	fp_t v0 = fp_calls::mul(a.c0, b.c0), v1 = fp_calls::mul(a.c1, b.c1);
	fp_t s = fp_calls::mul(add(a.c0, a.c1), add(b.c0, b.c1));
	return {sub(v0, v1), sub(sub(s, v0), v1)};
}
CUZK_FP_CALL fp2_t fp2_sqr(fp2_t a)
{
	return {fp_calls::mul(add(a.c0, a.c1), sub(a.c0, a.c1)), dbl(fp_calls::mul(a.c0, a.c1))};
}
// The lazy form's Fp product and square, in the parity layout (ff/fp.cuh).
CUZK_FP_CALL fp_t mul_lazy(fp_t a, fp_t b) { return cuzk::mul_parity(a, b); }
CUZK_FP_CALL fp_t sqr_lazy(fp_t a) { return cuzk::sqr_parity(a); }
CUZK_FP_CALL fp2_t fp2_mul_lazy(fp2_t a, fp2_t b) { return cuzk::mul_lazy(a, b); }
CUZK_FP_CALL fp2_t fp2_sqr_lazy(fp2_t a) { return cuzk::sqr_lazy(a); }
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

template <fp_form M> CUZK_HD fx_t<fp_t, M> mul(const fx_t<fp_t, M> &a, const fx_t<fp_t, M> &b)
{
	if constexpr (M == fp_form::lazy)
		return {fp_calls::mul_lazy(a.f, b.f)};
	else
		return {fp_calls::mul(a.f, b.f)};
}

template <fp_form M> CUZK_HD fx_t<fp_t, M> sqr(const fx_t<fp_t, M> &a)
{
	if constexpr (M == fp_form::lazy)
		return {fp_calls::sqr_lazy(a.f)};
	else
		return {fp_calls::sqr(a.f)};
}

template <fp_form M> CUZK_HD fx_t<fp2_t, M> mul(const fx_t<fp2_t, M> &a, const fx_t<fp2_t, M> &b)
{
	if constexpr (M == fp_form::lazy)
		return {fp_calls::fp2_mul_lazy(a.f, b.f)};
	else
		return {fp_calls::fp2_mul(a.f, b.f)};
}

template <fp_form M> CUZK_HD fx_t<fp2_t, M> sqr(const fx_t<fp2_t, M> &a)
{
	if constexpr (M == fp_form::lazy)
		return {fp_calls::fp2_sqr_lazy(a.f)};
	else
		return {fp_calls::fp2_sqr(a.f)};
}

static_assert(sizeof(fx_t<fp_t, fp_form::call>) == sizeof(fp_t) &&
		      sizeof(fx_t<fp2_t, fp_form::call>) == sizeof(fp2_t),
	      "fx_t must keep the field's layout");

} // namespace cuzk

#endif
