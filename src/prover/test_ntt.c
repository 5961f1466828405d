// SPDX-License-Identifier: Apache-2.0 OR MIT
/* NTT against a naive DFT, inverse ∘ forward = id, the coset variants, and
 * h = (A·B - C)/Z checked at a random point. */
#include <stdlib.h>
#include <string.h>

#include "../../tests/check.h"
#include "common/rand.h"
#include "prover/fr_sample.h"
#include "prover/ntt.h"

static fr_t *random_vec(rng_t *rng, size_t n)
{
	fr_t *v = malloc((n ? n : 1) * sizeof(fr_t));
	REQUIRE(v);
	for (size_t i = 0; i < n; i++)
		fr_sample_rng(&v[i], rng);
	return v;
}

/* sum_i v_i·x^i (Horner) */
static void poly_eval(fr_t *r, const fr_t *v, size_t n, const fr_t *x)
{
	fr_t acc = FR_ZERO;
	for (size_t i = n; i-- > 0;) {
		fr_mul(&acc, &acc, x);
		fr_add(&acc, &acc, &v[i]);
	}
	*r = acc;
}

static int vec_eq(const fr_t *a, const fr_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!fr_eq(&a[i], &b[i]))
			return 0;
	return 1;
}

/* w[j] = v(shift·ω^j) for every step-th j. */
static void check_evaluations(const ntt_domain *d, const fr_t *w, const fr_t *v, size_t step,
			      const fr_t *shift, const char *what)
{
	for (size_t j = 0; j < d->m; j += step) {
		fr_t x, e;
		fr_pow_u64(&x, &d->omega, j);
		fr_mul(&x, &x, shift);
		poly_eval(&e, v, d->m, &x);
		CHECK_MSG(fr_eq(&w[j], &e), "%s 2^%u at %zu", what, d->log_m, j);
	}
}

/* Forward, inverse and coset transforms of size 2^log against the
 * definition, evaluated at `probes` output positions (all when 0). */
static void check_size(rng_t *rng, unsigned log, size_t probes)
{
	ntt_domain d;
	REQUIRE(ntt_domain_init(&d, log, NULL) == 0);
	size_t m = d.m;
	fr_t *v = random_vec(rng, m), *w = malloc(m * sizeof(fr_t));
	REQUIRE(w);
	size_t step = probes ? (m + probes - 1) / probes : 1;

	memcpy(w, v, m * sizeof(fr_t));
	ntt_forward(&d, w);
	check_evaluations(&d, w, v, step, &FR_ONE, "forward");
	ntt_inverse(&d, w);
	CHECK_MSG(vec_eq(w, v, m), "inverse(forward) 2^%u", log);

	ntt_coset_forward(&d, w);
	check_evaluations(&d, w, v, step, &d.g, "coset forward");
	ntt_coset_inverse(&d, w);
	CHECK_MSG(vec_eq(w, v, m), "coset inverse(coset forward) 2^%u", log);

	/* inverse alone against its definition: v_i = 1/m sum_j V_j ω^-ij */
	memcpy(w, v, m * sizeof(fr_t));
	ntt_inverse(&d, w);
	for (size_t i = 0; i < m; i += step) {
		fr_t x, e;
		fr_pow_u64(&x, &d.omega_inv, i);
		poly_eval(&e, v, m, &x);
		fr_mul(&e, &e, &d.m_inv);
		CHECK_MSG(fr_eq(&w[i], &e), "inverse 2^%u at %zu", log, i);
	}
	free(v);
	free(w);
	ntt_domain_free(&d);
}

/* A(x)·B(x) - C(x) = h(x)·(x^m - 1) at a random x, where A, B, C are the
 * polynomials through a, b, c on the domain. */
static int h_identity_holds(const fr_t *a, const fr_t *b, const fr_t *c, size_t n,
			    const fr_t *h, const fr_t *x)
{
	unsigned log = ntt_log2_ceil(n);
	ntt_domain d;
	REQUIRE(ntt_domain_init(&d, log, NULL) == 0);
	size_t m = d.m;
	fr_t *buf = calloc(m, sizeof(fr_t));
	REQUIRE(buf);
	fr_t ax, bx, cx, hx, zx;
	const fr_t *src[3] = { a, b, c };
	fr_t *out[3] = { &ax, &bx, &cx };
	for (int k = 0; k < 3; k++) {
		memset(buf, 0, m * sizeof(fr_t));
		memcpy(buf, src[k], n * sizeof(fr_t));
		ntt_inverse(&d, buf);
		poly_eval(out[k], buf, m, x);
	}
	poly_eval(&hx, h, m - 1, x);
	fr_pow_u64(&zx, x, m);
	fr_sub(&zx, &zx, &FR_ONE);
	fr_mul(&hx, &hx, &zx);
	fr_mul(&ax, &ax, &bx);
	fr_sub(&ax, &ax, &cx);
	free(buf);
	ntt_domain_free(&d);
	return fr_eq(&ax, &hx);
}

static void check_h(rng_t *rng, size_t n)
{
	size_t m = (size_t)1 << ntt_log2_ceil(n);
	fr_t *a = random_vec(rng, n), *b = random_vec(rng, n), *c = random_vec(rng, n);
	for (size_t i = 0; i < n; i++)
		fr_mul(&c[i], &a[i], &b[i]);
	fr_t *h = malloc(m * sizeof(fr_t)), *h2 = malloc(m * sizeof(fr_t));
	REQUIRE(h && h2);
	fr_t x;
	fr_sample_rng(&x, rng);
	REQUIRE(groth16_compute_h(h, a, b, c, n, 1, NULL) == 0);
	CHECK_MSG(h_identity_holds(a, b, c, n, h, &x), "h for n = %zu", n);

	/* The same scalars in canonical form give the same h. */
	fr_t *ca = malloc(n * sizeof(fr_t)), *cb = malloc(n * sizeof(fr_t)), *cc = malloc(n * sizeof(fr_t));
	REQUIRE(ca && cb && cc);
	for (size_t i = 0; i < n; i++) {
		fr_from_mont(ca[i].l, &a[i]);
		fr_from_mont(cb[i].l, &b[i]);
		fr_from_mont(cc[i].l, &c[i]);
	}
	REQUIRE(groth16_compute_h(h2, ca, cb, cc, n, 0, NULL) == 0);
	CHECK_MSG(vec_eq(h, h2, m - 1), "canonical and Montgomery h differ, n = %zu", n);

	/* An unsatisfied row: the identity must fail. */
	fr_add(&c[n / 2], &c[n / 2], &FR_ONE);
	REQUIRE(groth16_compute_h(h, a, b, c, n, 1, NULL) == 0);
	CHECK_MSG(!h_identity_holds(a, b, c, n, h, &x), "unsatisfied c accepted, n = %zu", n);

	/* A scalar >= r is refused with its index. */
	cuzk_error err;
	memcpy(cb[n - 1].l, FR_MODULUS, sizeof(cb[n - 1].l));
	CHECK(groth16_compute_h(h2, ca, cb, cc, n, 0, &err) == -CUZK_E_NONCANONICAL);
	char want[64];
	snprintf(want, sizeof(want), "b[%zu]", n - 1);
	CHECK_MSG(strstr(err.msg, want) != NULL, "message: %s", err.msg);
	free(a), free(b), free(c), free(h), free(h2), free(ca), free(cb), free(cc);
}

int main(void)
{
	rng_t rng;
	rng_seed(&rng, 0x6e7474);
	for (unsigned log = 0; log <= 6; log++)
		check_size(&rng, log, 0);
	/* Past one cache block (2^12): the per-stage parallel passes run too. */
	check_size(&rng, 14, 16);

	cuzk_error err;
	ntt_domain d;
	CHECK(ntt_domain_init(&d, NTT_MAX_LOG + 1, &err) == -CUZK_E_INVAL);

	size_t sizes[] = { 1, 2, 3, 5, 100, 1024, 5000 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		check_h(&rng, sizes[i]);
	CHECK_DONE();
}
