// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The closed-form Lagrange basis equals the inverse NTT of τ's powers, for
 * every domain size up to 2^16 (runs split over threads from 2^15), at
 * random points, at 0 and 1, and at points of the domain itself (where the
 * closed form would divide by zero and the NTT is taken instead); and the
 * basis sums to 1, as any Lagrange basis does, whatever the reference. */
#include <stdlib.h>

#include "common/rand.h"
#include "devtools/lagrange.h"
#include "prover/fr_sample.h"
#include "tests/check.h"

static void check_at(const ntt_domain *d, const fr_t *tau, const char *what)
{
	fr_t *got = malloc(d->m * sizeof(fr_t)), *want = malloc(d->m * sizeof(fr_t));
	REQUIRE(got && want);
	lagrange_at(got, d, tau);
	lagrange_at_by_ntt(want, d, tau);
	size_t bad = d->m;
	fr_t sum = FR_ZERO;
	for (size_t i = 0; i < d->m; i++) {
		if (bad == d->m && !fr_eq(&got[i], &want[i]))
			bad = i;
		fr_add(&sum, &sum, &got[i]);
	}
	CHECK_MSG(bad == d->m, "2^%u, %s: L_%zu differs from the inverse NTT's", d->log_m, what, bad);
	CHECK_MSG(fr_is_one(&sum), "2^%u, %s: the basis does not sum to 1", d->log_m, what);
	free(got);
	free(want);
}

int main(void)
{
	rng_t rng;
	rng_seed(&rng, 0x1a9);
	for (unsigned k = 1; k <= 16; k++) {
		ntt_domain d;
		cuzk_error err;
		REQUIRE(ntt_domain_init(&d, k, &err) == 0);
		fr_t tau;
		for (int r = 0; r < 2; r++) {
			fr_sample_rng(&tau, &rng);
			check_at(&d, &tau, "random τ");
		}
		check_at(&d, &FR_ZERO, "τ = 0");
		check_at(&d, &FR_ONE, "τ = 1 (in the domain)");
		fr_pow_u64(&tau, &d.omega, d.m - 1);
		check_at(&d, &tau, "τ = ω^(m-1)");
		ntt_domain_free(&d);
	}
	CHECK_DONE();
}
