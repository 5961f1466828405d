// SPDX-License-Identifier: Apache-2.0 OR MIT
// Transforms made of single NTT runs: the natural-order kinds of
// src/prover/ntt.h and the Groth16 h computation.  Written over a run
// function so that the device (ntt.cu) and the host emulation
// (test_ntt_host.cpp) chain the runs the same way:
//   run(out, in, log_n, dir, order, pro, epi, quot)
#ifndef CUZK_CUDA_NTT_CHAIN_CUH
#define CUZK_CUDA_NTT_CHAIN_CUH

#include "ntt/tables.cuh"

namespace cuzk {

// forward, inverse (with 1/m), coset forward (coefficient i times g^i, then
// NTT), coset inverse (iNTT, then coefficient i times g^-i); natural order in
// and out, out != in.
template <class Run>
void ntt_natural_with(const Run &run, const ntt_tables_view &t, fr_t *out, const fr_t *in, unsigned log_n,
		      ntt_kind kind)
{
	ntt_scale pro, epi;
	ntt_dir dir = ntt_dir::forward;
	switch (kind) {
	case ntt_kind::forward:
		break;
	case ntt_kind::coset_forward:
		pro.p_lo = t.g_lo[0];
		pro.p_hi = t.g_hi[0];
		break;
	case ntt_kind::inverse:
		dir = ntt_dir::inverse;
		epi.cst = t.inv_m + log_n;
		break;
	case ntt_kind::coset_inverse:
		dir = ntt_dir::inverse;
		epi.cst = t.inv_m + log_n;
		epi.p_lo = t.g_lo[1];
		epi.p_hi = t.g_hi[1];
		break;
	}
	// The gathering first pass reads position bitrev(p), so a prologue factor
	// indexed by the natural coefficient uses the bit-reversed position.
	pro.bitrev_index = true;
	run(out, in, log_n, dir, ntt_order::natural_to_natural, pro, epi, ntt_quotient{});
}

// h for Groth16 (docs/GROTH16.md, "The math"), on a, b, c of 2^log_n elements each,
// in Montgomery form unless canonical.  Leaves h's coefficients in a in
// bit-reversed order; b and c are clobbered.  Six transforms and never a
// permutation: iNTT natural -> bit-reversed (DIF), coset NTT bit-reversed ->
// natural (DIT), and for the quotient iNTT natural -> bit-reversed again.
//
// C needs no coset values.  With P = A·B - C = h·(x^m - 1), the coset iNTT
// of P's values on g·H gives P mod (x^m - g^m) = h·(g^m - 1), and C, of
// degree below m, is its own remainder, so
//   h = (coset-iNTT(A·B on the coset) - C) / (g^m - 1):
// c gets its iNTT alone, scaled by 1/(m·Z) (Z = g^m - 1), and the last iNTT
// subtracts it on its way out.  The 1/m of both iNTTs and the 1/Z ride on
// their epilogue constants.  Any a, b, c give the CPU's bytes
// (src/prover/ntt.c takes the seven-transform way: the two are checked
// against each other).
// ready(i) is called before the first transform of input i (a, b, c), so
// that a device caller can start on a while b and c are still uploading.
template <class Run, class Ready>
void ntt_compute_h_with(const Run &run, const ntt_tables_view &t, fr_t *a, fr_t *b, fr_t *c, unsigned log_n,
			bool canonical, const Ready &ready)
{
	// iNTT; on the way out coefficient bitrev(p) is multiplied by
	// g^bitrev(p)/m (and R^2 for canonical input), ready for the coset NTT.
	ntt_scale coset_in;
	coset_in.cst = (canonical ? t.r2_inv_m : t.inv_m) + log_n;
	coset_in.p_lo = t.g_lo[0];
	coset_in.p_hi = t.g_hi[0];
	coset_in.bitrev_index = true;
	fr_t *ab[2] = {a, b};
	for (int i = 0; i < 2; i++) {
		fr_t *x = ab[i];
		ready(i);
		run(x, x, log_n, ntt_dir::inverse, ntt_order::natural_to_bitrev, ntt_scale{}, coset_in, ntt_quotient{});
		run(x, x, log_n, ntt_dir::forward, ntt_order::bitrev_to_natural, ntt_scale{}, ntt_scale{},
		    ntt_quotient{});
	}
	// C's coefficients / Z, bit-reversed as the last iNTT leaves h's.
	ntt_scale c_out;
	c_out.cst = (canonical ? t.r2_z_inv_m : t.z_inv_m) + log_n;
	ready(2);
	run(c, c, log_n, ntt_dir::inverse, ntt_order::natural_to_bitrev, ntt_scale{}, c_out, ntt_quotient{});
	// a·b on the coset, taken in by the last iNTT; on the way out
	// coefficient bitrev(p) times g^-bitrev(p)/(m·Z), minus C's / Z.
	ntt_quotient quot;
	quot.b = b;
	ntt_scale coset_out;
	coset_out.cst = t.z_inv_m + log_n;
	coset_out.p_lo = t.g_lo[1];
	coset_out.p_hi = t.g_hi[1];
	coset_out.bitrev_index = true;
	coset_out.sub = c;
	run(a, a, log_n, ntt_dir::inverse, ntt_order::natural_to_bitrev, ntt_scale{}, coset_out, quot);
}

template <class Run>
void ntt_compute_h_with(const Run &run, const ntt_tables_view &t, fr_t *a, fr_t *b, fr_t *c, unsigned log_n,
			bool canonical)
{
	ntt_compute_h_with(run, t, a, b, c, log_n, canonical, [](int) {});
}

} // namespace cuzk

#endif
