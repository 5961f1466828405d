// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk bench prove|msm|ntt: timings per phase on a chosen backend.
 *
 *   prove: synthetic circuit (gencircuit) → dev setup (timed, but not part of
 *          the proof) → synthesis → proof (NTT, each MSM, total) → verify;
 *   msm:   one G1 (or G2) MSM of 2^K points with uniform scalars;
 *   ntt:   one forward NTT of 2^K scalars.
 * Backends come from cli_backend.h: a new one needs no change here. */
#include <stdlib.h>
#include <string.h>

#include "cli/bench_msm_gpu.h"
#include "cli/bench_report.h"
#include "cli/cli.h"
#include "cli/cli_backend.h"
#include "common/clock.h"
#include "common/rand.h"
#include "groth16/fr_sample.h"
#include "groth16/gencircuit.h"
#include "groth16/ntt.h"
#include "groth16/params_io.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/synth.h"
#include "groth16/verifier.h"

struct bench_args {
	const struct cli_backend *be;
	cli_backend_ctx *ctx;
	unsigned log_size;
	uint64_t seed;
	uint64_t inputs;           /* prove: public inputs besides the constant 1 */
	uint64_t runs;             /* prove: best of this many proofs */
	int g2;                    /* msm: G2 instead of G1 */
	int coset;                 /* ntt: coset forward (device-timed backends only) */
	struct bench_report rep;
};

static int bench_prove(struct bench_args *a, cuzk_error *err)
{
	gencircuit_spec spec = { .log_constraints = a->log_size, .num_inputs = (size_t)a->inputs + 1,
				 .seed = a->seed };
	int r = gencircuit_check_spec(&spec, err);
	if (r < 0)
		return r;
	r1cs cs;
	fr_t *z;
	double t0 = monotonic_ms();
	if ((r = gencircuit_build(&spec, &cs, &z, err)) < 0)
		return r;
	double t1 = monotonic_ms();
	bench_phase(&a->rep, "generate circuit", t1 - t0, 1);
	bench_count(&a->rep, "constraints", cs.num_constraints + cs.num_inputs);
	bench_count(&a->rep, "inputs", cs.num_inputs);
	bench_count(&a->rep, "aux", cs.num_aux);

	groth16_params p;
	groth16_synth s;
	int have_params = 0, have_synth = 0;
	if ((r = groth16_dev_setup_insecure(&p, &cs, a->seed, err)) < 0)
		goto out;
	have_params = 1;
	double t2 = monotonic_ms();
	bench_phase(&a->rep, "dev setup", t2 - t1, 1);
	if ((r = groth16_synthesize(&s, &cs, z, cs.num_inputs + cs.num_aux, err)) < 0)
		goto out;
	have_synth = 1;
	if ((r = groth16_synth_check(&s, err)) < 0)
		goto out;
	double t3 = monotonic_ms();
	bench_phase(&a->rep, "synthesize", t3 - t2, 1);

	groth16_witness_view w;
	groth16_synth_view(&w, &s, z);
	fr_t rr, ss;
	groth16_seeded_rs(&rr, &ss, a->seed, 0);
	groth16_proof proof;
	groth16_timings t = { 0 };
	/* Best of a->runs: the run with the least wall time, phases and all. */
	double t4 = 0, t5 = 0, c4 = 0, c5 = 0;
	for (uint64_t run = 0; run < a->runs; run++) {
		groth16_timings tr = { 0 };
		double ci = cli_cpu_ms(), ti = monotonic_ms();
		if ((r = a->be->prove(a->ctx, &p, &w, &rr, &ss, &proof, &tr, err)) < 0)
			goto out;
		double to = monotonic_ms(), co = cli_cpu_ms();
		if (run == 0 || to - ti < t5 - t4) {
			t = tr;
			t4 = ti, t5 = to, c4 = ci, c5 = co;
		}
	}
	if (a->runs > 1)
		bench_count(&a->rep, "runs (best of)", a->runs);
	if (t.upload_ms > 0)
		bench_phase(&a->rep, "upload", t.upload_ms, 0);
	bench_phase(&a->rep, "ntt (h)", t.ntt_ms, 0);
	bench_phase(&a->rep, "msm h", t.msm_h_ms, 0);
	bench_phase(&a->rep, "msm l", t.msm_l_ms, 0);
	bench_phase(&a->rep, "msm a", t.msm_a_ms, 0);
	bench_phase(&a->rep, "msm b_g1", t.msm_b_g1_ms, 0);
	bench_phase(&a->rep, "msm b_g2", t.msm_b_g2_ms, 0);
	bench_phase(&a->rep, "assemble", t.assemble_ms, 0);
	bench_phase(&a->rep, "prove total", t.total_ms > 0 ? t.total_ms : t5 - t4, 0);
	bench_phase(&a->rep, "prove wall", t5 - t4, 0);
	bench_phase(&a->rep, "prove cpu (all threads)", c5 - c4, 0);
	double t6 = monotonic_ms();
	if ((r = groth16_verify(&p.vk, z + 1, cs.num_inputs - 1, &proof, err)) < 0) {
		cuzk_error_prefix(err, "the benchmark's own proof");
		goto out;
	}
	bench_phase(&a->rep, "verify", monotonic_ms() - t6, 1);
out:
	if (have_synth)
		groth16_synth_free(&s);
	if (have_params)
		groth16_params_free(&p);
	r1cs_free(&cs);
	free(z);
	return r;
}

/* Bases P_i = (i+1)·G, by additions (cheap even for 2^20 points), and
 * uniform scalars: the worst case for Pippenger, no 0/1 shortcuts. */
static int bench_msm(struct bench_args *a, cuzk_error *err)
{
	if (strcmp(a->be->name, "gpu") == 0)   /* points made and kept on the device */
		return bench_msm_gpu(&a->rep, a->g2, a->log_size, err);
	if (a->g2 ? !a->be->msm_g2 : !a->be->msm_g1)
		return cuzk_fail(err, CUZK_E_UNSUPPORTED, "backend %s has no %s MSM to measure", a->be->name,
				 a->g2 ? "G2" : "G1");
	size_t n = (size_t)1 << a->log_size;
	size_t aff = a->g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
	size_t jac = a->g2 ? sizeof(g2_jac_t) : sizeof(g1_jac_t);
	fr_t *k = malloc(n * sizeof(fr_t));
	void *bases = malloc(n * aff);
	void *tmp = malloc(n * jac);
	int r = 0;
	if (!k || !bases || !tmp) {
		r = cuzk_fail(err, CUZK_E_NOMEM, "bench msm: no memory for 2^%u points", a->log_size);
		goto out;
	}
	cuzk_rng rng;
	cuzk_rng_seed(&rng, a->seed);
	for (size_t i = 0; i < n; i++)
		fr_sample_rng(&k[i], &rng);
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
		return cuzk_fail(err, CUZK_E_UNSUPPORTED, "backend %s has no NTT to measure", a->be->name);
	size_t n = (size_t)1 << a->log_size;
	fr_t *v = malloc(n * sizeof(fr_t));
	if (!v)
		return cuzk_fail(err, CUZK_E_NOMEM, "bench ntt: no memory for 2^%u scalars", a->log_size);
	cuzk_rng rng;
	cuzk_rng_seed(&rng, a->seed);
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
		r = a->be->ntt_device(a->ctx, v, a->log_size, a->coset, 10, &ms, err);
		if (r == 0)
			bench_phase(&a->rep, a->coset ? "coset ntt (device, median of 10)" : "ntt (device, median of 10)",
				    ms, 0);
	} else if (r == 0 && a->coset) {
		r = cuzk_fail(err, CUZK_E_UNSUPPORTED, "backend %s: --coset is measured on a device only",
			      a->be->name);
	}
	free(v);
	return r;
}

static const struct {
	const char *name;
	const char *size_option;
	unsigned max_log;
	int (*run)(struct bench_args *a, cuzk_error *err);
} benches[] = {
	{ "prove", "log-constraints", GENCIRCUIT_MAX_LOG, bench_prove },
	{ "msm", "log-size", 28, bench_msm },
	{ "ntt", "log-size", NTT_MAX_LOG, bench_ntt },
};

static int run(int argc, char **argv, cuzk_error *err)
{
	size_t which = sizeof(benches) / sizeof(benches[0]);
	for (size_t i = 0; argc >= 2 && i < sizeof(benches) / sizeof(benches[0]); i++)
		if (strcmp(argv[1], benches[i].name) == 0)
			which = i;
	const char *backend_s = NULL, *log_s = NULL, *inputs_s = NULL, *seed_s = NULL, *json_path = NULL;
	const char *g2_s = NULL, *coset_s = NULL, *runs_s = NULL;
	struct cli_option opts[] = {
		{ "backend", "cpu|gpu", &backend_s, "which backend (default cpu)" },
		{ "log-constraints", "K", &log_s, "prove: 2^K constraints" },
		{ "log-size", "K", &log_s, "msm, ntt: 2^K points or scalars" },
		{ "inputs", "N", &inputs_s, "prove: public inputs besides the constant 1 (default 1)" },
		{ "g2", NULL, &g2_s, "msm: G2 instead of G1" },
		{ "coset", NULL, &coset_s, "ntt: the coset NTT (gpu)" },
		{ "runs", "N", &runs_s, "prove: report the fastest of N proofs (default 1)" },
		{ "seed", "N", &seed_s, "seed of circuit, trapdoor, r and s, scalars (default 1)" },
		{ "json", "FILE", &json_path, "also write the figures as JSON" },
	};
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return cli_parse(&cli_cmd_bench, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (which == sizeof(benches) / sizeof(benches[0]))
		return cli_usage(err, "expected prove, msm or ntt after bench%s%s",
				 argc >= 2 ? ", not " : "", argc >= 2 ? argv[1] : "");
	int r = cli_parse(&cli_cmd_bench, opts, sizeof(opts) / sizeof(opts[0]), argc - 1, argv + 1, err);
	if (r != 0)
		return r;
	if ((r = cli_require(benches[which].size_option, log_s, err)) < 0)
		return r;
	struct bench_args a = { .seed = 1, .inputs = GENCIRCUIT_DEFAULT_INPUTS - 1, .runs = 1,
				.g2 = g2_s != NULL, .coset = coset_s != NULL };
	uint64_t log_k = 0;
	if ((r = cli_parse_u64(benches[which].size_option, log_s, 1, benches[which].max_log, &log_k, err)) < 0 ||
	    (r = cli_parse_u64("inputs", inputs_s, 0, UINT32_MAX, &a.inputs, err)) < 0 ||
	    (r = cli_parse_u64("runs", runs_s, 1, 1000, &a.runs, err)) < 0 ||
	    (r = cli_parse_u64("seed", seed_s, 0, UINT64_MAX, &a.seed, err)) < 0 ||
	    (r = cli_backend_find(&a.be, backend_s, err)) < 0)
		return r;
	a.log_size = (unsigned)log_k;
	a.rep.bench = benches[which].name;
	a.rep.backend = a.be->name;
	a.rep.log_size = a.log_size;
	if ((r = a.be->open(&a.ctx, err)) < 0)
		return r;
	r = benches[which].run(&a, err);
	a.be->close(a.ctx);
	if (r < 0)
		return r;
	bench_report_print(&a.rep);
	return json_path ? bench_report_json(&a.rep, json_path, err) : 0;
}

const struct cli_command cli_cmd_bench = {
	.name = "bench",
	.summary = "time a proof (per phase), an MSM or an NTT on a backend",
	.usage = "prove --backend cpu|gpu --log-constraints K [--runs N] [--json FILE]\n"
		 "       cuzk bench msm|ntt --backend cpu|gpu --log-size K [--g2] [--coset] [--json FILE]",
	.run = run,
};
