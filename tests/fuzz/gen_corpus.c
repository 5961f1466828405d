// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Writes a small seed corpus for the fuzz targets into DIR/{witness,params,
 * r1cs,wtns,trace}/: valid files made by the project's own writers, so that the
 * fuzzers start deep inside the formats. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "devtools/gencircuit.h"
#include "devtools/synth.h"
#include "formats/params_io.h"
#include "formats/public_json.h"
#include "formats/r1cs.h"
#include "formats/trace_json.h"

static int fail(const cuzk_error *err)
{
	fprintf(stderr, "gen_corpus: %s\n", err->msg);
	return 1;
}

static void path(char *buf, size_t len, const char *dir, const char *sub, const char *file)
{
	snprintf(buf, len, "%s/%s/%s", dir, sub, file);
}

static int make_dirs(const char *dir)
{
	const char *subs[] = { "", "witness", "params", "r1cs", "wtns", "trace" };
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		char p[4096];
		snprintf(p, sizeof(p), "%s/%s", dir, subs[i]);
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus DIR\n");
		return 2;
	}
	const char *dir = argv[1];
	char p[4096];
	cuzk_error err;
	if (make_dirs(dir) < 0) {
		perror(dir);
		return 1;
	}
	for (unsigned k = 3; k <= 5; k++) {
		gencircuit_spec spec = { k, k - 1, k, GENCIRCUIT_SHAPE_BASIC };
		r1cs cs;
		fr_t *z;
		char name[32];
		snprintf(name, sizeof(name), "gen%u", k);
		if (gencircuit_build(&spec, &cs, &z, &err) < 0)
			return fail(&err);
		path(p, sizeof(p), dir, "r1cs", name);
		if (r1cs_write_circom(&cs, p, &err) < 0)
			return fail(&err);
		path(p, sizeof(p), dir, "wtns", name);
		if (wtns_write(z, cs.num_inputs + cs.num_aux, p, &err) < 0)
			return fail(&err);
		path(p, sizeof(p), dir, "witness", name);
		if (gencircuit_write_witness(&spec, p, &err) < 0)
			return fail(&err);
		snprintf(name, sizeof(name), "public%u.json", k);
		path(p, sizeof(p), dir, "wtns", name);
		if (public_json_write(z + 1, cs.num_inputs - 1, p, &err) < 0)
			return fail(&err);
		r1cs_free(&cs);
		free(z);
	}
	/* Params whose points are all the generators: valid, and small. */
	groth16_params prm;
	if (groth16_params_alloc(&prm, 2, 3, 2, 3, 1, 1, &err) < 0)
		return fail(&err);
	prm.vk.alpha_g1 = prm.vk.beta_g1 = prm.vk.delta_g1 = G1_GENERATOR;
	prm.vk.beta_g2 = prm.vk.gamma_g2 = prm.vk.delta_g2 = G2_GENERATOR;
	g1_aff_t *g1[] = { prm.vk.ic, prm.h, prm.l, prm.a, prm.b_g1 };
	size_t n1[] = { 2, 3, 2, 3, 1 };
	for (size_t s = 0; s < 5; s++)
		for (size_t i = 0; i < n1[s]; i++)
			g1[s][i] = G1_GENERATOR;
	prm.b_g2[0] = G2_GENERATOR;
	path(p, sizeof(p), dir, "params", "tiny");
	if (groth16_params_write(&prm, p, &err) < 0)
		return fail(&err);
	path(p, sizeof(p), dir, "params", "tiny.vk");
	if (groth16_vk_write(&prm.vk, p, &err) < 0)
		return fail(&err);
	groth16_proof proof = { G1_GENERATOR, G2_GENERATOR, G1_GENERATOR };
	path(p, sizeof(p), dir, "params", "proof");
	if (groth16_proofs_write(&proof, 1, p, &err) < 0)
		return fail(&err);
	groth16_params_free(&prm);
	/* A request's timeline as cuzkd writes it: a job, two partitions, spans
	 * that nest, one that overlaps (a second row), a quote in a name. */
	groth16_trace *t;
	if (groth16_trace_new(&t, "cuzkd job 7", &err) < 0)
		return fail(&err);
	groth16_trace_set_origin(t, 100.0);
	static const struct { const char *name, *lane; int device; long part; double a, b; } span[] = {
		{ "check request", "cuzkd", -1, -1, 100.0, 100.1 }, { "queue wait", "cuzkd", -1, 0, 100.1, 101.0 },
		{ "queue wait", "cuzkd", -1, 1, 100.1, 103.0 },     { "msm \"h\"", "compute", 0, 0, 101.0, 102.5 },
		{ "upload a", "copy", 0, 1, 101.5, 102.0 },         { "srs wait", "cuzkd worker 1", -1, 1, 102.0, 103.5 },
	};
	for (size_t i = 0; i < sizeof(span) / sizeof(span[0]); i++)
		if (groth16_trace_add_event(t, span[i].name, span[i].lane, span[i].device, span[i].part, "7", span[i].a,
					    span[i].b, &err) < 0)
			return fail(&err);
	path(p, sizeof(p), dir, "trace", "job7.json");
	if (groth16_trace_write(t, p, &err) < 0)
		return fail(&err);
	groth16_trace_free(t);
	return 0;
}
