// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk submit: proves a witness file through cuzkd.  The file is copied into
 * a library witness buffer (one copy; a real client writes its scalars there
 * in place), submitted, and the proofs written when the completion arrives.
 *
 * --repeat N submits that one buffer N times, at most --inflight K at once:
 * a client proving a sector's partitions from a buffer it keeps.  The same
 * memfd every time, so the daemon maps and pins it once (its registration
 * cache); with two or more in flight its workers overlap one request's
 * upload with another's MSMs.  A buffer may be in flight in several requests
 * at once: nothing writes it, and libcuzk seals it once (SHRINK, GROW, SEAL),
 * so a second submission finds it sealed and sends it as it is.
 *
 * --buffers B loads the witness into B memfds and takes them in turn, the
 * way a sector's ten different witnesses arrive: each new memfd is mapped
 * and pinned again.  A daemon whose max_buffers_total is below B evicts the
 * least recently used one, so every request then pays its registration, as
 * with ten distinct witnesses, while the client holds only B copies.
 *
 * --trace FILE: the daemon writes each request's timeline into a memfd of
 * ours (it writes only into memory files, never a path).  One request's is
 * copied to FILE as it is; with --repeat, every request's is put on the
 * clock of the first one's arrival (each timeline says where its times
 * start), so that FILE shows the requests side by side as they ran, each
 * span with its job, and on the track "cuzk submit" each request from its
 * arrival to its completion as this client saw it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_daemon.h"
#include "common/clock.h"
#include "cuzk.h"
#include "formats/trace_json.h"

/* --repeat's bound: every request's proofs are kept for --out (192 bytes a
 * partition), at most ~120 MiB. */
#define SUBMIT_MAX_REPEAT 10000
/* --inflight's: the largest ring the protocol allows (PROTOCOL.md §4). */
#define SUBMIT_MAX_INFLIGHT 4096
/* --buffers': each is a full copy of the witness file in memory. */
#define SUBMIT_MAX_BUFFERS 16

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

/* One submission of the buffer. */
struct submitted {
	uint64_t id, job;
	double t_sent_ms, latency_ms;
	int done;
	int trace_fd;               /* --trace: its timeline's memfd until taken, else -1 */
};

struct run_state {
	cuzk_client *c;
	cuzk_buffer *w[SUBMIT_MAX_BUFFERS];
	uint64_t nbuf;              /* --buffers: request i goes from w[i % nbuf] */
	const struct cuzk_request *req;
	const char *sock, *out;
	const char *trace;          /* --trace FILE, or NULL */
	struct cuzk_submit_opts sopts;   /* CUZK_SUBMIT_TRACE with --trace */
	int traced;                 /* n == 1: the daemon wrote the timeline */
	groth16_trace *merged;      /* n > 1: the timelines that came back */
	uint64_t n_merged;
	double origin_ms;           /* the earliest of their arrivals */
	int64_t untraced;           /* n > 1: the first request without its timeline, -1 */
	char untraced_why[CUZK_ERRMSG_MAX];   /* and why */
	uint64_t n, inflight;
	uint32_t parts;             /* partitions per request (the witness file's) */
	int fixed_rs;
	struct submitted *sub;      /* n */
	uint8_t *proofs;            /* n × parts proofs, in request order */
	int64_t first_done;         /* the first request that completed, -1 before */
	struct cuzk_completion *done;
};

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* The request a completion answers, by the library's id. */
static int64_t find_request(const struct run_state *st, uint64_t upto, uint64_t id)
{
	for (uint64_t i = 0; i < upto; i++)
		if (!st->sub[i].done && st->sub[i].id == id)
			return (int64_t)i;
	return -1;
}

/* A memfd's bytes, mapped; *len 0 (nothing mapped) when it is empty. */
static int map_trace(int fd, void **map, size_t *len, cuzk_error *err)
{
	struct stat st;

	*len = 0;
	if (fstat(fd, &st) < 0)
		return err_fail_errno(err, errno, "--trace: fstat of the trace memfd");
	if (st.st_size == 0)
		return 0;
	*map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (*map == MAP_FAILED)
		return err_fail_errno(err, errno, "--trace: mmap of the trace memfd");
	*len = (size_t)st.st_size;
	return 0;
}

/* Request i's timeline onto the merged one, with the request's own span
 * from its arrival (the daemon's clock) for as long as this client waited. */
static int merge_trace(struct run_state *st, uint64_t i, const void *map, size_t len, cuzk_error *err)
{
	const struct submitted *s = &st->sub[i];
	char name[48], job[24], span[48];
	double origin;
	int r;

	snprintf(name, sizeof(name), "--trace: job %" PRIu64 "'s timeline", s->job);
	if ((r = groth16_trace_merge_json(st->merged, map, len, name, &origin, err)) < 0)
		return r;
	snprintf(job, sizeof(job), "%" PRIu64, s->job);
	snprintf(span, sizeof(span), "request %" PRIu64, i + 1);
	if ((r = groth16_trace_add_event(st->merged, span, "cuzk submit", -1, -1, job, origin, origin + s->latency_ms,
					 err)) < 0)
		return r;
	if (st->n_merged++ == 0 || origin < st->origin_ms)
		st->origin_ms = origin;
	return 0;
}

/* Request i's timeline, if the daemon wrote one: one request's to the file
 * as it is, else onto the merged one.  Its memfd is closed either way. */
static int take_trace(struct run_state *st, uint64_t i, cuzk_error *err)
{
	struct submitted *s = &st->sub[i];
	/* A failed request has its timeline too, up to where it failed; a
	 * proved one without it says why in its message. */
	const int written = !(st->done->status == 0 && st->done->message[0]);
	const char *why = written ? "the daemon wrote no timeline" : st->done->message;
	cuzk_error merr;
	void *map = NULL;
	size_t len = 0;
	int r = written ? map_trace(s->trace_fd, &map, &len, err) : 0;

	if (r == 0 && st->n == 1 && written)
		r = len ? cli_write_file(st->trace, map, len, err)
			: err_fail(err, CUZK_E_IO, "--trace %s: the daemon wrote no timeline", st->trace);
	/* A timeline that cannot be read costs that timeline, not the proofs:
	 * it is said at the end, after they are written. */
	else if (r == 0 && len)
		why = merge_trace(st, i, map, len, &merr) < 0 ? merr.msg : NULL;
	if (r == 0 && st->n > 1 && why && st->untraced < 0) {
		st->untraced = (int64_t)i;
		snprintf(st->untraced_why, sizeof(st->untraced_why), "%s", why);
	}
	st->traced = st->n == 1 && written && r == 0;
	if (len && munmap(map, len) < 0 && r == 0)
		r = err_fail_errno(err, errno, "--trace: munmap of the trace memfd");
	close(s->trace_fd);
	s->trace_fd = -1;
	return r;
}

static void print_request(const struct run_state *st, uint64_t i)
{
	const uint64_t *ph = st->done->phase_ns;
	printf("request %" PRIu64 " of %" PRIu64 " (job %" PRIu64 "): %.1f ms submit to completion; daemon ms: "
	       "check %.1f queue %.1f srs %.1f register %.1f upload %.1f ntt %.1f msm %.1f assemble %.1f total %.1f",
	       i + 1, st->n, st->sub[i].job, st->sub[i].latency_ms, ph[CUZK_PHASE_CHECK] / 1e6,
	       ph[CUZK_PHASE_QUEUE] / 1e6, ph[CUZK_PHASE_SRS] / 1e6, ph[CUZK_PHASE_REGISTER] / 1e6,
	       ph[CUZK_PHASE_UPLOAD] / 1e6, ph[CUZK_PHASE_NTT] / 1e6, ph[CUZK_PHASE_MSM] / 1e6,
	       ph[CUZK_PHASE_ASSEMBLE] / 1e6, ph[CUZK_PHASE_TOTAL] / 1e6);
	if (st->nbuf > 1)
		printf("; buffer %" PRIu64, i % st->nbuf + 1);
	putchar('\n');
	fflush(stdout);
}

/* Takes one completion: its request's latency and proofs, which with fixed
 * r and s must be the bytes of the first request's. */
static int take_completion(struct run_state *st, uint64_t submitted, cuzk_error *err)
{
	const size_t bytes = (size_t)st->parts * CUZK_PROOF_BYTES;
	int64_t i;
	int r;

	do {
		if ((r = cuzk_wait(st->c, st->done, -1, err)) < 0)
			return r;
	} while ((i = find_request(st, submitted, st->done->request_id)) < 0);
	struct submitted *s = &st->sub[i];
	s->done = 1;
	s->latency_ms = monotonic_ms() - s->t_sent_ms;
	if (st->trace && (r = take_trace(st, (uint64_t)i, err)) < 0)
		return r;
	if (st->done->status != 0 && st->n == 1)
		return err_fail(err, st->done->status, "job %" PRIu64 ": %s", s->job, st->done->message);
	if (st->done->status != 0)
		return err_fail(err, st->done->status, "request %" PRIu64 " of %" PRIu64 " (job %" PRIu64 "): %s",
				(uint64_t)i + 1, st->n, s->job, st->done->message);
	if (st->done->num_partitions != st->parts)
		return err_fail(err, CUZK_E_PROTOCOL, "job %" PRIu64 ": %u proofs for a witness of %u partition%s",
				s->job, st->done->num_partitions, st->parts, plural(st->parts));
	uint8_t *mine = st->proofs + (size_t)i * bytes;
	memcpy(mine, st->done->proof, bytes);
	if (st->first_done < 0)
		st->first_done = i;
	else if (st->fixed_rs && memcmp(mine, st->proofs + (size_t)st->first_done * bytes, bytes) != 0)
		return err_fail(err, CUZK_E_MISMATCH,
				"request %" PRIu64 " (job %" PRIu64 ") proved the witness to other bytes than request %" PRId64
				" (job %" PRIu64 "), though --seed fixes r and s",
				(uint64_t)i + 1, s->job, st->first_done + 1, st->sub[st->first_done].job);
	if (st->n > 1)
		print_request(st, (uint64_t)i);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The whole run in one line: wall time, proofs per second, the spread of the
 * client-observed latencies. */
static int print_summary(const struct run_state *st, double wall_ms, cuzk_error *err)
{
	double *lat = malloc(st->n * sizeof(*lat));
	if (!lat)
		return err_fail(err, CUZK_E_NOMEM, "out of memory");
	for (uint64_t i = 0; i < st->n; i++)
		lat[i] = st->sub[i].latency_ms;
	qsort(lat, st->n, sizeof(*lat), cmp_double);
	const uint64_t proofs = st->n * st->parts;
	char from[48] = "";
	if (st->nbuf > 1)
		snprintf(from, sizeof(from), " from %" PRIu64 " buffers", st->nbuf);
	printf("%s: %" PRIu64 " requests of %u partition%s%s, %" PRIu64 " proofs%s, at most %" PRIu64
	       " in flight: %.1f ms wall, %.3f proofs/s; latency ms min %.1f median %.1f max %.1f\n",
	       st->out, st->n, st->parts, plural(st->parts), from, proofs,
	       st->fixed_rs ? " (identical: --seed)" : "", st->inflight, wall_ms,
	       wall_ms > 0 ? (double)proofs / (wall_ms / 1e3) : 0.0, lat[0], lat[st->n / 2], lat[st->n - 1]);
	free(lat);
	return 0;
}

/* Keeps at most st->inflight requests outstanding until all st->n are done. */
static int submit_all(struct run_state *st, cuzk_error *err)
{
	uint64_t submitted = 0, completed = 0;
	int r;

	if (st->nbuf > 1)
		fprintf(stderr, "cuzk submit: %" PRIu64 " buffers in turn, %" PRIu64 " requests, at most %" PRIu64
			" in flight\n", st->nbuf, st->n, st->inflight);
	else if (st->n > 1)
		fprintf(stderr, "cuzk submit: one buffer %" PRIu64 " times, at most %" PRIu64 " in flight\n", st->n,
			st->inflight);
	const double t0 = monotonic_ms();
	while (completed < st->n) {
		while (submitted < st->n && submitted - completed < st->inflight) {
			struct submitted *s = &st->sub[submitted];
			if (st->trace && (s->trace_fd = memfd_create("cuzk-trace", MFD_CLOEXEC)) < 0)
				return err_fail_errno(err, errno, "--trace: memfd_create for request %" PRIu64, submitted + 1);
			st->sopts.trace_fd = s->trace_fd;
			s->t_sent_ms = monotonic_ms();
			cuzk_buffer *w = st->w[submitted % st->nbuf];
			if ((r = cuzk_submit_ex(st->c, w, st->req, &st->sopts, &s->id, &s->job, err)) < 0) {
				if (st->n > 1)
					err_prefix(err, "request %" PRIu64 " of %" PRIu64, submitted + 1, st->n);
				return r;
			}
			submitted++;
			/* The cancel line names the socket only when the command
			 * line did: otherwise the same default finds the same
			 * daemon. */
			if (st->n == 1)
				fprintf(stderr, "cuzk submit: job %" PRIu64 " queued (cancel with: cuzk cancel%s%s --request %" PRIu64
						")\n", s->job, st->sock ? " --socket " : "", st->sock ? st->sock : "", s->job);
		}
		if ((r = take_completion(st, submitted, err)) < 0)
			return r;
		completed++;
	}
	const double wall_ms = monotonic_ms() - t0;
	if ((r = cli_write_file(st->out, st->proofs, (size_t)st->n * st->parts * CUZK_PROOF_BYTES, err)) < 0)
		return r;
	if (st->n > 1)
		return print_summary(st, wall_ms, err);
	const uint64_t *ph = st->done->phase_ns;
	printf("%s: %u proof%s (job %" PRIu64 ", %.1f ms in the daemon, %.1f ms queued)\n", st->out, st->parts,
	       plural(st->parts), st->sub[0].job, ph[CUZK_PHASE_TOTAL] / 1e6, ph[CUZK_PHASE_QUEUE] / 1e6);
	if (st->traced)
		printf("%s: the timeline of job %" PRIu64 "\n", st->trace, st->sub[0].job);
	else if (st->trace)   /* the proofs are written; the timeline is not */
		return err_fail(err, CUZK_E_IO, "--trace %s: job %" PRIu64 ": %s", st->trace, st->sub[0].job,
				st->done->message);
	return 0;
}

/* --trace with --repeat: the timelines that came back, in one file, also
 * after a failure (r < 0, whose error stays the one reported); then a
 * request without its timeline is an error of its own. */
static int write_merged(struct run_state *st, int r, cuzk_error *err)
{
	cuzk_error werr;
	int w;

	if (st->n_merged == 0 && r == 0)
		return err_fail(err, CUZK_E_IO, "--trace %s: no request has a timeline (request %" PRId64 ", job %" PRIu64
				": %s)", st->trace, st->untraced + 1, st->sub[st->untraced].job, st->untraced_why);
	if (st->n_merged == 0)
		return r;
	groth16_trace_set_origin(st->merged, st->origin_ms);
	if ((w = groth16_trace_write(st->merged, st->trace, r < 0 ? &werr : err)) < 0)
		return r < 0 ? r : w;
	if (r < 0) {
		fprintf(stderr, "cuzk submit: %s: the timeline of the %" PRIu64 " request%s that came back\n", st->trace,
			st->n_merged, plural(st->n_merged));
		return r;
	}
	printf("%s: the timeline of %" PRIu64 " request%s, from the first one's arrival\n", st->trace, st->n_merged,
	       plural(st->n_merged));
	if ((w = groth16_trace_print_busy(st->merged, stdout, NULL, err)) < 0)
		return w;
	if (st->untraced >= 0)
		return err_fail(err, CUZK_E_IO, "--trace %s: request %" PRId64 " (job %" PRIu64 ") has no timeline: %s",
				st->trace, st->untraced + 1, st->sub[st->untraced].job, st->untraced_why);
	return 0;
}

/* Partitions per request: the buffer's, which the library knows. */
static uint32_t buffer_partitions(cuzk_buffer *w)
{
	struct cuzk_partition p;
	uint32_t n = 0;
	while (n < CUZK_MAX_PARTITIONS && cuzk_buffer_partition(w, n, &p) == 0)
		n++;
	return n;
}

/* The connection, the buffer (filled once from the file), the tables, the
 * requests. */
static int run_submit(struct run_state *st, const char *witness, int inflight_given, cuzk_error *err)
{
	const struct cuzk_connect_opts copts = { .flags = st->trace ? CUZK_CONNECT_TRACE : 0 };
	struct cuzk_limits lim;
	int r;

	if (st->trace)
		st->sopts.flags = CUZK_SUBMIT_TRACE;
	if (st->trace && st->n > 1 && (r = groth16_trace_new(&st->merged, "cuzkd, requests of cuzk submit", err)) < 0)
		return r;
	if ((r = cuzk_connect(&st->c, cli_daemon_socket(st->sock), &copts, err)) < 0)
		return r;
	/* Before the file is read: a PoRep partition's witness (17 GB) takes
	 * seconds to load. */
	cuzk_client_limits(st->c, &lim);
	if (inflight_given && st->inflight > lim.max_inflight)
		return cli_usage(err, "--inflight %" PRIu64 ": the daemon allows %u request%s in flight on one connection "
				 "(its max_inflight_per_client)", st->inflight, lim.max_inflight, plural(lim.max_inflight));
	if (st->inflight > lim.max_inflight)
		st->inflight = lim.max_inflight;   /* the default asked for more than this daemon allows */
	if (st->inflight > st->n)
		st->inflight = st->n;
	for (uint64_t i = 0; i < st->nbuf; i++)
		if ((r = cuzk_buffer_load_file(st->c, &st->w[i], witness, err)) < 0) {
			if (st->nbuf > 1)
				err_prefix(err, "--buffers %" PRIu64 ": copy %" PRIu64, st->nbuf, i + 1);
			return r;
		}
	st->parts = buffer_partitions(st->w[0]);
	st->sub = calloc(st->n, sizeof(*st->sub));
	for (uint64_t i = 0; st->sub && i < st->n; i++)
		st->sub[i].trace_fd = -1;
	st->proofs = malloc((size_t)st->n * st->parts * CUZK_PROOF_BYTES);
	st->done = malloc(sizeof(*st->done));   /* 12 KiB of proofs */
	if (!st->sub || !st->proofs || !st->done)
		return err_fail(err, CUZK_E_NOMEM, "out of memory for %" PRIu64 " requests", st->n);
	return submit_all(st, err);
}

static int run(int argc, char **argv, cuzk_error *err)
{
	const char *sock = NULL, *srs = NULL, *kind = NULL, *witness = NULL, *out = NULL, *prio_s = NULL,
		   *seed_s = NULL, *repeat_s = NULL, *inflight_s = NULL, *buffers_s = NULL,
		   *trace = NULL;
	const struct cli_option opts[] = {
		CLI_SOCKET_OPTION(sock),
		{ "srs", "NAME", &srs, "parameter file name in the daemon's srs_dir" },
		{ "kind", "KIND", &kind, "or a proof kind: porep-32g, window-post-32g, winning-post-32g, snap-32g, "
					 "... (cuzk params list)" },
		{ "witness", "W.witness", &witness, "cuzk witness file (one or more partitions)" },
		{ "out", "P.proof", &out, "where to write the proofs (192 bytes per partition; every request's, in order)" },
		{ "priority", "P", &prio_s, "critical, high, normal (default) or low" },
		{ "seed", "N", &seed_s, "fix r and s (tests only: such proofs are not zero-knowledge)" },
		{ "repeat", "N", &repeat_s, "submit the same buffer N times (default 1), printing each request's times" },
		{ "inflight", "K", &inflight_s, "with --repeat: at most K requests outstanding (default 2)" },
		{ "buffers", "B", &buffers_s, "with --repeat: B copies of the witness in B memfds, used in turn (default 1)" },
		{ "trace", "FILE", &trace, "the requests' timeline in the daemon, as Chrome trace-event JSON (Perfetto); "
					   "with --repeat, all of them on one clock" },
	};
	int r = cli_parse(&cli_cmd_submit, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	if ((r = srs_or_kind(&srs, kind, err)) < 0)
		return r;
	struct cuzk_request req = { .srs = srs };
	struct run_state st = { .req = &req, .sock = sock, .out = out, .trace = trace, .sopts = { .trace_fd = -1 },
				.n = 1, .inflight = 2, .nbuf = 1, .first_done = -1, .untraced = -1 };
	if ((r = cli_require("witness", witness, err)) < 0 || (r = cli_require("out", out, err)) < 0 ||
	    (r = parse_priority(prio_s, &req.priority, err)) < 0 ||
	    (r = cli_parse_u64("seed", seed_s, 0, UINT64_MAX, &req.seed, err)) < 0 ||
	    (r = cli_parse_u64("repeat", repeat_s, 1, SUBMIT_MAX_REPEAT, &st.n, err)) < 0 ||
	    (r = cli_parse_u64("inflight", inflight_s, 1, SUBMIT_MAX_INFLIGHT, &st.inflight, err)) < 0 ||
	    (r = cli_parse_u64("buffers", buffers_s, 1, SUBMIT_MAX_BUFFERS, &st.nbuf, err)) < 0)
		return r;
	if (inflight_s && !repeat_s)
		return cli_usage(err, "--inflight needs --repeat: one request is never more than one in flight");
	if (buffers_s && !repeat_s)
		return cli_usage(err, "--buffers needs --repeat: one request uses one buffer");
	if (st.nbuf > st.n)
		return cli_usage(err, "--buffers %" PRIu64 " with --repeat %" PRIu64 ": a buffer no request uses", st.nbuf,
				 st.n);
	if (seed_s) {
		req.flags |= CUZK_REQ_FIXED_RS;
		st.fixed_rs = 1;
	}
	r = run_submit(&st, witness, inflight_s != NULL, err);
	if (st.merged)
		r = write_merged(&st, r, err);
	/* Disconnecting cancels whatever is still in flight after a failure. */
	for (uint64_t i = 0; i < st.nbuf; i++)
		cuzk_buffer_free(st.w[i]);
	cuzk_disconnect(st.c);
	for (uint64_t i = 0; st.sub && i < st.n; i++)
		if (st.sub[i].trace_fd >= 0)
			close(st.sub[i].trace_fd);
	groth16_trace_free(st.merged);
	free(st.sub);
	free(st.proofs);
	free(st.done);
	return r;
}

const struct cli_command cli_cmd_submit = {
	.name = "submit",
	.summary = "prove a witness file through cuzkd (--repeat: the same buffer N times, or B buffers in turn)",
	.usage = "[--socket PATH] (--srs NAME | --kind KIND) --witness W.witness --out P.proof [--priority P] "
		 "[--seed N]\n"
		 "                   [--repeat N [--inflight K] [--buffers B]] [--trace FILE]",
	.run = run,
};
