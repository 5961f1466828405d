// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk setup: the INSECURE development setup (devtools/setup.h) for a circom
 * circuit or for a synthetic one (--shape/--log-constraints, the circuit
 * of `cuzk gen-circuit` with the same options and --seed): parameters
 * written to the file as they are made, on the CPU or a GPU, and
 * optionally the verifying key on its own. */
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
};

static int write_params(const struct setup_args *a, cuzk_error *err)
{
	const struct groth16_backend *be;
	groth16_device *dev = NULL;
	const groth16_setup_engine *engine = NULL;
	int r;
	if ((r = cli_backend_find(&be, a->backend_s, err)) < 0)
		return r;
	if ((r = be->open(&dev, 0, 0, err)) < 0)
		return err_prefix(err, "--backend %s", be->name);
	if (be->setup_engine)
		r = be->setup_engine(dev, &engine, err);
	struct cli_progress pr;
	cli_progress_init(&pr, engine ? "setup (gpu)" : "setup (cpu)");
	groth16_setup_opts o = { engine, cli_progress_update, &pr };
	groth16_vk vk = { 0 };
	double t0 = monotonic_ms();
	if (r == 0)
		r = groth16_dev_setup_rows_write(a->params_path, a->rows, a->seed, &o, a->vk_path ? &vk : NULL, err);
	if (r == 0)
		cli_progress_end(&pr, monotonic_ms() - t0);
	be->close(dev);
	if (r == 0 && a->vk_path)
		r = groth16_vk_write(&vk, a->vk_path, err);
	groth16_vk_free(&vk);
	return r;
}

static int run(int argc, char **argv, cuzk_error *err)
{
	struct setup_args a = { 0 };
	const char *seed_s = NULL, *shape_s = NULL, *log_s = NULL, *inputs_s = NULL;
	const struct cli_option opts[] = {
		{ "r1cs", "C.r1cs", &a.r1cs_path, "the circuit (circom binary .r1cs, BLS12-381)" },
		{ "shape", "basic|porep", &shape_s, "or a synthetic circuit of this shape (with --log-constraints)" },
		{ "log-constraints", "K", &log_s, "the synthetic circuit's domain, 2^K" },
		{ "inputs", "N", &inputs_s, "the synthetic circuit's public inputs besides 1 (default 1; porep 327)" },
		{ "params", "OUT.params", &a.params_path, "where to write the parameters (bellperson layout)" },
		{ "vk", "OUT.vk", &a.vk_path, "also write the verifying key alone" },
		{ "backend", "cpu|gpu", &a.backend_s, "where the fixed-base products run (default cpu)" },
		{ "seed", "N", &seed_s, "derive the trapdoor (and a synthetic circuit) from N (default: random)" },
	};
	int r = cli_parse(&cli_cmd_setup, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	if ((r = cli_require("params", a.params_path, err)) < 0)
		return r;
	if (!a.r1cs_path == !log_s)
		return cli_usage(err, "give either --r1cs or --log-constraints (a synthetic circuit)");
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
		 "                  [--vk OUT.vk] [--backend cpu|gpu] [--seed N]",
	.run = run,
};
