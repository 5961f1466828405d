// SPDX-License-Identifier: Apache-2.0 OR MIT
// Fp, the BLS12-381 base field, on the device: 12 little-endian 32-bit limbs in
// Montgomery form (x·2^384 mod p), fully reduced to [0, p).  The same bytes as
// the host's fp_t (6 LE u64), so point arrays cross the PCIe bus unchanged.
//
// p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
// (381 bits, so 2p < 2^382 and sums of two reduced values never leave 12 limbs).
//
// Every routine is __host__ __device__: on the CPU the carry chains are
// emulated (ff/carry.cuh), which lets tests check this exact code without a GPU.
#ifndef CUZK_CUDA_FF_FP_CUH
#define CUZK_CUDA_FF_FP_CUH

#include <cstdint>

#include "ff/carry.cuh"
#include "ff/hd.cuh"
#include "ff/parity.cuh"

namespace cuzk {

struct fp_t {
	uint32_t v[12];
};
static_assert(sizeof(fp_t) == 48, "fp_t must match the host's 6 x u64 layout");

namespace fp_detail {

// Limb k of p; k is a compile-time constant in every unrolled caller.
CUZK_HD constexpr uint32_t P(int k)
{
	return k == 0 ? 0xffffaaabu : k == 1 ? 0xb9feffffu : k == 2 ? 0xb153ffffu
	     : k == 3 ? 0x1eabfffeu : k == 4 ? 0xf6b0f624u : k == 5 ? 0x6730d2a0u
	     : k == 6 ? 0xf38512bfu : k == 7 ? 0x64774b84u : k == 8 ? 0x434bacd7u
	     : k == 9 ? 0x4b1ba7b6u : k == 10 ? 0x397fe69au : 0x1a0111eau;
}
// -p^-1 mod 2^32
constexpr uint32_t PINV = 0xfffcfffdu;

using parity::mac_pairs;
using parity::mulhi;

// Limb k of R = 2^384 mod p, the Montgomery form of 1.
CUZK_HD constexpr uint32_t ONE(int k)
{
	return k == 0 ? 0x0002fffdu : k == 1 ? 0x76090000u : k == 2 ? 0xc40c0002u
	     : k == 3 ? 0xebf4000bu : k == 4 ? 0x53c758bau : k == 5 ? 0x5f489857u
	     : k == 6 ? 0x70525745u : k == 7 ? 0x77ce5853u : k == 8 ? 0xa256ec6du
	     : k == 9 ? 0x5c071a97u : k == 10 ? 0xfa80e493u : 0x15f65ec3u;
}

// r = a + b mod 2^(32N), one carry chain.
template <int N> CUZK_HD void add_limbs(uint32_t r[N], const uint32_t a[N], const uint32_t b[N])
{
	carry_chain c;
	r[0] = c.add_cc(a[0], b[0]);
CUZK_UNROLL
	for (int j = 1; j < N - 1; j++)
		r[j] = c.addc_cc(a[j], b[j]);
	r[N - 1] = c.addc(a[N - 1], b[N - 1]);
}

// r = a - b mod 2^(32N), one borrow chain.
template <int N> CUZK_HD void sub_limbs(uint32_t r[N], const uint32_t a[N], const uint32_t b[N])
{
	carry_chain c;
	r[0] = c.sub_cc(a[0], b[0]);
CUZK_UNROLL
	for (int j = 1; j < N - 1; j++)
		r[j] = c.subc_cc(a[j], b[j]);
	r[N - 1] = c.subc(a[N - 1], b[N - 1]);
}

// r = a + b left unreduced (add reduces it; a product that tolerates inputs
// up to 2^384 takes it as it is): two reduced values sum below 2p < 2^382,
// so no carry leaves limb 11.
CUZK_HD void add_unreduced(uint32_t r[12], const uint32_t a[12], const uint32_t b[12]) { add_limbs<12>(r, a, b); }

// h += p modulo 2^384 when mask is all ones, unchanged when it is 0: the
// correction after a subtraction that wrapped (sub's a - b, and the high
// half of the lazy Fp2 product's a0·b0 - a1·b1, where it adds p·2^384).
CUZK_HD void add_p_masked(uint32_t h[12], uint32_t mask)
{
	carry_chain c;
	h[0] = c.add_cc(h[0], P(0) & mask);
CUZK_UNROLL
	for (int j = 1; j < 11; j++)
		h[j] = c.addc_cc(h[j], P(j) & mask);
	h[11] = c.addc(h[11], P(11) & mask);
}

// r = t if t < p, else t - p (t < 2p).
CUZK_HD void reduce_once(uint32_t r[12], const uint32_t t[12])
{
	uint32_t d[12];
	carry_chain c;
	d[0] = c.sub_cc(t[0], P(0));
CUZK_UNROLL
	for (int j = 1; j < 12; j++)
		d[j] = c.subc_cc(t[j], P(j));
	uint32_t borrow = c.subc(0, 0);   // all ones when t < p
CUZK_UNROLL
	for (int j = 0; j < 12; j++)
		r[j] = borrow ? t[j] : d[j];
}


// One reduction step of the two-chain form (mul, redc_dual_add): m from
// limb 0 of T = E + O + c, m·p added (its even limbs' products into E, odd
// into O), limb 0's carry kept in c, and the window shifted down a limb.
CUZK_HD void dual_redc_step(uint32_t E[13], uint32_t O[13], uint32_t &c)
{
	const uint32_t m = (E[0] + O[0] + c) * fp_detail::PINV;
	mac_pairs(E, [](int k) { return P(2 * k); }, m, 6, true);
	mac_pairs(O + 1, [](int k) { return P(2 * k + 1); }, m, 6, false);
	// limb 0 of T is now 0 mod 2^32; its carry moves up with the shift
	carry_chain k0;
	const uint32_t s0 = k0.add_cc(E[0], O[0]);
	const uint32_t c1 = k0.addc(0, 0);
	carry_chain k1;
	(void)k1.add_cc(s0, c);
	c = k1.addc(c1, 0);
CUZK_UNROLL
	for (int j = 0; j < 12; j++) {
		E[j] = E[j + 1];
		O[j] = O[j + 1];
	}
	E[12] = O[12] = 0;
}

// r = E + O + c (+ hi when HI), reduced once; the caller knows the sum is
// below 2p (< 2^382), so no chain carries out of limb 11.
template <bool HI>
CUZK_HD void dual_finish(uint32_t r[12], const uint32_t E[13], const uint32_t O[13], uint32_t c,
			 const uint32_t *hi)
{
	uint32_t t[12];
	carry_chain s1;
	t[0] = s1.add_cc(E[0], O[0]);
CUZK_UNROLL
	for (int j = 1; j < 11; j++)
		t[j] = s1.addc_cc(E[j], O[j]);
	t[11] = s1.addc(E[11], O[11]);
	if (HI) {
		carry_chain s2;
		t[0] = s2.add_cc(t[0], hi[0]);
CUZK_UNROLL
		for (int j = 1; j < 11; j++)
			t[j] = s2.addc_cc(t[j], hi[j]);
		t[11] = s2.addc(t[11], hi[11]);
	}
	carry_chain s3;
	t[0] = s3.add_cc(t[0], c);
CUZK_UNROLL
	for (int j = 1; j < 11; j++)
		t[j] = s3.addc_cc(t[j], 0);
	t[11] = s3.addc(t[11], 0);
	reduce_once(r, t);
}
} // namespace fp_detail

CUZK_HD fp_t fp_zero()
{
	fp_t r;
CUZK_UNROLL
	for (int j = 0; j < 12; j++)
		r.v[j] = 0;
	return r;
}

CUZK_HD fp_t fp_one()
{
	fp_t r;
CUZK_UNROLL
	for (int j = 0; j < 12; j++)
		r.v[j] = fp_detail::ONE(j);
	return r;
}

CUZK_HD bool is_zero(const fp_t &a)
{
	uint32_t acc = 0;
CUZK_UNROLL
	for (int j = 0; j < 12; j++)
		acc |= a.v[j];
	return acc == 0;
}

CUZK_HD bool eq(const fp_t &a, const fp_t &b)
{
	uint32_t acc = 0;
CUZK_UNROLL
	for (int j = 0; j < 12; j++)
		acc |= a.v[j] ^ b.v[j];
	return acc == 0;
}

CUZK_HD fp_t add(const fp_t &a, const fp_t &b)
{
	uint32_t t[12];
	fp_detail::add_unreduced(t, a.v, b.v);   // a + b < 2p < 2^382: no carry out
	fp_t r;
	fp_detail::reduce_once(r.v, t);
	return r;
}

CUZK_HD fp_t dbl(const fp_t &a) { return add(a, a); }

CUZK_HD fp_t sub(const fp_t &a, const fp_t &b)
{
	fp_t r;
	carry_chain c;
	r.v[0] = c.sub_cc(a.v[0], b.v[0]);
CUZK_UNROLL
	for (int j = 1; j < 12; j++)
		r.v[j] = c.subc_cc(a.v[j], b.v[j]);
	fp_detail::add_p_masked(r.v, c.subc(0, 0));   // all ones when a < b: add p back
	return r;
}

CUZK_HD fp_t neg(const fp_t &a) { return sub(fp_zero(), a); }

// -a when flag, else a.
CUZK_HD fp_t cneg(const fp_t &a, bool flag) { return flag ? neg(a) : a; }

// a·b·2^-384 mod p.  CIOS (per limb of b, t += a·b[i] in a lo chain and a
// hi chain one limb up, then a reduction round) makes every chain depend on
// the one before; here each step has two independent chains, so that the
// scheduler can overlap them (H200, G1 MSM 2^26 with the product out of
// line: 711 ms with CIOS, 566 ms with this).
// Products a[j]·b[i] with j even land on limbs (j, j+1), disjoint from each
// other, and so do those with j odd: the even ones accumulate in E, the odd
// ones in O, and the running value is T = E + O + c, with c (0..2) the carry
// out of limb 0 that neither chain owns.  Each step adds a·b[i] and m·p
// (m from limb 0 of T) in four chains, two and two independent, then divides
// by 2^32 by renaming limbs.  Bounds as for CIOS: T < 2p after each step, so
// E, O < 2^416 (13 limbs) and O's chains never carry out of limb 12.
CUZK_HD fp_t mul(const fp_t &a, const fp_t &b)
{
	uint32_t E[13], O[13], c = 0;
	{
		// step 0 products: disjoint within each accumulator, no carries
		const uint32_t b0 = b.v[0];
CUZK_UNROLL
		for (int j = 0; j < 12; j += 2) {
			E[j] = a.v[j] * b0;
			E[j + 1] = fp_detail::mulhi(a.v[j], b0);
		}
		E[12] = 0;
		O[0] = 0;
CUZK_UNROLL
		for (int j = 1; j < 12; j += 2) {
			O[j] = a.v[j] * b0;
			O[j + 1] = fp_detail::mulhi(a.v[j], b0);
		}
	}
CUZK_UNROLL
	for (int i = 0; i < 12; i++) {
		if (i) {
			const uint32_t bi = b.v[i];
			fp_detail::mac_pairs(E, [&](int k) { return a.v[2 * k]; }, bi, 6, true);
			fp_detail::mac_pairs(O + 1, [&](int k) { return a.v[2 * k + 1]; }, bi, 6, false);
		}
		fp_detail::dual_redc_step(E, O, c);
	}
	// T = E + O + c < 2p < 2^382
	fp_t r;
	fp_detail::dual_finish<false>(r.v, E, O, c, nullptr);
	return r;
}

namespace fp_detail {
// The 768-bit products of the lazy Fp2 product and the lazy form's Fp
// product, in the parity layout of ff/parity.cuh (no limb renamed, so
// every partial product lands on an aligned register pair; mul's shifted
// window forces a register move per limb and step to re-pair, counted in
// msm/fp_impl.cuh).
struct p_limbs {
	CUZK_HD uint32_t operator()(int j) const { return P(j); }
};

// T = x·y as 2N limbs, for any x, y < 2^(32N): N rows in the parity
// layout, the two chains of a row independent, A + B summed once at the end.
template <int N> CUZK_HD void wide_parity(uint32_t T[2 * N], const uint32_t x[N], const uint32_t y[N])
{
	uint32_t A[2 * N], B[2 * N - 1];
	auto xf = [&](int j) { return x[j]; };
	parity::row0<N>(A, B, xf, y[0]);
CUZK_UNROLL
	for (int i = 1; i < N; i++)
		parity::row<N>(A, B, xf, y[i], i);
	// x·y < 2^(64N): no carry out of limb 2N - 1
	carry_chain s;
	T[0] = A[0];
	T[1] = s.add_cc(A[1], B[0]);
CUZK_UNROLL
	for (int j = 2; j < 2 * N - 1; j++)
		T[j] = s.addc_cc(A[j], B[j - 1]);
	T[2 * N - 1] = s.addc(A[2 * N - 1], B[2 * N - 2]);
}

// T = a·b as 24 limbs, for any a, b < 2^384.
CUZK_HD void mul_wide(uint32_t T[24], const uint32_t a[12], const uint32_t b[12]) { wide_parity<12>(T, a, b); }

// s = lo + hi of x's two 192-bit halves; returns the carry out (0 or 1).
CUZK_HD uint32_t halves_sum(uint32_t s[6], const uint32_t x[12])
{
	carry_chain c;
	s[0] = c.add_cc(x[0], x[6]);
CUZK_UNROLL
	for (int j = 1; j < 6; j++)
		s[j] = c.addc_cc(x[j], x[j + 6]);
	return c.addc(0, 0);
}

// T = a·b as 24 limbs by one level of Karatsuba on 192-bit halves, for a,
// b < 2^383: three 6x6-limb products (108 multiply-adds instead of 144).
// With a = a0 + 2^192·a1, the middle term z1 = a0·b1 + a1·b0 is below
// 2·2^192·2^191 = 2^384, so it is computed modulo 2^384 as (a0 + a1)(b0 +
// b1) - a0·b0 - a1·b1, where the half sums' carries ca, cb add
// 2^192·(ca·(b0 + b1) + cb·(a0 + a1)) (their product, 2^384·ca·cb, is 0
// there).  Then T = a0·b0 + 2^384·a1·b1 + 2^192·z1.
CUZK_HD void mul_wide_kara(uint32_t T[24], const uint32_t a[12], const uint32_t b[12])
{
	uint32_t sa[6], sb[6], z0[12], z2[12], z1[12];
	const uint32_t ca = halves_sum(sa, a), cb = halves_sum(sb, b);
	wide_parity<6>(z0, a, b);
	wide_parity<6>(z2, a + 6, b + 6);
	wide_parity<6>(z1, sa, sb);
	uint32_t sb_ca[6], sa_cb[6];
CUZK_UNROLL
	for (int j = 0; j < 6; j++) {
		sb_ca[j] = sb[j] & (0u - ca);
		sa_cb[j] = sa[j] & (0u - cb);
	}
	add_limbs<6>(z1 + 6, z1 + 6, sb_ca);
	add_limbs<6>(z1 + 6, z1 + 6, sa_cb);
	sub_limbs<12>(z1, z1, z0);
	sub_limbs<12>(z1, z1, z2);
CUZK_UNROLL
	for (int j = 0; j < 6; j++)
		T[j] = z0[j];
	// a·b < 2^768: no carry out of limb 23
	carry_chain c;
	T[6] = c.add_cc(z0[6], z1[0]);
CUZK_UNROLL
	for (int j = 7; j < 12; j++)
		T[j] = c.addc_cc(z0[j], z1[j - 6]);
CUZK_UNROLL
	for (int j = 12; j < 18; j++)
		T[j] = c.addc_cc(z2[j - 12], z1[j - 6]);
CUZK_UNROLL
	for (int j = 18; j < 23; j++)
		T[j] = c.addc_cc(z2[j - 12], 0);
	T[23] = c.addc(z2[11], 0);
}

// r = REDC(lo + 2^384·hi) = (lo + m·p)/2^384 + hi (m = -lo/p mod 2^384), as
// redc_dual_add but in the parity layout (parity::redc_step; its chains
// hold for any lo < 2^384).  hi is added at the end, so A starts as lo and
// zeros, and lo + m·p < 2^384 + p·2^384 < 2^768.  The caller must have hi <
// p (then r < 2p, see fp2.cuh's mul_lazy): one conditional subtraction
// reduces it.
CUZK_HD void redc_parity(uint32_t r[12], const uint32_t lo[12], const uint32_t hi[12])
{
	uint32_t A[24], B[23], t[12];
CUZK_UNROLL
	for (int j = 0; j < 24; j++)
		A[j] = j < 12 ? lo[j] : 0;
CUZK_UNROLL
	for (int j = 0; j < 23; j++)
		B[j] = 0;
CUZK_UNROLL
	for (int i = 0; i < 12; i++)
		parity::redc_step<12>(A, B, p_limbs{}, PINV, i);
	parity::top_sum<12>(t, A, B);   // < p + 1
	add_unreduced(t, t, hi);        // < 2p < 2^382: no carry out
	reduce_once(r, t);
}

// r = a·b·2^-384 mod p in the parity layout, the reduction fused in
// (parity::mont).  Its reduction rows need no carry out of their odd chains
// for a + p <= 2^384 - 2^352 (any a < 2^383; parity.cuh).  (a·b + m·p)/2^384 <
// 2p for a·b < p·2^384 (a, b < p), one conditional subtraction from fully
// reduced: the same bytes as mul.
CUZK_HD void mont_parity(uint32_t r[12], const uint32_t a[12], const uint32_t b[12])
{
	uint32_t t[12];
	parity::mont<12>(t, a, b, p_limbs{}, PINV, false);
	reduce_once(r, t);
}

// The top 32 bits of (hi:lo)·2, i.e. limb k of 2·T from limbs k and k-1 of
// T: one funnel shift, off any carry chain.
CUZK_HD uint32_t dbl_limb(uint32_t hi, uint32_t lo)
{
#ifdef __CUDA_ARCH__
	return __funnelshift_l(lo, hi, 1);
#else
	return hi << 1 | lo >> 31;
#endif
}

// T = a^2 as 24 limbs, for any a < 2^384, in the parity layout: row i adds
// a_i·a_j (j > i) at limbs (i + j, i + j + 1), the j of i's parity into A,
// the others into B, each set one chain on disjoint pairs (66 products, as
// square_wide, but fused 64-bit multiply-adds where square_wide's separate
// lo and hi chains are not).  After row i the cross products so far sum to
// at most a_(<=i)·a < 2^(32(i+13)): the chain of the row that ends at limb
// i + 12 (the one with j = 11) cannot carry out, the other ends at limb
// i + 11 and carries into limb i + 12, which no row has passed.  Then
// T = 2(A + B) + Σ a_i²·2^(64i): the sum, its doubling by funnel shifts
// (off any chain), the squares in one chain (a² < 2^768, no carry out).
CUZK_HD void square_wide_parity(uint32_t T[24], const uint32_t a[12])
{
	uint32_t A[24], B[23];
CUZK_UNROLL
	for (int j = 0; j < 24; j++)
		A[j] = 0;
CUZK_UNROLL
	for (int j = 0; j < 23; j++)
		B[j] = 0;
CUZK_UNROLL
	for (int i = 0; i < 11; i++) {
		// j = i + 1, i + 3, ... into B from B[2i], j = i + 2, i + 4, ... into
		// A from A[2i + 2]; the chain that reaches j = 11 takes no carry out
		const int nb = (10 - i) / 2 + 1, na = (11 - i) / 2;
		mac_pairs(B + 2 * i, [&](int k) { return a[i + 1 + 2 * k]; }, a[i], nb, i & 1);
		if (na)
			mac_pairs(A + 2 * i + 2, [&](int k) { return a[i + 2 + 2 * k]; }, a[i], na, !(i & 1));
	}
	carry_chain s;
	T[0] = 0;
	T[1] = B[0];   // A[0], A[1] hold nothing: a_i·a_j with i + j even starts at limb 2
	T[2] = s.add_cc(A[2], B[1]);
CUZK_UNROLL
	for (int j = 3; j < 22; j++)
		T[j] = s.addc_cc(A[j], B[j - 1]);
	// the bound above at i = 10: the cross products are below 2^736, limb 23 is 0
	T[22] = s.addc(A[22], B[21]);
	T[23] = 0;
CUZK_UNROLL
	for (int j = 23; j > 0; j--)
		T[j] = dbl_limb(T[j], T[j - 1]);
	carry_chain d;
	T[0] = d.mad_lo_cc(a[0], a[0], T[0]);
	T[1] = d.madc_hi_cc(a[0], a[0], T[1]);
CUZK_UNROLL
	for (int i = 1; i < 11; i++) {
		T[2 * i] = d.madc_lo_cc(a[i], a[i], T[2 * i]);
		T[2 * i + 1] = d.madc_hi_cc(a[i], a[i], T[2 * i + 1]);
	}
	T[22] = d.madc_lo_cc(a[11], a[11], T[22]);
	T[23] = d.madc_hi(a[11], a[11], T[23]);
}

// r = a - b mod 2^768; all ones when a < b (the subtraction wrapped), else 0.
CUZK_HD uint32_t sub_wide(uint32_t r[24], const uint32_t a[24], const uint32_t b[24])
{
	carry_chain c;
	r[0] = c.sub_cc(a[0], b[0]);
CUZK_UNROLL
	for (int j = 1; j < 24; j++)
		r[j] = c.subc_cc(a[j], b[j]);
	return c.subc(0, 0);
}

// r = a + b mod 2^768 (the lazy sums of products: their values stay in a
// range that the caller bounds; a wrap is part of a signed value there).
CUZK_HD void add_wide(uint32_t r[24], const uint32_t a[24], const uint32_t b[24]) { add_limbs<24>(r, a, b); }

// T = a^2 as 24 limbs: the 66 cross products once, doubled, plus the diagonal.
CUZK_HD void square_wide(uint32_t T[24], const fp_t &a)
{
CUZK_UNROLL
	for (int j = 0; j < 24; j++)
		T[j] = 0;
	// Row i adds a[i]·a[j] for j > i at limb i + j.  T[i + 12] holds at most a
	// carry bit from the row before, so the low chain cannot overflow it.
CUZK_UNROLL
	for (int i = 0; i < 11; i++) {
		carry_chain lo;
		T[2 * i + 1] = lo.mad_lo_cc(a.v[i], a.v[i + 1], T[2 * i + 1]);
CUZK_UNROLL
		for (int j = i + 2; j < 12; j++)
			T[i + j] = lo.madc_lo_cc(a.v[i], a.v[j], T[i + j]);
		T[i + 12] = lo.addc(T[i + 12], 0);
		carry_chain hi;
		T[2 * i + 2] = hi.mad_hi_cc(a.v[i], a.v[i + 1], T[2 * i + 2]);
CUZK_UNROLL
		for (int j = i + 2; j < 12; j++)
			T[i + j + 1] = hi.madc_hi_cc(a.v[i], a.v[j], T[i + j + 1]);
		T[i + 13] = hi.addc(0, 0);
	}
	// double the cross products (T[0] is 0)
	{
		carry_chain c;
		T[1] = c.add_cc(T[1], T[1]);
CUZK_UNROLL
		for (int j = 2; j < 23; j++)
			T[j] = c.addc_cc(T[j], T[j]);
		T[23] = c.addc(T[23], T[23]);
	}
	// add the squares a[i]^2 at limb 2i
	{
		carry_chain c;
		T[0] = c.mad_lo_cc(a.v[0], a.v[0], T[0]);
		T[1] = c.madc_hi_cc(a.v[0], a.v[0], T[1]);
CUZK_UNROLL
		for (int i = 1; i < 11; i++) {
			T[2 * i] = c.madc_lo_cc(a.v[i], a.v[i], T[2 * i]);
			T[2 * i + 1] = c.madc_hi_cc(a.v[i], a.v[i], T[2 * i + 1]);
		}
		T[22] = c.madc_lo_cc(a.v[11], a.v[11], T[22]);
		T[23] = c.madc_hi(a.v[11], a.v[11], T[23]);
	}
}
} // namespace fp_detail

// The product's low half T[0..11] reduced Montgomery style in the two-chain
// form of mul (m·p's even limbs into E, odd into O, T = E + O + c), then the
// high half added: REDC(lo + 2^384·hi) = (lo + m·p)/2^384 + hi < 2p.
CUZK_HD void redc_dual_add(uint32_t r[12], const uint32_t lo[12], const uint32_t hi[12])
{
	uint32_t E[13], O[13], c = 0;
CUZK_UNROLL
	for (int j = 0; j < 12; j++) {
		E[j] = lo[j];
		O[j] = 0;
	}
	E[12] = O[12] = 0;
CUZK_UNROLL
	for (int i = 0; i < 12; i++)
		fp_detail::dual_redc_step(E, O, c);
	fp_detail::dual_finish<true>(r, E, O, c, hi);
}

// a^2: the 66 cross products once, doubled, plus the diagonal (154 + 48
// multiply-adds instead of 288), reduced by redc_dual_add.
CUZK_HD fp_t sqr(const fp_t &a)
{
	uint32_t T[24];
	fp_detail::square_wide(T, a);
	fp_t r;
	redc_dual_add(r.v, T, T + 12);
	return r;
}

// mul and sqr in the parity layout (fp_detail::mont_parity; square_wide_parity
// then redc_parity, whose hi = a²/2^384 < p): the same bytes, fewer register
// moves (counted in msm/fp_impl.cuh).
CUZK_HD fp_t mul_parity(const fp_t &a, const fp_t &b)
{
	fp_t r;
	fp_detail::mont_parity(r.v, a.v, b.v);
	return r;
}

CUZK_HD fp_t sqr_parity(const fp_t &a)
{
	uint32_t T[24];
	fp_detail::square_wide_parity(T, a.v);
	fp_t r;
	fp_detail::redc_parity(r.v, T, T + 12);
	return r;
}

// a·b - c·d with one Montgomery reduction instead of two (the Y of every
// XYZZ addition and doubling has this shape): both products as 768-bit
// integers (mul_wide), their difference, plus p·2^384 when it is negative,
// reduced once.  With a, b, c, d < p the difference is in (-p², p²), so the
// corrected value is in [0, p·2^384) and its high half is below p, which
// is what redc_parity needs to leave it fully reduced: the bytes of
// sub(mul(a, b), mul(c, d)).  This is the real part of fp2.cuh's mul_lazy.
CUZK_HD fp_t mul_sub_parity(const fp_t &a, const fp_t &b, const fp_t &c, const fp_t &d)
{
	uint32_t t0[24], t1[24], e[24];
	fp_detail::mul_wide(t0, a.v, b.v);
	fp_detail::mul_wide(t1, c.v, d.v);
	fp_detail::add_p_masked(e + 12, fp_detail::sub_wide(e, t0, t1));
	fp_t r;
	fp_detail::redc_parity(r.v, e, e + 12);
	return r;
}

// mul with the 768-bit product by one level of Karatsuba
// (fp_detail::mul_wide_kara), then redc_parity: the same bytes (a, b < p).
// Measured against mul_parity only (ff/fp_pipes.cu): in the G1 MSM's
// additions it was 4-5% slower (docs/BENCHMARKS.md, "Karatsuba").
CUZK_HD fp_t mul_kara(const fp_t &a, const fp_t &b)
{
	uint32_t T[24];
	fp_detail::mul_wide_kara(T, a.v, b.v);
	fp_t r;
	fp_detail::redc_parity(r.v, T, T + 12);   // a·b < p·2^384: the high half is below p
	return r;
}

// a·b - c·d as two products (the curve code's generic spelling; the MSM's
// fused form, msm/fp_impl.cuh, computes it with mul_sub_parity).
CUZK_HD fp_t mul_sub(const fp_t &a, const fp_t &b, const fp_t &c, const fp_t &d) { return sub(mul(a, b), mul(c, d)); }

// a^e for a fixed exponent given as 12 little-endian limbs (left to right).
CUZK_HD fp_t pow_limbs(const fp_t &a, const uint32_t e[12])
{
	fp_t r = fp_one();
	for (int i = 11; i >= 0; i--)
		for (int b = 31; b >= 0; b--) {
			r = sqr(r);
			if ((e[i] >> b) & 1)
				r = mul(r, a);
		}
	return r;
}

// 1/a by Fermat (a^(p-2)); 0 maps to 0.  Only for set-up work (test points).
CUZK_HD fp_t inv(const fp_t &a)
{
	uint32_t e[12];
CUZK_UNROLL
	for (int j = 0; j < 12; j++)
		e[j] = fp_detail::P(j);
	e[0] -= 2;   // p - 2: the low limb of p is 0xffffaaab, no borrow
	return pow_limbs(a, e);
}

} // namespace cuzk

#endif
