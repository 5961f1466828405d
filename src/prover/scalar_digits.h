// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Signed-digit windows of scalars below r, shared by Pippenger (msm.c) and
 * the fixed-base tables of the development setup (fixed_base.c).
 *
 * A scalar k < r < 2^255 is cut into W = floor(255/c) + 1 windows of c bits.
 * Adding OFF = sum over w < W-1 of 2^(w·c + c-1) once turns the plain windows
 * of k' = k + OFF into signed digits:
 *   d_w = window_w(k') - 2^(c-1)   for w < W-1,
 *   d_{W-1} = window_{W-1}(k'),
 * so that k = sum d_w·2^(w·c) with -2^(c-1) <= d_w <= 2^(c-1).  Each window
 * then needs only 2^(c-1) buckets (or table entries), indexed by |d_w| - 1,
 * and no carry has to travel between windows at run time.  k' < 2^256
 * because OFF < 2^((W-1)·c) <= 2^255, and the top digit is at most 2^(c-1)
 * because (W-1)·c >= 256 - c. */
#ifndef CUZK_PROVER_SCALAR_DIGITS_H
#define CUZK_PROVER_SCALAR_DIGITS_H

#include <stdint.h>

#include "bls12_381/fr.h"

#define SD_MAX_WINDOW_BITS 20

/* Scalars below 2^bits need floor(bits/c) + 1 windows: the argument above
 * with 255 replaced by bits (the GLV halves below have bits = 128). */
static inline unsigned sd_num_windows_bits(unsigned c, unsigned bits)
{
	return bits / c + 1;
}

static inline unsigned sd_num_windows(unsigned c)
{
	return sd_num_windows_bits(c, 255);
}

/* OFF for window width c (1 <= c <= SD_MAX_WINDOW_BITS) and scalars below
 * 2^bits (bits <= 255). */
static inline void sd_offset_bits(uint64_t off[4], unsigned c, unsigned bits)
{
	unsigned nwin = sd_num_windows_bits(c, bits);
	off[0] = off[1] = off[2] = off[3] = 0;
	for (unsigned w = 0; w + 1 < nwin; w++) {
		unsigned bit = w * c + c - 1;
		off[bit / 64] |= (uint64_t)1 << (bit % 64);
	}
}

static inline void sd_offset(uint64_t off[4], unsigned c)
{
	sd_offset_bits(off, c, 255);
}

/* out = k + off; k < 2^255 and off < 2^255, so the sum fits in 256 bits. */
static inline void sd_recode(uint64_t out[4], const uint64_t k[4], const uint64_t off[4])
{
	unsigned __int128 acc = 0;
	for (int i = 0; i < 4; i++) {
		acc += (unsigned __int128)k[i] + off[i];
		out[i] = (uint64_t)acc;
		acc >>= 64;
	}
}

/* The signed digit of window w of a recoded scalar. */
static inline int sd_digit(const uint64_t kp[4], unsigned w, unsigned c, unsigned nwin)
{
	unsigned bit = w * c, limb = bit / 64, sh = bit % 64;
	uint64_t v = kp[limb] >> sh;
	if (sh + c > 64 && limb < 3)
		v |= kp[limb + 1] << (64 - sh);
	v &= ((uint64_t)1 << c) - 1;
	if (w + 1 == nwin)
		return (int)v;
	return (int)v - (1 << (c - 1));
}

/* 1 iff the canonical limbs are < r (the only scalars the recoding accepts). */
static inline int sd_below_modulus(const uint64_t k[4])
{
	for (int i = 3; i >= 0; i--) {
		if (k[i] != FR_MODULUS[i])
			return k[i] < FR_MODULUS[i];
	}
	return 0;
}

/* GLV split for G1 (g1_aff_phi acts as -x^2, x the curve parameter):
 * k = k2·x^2 + k1 with 0 <= k1 < x^2 and k2 = floor(k/x^2), both below
 * 2^128 for k < r (x^2 < 2^128 and r < x^4), so that
 * k·P = k1·P + k2·(-phi(P)).  k2 comes from Barrett's estimate
 * floor(k·m / 2^256), m = floor(2^256 / x^2), which is k2 or k2 - 1;
 * one conditional correction fixes it. */
static const uint64_t SD_GLV_X2[2] = { 0x0000000100000000ULL, 0xac45a4010001a402ULL };
static const uint64_t SD_GLV_M[3] = { 0x63f6e522f6cfee2eULL, 0x7c6becf1e01faaddULL, 0x1ULL };

static inline void sd_glv_split(uint64_t k1[4], uint64_t k2[4], const uint64_t k[4])
{
	/* k·m: 4 × 3 limbs; only limbs 4 and 5 (bits 256..383) are kept. */
	uint64_t prod[7] = { 0 };
	for (int i = 0; i < 4; i++) {
		unsigned __int128 carry = 0;
		for (int j = 0; j < 3; j++) {
			carry += (unsigned __int128)k[i] * SD_GLV_M[j] + prod[i + j];
			prod[i + j] = (uint64_t)carry;
			carry >>= 64;
		}
		prod[i + 3] = (uint64_t)carry;
	}
	uint64_t q[2] = { prod[4], prod[5] };
	/* rem = k - q·x^2, below 2·x^2 < 2^129: three limbs are enough. */
	uint64_t qx[3];
	unsigned __int128 acc = (unsigned __int128)q[0] * SD_GLV_X2[0];
	qx[0] = (uint64_t)acc;
	acc >>= 64;
	acc += (unsigned __int128)q[0] * SD_GLV_X2[1];
	unsigned __int128 acc2 = (unsigned __int128)q[1] * SD_GLV_X2[0] + (uint64_t)acc;
	qx[1] = (uint64_t)acc2;
	qx[2] = (uint64_t)(acc >> 64) + (uint64_t)(acc2 >> 64) + q[1] * SD_GLV_X2[1];
	uint64_t rem[3];
	unsigned char borrow = 0;
	for (int i = 0; i < 3; i++) {
		uint64_t d = k[i] - qx[i] - borrow;
		borrow = (unsigned char)(k[i] < qx[i] || (k[i] == qx[i] && borrow));
		rem[i] = d;
	}
	/* rem >= x^2: one more multiple of x^2 fits. */
	if (rem[2] || rem[1] > SD_GLV_X2[1] || (rem[1] == SD_GLV_X2[1] && rem[0] >= SD_GLV_X2[0])) {
		unsigned __int128 t = (unsigned __int128)rem[0] - SD_GLV_X2[0];
		rem[0] = (uint64_t)t;
		rem[1] = rem[1] - SD_GLV_X2[1] - (uint64_t)((t >> 64) & 1);
		rem[2] = 0;
		if (++q[0] == 0)
			q[1]++;
	}
	k1[0] = rem[0];
	k1[1] = rem[1];
	k1[2] = k1[3] = 0;
	k2[0] = q[0];
	k2[1] = q[1];
	k2[2] = k2[3] = 0;
}

#endif
