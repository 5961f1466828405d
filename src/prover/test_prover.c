// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Prove → verify for circuits of several shapes and sizes (hand-made ones
 * and the synthetic generator's up to 2^16 constraints).  Each proof is also
 * checked against the trapdoor: with τ, α, β, γ, δ known, A, B and C must be
 * the generator times scalars computed directly from the QAP at τ, which
 * checks the prover without pairings and independently of its h.  A
 * tampered proof, a wrong public input and a wrong vk must fail. */
#include <stdlib.h>
#include <string.h>

#include "../../tests/check.h"
#include "common/clock.h"
#include "devtools/gencircuit.h"
#include "devtools/setup.h"
#include "devtools/synth.h"
#include "formats/params_io.h"
#include "prover/prover.h"
#include "prover/verifier.h"

/* ---- building small circuits by hand ---- */

struct row_terms {
	size_t n;
	r1cs_term t[4];
};

static void matrix_push(r1cs_matrix *m, size_t row, const struct row_terms *rt)
{
	size_t at = m->off[row];
	m->terms = realloc(m->terms, (at + rt->n + 1) * sizeof(r1cs_term));
	REQUIRE(m->terms);
	memcpy(m->terms + at, rt->t, rt->n * sizeof(r1cs_term));
	m->off[row + 1] = at + rt->n;
}

/* Appends the constraint <a,z>·<b,z> = <c,z>; rows must fit cs->off's room. */
static void add_row(r1cs *cs, const struct row_terms *a, const struct row_terms *b,
		    const struct row_terms *c)
{
	size_t k = cs->num_constraints++;
	matrix_push(&cs->a, k, a);
	matrix_push(&cs->b, k, b);
	matrix_push(&cs->c, k, c);
}

static void cs_init(r1cs *cs, size_t inputs, size_t aux, size_t max_rows)
{
	memset(cs, 0, sizeof(*cs));
	cs->num_inputs = inputs;
	cs->num_aux = aux;
	r1cs_matrix *ms[3] = { &cs->a, &cs->b, &cs->c };
	for (int i = 0; i < 3; i++) {
		ms[i]->off = calloc(max_rows + 1, sizeof(size_t));
		REQUIRE(ms[i]->off);
	}
}

static r1cs_term term(uint64_t var, uint64_t coeff)
{
	r1cs_term t = { var, FR_ZERO };
	fr_from_u64(&t.coeff, coeff);
	return t;
}

/* x^3 + x + 5 = y: inputs (1, y), aux (x, x^2, x^3). */
static void cubic(r1cs *cs, fr_t **ret_z)
{
	cs_init(cs, 2, 3, 3);
	struct row_terms x = { 1, { term(2, 1) } }, x2 = { 1, { term(3, 1) } };
	struct row_terms x3 = { 1, { term(4, 1) } }, one = { 1, { term(0, 1) } };
	struct row_terms sum = { 3, { term(4, 1), term(2, 1), term(0, 5) } }, y = { 1, { term(1, 1) } };
	add_row(cs, &x, &x, &x2);
	add_row(cs, &x2, &x, &x3);
	add_row(cs, &sum, &one, &y);
	fr_t *z = malloc(5 * sizeof(fr_t));
	REQUIRE(z);
	uint64_t v[5] = { 1, 35, 3, 9, 27 };
	for (int i = 0; i < 5; i++)
		fr_from_u64(&z[i], v[i]);
	*ret_z = z;
}

/* A chain w_k = (w_{k-1} + in_(k mod 4) + 3)·u_k with u_k private, public
 * inputs in B every third row, and an aux variable that appears in no A
 * row: uneven a_aux_density and b_input_density, rows that are not
 * powers of two. */
static void chain(r1cs *cs, fr_t **ret_z, size_t rows)
{
	size_t ni = 5, na = 2 * rows + 1;
	cs_init(cs, ni, na, rows + 1);
	fr_t *z = malloc((ni + na) * sizeof(fr_t));
	REQUIRE(z);
	for (size_t i = 0; i < ni; i++)
		fr_from_u64(&z[i], i == 0 ? 1 : 1000 + i);
	/* aux: w_k at ni + 2k, u_k at ni + 2k + 1 (k >= 1), w_0 = ni + 0. */
	fr_from_u64(&z[ni], 7);
	for (size_t k = 1; k <= rows; k++) {
		size_t w_prev = ni + 2 * (k - 1), u = ni + 2 * k - 1, w = ni + 2 * k;
		fr_from_u64(&z[u], k % 5 == 0 ? 1 : k % 7 == 0 ? 0 : 31 * k + 2);
		size_t in = 1 + k % 4;
		struct row_terms a = { 3, { term(w_prev, 1), term(in, 1), term(0, 3) } };
		struct row_terms b = { 1, { term(u, 1) } };
		struct row_terms c = { 1, { term(w, 1) } };
		if (k % 3 == 0) {   /* swap: the public input and w_prev in B */
			a = (struct row_terms){ 1, { term(u, 1) } };
			b = (struct row_terms){ 3, { term(w_prev, 1), term(in, 1), term(0, 3) } };
		}
		add_row(cs, &a, &b, &c);
		fr_t t;
		fr_add(&t, &z[w_prev], &z[in]);
		fr_t three;
		fr_from_u64(&three, 3);
		fr_add(&t, &t, &three);
		fr_mul(&z[w], &t, &z[u]);
	}
	*ret_z = z;
}

/* ---- checks ---- */

static void fr_madd(fr_t *acc, const fr_t *a, const fr_t *b)
{
	fr_t t;
	fr_mul(&t, a, b);
	fr_add(acc, acc, &t);
}

/* A, B, C of the proof against the generators times the scalars the
 * trapdoor predicts (see the file comment). */
static int matches_trapdoor(const groth16_proof *pf, const r1cs *cs, const fr_t *z,
			    const groth16_dev_trapdoor_insecure *td, const fr_t *r, const fr_t *s)
{
	size_t nv = cs->num_inputs + cs->num_aux;
	fr_t *at = malloc(nv * sizeof(fr_t)), *bt = malloc(nv * sizeof(fr_t)), *ct = malloc(nv * sizeof(fr_t));
	REQUIRE(at && bt && ct);
	REQUIRE(groth16_dev_qap_at_tau(at, bt, ct, cs, &td->tau, NULL) == 0);
	fr_t az = FR_ZERO, bz = FR_ZERO, cz = FR_ZERO, priv = FR_ZERO;
	for (size_t i = 0; i < nv; i++) {
		fr_madd(&az, &z[i], &at[i]);
		fr_madd(&bz, &z[i], &bt[i]);
		fr_madd(&cz, &z[i], &ct[i]);
		if (i >= cs->num_inputs) {
			fr_t k;
			fr_mul(&k, &td->beta, &at[i]);
			fr_madd(&k, &td->alpha, &bt[i]);
			fr_add(&k, &k, &ct[i]);
			fr_madd(&priv, &z[i], &k);
		}
	}
	fr_t a_s, b_s, c_s, t, dinv;
	fr_add(&a_s, &td->alpha, &az);
	fr_madd(&a_s, r, &td->delta);
	fr_add(&b_s, &td->beta, &bz);
	fr_madd(&b_s, s, &td->delta);
	/* c = (priv + A(τ)B(τ) - C(τ))/δ + s·a + r·b - r·s·δ */
	fr_mul(&t, &az, &bz);
	fr_sub(&t, &t, &cz);
	fr_add(&t, &t, &priv);
	fr_inv(&dinv, &td->delta);
	fr_mul(&c_s, &t, &dinv);
	fr_madd(&c_s, s, &a_s);
	fr_madd(&c_s, r, &b_s);
	fr_mul(&t, r, s);
	fr_mul(&t, &t, &td->delta);
	fr_sub(&c_s, &c_s, &t);

	g1_jac_t g1, pa, pc;
	g2_jac_t g2, pb;
	g1_aff_t ea, ec;
	g2_aff_t eb;
	g1_from_affine(&g1, &G1_GENERATOR);
	g2_from_affine(&g2, &G2_GENERATOR);
	g1_mul_fr(&pa, &g1, &a_s);
	g2_mul_fr(&pb, &g2, &b_s);
	g1_mul_fr(&pc, &g1, &c_s);
	g1_to_affine(&ea, &pa);
	g2_to_affine(&eb, &pb);
	g1_to_affine(&ec, &pc);
	free(at), free(bt), free(ct);
	return g1_aff_eq(&ea, &pf->a) && g2_aff_eq(&eb, &pf->b) && g1_aff_eq(&ec, &pf->c);
}

static void check_circuit(const char *name, const r1cs *cs, const fr_t *z, int trapdoor_check)
{
	size_t nv = cs->num_inputs + cs->num_aux;
	cuzk_error err;
	groth16_params p, other;
	groth16_dev_trapdoor_insecure td;
	double t0 = monotonic_ms();
	REQUIRE(groth16_dev_setup_insecure_trapdoor(&p, &td, cs, 42, &err) == 0);
	double t1 = monotonic_ms();
	groth16_synth syn;
	REQUIRE(groth16_synthesize(&syn, cs, z, nv, &err) == 0);
	REQUIRE(groth16_synth_check(&syn, &err) == 0);
	groth16_witness_view w;
	groth16_synth_view(&w, &syn, z);
	CHECK_MSG(groth16_check_shape(&p, &w, &err) == 0, "%s: shape: %s", name, err.msg);

	fr_t r, s;
	groth16_seeded_rs(&r, &s, 7, 0);
	groth16_proof pf, pf2;
	groth16_timings tm;
	double t2 = monotonic_ms();
	int rc = groth16_prove_cpu(&p, &w, &r, &s, &pf, &tm, &err);
	double t3 = monotonic_ms();
	CHECK_MSG(rc == 0, "%s: prove: %s", name, err.msg);
	const fr_t *pub = z + 1;
	size_t npub = cs->num_inputs - 1;
	rc = groth16_verify(&p.vk, pub, npub, &pf, &err);
	double t4 = monotonic_ms();
	CHECK_MSG(rc == 0, "%s: verify: %s", name, rc ? err.msg : "");
	if (trapdoor_check)
		CHECK_MSG(matches_trapdoor(&pf, cs, z, &td, &r, &s), "%s: proof differs from the trapdoor's", name);
	printf("%s: %zu constraints: setup %.0f ms, prove %.0f ms (h %.0f, msm h %.0f l %.0f a %.0f "
	       "b_g1 %.0f b_g2 %.0f), verify %.0f ms\n",
	       name, w.num_constraints, t1 - t0, t3 - t2, tm.ntt_ms, tm.msm_h_ms, tm.msm_l_ms,
	       tm.msm_a_ms, tm.msm_b_g1_ms, tm.msm_b_g2_ms, t4 - t3);

	/* The same r and s give the same proof; the canonical witness too. */
	size_t nc = w.num_constraints;
	fr_t *canon = malloc((3 * nc + nv) * sizeof(fr_t));
	REQUIRE(canon);
	for (size_t i = 0; i < nc; i++) {
		fr_from_mont(canon[i].l, &w.a[i]);
		fr_from_mont(canon[nc + i].l, &w.b[i]);
		fr_from_mont(canon[2 * nc + i].l, &w.c[i]);
	}
	for (size_t i = 0; i < nv; i++)
		fr_from_mont(canon[3 * nc + i].l, &z[i]);
	groth16_witness_view wc = w;
	wc.montgomery = 0;
	wc.a = canon, wc.b = canon + nc, wc.c = canon + 2 * nc;
	wc.input = canon + 3 * nc, wc.aux = canon + 3 * nc + cs->num_inputs;
	REQUIRE(groth16_prove_cpu(&p, &wc, &r, &s, &pf2, NULL, &err) == 0);
	CHECK_MSG(memcmp(&pf, &pf2, sizeof(pf)) == 0, "%s: canonical witness gives another proof", name);
	free(canon);

	/* One thread runs the queries one by one, more run them side by side
	 * (h and l as one MSM): the same proof either way. */
	const char *threads = getenv("CUZK_THREADS");
	char *saved = threads ? strdup(threads) : NULL;
	setenv("CUZK_THREADS", "1", 1);
	REQUIRE(groth16_prove_cpu(&p, &w, &r, &s, &pf2, NULL, &err) == 0);
	CHECK_MSG(memcmp(&pf, &pf2, sizeof(pf)) == 0, "%s: one thread gives another proof", name);
	/* A scalar >= r among the aux ones is blamed on query l, merged or not. */
	fr_t *bad_z = malloc(nv * sizeof(fr_t));
	REQUIRE(bad_z);
	memcpy(bad_z, z, nv * sizeof(fr_t));
	memset(&bad_z[nv - 1], 0xff, sizeof(fr_t));
	groth16_witness_view wb = w;
	wb.aux = bad_z + cs->num_inputs;
	for (int nt = 1; nt <= 2; nt++) {
		setenv("CUZK_THREADS", nt == 1 ? "1" : "2", 1);
		rc = groth16_prove_cpu(&p, &wb, &r, &s, &pf2, NULL, &err);
		CHECK_MSG(rc == -CUZK_E_NONCANONICAL && strstr(err.msg, "query l"),
			  "%s: bad aux scalar, %d threads: %d %s", name, nt, rc, rc ? err.msg : "");
	}
	free(bad_z);
	if (saved)
		setenv("CUZK_THREADS", saved, 1);
	else
		unsetenv("CUZK_THREADS");
	free(saved);

	/* Tampered proof: C + G1 (still a valid point). */
	pf2 = pf;
	g1_jac_t c, g, cg;
	g1_from_affine(&c, &pf.c);
	g1_from_affine(&g, &G1_GENERATOR);
	g1_add(&cg, &c, &g);
	g1_to_affine(&pf2.c, &cg);
	CHECK_MSG(groth16_verify(&p.vk, pub, npub, &pf2, &err) == -CUZK_E_VERIFY, "%s: tampered C accepted", name);
	/* A point off the curve. */
	pf2 = pf;
	fp_add(&pf2.a.y, &pf2.a.y, &FP_ONE);
	CHECK_MSG(groth16_verify(&p.vk, pub, npub, &pf2, &err) == -CUZK_E_NOT_ON_CURVE, "%s: A off the curve accepted", name);
	/* A wrong public input. */
	if (npub) {
		fr_t *bad = malloc(npub * sizeof(fr_t));
		REQUIRE(bad);
		memcpy(bad, pub, npub * sizeof(fr_t));
		fr_add(&bad[npub - 1], &bad[npub - 1], &FR_ONE);
		CHECK_MSG(groth16_verify(&p.vk, bad, npub, &pf, &err) == -CUZK_E_VERIFY, "%s: wrong input accepted", name);
		free(bad);
	}
	CHECK(groth16_verify(&p.vk, pub, npub + 1, &pf, &err) == -CUZK_E_MISMATCH);
	/* A wrong vk: another setup of the same circuit. */
	REQUIRE(groth16_dev_setup_insecure(&other, cs, 43, &err) == 0);
	CHECK_MSG(groth16_verify(&other.vk, pub, npub, &pf, &err) == -CUZK_E_VERIFY, "%s: wrong vk accepted", name);
	groth16_params_free(&other);

	/* Shape mismatch is refused before any work. */
	p.n_l++;
	CHECK(groth16_prove_cpu(&p, &w, &r, &s, &pf2, NULL, &err) == -CUZK_E_MISMATCH);
	p.n_l--;
	groth16_synth_free(&syn);
	groth16_params_free(&p);
}

static void check_generated(unsigned log, size_t inputs, int trapdoor_check)
{
	gencircuit_spec spec = { log, inputs, 1000 + log, GENCIRCUIT_SHAPE_BASIC };
	r1cs cs;
	fr_t *z;
	cuzk_error err;
	REQUIRE(gencircuit_build(&spec, &cs, &z, &err) == 0);
	char name[64];
	snprintf(name, sizeof(name), "generated 2^%u, %zu inputs", log, inputs);
	check_circuit(name, &cs, z, trapdoor_check);
	r1cs_free(&cs);
	free(z);
}

int main(void)
{
	r1cs cs;
	fr_t *z;
	cubic(&cs, &z);
	check_circuit("cubic", &cs, z, 1);
	r1cs_free(&cs);
	free(z);

	chain(&cs, &z, 300);
	check_circuit("chain 300", &cs, z, 1);
	r1cs_free(&cs);
	free(z);

	/* r and s: fixed by seed and partition, different across them. */
	fr_t r1, s1, r2, s2, r3, s3;
	groth16_seeded_rs(&r1, &s1, 5, 0);
	groth16_seeded_rs(&r2, &s2, 5, 0);
	groth16_seeded_rs(&r3, &s3, 5, 1);
	CHECK(fr_eq(&r1, &r2) && fr_eq(&s1, &s2));
	CHECK(!fr_eq(&r1, &r3) && !fr_eq(&s1, &s3) && !fr_eq(&r1, &s1));
	REQUIRE(groth16_random_rs(&r1, &s1, NULL) == 0);
	REQUIRE(groth16_random_rs(&r2, &s2, NULL) == 0);
	CHECK(!fr_eq(&r1, &r2));

	check_generated(10, 3, 1);
	check_generated(12, 40, 0);
	check_generated(16, 2, 0);
	CHECK_DONE();
}
