// SPDX-License-Identifier: Apache-2.0 OR MIT
/* INSECURE development setup (setup.h): the trapdoor is derived from a seed. */
#include "groth16/setup.h"

#include <stdlib.h>
#include <string.h>

#include "common/rand.h"
#include "groth16/fixed_base.h"
#include "groth16/fr_sample.h"
#include "groth16/ntt.h"
#include "groth16/params_io.h"
#include "groth16/prover.h"

/* 10-bit windows: 26 windows of 2^9 entries, so 26 affine additions per
 * product; the G2 table is 26·512·192 B = 2.5 MiB, still cache-friendly. */
#define SETUP_WINDOW_BITS 10

static size_t setup_domain(const r1cs *cs, unsigned *ret_log)
{
	return groth16_domain_size(cs->num_constraints + cs->num_inputs, ret_log);
}

static void draw_trapdoor(groth16_dev_trapdoor_insecure *td, uint64_t seed, size_t m)
{
	cuzk_rng rng;
	cuzk_rng_seed(&rng, seed);
	fr_t tau_m;
	do {
		fr_sample_rng(&td->tau, &rng);
		fr_pow_u64(&tau_m, &td->tau, m);
	} while (fr_is_one(&tau_m));
	fr_sample_rng(&td->alpha, &rng);
	fr_sample_rng(&td->beta, &rng);
	fr_sample_rng(&td->gamma, &rng);
	fr_sample_rng(&td->delta, &rng);
	explicit_bzero(&rng, sizeof(rng));
}

/* acc[var] += coeff·L_k(τ) for every term of every row k. */
static int accumulate(fr_t *acc, const r1cs_matrix *mat, const char *name, const r1cs *cs,
		      const fr_t *lagrange, cuzk_error *err)
{
	size_t nv = cs->num_inputs + cs->num_aux;
	for (size_t k = 0; k < cs->num_constraints; k++) {
		for (size_t t = mat->off[k]; t < mat->off[k + 1]; t++) {
			const r1cs_term *term = &mat->terms[t];
			if (term->var >= nv)
				return cuzk_fail(err, CUZK_E_FORMAT,
						 "r1cs: constraint %zu of %s names variable %llu of %zu",
						 k, name, (unsigned long long)term->var, nv);
			fr_t x;
			fr_mul(&x, &term->coeff, &lagrange[k]);
			fr_add(&acc[term->var], &acc[term->var], &x);
		}
	}
	return 0;
}

int groth16_dev_qap_at_tau(fr_t *ret_a, fr_t *ret_b, fr_t *ret_c, const r1cs *cs, const fr_t *tau,
			   cuzk_error *err)
{
	unsigned log_m;
	size_t m = setup_domain(cs, &log_m), nv = cs->num_inputs + cs->num_aux;
	ntt_domain d;
	int rc = ntt_domain_init(&d, log_m, err);
	if (rc)
		return rc;
	fr_t *lagrange = malloc(m * sizeof(fr_t));
	if (!lagrange) {
		ntt_domain_free(&d);
		return cuzk_fail(err, CUZK_E_NOMEM, "setup: no memory for %zu Lagrange values", m);
	}
	/* L_k(τ) = 1/m · sum_j τ^j·ω^(-jk): the inverse NTT of τ's powers. */
	for (size_t i = 0; i < m; i++)
		lagrange[i] = FR_ONE;
	ntt_scale_by_powers(lagrange, m, &FR_ONE, tau);
	ntt_inverse(&d, lagrange);
	ntt_domain_free(&d);

	memset(ret_a, 0, nv * sizeof(fr_t));
	memset(ret_b, 0, nv * sizeof(fr_t));
	memset(ret_c, 0, nv * sizeof(fr_t));
	if (!(rc = accumulate(ret_a, &cs->a, "A", cs, lagrange, err)) &&
	    !(rc = accumulate(ret_b, &cs->b, "B", cs, lagrange, err)) &&
	    !(rc = accumulate(ret_c, &cs->c, "C", cs, lagrange, err))) {
		/* The appended constraints input_i · 0 = 0 put input i in A. */
		for (size_t i = 0; i < cs->num_inputs; i++)
			fr_add(&ret_a[i], &ret_a[i], &lagrange[cs->num_constraints + i]);
	}
	explicit_bzero(lagrange, m * sizeof(fr_t));
	free(lagrange);
	return rc;
}

static size_t count_nonzero(const fr_t *v, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		count += !fr_is_zero(&v[i]);
	return count;
}

static size_t compact_nonzero(fr_t *out, const fr_t *v, size_t n)
{
	size_t at = 0;
	for (size_t i = 0; i < n; i++)
		if (!fr_is_zero(&v[i]))
			out[at++] = v[i];
	return at;
}

/* The trapdoor's scalars for every query, then one fixed-base pass each. */
static void fill_params(groth16_params *p, const groth16_dev_trapdoor_insecure *td, const r1cs *cs,
			size_t m, const fr_t *at, const fr_t *bt, const fr_t *ct, fr_t *k,
			const fixed_base *g1, const fixed_base *g2)
{
	size_t ni = cs->num_inputs, nv = ni + cs->num_aux;
	fixed_base_mul_many(g1, &p->vk.alpha_g1, &td->alpha, 1);
	fixed_base_mul_many(g1, &p->vk.beta_g1, &td->beta, 1);
	fixed_base_mul_many(g2, &p->vk.beta_g2, &td->beta, 1);
	fixed_base_mul_many(g2, &p->vk.gamma_g2, &td->gamma, 1);
	fixed_base_mul_many(g1, &p->vk.delta_g1, &td->delta, 1);
	fixed_base_mul_many(g2, &p->vk.delta_g2, &td->delta, 1);

	fr_t gamma_inv, delta_inv, x;
	fr_inv(&gamma_inv, &td->gamma);
	fr_inv(&delta_inv, &td->delta);
	for (size_t i = 0; i < nv; i++) {
		/* (β·A_i + α·B_i + C_i) / (γ for inputs, δ for aux) */
		fr_mul(&k[i], &td->beta, &at[i]);
		fr_mul(&x, &td->alpha, &bt[i]);
		fr_add(&k[i], &k[i], &x);
		fr_add(&k[i], &k[i], &ct[i]);
		fr_mul(&k[i], &k[i], i < ni ? &gamma_inv : &delta_inv);
	}
	fixed_base_mul_many(g1, p->vk.ic, k, ni);
	fixed_base_mul_many(g1, p->l, k + ni, cs->num_aux);

	/* h_i = τ^i·Z(τ)/δ */
	fr_t z_over_delta;
	fr_pow_u64(&z_over_delta, &td->tau, m);
	fr_sub(&z_over_delta, &z_over_delta, &FR_ONE);
	fr_mul(&z_over_delta, &z_over_delta, &delta_inv);
	for (size_t i = 0; i + 1 < m; i++)
		k[i] = FR_ONE;
	ntt_scale_by_powers(k, m - 1, &z_over_delta, &td->tau);
	fixed_base_mul_many(g1, p->h, k, m - 1);

	compact_nonzero(k, at, nv);
	fixed_base_mul_many(g1, p->a, k, p->n_a);
	compact_nonzero(k, bt, nv);
	fixed_base_mul_many(g1, p->b_g1, k, p->n_b_g1);
	fixed_base_mul_many(g2, p->b_g2, k, p->n_b_g2);

	explicit_bzero(&gamma_inv, sizeof(gamma_inv));
	explicit_bzero(&delta_inv, sizeof(delta_inv));
	explicit_bzero(&z_over_delta, sizeof(z_over_delta));
	explicit_bzero(&x, sizeof(x));
}

int groth16_dev_setup_insecure_trapdoor(groth16_params *ret, groth16_dev_trapdoor_insecure *ret_td,
					const r1cs *cs, uint64_t seed, cuzk_error *err)
{
	unsigned log_m;
	size_t m = setup_domain(cs, &log_m), ni = cs->num_inputs, nv = ni + cs->num_aux;
	if (ni == 0)
		return cuzk_fail(err, CUZK_E_FORMAT, "r1cs: no inputs (the constant 1 is missing)");
	if (log_m > NTT_MAX_LOG)
		return cuzk_fail(err, CUZK_E_INVAL, "setup: domain 2^%u is larger than 2^%u", log_m,
				 NTT_MAX_LOG);
	groth16_dev_trapdoor_insecure td;
	draw_trapdoor(&td, seed, m);

	size_t klen = nv > m ? nv : m;
	fr_t *at = malloc(nv * sizeof(fr_t)), *bt = malloc(nv * sizeof(fr_t));
	fr_t *ct = malloc(nv * sizeof(fr_t)), *k = malloc(klen * sizeof(fr_t));
	fixed_base g1 = { 0 }, g2 = { 0 };
	groth16_params p;
	memset(&p, 0, sizeof(p));
	int rc;
	if (!at || !bt || !ct || !k) {
		rc = cuzk_fail(err, CUZK_E_NOMEM, "setup: no memory for %zu variables", nv);
		goto out;
	}
	if ((rc = groth16_dev_qap_at_tau(at, bt, ct, cs, &td.tau, err)))
		goto out;
	size_t n_a = count_nonzero(at, nv), n_b = count_nonzero(bt, nv);
	if ((rc = groth16_params_alloc(&p, ni, m - 1, cs->num_aux, n_a, n_b, n_b, err)) ||
	    (rc = fixed_base_init(&g1, &CURVE_G1, &G1_GENERATOR, SETUP_WINDOW_BITS, err)) ||
	    (rc = fixed_base_init(&g2, &CURVE_G2, &G2_GENERATOR, SETUP_WINDOW_BITS, err)))
		goto out;
	fill_params(&p, &td, cs, m, at, bt, ct, k, &g1, &g2);
	*ret = p;
	memset(&p, 0, sizeof(p));
	if (ret_td)
		*ret_td = td;
out:
	groth16_params_free(&p);
	fixed_base_free(&g1);
	fixed_base_free(&g2);
	if (at)
		explicit_bzero(at, nv * sizeof(fr_t));
	if (bt)
		explicit_bzero(bt, nv * sizeof(fr_t));
	if (ct)
		explicit_bzero(ct, nv * sizeof(fr_t));
	if (k)
		explicit_bzero(k, klen * sizeof(fr_t));
	free(at);
	free(bt);
	free(ct);
	free(k);
	explicit_bzero(&td, sizeof(td));
	return rc;
}

int groth16_dev_setup_insecure(groth16_params *ret, const r1cs *cs, uint64_t seed, cuzk_error *err)
{
	return groth16_dev_setup_insecure_trapdoor(ret, NULL, cs, seed, err);
}
