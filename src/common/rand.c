// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "common/rand.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

int rand_getrandom(void *buf, size_t len, cuzk_error *err)
{
	uint8_t *p = buf;
	while (len > 0) {
		ssize_t n = getrandom(p, len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return err_fail_errno(err, errno, "getrandom");
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(rng_t *rng, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(rng_t *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

void rng_bytes(rng_t *rng, void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len > 0) {
		uint64_t v = rng_next(rng);
		size_t k = len < 8 ? len : 8;
		memcpy(p, &v, k);
		p += k;
		len -= k;
	}
}
