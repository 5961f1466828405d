// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A job's timeline (see trace.h). */
#include "daemon/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "formats/trace_json.h"

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010  /* Linux 5.1; older glibc lacks the name */
#endif

static const char *file_type(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a pipe" : S_ISSOCK(m) ? "a socket"
	       : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : S_ISLNK(m) ? "a symlink"
	       : "not a regular file";
}

int cuzkd_trace_check_fd(int fd, const char *who, cuzk_error *err)
{
	struct stat st;
	struct statfs sfs;
	int fl, seals;

	if (fstat(fd, &st) < 0)
		return err_fail_errno(err, errno, "%s: fstat of the trace fd", who);
	if (!S_ISREG(st.st_mode))
		return err_fail(err, CUZK_E_FD, "%s: the trace fd is %s, not a regular file on tmpfs", who,
				file_type(st.st_mode));
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return err_fail_errno(err, errno, "%s: fcntl(F_GETFL) of the trace fd", who);
	if ((fl & O_PATH) || (fl & O_ACCMODE) == O_RDONLY)
		return err_fail(err, CUZK_E_FD, "%s: the trace fd is not open for writing (%s)", who,
				fl & O_PATH ? "O_PATH" : "O_RDONLY");
	if (fstatfs(fd, &sfs) < 0)
		return err_fail_errno(err, errno, "%s: fstatfs of the trace fd", who);
	/* Not hugetlbfs either: it has no write(2). */
	if (sfs.f_type != TMPFS_MAGIC)
		return err_fail(err, CUZK_E_FD,
				"%s: the trace fd is not a file on tmpfs (filesystem magic 0x%lx): cuzkd writes traces "
				"only into memory files (memfd_create, /dev/shm)",
				who, (unsigned long)sfs.f_type);
	/* A file that is no memfd has no seals (EINVAL): nothing refuses the write. */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 && errno != EINVAL)
		return err_fail_errno(err, errno, "%s: fcntl(F_GET_SEALS) of the trace fd", who);
	if (seals > 0 && (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE | F_SEAL_GROW)))
		return err_fail(err, CUZK_E_SEALS, "%s: the trace memfd is sealed against %s", who,
				seals & F_SEAL_GROW ? "growing (F_SEAL_GROW)" : "writing (F_SEAL_WRITE)");
	return 0;
}

int cuzkd_trace_new(struct cuzkd_trace **ret, int fd, unsigned n_parts, atomic_uint_fast64_t *bytes,
		    cuzk_error *err)
{
	struct cuzkd_trace *t = calloc(1, cuzkd_trace_base_bytes(n_parts));

	if (!t)
		return err_fail(err, CUZK_E_NOMEM, "out of memory for the trace of %u partitions", n_parts);
	/* Our own descriptor: the one that came with the message is closed
	 * when the request has been answered. */
	t->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (t->fd < 0) {
		free(t);
		return err_fail_errno(err, errno, "dup of the trace fd");
	}
	t->n_parts = n_parts;
	atomic_fetch_add(bytes, cuzkd_trace_base_bytes(n_parts));
	*ret = t;
	return 0;
}

void cuzkd_trace_record(struct cuzkd_trace *t, atomic_uint_fast64_t *bytes, unsigned part, unsigned worker,
			const groth16_span *own, unsigned n_own, const groth16_timings *tm)
{
	struct cuzkd_trace_part *p = &t->part[part];
	unsigned n = tm ? tm->n_spans : 0;

	p->ran = 1;
	p->worker = worker;
	p->n_own = n_own < CUZKD_TRACE_OWN_SPANS ? n_own : CUZKD_TRACE_OWN_SPANS;
	memcpy(p->own, own, p->n_own * sizeof(*own));
	p->dropped = (tm ? tm->spans_dropped : 0) + (n_own - p->n_own);
	/* The backend keeps at most GROTH16_MAX_SPANS; the bound is ours to
	 * keep all the same. */
	if (n > GROTH16_MAX_SPANS) {
		p->dropped += n - GROTH16_MAX_SPANS;
		n = GROTH16_MAX_SPANS;
	}
	if (n && !(p->span = malloc(n * sizeof(groth16_span)))) {
		p->dropped += n;   /* a thinner trace, not a failed proof */
		n = 0;
	}
	if (n)
		memcpy(p->span, tm->span, n * sizeof(groth16_span));
	p->n = n;
	atomic_fetch_add(bytes, (uint_fast64_t)n * sizeof(groth16_span));
}

static int add_part(groth16_trace *tr, const struct cuzkd_trace_part *p, unsigned part, const char *job,
		    cuzk_error *err)
{
	char worker[32], lane[96];
	int r = 0;

	snprintf(worker, sizeof(worker), "cuzkd worker %u", p->worker);
	for (unsigned i = 0; i < p->n_own && r == 0; i++) {
		const groth16_span *s = &p->own[i];
		r = groth16_trace_add_event(tr, s->name, s->lane ? s->lane : worker, -1, (long)part, job, s->start_ms,
					    s->end_ms, err);
	}
	for (unsigned i = 0; i < p->n && r == 0; i++) {
		const groth16_span *s = &p->span[i];
		/* Several workers prove on the CPU at once, each with lanes of
		 * the same names: one track per worker.  GPU lanes are per
		 * stream and workspace already. */
		if (s->device < 0)
			snprintf(lane, sizeof(lane), "%s: %s", worker, s->lane);
		r = groth16_trace_add_event(tr, s->name, s->device < 0 ? lane : s->lane, s->device, (long)part, job,
					    s->start_ms, s->end_ms, err);
	}
	/* Say so when the bound (or memory) cut spans, at the partition's end. */
	if (p->dropped && r == 0) {
		double end = 0;
		for (unsigned i = 0; i < p->n_own; i++)
			end = p->own[i].end_ms > end ? p->own[i].end_ms : end;
		for (unsigned i = 0; i < p->n; i++)
			end = p->span[i].end_ms > end ? p->span[i].end_ms : end;
		snprintf(lane, sizeof(lane), "%u spans not kept", p->dropped);
		r = groth16_trace_add_event(tr, lane, worker, -1, (long)part, job, end, end, err);
	}
	return r;
}

int cuzkd_trace_write(struct cuzkd_trace *t, uint64_t job_id, uint64_t t_received_ns, cuzk_error *err)
{
	const double received_ms = (double)t_received_ns / 1e6;
	char job[24], name[64];
	groth16_trace *tr;
	FILE *f;
	int r;

	snprintf(job, sizeof(job), "%" PRIu64, job_id);
	snprintf(name, sizeof(name), "cuzkd job %s", job);
	if ((r = groth16_trace_new(&tr, name, err)) < 0)
		return r;
	groth16_trace_set_origin(tr, received_ms);
	r = groth16_trace_add_event(tr, "check request", CUZKD_TRACE_LANE, -1, -1, job, received_ms,
				    (double)t->admitted_ns / 1e6, err);
	for (unsigned p = 0; p < t->n_parts && r == 0; p++)
		if (t->part[p].ran)
			r = add_part(tr, &t->part[p], p, job, err);
	if (r == 0 && !(f = fdopen(t->fd, "w")))
		r = err_fail_errno(err, errno, "the trace fd: fdopen");
	if (r == 0) {
		t->fd = -1;   /* the stream owns it now */
		r = groth16_trace_write_stream(tr, f, "the trace fd", err);
		if (fclose(f) != 0 && r == 0)
			r = err_fail_errno(err, errno, "the trace fd: close");
	}
	groth16_trace_free(tr);
	return r;
}

void cuzkd_trace_free(struct cuzkd_trace *t, atomic_uint_fast64_t *bytes)
{
	uint_fast64_t held;

	if (!t)
		return;
	held = cuzkd_trace_base_bytes(t->n_parts);
	for (unsigned p = 0; p < t->n_parts; p++) {
		held += (uint_fast64_t)t->part[p].n * sizeof(groth16_span);
		free(t->part[p].span);
	}
	atomic_fetch_sub(bytes, held);
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}
