// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk prove: params + witness file → proofs file, one 192-byte proof per
 * partition, in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_params.h"
#include "formats/params_io.h"
#include "formats/witness_file.h"
#include "prover/backend.h"
#include "prover/prover.h"

/* Proves every partition of m into proofs[]. */
static int prove_all(const struct groth16_backend *be, groth16_device *ctx, const groth16_params *p,
		     const char *params_path, const groth16_witness_map *m, const char *witness_path,
		     const char *seed_s, uint64_t seed, int show_timings, groth16_proof *proofs, groth16_timings *total, cuzk_error *err)
{
	for (unsigned part = 0; part < m->desc.hdr.num_partitions; part++) {
		groth16_witness_view w;
		int r = groth16_witness_file_view(&w, m, part, err);
		if (r < 0)
			return r;
		if ((r = groth16_check_shape(p, &w, err)) < 0)
			return err_prefix(err, "%s (partition %u) does not fit %s", witness_path, part,
					  params_path);
		fr_t rs[2];
		if (seed_s)
			groth16_seeded_rs(&rs[0], &rs[1], seed, part);
		else if ((r = groth16_random_rs(&rs[0], &rs[1], err)) < 0)
			return r;
		groth16_timings t = { 0 };
		r = be->prove(ctx, p, &w, 0, &rs[0], &rs[1], &proofs[part], &t, err);
		explicit_bzero(rs, sizeof(rs));
		if (r < 0)
			return err_prefix(err, "%s, partition %u", witness_path, part);
		total->total_ms += t.total_ms;
		if (show_timings)
			printf("partition %u: ntt %.1f ms, msm h %.1f, l %.1f, a %.1f, b_g1 %.1f, b_g2 %.1f, "
			       "assemble %.1f, total %.1f\n", part, t.ntt_ms, t.msm_h_ms, t.msm_l_ms, t.msm_a_ms,
			       t.msm_b_g1_ms, t.msm_b_g2_ms, t.assemble_ms, t.total_ms);
	}
	return 0;
}

static int run(int argc, char **argv, cuzk_error *err)
{
	const char *params_path = NULL, *witness_path = NULL, *out_path = NULL, *backend_s = NULL;
	const char *seed_s = NULL, *check_s = NULL, *timings_s = NULL;
	const struct cli_option opts[] = {
		{ "params", "P.params", &params_path, "bellperson parameters file" },
		{ "witness", "W.witness", &witness_path, "cuzk witness file (one or more partitions)" },
		{ "out", "OUT.proof", &out_path, "where to write the proofs (192 bytes per partition)" },
		{ "backend", "auto|cpu|gpu", &backend_s,
		  "which prover (default auto: the GPU when a CUDA device is usable, else the CPU)" },
		{ "seed", "N", &seed_s, "fix r and s (tests only: such proofs are not zero-knowledge)" },
		{ "params-check", "all|curve|none", &check_s,
		  "checks on query points (default curve: no subgroup checks; the VK is always fully checked)" },
		{ "timings", NULL, &timings_s, "print each proof's phases (NTT, each MSM)" },
	};
	int r = cli_parse(&cli_cmd_prove, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	if ((r = cli_require("params", params_path, err)) < 0 || (r = cli_require("witness", witness_path, err)) < 0 ||
	    (r = cli_require("out", out_path, err)) < 0)
		return r;
	uint64_t seed = 0;
	unsigned checks = BLS_CHECK_CURVE;
	const struct groth16_backend *be;
	if ((r = cli_parse_u64("seed", seed_s, 0, UINT64_MAX, &seed, err)) < 0 ||
	    (r = cli_parse_params_check(check_s, &checks, err)) < 0 || (r = cli_backend_find(&be, backend_s ? backend_s : "auto", err)) < 0)
		return r;

	/* The backend first: a missing GPU should not cost a params load. */
	groth16_device *ctx = NULL;
	if ((r = be->open(&ctx, 0, 0, err)) < 0)
		return err_prefix(err, "--backend %s", be->name);
	groth16_params p;
	groth16_witness_map m;
	groth16_proof *proofs = NULL;
	int have_params = 0, have_map = 0;
	/* On a GPU the params are uploaded while they are decoded. */
	groth16_params_load_opts lo = { .checks = checks };
	if ((r = cli_params_read(&p, params_path, &lo, be, ctx, NULL, err)) < 0)
		goto out;
	have_params = 1;
	if ((r = groth16_witness_file_open(&m, witness_path, err)) < 0)
		goto out;
	have_map = 1;
	unsigned parts = m.desc.hdr.num_partitions;
	if (!(proofs = calloc(parts, sizeof(*proofs)))) {
		r = err_fail(err, CUZK_E_NOMEM, "%s: no memory for %u proofs", witness_path, parts);
		goto out;
	}
	groth16_timings total = { 0 };
	if ((r = prove_all(be, ctx, &p, params_path, &m, witness_path, seed_s, seed, timings_s != NULL, proofs, &total, err)) < 0)
		goto out;
	if ((r = groth16_proofs_write(proofs, parts, out_path, err)) < 0)
		goto out;
	printf("%s: %u proof%s (%s backend, %.1f ms proving)\n", out_path, parts, parts == 1 ? "" : "s",
	       be->name, total.total_ms);
out:
	free(proofs);
	if (have_map) {
		cuzk_error ignored;
		groth16_witness_file_close(&m, &ignored);
	}
	if (have_params && be->unload_params)
		be->unload_params(ctx, &p);
	if (have_params)
		groth16_params_free(&p);
	be->close(ctx);
	return r;
}

const struct cli_command cli_cmd_prove = {
	.name = "prove",
	.summary = "prove every partition of a witness file",
	.usage = "--params P.params --witness W.witness --out OUT.proof [--backend auto|cpu|gpu] [--seed N]",
	.run = run,
};
