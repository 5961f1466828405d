// SPDX-License-Identifier: Apache-2.0 OR MIT
// Fp in doubles: the instrument of a measurement (issue 9), used by no
// proof.  The question was whether the H200's FP64 units, 64 DFMAs a clock
// per SM, could multiply beside the integer ones that ff/fp.cuh's product
// keeps busy.  They cannot: measured with cuda/ff/fp_pipes.cu
// (docs/BENCHMARKS.md, "the FP64 units are not a second multiplier"), a
// product in doubles costs 1.09x the integer one and the two kinds run
// together gain at most 6%: IMAD.WIDE and DFMA share the multiplier.
//
// Representation: eight signed radix-2^48 limbs held as doubles,
// value = Σ l[k]·2^(48k), each |l[k]| <= 2^47 ("balanced") when normalised.
// Every limb, every partial product's two parts and every column sum is an
// integer below 2^53, so every operation below is exact; nothing depends on
// the rounding of a result except where a rounding is the point (the split
// of a product at 2^48, by adding it to a constant whose ulp is 2^48).
// Eight limbs of 48 bits make R = 2^384, the Montgomery radix of fp_t, so
// the two forms hold the same Montgomery values and convert limb by limb.
//
// Values may be negative: mul keeps |x| < 2p when |a|, |b| < 2p (a·b + m·p
// over 2^384 is below 4p²/2^384 + p < 2p since 4p < 2^384); to_fp brings
// any such value to canonical [0, p).
//
// Host and device compile the same code (the C library's fma on the CPU, DFMA on the
// GPU, both rounding to nearest), so tests/ff/test_fpd_host checks this
// exact arithmetic on the CPU.
#ifndef CUZK_CUDA_FF_FPD_CUH
#define CUZK_CUDA_FF_FPD_CUH

#include <cstdint>

#include "ff/fp.cuh"

namespace cuzk {

struct fpd_t {
	double l[8];
};

namespace fpd_detail {

// Doubles within 2^99 of SPLIT lie in [2^100, 2^101), whose ulp is 2^48: the
// sum of SPLIT and a product below 2^99 rounds that product to a multiple
// of 2^48 (to nearest, so the remainder is balanced).
constexpr double SPLIT = 0x1.8p100;
constexpr double TWO_M48 = 0x1p-48;
constexpr double TWO_48 = 0x1p48;

// Limb k of p, balanced.
CUZK_HD constexpr double P(int k)
{
	return k == 0 ? -21845.0 : k == 1 ? -86500641359361.0 : k == 2 ? -10839982866433.0
	     : k == 3 ? 113459389855409.0 : k == 4 ? 83034393350847.0 : k == 5 ? 73992301405303.0
	     : k == 6 ? -27924617254986.0 : 28591897852288.0;
}
// -p^-1 mod 2^48, balanced: small (|.| < 2^34), so v·PINV stays below 2^99
// for any column value v (< 2^53) and m needs no reduction of v first.
constexpr double PINV = -12885098499.0;

CUZK_HD double fma_d(double a, double b, double c)
{
#ifdef __CUDA_ARCH__
	return __fma_rn(a, b, c);
#else
	return __builtin_fma(a, b, c);   // not <cmath>: its FP_ZERO macro clashes with bls12_381's
#endif
}

// x·y (|x|, |y| <= 2^47) into a column pair: q, the accumulator of column
// k+1 (kept within 2^99 of SPLIT, in units of column k), takes x·y rounded
// to a multiple of 2^48; lo, column k's small part, takes the remainder
// (|.| <= 2^47).  Four operations, all on the FP64 pipe.
CUZK_HD void mac(double &lo, double &q, double x, double y)
{
	const double nq = fma_d(x, y, q);
	const double d = nq - q;
	lo += fma_d(x, y, -d);
	q = nq;
}

// Column k's value from its two parts: lo + (q - SPLIT)/2^48, exact while
// below 2^53.
CUZK_HD double column(double lo, double q) { return fma_d(q - SPLIT, TWO_M48, lo); }

// v rounded to the nearest multiple of 2^48 (|v| < 2^99).
CUZK_HD double round48(double v) { return (v + SPLIT) - SPLIT; }

// The second product's pieces: a partial product's two parts as the bits
// of doubles in a known binade, which are the parts themselves plus a
// constant, summed as 64-bit integers (off the FP64 pipe).
constexpr double LOW = 0x1.8p52;   // doubles within 2^51 of LOW have ulp 1
constexpr double SPLIT_LOW = SPLIT + LOW;   // exact: bits 51..100
constexpr uint64_t BITS_SPLIT = 0x4638000000000000ull, BITS_LOW = 0x4338000000000000ull;

CUZK_HD uint64_t bits_of(double x)
{
#ifdef __CUDA_ARCH__
	return (uint64_t)__double_as_longlong(x);
#else
	uint64_t u;
	__builtin_memcpy(&u, &x, sizeof u);
	return u;
#endif
}

CUZK_HD double of_bits(uint64_t u)
{
#ifdef __CUDA_ARCH__
	return __longlong_as_double((long long)u);
#else
	double x;
	__builtin_memcpy(&x, &u, sizeof x);
	return x;
#endif
}

// x·y (|x|, |y| <= 2^47) as hi = BITS_SPLIT + round(x·y/2^48) and lo =
// BITS_LOW + the remainder (|.| <= 2^47): two DFMAs and one DADD.  nq is
// SPLIT plus x·y rounded to a multiple of 2^48 (its bits count those
// multiples); SPLIT_LOW - nq is LOW less that multiple, exactly, so the
// second DFMA lands at LOW plus the remainder, in LOW's binade.
CUZK_HD void split_bits(double x, double y, uint64_t &hi, uint64_t &lo)
{
	const double nq = fma_d(x, y, SPLIT);
	hi = bits_of(nq);
	lo = bits_of(fma_d(x, y, SPLIT_LOW - nq));
}

// Pieces a column c of mul_ia receives over the whole product: a remainder
// from each of the two products (a_i·b_j, m_i·p_j) at i + j = c, a
// rounded part from each at i + j = c - 1.
CUZK_HD constexpr uint64_t pieces(int c)
{
	return c < 0 ? 0 : c < 8 ? (uint64_t)(c + 1) : c < 15 ? (uint64_t)(15 - c) : 0;
}
CUZK_HD constexpr uint64_t column_bias(int c)
{
	return 2 * pieces(c) * BITS_LOW + 2 * pieces(c - 1) * BITS_SPLIT;   // modulo 2^64
}

// A balanced integer |v| < 2^51 as a double, off the conversion pipe.
CUZK_HD double small_to_double(int64_t v) { return of_bits(BITS_LOW + (uint64_t)v) - LOW; }

} // namespace fpd_detail

// The same product as mul, with a third fewer FP64 operations: each partial
// product is three (split_bits) instead of four, and the columns are 64-bit
// integer sums of the parts' bits (their constants taken off up front, as
// each column's bias: the sums wrap, the values they stand for do not,
// |column| < 2^52).  Columns by position, unrolled: column i's value goes to
// m through one int-to-double conversion, and after m·p its multiple of
// 2^48 carries into column i + 1 by a shift.  Each column's two pieces of a
// row are added in one three-input 64-bit add.
CUZK_HD fpd_t mul_ia(const fpd_t &a, const fpd_t &b)
{
	using namespace fpd_detail;
	uint64_t A[17];
CUZK_UNROLL
	for (int c = 0; c < 17; c++)
		A[c] = 0 - column_bias(c);
	auto row = [&](int i, double x, auto y) {
		uint64_t prev_hi = 0;
CUZK_UNROLL
		for (int j = 0; j < 8; j++) {
			uint64_t hi, lo;
			split_bits(x, y(j), hi, lo);
			A[i + j] += lo + prev_hi;
			prev_hi = hi;
		}
		A[i + 8] += prev_hi;
	};
CUZK_UNROLL
	for (int i = 0; i < 8; i++) {
		row(i, a.l[i], [&](int j) { return b.l[j]; });
		// Column i lacks one piece now, m·p_0's remainder: its bias back.
		const double v = (double)(int64_t)(A[i] + BITS_LOW);
		const double h = fma_d(v, PINV, SPLIT);
		const double m = fma_d(v, PINV, SPLIT - h);
		row(i, m, [](int j) { return P(j); });
		A[i + 1] += (uint64_t)((int64_t)A[i] >> 48);   // a multiple of 2^48 now
	}
	// Columns 8..16 are the result: balanced limbs, column 16 into the top.
	fpd_t r;
CUZK_UNROLL
	for (int k = 0; k < 7; k++) {
		const int64_t v = (int64_t)A[8 + k];
		const int64_t l = (int64_t)((uint64_t)v << 16) >> 16;   // v's low 48 bits, signed
		A[9 + k] += (uint64_t)((v - l) >> 48);
		r.l[k] = small_to_double(l);
	}
	r.l[7] = small_to_double((int64_t)(A[15] + (A[16] << 48)));
	return r;
}

// a·b·2^-384, |a|, |b| < 2p with normalised limbs; the result the same.
// Operand scanning as CIOS: row i adds a_i·b into columns i..i+8, then m·p
// with m = column i · (-p^-1) mod 2^48, which clears column i; its value
// over 2^48 carries into column i+1.  A column's low parts stay below 2^52
// (at most 16 remainders of 2^47 and a carry) and its accumulator within
// 2^98 of SPLIT (at most 16 rounded products of 2^94).
CUZK_HD fpd_t mul(const fpd_t &a, const fpd_t &b)
{
	using namespace fpd_detail;
	double lo[9], q[9];
CUZK_UNROLL
	for (int k = 0; k < 9; k++) {
		lo[k] = 0;
		q[k] = SPLIT;
	}
CUZK_UNROLL
	for (int i = 0; i < 8; i++) {
CUZK_UNROLL
		for (int j = 0; j < 8; j++)
			mac(lo[j], q[j + 1], a.l[i], b.l[j]);
		const double v = column(lo[0], q[0]);
		const double h = fma_d(v, PINV, SPLIT);
		const double m = fma_d(v, PINV, SPLIT - h);   // v·PINV - (h - SPLIT): balanced, exact
CUZK_UNROLL
		for (int j = 0; j < 8; j++)
			mac(lo[j], q[j + 1], m, P(j));
		// Column 0 is now a multiple of 2^48: carry it, drop it.
		lo[1] = fma_d(column(lo[0], q[0]), TWO_M48, lo[1]);
CUZK_UNROLL
		for (int k = 0; k < 8; k++) {
			lo[k] = lo[k + 1];
			q[k] = q[k + 1];
		}
		lo[8] = 0;
		q[8] = SPLIT;
	}
	// Normalise: each column to a balanced limb, its multiple of 2^48 into
	// the next; column 8 (small) folds into limb 7.
	fpd_t r;
CUZK_UNROLL
	for (int k = 0; k < 8; k++) {
		const double v = column(lo[k], q[k]);
		const double t = round48(v);
		r.l[k] = v - t;
		lo[k + 1] = fma_d(t, TWO_M48, lo[k + 1]);
	}
	r.l[7] = fma_d(column(lo[8], q[8]), TWO_48, r.l[7]);
	return r;
}

// Canonical fp_t (in [0, p)) to balanced limbs: the same value.
CUZK_HD fpd_t fpd_from(const fp_t &x)
{
	fpd_t r;
	int64_t carry = 0;
CUZK_UNROLL
	for (int k = 0; k < 8; k++) {
		// Bits [48k, 48k + 48): within 32-bit limbs w and w + 1.
		const int bit = 48 * k, w = bit / 32, sh = bit % 32;
		const uint64_t lo64 = (uint64_t)x.v[w] | ((uint64_t)x.v[w + 1] << 32);
		int64_t s = (int64_t)((lo64 >> sh) & ((1ull << 48) - 1)) + carry;
		carry = 0;
		if (k < 7 && s >= ((int64_t)1 << 47)) {
			s -= (int64_t)1 << 48;
			carry = 1;
		}
		r.l[k] = (double)s;
	}
	return r;
}

// Any value |x| < 2p with integral limbs below 2^53 to canonical fp_t.
CUZK_HD fp_t fpd_to(const fpd_t &x)
{
	// Limbs in [0, 2^48) with a signed carry out of the top: x = X + c·2^384.
	uint64_t u[8];
	int64_t carry = 0;
CUZK_UNROLL
	for (int k = 0; k < 8; k++) {
		const int64_t v = (int64_t)x.l[k] + carry;
		u[k] = (uint64_t)v & ((1ull << 48) - 1);
		carry = (v - (int64_t)u[k]) / ((int64_t)1 << 48);
	}
	fp_t r;
CUZK_UNROLL
	for (int w = 0; w < 12; w++) {
		const int bit = 32 * w, k = bit / 48, sh = bit % 48;
		uint64_t v = u[k] >> sh;
		if (sh > 16 && k + 1 < 8)
			v |= u[k + 1] << (48 - sh);
		r.v[w] = (uint32_t)v;
	}
	// x in (-2p, 2p): carry -1 means x = X - 2^384, and X + 2p mod 2^384 is
	// x + 2p, in [0, 2p); carry 0 means x = X, in [0, 2p).
	if (carry < 0) {
		uint32_t p[12];
CUZK_UNROLL
		for (int w = 0; w < 12; w++)
			p[w] = fp_detail::P(w);
		fp_detail::add_limbs<12>(r.v, r.v, p);   // twice: + 2p
		fp_detail::add_limbs<12>(r.v, r.v, p);
	}
	fp_detail::reduce_once(r.v, r.v);
	return r;
}

} // namespace cuzk

#endif
