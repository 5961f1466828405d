// SPDX-License-Identifier: Apache-2.0 OR MIT
// Products of N-limb integers (32-bit limbs, N even: 12 for Fp, ff/fp.cuh;
// 8 for Fr, ff/fr.cuh) and Montgomery reductions in the "parity layout".
//
// A 2N-limb running value is held in two accumulators: A[k] is limb k and
// B[k] limb k + 1, both kept in place (no limb is ever renamed).  A partial
// product x_j·y at limbs (i + j, i + j + 1) then always lands on a pair
// (A[2n], A[2n + 1]) or (B[2n], B[2n + 1]): for i + j even in A, odd in B.
// So row i (x·y·2^(32i)) is two chains of N/2 products on disjoint pairs,
// independent of each other, and each mad.lo/madc.hi pair of a chain fuses
// into one 64-bit multiply-add (IMAD.WIDE) on an aligned register pair.  A
// layout that renames limbs as it goes (fp.cuh's mul, a shifting window)
// re-pairs registers with a move per limb and step; one that adds each
// product's halves in separate lo and hi chains (fr.cuh's mont_mul) cannot
// fuse them and spends two adds per product.
//
// Carries.  The chain of x's even limbs (the one from limb i) ends at limb
// i + N - 1 and carries into limb i + N, which no row before has passed,
// and which the later rows' chains take in as an ordinary addend.  The
// chain of x's odd limbs ends at limb i + N, the highest limb any row up
// to i reaches; it needs no carry out as long as its accumulator's value
// stays below 2^(32(i + N + 1)), which holds for:
// - rows of one product (row0, then row): what the odd chain's accumulator
//   holds after row i is x_odd·Y + x_even·Y', x_odd = Σ_(j odd) x_j·2^(32j)
//   <= 2^32(2^(32N) - 1)/(2^32 + 1), Y = Σ y_r·2^(32r) over the rows r <= i
//   of i's parity < 2^(32(i + 2))/(2^32 + 1), so x_odd·Y < 2^(32(i + N +
//   1))/(1 + 2^-32)^2 < 2^(32(i + N + 1))(1 - 2^-32); x_even < 2^(32(N - 1))
//   (its top limb is x_(N-2)) and Y' (the rows of the other parity, below
//   i) < 2^(32i), so the rest is below 2^(32(i + N)): any x, y < 2^(32N);
// - a reduction of lo < 2^(32N) held in A from the start (redc_step): the
//   same, plus lo (the odd chain is in A at odd i >= 1 only, where lo <=
//   2^(32(i + N - 1))) and the folded carries (below 2^(32i + 1)): any
//   modulus;
// - a product with the reduction fused in (mont): a·b's rows as above,
//   their rest now with the reduction's rows of the other parity and those
//   of i's parity before i (each below 2^(32(i + N - 1))); the reduction's
//   rows add M_odd·m_i·2^(32i), and then a_odd·Y_b + M_odd·Y_m + rest <
//   (a + M)·2^(32(i + 1)) + 2^(32(i + N)) fits when a + M <= 2^(32N) -
//   2^(32(N - 1)) (Fp: a, p < 2^383).  Otherwise (Fr: r > 2^254, a up to
//   2^256) the reduction rows' odd chain carries out, odd_carry, into limb
//   i + N + 1 of its accumulator, which nothing has reached (the rows up
//   to i end at limb i + N, step i - 1's carry out went to limb i + N of
//   the other accumulator).
#ifndef CUZK_CUDA_FF_PARITY_CUH
#define CUZK_CUDA_FF_PARITY_CUH

#include <cstdint>

#include "ff/carry.cuh"
#include "ff/hd.cuh"

namespace cuzk {
namespace parity {

CUZK_HD uint32_t mulhi(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
	return __umulhi(a, b);
#else
	return (uint32_t)(((uint64_t)a * b) >> 32);
#endif
}

// acc[0..2n-1] += Σ_k x(k)·y·2^(64k), k < n <= 6: n products on disjoint
// limb pairs, so one carry chain of mad.lo/madc.hi; carry_out: its carry
// goes into acc[2n], else the caller's bound says there is none.  With cin
// the chain continues that one and takes its carry in at acc[0].  x(k)
// folds to a register or, for a modulus, an immediate; n, carry_out and cin
// are constants in every unrolled caller, so the tests fold away.  (Each
// product as one 64-bit multiply whose halves are added was tried for Fp:
// G2 2^24 on the H200, 509 ms against 456 ms with this form.)
template <class X>
CUZK_HD void mac_pairs(uint32_t *acc, X x, uint32_t y, int n, bool carry_out, carry_chain *cin = nullptr)
{
	carry_chain own;
	carry_chain &ch = cin ? *cin : own;
	acc[0] = cin ? ch.madc_lo_cc(x(0), y, acc[0]) : ch.mad_lo_cc(x(0), y, acc[0]);
CUZK_UNROLL
	for (int k = 0; k < 6; k++) {
		if (k >= n)
			break;
		if (k)
			acc[2 * k] = ch.madc_lo_cc(x(k), y, acc[2 * k]);
		if (k < n - 1 || carry_out)
			acc[2 * k + 1] = ch.madc_hi_cc(x(k), y, acc[2 * k + 1]);
		else
			acc[2 * k + 1] = ch.madc_hi(x(k), y, acc[2 * k + 1]);
	}
	if (carry_out)
		acc[2 * n] = ch.addc(acc[2 * n], 0);
}

// Row i, for i >= 1: A, B += x·y·2^(32i) (x N limbs given as x(j), y one
// limb), the chain of x's even limbs carrying out, that of its odd limbs
// when odd_carry (see above).
//
// fold: the row is a Montgomery step that leaves limb i at 0 mod 2^32, and
// limb i is A[i] + B[i - 1] (the other chain does not reach it).  Its carry
// (one bit: two limbs sum below 2^33) belongs to limb i + 1, where the odd
// chain starts: one add.cc after the even chain, whose flag the odd chain
// takes in, so limb i + 1 is again A[i + 1] + B[i] alone.  The odd chain
// then waits for the even one's lowest product; unfolded rows keep the two
// chains independent (and in the order ptxas schedules best for Fp2).
template <int N, class X>
CUZK_HD void row(uint32_t A[2 * N], uint32_t B[2 * N - 1], X x, uint32_t y, int i, bool fold = false,
		 bool odd_carry = false)
{
	static_assert(N % 2 == 0 && N <= 12, "two chains of at most six products");
	auto even = [&](int k) { return x(2 * k); };
	auto odd = [&](int k) { return x(2 * k + 1); };
	uint32_t *ev = i & 1 ? B + i - 1 : A + i;
	uint32_t *od = i & 1 ? A + i + 1 : B + i;
	if (!fold) {
		if (i & 1) {
			mac_pairs(od, odd, y, N / 2, odd_carry);
			mac_pairs(ev, even, y, N / 2, true);
		} else {
			mac_pairs(ev, even, y, N / 2, true);
			mac_pairs(od, odd, y, N / 2, odd_carry);
		}
		return;
	}
	carry_chain k;
	mac_pairs(ev, even, y, N / 2, true);
	(void)k.add_cc(A[i], B[i - 1]);
	mac_pairs(od, odd, y, N / 2, odd_carry, &k);
}

// Row 0 into accumulators that hold nothing yet: x·y's products are
// disjoint within each accumulator, so no carries; the limbs above are
// zeroed for the rows after.
template <int N, class X> CUZK_HD void row0(uint32_t A[2 * N], uint32_t B[2 * N - 1], X x, uint32_t y)
{
CUZK_UNROLL
	for (int j = 0; j < N; j += 2) {
		A[j] = x(j) * y;
		A[j + 1] = mulhi(x(j), y);
		B[j] = x(j + 1) * y;
		B[j + 1] = mulhi(x(j + 1), y);
	}
CUZK_UNROLL
	for (int j = N; j < 2 * N; j++)
		A[j] = 0;
CUZK_UNROLL
	for (int j = N; j < 2 * N - 1; j++)
		B[j] = 0;
}

// Step i of a Montgomery reduction modulo M (limbs mod(j), minv = -M^-1 mod
// 2^32): m from limb i, A[i] + B[i - 1] (limb 0: A[0]), m·M·2^(32i) added,
// limb i's carry folded into limb i + 1 (row's fold; limb 0 needs none: the
// chain that adds m·M's low limb to A[0] carries its overflow up itself).
// odd_carry as for row, but never at the last step: there the target limb
// 2N is past the accumulators, and the caller's bound (the reduced value
// times 2^(32N) below 2^(64N)) says the carry is 0.
template <int N, class M>
CUZK_HD void redc_step(uint32_t A[2 * N], uint32_t B[2 * N - 1], M mod, uint32_t minv, int i,
		       bool odd_carry = false)
{
	const uint32_t m = (i ? A[i] + B[i - 1] : A[0]) * minv;
	row<N>(A, B, mod, m, i, i > 0, odd_carry && i < N - 1);
}

// t = limbs N..2N-1 of A + B; the caller knows that the sum is below
// 2^(64N): no carry out of limb 2N - 1.
template <int N> CUZK_HD void top_sum(uint32_t t[N], const uint32_t A[2 * N], const uint32_t B[2 * N - 1])
{
	carry_chain s;
	t[0] = s.add_cc(A[N], B[N - 1]);
CUZK_UNROLL
	for (int j = 1; j < N - 1; j++)
		t[j] = s.addc_cc(A[N + j], B[N - 1 + j]);
	t[N - 1] = s.addc(A[2 * N - 1], B[2 * N - 2]);
}

// t = (a·b + m·M)/2^(32N), m = -a·b/M mod 2^(32N): the Montgomery product,
// unreduced, with the reduction fused in.  Step i adds the row a·b_i, then
// m_i·M (redc_step): CIOS order, but no limb renamed.  Row i + 1 of a·b
// needs no m, so it can overlap the latency of step i's m.  The bounds are
// above (odd_carry: whether the reduction rows' odd chain carries out); the
// caller's says that t < 2^(32N).
template <int N, class M>
CUZK_HD void mont(uint32_t t[N], const uint32_t a[N], const uint32_t b[N], M mod, uint32_t minv, bool odd_carry)
{
	uint32_t A[2 * N], B[2 * N - 1];
	auto x = [&](int j) { return a[j]; };
	row0<N>(A, B, x, b[0]);
CUZK_UNROLL
	for (int i = 0; i < N; i++) {
		if (i)
			row<N>(A, B, x, b[i], i);
		redc_step<N>(A, B, mod, minv, i, odd_carry);
	}
	top_sum<N>(t, A, B);
}

} // namespace parity
} // namespace cuzk

#endif
