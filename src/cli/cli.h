// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The cuzk command: one subcommand per file (cmd_*.c), dispatched by the
 * table in main.c.  Adding a subcommand is a new cmd_NAME.c defining a
 * `const struct cli_command cli_cmd_NAME` and one line in that table.
 *
 * A subcommand's run() returns 0 on success, CLI_E_USAGE for a command line
 * it rejects (cli_usage), or another negative cuzk status, with err filled
 * in; main prints "cuzk NAME: <err->msg>" as the one line a failure shows,
 * and exits 2 for CLI_E_USAGE, 1 otherwise: whatever a file or the daemon
 * refuses (an unknown or malformed SRS name alike) is not a usage error. */
#ifndef CUZK_CLI_CLI_H
#define CUZK_CLI_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* One "--name ARG" (or "--name" flag) a subcommand accepts.  The parser
 * stores the argument (or "1" for a flag) in *value; a repeated option keeps
 * the last one. */
struct cli_option {
	const char *name;          /* without the leading "--" */
	const char *arg;           /* metavariable for --help; NULL: a flag */
	const char **value;
	const char *help;
};

struct cli_command {
	const char *name;
	const char *summary;       /* one line for `cuzk --help` */
	const char *usage;         /* the synopsis after "cuzk NAME " */
	/* argv[0] is the subcommand's name. */
	int (*run)(int argc, char **argv, cuzk_error *err);
};

/* What run() returns for a command line it rejects: main exits 2. */
#define CLI_E_USAGE (-1000)

/* Fills err with -CUZK_E_INVAL and the message, and returns CLI_E_USAGE:
 * `return cli_usage(err, "--priority '%s': ...", s);`. */
int cli_usage(cuzk_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses argv[1..argc) against opts.  Returns 0, CLI_HELP_SHOWN after
 * printing the subcommand's help for --help/-h, or CLI_E_USAGE naming the
 * unknown option, the option lacking its argument, or a stray argument. */
#define CLI_HELP_SHOWN 1
int cli_parse(const struct cli_command *cmd, const struct cli_option *opts, size_t n_opts,
	      int argc, char **argv, cuzk_error *err);

/* CLI_E_USAGE "--NAME is required" when value is NULL. */
int cli_require(const char *name, const char *value, cuzk_error *err);

/* Parses a decimal unsigned integer option value in [min, max]; an absent
 * option (value NULL) leaves *ret as it is. */
int cli_parse_u64(const char *name, const char *value, uint64_t min, uint64_t max, uint64_t *ret,
		  cuzk_error *err);

/* --params-check all|curve|none (NULL: curve) as enum bls_check. */
int cli_parse_params_check(const char *s, unsigned *ret, cuzk_error *err);

/* r from a library's parser of an option's value, with its -CUZK_E_INVAL
 * (err as it filled it) a usage error: `r = cli_value(gencircuit_shape_parse(...))`. */
static inline int cli_value(int r)
{
	return r == -CUZK_E_INVAL ? CLI_E_USAGE : r;
}

/* --backend: groth16_backend_find, with an unknown name a usage error. */
struct groth16_backend;
int cli_backend_find(const struct groth16_backend **ret, const char *name, cuzk_error *err);

/* Writes len bytes to path (created or truncated, mode 0644) and checks
 * every step, close included. */
int cli_write_file(const char *path, const void *buf, size_t len, cuzk_error *err);

/* CPU time (user + system, all threads) this process has used, in ms: on a
 * shared machine it says what a run cost when wall time says how busy the
 * machine was. */
double cli_cpu_ms(void);
/* The system (kernel) part of it: page faults, zeroing fresh pages, copies
 * out of the page cache. */
double cli_sys_ms(void);

/* A progress line on stderr for long steps (loading a 47 GB parameter file,
 * a 2^27 setup): "WHAT:  37%" redrawn on a terminal, a line every 10%
 * otherwise.  cli_progress_update fits the progress callbacks of
 * groth16_params_load_opts and groth16_setup_opts (ctx = the struct).
 * Steps of fewer than CLI_PROGRESS_MIN points print nothing. */
#define CLI_PROGRESS_MIN ((uint64_t)1 << 20)
struct cli_progress {
	const char *what;
	int last;
	int tty;
};
void cli_progress_init(struct cli_progress *p, const char *what);
void cli_progress_update(void *ctx, uint64_t done, uint64_t total);
/* "WHAT: done in S s". */
void cli_progress_end(struct cli_progress *p, double ms);

extern const struct cli_command cli_cmd_setup;
extern const struct cli_command cli_cmd_synth;
extern const struct cli_command cli_cmd_prove;
extern const struct cli_command cli_cmd_verify;
extern const struct cli_command cli_cmd_gen_circuit;
extern const struct cli_command cli_cmd_export_snarkjs;
extern const struct cli_command cli_cmd_bench;
extern const struct cli_command cli_cmd_submit;
extern const struct cli_command cli_cmd_status;
extern const struct cli_command cli_cmd_metrics;
extern const struct cli_command cli_cmd_cancel;
extern const struct cli_command cli_cmd_params;

#endif
