// SPDX-License-Identifier: Apache-2.0 OR MIT
// Fr, the BLS12-381 scalar field, on the device: 8 little-endian 32-bit limbs
// in Montgomery form (x·2^256 mod r), fully reduced to [0, r).  The same bytes
// as the host's fr_t (4 LE u64), so arrays cross the PCIe bus unchanged.
//
// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001.
// r ≡ 1 mod 2^32, so -r^-1 ≡ -1 mod 2^32 and the Montgomery factor of each
// reduction round is just the negated low limb: no multiply.  The low limb of
// r is 1, so that round's first product is an addition.
#ifndef CUZK_CUDA_FF_FR_CUH
#define CUZK_CUDA_FF_FR_CUH

#include <cstdint>

namespace cuzk {

struct fr_t {
	uint32_t v[8];
};
static_assert(sizeof(fr_t) == 32, "fr_t must match the host's 4 x u64 layout");

namespace fr_detail {

// Limb k of the modulus; k is a compile-time constant in every unrolled caller,
// so this folds to an immediate.
__host__ __device__ __forceinline__ constexpr uint32_t mod(int k)
{
	return k == 0 ? 0x00000001u : k == 1 ? 0xffffffffu : k == 2 ? 0xfffe5bfeu
	     : k == 3 ? 0x53bda402u : k == 4 ? 0x09a1d805u : k == 5 ? 0x3339d808u
	     : k == 6 ? 0x299d7d48u : 0x73eda753u;
}

// The carry flag lives between these statements; they are volatile so that
// nothing is scheduled in between that could clobber it.
#define CUZK_PTX3(op, d, a, b) asm volatile(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#define CUZK_PTX4(op, d, a, b, c) asm volatile(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))

// Montgomery reduction of a 512-bit t[16]: returns t·2^-256 mod r in [0, r)
// (t < 2^256·r).  Eight rounds of t += m·r·2^(32i) with m = -t[i]; the carry
// out of each round's top limb is carried in c to the next round's top limb.
__device__ __forceinline__ void redc(uint32_t out[8], uint32_t t[16])
{
	uint32_t c = 0;
#pragma unroll
	for (int i = 0; i < 8; i++) {
		uint32_t m = 0u - t[i];
		uint32_t c1;
		// low halves: t[i] + m·1 = 0 (mod 2^32), carry iff t[i] != 0
		CUZK_PTX3("add.cc.u32", t[i], t[i], m);
#pragma unroll
		for (int j = 1; j < 8; j++)
			CUZK_PTX4("madc.lo.cc.u32", t[i + j], m, mod(j), t[i + j]);
		CUZK_PTX3("addc.cc.u32", t[i + 8], t[i + 8], c);
		CUZK_PTX3("addc.u32", c1, 0, 0);
		// high halves (hi(m·1) = 0, so the chain starts at j = 1)
		CUZK_PTX4("mad.hi.cc.u32", t[i + 2], m, mod(1), t[i + 2]);
#pragma unroll
		for (int j = 2; j < 8; j++)
			CUZK_PTX4("madc.hi.cc.u32", t[i + j + 1], m, mod(j), t[i + j + 1]);
		if (i < 7) {
			CUZK_PTX3("addc.u32", c, c1, 0);
		}
	}
	// t[8..15] < 2r: one conditional subtraction.
	uint32_t d[8], borrow;
	CUZK_PTX3("sub.cc.u32", d[0], t[8], mod(0));
#pragma unroll
	for (int j = 1; j < 8; j++)
		CUZK_PTX3("subc.cc.u32", d[j], t[8 + j], mod(j));
	CUZK_PTX3("subc.u32", borrow, 0, 0);
#pragma unroll
	for (int j = 0; j < 8; j++)
		out[j] = borrow ? t[8 + j] : d[j];
}

} // namespace fr_detail

// a·b·2^-256 mod r.  Product by rows of lo/hi carry chains, then redc.
__device__ __forceinline__ fr_t fr_mul(const fr_t &a, const fr_t &b)
{
	uint32_t t[16];
#pragma unroll
	for (int j = 0; j < 8; j++)
		CUZK_PTX3("mul.lo.u32", t[j], a.v[0], b.v[j]);
	CUZK_PTX4("mad.hi.cc.u32", t[1], a.v[0], b.v[0], t[1]);
#pragma unroll
	for (int j = 1; j < 7; j++)
		CUZK_PTX4("madc.hi.cc.u32", t[j + 1], a.v[0], b.v[j], t[j + 1]);
	CUZK_PTX4("madc.hi.u32", t[8], a.v[0], b.v[7], 0);
#pragma unroll
	for (int i = 1; i < 8; i++) {
		CUZK_PTX4("mad.lo.cc.u32", t[i], a.v[i], b.v[0], t[i]);
#pragma unroll
		for (int j = 1; j < 8; j++)
			CUZK_PTX4("madc.lo.cc.u32", t[i + j], a.v[i], b.v[j], t[i + j]);
		CUZK_PTX3("addc.u32", t[i + 8], 0, 0);
		CUZK_PTX4("mad.hi.cc.u32", t[i + 1], a.v[i], b.v[0], t[i + 1]);
#pragma unroll
		for (int j = 1; j < 7; j++)
			CUZK_PTX4("madc.hi.cc.u32", t[i + j + 1], a.v[i], b.v[j], t[i + j + 1]);
		CUZK_PTX4("madc.hi.u32", t[i + 8], a.v[i], b.v[7], t[i + 8]);
	}
	fr_t r;
	fr_detail::redc(r.v, t);
	return r;
}

// a^2: the 28 cross products once, doubled by a shift chain, plus the
// diagonal (36 products instead of 64).
__device__ __forceinline__ fr_t fr_sqr(const fr_t &a)
{
	uint32_t t[16];
	t[0] = 0;
#pragma unroll
	for (int j = 1; j < 8; j++)
		CUZK_PTX3("mul.lo.u32", t[j], a.v[0], a.v[j]);
	CUZK_PTX4("mad.hi.cc.u32", t[2], a.v[0], a.v[1], t[2]);
#pragma unroll
	for (int j = 2; j < 7; j++)
		CUZK_PTX4("madc.hi.cc.u32", t[j + 1], a.v[0], a.v[j], t[j + 1]);
	CUZK_PTX4("madc.hi.u32", t[8], a.v[0], a.v[7], 0);
#pragma unroll
	for (int i = 1; i < 7; i++) {
		CUZK_PTX4("mad.lo.cc.u32", t[2 * i + 1], a.v[i], a.v[i + 1], t[2 * i + 1]);
#pragma unroll
		for (int j = i + 2; j < 8; j++)
			CUZK_PTX4("madc.lo.cc.u32", t[i + j], a.v[i], a.v[j], t[i + j]);
		CUZK_PTX3("addc.u32", t[i + 8], 0, 0);
		if (i < 6) {
			CUZK_PTX4("mad.hi.cc.u32", t[2 * i + 2], a.v[i], a.v[i + 1], t[2 * i + 2]);
#pragma unroll
			for (int j = i + 2; j < 7; j++)
				CUZK_PTX4("madc.hi.cc.u32", t[i + j + 1], a.v[i], a.v[j], t[i + j + 1]);
			CUZK_PTX4("madc.hi.u32", t[i + 8], a.v[i], a.v[7], t[i + 8]);
		} else {
			CUZK_PTX4("mad.hi.u32", t[14], a.v[6], a.v[7], t[14]);
		}
	}
	// double the cross products
	CUZK_PTX3("add.cc.u32", t[1], t[1], t[1]);
#pragma unroll
	for (int j = 2; j < 15; j++)
		CUZK_PTX3("addc.cc.u32", t[j], t[j], t[j]);
	CUZK_PTX3("addc.u32", t[15], 0, 0);
	// add the squares a_i^2 at 2i
	CUZK_PTX4("mad.lo.cc.u32", t[0], a.v[0], a.v[0], t[0]);
	CUZK_PTX4("madc.hi.cc.u32", t[1], a.v[0], a.v[0], t[1]);
#pragma unroll
	for (int i = 1; i < 7; i++) {
		CUZK_PTX4("madc.lo.cc.u32", t[2 * i], a.v[i], a.v[i], t[2 * i]);
		CUZK_PTX4("madc.hi.cc.u32", t[2 * i + 1], a.v[i], a.v[i], t[2 * i + 1]);
	}
	CUZK_PTX4("madc.lo.cc.u32", t[14], a.v[7], a.v[7], t[14]);
	CUZK_PTX4("madc.hi.u32", t[15], a.v[7], a.v[7], t[15]);
	fr_t r;
	fr_detail::redc(r.v, t);
	return r;
}

__device__ __forceinline__ fr_t fr_add(const fr_t &a, const fr_t &b)
{
	// a + b < 2r < 2^256: no carry out; subtract r unless that borrows.
	uint32_t s[8], d[8], borrow;
	CUZK_PTX3("add.cc.u32", s[0], a.v[0], b.v[0]);
#pragma unroll
	for (int j = 1; j < 7; j++)
		CUZK_PTX3("addc.cc.u32", s[j], a.v[j], b.v[j]);
	CUZK_PTX3("addc.u32", s[7], a.v[7], b.v[7]);
	CUZK_PTX3("sub.cc.u32", d[0], s[0], fr_detail::mod(0));
#pragma unroll
	for (int j = 1; j < 8; j++)
		CUZK_PTX3("subc.cc.u32", d[j], s[j], fr_detail::mod(j));
	CUZK_PTX3("subc.u32", borrow, 0, 0);
	fr_t r;
#pragma unroll
	for (int j = 0; j < 8; j++)
		r.v[j] = borrow ? s[j] : d[j];
	return r;
}

__device__ __forceinline__ fr_t fr_sub(const fr_t &a, const fr_t &b)
{
	// a - b; on a borrow add r back (mask instead of a branch).
	uint32_t d[8], borrow;
	CUZK_PTX3("sub.cc.u32", d[0], a.v[0], b.v[0]);
#pragma unroll
	for (int j = 1; j < 8; j++)
		CUZK_PTX3("subc.cc.u32", d[j], a.v[j], b.v[j]);
	CUZK_PTX3("subc.u32", borrow, 0, 0);
	fr_t r;
	CUZK_PTX3("add.cc.u32", r.v[0], d[0], fr_detail::mod(0) & borrow);
#pragma unroll
	for (int j = 1; j < 7; j++)
		CUZK_PTX3("addc.cc.u32", r.v[j], d[j], fr_detail::mod(j) & borrow);
	CUZK_PTX3("addc.u32", r.v[7], d[7], fr_detail::mod(7) & borrow);
	return r;
}

#undef CUZK_PTX3
#undef CUZK_PTX4

// Constants in Montgomery form.
__host__ __device__ __forceinline__ fr_t fr_zero()
{
	return fr_t{{0, 0, 0, 0, 0, 0, 0, 0}};
}

__host__ __device__ __forceinline__ fr_t fr_one()
{
	return fr_t{{0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau, 0xecbc4ff5u, 0x998c4fefu,
		     0xacc5056fu, 0x1824b159u}};
}

// 2^512 mod r: fr_mul(x, R2) takes canonical x into Montgomery form.
__host__ __device__ __forceinline__ fr_t fr_r2()
{
	return fr_t{{0xf3f29c6du, 0xc999e990u, 0x87925c23u, 0x2b6cedcbu, 0x7254398fu, 0x05d31496u,
		     0x9f59ff11u, 0x0748d9d9u}};
}

// A primitive 2^28-th root of unity, 7^((r-1)/2^32) squared four times: the
// same root the CPU's fr_root_of_unity(28) gives, so both NTTs agree.
__host__ __device__ __forceinline__ fr_t fr_omega_2_28(bool inverse)
{
	return inverse ? fr_t{{0x7b483997u, 0x25909fe2u, 0x3f40368fu, 0xe6c3383bu, 0xdfbf158fu,
			       0xe7a72791u, 0x90ca2226u, 0x2bccc288u}}
		       : fr_t{{0x8d27bcb7u, 0x2c75ff0bu, 0x4413b9d7u, 0x00fc392eu, 0x8752020fu,
			       0xef31d1fdu, 0xe7a75dc5u, 0x6d5074c8u}};
}

// The coset shift g = 7 and g^-1.
__host__ __device__ __forceinline__ fr_t fr_coset_gen(bool inverse)
{
	return inverse ? fr_t{{0xdb6db6dcu, 0xdb6db6dau, 0xdb6cc6dau, 0xe6b5824au, 0x05810db9u,
			       0xf8b356e0u, 0x60ec4796u, 0x66d0f1e6u}}
		       : fr_t{{0xfffffff1u, 0x0000000eu, 0x00189c0fu, 0x17e363d3u, 0x6f8457b0u,
			       0xff9c5787u, 0x8fc5a8c4u, 0x35133220u}};
}

#define CUZK_FR_LOG_MAX 28    // largest NTT domain the root above supports

__device__ __forceinline__ fr_t fr_pow(fr_t base, uint64_t e)
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
__device__ __forceinline__ fr_t fr_inv(const fr_t &a)
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
__host__ __device__ __forceinline__ fr_t fr_half()
{
	return fr_t{{0xffffffffu, 0x00000000u, 0x0001a401u, 0xac425bfdu, 0xf65e27fau, 0xccc627f7u,
		     0xd66282b7u, 0x0c1258acu}};
}

// Canonical (plain integer < r) to Montgomery and back.
__device__ __forceinline__ fr_t fr_to_mont(const fr_t &a)
{
	return fr_mul(a, fr_r2());
}

__device__ __forceinline__ fr_t fr_from_mont(const fr_t &a)
{
	return fr_mul(a, fr_t{{1, 0, 0, 0, 0, 0, 0, 0}});
}

__device__ __forceinline__ bool fr_is_zero(const fr_t &a)
{
	uint32_t x = 0;
#pragma unroll
	for (int j = 0; j < 8; j++)
		x |= a.v[j];
	return x == 0;
}

} // namespace cuzk

#endif
