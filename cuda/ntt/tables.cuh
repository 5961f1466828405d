// SPDX-License-Identifier: Apache-2.0 OR MIT
// What every NTT kernel shares, on the device and (for the host emulation in
// cuda/ntt/test_ntt_host.cpp) on the CPU: directions and orders, the tables of
// roots and coset powers, and the element-wise factors that ride on a
// transform's first loads and last stores.
#ifndef CUZK_CUDA_NTT_TABLES_CUH
#define CUZK_CUDA_NTT_TABLES_CUH

#include <cstdint>

#include "ff/fr.cuh"
#include "ff/hd.cuh"

namespace cuzk {

// Twiddles and coset powers come from two tables of 2^NTT_TW_BITS entries
// (x^e = lo[e mod 2^14] · hi[e >> 14]); 2 x 512 KiB per base instead of a
// 4 GiB table for 2^28.
constexpr unsigned NTT_TW_BITS = 14;
constexpr unsigned NTT_LOG_MAX = CUZK_FR_LOG_MAX;
// Sub-transforms of up to 2^NTT_DIRECT_LOG points take their boundary
// twiddles from one direct table (one product per element instead of two):
// 2^18 covers the second pass of 2^26 and 2^27; 8 MiB per direction,
// L2-resident.  The radix-8 kernel also takes its per-pass roots from it.
constexpr unsigned NTT_DIRECT_LOG = 18;
constexpr uint32_t NTT_TW_MASK = (1u << NTT_TW_BITS) - 1;

static_assert(2 * NTT_TW_BITS >= NTT_LOG_MAX, "two twiddle tables must cover every exponent");

enum class ntt_dir { forward = 0, inverse = 1 };
enum class ntt_order { natural_to_bitrev, bitrev_to_natural, natural_to_natural };
// Whole transforms with the conventions of src/prover/ntt.h.
enum class ntt_kind { forward, inverse, coset_forward, coset_inverse };
// Which kernel runs a transform: the radix-2 one (one shared-memory exchange
// per stage) or the radix-8 one (eight elements per thread, ntt/radix8.cuh).
enum class ntt_impl { radix2, radix8 };

// A block shape of the radix-8 kernel: tiles of 2^tile_log elements, one
// thread per 8 of them, `blocks` blocks per SM (ntt/radix8.cuh).
struct ntt8_shape {
	unsigned tile_log, blocks;
	const char *name;   // as $CUZK_NTT8_SHAPE spells it
};

// Device tables shared by every NTT on one device (read-only after set-up).
struct ntt_tables_view {
	const fr_t *w_lo[2], *w_hi[2];   // [dir] ω^(±j), ω^(±j·2^14), ω = ω_{2^28}
	const fr_t *w_direct[2];         // [dir] ω_{2^18}^(±j), j < 2^18
	const fr_t *g_lo[2], *g_hi[2];   // [0] g^j, g^(j·2^14); [1] the same for g^-1
	const fr_t *inv_m;               // [log_n] 1/m, m = 2^log_n, log_n = 0..28
	const fr_t *z_inv_m;             // [log_n] 1/(m·Z), Z = g^m - 1 on the coset
	const fr_t *r2_inv_m;            // [log_n] R^2/m (into Montgomery form, and 1/m)
	const fr_t *r2_z_inv_m;          // [log_n] R^2/(m·Z)
	unsigned round_bits;             // radix-2 kernel: stages per register round (1..3)
	ntt_impl impl;
	ntt8_shape ntt8;                 // radix-8 kernel: its block shape
	unsigned ntt8_grid;              // radix-8 kernel: blocks per launch (0: one wave)
};

// A factor c · G^idx applied to each element; idx is the natural index of the
// element (its position, or the bit-reversal of it in a bit-reversed array).
// As an epilogue only, sub[pos] (fully reduced, at the output's positions) is
// then subtracted: the H computation's C coefficients (ntt/chain.cuh).
struct ntt_scale {
	const fr_t *cst = nullptr;       // nullptr: c = 1
	const fr_t *p_lo = nullptr;      // nullptr: G = 1
	const fr_t *p_hi = nullptr;
	bool bitrev_index = false;
	const fr_t *sub = nullptr;       // epilogue only; nullptr: nothing subtracted
};

// x·b for the Groth16 quotient on the coset (A·B there; C is subtracted from
// the coefficients instead, ntt/chain.cuh), x the transform's input; fused
// into the first loads of the radix-8 kernel.
struct ntt_quotient {
	const fr_t *b = nullptr;
};

CUZK_HD uint32_t ntt_bitrev(uint32_t x, unsigned bits)
{
#ifdef __CUDA_ARCH__
	return bits ? __brev(x) >> (32 - bits) : 0;
#else
	uint32_t r = 0;
	for (unsigned i = 0; i < bits; i++)
		r |= ((x >> i) & 1) << (bits - 1 - i);
	return r;
#endif
}

CUZK_HD fr_t ntt_load(const fr_t *p)
{
#ifdef __CUDA_ARCH__
	const uint4 *q = reinterpret_cast<const uint4 *>(p);
	uint4 x = q[0], y = q[1];
	return fr_t{{x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w}};
#else
	return *p;
#endif
}

CUZK_HD void ntt_store(fr_t *p, const fr_t &v)
{
#ifdef __CUDA_ARCH__
	uint4 *q = reinterpret_cast<uint4 *>(p);
	q[0] = make_uint4(v.v[0], v.v[1], v.v[2], v.v[3]);
	q[1] = make_uint4(v.v[4], v.v[5], v.v[6], v.v[7]);
#else
	*p = v;
#endif
}

// x^e from the two tables of x (e < 2^28).
CUZK_HD fr_t pow_from_tables(const fr_t *lo, const fr_t *hi, uint32_t e)
{
	return fr_mul(ntt_load(lo + (e & NTT_TW_MASK)), ntt_load(hi + (e >> NTT_TW_BITS)));
}

// ω_S^e for the sub-transform size S = 2^S_log, e < S.
CUZK_HD fr_t boundary_twiddle(const fr_t *w_lo, const fr_t *w_hi, const fr_t *w_direct, unsigned S_log,
			      uint32_t e)
{
	if (S_log <= NTT_DIRECT_LOG)
		return ntt_load(w_direct + (e << (NTT_DIRECT_LOG - S_log)));
	return pow_from_tables(w_lo, w_hi, e << (NTT_LOG_MAX - S_log));
}

// x · c · G^idx (reduced in, reduced out).
CUZK_HD fr_t apply_scale(const ntt_scale &sc, uint32_t pos, unsigned log_n, fr_t x)
{
	if (sc.p_lo) {
		uint32_t idx = sc.bitrev_index ? ntt_bitrev(pos, log_n) : pos;
		x = fr_mul(x, pow_from_tables(sc.p_lo, sc.p_hi, idx));
	}
	if (sc.cst)
		x = fr_mul(x, ntt_load(sc.cst));
	if (sc.sub)
		x = fr_sub(x, ntt_load(sc.sub + pos));
	return x;
}

// Table contents, one entry per call, for the set-up kernels and the host
// emulation alike.  base^j and base^(j·2^14), j < 2^14, by square-and-multiply.
CUZK_HD void pow_table_entry(fr_t *lo, fr_t *hi, const fr_t &base, uint32_t j)
{
	lo[j] = fr_pow(base, j);
	fr_t big = base;
	for (unsigned i = 0; i < NTT_TW_BITS; i++)
		big = fr_sqr(big);
	hi[j] = fr_pow(big, j);
}

// The constants of ntt_tables_view for m = 2^lg.  The iNTTs of h apply one
// constant each and fold into it the quotient's 1/Z or the conversion of
// canonical input (the transforms are linear, so a factor on the input may
// as well be applied to the output).
CUZK_HD void domain_consts_entry(fr_t *inv_m, fr_t *z_inv_m, fr_t *r2_inv_m, fr_t *r2_z_inv_m, unsigned lg)
{
	fr_t im = fr_one(), gm = fr_coset_gen(false);
	for (unsigned i = 0; i < lg; i++) {
		im = fr_mul(im, fr_half());
		gm = fr_sqr(gm);
	}
	inv_m[lg] = im;
	z_inv_m[lg] = fr_mul(fr_inv(fr_sub(gm, fr_one())), im);
	r2_inv_m[lg] = fr_mul(fr_r2(), im);
	r2_z_inv_m[lg] = fr_mul(fr_r2(), z_inv_m[lg]);
}

} // namespace cuzk

#endif
