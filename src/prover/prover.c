// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "prover/prover.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/parallel.h"
#include "prover/fr_sample.h"
#include "prover/msm.h"
#include "prover/ntt.h"

size_t groth16_domain_size(size_t n, unsigned *ret_log2)
{
	unsigned log2 = ntt_log2_ceil(n);
	if (ret_log2)
		*ret_log2 = log2;
	return (size_t)1 << log2;
}

struct shape_row {
	const char *field;
	size_t params, witness;
};

/* -CUZK_E_MISMATCH naming the first row where params and witness differ. */
static int check_rows(const struct shape_row *rows, size_t n, cuzk_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].params != rows[i].witness)
			return err_fail(err, CUZK_E_MISMATCH, "params %s: %zu points, but the witness needs %zu",
					rows[i].field, rows[i].params, rows[i].witness);
	return 0;
}

int groth16_check_dims(const groth16_params *p, size_t num_constraints, size_t num_inputs, size_t num_aux,
		       cuzk_error *err)
{
	if (num_constraints == 0 || num_inputs == 0)
		return err_fail(err, CUZK_E_MISMATCH,
				"witness: %zu constraints and %zu inputs (the constant 1 is missing)",
				num_constraints, num_inputs);
	const struct shape_row rows[] = {
		{ "ic (public inputs)", p->vk.n_ic, num_inputs },
		{ "l (aux variables)", p->n_l, num_aux },
		{ "h (domain size - 1)", p->n_h, groth16_domain_size(num_constraints, NULL) - 1 },
	};
	return check_rows(rows, sizeof(rows) / sizeof(rows[0]), err);
}

int groth16_check_densities(const groth16_params *p, size_t num_inputs, size_t a_aux, size_t b_in, size_t b_aux,
			    cuzk_error *err)
{
	const struct shape_row rows[] = {
		{ "a (inputs + a_aux_density)", p->n_a, num_inputs + a_aux },
		{ "b_g1 (b densities)", p->n_b_g1, b_in + b_aux },
		{ "b_g2 (b densities)", p->n_b_g2, b_in + b_aux },
	};
	return check_rows(rows, sizeof(rows) / sizeof(rows[0]), err);
}

int groth16_check_shape(const groth16_params *p, const groth16_witness_view *w, cuzk_error *err)
{
	int r = groth16_check_dims(p, w->num_constraints, w->num_inputs, w->num_aux, err);
	if (r)
		return r;
	return groth16_check_densities(p, w->num_inputs, msm_density_count(w->a_aux_density, w->num_aux),
				       msm_density_count(w->b_input_density, w->num_inputs),
				       msm_density_count(w->b_aux_density, w->num_aux), err);
}

void groth16_span_add(groth16_timings *t, const char *name, const char *lane, int device, double start_ms,
		      double end_ms)
{
	if (t->n_spans >= GROTH16_MAX_SPANS) {
		t->spans_dropped++;
		return;
	}
	t->span[t->n_spans++] = (groth16_span){ name, lane, device, start_ms, end_ms };
}


static void g1_acc(g1_jac_t *acc, const g1_jac_t *p)
{
	g1_jac_t t;
	g1_add(&t, acc, p);
	*acc = t;
}

static void g2_acc(g2_jac_t *acc, const g2_jac_t *p)
{
	g2_jac_t t;
	g2_add(&t, acc, p);
	*acc = t;
}

/* Adds which query failed to a lower layer's message, keeping its code. */
static int in_query(int rc, cuzk_error *err, const char *query)
{
	if (err)
		err_prefix(err, "query %s", query);
	return rc;
}

/* The five query sums are independent.  With two cores and a small domain,
 * splitting each MSM over both threads loses time to thread start/join and
 * to per-thread bucket reductions; running whole MSMs side by side, one
 * thread each, longest first, keeps both cores busy instead (measured: x5
 * at 2^13 and 2^14), all but h (with l), the largest, which runs split
 * before them (query_msms).  Large MSMs have enough work to split, and
 * with more cores the largest task (h and l together) alone would outlast
 * the split, so those keep it. */
#define QUERY_SIDE_BY_SIDE_MAX_THREADS 2
#define QUERY_SIDE_BY_SIDE_MAX_H ((size_t)1 << 17)

enum query { Q_H, Q_L, Q_A, Q_B_G1, Q_B_G2, Q_COUNT };

static const char *const QUERY_NAME[Q_COUNT] = { "h", "l", "a", "b_g1", "b_g2" };
/* Most work first, so that the last task to start is a short one; h (with
 * l merged into it, see groth16_prove_cpu) is the largest. */
static const enum query QUERY_ORDER[Q_COUNT] = { Q_H, Q_B_G2, Q_L, Q_A, Q_B_G1 };

struct query_job {
	groth16_query_sums *q;
	const groth16_params *p;
	const groth16_witness_view *w;
	const fr_t *h;                /* n_h scalars, then the aux ones when hl_merged */
	int h_montgomery;
	int hl_merged;
	unsigned task_threads;
	atomic_uint next;             /* next entry of QUERY_ORDER to take */
	double ms[Q_COUNT], start[Q_COUNT];
	const char *lane[Q_COUNT];
	int rc[Q_COUNT];
	cuzk_error err[Q_COUNT];
};

static int query_sum(struct query_job *j, enum query which, unsigned nt, cuzk_error *err)
{
	groth16_query_sums *q = j->q;
	const groth16_params *p = j->p;
	const groth16_witness_view *w = j->w;
	int mont = w->montgomery, rc = 0;
	size_t ni = w->num_inputs, na = w->num_aux;
	size_t b_in = msm_density_count(w->b_input_density, ni);
	g1_jac_t part1;
	g2_jac_t part2;
	switch (which) {
	case Q_H:
		if (!j->hl_merged) {
			rc = msm_g1_threads(&q->h, p->h, p->n_h, j->h, p->n_h, NULL, 1, nt, err);
			break;
		}
		rc = msm_g1_threads(&q->h, p->h, p->n_h + na, j->h, p->n_h + na, NULL,
				    j->h_montgomery, nt, err);
		g1_set_infinity(&q->l);
		/* h is ours and canonical: a failure is the witness's, and the l MSM
		 * alone names its scalar; else (no memory) it is reported as h's. */
		if (rc && msm_g1_threads(&q->l, p->l, na, w->aux, na, NULL, mont, nt, err))
			which = Q_L;
		break;
	case Q_L:
		if (!j->hl_merged)
			rc = msm_g1_threads(&q->l, p->l, na, w->aux, na, NULL, mont, nt, err);
		break;
	case Q_A:
		/* Every input (the appended input constraints put each one in A),
		 * then the aux variables that occur in A. */
		if (!(rc = msm_g1_threads(&q->a, p->a, ni, w->input, ni, NULL, mont, nt, err)) &&
		    !(rc = msm_g1_threads(&part1, p->a + ni, p->n_a - ni, w->aux, na,
					  w->a_aux_density, mont, nt, err)))
			g1_acc(&q->a, &part1);
		break;
	case Q_B_G1:
		if (!(rc = msm_g1_threads(&q->b_g1, p->b_g1, b_in, w->input, ni,
					  w->b_input_density, mont, nt, err)) &&
		    !(rc = msm_g1_threads(&part1, p->b_g1 + b_in, p->n_b_g1 - b_in, w->aux, na,
					  w->b_aux_density, mont, nt, err)))
			g1_acc(&q->b_g1, &part1);
		break;
	case Q_B_G2:
		if (!(rc = msm_g2_threads(&q->b_g2, p->b_g2, b_in, w->input, ni,
					  w->b_input_density, mont, nt, err)) &&
		    !(rc = msm_g2_threads(&part2, p->b_g2 + b_in, p->n_b_g2 - b_in, w->aux, na,
					  w->b_aux_density, mont, nt, err)))
			g2_acc(&q->b_g2, &part2);
		break;
	default:
		break;
	}
	return rc ? in_query(rc, err, QUERY_NAME[which]) : 0;
}

/* Lanes of the timeline: all threads, or one side-by-side worker. */
static const char *const WORKER_LANE[QUERY_SIDE_BY_SIDE_MAX_THREADS] = { "cpu worker 0", "cpu worker 1" };

static void timed_query(struct query_job *j, enum query which, unsigned nt, const char *lane, cuzk_error *err)
{
	double t0 = monotonic_ms();
	j->rc[which] = query_sum(j, which, nt, err);
	j->start[which] = t0;
	j->lane[which] = lane;
	j->ms[which] = monotonic_ms() - t0;
}

/* Whether running the query MSMs side by side keeps both threads busy: the
 * largest task (h, with l merged in) must not outweigh the rest.  Work is
 * estimated from the scalars that are neither 0 nor 1 (the MSM sums those
 * two without buckets), a G2 addition counting three: with a mostly-0/1
 * witness h alone is most of the work and splitting it wins (measured on
 * the `bits` circuit at 2^14: 0.111 s split against 0.135 s side by side),
 * with a dense witness the tasks balance (x5: 0.276 s against 0.257 s). */
static int side_by_side_balances(const groth16_params *p, const groth16_witness_view *w)
{
	fr_t one_form;
	size_t dense = 0, na = w->num_aux;

	if (w->montgomery)
		one_form = FR_ONE;
	else
		fr_from_mont(one_form.l, &FR_ONE);
	for (size_t i = 0; i < na; i++)
		if (!fr_is_zero(&w->aux[i]) && !fr_eq(&w->aux[i], &one_form))
			dense++;
	double frac = na ? (double)dense / (double)na : 0.0;
	double h = (double)p->n_h + (double)dense;
	double others = frac * ((double)p->n_a + (double)p->n_b_g1 + 3.0 * (double)p->n_b_g2);
	return h <= others;
}

/* One worker of the side-by-side mode: takes the next task until none is left. */
static void query_worker(void *ctx, size_t begin, size_t end, unsigned t)
{
	(void)begin;
	(void)end;
	struct query_job *j = ctx;
	for (unsigned i; (i = atomic_fetch_add(&j->next, 1)) < Q_COUNT;) {
		enum query which = QUERY_ORDER[i];
		timed_query(j, which, j->task_threads, WORKER_LANE[t % QUERY_SIDE_BY_SIDE_MAX_THREADS],
			    &j->err[which]);
	}
}

static int query_msms(groth16_query_sums *q, const groth16_params *p, const groth16_witness_view *w,
		      const fr_t *h, int hl_merged, groth16_timings *t, cuzk_error *err)
{
	struct query_job *j = calloc(1, sizeof(*j));
	if (!j)
		return err_fail(err, CUZK_E_NOMEM, "queries: no memory for the MSM tasks");
	*j = (struct query_job){ .q = q, .p = p, .w = w, .h = h, .hl_merged = hl_merged,
				 .h_montgomery = hl_merged ? w->montgomery : 1 };
	atomic_init(&j->next, 0);
	unsigned nt = parallel_nthreads();
	int rc = 0;
	if (nt > 1 && nt <= QUERY_SIDE_BY_SIDE_MAX_THREADS && p->n_h <= QUERY_SIDE_BY_SIDE_MAX_H &&
	    side_by_side_balances(p, w)) {
		/* h (with l) first, its windows spread over all threads: alone
		 * it outweighs any other task, and run as one of them it left
		 * the other thread idle at the end (x5, proving: 190 ms against
		 * 200 at 2^14, 107 against 111 at 2^13). */
		timed_query(j, Q_H, nt, "cpu", &j->err[Q_H]);
		atomic_store(&j->next, 1);
		j->task_threads = 1;
		parallel_for(nt, 1, nt, query_worker, j);
		/* Report the first failure in query order, as the one-by-one mode would. */
		for (int i = 0; i < Q_COUNT && !rc; i++) {
			if ((rc = j->rc[i]) && err)
				*err = j->err[i];
		}
	} else {
		for (int i = 0; i < Q_COUNT && !rc; i++) {
			timed_query(j, (enum query)i, 0, "cpu", err);
			rc = j->rc[i];
		}
	}
	t->msm_h_ms = j->ms[Q_H];
	t->msm_l_ms = j->ms[Q_L];
	t->msm_a_ms = j->ms[Q_A];
	t->msm_b_g1_ms = j->ms[Q_B_G1];
	t->msm_b_g2_ms = j->ms[Q_B_G2];
	static const char *const SPAN_NAME[Q_COUNT] = { "msm h", "msm l", "msm a", "msm b_g1", "msm b_g2" };
	for (int i = 0; i < Q_COUNT; i++)
		if (j->lane[i] && !(i == Q_L && hl_merged))
			groth16_span_add(t, i == Q_H && hl_merged ? "msm h+l" : SPAN_NAME[i], j->lane[i], -1,
					 j->start[i], j->start[i] + j->ms[i]);
	free(j);
	return rc;
}

int groth16_prove_cpu(const groth16_params *p, const groth16_witness_view *w, const fr_t *r,
		      const fr_t *s, groth16_proof *out, groth16_timings *t, cuzk_error *err)
{
	groth16_timings local;
	if (!t)
		t = &local;
	memset(t, 0, sizeof(*t));
	int rc = groth16_check_shape(p, w, err);
	if (rc)
		return rc;
	double t0 = monotonic_ms();
	/* ΣH and ΣL both only enter C, so where their bases lie back to back
	 * (as groth16_params_alloc lays them out) they are one MSM: one bucket
	 * reduction fewer, and a wider window.  The scalars are put side by
	 * side in the witness's form. */
	int hl_merged = p->l == p->h + p->n_h && w->num_aux > 0;
	size_t n_scalars = p->n_h + (hl_merged ? w->num_aux : 0);
	fr_t *h = malloc((n_scalars ? n_scalars : 1) * sizeof(fr_t));
	if (!h)
		return err_fail(err, CUZK_E_NOMEM, "h: no memory for %zu scalars", n_scalars);
	rc = groth16_compute_h(h, w->a, w->b, w->c, w->num_constraints, w->montgomery, err);
	if (!rc && hl_merged) {
		if (!w->montgomery)
			for (size_t i = 0; i < p->n_h; i++) {
				uint64_t k[4];
				fr_from_mont(k, &h[i]);
				memcpy(h[i].l, k, sizeof(k));
			}
		memcpy(h + p->n_h, w->aux, w->num_aux * sizeof(fr_t));
	}
	double t1 = monotonic_ms();
	t->ntt_ms = t1 - t0;
	groth16_span_add(t, "ntt (h)", "cpu", -1, t0, t1);
	groth16_query_sums q;
	if (!rc)
		rc = query_msms(&q, p, w, h, hl_merged, t, err);
	free(h);
	if (rc)
		return rc;
	double t2 = monotonic_ms();
	groth16_assemble(out, &p->vk, &q, r, s);
	double t3 = monotonic_ms();
	t->assemble_ms = t3 - t2;
	groth16_span_add(t, "assemble", "cpu", -1, t2, t3);
	t->total_ms = t3 - t0;
	return 0;
}

int groth16_random_rs(fr_t *r, fr_t *s, cuzk_error *err)
{
	int rc = fr_sample_getrandom(r, err);
	return rc ? rc : fr_sample_getrandom(s, err);
}

void groth16_seeded_rs(fr_t *r, fr_t *s, uint64_t seed, unsigned partition)
{
	rng_t rng;
	rng_seed(&rng, seed ^ ((uint64_t)partition + 1) * 0x9e3779b97f4a7c15ull);
	fr_sample_rng(r, &rng);
	fr_sample_rng(s, &rng);
	explicit_bzero(&rng, sizeof(rng));
}
