// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk gen-circuit: a synthetic storage-proof-like circuit
 * (devtools/gencircuit.h) written as circom's .r1cs and .wtns, so it goes
 * through the same setup → synth → prove path as a circuit circom compiled;
 * or straight as a witness file (--witness), which is how large ones are
 * made: the R1CS of 2^27 constraints would take ~30 GB to hold. */
#include <stdlib.h>

#include "cli/cli.h"
#include "devtools/gencircuit.h"
#include "formats/r1cs.h"

static int run(int argc, char **argv, cuzk_error *err)
{
	const char *log_s = NULL, *inputs_s = NULL, *seed_s = NULL, *r1cs_path = NULL, *wtns_path = NULL;
	const char *shape_s = NULL, *witness_path = NULL;
	const struct cli_option opts[] = {
		{ "log-constraints", "K", &log_s, "a domain of 2^K constraints, public-input constraints included" },
		{ "shape", "basic|porep", &shape_s, "the circuit's statistics (default basic; see docs/BENCHMARKS.md)" },
		{ "inputs", "N", &inputs_s, "public inputs besides the constant 1 (default 1; porep 327)" },
		{ "seed", "N", &seed_s, "seed of the circuit and witness values (default 1)" },
		{ "r1cs", "OUT.r1cs", &r1cs_path, "where to write the circuit (with --wtns)" },
		{ "wtns", "OUT.wtns", &wtns_path, "where to write the witness (with --r1cs)" },
		{ "witness", "OUT.witness", &witness_path, "write cuzk's witness file instead (no R1CS kept)" },
	};
	int r = cli_parse(&cli_cmd_gen_circuit, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	if ((r = cli_require("log-constraints", log_s, err)) < 0)
		return r;
	if (!witness_path && ((r = cli_require("r1cs", r1cs_path, err)) < 0 || (r = cli_require("wtns", wtns_path, err)) < 0))
		return r;
	uint64_t log_k = 0, inputs = 0, seed = 1;
	enum gencircuit_shape shape;
	if ((r = cli_parse_u64("log-constraints", log_s, 1, GENCIRCUIT_MAX_LOG, &log_k, err)) < 0 ||
	    (r = cli_value(gencircuit_shape_parse(&shape, shape_s, err))) < 0 ||
	    (r = cli_parse_u64("inputs", inputs_s, 0, UINT32_MAX, &inputs, err)) < 0 ||
	    (r = cli_parse_u64("seed", seed_s, 0, UINT64_MAX, &seed, err)) < 0)
		return r;
	gencircuit_spec spec = { .log_constraints = (unsigned)log_k, .seed = seed, .shape = shape,
				 .num_inputs = inputs_s ? (size_t)inputs + 1 : gencircuit_default_inputs(shape) };
	if ((r = gencircuit_check_spec(&spec, err)) < 0)
		return r;
	if (witness_path && (r = gencircuit_write_witness(&spec, witness_path, err)) < 0)
		return r;
	if (!r1cs_path && !wtns_path)
		return 0;
	if ((r = cli_require("r1cs", r1cs_path, err)) < 0 || (r = cli_require("wtns", wtns_path, err)) < 0)
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
	.summary = "write a synthetic circuit shaped like a storage proof (.r1cs and .wtns, or a witness file)",
	.usage = "--log-constraints K [--shape basic|porep] [--inputs N] [--seed N]\n"
		 "                        (--r1cs OUT.r1cs --wtns OUT.wtns | --witness OUT.witness)",
	.run = run,
};
