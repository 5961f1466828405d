// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk submit: proves a witness file through cuzkd.  The file is copied into
 * a library witness buffer (one copy; a real client writes its scalars there
 * in place), submitted, and the proofs written when the completion arrives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_daemon.h"
#include "cuzk.h"

static int parse_priority(const char *s, uint32_t *ret, cuzk_error *err)
{
	static const char *const names[CUZK_PRIORITY__COUNT] = { "critical", "high", "normal", "low" };
	if (!s) {
		*ret = CUZK_PRIORITY_NORMAL;
		return 0;
	}
	for (uint32_t i = 0; i < CUZK_PRIORITY__COUNT; i++)
		if (strcmp(s, names[i]) == 0) {
			*ret = i;
			return 0;
		}
	return cli_usage(err, "--priority '%s': expected critical, high, normal or low", s);
}

/* Exactly one of --srs and --kind; a kind must be one the library knows. */
static int srs_or_kind(const char **srs, const char *kind, cuzk_error *err)
{
	if (*srs && kind)
		return cli_usage(err, "--srs and --kind: give one of them");
	if (!kind)
		return cli_require("srs or --kind", *srs, err);
	if (!cuzk_kind_params(kind))
		return cli_usage(err, "--kind '%s': expected porep-32g, porep-64g, window-post-32g, window-post-64g, "
				 "winning-post-32g, winning-post-64g, snap-32g or snap-64g", kind);
	*srs = kind;
	return 0;
}

static int run(int argc, char **argv, cuzk_error *err)
{
	const char *sock = NULL, *srs = NULL, *kind = NULL, *witness = NULL, *out = NULL, *prio_s = NULL,
		   *seed_s = NULL;
	const struct cli_option opts[] = {
		CLI_SOCKET_OPTION(sock),
		{ "srs", "NAME", &srs, "parameter file name in the daemon's srs_dir" },
		{ "kind", "KIND", &kind, "or a proof kind: porep-32g, window-post-32g, winning-post-32g, snap-32g, "
					 "... (cuzk params list)" },
		{ "witness", "W.witness", &witness, "cuzk witness file (one or more partitions)" },
		{ "out", "P.proof", &out, "where to write the proofs (192 bytes per partition)" },
		{ "priority", "P", &prio_s, "critical, high, normal (default) or low" },
		{ "seed", "N", &seed_s, "fix r and s (tests only: such proofs are not zero-knowledge)" },
	};
	int r = cli_parse(&cli_cmd_submit, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	if ((r = srs_or_kind(&srs, kind, err)) < 0)
		return r;
	struct cuzk_request req = { .srs = srs };
	if ((r = cli_require("witness", witness, err)) < 0 || (r = cli_require("out", out, err)) < 0 ||
	    (r = parse_priority(prio_s, &req.priority, err)) < 0 ||
	    (r = cli_parse_u64("seed", seed_s, 0, UINT64_MAX, &req.seed, err)) < 0)
		return r;
	if (seed_s)
		req.flags |= CUZK_REQ_FIXED_RS;

	struct cuzk_completion *done = malloc(sizeof(*done));  /* 12 KiB of proofs */
	cuzk_client *c;
	cuzk_buffer *w = NULL;
	uint64_t id, job;
	if (!done)
		return err_fail(err, CUZK_E_NOMEM, "out of memory");
	if ((r = cuzk_connect(&c, cli_daemon_socket(sock), NULL, err)) < 0) {
		free(done);
		return r;
	}
	if ((r = cuzk_buffer_load_file(c, &w, witness, err)) < 0 ||
	    (r = cuzk_submit(c, w, &req, &id, &job, err)) < 0)
		goto out;
	/* The cancel line names the socket only when the command line did:
	 * otherwise the same default finds the same daemon. */
	fprintf(stderr, "cuzk submit: job %llu queued (cancel with: cuzk cancel%s%s --request %llu)\n",
		(unsigned long long)job, sock ? " --socket " : "", sock ? sock : "", (unsigned long long)job);
	do {
		if ((r = cuzk_wait(c, done, -1, err)) < 0)
			goto out;
	} while (done->request_id != id);
	if (done->status != 0) {
		r = err_fail(err, done->status, "job %llu: %s", (unsigned long long)job, done->message);
		goto out;
	}
	if ((r = cli_write_file(out, done->proof, (size_t)done->num_partitions * CUZK_PROOF_BYTES, err)) < 0)
		goto out;
	printf("%s: %u proof%s (job %llu, %.1f ms in the daemon, %.1f ms queued)\n", out, done->num_partitions,
	       done->num_partitions == 1 ? "" : "s", (unsigned long long)job,
	       done->phase_ns[CUZK_PHASE_TOTAL] / 1e6, done->phase_ns[CUZK_PHASE_QUEUE] / 1e6);
out:
	cuzk_buffer_free(w);
	cuzk_disconnect(c);
	free(done);
	return r;
}

const struct cli_command cli_cmd_submit = {
	.name = "submit",
	.summary = "prove a witness file through cuzkd",
	.usage = "[--socket PATH] (--srs NAME | --kind KIND) --witness W.witness --out P.proof [--priority P] "
		 "[--seed N]",
	.run = run,
};
