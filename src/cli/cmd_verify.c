// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk verify: checks every proof of a proofs file; exits 0 only when all
 * of them are valid. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_statement.h"
#include "prover/verifier.h"

static int run(int argc, char **argv, cuzk_error *err)
{
	struct cli_statement_paths paths = { 0 };
	const struct cli_option opts[] = { CLI_STATEMENT_OPTIONS(paths) };
	int r = cli_parse(&cli_cmd_verify, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	struct cli_statement st;
	if ((r = cli_statement_load(&st, &paths, err)) < 0)
		return r;
	for (size_t i = 0; i < st.n_proofs; i++) {
		if ((r = groth16_verify(&st.vk, cli_inputs_of(&st.in, i), st.in.n, &st.proofs[i], err)) < 0) {
			err_prefix(err, "%s, partition %zu (inputs from %s)", paths.proof, i, st.inputs_path);
			break;
		}
	}
	if (r == 0)
		printf("%s: %zu proof%s valid\n", paths.proof, st.n_proofs, st.n_proofs == 1 ? "" : "s");
	cli_statement_free(&st);
	return r;
}

const struct cli_command cli_cmd_verify = {
	.name = "verify",
	.summary = "verify proofs; exits 0 only if every partition's proof is valid",
	.usage = "--vk V.vk|--params P.params --proof OUT.proof (--witness W.witness | --public public.json)",
	.run = run,
};
