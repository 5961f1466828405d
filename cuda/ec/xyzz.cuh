// SPDX-License-Identifier: Apache-2.0 OR MIT
// Short Weierstrass points (a = 0) in XYZZ coordinates, generic over the field
// (Fp for G1, Fp2 for G2).  (X, Y, ZZ, ZZZ) stands for the affine point
// (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2; ZZ = 0 is the point at infinity, so an
// all-zero buffer (cudaMemset) is a valid empty bucket.  Formulas from the
// Explicit-Formulas Database, "xyzz" coordinates (Sutherland 2008).
//
// Affine inputs use the host layout: x then y, infinity all-zero ((0, 0) is not
// on either curve).  The output for the host is Jacobian (X, Y, Z), x = X/Z^2.
#ifndef CUZK_CUDA_EC_XYZZ_CUH
#define CUZK_CUDA_EC_XYZZ_CUH

#include "ff/fp.cuh"

// The full addition and the doublings are out of line: they sit off the hot
// path (reductions, rare cases of the mixed addition) and inlining their
// ~10 field multiplications at every call site multiplied compile time.
#ifdef __CUDACC__
#define CUZK_EC_COLD __host__ __device__ __noinline__
#else
#define CUZK_EC_COLD inline
#endif

namespace cuzk {

template <class F> struct affine_t {
	F x, y;
};

template <class F> struct jacobian_t {
	F X, Y, Z;
};

template <class F> struct xyzz_t {
	F X, Y, ZZ, ZZZ;
};

template <class F> CUZK_HD bool is_inf(const affine_t<F> &p) { return is_zero(p.x) && is_zero(p.y); }
template <class F> CUZK_HD bool is_inf(const xyzz_t<F> &p) { return is_zero(p.ZZ); }

template <class F> CUZK_HD void set_inf(xyzz_t<F> &p)
{
	p.X = p.Y = p.ZZ = p.ZZZ = F{};   // value-initialised: all limbs zero
}

template <class F> CUZK_HD xyzz_t<F> from_affine(const affine_t<F> &q, F one)
{
	return {q.x, q.y, one, one};
}

// dbl-2008-s-1 with a = 0:
// U = 2Y, V = U^2, W = U·V, S = X·V, M = 3X^2,
// X3 = M^2 - 2S, Y3 = M(S - X3) - W·Y, ZZ3 = V·ZZ, ZZZ3 = W·ZZZ.
// Infinity doubles to infinity (ZZ stays 0); points of order 2 do not exist here.
template <class F> CUZK_EC_COLD xyzz_t<F> dbl(const xyzz_t<F> &p)
{
	F U = dbl(p.Y);
	F V = sqr(U);
	F W = mul(U, V);
	F S = mul(p.X, V);
	F X2 = sqr(p.X);
	F M = add(dbl(X2), X2);
	xyzz_t<F> r;
	r.X = sub(sqr(M), dbl(S));
	r.Y = mul_sub(M, sub(S, r.X), W, p.Y);
	r.ZZ = mul(V, p.ZZ);
	r.ZZZ = mul(W, p.ZZZ);
	return r;
}

// mdbl-2008-s-1: doubling of an affine point (ZZ = ZZZ = 1).
template <class F> CUZK_EC_COLD xyzz_t<F> dbl_affine(const F &x, const F &y)
{
	F U = dbl(y);
	F V = sqr(U);
	F W = mul(U, V);
	F S = mul(x, V);
	F X2 = sqr(x);
	F M = add(dbl(X2), X2);
	xyzz_t<F> r;
	r.X = sub(sqr(M), dbl(S));
	r.Y = mul_sub(M, sub(S, r.X), W, y);
	r.ZZ = V;
	r.ZZZ = W;
	return r;
}

// p += (x2, y2), the affine point possibly negated (madd-2008-s):
// U2 = x2·ZZ1, S2 = y2·ZZZ1, P = U2 - X1, R = S2 - Y1, PP = P^2, PPP = P·PP,
// Q = X1·PP, X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - Y1·PPP, ZZ3 = ZZ1·PP, ZZZ3 = ZZZ1·PPP.
// Complete: either input may be infinity, or the two may be equal or opposite.
template <class F> CUZK_HD void add_affine(xyzz_t<F> &p, const affine_t<F> &q, bool negate, const F &one)
{
	if (is_inf(q))
		return;
	F y2 = cneg(q.y, negate);
	if (is_inf(p)) {
		p = {q.x, y2, one, one};
		return;
	}
	F U2 = mul(q.x, p.ZZ);
	F S2 = mul(y2, p.ZZZ);
	F P = sub(U2, p.X);
	F R = sub(S2, p.Y);
	if (is_zero(P)) {
		if (is_zero(R))
			p = dbl_affine(q.x, y2);
		else
			set_inf(p);
		return;
	}
	F PP = sqr(P);
	F PPP = mul(P, PP);
	F Q = mul(p.X, PP);
	F X3 = sub(sub(sqr(R), PPP), dbl(Q));
	p.Y = mul_sub(R, sub(Q, X3), p.Y, PPP);
	p.X = X3;
	p.ZZ = mul(p.ZZ, PP);
	p.ZZZ = mul(p.ZZZ, PPP);
}

// p += q (add-2008-s):
// U1 = X1·ZZ2, U2 = X2·ZZ1, S1 = Y1·ZZZ2, S2 = Y2·ZZZ1, P = U2 - U1, R = S2 - S1,
// PP = P^2, PPP = P·PP, Q = U1·PP, X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - S1·PPP,
// ZZ3 = ZZ1·ZZ2·PP, ZZZ3 = ZZZ1·ZZZ2·PPP.  Complete like add_affine.
template <class F> CUZK_EC_COLD void add(xyzz_t<F> &p, const xyzz_t<F> &q)
{
	if (is_inf(q))
		return;
	if (is_inf(p)) {
		p = q;
		return;
	}
	F U1 = mul(p.X, q.ZZ);
	F U2 = mul(q.X, p.ZZ);
	F S1 = mul(p.Y, q.ZZZ);
	F S2 = mul(q.Y, p.ZZZ);
	F P = sub(U2, U1);
	F R = sub(S2, S1);
	if (is_zero(P)) {
		if (is_zero(R))
			p = dbl(p);
		else
			set_inf(p);
		return;
	}
	F PP = sqr(P);
	F PPP = mul(P, PP);
	F Q = mul(U1, PP);
	F X3 = sub(sub(sqr(R), PPP), dbl(Q));
	p.Y = mul_sub(R, sub(Q, X3), S1, PPP);
	p.X = X3;
	p.ZZ = mul(mul(p.ZZ, q.ZZ), PP);
	p.ZZZ = mul(mul(p.ZZZ, q.ZZZ), PPP);
}

// k·p for a small non-negative k, most significant bit first.
template <class F> CUZK_EC_COLD xyzz_t<F> mul_small(const xyzz_t<F> &p, uint32_t k)
{
	xyzz_t<F> r;
	set_inf(r);
	for (int b = 31; b >= 0; b--) {
		if (!is_inf(r))
			r = dbl(r);
		if ((k >> b) & 1)
			add(r, p);
	}
	return r;
}

// Jacobian with Z = ZZZ: X' = X·ZZ^2, Y' = Y·ZZZ^2.  Then
// X'/Z^2 = X·ZZ^2/ZZ^3 = X/ZZ and Y'/Z^3 = Y/ZZZ.  Infinity gives Z = 0.
template <class F> CUZK_HD jacobian_t<F> to_jacobian(const xyzz_t<F> &p)
{
	jacobian_t<F> r;
	r.X = mul(p.X, sqr(p.ZZ));
	r.Y = mul(p.Y, sqr(p.ZZZ));
	r.Z = p.ZZZ;
	return r;
}

} // namespace cuzk

#endif
