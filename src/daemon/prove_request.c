// SPDX-License-Identifier: Apache-2.0 OR MIT
/* PROVE: admission of a request, in the order of PROTOCOL.md §8, and the
 * job it becomes.  Every check that fails leaves through one path: the
 * request is answered with the first failure and nothing it took is kept. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "daemon/daemon.h"
#include "daemon/trace.h"

/* The limits a new request must fit, checked before its witness is touched.
 * A ring head out of range is the client's breach of the protocol:
 * *ret_fatal then says to close the connection. */
static int check_limits(struct cuzkd_session *s, uint64_t request_id, int *ret_fatal, cuzk_error *err)
{
	struct cuzkd *d = s->d;
	int64_t unread = ring_unread(&s->ring, err);

	if (unread < 0) {
		*ret_fatal = 1;
		return (int)unread;
	}
	if (cuzkd_session_job(s, request_id))
		return err_fail(err, CUZK_E_INVAL, "request id %" PRIu64 " is already in flight", request_id);
	if (s->n_jobs + (uint64_t)unread >= s->max_inflight)
		return err_fail(err, CUZK_E_BUSY, "%u requests in flight and %lld unread completions: the limit is %u",
				s->n_jobs, (long long)unread, s->max_inflight);
	if (s->acct->inflight >= d->cfg.max_inflight_per_uid)
		return err_fail(err, CUZK_E_BUSY, "uid %u has %u requests in flight (max_inflight_per_uid)",
				s->acct->uid, s->acct->inflight);
	if (d->inflight_total >= d->cfg.max_inflight_total)
		return err_fail(err, CUZK_E_BUSY, "the daemon has %u requests in flight (max_inflight_total)",
				d->inflight_total);
	return 0;
}

static int job_new(struct cuzkd_session *s, const struct msg_prove *req, uint64_t t_recv,
		   struct cuzkd_job **ret, cuzk_error *err)
{
	struct cuzkd *d = s->d;
	struct cuzkd_job *job = calloc(1, sizeof(*job));

	if (!job || !(job->witness = calloc(1, sizeof(*job->witness)))) {
		free(job);
		return err_fail(err, CUZK_E_NOMEM, "out of memory for a request");
	}
	job->id = atomic_fetch_add(&d->engine.next_job_id, 1) + 1;
	job->request_id = req->hdr.request_id;
	job->priority = req->priority;
	memcpy(job->srs_name, req->srs, sizeof(job->srs_name));
	job->fixed_rs = (req->flags & CUZK_REQ_FIXED_RS) != 0;
	job->seed = req->seed;
	job->client_pid = s->cred.pid;
	job->client_uid = s->cred.uid;
	job->t_received_ns = t_recv;
	job->session = s;
	*ret = job;
	return 0;
}

void cuzkd_job_free(struct cuzkd *d, struct cuzkd_job *job)
{
	struct cuzkd_witness *w = job->witness;

	if (w) {
		cuzkd_witness_close(w, &d->reg);
		free(w);
	}
	cuzkd_trace_free(job->trace, &d->engine.trace_bytes);
	free(job->proofs);
	free(job);
}

/* The witness fd through its checks (witness.c), and the limits on what it
 * holds. */
static int open_witness(struct cuzkd_session *s, struct cuzkd_job *job, int fd, const struct msg_prove *req,
			cuzk_error *err)
{
	struct cuzkd *d = s->d;
	struct cuzkd_witness *w = job->witness;
	const struct cuzkd_owner owner = { .session = s->id, .uid = (uint32_t)s->cred.uid, .who = s->who };
	int r = cuzkd_witness_open(w, &d->reg, fd, req, d->cfg.max_witness_bytes, &owner, job->view, err);

	if (r)
		return r;
	if (s->pinned_bytes + w->buf->size > d->cfg.max_pinned_bytes_per_client)
		return err_fail(err, CUZK_E_BUSY,
				"%llu witness bytes in flight plus %llu exceed max_pinned_bytes_per_client",
				(unsigned long long)s->pinned_bytes, (unsigned long long)w->buf->size);
	if (s->acct->pinned_bytes + w->buf->size > d->cfg.max_pinned_bytes_per_uid)
		return err_fail(err, CUZK_E_BUSY,
				"uid %u holds %llu witness bytes in flight; %llu more exceed max_pinned_bytes_per_uid",
				s->acct->uid, (unsigned long long)s->acct->pinned_bytes,
				(unsigned long long)w->buf->size);
	job->buf = w->buf;
	job->n_parts = w->desc.hdr.num_partitions;
	job->proofs = calloc(job->n_parts, GROTH16_PROOF_SIZE);
	if (!job->proofs)
		return err_fail(err, CUZK_E_NOMEM, "out of memory for a request");
	return 0;
}

/* Every check of a PROVE, in order.  0 and *ret_job, or the first failure.
 * The trace fd is checked before the witness: it costs nothing, where the
 * witness may cost a mapping. */
static int admit(struct cuzkd_session *s, const struct msg_prove *req, const int *fds, unsigned nfds,
		 const cuzk_error *fd_err, uint64_t t_recv, struct cuzkd_job **ret_job, int *ret_fatal,
		 cuzk_error *err)
{
	struct cuzkd *d = s->d;
	struct cuzkd_job *job = NULL;
	const int traced = (req->flags & CUZK_PROVE_FLAG_TRACE) != 0;
	int r;

	if (fd_err) {
		*err = *fd_err;
		return -err->code;
	}
	if (traced && !s->may_trace)
		return err_fail(err, CUZK_E_PROTOCOL,
				"prove message: the TRACE flag (0x%x) on a connection whose HELLO did not ask for "
				"traces (HELLO flag 0x%x)",
				CUZK_PROVE_FLAG_TRACE, CUZK_HELLO_TRACE);
	if (nfds != 1u + traced)
		return err_fail(err, CUZK_E_FD, "a PROVE request %s carries exactly %u fd%s (%s), not %u",
				traced ? "with the TRACE flag" : "without the TRACE flag", 1u + traced,
				traced ? "s" : "", traced ? "the witness, then the trace file" : "the witness", nfds);
	if (d->draining)
		return err_fail(err, CUZK_E_SHUTDOWN, "the daemon is shutting down");
	if (req->priority < CUZK_PRIORITY_NORMAL && !s->may_prioritize)
		return err_fail(err, CUZK_E_PERM, "uid %u may not submit at %s priority (priority_users, priority_groups)",
				s->acct->uid, req->priority == CUZK_PRIORITY_CRITICAL ? "critical" : "high");
	r = check_limits(s, req->hdr.request_id, ret_fatal, err);
	if (r == 0 && traced)
		r = cuzkd_trace_check_fd(fds[1], s->who, err);
	if (r == 0)
		r = cuzkd_srs_lookup(&d->srs, req->srs, err);
	if (r == 0)
		r = job_new(s, req, t_recv, &job, err);
	if (r == 0)
		r = open_witness(s, job, fds[0], req, err);
	if (r == 0 && traced)
		r = cuzkd_trace_new(&job->trace, fds[1], job->n_parts, &d->engine.trace_bytes, err);
	if (r) {
		if (job)
			cuzkd_job_free(d, job);
		return r;
	}
	*ret_job = job;
	return 0;
}

void cuzkd_on_prove(struct cuzkd_session *s, const void *buf, size_t len, const int *fds, unsigned nfds,
		    const cuzk_error *fd_err, uint64_t t_recv)
{
	struct cuzkd *d = s->d;
	struct msg_prove req;
	struct msg_reply accepted;
	struct cuzkd_job *job = NULL;
	cuzk_error err;
	int fatal = 0, r;

	d->stats.requests++;
	r = msg_parse_prove(&req, buf, len, &err);
	if (r == 0)
		r = admit(s, &req, fds, nfds, fd_err, t_recv, &job, &fatal, &err);
	if (r) {
		/* The header parsed (session.c), whatever the body holds. */
		cuzkd_session_reject(s, cuzkd_msg_request_id(buf, len), &err);
		if (fatal) {
			d->stats.disconnects_misbehaving++;
			cuzkd_session_close(s, err.msg);
		}
		return;
	}
	job->phase_ns[CUZKD_PH_CHECK] = monotonic_ns() - t_recv;
	if (job->trace)
		job->trace->admitted_ns = t_recv + job->phase_ns[CUZKD_PH_CHECK];
	cuzkd_regcache_keep(job->buf);
	job->session_next = s->jobs;
	s->jobs = job;
	s->n_jobs++;
	s->refs++;
	s->pinned_bytes += job->buf->size;
	s->acct->inflight++;
	s->acct->pinned_bytes += job->buf->size;
	d->inflight_total++;
	/* Accepted: the reply names the daemon-wide job id (PROTOCOL.md, REPLY). */
	msg_reply_init(&accepted, req.hdr.request_id, 0, "");
	accepted.job_id = job->id;
	cuzkd_session_send(s, &accepted, sizeof(accepted), NULL, 0);
	cuzkd_engine_submit(&d->engine, job);
}
