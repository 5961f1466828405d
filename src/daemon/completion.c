// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Finished jobs into their client's completion ring (PROTOCOL.md §6). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "daemon/daemon.h"
#include "daemon/trace.h"

/* phases may be NULL (abandoned: workers may still be writing the job's). */
static void write_completion(struct cuzkd *d, struct cuzkd_session *s, const struct cuzkd_job *job, int status,
			     const char *message, const uint64_t *phases)
{
	struct ring_rec rec;
	uint64_t one = 1;
	cuzk_error err;

	memset(&rec, 0, sizeof(rec));
	rec.request_id = job->request_id;
	rec.status = (uint32_t)status;
	rec.num_partitions = status ? 0 : job->n_parts;
	for (int p = 0; phases && p < CUZKD_PHASES; p++)
		rec.phase_ns[p] = phases[p];
	snprintf(rec.message, sizeof(rec.message), "%s", message);
	if (ring_push(&s->ring, &rec, status ? NULL : &job->proofs[0][0], &err)) {
		/* Cannot be full (the in-flight limit counts unread completions):
		 * the client moved its head out of range. */
		d->stats.disconnects_misbehaving++;
		cuzkd_session_close(s, err.msg);
		return;
	}
	if (write(s->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		cuzkd_session_close(s, "eventfd write failed");
}

/* A traced job's timeline into the client's file, before its completion:
 * a client that reads the file when the completion arrives finds it whole.
 * A trace that cannot be written does not cost the proofs: the completion
 * keeps its status and, on success, says why in its message. */
static void write_trace(struct cuzkd *d, struct cuzkd_session *s, struct cuzkd_job *job,
			const struct cuzkd_log_fields *f)
{
	cuzk_error err;

	if (cuzkd_trace_write(job->trace, job->id, job->t_received_ns, &err) == 0) {
		d->stats.traces_written++;
		return;
	}
	d->stats.traces_failed++;
	err_prefix(&err, "trace not written");
	cuzkd_log_client(&d->log, CUZKD_LOG_WARNING, f, "%s: request %" PRIu64 ": %s", s->who, job->request_id,
			 err.msg);
	if (job->status == 0)
		snprintf(job->message, sizeof(job->message), "%s", err.msg);
}

void cuzkd_session_complete(struct cuzkd *d, struct cuzkd_job *job)
{
	struct cuzkd_session *s = job->session;
	struct cuzkd_witness *w = job->witness;
	struct cuzkd_log_fields f = cuzkd_session_fields(s);

	for (struct cuzkd_job **pp = &s->jobs; *pp; pp = &(*pp)->session_next) {
		if (*pp == job) {
			*pp = job->session_next;
			break;
		}
	}
	s->n_jobs--;
	s->pinned_bytes -= w->buf->size;
	s->acct->inflight--;
	s->active_ns = monotonic_ns();   /* idle_timeout counts from the last completion too */
	s->acct->pinned_bytes -= w->buf->size;
	d->inflight_total--;
	job->phase_ns[CUZKD_PH_TOTAL] = monotonic_ns() - job->t_received_ns;
	cuzkd_engine_count(&d->engine, job);
	f.job = (int64_t)job->id;
	f.phase = "total";
	f.ms = (double)job->phase_ns[CUZKD_PH_TOTAL] / 1e6;
	if (job->status)
		cuzkd_log_client(&d->log, CUZKD_LOG_NOTICE, &f, "%s: request %" PRIu64 " failed (%s): %s", s->who,
				 job->request_id, cuzk_status_name(job->status), job->message);
	else
		cuzkd_log(&d->log, CUZKD_LOG_INFO, &f, "%s: request %" PRIu64 " done: %u proofs in %.1f ms",
			  s->who, job->request_id, job->n_parts, f.ms);
	if (!s->closing && s->hello_done && job->trace)
		write_trace(d, s, job, &f);
	if (!s->closing && s->hello_done)
		write_completion(d, s, job, job->status, job->message, job->phase_ns);
	cuzkd_job_free(d, job);
	cuzkd_session_unref(s);
}

void cuzkd_sessions_abandon(struct cuzkd *d)
{
	for (struct cuzkd_session *s = d->sessions; s; s = s->next) {
		if (s->closing || !s->hello_done)
			continue;
		for (struct cuzkd_job *j = s->jobs; j && !s->closing; j = j->session_next)
			write_completion(d, s, j, CUZK_E_SHUTDOWN,
					 "the daemon shut down before this proof finished (drain_timeout)", NULL);
	}
}
