// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Uniform non-zero scalars, from the kernel or from a seeded generator.
 *
 * A draw is 4 u64 values taken as little-endian limbs with the top bit
 * cleared (a number below 2^255); it is rejected and drawn again while it is
 * >= r or 0, so the accepted value is uniform in [1, r).  It is returned in
 * Montgomery form.  The seeded variant is part of documented derivations
 * (groth16_seeded_rs, the development setup): do not change it. */
#ifndef CUZK_PROVER_FR_SAMPLE_H
#define CUZK_PROVER_FR_SAMPLE_H

#include "bls12_381/fr.h"
#include "common/error.h"
#include "common/rand.h"

void fr_sample_rng(fr_t *ret, rng_t *rng);
int fr_sample_getrandom(fr_t *ret, cuzk_error *err);

#endif
