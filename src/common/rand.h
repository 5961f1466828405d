// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Randomness: the kernel's CSPRNG for secrets, and a seeded generator for
 * reproducible tests, benchmarks and the insecure development setup. */
#ifndef CUZK_COMMON_RAND_H
#define CUZK_COMMON_RAND_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Fills buf from getrandom(2), retrying short reads and EINTR. */
int rand_getrandom(void *buf, size_t len, cuzk_error *err);

/* Deterministic generator (xoshiro256**, seeded through splitmix64).
 * Not for secrets: only for tests, benchmarks and the dev setup. */
typedef struct rng {
	uint64_t s[4];
} rng_t;

void rng_seed(rng_t *rng, uint64_t seed);
uint64_t rng_next(rng_t *rng);
void rng_bytes(rng_t *rng, void *buf, size_t len);

#endif
