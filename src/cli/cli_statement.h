// SPDX-License-Identifier: Apache-2.0 OR MIT
/* What verify and export-snarkjs read: the verifying key (a .vk file, or the
 * start of a params file), the proofs, and the public inputs, from a cuzk
 * witness file (each partition its own) or from snarkjs's public.json (one
 * statement for every partition).  The constant 1 is not included. */
#ifndef CUZK_CLI_CLI_STATEMENT_H
#define CUZK_CLI_CLI_STATEMENT_H

#include <stddef.h>

#include "bls12_381/fr.h"
#include "common/error.h"
#include "prover/types.h"

typedef struct cli_inputs {
	size_t n_parts;   /* partitions that have their own inputs (1 for public.json) */
	size_t n;         /* inputs per partition */
	fr_t *v;          /* n_parts × n values, Montgomery form */
} cli_inputs;

int cli_inputs_from_witness(cli_inputs *ret, const char *path, cuzk_error *err);
int cli_inputs_from_json(cli_inputs *ret, const char *path, cuzk_error *err);
void cli_inputs_free(cli_inputs *in);

/* Partition p's inputs: its own from a witness file; public.json's for every p. */
const fr_t *cli_inputs_of(const cli_inputs *in, size_t p);

/* The file options both commands take, as parsed. */
struct cli_statement_paths {
	const char *vk, *params, *proof, *witness, *public_json;
};

/* Their entries in a subcommand's option table. */
#define CLI_STATEMENT_OPTIONS(p)                                                                   \
	{ "vk", "V.vk", &(p).vk, "verifying key file" },                                           \
	{ "params", "P.params", &(p).params, "or the parameters file that holds it" },             \
	{ "proof", "P.proof", &(p).proof, "proofs file (192 bytes per partition)" },               \
	{ "witness", "W.witness", &(p).witness, "public inputs from this witness file, per partition" }, \
	{ "public", "public.json", &(p).public_json, "or a snarkjs public.json, for every partition" }

struct cli_statement {
	groth16_vk vk;
	groth16_proof *proofs;
	size_t n_proofs;
	cli_inputs in;             /* in.n == vk.n_ic - 1; n_parts: n_proofs (witness), 1 (public.json) */
	const char *inputs_path;   /* the witness or public.json file, for messages */
};

/* Loads and cross-checks everything: exactly one of vk/params and of
 * witness/public (else CLI_E_USAGE), the input count against the key and
 * the partitions against the proofs (-CUZK_E_MISMATCH naming the inputs
 * file).  The VK is always fully checked; from a params file only the VK
 * at its start is read.  *ret is untouched on failure. */
int cli_statement_load(struct cli_statement *ret, const struct cli_statement_paths *paths, cuzk_error *err);
void cli_statement_free(struct cli_statement *st);

#endif
