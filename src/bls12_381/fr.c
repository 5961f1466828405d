// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Fr: the shared field code (field_impl.h) with r, plus inversion, roots of
 * unity and the conversions the file formats need (bytes, decimal strings). */
#include "bls12_381/fr.h"

#include <string.h>

#include "bls12_381/limbs.h"
#include "common/error.h"

#define N 4

const uint64_t FR_MODULUS[4] = {
	0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
	0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL,
};
const fr_t FR_ZERO = { { 0 } };
/* 2^256 mod r */
const fr_t FR_ONE = { {
	0x00000001fffffffeULL, 0x5884b7fa00034802ULL,
	0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL,
} };
/* 2^512 mod r */
static const fr_t FR_R2 = { {
	0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL,
	0x05d314967254398fULL, 0x0748d9d99f59ff11ULL,
} };
static const uint64_t R_MINUS_2[4] = {
	0xfffffffeffffffffULL, 0x53bda402fffe5bfeULL,
	0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL,
};
/* 7^((r-1)/2^32), Montgomery form: a primitive 2^32-th root of unity */
static const fr_t FR_ROOT_2_32 = { {
	0xb9b58d8c5f0e466aULL, 0x5b1b4c801819d7ecULL,
	0x0af53ae352a31e64ULL, 0x5bf3adda19e9b27bULL,
} };

#define F(name) fr_##name
#define F_T fr_t
#define F_N 4
#define F_MODULUS FR_MODULUS
#define F_INV 0xfffffffeffffffffULL    /* -r^(-1) mod 2^64 */
#define F_R2 FR_R2
#define F_ONE FR_ONE
#define F_MUL_ADX fr_mont_mul_adx
#include "bls12_381/field_impl.h"

void fr_pow_u64(fr_t *r, const fr_t *a, uint64_t e)
{
	fr_t acc = FR_ONE, base = *a;
	for (; e; e >>= 1) {
		if (e & 1)
			fr_mul(&acc, &acc, &base);
		fr_sqr(&base, &base);
	}
	*r = acc;
}

/* Fermat: a^(r-2), a fixed sequence of squarings and multiplications by the
 * public exponent, so the time does not depend on a. */
void fr_inv(fr_t *r, const fr_t *a)
{
	fr_pow_limbs(r, a, R_MINUS_2, N);
}

/* Montgomery's trick: prefix products, one inversion, then walk back.
 * Zeros are skipped in the products (and left zero in out). */
void fr_batch_inv(fr_t *out, const fr_t *in, size_t n, fr_t *scratch)
{
	fr_t acc = FR_ONE;
	for (size_t i = 0; i < n; i++) {
		scratch[i] = acc;
		if (!fr_is_zero(&in[i]))
			fr_mul(&acc, &acc, &in[i]);
	}
	fr_inv(&acc, &acc);
	for (size_t i = n; i-- > 0;) {
		if (fr_is_zero(&in[i])) {
			out[i] = FR_ZERO;
			continue;
		}
		fr_t inv_i;
		fr_mul(&inv_i, &acc, &scratch[i]);
		fr_mul(&acc, &acc, &in[i]);
		out[i] = inv_i;
	}
}

int fr_is_one(const fr_t *a)
{
	return limbs_eq(a->l, FR_ONE.l, N);
}

int fr_from_canonical(fr_t *r, const uint64_t canon[4])
{
	if (!limbs_lt(canon, FR_MODULUS, N))
		return -CUZK_E_NONCANONICAL;
	fr_to_mont(r, canon);
	return 0;
}

int fr_from_le_bytes(fr_t *r, const uint8_t in[32])
{
	uint64_t canon[4] = { 0 };
	for (size_t i = 0; i < 32; i++)
		canon[i / 8] |= (uint64_t)in[i] << (8 * (i % 8));
	return fr_from_canonical(r, canon);
}

void fr_to_le_bytes(uint8_t out[32], const fr_t *a)
{
	uint64_t canon[4];
	fr_from_mont(canon, a);
	for (size_t i = 0; i < 32; i++)
		out[i] = (uint8_t)(canon[i / 8] >> (8 * (i % 8)));
}

int fr_from_decimal(fr_t *r, const char *s)
{
	uint64_t acc[4] = { 0 };
	if (!*s)
		return -CUZK_E_FORMAT;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -CUZK_E_FORMAT;
		/* acc = acc·10 + digit; anything past 256 bits is certainly >= r */
		uint64_t carry = (uint64_t)(*s - '0');
		for (size_t i = 0; i < N; i++) {
			limb_wide t = (limb_wide)acc[i] * 10 + carry;
			acc[i] = (uint64_t)t;
			carry = (uint64_t)(t >> 64);
		}
		if (carry)
			return -CUZK_E_NONCANONICAL;
	}
	return fr_from_canonical(r, acc);
}

void fr_to_decimal(char *buf, size_t len, const fr_t *a)
{
	uint64_t v[4];
	char digits[80];
	size_t nd = 0;
	fr_from_mont(v, a);
	do {
		/* v = v / 10, remainder is the next digit (least significant first) */
		uint64_t rem = 0;
		for (size_t i = N; i-- > 0;) {
			limb_wide cur = ((limb_wide)rem << 64) | v[i];
			v[i] = (uint64_t)(cur / 10);
			rem = (uint64_t)(cur % 10);
		}
		digits[nd++] = (char)('0' + rem);
	} while (!limbs_is_zero(v, N));
	if (len == 0)
		return;
	size_t out = 0;
	while (nd > 0 && out + 1 < len)
		buf[out++] = digits[--nd];
	buf[out] = '\0';
}

void fr_root_of_unity(fr_t *r, unsigned log_n)
{
	fr_t w = FR_ROOT_2_32;
	for (unsigned i = log_n; i < FR_TWO_ADICITY; i++)
		fr_sqr(&w, &w);
	*r = w;
}
