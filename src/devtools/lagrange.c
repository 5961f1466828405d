// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "devtools/lagrange.h"

#include "common/parallel.h"

struct lagrange_ctx {
	fr_t *out;
	const ntt_domain *d;
	fr_t tau;
	fr_t scale;      /* (τ^m - 1)/m */
};

/* Indices [begin, end): the denominators' running products in out (the
 * forward pass), one inversion, then each 1/(τ - ω^i) peeled off the
 * product backwards while ω^i steps down by ω^-1. */
static void lagrange_range(void *arg, size_t begin, size_t end, unsigned thread)
{
	(void)thread;
	struct lagrange_ctx *c = arg;
	fr_t w, prod = FR_ONE, den;
	fr_pow_u64(&w, &c->d->omega, begin);
	for (size_t i = begin; i < end; i++) {
		fr_sub(&den, &c->tau, &w);
		fr_mul(&prod, &prod, &den);
		c->out[i] = prod;
		fr_mul(&w, &w, &c->d->omega);
	}
	/* scale / Π (τ - ω^i) over the run: the scale rides along with the
	 * inverse, so each inv_den below is already scale / (τ - ω^i). */
	fr_t inv;
	fr_inv(&inv, &prod);
	fr_mul(&inv, &inv, &c->scale);
	for (size_t i = end; i-- > begin;) {
		fr_mul(&w, &w, &c->d->omega_inv);   /* ω^i */
		fr_t inv_den = inv;
		if (i > begin)
			fr_mul(&inv_den, &inv, &c->out[i - 1]);
		fr_sub(&den, &c->tau, &w);
		fr_mul(&inv, &inv, &den);
		fr_mul(&c->out[i], &w, &inv_den);
	}
}

void lagrange_at_by_ntt(fr_t *out, const ntt_domain *d, const fr_t *tau)
{
	for (size_t i = 0; i < d->m; i++)
		out[i] = FR_ONE;
	ntt_scale_by_powers(out, d->m, &FR_ONE, tau);
	ntt_inverse(d, out);
}

void lagrange_at(fr_t *out, const ntt_domain *d, const fr_t *tau)
{
	struct lagrange_ctx c = { .out = out, .d = d, .tau = *tau };
	fr_pow_u64(&c.scale, tau, d->m);
	fr_sub(&c.scale, &c.scale, &FR_ONE);
	if (fr_is_zero(&c.scale)) {
		lagrange_at_by_ntt(out, d, tau);
		return;
	}
	fr_mul(&c.scale, &c.scale, &d->m_inv);
	parallel_for(d->m, (size_t)1 << 14, 0, lagrange_range, &c);
}
