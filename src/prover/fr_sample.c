// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "prover/fr_sample.h"

#include <string.h>

#include "prover/scalar_digits.h"

/* 1 iff the draw is accepted; then ret holds it in Montgomery form. */
static int accept_draw(fr_t *ret, uint64_t limbs[4])
{
	limbs[3] &= 0x7fffffffffffffffull;
	int ok = sd_below_modulus(limbs) && (limbs[0] | limbs[1] | limbs[2] | limbs[3]) != 0;
	if (ok)
		fr_to_mont(ret, limbs);
	explicit_bzero(limbs, 4 * sizeof(uint64_t));
	return ok;
}

void fr_sample_rng(fr_t *ret, rng_t *rng)
{
	uint64_t limbs[4];
	do {
		for (int i = 0; i < 4; i++)
			limbs[i] = rng_next(rng);
	} while (!accept_draw(ret, limbs));
}

int fr_sample_getrandom(fr_t *ret, cuzk_error *err)
{
	uint64_t limbs[4];
	do {
		int rc = rand_getrandom(limbs, sizeof(limbs), err);
		if (rc)
			return rc;
	} while (!accept_draw(ret, limbs));
	return 0;
}
