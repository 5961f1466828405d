// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk setup: the INSECURE development setup (groth16/setup.h) for a circom
 * circuit: parameters, and optionally the verifying key on its own. */
#include <stdio.h>

#include "cli/cli.h"
#include "common/rand.h"
#include "groth16/params_io.h"
#include "groth16/r1cs.h"
#include "groth16/setup.h"

static int run(int argc, char **argv, cuzk_error *err)
{
	const char *r1cs_path = NULL, *params_path = NULL, *vk_path = NULL, *seed_s = NULL;
	const struct cli_option opts[] = {
		{ "r1cs", "C.r1cs", &r1cs_path, "the circuit (circom binary .r1cs, BLS12-381)" },
		{ "params", "OUT.params", &params_path, "where to write the parameters (bellperson layout)" },
		{ "vk", "OUT.vk", &vk_path, "also write the verifying key alone" },
		{ "seed", "N", &seed_s, "derive the trapdoor from N (default: from getrandom)" },
	};
	int r = cli_parse(&cli_cmd_setup, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	if ((r = cli_require("r1cs", r1cs_path, err)) < 0 || (r = cli_require("params", params_path, err)) < 0)
		return r;
	uint64_t seed;
	if (seed_s)
		r = cli_parse_u64("seed", seed_s, 0, UINT64_MAX, &seed, err);
	else
		r = cuzk_getrandom(&seed, sizeof(seed), err);
	if (r < 0)
		return r;
	r1cs cs;
	if ((r = r1cs_read_circom(&cs, r1cs_path, err)) < 0)
		return r;
	groth16_params p;
	r = groth16_dev_setup_insecure(&p, &cs, seed, err);
	r1cs_free(&cs);
	if (r < 0)
		return cuzk_error_prefix(err, "%s", r1cs_path);
	r = groth16_params_write(&p, params_path, err);
	if (r == 0 && vk_path)
		r = groth16_vk_write(&p.vk, vk_path, err);
	groth16_params_free(&p);
	if (r == 0)
		fprintf(stderr, "cuzk setup: development setup: INSECURE, for tests and benchmarks only\n");
	return r;
}

const struct cli_command cli_cmd_setup = {
	.name = "setup",
	.summary = "INSECURE development setup: parameters for a circom circuit (tests, benchmarks)",
	.usage = "--r1cs C.r1cs --params OUT.params [--vk OUT.vk] [--seed N]",
	.run = run,
};
