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

// 1/a = conj(a) / (a0^2 + a1^2); 0 maps to 0.  Set-up work only.
CUZK_HD fp2_t inv(const fp2_t &a)
{
	fp_t t = inv(add(sqr(a.c0), sqr(a.c1)));
	return {mul(a.c0, t), neg(mul(a.c1, t))};
}

} // namespace cuzk

#endif
