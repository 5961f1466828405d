// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Random field elements for the tests of src/bls12_381 (seeded, reproducible). */
#ifndef CUZK_BLS_TEST_RAND_H
#define CUZK_BLS_TEST_RAND_H

#include "bls12_381/fp2.h"
#include "bls12_381/fr.h"
#include "common/rand.h"

/* Uniform below the modulus by rejection: draw limbs, mask to the modulus's
 * bit length, retry while >= modulus. */
static inline void rand_below(rng_t *rng, uint64_t *out, const uint64_t *mod, size_t n, uint64_t top_mask)
{
	for (;;) {
		for (size_t i = 0; i < n; i++)
			out[i] = rng_next(rng);
		out[n - 1] &= top_mask;
		int lt = 0;
		for (size_t i = n; i-- > 0;) {
			if (out[i] != mod[i]) {
				lt = out[i] < mod[i];
				break;
			}
		}
		if (lt)
			return;
	}
}

static inline void rand_fp(rng_t *rng, fp_t *r)
{
	uint64_t c[6];
	rand_below(rng, c, FP_MODULUS, 6, (1ULL << 61) - 1);
	fp_to_mont(r, c);
}

static inline void rand_fr(rng_t *rng, fr_t *r)
{
	uint64_t c[4];
	rand_below(rng, c, FR_MODULUS, 4, (1ULL << 63) - 1);
	fr_to_mont(r, c);
}

static inline void rand_fp2(rng_t *rng, fp2_t *r)
{
	rand_fp(rng, &r->c0);
	rand_fp(rng, &r->c1);
}

#endif
