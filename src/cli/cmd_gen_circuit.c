// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk gen-circuit: a synthetic storage-proof-like circuit (gencircuit.h)
 * written as circom's .r1cs and .wtns, so it goes through the same
 * setup → synth → prove path as a circuit circom compiled. */
#include <stdlib.h>

#include "cli/cli.h"
#include "groth16/gencircuit.h"
#include "groth16/r1cs.h"

static int run(int argc, char **argv, cuzk_error *err)
{
	const char *log_s = NULL, *inputs_s = NULL, *seed_s = NULL, *r1cs_path = NULL, *wtns_path = NULL;
	const struct cli_option opts[] = {
		{ "log-constraints", "K", &log_s, "2^K constraints, public-input constraints included" },
		{ "inputs", "N", &inputs_s, "public inputs besides the constant 1 (default 1)" },
		{ "seed", "N", &seed_s, "seed of the circuit and witness values (default 1)" },
		{ "r1cs", "OUT.r1cs", &r1cs_path, "where to write the circuit" },
		{ "wtns", "OUT.wtns", &wtns_path, "where to write the witness" },
	};
	int r = cli_parse(&cli_cmd_gen_circuit, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	if ((r = cli_require("log-constraints", log_s, err)) < 0 || (r = cli_require("r1cs", r1cs_path, err)) < 0 ||
	    (r = cli_require("wtns", wtns_path, err)) < 0)
		return r;
	uint64_t log_k = 0, inputs = GENCIRCUIT_DEFAULT_INPUTS - 1, seed = 1;
	if ((r = cli_parse_u64("log-constraints", log_s, 1, GENCIRCUIT_MAX_LOG, &log_k, err)) < 0 ||
	    (r = cli_parse_u64("inputs", inputs_s, 0, UINT32_MAX, &inputs, err)) < 0 ||
	    (r = cli_parse_u64("seed", seed_s, 0, UINT64_MAX, &seed, err)) < 0)
		return r;
	gencircuit_spec spec = { .log_constraints = (unsigned)log_k, .num_inputs = (size_t)inputs + 1,
				 .seed = seed };
	if ((r = gencircuit_check_spec(&spec, err)) < 0)
		return r;
	r1cs cs;
	fr_t *z;
	if ((r = gencircuit_build(&spec, &cs, &z, err)) < 0)
		return r;
	r = r1cs_write_circom(&cs, r1cs_path, err);
	if (r == 0)
		r = wtns_write(z, cs.num_inputs + cs.num_aux, wtns_path, err);
	r1cs_free(&cs);
	free(z);
	return r;
}

const struct cli_command cli_cmd_gen_circuit = {
	.name = "gen-circuit",
	.summary = "write a synthetic circuit shaped like a storage proof (.r1cs and .wtns)",
	.usage = "--log-constraints K [--inputs N] [--seed N] --r1cs OUT.r1cs --wtns OUT.wtns",
	.run = run,
};
