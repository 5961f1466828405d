// SPDX-License-Identifier: Apache-2.0 OR MIT
// The device's binary-GCD inversion in Fp (cuda/ff/fp_inverse.cuh) on the
// CPU against src/bls12_381's fp_inv: random values, values with many
// factors of 2 (long strips), the edges of the field (1, 2, p - 1, p - 2,
// the Montgomery one, powers of 2), and 0 (which maps to 0).  Runs in
// every build (no GPU needed).
#include <cstdint>
#include <cstring>

#include "ff/fp_inverse.cuh"

extern "C" {
#include "bls12_381/fp.h"
#include "common/rand.h"
}

#include "../../tests/check.h"

namespace {

static_assert(sizeof(cuzk::fp_t) == sizeof(::fp_t), "device and host Fp share one layout");

unsigned checked;

// a as the raw limbs of a Montgomery value (any integer below p).
void check_inverse(const ::fp_t &a, const char *what)
{
	cuzk::fp_t d;
	std::memcpy(&d, &a, sizeof d);
	const cuzk::fp_t got = cuzk::inverse_gcd(d);
	::fp_t want;
	fp_inv(&want, &a);
	CHECK_MSG(std::memcmp(&got, &want, sizeof want) == 0, "%s: 1/a differs from fp_inv (limb 0 of a %016llx)",
		  what, (unsigned long long)a.l[0]);
	checked++;
}

::fp_t limbs(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3, uint64_t l4, uint64_t l5)
{
	::fp_t a;
	a.l[0] = l0, a.l[1] = l1, a.l[2] = l2, a.l[3] = l3, a.l[4] = l4, a.l[5] = l5;
	return a;
}

} // namespace

int main()
{
	const ::fp_t p = limbs(0xb9feffffffffaaabull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull,
			       0x64774b84f38512bfull, 0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull);
	::fp_t e = limbs(1, 0, 0, 0, 0, 0);
	check_inverse(e, "1");
	e.l[0] = 2;
	check_inverse(e, "2");
	e = p;
	e.l[0] -= 1;
	check_inverse(e, "p - 1");
	e.l[0] -= 1;
	check_inverse(e, "p - 2");
	fp_from_u64(&e, 1);
	check_inverse(e, "the Montgomery one");
	for (int k = 1; k < 381; k += 7) {   // 2^k: a strip of k bits first
		e = limbs(0, 0, 0, 0, 0, 0);
		e.l[k / 64] = 1ull << (k % 64);
		check_inverse(e, "a power of 2");
	}
	::fp_t zero = limbs(0, 0, 0, 0, 0, 0);
	cuzk::fp_t dz;
	std::memcpy(&dz, &zero, sizeof dz);
	CHECK_MSG(cuzk::is_zero(cuzk::inverse_gcd(dz)), "1/0 is not 0");

	rng_t rng;
	rng_seed(&rng, 0x1a0111ea);
	for (int i = 0; i < 4000; i++) {
		::fp_t a;
		for (int j = 0; j < 6; j++)
			a.l[j] = rng_next(&rng);
		a.l[5] &= 0x0fffffffffffffffull;   // below p
		if (i % 4 == 1)                     // many factors of 2
			a.l[0] &= ~0ull << (rng_next(&rng) % 64);
		if (i % 4 == 2)                     // small values: long runs of subtractions
			a = limbs(rng_next(&rng) | 1, 0, 0, 0, 0, 0);
		if (fp_is_zero(&a))
			continue;
		check_inverse(a, i % 4 == 1 ? "random, low bits cleared" : i % 4 == 2 ? "small" : "random");
	}
	if (check_failures)
		fprintf(stderr, "%d of %u inversions failed\n", check_failures, checked);
	return check_failures ? 1 : 0;
}
