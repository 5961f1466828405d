// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk submit: proves a witness file through cuzkd.  The file is copied into
 * a library witness buffer (one copy; a real client writes its scalars there
 * in place), submitted, and the proofs written when the completion arrives.
 * --trace FILE: the daemon writes the request's timeline into a memfd of
 * ours (it writes only into memory files, never a path), which is copied
 * to FILE. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* What the daemon wrote into the trace memfd, to path. */
static int save_trace(int fd, const char *path, cuzk_error *err)
{
	struct stat st;
	void *map;
	int r;

	if (fstat(fd, &st) < 0)
		return err_fail_errno(err, errno, "--trace: fstat of the trace memfd");
	if (st.st_size == 0)
		return err_fail(err, CUZK_E_IO, "--trace %s: the daemon wrote no timeline", path);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return err_fail_errno(err, errno, "--trace: mmap of the trace memfd");
	r = cli_write_file(path, map, (size_t)st.st_size, err);
	if (munmap(map, (size_t)st.st_size) < 0 && r == 0)
		r = err_fail_errno(err, errno, "--trace: munmap of the trace memfd");
	return r;
}

static int run(int argc, char **argv, cuzk_error *err)
{
	const char *sock = NULL, *srs = NULL, *kind = NULL, *witness = NULL, *out = NULL, *prio_s = NULL,
		   *seed_s = NULL, *trace = NULL;
	const struct cli_option opts[] = {
		CLI_SOCKET_OPTION(sock),
		{ "srs", "NAME", &srs, "parameter file name in the daemon's srs_dir" },
		{ "kind", "KIND", &kind, "or a proof kind: porep-32g, window-post-32g, winning-post-32g, snap-32g, "
					 "... (cuzk params list)" },
		{ "witness", "W.witness", &witness, "cuzk witness file (one or more partitions)" },
		{ "out", "P.proof", &out, "where to write the proofs (192 bytes per partition)" },
		{ "priority", "P", &prio_s, "critical, high, normal (default) or low" },
		{ "seed", "N", &seed_s, "fix r and s (tests only: such proofs are not zero-knowledge)" },
		{ "trace", "FILE", &trace, "the request's timeline in the daemon, as Chrome trace-event JSON (Perfetto)" },
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
	const struct cuzk_connect_opts copts = { .flags = trace ? CUZK_CONNECT_TRACE : 0 };
	struct cuzk_submit_opts sopts = { .trace_fd = -1 };
	cuzk_client *c;
	cuzk_buffer *w = NULL;
	uint64_t id, job;
	if (!done)
		return err_fail(err, CUZK_E_NOMEM, "out of memory");
	if (trace && (sopts.trace_fd = memfd_create("cuzk-trace", MFD_CLOEXEC)) < 0) {
		free(done);
		return err_fail_errno(err, errno, "--trace: memfd_create");
	}
	sopts.flags = trace ? CUZK_SUBMIT_TRACE : 0;
	if ((r = cuzk_connect(&c, cli_daemon_socket(sock), &copts, err)) < 0) {
		c = NULL;
		goto out;
	}
	if ((r = cuzk_buffer_load_file(c, &w, witness, err)) < 0 ||
	    (r = cuzk_submit_ex(c, w, &req, &sopts, &id, &job, err)) < 0)
		goto out;
	/* The cancel line names the socket only when the command line did:
	 * otherwise the same default finds the same daemon. */
	fprintf(stderr, "cuzk submit: job %llu queued (cancel with: cuzk cancel%s%s --request %llu)\n",
		(unsigned long long)job, sock ? " --socket " : "", sock ? sock : "", (unsigned long long)job);
	do {
		if ((r = cuzk_wait(c, done, -1, err)) < 0)
			goto out;
	} while (done->request_id != id);
	/* A failed request has its timeline too, up to where it failed. */
	int traced = trace && !(done->status == 0 && done->message[0]);
	if (traced && (r = save_trace(sopts.trace_fd, trace, err)) < 0)
		goto out;
	if (done->status != 0) {
		r = err_fail(err, done->status, "job %llu: %s", (unsigned long long)job, done->message);
		goto out;
	}
	if ((r = cli_write_file(out, done->proof, (size_t)done->num_partitions * CUZK_PROOF_BYTES, err)) < 0)
		goto out;
	printf("%s: %u proof%s (job %llu, %.1f ms in the daemon, %.1f ms queued)\n", out, done->num_partitions,
	       done->num_partitions == 1 ? "" : "s", (unsigned long long)job,
	       done->phase_ns[CUZK_PHASE_TOTAL] / 1e6, done->phase_ns[CUZK_PHASE_QUEUE] / 1e6);
	if (traced)
		printf("%s: the timeline of job %llu\n", trace, (unsigned long long)job);
	else if (trace)   /* the proofs are written; the timeline is not */
		r = err_fail(err, CUZK_E_IO, "--trace %s: job %llu: %s", trace, (unsigned long long)job, done->message);
out:
	cuzk_buffer_free(w);
	cuzk_disconnect(c);
	if (sopts.trace_fd >= 0)
		close(sopts.trace_fd);
	free(done);
	return r;
}

const struct cli_command cli_cmd_submit = {
	.name = "submit",
	.summary = "prove a witness file through cuzkd",
	.usage = "[--socket PATH] (--srs NAME | --kind KIND) --witness W.witness --out P.proof [--priority P] "
		 "[--seed N] [--trace FILE]",
	.run = run,
};
