// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk setup: the INSECURE development setup (devtools/setup.h) for a circom
 * circuit or for a synthetic one (--shape/--log-constraints, the circuit
 * of `cuzk gen-circuit` with the same options and --seed): parameters
 * written to the file as they are made, on the CPU or a GPU, and
 * optionally the verifying key on its own; --timings says where the time
 * went, --sync makes the file durable before the command ends. */
#include <inttypes.h>
#include <stdio.h>

#include "cli/cli.h"
#include "common/clock.h"
#include "common/rand.h"
#include "devtools/gencircuit.h"
#include "devtools/setup.h"
#include "formats/params_io.h"
#include "formats/r1cs.h"
#include "prover/backend.h"

struct setup_args {
	const char *r1cs_path, *params_path, *vk_path, *backend_s;
	uint64_t seed;
	const groth16_row_source *rows;
	int timings, sync;
};

/* The command's own phases around the setup's (groth16_setup_timings). */
struct setup_clock {
	const char *engine;
	double open_ms, engine_ms, setup_ms, vk_ms, close_ms, total_ms;
};

static const char *const QUERY_NAME[GROTH16_PARAMS_SECTIONS] = { "h", "l", "a", "b_g1", "b_g2" };

/* On stdout, as `cuzk prove --timings`: one line a phase, each beginning
 * "setup " and its name, for logs and greps.  A query's total is its
 * scalars + engine (waiting for the products) + put (encoding, and
 * blocked: waiting for the writing thread's free buffer). */
static void print_timings(const struct setup_clock *c, const groth16_setup_timings *t)
{
	printf("setup device: open %.1f ms, %s engine %.1f, close %.1f\n", c->open_ms, c->engine, c->engine_ms,
	       c->close_ms);
	printf("setup qap at tau: %.1f ms (lagrange %.1f, rows %.1f)\n", t->lagrange_ms + t->rows_ms, t->lagrange_ms,
	       t->rows_ms);
	printf("setup tables and vk: %.1f ms\n", t->prepare_ms);
	printf("setup writer open: %.1f ms\n", t->open_ms);
	for (int q = 0; q < GROTH16_PARAMS_SECTIONS; q++) {
		const groth16_setup_query_timings *qt = &t->query[q];
		printf("setup %s: %.1f ms, %" PRIu64 " points (scalars %.1f, engine %.1f, put %.1f, blocked %.1f)\n",
		       QUERY_NAME[q], qt->total_ms, qt->points, qt->scalars_ms, qt->engine_ms, qt->put_ms,
		       qt->blocked_ms);
	}
	const async_writer_stats *w = &t->writer;
	printf("setup writer: %" PRIu64 " bytes (buffers %" PRIu64 "), blocked in put %.1f ms, write(2) %.1f ms\n",
	       w->bytes, w->buffers, w->blocked_ms, w->write_ms);
	printf("setup close: %.1f ms (last writes %.1f, fsync %.1f, close(2) %.1f)\n", t->close_ms, w->drain_ms,
	       w->sync_ms, w->close_ms);
	if (t->synced)
		printf("setup fsync: %.1f ms (the file is on the disk)\n", w->sync_ms);
	else
		printf("setup fsync: not asked (--sync): the file may be in the page cache only\n");
	printf("setup free: %.1f ms\n", t->free_ms);
	printf("setup total: %.1f ms (the setup %.1f, the vk file %.1f)\n", c->total_ms, c->setup_ms, c->vk_ms);
}

static int write_params(const struct setup_args *a, cuzk_error *err)
{
	const struct groth16_backend *be;
	groth16_device *dev = NULL;
	const groth16_setup_engine *engine = NULL;
	struct setup_clock c = { 0 };
	int r;
	if ((r = cli_backend_find(&be, a->backend_s, err)) < 0)
		return r;
	double t0 = monotonic_ms();
	if ((r = be->open(&dev, 0, 0, err)) < 0)
		return err_prefix(err, "--backend %s", be->name);
	double t1 = monotonic_ms();
	if (be->setup_engine)
		r = be->setup_engine(dev, &engine, err);
	double t2 = monotonic_ms();
	c.engine = engine ? engine->name : "cpu";
	c.open_ms = t1 - t0;
	c.engine_ms = t2 - t1;
	struct cli_progress pr;
	cli_progress_init(&pr, engine ? "setup (gpu)" : "setup (cpu)");
	groth16_setup_timings tm = { 0 };
	groth16_setup_opts o = { .engine = engine,
				 .progress = cli_progress_update,
				 .progress_ctx = &pr,
				 .sync = a->sync,
				 .timings = &tm };
	groth16_vk vk = { 0 };
	if (r == 0)
		r = groth16_dev_setup_rows_write(a->params_path, a->rows, a->seed, &o, a->vk_path ? &vk : NULL, err);
	double t3 = monotonic_ms();
	c.setup_ms = t3 - t2;
	if (r == 0)
		cli_progress_end(&pr, c.setup_ms);
	be->close(dev);
	double t4 = monotonic_ms();
	c.close_ms = t4 - t3;
	if (r == 0 && a->vk_path)
		r = groth16_vk_write(&vk, a->vk_path, err);
	groth16_vk_free(&vk);
	c.vk_ms = monotonic_ms() - t4;
	c.total_ms = monotonic_ms() - t0;
	if (r == 0 && a->timings)
		print_timings(&c, &tm);
	return r;
}

static int run(int argc, char **argv, cuzk_error *err)
{
	struct setup_args a = { 0 };
	const char *seed_s = NULL, *shape_s = NULL, *log_s = NULL, *inputs_s = NULL, *timings_s = NULL, *sync_s = NULL;
	const struct cli_option opts[] = {
		{ "r1cs", "C.r1cs", &a.r1cs_path, "the circuit (circom binary .r1cs, BLS12-381)" },
		{ "shape", "basic|porep", &shape_s, "or a synthetic circuit of this shape (with --log-constraints)" },
		{ "log-constraints", "K", &log_s, "the synthetic circuit's domain, 2^K" },
		{ "inputs", "N", &inputs_s, "the synthetic circuit's public inputs besides 1 (default 1; porep 327)" },
		{ "params", "OUT.params", &a.params_path, "where to write the parameters (bellperson layout)" },
		{ "vk", "OUT.vk", &a.vk_path, "also write the verifying key alone" },
		{ "backend", "cpu|gpu", &a.backend_s, "where the fixed-base products run (default cpu)" },
		{ "seed", "N", &seed_s, "derive the trapdoor (and a synthetic circuit) from N (default: random)" },
		{ "timings", NULL, &timings_s, "print where the time went (QAP at tau, each query, the writer, close)" },
		{ "sync", NULL, &sync_s, "fsync the parameters file before ending (durable; timed apart)" },
	};
	int r = cli_parse(&cli_cmd_setup, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	if ((r = cli_require("params", a.params_path, err)) < 0)
		return r;
	if (!a.r1cs_path == !log_s)
		return cli_usage(err, "give either --r1cs or --log-constraints (a synthetic circuit)");
	a.timings = timings_s != NULL;
	a.sync = sync_s != NULL;
	if (seed_s)
		r = cli_parse_u64("seed", seed_s, 0, UINT64_MAX, &a.seed, err);
	else
		r = rand_getrandom(&a.seed, sizeof(a.seed), err);
	if (r < 0)
		return r;
	groth16_row_source rows;
	if (log_s) {
		uint64_t log_k = 0, inputs = 0;
		gencircuit_spec spec = { .seed = a.seed };
		if ((r = cli_parse_u64("log-constraints", log_s, 1, GENCIRCUIT_MAX_LOG, &log_k, err)) < 0 ||
		    (r = cli_value(gencircuit_shape_parse(&spec.shape, shape_s, err))) < 0 ||
		    (r = cli_parse_u64("inputs", inputs_s, 0, UINT32_MAX, &inputs, err)) < 0)
			return r;
		spec.log_constraints = (unsigned)log_k;
		spec.num_inputs = inputs_s ? (size_t)inputs + 1 : gencircuit_default_inputs(spec.shape);
		if ((r = gencircuit_check_spec(&spec, err)) < 0)
			return r;
		gencircuit_rows(&spec, &rows);
		a.rows = &rows;
		r = write_params(&a, err);
	} else {
		r1cs cs;
		if ((r = r1cs_read_circom(&cs, a.r1cs_path, err)) < 0)
			return r;
		groth16_r1cs_rows(&rows, &cs);
		a.rows = &rows;
		r = write_params(&a, err);
		r1cs_free(&cs);
		if (r < 0)
			err_prefix(err, "%s", a.r1cs_path);
	}
	if (r == 0)
		fprintf(stderr, "cuzk setup: development setup: INSECURE, for tests and benchmarks only\n");
	return r;
}

const struct cli_command cli_cmd_setup = {
	.name = "setup",
	.summary = "INSECURE development setup: parameters for a circom or synthetic circuit (tests, benchmarks)",
	.usage = "(--r1cs C.r1cs | --log-constraints K [--shape basic|porep] [--inputs N]) --params OUT.params\n"
		 "                  [--vk OUT.vk] [--backend cpu|gpu] [--seed N] [--timings] [--sync]",
	.run = run,
};
