// SPDX-License-Identifier: Apache-2.0 OR MIT
// Fr, the BLS12-381 scalar field: 8 little-endian 32-bit limbs in Montgomery
// form (x·2^256 mod r).  The same bytes as the host's fr_t (4 LE u64), so
// arrays cross the PCIe bus unchanged.
//
// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001.
//
// Two representations:
// - reduced, in [0, r): what every kernel reads and writes at its boundary,
//   and what fr_mul/fr_add/fr_sub take and give;
// - lazy, in [0, 2r) (2r < 2^256): inside the NTT, where fr_mul_lazy skips
//   the final conditional subtraction and fr_add_lazy/fr_sub_lazy work modulo
//   2r.  fr_reduce takes a lazy value back to [0, r).
//
// Every routine is __host__ __device__ over ff/carry.cuh: on the device each
// carry-chain step is one PTX instruction, on the CPU it is emulated, so the
// host test (cuda/ff/test_fr_host.cpp) checks this exact code.
#ifndef CUZK_CUDA_FF_FR_CUH
#define CUZK_CUDA_FF_FR_CUH

#include <cstdint>

#include "ff/carry.cuh"
#include "ff/hd.cuh"
#include "ff/parity.cuh"

namespace cuzk {

struct fr_t {
	uint32_t v[8];
};
static_assert(sizeof(fr_t) == 32, "fr_t must match the host's 4 x u64 layout");

namespace fr_detail {

// Limb k of r; k is a compile-time constant in every unrolled caller, so this
// folds to an immediate.
CUZK_HD constexpr uint32_t mod(int k)
{
	return k == 0 ? 0x00000001u : k == 1 ? 0xffffffffu : k == 2 ? 0xfffe5bfeu
	     : k == 3 ? 0x53bda402u : k == 4 ? 0x09a1d805u : k == 5 ? 0x3339d808u
	     : k == 6 ? 0x299d7d48u : 0x73eda753u;
}

// Limb k of 2r, the modulus of the lazy representation.
CUZK_HD constexpr uint32_t mod2(int k)
{
	return k == 0 ? 0x00000002u : k == 1 ? 0xfffffffeu : k == 2 ? 0xfffcb7fdu
	     : k == 3 ? 0xa77b4805u : k == 4 ? 0x1343b00au : k == 5 ? 0x6673b010u
	     : k == 6 ? 0x533afa90u : 0xe7db4ea6u;
}

// The 64-bit products a[j]·b, j < 8: one wide multiply each (IMAD.WIDE).
CUZK_HD void row_products(uint64_t p[8], const uint32_t a[8], uint32_t b)
{
CUZK_UNROLL
	for (int j = 0; j < 8; j++)
		p[j] = (uint64_t)a[j] * b;
}

CUZK_HD uint32_t lo32(uint64_t x)
{
	return (uint32_t)x;
}

CUZK_HD uint32_t hi32(uint64_t x)
{
	return (uint32_t)(x >> 32);
}

// a·b·2^-256 mod r, in [0, 2r), for any a < 2^256 and b < r (then
// a·b < r·2^256, which bounds the Montgomery result by 2r).
//
// The 512-bit product by rows, then eight reduction rounds
// t += m·r·2^(32i) with m = -t[i] mod 2^32 (r ≡ 1 mod 2^32, so -r^-1 ≡ -1 and
// the factor needs no multiply).  The two low limbs of r are 1 and 2^32 - 1,
// so m·(r mod 2^64) needs no multiply either: with c0 = (t[i] != 0),
// t[i] + m = c0·2^32 and m·(2^32 - 1) = (m - c0)·2^32 + t[i]; each round
// therefore adds t[i] + c0 at limb i+1 and m - c0 at limb i+2, and multiplies
// only by limbs 2..7 of r (6 products instead of 8).
//
// Each 32x32 product is one 64-bit multiply whose halves go into two carry
// chains (a lo chain and a hi chain one limb up).  On sm_90 that is ~410
// instructions per product where the mad.lo.cc/madc.hi.cc form took ~580:
// ptxas splits each carry-chained multiply-add into a multiply and an add.
CUZK_HD void mont_mul(uint32_t out[8], const uint32_t a[8], const uint32_t b[8])
{
	uint32_t t[16];
	uint64_t p[8];
	row_products(p, a, b[0]);
	{
		carry_chain c;
		t[0] = lo32(p[0]);
		t[1] = c.add_cc(lo32(p[1]), hi32(p[0]));
CUZK_UNROLL
		for (int j = 2; j < 8; j++)
			t[j] = c.addc_cc(lo32(p[j]), hi32(p[j - 1]));
		t[8] = c.addc(hi32(p[7]), 0);
	}
CUZK_UNROLL
	for (int i = 1; i < 8; i++) {
		row_products(p, a, b[i]);
		carry_chain lo;
		t[i] = lo.add_cc(t[i], lo32(p[0]));
CUZK_UNROLL
		for (int j = 1; j < 8; j++)
			t[i + j] = lo.addc_cc(t[i + j], lo32(p[j]));
		t[i + 8] = lo.addc(0, 0);
		carry_chain hi;
		t[i + 1] = hi.add_cc(t[i + 1], hi32(p[0]));
CUZK_UNROLL
		for (int j = 1; j < 7; j++)
			t[i + j + 1] = hi.addc_cc(t[i + j + 1], hi32(p[j]));
		t[i + 8] = hi.addc(t[i + 8], hi32(p[7]));
	}
	// Reduction.  c carries the top carry of one round into the next
	// round's top limb (t[i+8]); the running value stays below 2^512.
	uint32_t c = 0;
CUZK_UNROLL
	for (int i = 0; i < 8; i++) {
		const uint32_t ti = t[i], m = 0u - ti;
CUZK_UNROLL
		for (int j = 2; j < 8; j++)
			p[j] = (uint64_t)m * mod(j);
		carry_chain z;
		(void)z.sub_cc(0, ti);                // borrow = c0
		const uint32_t mc = z.subc(0, ti);    // m - c0
		carry_chain lo;
		(void)lo.add_cc(ti, m);               // t[i] + m = c0·2^32
		t[i + 1] = lo.addc_cc(t[i + 1], ti);  // + t[i] + c0
CUZK_UNROLL
		for (int j = 2; j < 8; j++)
			t[i + j] = lo.addc_cc(t[i + j], lo32(p[j]));
		// the last round's sum is below 2r·2^256 < 2^512: no carry out
		uint32_t c1 = 0;
		if (i < 7) {
			t[i + 8] = lo.addc_cc(t[i + 8], c);
			c1 = lo.addc(0, 0);
		} else {
			t[i + 8] = lo.addc(t[i + 8], c);
		}
		carry_chain hi;
		t[i + 2] = hi.add_cc(t[i + 2], mc);
CUZK_UNROLL
		for (int j = 2; j < 7; j++)
			t[i + j + 1] = hi.addc_cc(t[i + j + 1], hi32(p[j]));
		if (i < 7) {
			t[i + 8] = hi.addc_cc(t[i + 8], hi32(p[7]));
			c = hi.addc(c1, 0);
		} else {
			t[i + 8] = hi.addc(t[i + 8], hi32(p[7]));
		}
	}
CUZK_UNROLL
	for (int j = 0; j < 8; j++)
		out[j] = t[8 + j];
}

// The same product in the parity layout (ff/parity.cuh): every product one
// 64-bit multiply-add into an aligned register pair, where mont_mul adds
// each product's halves in two chains (two adds a product, the bulk of its
// instructions).  r ≡ 1 mod 2^32, so -r^-1 ≡ 2^32 - 1 and m = -s for
// limb s (a multiply on the device, below); all eight limbs of r are
// multiplied: the r_0 = 1, r_1 = 2^32 - 1 shortcut above, tried here (one
// H100, 2026-12-06), took 16 of the 128 IMAD.WIDE away and made the 2^27
// NTT 5% slower: each step's odd chain then waits on a few more dependent
// additions, and the NTT's passes are bound by such waits.
// r > 2^254 and a goes up to 2^256, so a + r exceeds parity.cuh's bound for
// the reduction rows' odd chains: they carry out (odd_carry), except at the
// last step, where a·b + m·r < 2^256·2r < 2^512 says the carry is 0.  The
// result is (a·b + m·r)/2^256 with m = -a·b·r^-1 mod 2^256, whatever the
// order the digits of m are found in: the same value as mont_mul, below 2r
// (b < r) and so within 8 limbs.
//
// On the device -r^-1 is read from constant memory (an operand, no extra
// instruction): when ptxas sees that it is 2^32 - 1, so that m = -s, it
// splits 55 of the 64 products m·r_j into a low and a high multiply
// (IMAD.X + IMAD.HI.X instead of one IMAD.WIDE.X; 239 instructions a
// product out of line against 191).
struct r_limbs {
	CUZK_HD uint32_t operator()(int j) const { return mod(j); }
};
#ifdef __CUDACC__
[[maybe_unused]] static __constant__ uint32_t mont_parity_minv = 0xffffffffu;
#endif

CUZK_HD void mont_mul_parity(uint32_t out[8], const uint32_t a[8], const uint32_t b[8])
{
#ifdef __CUDA_ARCH__
	const uint32_t minv = mont_parity_minv;
#else
	const uint32_t minv = 0xffffffffu;
#endif
	parity::mont<8>(out, a, b, r_limbs{}, minv, true);
}

// out = a - M if that does not borrow, else a (a < 2M; M is r or 2r).
template <bool TWICE> CUZK_HD void sub_mod_once(uint32_t out[8], const uint32_t a[8])
{
	uint32_t d[8];
	carry_chain s;
	d[0] = s.sub_cc(a[0], TWICE ? mod2(0) : mod(0));
CUZK_UNROLL
	for (int j = 1; j < 8; j++)
		d[j] = s.subc_cc(a[j], TWICE ? mod2(j) : mod(j));
	const uint32_t keep = s.subc(0, 0);   // all ones when a < M
CUZK_UNROLL
	for (int j = 0; j < 8; j++)
		out[j] = keep ? a[j] : d[j];
}

} // namespace fr_detail

// The products below take PARITY: with mont_mul_parity instead of
// mont_mul, the same bytes (cuda/ff/test_fr_host.cpp).  The radix-8 NTT
// takes the parity form (1.32x faster at 2^27 on the H200, docs/BENCHMARKS.md),
// everything else the default.
namespace fr_detail {
template <bool PARITY> CUZK_HD void mont(uint32_t out[8], const uint32_t a[8], const uint32_t b[8])
{
	if constexpr (PARITY)
		mont_mul_parity(out, a, b);
	else
		mont_mul(out, a, b);
}
} // namespace fr_detail

// a·b, both reduced; the result reduced.
template <bool PARITY = false> CUZK_HD fr_t fr_mul(const fr_t &a, const fr_t &b)
{
	fr_t t, r;
	fr_detail::mont<PARITY>(t.v, a.v, b.v);
	fr_detail::sub_mod_once<false>(r.v, t.v);
	return r;
}

// a·b with a lazy (any a < 2^256 in fact) and b reduced; the result lazy.
template <bool PARITY = false> CUZK_HD fr_t fr_mul_lazy(const fr_t &a, const fr_t &b)
{
	fr_t r;
	fr_detail::mont<PARITY>(r.v, a.v, b.v);
	return r;
}

CUZK_HD fr_t fr_sqr(const fr_t &a)
{
	return fr_mul(a, a);
}

// Lazy to reduced.
CUZK_HD fr_t fr_reduce(const fr_t &a)
{
	fr_t r;
	fr_detail::sub_mod_once<false>(r.v, a.v);
	return r;
}

CUZK_HD fr_t fr_add(const fr_t &a, const fr_t &b)
{
	// a + b < 2r < 2^256: no carry out; subtract r unless that borrows.
	fr_t s, r;
	carry_chain c;
	s.v[0] = c.add_cc(a.v[0], b.v[0]);
CUZK_UNROLL
	for (int j = 1; j < 7; j++)
		s.v[j] = c.addc_cc(a.v[j], b.v[j]);
	s.v[7] = c.addc(a.v[7], b.v[7]);
	fr_detail::sub_mod_once<false>(r.v, s.v);
	return r;
}

// a + b modulo 2r, a and b lazy.  The sum may carry out of 256 bits (4r >
// 2^256); then it is >= 2r and the subtraction's borrow cancels the carry.
CUZK_HD fr_t fr_add_lazy(const fr_t &a, const fr_t &b)
{
	uint32_t s[8], d[8];
	carry_chain c;
	s[0] = c.add_cc(a.v[0], b.v[0]);
CUZK_UNROLL
	for (int j = 1; j < 8; j++)
		s[j] = c.addc_cc(a.v[j], b.v[j]);
	const uint32_t cy = c.addc(0, 0);
	carry_chain m;
	d[0] = m.sub_cc(s[0], fr_detail::mod2(0));
CUZK_UNROLL
	for (int j = 1; j < 8; j++)
		d[j] = m.subc_cc(s[j], fr_detail::mod2(j));
	// all ones iff no carry and a borrow, i.e. the sum is below 2r (a carry
	// without a borrow cannot happen for lazy inputs: then s < 4r - 2^256 < 2r)
	const uint32_t keep = m.subc(cy, 0);
	fr_t r;
CUZK_UNROLL
	for (int j = 0; j < 8; j++)
		r.v[j] = keep ? s[j] : d[j];
	return r;
}

// a - b, adding M back on a borrow (mask instead of a branch).
template <bool TWICE> CUZK_HD fr_t fr_sub_mod(const fr_t &a, const fr_t &b)
{
	uint32_t d[8];
	carry_chain s;
	d[0] = s.sub_cc(a.v[0], b.v[0]);
CUZK_UNROLL
	for (int j = 1; j < 8; j++)
		d[j] = s.subc_cc(a.v[j], b.v[j]);
	const uint32_t borrow = s.subc(0, 0);
	fr_t r;
	carry_chain c;
	r.v[0] = c.add_cc(d[0], (TWICE ? fr_detail::mod2(0) : fr_detail::mod(0)) & borrow);
CUZK_UNROLL
	for (int j = 1; j < 7; j++)
		r.v[j] = c.addc_cc(d[j], (TWICE ? fr_detail::mod2(j) : fr_detail::mod(j)) & borrow);
	r.v[7] = c.addc(d[7], (TWICE ? fr_detail::mod2(7) : fr_detail::mod(7)) & borrow);
	return r;
}

CUZK_HD fr_t fr_sub(const fr_t &a, const fr_t &b)
{
	return fr_sub_mod<false>(a, b);
}

// a - b modulo 2r, a and b lazy.
CUZK_HD fr_t fr_sub_lazy(const fr_t &a, const fr_t &b)
{
	return fr_sub_mod<true>(a, b);
}

// Constants in Montgomery form.
CUZK_HD fr_t fr_zero()
{
	return fr_t{{0, 0, 0, 0, 0, 0, 0, 0}};
}

CUZK_HD fr_t fr_one()
{
	return fr_t{{0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau, 0xecbc4ff5u, 0x998c4fefu,
		     0xacc5056fu, 0x1824b159u}};
}

// 2^512 mod r: fr_mul(x, R2) takes canonical x into Montgomery form.
CUZK_HD fr_t fr_r2()
{
	return fr_t{{0xf3f29c6du, 0xc999e990u, 0x87925c23u, 0x2b6cedcbu, 0x7254398fu, 0x05d31496u,
		     0x9f59ff11u, 0x0748d9d9u}};
}

// A primitive 2^28-th root of unity, 7^((r-1)/2^32) squared four times: the
// same root the CPU's fr_root_of_unity(28) gives, so both NTTs agree.
CUZK_HD fr_t fr_omega_2_28(bool inverse)
{
	return inverse ? fr_t{{0x7b483997u, 0x25909fe2u, 0x3f40368fu, 0xe6c3383bu, 0xdfbf158fu,
			       0xe7a72791u, 0x90ca2226u, 0x2bccc288u}}
		       : fr_t{{0x8d27bcb7u, 0x2c75ff0bu, 0x4413b9d7u, 0x00fc392eu, 0x8752020fu,
			       0xef31d1fdu, 0xe7a75dc5u, 0x6d5074c8u}};
}

// ω_8^e for e = 1, 2, 3 (ω_8^2 = ω_4), ω_8 = ω_{2^28}^(2^25), or their inverses:
// the twiddles of a radix-8 butterfly, as immediates.
CUZK_HD fr_t fr_root_8(unsigned e, bool inverse)
{
	if (inverse)
		return e == 1 ? fr_t{{0xc14d5724u, 0xeee067bcu, 0x90c5a3beu, 0x34467c7eu, 0x7b6536c9u, 0x80b27f64u,
				      0x3c033457u, 0x1a78ad5bu}}
		     : e == 2 ? fr_t{{0x55763050u, 0x0c4fa98au, 0x9ff7a200u, 0x4c8ea2c2u, 0xe43b5ddfu, 0x649fca48u,
				      0xfc43f9d3u, 0x26c0c34du}}
			      : fr_t{{0xd3bd1009u, 0x9130b669u, 0xb2a061a7u, 0xe4fba97fu, 0xb34b26a8u, 0xf34408cfu,
				      0x06ff7a2cu, 0x1f35a4ecu}};
	return e == 1 ? fr_t{{0x2c42eff8u, 0x6ecf4995u, 0x4d5dfa57u, 0x6ec1fa83u, 0x5656b15cu, 0x3ff5cf38u,
			      0x229e031bu, 0x54b80267u}}
	     : e == 2 ? fr_t{{0xaa89cfb1u, 0xf3b05674u, 0x6006b9feu, 0x072f0140u, 0x25667a26u, 0xce9a0dbfu,
			      0x2d598374u, 0x4d2ce405u}}
		      : fr_t{{0x3eb2a8ddu, 0x111f9842u, 0x6f38b840u, 0x1f772784u, 0x8e3ca13cu, 0xb28758a3u,
			      0xed9a48f0u, 0x5974f9f7u}};
}

// The coset shift g = 7 and g^-1.
CUZK_HD fr_t fr_coset_gen(bool inverse)
{
	return inverse ? fr_t{{0xdb6db6dcu, 0xdb6db6dau, 0xdb6cc6dau, 0xe6b5824au, 0x05810db9u,
			       0xf8b356e0u, 0x60ec4796u, 0x66d0f1e6u}}
		       : fr_t{{0xfffffff1u, 0x0000000eu, 0x00189c0fu, 0x17e363d3u, 0x6f8457b0u,
			       0xff9c5787u, 0x8fc5a8c4u, 0x35133220u}};
}

#define CUZK_FR_LOG_MAX 28    // largest NTT domain the root above supports

CUZK_HD fr_t fr_pow(fr_t base, uint64_t e)
{
	fr_t r = fr_one();
	while (e) {
		if (e & 1)
			r = fr_mul(r, base);
		base = fr_sqr(base);
		e >>= 1;
	}
	return r;
}

// 1/a = a^(r-2); 0 maps to 0.  Set-up paths only (one thread, ~380 products).
CUZK_HD fr_t fr_inv(const fr_t &a)
{
	const uint64_t e[4] = {0xfffffffeffffffffull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
			       0x73eda753299d7d48ull};
	fr_t r = fr_one();
	for (int i = 3; i >= 0; i--)
		for (int b = 63; b >= 0; b--) {
			r = fr_sqr(r);
			if ((e[i] >> b) & 1)
				r = fr_mul(r, a);
		}
	return r;
}

// 1/2 in Montgomery form.
CUZK_HD fr_t fr_half()
{
	return fr_t{{0xffffffffu, 0x00000000u, 0x0001a401u, 0xac425bfdu, 0xf65e27fau, 0xccc627f7u,
		     0xd66282b7u, 0x0c1258acu}};
}

// Canonical (plain integer < r) to Montgomery and back.
CUZK_HD fr_t fr_to_mont(const fr_t &a)
{
	return fr_mul(a, fr_r2());
}

CUZK_HD fr_t fr_from_mont(const fr_t &a)
{
	return fr_mul(a, fr_t{{1, 0, 0, 0, 0, 0, 0, 0}});
}

CUZK_HD bool fr_is_zero(const fr_t &a)
{
	uint32_t x = 0;
CUZK_UNROLL
	for (int j = 0; j < 8; j++)
		x |= a.v[j];
	return x == 0;
}

} // namespace cuzk

#endif
