// SPDX-License-Identifier: Apache-2.0 OR MIT
/* INSECURE development setup (setup.h): the trapdoor is derived from a seed. */
#include "devtools/setup.h"

#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/first_fail.h"
#include "common/parallel.h"
#include "common/rand.h"
#include "devtools/lagrange.h"
#include "formats/params_io.h"
#include "prover/fixed_base.h"
#include "prover/fr_sample.h"
#include "prover/ntt.h"
#include "prover/prover.h"

/* 10-bit windows: 26 windows of 2^9 entries, so 26 affine additions per
 * product; the G2 table is 26·512·192 B = 2.5 MiB, still cache-friendly. */
#define SETUP_WINDOW_BITS 10
/* Products per engine call: progress is reported between calls, and the h
 * scalars are made one such run at a time (512 MiB of scalars). */
#define SETUP_RUN ((size_t)1 << 24)
/* Points the CPU engine makes before handing them to an emitting sink. */
#define CPU_EMIT_RUN ((size_t)1 << 16)

static size_t domain_of(size_t num_rows, size_t num_inputs, unsigned *ret_log)
{
	return groth16_domain_size(num_rows + num_inputs, ret_log);
}

static void draw_trapdoor(groth16_dev_trapdoor_insecure *td, uint64_t seed, size_t m)
{
	rng_t rng;
	rng_seed(&rng, seed);
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

/* ---- A_i(τ), B_i(τ), C_i(τ): acc[var] += coeff·L_k(τ) over every term ----
 *
 * In parallel over rows: each thread gets one contiguous run of rows and
 * adds straight into the variables that those rows' own indices name (aux
 * variable j belongs to row j's thread), which in a circuit like the
 * generator's is nearly every term; other terms (inputs, variables of
 * other runs) are kept in a per-thread list and added afterwards.  Field
 * addition is exact, so the order does not change the result. */

struct spill {
	uint64_t var;
	unsigned mat;
	fr_t v;
};

struct qap_thread {
	struct spill *spills;
	size_t n, cap;
	int nomem;
	size_t bad_row;            /* FIRST_FAIL_NONE, or the first row naming a variable out of range */
	unsigned bad_mat;
	uint64_t bad_var;
};

struct qap_ctx {
	const groth16_row_source *src;
	const fr_t *lagrange;
	fr_t *acc[3];
	size_t nv;
	struct qap_thread *th;
};

static const char *const MATRIX_NAME[3] = { "A", "B", "C" };

static int spill_push(struct qap_thread *t, uint64_t var, unsigned mat, const fr_t *v)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct spill *s = realloc(t->spills, cap * sizeof(*s));
		if (!s)
			return -1;
		t->spills = s;
		t->cap = cap;
	}
	t->spills[t->n++] = (struct spill){ var, mat, *v };
	return 0;
}

static void qap_range(void *arg, size_t begin, size_t end, unsigned thread)
{
	struct qap_ctx *c = arg;
	struct qap_thread *t = &c->th[thread];
	const uint64_t own_lo = c->src->num_inputs + begin, own_hi = c->src->num_inputs + end;
	r1cs_term scratch[GROTH16_ROW_SCRATCH];
	for (size_t k = begin; k < end; k++) {
		groth16_row row;
		c->src->row(c->src->ctx, k, &row, scratch);
		for (unsigned m = 0; m < 3; m++) {
			for (size_t i = 0; i < row.n[m]; i++) {
				const r1cs_term *term = &row.terms[m][i];
				if (term->var >= c->nv) {
					t->bad_row = k;
					t->bad_mat = m;
					t->bad_var = term->var;
					return;
				}
				fr_t x;
				fr_mul(&x, &term->coeff, &c->lagrange[k]);
				if (term->var >= own_lo && term->var < own_hi)
					fr_add(&c->acc[m][term->var], &c->acc[m][term->var], &x);
				else if (spill_push(t, term->var, m, &x) < 0) {
					t->nomem = 1;
					return;
				}
			}
		}
	}
}

/* *ret_lagrange_ms (may be NULL): how long the Lagrange basis took, the
 * rest being the rows. */
static int qap_rows(fr_t *ret_a, fr_t *ret_b, fr_t *ret_c, const groth16_row_source *src,
		    const fr_t *tau, double *ret_lagrange_ms, cuzk_error *err)
{
	double t0 = monotonic_ms();
	unsigned log_m;
	size_t m = domain_of(src->num_rows, src->num_inputs, &log_m);
	size_t nv = src->num_inputs + src->num_aux;
	ntt_domain d;
	int rc = ntt_domain_init(&d, log_m, err);
	if (rc)
		return rc;
	fr_t *lagrange = malloc(m * sizeof(fr_t));
	unsigned nt = parallel_nthreads();
	struct qap_thread *th = calloc(nt, sizeof(*th));
	if (!lagrange || !th) {
		ntt_domain_free(&d);
		free(lagrange);
		free(th);
		return err_fail(err, CUZK_E_NOMEM, "setup: no memory for %zu Lagrange values", m);
	}
	lagrange_at(lagrange, &d, tau);
	ntt_domain_free(&d);
	if (ret_lagrange_ms)
		*ret_lagrange_ms = monotonic_ms() - t0;

	memset(ret_a, 0, nv * sizeof(fr_t));
	memset(ret_b, 0, nv * sizeof(fr_t));
	memset(ret_c, 0, nv * sizeof(fr_t));
	for (unsigned i = 0; i < nt; i++)
		th[i].bad_row = FIRST_FAIL_NONE;
	struct qap_ctx ctx = { src, lagrange, { ret_a, ret_b, ret_c }, nv, th };
	parallel_for(src->num_rows, 4096, nt, qap_range, &ctx);

	const struct qap_thread *bad = NULL;
	int nomem = 0;
	for (unsigned i = 0; i < nt; i++) {
		nomem |= th[i].nomem;
		if (th[i].bad_row != FIRST_FAIL_NONE && (!bad || th[i].bad_row < bad->bad_row))
			bad = &th[i];
	}
	if (bad)
		rc = err_fail(err, CUZK_E_FORMAT, "r1cs: constraint %zu of %s names variable %llu of %zu",
			      bad->bad_row, MATRIX_NAME[bad->bad_mat], (unsigned long long)bad->bad_var, nv);
	else if (nomem)
		rc = err_fail(err, CUZK_E_NOMEM, "setup: no memory for the terms of shared variables");
	for (unsigned i = 0; i < nt; i++) {
		for (size_t j = 0; j < th[i].n && !rc; j++) {
			fr_t *acc = ctx.acc[th[i].spills[j].mat] + th[i].spills[j].var;
			fr_add(acc, acc, &th[i].spills[j].v);
		}
		if (th[i].spills)
			explicit_bzero(th[i].spills, th[i].n * sizeof(struct spill));
		free(th[i].spills);
	}
	free(th);
	/* The appended constraints input_i · 0 = 0 put input i in A. */
	for (size_t i = 0; i < src->num_inputs && !rc; i++)
		fr_add(&ret_a[i], &ret_a[i], &lagrange[src->num_rows + i]);
	explicit_bzero(lagrange, m * sizeof(fr_t));
	free(lagrange);
	return rc;
}

int groth16_dev_qap_at_tau(fr_t *ret_a, fr_t *ret_b, fr_t *ret_c, const r1cs *cs, const fr_t *tau,
			   cuzk_error *err)
{
	groth16_row_source src;
	groth16_r1cs_rows(&src, cs);
	return qap_rows(ret_a, ret_b, ret_c, &src, tau, NULL, err);
}

/* ---- The CPU engine: the fixed-base tables of prover/fixed_base.h ---- */

struct cpu_engine {
	fixed_base g1, g2;
};

static int cpu_mul(void *self, int g2, const fr_t *k, size_t n, const groth16_point_sink *sink,
		   cuzk_error *err)
{
	struct cpu_engine *e = self;
	const fixed_base *fb = g2 ? &e->g2 : &e->g1;
	if (sink->direct) {
		fixed_base_mul_many(fb, sink->direct, k, n);
		return 0;
	}
	size_t run = n < CPU_EMIT_RUN ? n : CPU_EMIT_RUN;
	void *buf = malloc((run ? run : 1) * fb->ops->aff_size);
	if (!buf)
		return err_fail(err, CUZK_E_NOMEM, "setup: no memory for %zu %s points", run, fb->ops->name);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i += run) {
		size_t len = n - i < run ? n - i : run;
		fixed_base_mul_many(fb, buf, k + i, len);
		rc = sink->emit(sink->ctx, buf, len, err);
	}
	free(buf);
	return rc;
}

/* ---- The driver ---- */

/* One setup from the trapdoor to the last point; the points go to params
 * (memory) or to a writer (file). */
struct setup_run {
	const groth16_row_source *src;
	const groth16_setup_opts *opts;
	const groth16_setup_engine *engine;
	struct cpu_engine cpu;
	groth16_dev_trapdoor_insecure td;
	size_t m, ni, na, nv, n_a, n_b;
	fr_t *at, *bt, *ct, *k;
	fr_t gamma_inv, delta_inv;
	groth16_vk vk;                 /* VK points, ic in ic_points */
	g1_aff_t *ic_points;
	groth16_params *params;        /* memory */
	groth16_params_writer *writer; /* file */
	uint64_t done, total;
	groth16_setup_timings tm;      /* handed to opts->timings at the end */
	double put_ms;                 /* in the writer's put, so far */
};

/* put has encoded the run when it returns (its bytes still on their way
 * to the file), as the engines need: the GPU's pinned download buffer and
 * the CPU engine's run buffer are reused at once. */
static int writer_emit(void *ctx, const void *points, size_t n, cuzk_error *err)
{
	struct setup_run *s = ctx;
	double t0 = monotonic_ms();
	int rc = groth16_params_writer_put(s->writer, points, n, err);
	s->put_ms += monotonic_ms() - t0;
	return rc;
}

/* One query's clock, read before its scalars and after its last point:
 * the writer's counters are cumulative, so a query's share is the
 * difference. */
struct query_clock {
	double t0, put0, blocked0, scalars_ms;
};

static double writer_blocked_ms(struct setup_run *s)
{
	if (!s->writer)
		return 0;
	async_writer_stats st;
	groth16_params_writer_get_stats(s->writer, &st);
	return st.blocked_ms;
}

static void query_begin(struct setup_run *s, struct query_clock *c)
{
	*c = (struct query_clock){ monotonic_ms(), s->put_ms, writer_blocked_ms(s), 0 };
}

/* Query q (file order: h, l, a, b_g1, b_g2) is done, `points` of them. */
static void query_end(struct setup_run *s, int q, const struct query_clock *c, size_t points)
{
	groth16_setup_query_timings *t = &s->tm.query[q];
	t->total_ms = monotonic_ms() - c->t0;
	t->scalars_ms = c->scalars_ms;
	t->put_ms = s->put_ms - c->put0;
	t->blocked_ms = writer_blocked_ms(s) - c->blocked0;
	t->engine_ms = t->total_ms - t->scalars_ms - t->put_ms;
	t->points = points;
}

/* k[0..n) times the generator, to the query array `dst` (memory) or the
 * writer, in runs of SETUP_RUN products. */
static int make_points(struct setup_run *s, int g2, const fr_t *k, size_t n, void *dst, cuzk_error *err)
{
	size_t size = g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
	for (size_t i = 0; i < n; i += SETUP_RUN) {
		size_t len = n - i < SETUP_RUN ? n - i : SETUP_RUN;
		groth16_point_sink sink = { NULL, writer_emit, s };
		if (s->params)
			sink = (groth16_point_sink){ (char *)dst + i * size, NULL, NULL };
		int rc = s->engine->mul(s->engine->self, g2, k + i, len, &sink, err);
		if (rc < 0)
			return rc;
		s->done += len;
		if (s->opts && s->opts->progress)
			s->opts->progress(s->opts->progress_ctx, s->done, s->total);
	}
	return 0;
}

struct ic_l_ctx {
	const struct setup_run *s;
	fr_t *out;
	size_t first;                  /* variable of out[0] */
};

/* (β·A_i + α·B_i + C_i) / (γ for inputs, δ for aux) */
static void ic_l_range(void *arg, size_t begin, size_t end, unsigned thread)
{
	(void)thread;
	struct ic_l_ctx *c = arg;
	const struct setup_run *s = c->s;
	fr_t x;
	for (size_t j = begin; j < end; j++) {
		size_t i = c->first + j;
		fr_t *k = &c->out[j];
		fr_mul(k, &s->td.beta, &s->at[i]);
		fr_mul(&x, &s->td.alpha, &s->bt[i]);
		fr_add(k, k, &x);
		fr_add(k, k, &s->ct[i]);
		fr_mul(k, k, i < s->ni ? &s->gamma_inv : &s->delta_inv);
	}
	explicit_bzero(&x, sizeof(x));
}

static void ic_l_scalars(const struct setup_run *s, fr_t *out, size_t first, size_t n)
{
	struct ic_l_ctx c = { s, out, first };
	parallel_for(n, 4096, 0, ic_l_range, &c);
}

static size_t compact_nonzero(fr_t *out, const fr_t *v, size_t n)
{
	size_t at = 0;
	for (size_t i = 0; i < n; i++)
		if (!fr_is_zero(&v[i]))
			out[at++] = v[i];
	return at;
}

static size_t count_nonzero(const fr_t *v, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		count += !fr_is_zero(&v[i]);
	return count;
}

/* The trapdoor, the QAP at τ, the counts and the VK (on the CPU tables). */
static int setup_prepare(struct setup_run *s, uint64_t seed, cuzk_error *err)
{
	unsigned log_m;
	const groth16_row_source *src = s->src;
	s->ni = src->num_inputs;
	s->na = src->num_aux;
	s->nv = s->ni + s->na;
	s->m = domain_of(src->num_rows, s->ni, &log_m);
	if (s->ni == 0)
		return err_fail(err, CUZK_E_FORMAT, "r1cs: no inputs (the constant 1 is missing)");
	if (log_m > NTT_MAX_LOG)
		return err_fail(err, CUZK_E_INVAL, "setup: domain 2^%u is larger than 2^%u", log_m,
				NTT_MAX_LOG);
	double t0 = monotonic_ms();
	draw_trapdoor(&s->td, seed, s->m);
	size_t klen = s->nv > SETUP_RUN ? s->nv : SETUP_RUN;
	s->at = malloc(s->nv * sizeof(fr_t));
	s->bt = malloc(s->nv * sizeof(fr_t));
	s->ct = malloc(s->nv * sizeof(fr_t));
	s->k = malloc(klen * sizeof(fr_t));
	s->ic_points = malloc(s->ni * sizeof(g1_aff_t));
	if (!s->at || !s->bt || !s->ct || !s->k || !s->ic_points)
		return err_fail(err, CUZK_E_NOMEM, "setup: no memory for %zu variables", s->nv);
	double tq = monotonic_ms();
	int rc = qap_rows(s->at, s->bt, s->ct, src, &s->td.tau, &s->tm.lagrange_ms, err);
	double qap_ms = monotonic_ms() - tq;
	s->tm.rows_ms = qap_ms - s->tm.lagrange_ms;
	if (rc ||
	    (rc = fixed_base_init(&s->cpu.g1, &CURVE_G1, &G1_GENERATOR, SETUP_WINDOW_BITS, err)) ||
	    (rc = fixed_base_init(&s->cpu.g2, &CURVE_G2, &G2_GENERATOR, SETUP_WINDOW_BITS, err)))
		return rc;
	s->n_a = count_nonzero(s->at, s->nv);
	s->n_b = count_nonzero(s->bt, s->nv);
	s->total = (s->m - 1) + s->na + s->n_a + 2 * (uint64_t)s->n_b;

	const fixed_base *g1 = &s->cpu.g1, *g2 = &s->cpu.g2;
	groth16_vk *vk = &s->vk;
	fixed_base_mul_many(g1, &vk->alpha_g1, &s->td.alpha, 1);
	fixed_base_mul_many(g1, &vk->beta_g1, &s->td.beta, 1);
	fixed_base_mul_many(g2, &vk->beta_g2, &s->td.beta, 1);
	fixed_base_mul_many(g2, &vk->gamma_g2, &s->td.gamma, 1);
	fixed_base_mul_many(g1, &vk->delta_g1, &s->td.delta, 1);
	fixed_base_mul_many(g2, &vk->delta_g2, &s->td.delta, 1);
	fr_inv(&s->gamma_inv, &s->td.gamma);
	fr_inv(&s->delta_inv, &s->td.delta);
	ic_l_scalars(s, s->k, 0, s->ni);
	fixed_base_mul_many(g1, s->ic_points, s->k, s->ni);
	vk->n_ic = s->ni;
	vk->ic = s->ic_points;
	s->tm.prepare_ms = monotonic_ms() - t0 - qap_ms;
	return 0;
}

/* The queries in file order, each from the scalar vector k. */
static int setup_points(struct setup_run *s, cuzk_error *err)
{
	groth16_params *p = s->params;
	/* h_i = τ^i·Z(τ)/δ, made one run at a time */
	fr_t z_over_delta, start, tau_i;
	fr_pow_u64(&z_over_delta, &s->td.tau, s->m);
	fr_sub(&z_over_delta, &z_over_delta, &FR_ONE);
	fr_mul(&z_over_delta, &z_over_delta, &s->delta_inv);
	int rc = 0;
	struct query_clock c;
	query_begin(s, &c);
	for (size_t i = 0; i + 1 < s->m && rc == 0; i += SETUP_RUN) {
		size_t len = s->m - 1 - i < SETUP_RUN ? s->m - 1 - i : SETUP_RUN;
		double t0 = monotonic_ms();
		fr_pow_u64(&tau_i, &s->td.tau, i);
		fr_mul(&start, &z_over_delta, &tau_i);
		for (size_t j = 0; j < len; j++)
			s->k[j] = FR_ONE;
		ntt_scale_by_powers(s->k, len, &start, &s->td.tau);
		c.scalars_ms += monotonic_ms() - t0;
		rc = make_points(s, 0, s->k, len, p ? p->h + i : NULL, err);
	}
	query_end(s, 0, &c, s->m - 1);
	explicit_bzero(&z_over_delta, sizeof(z_over_delta));
	explicit_bzero(&start, sizeof(start));
	explicit_bzero(&tau_i, sizeof(tau_i));
	if (rc)
		return rc;
	query_begin(s, &c);
	ic_l_scalars(s, s->k, s->ni, s->na);
	explicit_bzero(s->ct, s->nv * sizeof(fr_t));   /* C_i(τ) has served: 32 bytes a variable back */
	free(s->ct);
	s->ct = NULL;
	c.scalars_ms = monotonic_ms() - c.t0;
	rc = make_points(s, 0, s->k, s->na, p ? p->l : NULL, err);
	query_end(s, 1, &c, s->na);
	/* a and b_g1 from the variables whose A_i(τ), resp. B_i(τ), is not 0;
	 * b_g2 from b_g1's scalars again. */
	const fr_t *from[3] = { s->at, s->bt, NULL };
	const size_t count[3] = { s->n_a, s->n_b, s->n_b };
	void *const dst[3] = { p ? p->a : NULL, p ? p->b_g1 : NULL, p ? p->b_g2 : NULL };
	for (int q = 0; q < 3 && rc == 0; q++) {
		query_begin(s, &c);
		if (from[q])
			compact_nonzero(s->k, from[q], s->nv);
		c.scalars_ms = monotonic_ms() - c.t0;
		rc = make_points(s, q == 2, s->k, count[q], dst[q], err);
		query_end(s, 2 + q, &c, count[q]);
	}
	return rc;
}

static void wipe_range(void *ctx, size_t begin, size_t end, unsigned thread)
{
	(void)thread;
	explicit_bzero((char *)ctx + begin, end - begin);
}

/* The trapdoor's images are wiped on every core: at 2^27 they are ~12 GB,
 * seconds of one thread's memory bandwidth. */
static void wipe(void *p, size_t bytes)
{
	if (p)
		parallel_for(bytes, (size_t)1 << 24, 0, wipe_range, p);
}

static void setup_free(struct setup_run *s)
{
	fr_t *vecs[3] = { s->at, s->bt, s->ct };
	for (int i = 0; i < 3; i++) {
		wipe(vecs[i], s->nv * sizeof(fr_t));
		free(vecs[i]);
	}
	/* Only the part of k that held scalars: the rest of its SETUP_RUN
	 * entries was never touched, and wiping it would fault in and zero
	 * pages that are zero (512 MiB, ~0.5 s, for every small setup). */
	size_t k_used = s->m - 1 < SETUP_RUN ? s->m - 1 : SETUP_RUN;
	const size_t other[4] = { s->ni, s->na, s->n_a, s->n_b };
	for (int i = 0; i < 4; i++)
		k_used = other[i] > k_used ? other[i] : k_used;
	wipe(s->k, k_used * sizeof(fr_t));
	free(s->k);
	free(s->ic_points);
	fixed_base_free(&s->cpu.g1);
	fixed_base_free(&s->cpu.g2);
	explicit_bzero(&s->td, sizeof(s->td));
	explicit_bzero(&s->gamma_inv, sizeof(s->gamma_inv));
	explicit_bzero(&s->delta_inv, sizeof(s->delta_inv));
}

/* Frees s and hands its timings (from t0, the setup's start) to the caller. */
static void setup_end(struct setup_run *s, double t0)
{
	double t_free = monotonic_ms();
	setup_free(s);
	s->tm.free_ms = monotonic_ms() - t_free;
	s->tm.total_ms = monotonic_ms() - t0;
	if (s->opts && s->opts->timings)
		*s->opts->timings = s->tm;
}

static void setup_begin(struct setup_run *s, const groth16_row_source *src, const groth16_setup_opts *opts)
{
	memset(s, 0, sizeof(*s));
	s->src = src;
	s->opts = opts;
	s->engine = opts ? opts->engine : NULL;
}

static const groth16_setup_engine *engine_of(struct setup_run *s, groth16_setup_engine *cpu)
{
	*cpu = (groth16_setup_engine){ "cpu", cpu_mul, &s->cpu };
	return s->engine ? s->engine : cpu;
}

int groth16_dev_setup_rows(groth16_params *ret, groth16_dev_trapdoor_insecure *ret_td,
			   const groth16_row_source *src, uint64_t seed, const groth16_setup_opts *opts,
			   cuzk_error *err)
{
	struct setup_run s;
	groth16_setup_engine cpu;
	groth16_params p;
	memset(&p, 0, sizeof(p));
	double t0 = monotonic_ms();
	setup_begin(&s, src, opts);
	s.engine = engine_of(&s, &cpu);
	int rc = setup_prepare(&s, seed, err);
	double t_open = monotonic_ms();
	if (!rc)
		rc = groth16_params_alloc(&p, s.ni, s.m - 1, s.na, s.n_a, s.n_b, s.n_b, err);
	s.tm.open_ms = monotonic_ms() - t_open;
	if (!rc) {
		groth16_vk vk = s.vk;
		vk.ic = p.vk.ic;
		memcpy(vk.ic, s.ic_points, s.ni * sizeof(g1_aff_t));
		p.vk = vk;
		s.params = &p;
		rc = setup_points(&s, err);
	}
	if (!rc) {
		*ret = p;
		memset(&p, 0, sizeof(p));
		if (ret_td)
			*ret_td = s.td;
	}
	groth16_params_free(&p);
	setup_end(&s, t0);
	return rc;
}

int groth16_dev_setup_rows_write(const char *path, const groth16_row_source *src, uint64_t seed,
				 const groth16_setup_opts *opts, groth16_vk *ret_vk, cuzk_error *err)
{
	struct setup_run s;
	groth16_setup_engine cpu;
	groth16_params_writer w;
	double t0 = monotonic_ms();
	setup_begin(&s, src, opts);
	s.engine = engine_of(&s, &cpu);
	int rc = setup_prepare(&s, seed, err), opened = 0;
	if (!rc) {
		size_t counts[GROTH16_PARAMS_SECTIONS] = { s.m - 1, s.na, s.n_a, s.n_b, s.n_b };
		double t_open = monotonic_ms();
		opened = !(rc = groth16_params_writer_open(&w, path, &s.vk, counts, err));
		s.tm.open_ms = monotonic_ms() - t_open;
	}
	if (!rc) {
		s.writer = &w;
		rc = setup_points(&s, err);
	}
	if (opened) {
		unsigned flags = opts && opts->sync ? ASYNC_WRITER_FSYNC : 0;
		double t_close = monotonic_ms();
		int rc2 = groth16_params_writer_finish(&w, flags, rc ? NULL : err);
		s.tm.close_ms = monotonic_ms() - t_close;
		s.tm.writer = w.stats;
		s.tm.synced = flags && !rc && !rc2;
		rc = rc ? rc : rc2;
	}
	if (!rc && ret_vk)
		rc = groth16_vk_copy(ret_vk, &s.vk, err);
	setup_end(&s, t0);
	return rc;
}

int groth16_dev_setup_insecure_trapdoor(groth16_params *ret, groth16_dev_trapdoor_insecure *ret_td,
					const r1cs *cs, uint64_t seed, cuzk_error *err)
{
	groth16_row_source src;
	groth16_r1cs_rows(&src, cs);
	return groth16_dev_setup_rows(ret, ret_td, &src, seed, NULL, err);
}

int groth16_dev_setup_insecure(groth16_params *ret, const r1cs *cs, uint64_t seed, cuzk_error *err)
{
	return groth16_dev_setup_insecure_trapdoor(ret, NULL, cs, seed, err);
}
