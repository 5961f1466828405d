// SPDX-License-Identifier: Apache-2.0 OR MIT
// Fp as the bucket accumulation sees it: the same bytes as fp_t, with a
// choice of how its products are compiled.  The accumulation kernel is bound
// by the issue rate of its multiply-adds; which form issues best is an
// empirical question (inlined products overflow the instruction cache; calls
// forbid the scheduler to overlap two products), so the MSM is built with
// each form and $CUZK_MSM_FP picks one at run time.
//
//   inline:  every product and square inlined where it is used;
//   call:    products and squares are calls to one out-of-line copy each;
//   sqmul:   as call, with squares computed as products (one copy of code);
//   call3:   as call, the kernel compiled for 3 blocks per SM instead of 4
//            (more registers, fewer spills around the calls).
#ifndef CUZK_CUDA_MSM_FP_IMPL_CUH
#define CUZK_CUDA_MSM_FP_IMPL_CUH

#include "ff/fp.cuh"

#ifdef __CUDACC__
#define CUZK_FP_CALL [[maybe_unused]] static __host__ __device__ __noinline__
#else
#define CUZK_FP_CALL inline
#endif

namespace cuzk {

enum class fp_form : int { inline_ = 0, call = 1, sqmul = 2, call3 = 3 };

template <fp_form M> struct fpx_t {
	fp_t f;
};

namespace fp_calls {
// By value: arguments and results travel in registers, not through a stack frame.
CUZK_FP_CALL fp_t mul(fp_t a, fp_t b) { return cuzk::mul(a, b); }
CUZK_FP_CALL fp_t sqr(fp_t a) { return cuzk::sqr(a); }
} // namespace fp_calls

template <fp_form M> CUZK_HD bool is_zero(const fpx_t<M> &a) { return is_zero(a.f); }
template <fp_form M> CUZK_HD bool eq(const fpx_t<M> &a, const fpx_t<M> &b) { return eq(a.f, b.f); }
template <fp_form M> CUZK_HD fpx_t<M> add(const fpx_t<M> &a, const fpx_t<M> &b) { return {add(a.f, b.f)}; }
template <fp_form M> CUZK_HD fpx_t<M> sub(const fpx_t<M> &a, const fpx_t<M> &b) { return {sub(a.f, b.f)}; }
template <fp_form M> CUZK_HD fpx_t<M> dbl(const fpx_t<M> &a) { return {dbl(a.f)}; }
template <fp_form M> CUZK_HD fpx_t<M> neg(const fpx_t<M> &a) { return {neg(a.f)}; }
template <fp_form M> CUZK_HD fpx_t<M> cneg(const fpx_t<M> &a, bool flag) { return {cneg(a.f, flag)}; }

template <fp_form M> CUZK_HD fpx_t<M> mul(const fpx_t<M> &a, const fpx_t<M> &b)
{
	if constexpr (M == fp_form::inline_)
		return {mul(a.f, b.f)};
	else
		return {fp_calls::mul(a.f, b.f)};
}

template <fp_form M> CUZK_HD fpx_t<M> sqr(const fpx_t<M> &a)
{
	if constexpr (M == fp_form::inline_)
		return {sqr(a.f)};
	else if constexpr (M == fp_form::sqmul)
		return {fp_calls::mul(a.f, a.f)};
	else
		return {fp_calls::sqr(a.f)};
}

// Blocks per SM the accumulation kernel is compiled for.
template <fp_form M> constexpr int fp_form_blocks() { return M == fp_form::call3 ? 3 : 4; }

static_assert(sizeof(fpx_t<fp_form::call>) == sizeof(fp_t), "fpx_t must keep fp_t's layout");

} // namespace cuzk

#endif
