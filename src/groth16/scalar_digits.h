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
#ifndef CUZK_GROTH16_SCALAR_DIGITS_H
#define CUZK_GROTH16_SCALAR_DIGITS_H

#include <stdint.h>

#include "bls12_381/fr.h"

#define SD_MAX_WINDOW_BITS 20

static inline unsigned sd_num_windows(unsigned c)
{
	return 255 / c + 1;
}

/* OFF for window width c (1 <= c <= SD_MAX_WINDOW_BITS). */
static inline void sd_offset(uint64_t off[4], unsigned c)
{
	unsigned nwin = sd_num_windows(c);
	off[0] = off[1] = off[2] = off[3] = 0;
	for (unsigned w = 0; w + 1 < nwin; w++) {
		unsigned bit = w * c + c - 1;
		off[bit / 64] |= (uint64_t)1 << (bit % 64);
	}
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

#endif
