// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk export-snarkjs: one proof, its verifying key and its public inputs in
 * snarkjs's JSON (protocol groth16, curve bls12381), so that
 * `snarkjs groth16 verify D/verification_key.json D/public.json D/proof.json`
 * judges our proofs.  snarkjs writes points as projective decimal
 * coordinates with z = 1 (z = 0 for infinity) and Fp2 as [c0, c1]. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_statement.h"
#include "formats/public_json.h"

/* p < 2^384 needs at most 116 decimal digits. */
#define FP_DECIMAL_MAX 120

static void fp_to_decimal(char out[FP_DECIMAL_MAX], const fp_t *a)
{
	uint64_t t[6];
	fp_from_mont(t, a);
	char rev[FP_DECIMAL_MAX];
	size_t n = 0;
	int nonzero;
	do {
		/* t /= 10, from the top limb down; the remainder is the next digit. */
		unsigned __int128 rem = 0;
		nonzero = 0;
		for (size_t i = 6; i-- > 0;) {
			unsigned __int128 cur = (rem << 64) | t[i];
			t[i] = (uint64_t)(cur / 10);
			rem = cur % 10;
			nonzero |= t[i] != 0;
		}
		rev[n++] = (char)('0' + (int)rem);
	} while (nonzero);
	for (size_t i = 0; i < n; i++)
		out[i] = rev[n - 1 - i];
	out[n] = '\0';
}

/* A coordinate as JSON: "digits" for Fp, ["c0", "c1"] for Fp2. */
#define FP_JSON_MAX (FP_DECIMAL_MAX + 2)
#define FP2_JSON_MAX (2 * FP_JSON_MAX + 4)

static void fp_json(char out[FP_JSON_MAX], const fp_t *a)
{
	char d[FP_DECIMAL_MAX];
	fp_to_decimal(d, a);
	snprintf(out, FP_JSON_MAX, "\"%s\"", d);
}

static void fp2_json(char out[FP2_JSON_MAX], const fp2_t *a)
{
	char c0[FP_JSON_MAX], c1[FP_JSON_MAX];
	fp_json(c0, &a->c0);
	fp_json(c1, &a->c1);
	snprintf(out, FP2_JSON_MAX, "[%s, %s]", c0, c1);
}

static void put_point(FILE *f, const char *x, const char *y, const char *z, const char *indent)
{
	fprintf(f, "[\n%s  %s,\n%s  %s,\n%s  %s\n%s]", indent, x, indent, y, indent, z, indent);
}

static void put_g1(FILE *f, const g1_aff_t *p, const char *indent)
{
	if (g1_aff_is_infinity(p)) {
		put_point(f, "\"0\"", "\"1\"", "\"0\"", indent);
		return;
	}
	char x[FP_JSON_MAX], y[FP_JSON_MAX];
	fp_json(x, &p->x);
	fp_json(y, &p->y);
	put_point(f, x, y, "\"1\"", indent);
}

static void put_g2(FILE *f, const g2_aff_t *p, const char *indent)
{
	if (g2_aff_is_infinity(p)) {
		put_point(f, "[\"0\", \"0\"]", "[\"1\", \"0\"]", "[\"0\", \"0\"]", indent);
		return;
	}
	char x[FP2_JSON_MAX], y[FP2_JSON_MAX];
	fp2_json(x, &p->x);
	fp2_json(y, &p->y);
	put_point(f, x, y, "[\"1\", \"0\"]", indent);
}

static int open_json(FILE **ret, const char *path, cuzk_error *err)
{
	if (!(*ret = fopen(path, "we")))
		return err_fail_errno(err, errno, "%s: cannot create", path);
	return 0;
}

static int close_json(FILE *f, const char *path, cuzk_error *err)
{
	int bad = ferror(f);
	if (fclose(f) != 0 || bad)
		return err_fail_errno(err, errno ? errno : EIO, "%s: write", path);
	return 0;
}

static int write_vk(const char *path, const groth16_vk *vk, cuzk_error *err)
{
	FILE *f;
	int r = open_json(&f, path, err);
	if (r < 0)
		return r;
	fprintf(f, "{\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\",\n \"nPublic\": %zu,\n",
		vk->n_ic - 1);
	fputs(" \"vk_alpha_1\": ", f);
	put_g1(f, &vk->alpha_g1, " ");
	fputs(",\n \"vk_beta_2\": ", f);
	put_g2(f, &vk->beta_g2, " ");
	fputs(",\n \"vk_gamma_2\": ", f);
	put_g2(f, &vk->gamma_g2, " ");
	fputs(",\n \"vk_delta_2\": ", f);
	put_g2(f, &vk->delta_g2, " ");
	fputs(",\n \"IC\": [\n  ", f);
	for (size_t i = 0; i < vk->n_ic; i++) {
		put_g1(f, &vk->ic[i], "  ");
		fputs(i + 1 < vk->n_ic ? ",\n  " : "\n ]\n}\n", f);
	}
	return close_json(f, path, err);
}

static int write_proof(const char *path, const groth16_proof *p, cuzk_error *err)
{
	FILE *f;
	int r = open_json(&f, path, err);
	if (r < 0)
		return r;
	fputs("{\n \"pi_a\": ", f);
	put_g1(f, &p->a, " ");
	fputs(",\n \"pi_b\": ", f);
	put_g2(f, &p->b, " ");
	fputs(",\n \"pi_c\": ", f);
	put_g1(f, &p->c, " ");
	fputs(",\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}\n", f);
	return close_json(f, path, err);
}

static int make_dir(const char *dir, cuzk_error *err)
{
	if (mkdir(dir, 0755) == 0 || errno == EEXIST) {
		struct stat st;
		if (stat(dir, &st) < 0)
			return err_fail_errno(err, errno, "%s", dir);
		if (!S_ISDIR(st.st_mode))
			return err_fail(err, CUZK_E_INVAL, "%s: not a directory", dir);
		return 0;
	}
	return err_fail_errno(err, errno, "%s: cannot create directory", dir);
}

static int run(int argc, char **argv, cuzk_error *err)
{
	struct cli_statement_paths paths = { 0 };
	const char *dir = NULL, *part_s = NULL;
	const struct cli_option opts[] = {
		CLI_STATEMENT_OPTIONS(paths),
		{ "partition", "N", &part_s, "which proof of the file (default 0)" },
		{ "dir", "D", &dir, "output directory (created if missing)" },
	};
	int r = cli_parse(&cli_cmd_export_snarkjs, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	uint64_t part = 0;
	if ((r = cli_require("dir", dir, err)) < 0 ||
	    (r = cli_parse_u64("partition", part_s, 0, UINT32_MAX, &part, err)) < 0)
		return r;
	char path[3][4096];
	const char *names[3] = { "verification_key.json", "proof.json", "public.json" };
	for (int i = 0; i < 3; i++)
		if ((size_t)snprintf(path[i], sizeof(path[i]), "%s/%s", dir, names[i]) >= sizeof(path[i]))
			return err_fail(err, CUZK_E_INVAL, "%s: directory name too long", dir);
	struct cli_statement st;
	if ((r = cli_statement_load(&st, &paths, err)) < 0)
		return r;
	if (part >= st.n_proofs)
		r = err_fail(err, CUZK_E_INVAL, "%s: --partition %llu, but the file holds %zu proofs",
			     paths.proof, (unsigned long long)part, st.n_proofs);
	if (r == 0)
		r = make_dir(dir, err);
	if (r == 0)
		r = write_vk(path[0], &st.vk, err);
	if (r == 0)
		r = write_proof(path[1], &st.proofs[part], err);
	if (r == 0)
		r = public_json_write(cli_inputs_of(&st.in, part), st.in.n, path[2], err);
	cli_statement_free(&st);
	return r;
}

const struct cli_command cli_cmd_export_snarkjs = {
	.name = "export-snarkjs",
	.summary = "write a proof, its key and inputs as snarkjs JSON (verification_key, proof, public)",
	.usage = "--params P.params --proof OUT.proof --witness W.witness --dir D",
	.run = run,
};
