// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk synth: a circom circuit and witness (.r1cs, .wtns) become a cuzk
 * witness file (a, b, c, inputs, aux, densities), after checking that the
 * witness satisfies every constraint. */
#include <stdlib.h>

#include "cli/cli.h"
#include "devtools/synth.h"
#include "formats/r1cs.h"
#include "formats/witness_file.h"

static int run(int argc, char **argv, cuzk_error *err)
{
	const char *r1cs_path = NULL, *wtns_path = NULL, *out_path = NULL;
	const struct cli_option opts[] = {
		{ "r1cs", "C.r1cs", &r1cs_path, "the circuit (circom binary .r1cs, BLS12-381)" },
		{ "wtns", "W.wtns", &wtns_path, "its witness (circom .wtns)" },
		{ "out", "OUT.witness", &out_path, "where to write the cuzk witness file" },
	};
	int r = cli_parse(&cli_cmd_synth, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	if ((r = cli_require("r1cs", r1cs_path, err)) < 0 || (r = cli_require("wtns", wtns_path, err)) < 0 ||
	    (r = cli_require("out", out_path, err)) < 0)
		return r;
	r1cs cs;
	if ((r = r1cs_read_circom(&cs, r1cs_path, err)) < 0)
		return r;
	fr_t *z = NULL;
	size_t z_len = 0;
	groth16_synth s;
	int have_synth = 0;
	if ((r = wtns_read(&z, &z_len, wtns_path, err)) < 0)
		goto out;
	if (z_len != cs.num_inputs + cs.num_aux) {
		r = err_fail(err, CUZK_E_MISMATCH, "%s: %zu values, but %s has %zu variables", wtns_path,
			     z_len, r1cs_path, cs.num_inputs + cs.num_aux);
		goto out;
	}
	if ((r = groth16_synthesize(&s, &cs, z, z_len, err)) < 0) {
		err_prefix(err, "%s", r1cs_path);
		goto out;
	}
	have_synth = 1;
	if ((r = groth16_synth_check(&s, err)) < 0) {
		err_prefix(err, "%s does not satisfy %s", wtns_path, r1cs_path);
		goto out;
	}
	r = groth16_witness_file_write(out_path, &s, z, err);
out:
	if (have_synth)
		groth16_synth_free(&s);
	free(z);
	r1cs_free(&cs);
	return r;
}

const struct cli_command cli_cmd_synth = {
	.name = "synth",
	.summary = "turn a circom .r1cs and .wtns into a cuzk witness file",
	.usage = "--r1cs C.r1cs --wtns W.wtns --out OUT.witness",
	.run = run,
};
