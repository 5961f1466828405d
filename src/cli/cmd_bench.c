// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk bench prove|msm|ntt: timings per phase on a chosen backend.
 *
 *   prove: synthetic circuit (gencircuit, --shape) → dev setup on the
 *          backend's engine or --params FILE loaded (timed, but not part of
 *          the proof) → synthesis → --partitions proofs (NTT, each MSM,
 *          total; --trace: a timeline of every span) → verify each;
 *   load:  a parameter file decoded (and uploaded, on a GPU);
 *   msm:   one G1 (or G2) MSM of 2^K points with uniform scalars, or
 *          (--shape porep) scalars shaped like a PoRep witness;
 *   ntt:   one forward NTT of 2^K scalars.
 * Backends come from prover/backend.h: a new one needs no change here. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bls12_381/encoding.h"
#include "bls12_381/fr.h"

#include "cli/bench_msm_device.h"
#include "cli/bench_report.h"
#include "cli/cli.h"
#include "cli/cli_params.h"
#include "common/clock.h"
#include "common/rand.h"
#include "devtools/gencircuit.h"
#include "devtools/setup.h"
#include "devtools/synth.h"
#include "formats/params_io.h"
#include "formats/trace_json.h"
#include "prover/backend.h"
#include "prover/fr_sample.h"
#include "prover/ntt.h"
#include "prover/prover.h"
#include "prover/shared_view.h"
#include "prover/verifier.h"

struct bench_args {
	const struct groth16_backend *be;
	groth16_device *ctx;
	unsigned log_size;
	uint64_t seed;
	uint64_t inputs;           /* prove: public inputs besides the constant 1 */
	int inputs_given;
	uint64_t runs;             /* prove: best of this many proofs (or sectors) */
	uint64_t partitions;       /* prove: partitions per run, the same witness each */
	uint64_t parallel;         /* prove: partitions proved at once, each on its own thread */
	enum gencircuit_shape shape;
	const char *params_path;   /* prove: load these instead of the dev setup; load: the file */
	unsigned params_checks;
	int pin;                   /* prove: page-lock the witness (GPU) */
	void *pinned[5];           /* prove: what pin_witness registered */
	unsigned n_pinned;
	uint64_t *pinned_bits;     /* prove: the density bitmaps' registered copy */
	int registered;            /* prove: every part of the witness is registered */
	int g2;                    /* msm: G2 instead of G1 */
	int coset;                 /* ntt: coset forward (device-timed backends only) */
	groth16_trace *trace;      /* --trace: every span of every proof */
	struct bench_report rep;
};

/* A span of the benchmark itself on the timeline (not a proof's). */
static void trace_host(struct bench_args *a, const char *name, double t0, double t1)
{
	if (a->trace)
		groth16_trace_add_span(a->trace, name, "cuzk bench", -1, t0, t1, NULL);
}

/* --trace: how long the GPU's compute streams sat idle between their
 * spans, a line per GPU, and GPU 0's figures in the report (all runs). */
static int report_busy(struct bench_args *a, cuzk_error *err)
{
	struct groth16_trace_busy b = { .first_ms = -1 };
	int r = groth16_trace_print_busy(a->trace, stdout, &b, err);

	if (r > 0 && b.first_ms >= 0) {
		bench_phase(&a->rep, "gpu 0 compute, first span to last", b.last_ms - b.first_ms, 1);
		bench_phase(&a->rep, "gpu 0 compute idle in it", b.idle_ms, 1);
	}
	return r < 0 ? r : 0;
}

struct load_stats {
	struct cli_load_stats l;
	size_t points;
};

/* Loads a parameter file with a progress line; on a backend with device
 * memory the params are uploaded while they are decoded, and the load ends
 * when they are ready to prove there (cli_params_read). */
static int load_params(struct bench_args *a, groth16_params *p, struct load_stats *st, cuzk_error *err)
{
	struct cli_progress pr;
	cli_progress_init(&pr, "loading parameters");
	groth16_params_load_opts o = { .checks = a->params_checks, .progress = cli_progress_update,
				       .progress_ctx = &pr };
	double t0 = monotonic_ms();
	int r = cli_params_read(p, a->params_path, &o, a->be, a->ctx, &st->l, err);
	if (r < 0)
		return r;
	cli_progress_end(&pr, st->l.decode_ms);
	st->points = p->vk.n_ic + p->n_h + p->n_l + p->n_a + p->n_b_g1 + p->n_b_g2;
	trace_host(a, "load params", t0, t0 + st->l.decode_ms);
	if (st->l.device)
		trace_host(a, "srs upload tail", t0 + st->l.decode_ms, t0 + st->l.decode_ms + st->l.tail_ms);
	return 0;
}

static void report_load(struct bench_args *a, const struct load_stats *st, int excluded)
{
	const struct cli_load_stats *l = &st->l;
	bench_count(&a->rep, "points", st->points);
	bench_phase(&a->rep, "load params", l->decode_ms, excluded);
	bench_phase(&a->rep, "load params cpu (all threads)", l->cpu_ms, excluded);
	bench_phase(&a->rep, "load params sys (all threads)", l->sys_ms, excluded);
	bench_phase(&a->rep, "load ms per million points", l->decode_ms / ((double)st->points / 1e6), excluded);
	if (l->device) {
		bench_count(&a->rep, "points decoded on the device", l->device_decoded);
		bench_phase(&a->rep, "srs upload tail (after decoding)", l->tail_ms, excluded);
		bench_phase(&a->rep, "params ready (load + upload)", l->decode_ms + l->tail_ms, excluded);
	}
}

/* The development setup on the backend's engine, in memory. */
static int make_params(struct bench_args *a, groth16_params *p, const groth16_row_source *rows, cuzk_error *err)
{
	const groth16_setup_engine *engine = NULL;
	int r = a->be->setup_engine ? a->be->setup_engine(a->ctx, &engine, err) : 0;
	if (r < 0)
		return r;
	struct cli_progress pr;
	cli_progress_init(&pr, engine ? "dev setup (gpu)" : "dev setup (cpu)");
	groth16_setup_opts o = { .engine = engine, .progress = cli_progress_update, .progress_ctx = &pr };
	double t0 = monotonic_ms();
	if ((r = groth16_dev_setup_rows(p, NULL, rows, a->seed, &o, err)) < 0)
		return r;
	double t1 = monotonic_ms();
	cli_progress_end(&pr, t1 - t0);
	bench_phase(&a->rep, engine ? "dev setup (gpu)" : "dev setup (cpu)", t1 - t0, 1);
	trace_host(a, "dev setup", t0, t1);
	return 0;
}

/* Page-locks every part of the witness (GPU): a, b, c, z (input and aux),
 * and the density bitmaps, which are copied first into one page-aligned
 * block that w then points at: small heap bitmaps could share a page with
 * each other, which cudaHostRegister refuses, and one block is what a
 * client's memfd gives the daemon.  Left pageable, the bitmaps (32 MiB at
 * 2^27) would cross PCIe by the driver's staging, several times slower,
 * ahead of every partition's transforms. */
static int pin_witness(struct bench_args *a, groth16_synth *s, groth16_witness_view *w, fr_t *z, size_t nz,
		       cuzk_error *err)
{
	if (!a->be->register_host)
		return err_fail(err, CUZK_E_UNSUPPORTED, "--pin: backend %s reads the witness in place", a->be->name);
	double t0 = monotonic_ms();
	const size_t page = 4096;
	const size_t bit_bytes = (groth16_view_density_words(w) * sizeof(uint64_t) + page - 1) / page * page;
	uint64_t *bits = aligned_alloc(page, bit_bytes);   /* never 0 bytes: input[0] is always there */
	if (!bits)
		return err_fail(err, CUZK_E_NOMEM, "--pin: no memory for a copy of the density bitmaps (%zu bytes)",
				bit_bytes);
	a->pinned_bits = bits;
	groth16_view_move_densities(w, bits);
	const size_t n = s->num_constraints * sizeof(fr_t);
	void *const part[5] = { s->a, s->b, s->c, z, bits };
	const size_t len[5] = { n, n, n, nz * sizeof(fr_t), bit_bytes };
	for (unsigned i = 0; i < 5; i++) {
		int r = a->be->register_host(part[i], len[i], err);
		if (r < 0)
			return r;
		a->pinned[a->n_pinned++] = part[i];
	}
	a->registered = 1;
	double t1 = monotonic_ms();
	bench_phase(&a->rep, "pin witness", t1 - t0, 1);
	trace_host(a, "pin witness", t0, t1);
	return 0;
}

/* Lets go of what pin_witness registered (before the memory is freed). */
static void unpin_witness(struct bench_args *a)
{
	for (unsigned i = 0; i < a->n_pinned; i++)
		a->be->unregister_host(a->pinned[i]);
	a->n_pinned = 0;
	a->registered = 0;
	free(a->pinned_bits);
	a->pinned_bits = NULL;
}

/* Phase sums over the partitions of one run. */
static void add_timings(groth16_timings *sum, const groth16_timings *t)
{
	sum->upload_ms += t->upload_ms;
	sum->ntt_ms += t->ntt_ms;
	sum->msm_h_ms += t->msm_h_ms;
	sum->msm_l_ms += t->msm_l_ms;
	sum->msm_a_ms += t->msm_a_ms;
	sum->msm_b_g1_ms += t->msm_b_g1_ms;
	sum->msm_b_g2_ms += t->msm_b_g2_ms;
	sum->assemble_ms += t->assemble_ms;
	sum->total_ms += t->total_ms;
}

static void report_proofs(struct bench_args *a, const groth16_timings *sum, double wall, double cpu)
{
	double n = (double)a->partitions;
	struct { const char *name; double ms; int always; } rows[] = {
		{ "upload", sum->upload_ms, 0 },     { "ntt (h)", sum->ntt_ms, 1 },
		{ "msm h", sum->msm_h_ms, 1 },       { "msm l", sum->msm_l_ms, 1 },
		{ "msm a", sum->msm_a_ms, 1 },       { "msm b_g1", sum->msm_b_g1_ms, 1 },
		{ "msm b_g2", sum->msm_b_g2_ms, 1 }, { "assemble", sum->assemble_ms, 1 },
		{ "prove total", sum->total_ms > 0 ? sum->total_ms : wall, 1 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].always || rows[i].ms > 0)
			bench_phase(&a->rep, rows[i].name, rows[i].ms / n, 0);
	bench_phase(&a->rep, "prove wall", wall / n, 0);
	bench_phase(&a->rep, "prove cpu (all threads)", cpu / n, 0);
	if (a->partitions > 1)
		bench_phase(&a->rep, "all partitions wall", wall, 0);
}

/* What the proofs held on the device at most (a backend with memory of its
 * own): the budget, the most of it reserved at once, and the most the device
 * reported in use, CUDA context and all. */
static int report_memory(struct bench_args *a, cuzk_error *err)
{
	struct groth16_mem m;
	if (!a->be->mem)
		return 0;
	if (a->be->mem(a->ctx, &m) < 0)
		return err_fail(err, CUZK_E_GPU, "bench: reading the %s device's memory figures", a->be->name);
	bench_size(&a->rep, "vram budget MiB", m.budget >> 20);
	bench_size(&a->rep, "vram peak reserved MiB", m.peak_reserved >> 20);
	bench_size(&a->rep, "device used MiB", m.peak_device_used >> 20);
	return 0;
}

struct prove_job {
	struct bench_args *a;
	const groth16_params *p;
	const groth16_witness_view *w;
	groth16_proof *proofs;
	groth16_timings *tms;
	unsigned thread;
	int rc;
	cuzk_error err;
};

/* Partitions thread, thread + parallel, ... of one run. */
static void *prove_some(void *arg)
{
	struct prove_job *j = arg;
	struct bench_args *a = j->a;
	for (uint64_t part = j->thread; part < a->partitions && j->rc == 0; part += a->parallel) {
		fr_t rr, ss;
		groth16_seeded_rs(&rr, &ss, a->seed, (unsigned)part);
		memset(&j->tms[part], 0, sizeof(j->tms[part]));
		j->rc = a->be->prove(a->ctx, j->p, j->w, a->registered, &rr, &ss, &j->proofs[part], &j->tms[part],
				     &j->err);
		if (j->rc)
			err_prefix(&j->err, "partition %llu", (unsigned long long)part);
	}
	return NULL;
}

/* Every partition of one run: one after the other, or --parallel N at once
 * (on a GPU each has its own working memory and streams, so the upload of
 * one runs beside the NTTs and MSMs of another). */
static int prove_partitions(struct bench_args *a, const groth16_params *p, const groth16_witness_view *w,
			    groth16_proof *proofs, groth16_timings *tms, cuzk_error *err)
{
	unsigned n = (unsigned)(a->parallel < a->partitions ? a->parallel : a->partitions);
	struct prove_job *jobs = calloc(n, sizeof(*jobs));
	pthread_t *th = calloc(n, sizeof(*th));
	if (!jobs || !th) {
		free(jobs);
		free(th);
		return err_fail(err, CUZK_E_NOMEM, "bench: out of memory for %u provers", n);
	}
	unsigned started = 0;
	for (unsigned t = 0; t < n; t++) {
		jobs[t] = (struct prove_job){ a, p, w, proofs, tms, t, 0, { 0, "" } };
		if (t == 0)
			continue;   /* the calling thread is the first prover */
		int e = pthread_create(&th[t], NULL, prove_some, &jobs[t]);
		if (e) {
			jobs[t].rc = err_fail_errno(&jobs[t].err, e, "bench: starting prover thread %u", t);
			break;
		}
		started = t;
	}
	prove_some(&jobs[0]);
	for (unsigned t = 1; t <= started; t++)
		pthread_join(th[t], NULL);
	int r = 0;
	for (unsigned t = 0; t < n && r == 0; t++)
		if ((r = jobs[t].rc) && err)
			*err = jobs[t].err;
	free(jobs);
	free(th);
	return r;
}

static int bench_prove(struct bench_args *a, cuzk_error *err)
{
	gencircuit_spec spec = { .log_constraints = a->log_size, .seed = a->seed, .shape = a->shape,
				 .num_inputs = a->inputs_given ? (size_t)a->inputs + 1 : gencircuit_default_inputs(a->shape) };
	int r = gencircuit_check_spec(&spec, err);
	if (r < 0)
		return r;
	groth16_row_source rows;
	gencircuit_rows(&spec, &rows);
	size_t ni = spec.num_inputs, na = gencircuit_num_aux(&spec);
	fr_t *z = NULL;
	double t0 = monotonic_ms();
	if ((r = gencircuit_assignment(&spec, &z, err)) < 0)
		return r;
	double t1 = monotonic_ms();
	bench_phase(&a->rep, "generate witness values", t1 - t0, 1);
	trace_host(a, "generate witness values", t0, t1);
	bench_count(&a->rep, "constraints", gencircuit_num_constraints(&spec));
	bench_count(&a->rep, "inputs", ni);
	bench_count(&a->rep, "aux", na);
	if (a->partitions > 1)
		bench_count(&a->rep, "partitions", a->partitions);
	if (a->parallel > 1)
		bench_count(&a->rep, "parallel", a->parallel);

	groth16_params p;
	groth16_synth s;
	groth16_proof *proofs = NULL;
	int have_params = 0, have_synth = 0;
	struct load_stats st;
	if (a->params_path && (r = load_params(a, &p, &st, err)) == 0)
		report_load(a, &st, 1);
	else if (!a->params_path)
		r = make_params(a, &p, &rows, err);
	if (r < 0)
		goto out;
	have_params = 1;
	double t2 = monotonic_ms();
	if ((r = groth16_synthesize_rows(&s, &rows, z, ni + na, err)) < 0)
		goto out;
	have_synth = 1;
	if ((r = groth16_synth_check(&s, err)) < 0)
		goto out;
	double t3 = monotonic_ms();
	bench_phase(&a->rep, "synthesize", t3 - t2, 1);
	trace_host(a, "synthesize", t2, t3);
	groth16_witness_view w;
	groth16_synth_view(&w, &s, z);
	if ((r = groth16_check_shape(&p, &w, err)) < 0) {
		err_prefix(err, "the parameters do not fit a %s circuit of 2^%u with %zu inputs",
			   gencircuit_shape_name(a->shape), a->log_size, ni);
		goto out;
	}
	if (a->pin && (r = pin_witness(a, &s, &w, z, ni + na, err)) < 0)
		goto out;
	if (a->be->load_params) {
		double t4 = monotonic_ms();
		if ((r = a->be->load_params(a->ctx, &p, err)) < 0)
			goto out;
		bench_phase(&a->rep, "srs upload (first use)", monotonic_ms() - t4, 1);
		trace_host(a, "srs upload", t4, monotonic_ms());
	}
	/* From here the device's peaks describe the proofs (with the SRS and
	 * whatever else stays reserved while they run), not the setup. */
	if (a->be->mem_reset_peaks && (r = a->be->mem_reset_peaks(a->ctx, err)) < 0)
		goto out;

	groth16_timings *tms = calloc(a->partitions, sizeof(*tms));
	if (!(proofs = calloc(a->partitions, sizeof(*proofs))) || !tms) {
		free(tms);
		r = err_fail(err, CUZK_E_NOMEM, "bench: no memory for %llu proofs", (unsigned long long)a->partitions);
		goto out;
	}
	/* Best of a->runs: the run with the least wall time, phases and all. */
	groth16_timings best = { 0 };
	double best_wall = 0, best_cpu = 0;
	for (uint64_t run = 0; run < a->runs && r == 0; run++) {
		groth16_timings sum = { 0 };
		double ci = cli_cpu_ms(), ti = monotonic_ms();
		r = prove_partitions(a, &p, &w, proofs, tms, err);
		double to = monotonic_ms(), co = cli_cpu_ms();
		for (uint64_t part = 0; part < a->partitions && r == 0; part++) {
			add_timings(&sum, &tms[part]);
			if (a->trace)
				r = groth16_trace_add_proof(a->trace, &tms[part], (unsigned)part, NULL, err);
		}
		if (r == 0 && (run == 0 || to - ti < best_wall)) {
			best = sum;
			best_wall = to - ti;
			best_cpu = co - ci;
		}
	}
	free(tms);
	if (r < 0)
		goto out;
	if (a->runs > 1)
		bench_count(&a->rep, "runs (best of)", a->runs);
	report_proofs(a, &best, best_wall, best_cpu);
	if ((r = report_memory(a, err)) < 0 || (a->trace && (r = report_busy(a, err)) < 0))
		goto out;
	double t6 = monotonic_ms();
	for (uint64_t part = 0; part < a->partitions; part++) {
		if ((r = groth16_verify(&p.vk, z + 1, ni - 1, &proofs[part], err)) < 0) {
			err_prefix(err, "the benchmark's own proof (partition %llu)", (unsigned long long)part);
			goto out;
		}
	}
	bench_phase(&a->rep, "verify (every proof)", monotonic_ms() - t6, 1);
	trace_host(a, "verify", t6, monotonic_ms());
out:
	free(proofs);
	unpin_witness(a);
	if (have_synth)
		groth16_synth_free(&s);
	if (have_params && a->be->unload_params)
		a->be->unload_params(a->ctx, &p);
	if (have_params)
		groth16_params_free(&p);
	free(z);
	return r;
}

/* Loading a parameter file (--params FILE), as `cuzk prove` and cuzkd do,
 * with (GPU) its upload beside the decoding; the run that was ready first
 * of --runs. */
static int bench_load(struct bench_args *a, cuzk_error *err)
{
	if (!a->params_path)
		return cli_usage(err, "--params is required");
	struct load_stats best = { 0 };
	for (uint64_t run = 0; run < a->runs; run++) {
		groth16_params p;
		struct load_stats st;
		int r = load_params(a, &p, &st, err);
		if (r < 0)
			return r;
		if (a->be->unload_params)
			a->be->unload_params(a->ctx, &p);
		groth16_params_free(&p);
		if (run == 0 || st.l.decode_ms + st.l.tail_ms < best.l.decode_ms + best.l.tail_ms)
			best = st;
	}
	if (a->runs > 1)
		bench_count(&a->rep, "runs (best of)", a->runs);
	report_load(a, &best, 0);
	return 0;
}

/* A scalar of --shape porep: the witness's mix of docs/BENCHMARKS.md ("The
 * synthetic circuit"), 45% zeros, 45% ones, 10% uniform; an MSM treats its
 * zeros and ones apart from the rest. */
static void porep_scalar(fr_t *k, rng_t *rng)
{
	const uint64_t u = rng_next(rng) % 100;
	if (u < 45)
		*k = FR_ZERO;
	else if (u < 90)
		*k = FR_ONE;
	else
		fr_sample_rng(k, rng);
}

/* Bases P_i = (i+1)·G, by additions (cheap even for 2^20 points), and
 * uniform scalars (the worst case for Pippenger, no 0/1 shortcuts) or, with
 * --shape porep, a witness's. */
static int bench_msm(struct bench_args *a, cuzk_error *err)
{
	const int porep = a->shape == GENCIRCUIT_SHAPE_POREP;
	if (a->be->msm_bench)   /* points made and kept on the device */
		return bench_msm_device(&a->rep, a->be, a->ctx, a->g2, a->log_size, porep, err);
	if (a->g2 ? !a->be->msm_g2 : !a->be->msm_g1)
		return err_fail(err, CUZK_E_UNSUPPORTED, "backend %s has no %s MSM to measure", a->be->name,
				a->g2 ? "G2" : "G1");
	size_t n = (size_t)1 << a->log_size;
	size_t aff = a->g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
	size_t jac = a->g2 ? sizeof(g2_jac_t) : sizeof(g1_jac_t);
	fr_t *k = malloc(n * sizeof(fr_t));
	void *bases = malloc(n * aff);
	void *tmp = malloc(n * jac);
	int r = 0;
	if (!k || !bases || !tmp) {
		r = err_fail(err, CUZK_E_NOMEM, "bench msm: no memory for 2^%u points", a->log_size);
		goto out;
	}
	rng_t rng;
	rng_seed(&rng, a->seed);
	for (size_t i = 0; i < n; i++) {
		if (porep)
			porep_scalar(&k[i], &rng);
		else
			fr_sample_rng(&k[i], &rng);
	}
	double t0 = monotonic_ms();
	if (a->g2) {
		g2_jac_t *j = tmp, g;
		g2_from_affine(&g, &G2_GENERATOR);
		j[0] = g;
		for (size_t i = 1; i < n; i++)
			g2_add(&j[i], &j[i - 1], &g);
		g2_batch_to_affine(bases, j, n);
	} else {
		g1_jac_t *j = tmp, g;
		g1_from_affine(&g, &G1_GENERATOR);
		j[0] = g;
		for (size_t i = 1; i < n; i++)
			g1_add(&j[i], &j[i - 1], &g);
		g1_batch_to_affine(bases, j, n);
	}
	double t1 = monotonic_ms(), c1 = cli_cpu_ms();
	bench_phase(&a->rep, "make points", t1 - t0, 1);
	bench_count(&a->rep, "points", n);
	r = a->g2 ? a->be->msm_g2(a->ctx, tmp, bases, k, n, err) : a->be->msm_g1(a->ctx, tmp, bases, k, n, err);
	if (r == 0) {
		bench_phase(&a->rep, a->g2 ? "msm g2" : "msm g1", monotonic_ms() - t1, 0);
		bench_phase(&a->rep, "msm cpu (all threads)", cli_cpu_ms() - c1, 0);
	}
out:
	free(k);
	free(bases);
	free(tmp);
	return r;
}

/* The first transform pays for the twiddles (and, on a GPU, warm-up); the
 * second is the figure. */
static int bench_ntt(struct bench_args *a, cuzk_error *err)
{
	if (!a->be->ntt)
		return err_fail(err, CUZK_E_UNSUPPORTED, "backend %s has no NTT to measure", a->be->name);
	size_t n = (size_t)1 << a->log_size;
	fr_t *v = malloc(n * sizeof(fr_t));
	if (!v)
		return err_fail(err, CUZK_E_NOMEM, "bench ntt: no memory for 2^%u scalars", a->log_size);
	rng_t rng;
	rng_seed(&rng, a->seed);
	for (size_t i = 0; i < n; i++)
		fr_sample_rng(&v[i], &rng);
	bench_count(&a->rep, "scalars", n);
	double t0 = monotonic_ms();
	int r = a->be->ntt(a->ctx, v, a->log_size, err);
	double t1 = monotonic_ms();
	if (r == 0)
		r = a->be->ntt(a->ctx, v, a->log_size, err);
	if (r == 0) {
		bench_phase(&a->rep, "first ntt (twiddles)", t1 - t0, 1);
		bench_phase(&a->rep, a->be->ntt_device ? "ntt with transfers" : "ntt", monotonic_ms() - t1,
			    a->be->ntt_device != NULL);
	}
	/* A device backend is timed on resident data too: that is the kernel
	 * figure (median of 10), transfers excluded. */
	if (r == 0 && a->be->ntt_device) {
		double ms = 0;
		r = a->be->ntt_device(a->ctx, v, a->log_size, a->coset ? GROTH16_NTT_COSET_FORWARD : GROTH16_NTT_FORWARD, 10, &ms, err);
		if (r == 0)
			bench_phase(&a->rep, a->coset ? "coset ntt (device, median of 10)" : "ntt (device, median of 10)",
				    ms, 0);
	} else if (r == 0 && a->coset) {
		r = err_fail(err, CUZK_E_UNSUPPORTED, "backend %s: --coset is measured on a device only",
			     a->be->name);
	}
	free(v);
	return r;
}

static const struct {
	const char *name;
	const char *size_option;   /* NULL: none */
	unsigned max_log;
	int (*run)(struct bench_args *a, cuzk_error *err);
} benches[] = {
	{ "prove", "log-constraints", GENCIRCUIT_MAX_LOG, bench_prove },
	{ "msm", "log-size", 28, bench_msm },
	{ "ntt", "log-size", NTT_MAX_LOG, bench_ntt },
	{ "load", NULL, 0, bench_load },
};

static int run(int argc, char **argv, cuzk_error *err)
{
	size_t which = sizeof(benches) / sizeof(benches[0]);
	for (size_t i = 0; argc >= 2 && i < sizeof(benches) / sizeof(benches[0]); i++)
		if (strcmp(argv[1], benches[i].name) == 0)
			which = i;
	const char *backend_s = NULL, *log_s = NULL, *inputs_s = NULL, *seed_s = NULL, *json_path = NULL;
	const char *g2_s = NULL, *coset_s = NULL, *runs_s = NULL, *shape_s = NULL, *params_s = NULL;
	const char *check_s = NULL, *partitions_s = NULL, *pin_s = NULL, *trace_s = NULL, *parallel_s = NULL;
	struct cli_option opts[] = {
		{ "backend", "cpu|gpu", &backend_s, "which backend (default cpu); gpu: the dev setup too" },
		{ "log-constraints", "K", &log_s, "prove: a domain of 2^K" },
		{ "log-size", "K", &log_s, "msm, ntt: 2^K points or scalars" },
		{ "shape", "basic|porep", &shape_s,
		  "prove: the synthetic circuit's shape; msm: porep for a witness's scalars (default basic)" },
		{ "inputs", "N", &inputs_s, "prove: public inputs besides the constant 1 (default 1; porep 327)" },
		{ "params", "FILE", &params_s, "prove: load these parameters instead of the dev setup; load: the file" },
		{ "params-check", "all|curve|none", &check_s, "prove, load: checks of the query points (default curve)" },
		{ "partitions", "N", &partitions_s, "prove: N partitions (the same witness) per run (default 1)" },
		{ "parallel", "N", &parallel_s, "prove: prove N partitions at once, each on its own thread (default 1)" },
		{ "pin", NULL, &pin_s, "prove: page-lock the witness, so the GPU reads it by DMA" },
		{ "trace", "FILE", &trace_s, "prove, load: a Chrome trace-event timeline (Perfetto)" },
		{ "g2", NULL, &g2_s, "msm: G2 instead of G1" },
		{ "coset", NULL, &coset_s, "ntt: the coset NTT (gpu)" },
		{ "runs", "N", &runs_s, "prove, load: report the fastest of N runs (default 1)" },
		{ "seed", "N", &seed_s, "seed of circuit, trapdoor, r and s, scalars (default 1)" },
		{ "json", "FILE", &json_path, "also write the figures as JSON" },
	};
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return cli_parse(&cli_cmd_bench, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (which == sizeof(benches) / sizeof(benches[0]))
		return cli_usage(err, "expected prove, msm, ntt or load after bench%s%s",
				 argc >= 2 ? ", not " : "", argc >= 2 ? argv[1] : "");
	int r = cli_parse(&cli_cmd_bench, opts, sizeof(opts) / sizeof(opts[0]), argc - 1, argv + 1, err);
	if (r != 0)
		return r;
	if (benches[which].size_option && (r = cli_require(benches[which].size_option, log_s, err)) < 0)
		return r;
	struct bench_args a = { .seed = 1, .runs = 1, .partitions = 1, .parallel = 1, .params_path = params_s,
				.pin = pin_s != NULL, .g2 = g2_s != NULL, .coset = coset_s != NULL };
	uint64_t log_k = 0;
	a.inputs_given = inputs_s != NULL;
	if ((benches[which].size_option &&
	     (r = cli_parse_u64(benches[which].size_option, log_s, 1, benches[which].max_log, &log_k, err)) < 0) ||
	    (r = cli_parse_u64("inputs", inputs_s, 0, UINT32_MAX, &a.inputs, err)) < 0 ||
	    (r = cli_parse_u64("runs", runs_s, 1, 1000, &a.runs, err)) < 0 ||
	    (r = cli_parse_u64("partitions", partitions_s, 1, 1000, &a.partitions, err)) < 0 ||
	    (r = cli_parse_u64("parallel", parallel_s, 1, 16, &a.parallel, err)) < 0 ||
	    (r = cli_parse_u64("seed", seed_s, 0, UINT64_MAX, &a.seed, err)) < 0 ||
	    (r = cli_value(gencircuit_shape_parse(&a.shape, shape_s, err))) < 0 ||
	    (r = cli_parse_params_check(check_s, &a.params_checks, err)) < 0 ||
	    (r = cli_backend_find(&a.be, backend_s, err)) < 0)
		return r;
	a.log_size = (unsigned)log_k;
	a.rep.bench = benches[which].name;
	a.rep.backend = a.be->name;
	a.rep.log_size = a.log_size;
	if (shape_s && benches[which].run != bench_prove && benches[which].run != bench_msm)
		return cli_usage(err, "--shape is for prove and msm, not %s", benches[which].name);
	a.rep.shape = benches[which].run == bench_prove || shape_s ? gencircuit_shape_name(a.shape) : NULL;
	if (trace_s && (r = groth16_trace_new(&a.trace, "cuzk bench", err)) < 0)
		return r;
	if ((r = a.be->open(&a.ctx, 0, 0, err)) < 0)
		err_prefix(err, "--backend %s", a.be->name);
	else {
		r = benches[which].run(&a, err);
		a.be->close(a.ctx);
	}
	if (r == 0 && a.trace)
		r = groth16_trace_write(a.trace, trace_s, err);
	groth16_trace_free(a.trace);
	if (r < 0)
		return r;
	bench_report_print(&a.rep);
	return json_path ? bench_report_json(&a.rep, json_path, err) : 0;
}

const struct cli_command cli_cmd_bench = {
	.name = "bench",
	.summary = "time a proof (per phase), an MSM, an NTT or loading parameters on a backend",
	.usage = "prove --backend cpu|gpu --log-constraints K [--shape basic|porep] [--params FILE]\n"
		 "                   [--partitions N] [--parallel N] [--pin] [--runs N] [--trace FILE] [--json FILE]\n"
		 "       cuzk bench msm|ntt --backend cpu|gpu --log-size K [--g2] [--shape basic|porep] [--coset]\n"
		 "                   [--json FILE]\n"
		 "       cuzk bench load --params FILE [--backend cpu|gpu] [--params-check all|curve|none] [--runs N]",
	.run = run,
};
