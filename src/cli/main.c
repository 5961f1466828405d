// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk: the command-line front end (setup, synth, prove, verify, ...).
 * Each subcommand lives in its own cmd_*.c; this file only dispatches. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "prover/backend.h"
#include "config.h"

static const struct cli_command *const commands[] = {
	&cli_cmd_setup,
	&cli_cmd_synth,
	&cli_cmd_prove,
	&cli_cmd_verify,
	&cli_cmd_gen_circuit,
	&cli_cmd_export_snarkjs,
	&cli_cmd_bench,
	&cli_cmd_submit,
	&cli_cmd_status,
	&cli_cmd_metrics,
	&cli_cmd_cancel,
	&cli_cmd_params,
};

static void print_usage(FILE *f)
{
	fprintf(f, "usage: cuzk COMMAND [OPTIONS]   (cuzk COMMAND --help for its options)\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-15s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\n  --help          this list\n  --version       the version\n");
}

int main(int argc, char **argv)
{
	groth16_backend_process_init();
	if (argc < 2) {
		fprintf(stderr, "cuzk: a command is required (see cuzk --help)\n");
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		print_usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("cuzk %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i]->name) != 0)
			continue;
		cuzk_error err = { 0, "" };
		int r = commands[i]->run(argc - 1, argv + 1, &err);
		if (r == 0 || r == CLI_HELP_SHOWN)
			return 0;
		fprintf(stderr, "cuzk %s: %s\n", commands[i]->name,
			err.msg[0] ? err.msg : cuzk_status_name(r));
		return r == CLI_E_USAGE ? 2 : 1;
	}
	fprintf(stderr, "cuzk: unknown command '%s' (see cuzk --help)\n", argv[1]);
	return 2;
}
