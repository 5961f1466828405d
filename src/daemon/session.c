// SPDX-License-Identifier: Apache-2.0 OR MIT
/* One client connection: hello, requests, cancel, status, and the
 * completion ring (docs/PROTOCOL.md).  Loop thread only.
 *
 * Lifetime: a session holds one reference while connected and one per job
 * in the engine; it is freed when the last goes, so a worker's result for
 * a client that left still finds a session to account against, then is
 * dropped. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "daemon/daemon.h"

static void arm_recv(struct cuzkd_session *s)
{
	struct io_uring_sqe *sqe = cuzkd_sqe(s->d);

	s->iov.iov_base = s->msg;
	s->iov.iov_len = sizeof(s->msg);
	memset(&s->mh, 0, sizeof(s->mh));
	s->mh.msg_iov = &s->iov;
	s->mh.msg_iovlen = 1;
	s->mh.msg_control = s->ctrl.buf;
	s->mh.msg_controllen = sizeof(s->ctrl.buf);
	io_uring_prep_recvmsg(sqe, s->fd, &s->mh, MSG_CMSG_CLOEXEC);
	io_uring_sqe_set_data(sqe, &s->recv_op);
	s->recv_pending = 1;
}

static struct cuzkd_log_fields client_fields(const struct cuzkd_session *s)
{
	struct cuzkd_log_fields f = CUZKD_LOG_NO_FIELDS;

	f.client_pid = s->cred.pid;
	f.client_uid = s->cred.uid;
	return f;
}

/* Refused connections get their answer at once, but are closed only after
 * their first message (the hello) was read: closing a unix socket with unread
 * data resets the peer, which would then lose the answer.  This many may wait
 * like that; more are closed at once. */
enum { REFUSED_MAX = 64 };

int cuzkd_session_new(struct cuzkd *d, int fd)
{
	struct cuzkd_session *s;
	socklen_t len = sizeof(struct ucred);
	struct cuzk_msg_reply busy;
	int refused = d->draining ? CUZK_E_SHUTDOWN : d->n_sessions >= d->cfg.max_clients ? CUZK_E_BUSY : 0;

	d->stats.connections++;
	if (refused) {
		cuzk_msg_reply_init(&busy, 0, refused,
				    refused == CUZK_E_SHUTDOWN ? "the daemon is shutting down"
							       : "too many clients (max_clients reached)");
		cuzk_msg_send(fd, &busy, sizeof(busy), NULL, 0, NULL);
		d->stats.rejected_connections++;
		cuzkd_log_client(&d->log, CUZKD_LOG_WARNING, NULL, "connection refused: %s", busy.message);
		if (d->n_refused >= REFUSED_MAX) {
			close(fd);
			return -refused;
		}
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		cuzkd_log(&d->log, CUZKD_LOG_ERR, NULL, "out of memory for a new session");
		return -CUZK_E_NOMEM;
	}
	s->d = d;
	s->id = ++d->next_session_id;
	s->fd = fd;
	s->efd = -1;
	s->refs = 1;
	s->refused = refused;
	s->ring.ring_fd = s->ring.head_fd = -1;
	s->recv_op.kind = CUZKD_OP_RECV;
	s->recv_op.session = s;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &s->cred, &len) < 0) {
		s->cred.pid = 0;
		s->cred.uid = s->cred.gid = (uid_t)-1;
	}
	snprintf(s->who, sizeof(s->who), "client %d (uid %d)", (int)s->cred.pid, (int)s->cred.uid);
	s->next = d->sessions;
	if (d->sessions)
		d->sessions->prev = s;
	d->sessions = s;
	if (refused)
		d->n_refused++;
	else
		d->n_sessions++;
	struct cuzkd_log_fields f = client_fields(s);
	cuzkd_log_client(&d->log, CUZKD_LOG_DEBUG, &f, "%s connected", s->who);
	arm_recv(s);
	return refused ? -refused : 0;
}

static void session_free(struct cuzkd_session *s)
{
	struct cuzkd *d = s->d;

	if (s->prev)
		s->prev->next = s->next;
	else
		d->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	if (s->refused)
		d->n_refused--;
	else
		d->n_sessions--;
	cuzk_ring_producer_destroy(&s->ring);
	if (s->efd >= 0)
		close(s->efd);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

void cuzkd_session_unref(struct cuzkd_session *s)
{
	if (--s->refs == 0)
		session_free(s);
}

void cuzkd_session_close(struct cuzkd_session *s, const char *why)
{
	struct cuzkd *d = s->d;
	struct cuzkd_log_fields f = client_fields(s);

	if (s->closing)
		return;
	s->closing = 1;
	/* A plain goodbye is routine; losing work on the way out is worth a note. */
	cuzkd_log_client(&d->log, s->n_jobs ? CUZKD_LOG_NOTICE : CUZKD_LOG_DEBUG, &f,
			 "%s: closing: %s (%u requests cancelled)", s->who, why, s->n_jobs);
	for (struct cuzkd_job *j = s->jobs; j; j = j->session_next)
		cuzkd_engine_cancel(&d->engine, j, CUZK_E_CANCELLED, "the client disconnected");
	cuzkd_regcache_drop_owner(&d->reg, s->id);
	if (s->recv_pending) {
		/* The pending recvmsg completes with 0; the connection's reference
		 * is dropped there. */
		shutdown(s->fd, SHUT_RDWR);
		return;
	}
	close(s->fd);
	s->fd = -1;
	cuzkd_session_unref(s);
}

/* Sends one message; a client that does not read its socket is dropped. */
static int send_msg(struct cuzkd_session *s, const void *msg, size_t len, const int *fds, unsigned nfds)
{
	cuzk_error err;
	int r;

	if (s->closing)
		return -CUZK_E_IO;
	r = cuzk_msg_send(s->fd, msg, len, fds, nfds, &err);
	if (r) {
		s->d->stats.disconnects_misbehaving += r == -CUZK_E_BUSY;
		cuzkd_session_close(s, err.msg);
	}
	return r;
}

static void reply(struct cuzkd_session *s, uint64_t request_id, int status, const char *message)
{
	struct cuzk_msg_reply m;

	cuzk_msg_reply_init(&m, request_id, status, message);
	send_msg(s, &m, sizeof(m), NULL, 0);
}

/* A rejected request: answered, counted, logged (rate-limited). */
static void reject(struct cuzkd_session *s, uint64_t request_id, const cuzk_error *err)
{
	struct cuzkd_log_fields f = client_fields(s);
	int code = err->code > 0 && err->code < 32 ? err->code : CUZK_E_INTERNAL;

	s->d->stats.rejected[code]++;
	if (strncmp(err->msg, s->who, strlen(s->who)) == 0)
		cuzkd_log_client(&s->d->log, CUZKD_LOG_WARNING, &f, "request %" PRIu64 " rejected: %s", request_id,
				 err->msg);
	else
		cuzkd_log_client(&s->d->log, CUZKD_LOG_WARNING, &f, "%s: request %" PRIu64 " rejected: %s",
				 s->who, request_id, err->msg);
	reply(s, request_id, code, err->msg);
}

static void protocol_error(struct cuzkd_session *s, uint64_t request_id, const cuzk_error *err)
{
	reject(s, request_id, err);
	s->d->stats.disconnects_misbehaving++;
	cuzkd_session_close(s, err->msg);
}

/* The request id of a message whose body failed to parse, for the reply
 * (0 when even the header is unreadable). */
static uint64_t request_id_of(const void *buf, size_t len)
{
	struct cuzk_msg_hdr h;

	if (len < sizeof(h))
		return 0;
	memcpy(&h, buf, sizeof(h));
	return h.request_id;
}

static void close_fds(int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static void on_hello(struct cuzkd_session *s, const void *buf, size_t len)
{
	struct cuzkd *d = s->d;
	struct cuzk_msg_hello h;
	struct cuzk_msg_hello_reply rep;
	cuzk_error err;
	uint32_t max_inflight = d->cfg.max_inflight_per_client, slots;
	int fds[3];

	if (cuzk_msg_parse_hello(&h, buf, len, &err)) {
		protocol_error(s, 0, &err);
		return;
	}
	if (s->hello_done) {
		cuzk_fail(&err, CUZK_E_PROTOCOL, "%s: a second HELLO", s->who);
		protocol_error(s, h.hdr.request_id, &err);
		return;
	}
	if (h.max_inflight && h.max_inflight < max_inflight)
		max_inflight = h.max_inflight;
	slots = cuzk_ring_pick_slots(h.ring_slots, max_inflight);
	if (max_inflight > slots)
		max_inflight = slots;
	if (cuzk_ring_producer_create(&s->ring, slots, CUZK_MAX_PARTITIONS, &err)) {
		cuzk_error_prefix(&err, "%s: completion ring", s->who);
		protocol_error(s, h.hdr.request_id, &err);
		return;
	}
	s->ring_ok = 1;
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->efd < 0) {
		cuzk_fail_errno(&err, errno, "%s: eventfd", s->who);
		protocol_error(s, h.hdr.request_id, &err);
		return;
	}
	s->max_inflight = max_inflight;
	memset(&rep, 0, sizeof(rep));
	cuzk_msg_init(&rep.hdr, CUZK_MSG_HELLO_REPLY, sizeof(rep), h.hdr.request_id);
	rep.max_inflight = max_inflight;
	rep.max_partitions = CUZK_MAX_PARTITIONS;
	rep.max_witness_bytes = d->cfg.max_witness_bytes;
	rep.ring_slots = s->ring.ring_slots;
	rep.slot_size = s->ring.slot_size;
	rep.ring_bytes = s->ring.ring_bytes;
	rep.head_bytes = CUZK_RING_HEAD_BYTES;
	fds[0] = s->ring.ring_fd;
	fds[1] = s->ring.head_fd;
	fds[2] = s->efd;
	if (send_msg(s, &rep, sizeof(rep), fds, 3))
		return;
	/* The mappings stay; the client has its own fds now. */
	close(s->ring.ring_fd);
	close(s->ring.head_fd);
	s->ring.ring_fd = s->ring.head_fd = -1;
	s->hello_done = 1;
}

static struct cuzkd_job *find_job(struct cuzkd_session *s, uint64_t request_id)
{
	for (struct cuzkd_job *j = s->jobs; j; j = j->session_next)
		if (j->request_id == request_id)
			return j;
	return NULL;
}

/* A job of any connection by its daemon-wide id (CANCEL with scope JOB). */
static struct cuzkd_job *find_daemon_job(struct cuzkd *d, uint64_t job_id)
{
	for (struct cuzkd_session *o = d->sessions; o; o = o->next)
		for (struct cuzkd_job *j = o->jobs; j; j = j->session_next)
			if (j->id == job_id)
				return j;
	return NULL;
}

/* The limits a new request must fit, checked before its witness is touched. */
static int check_limits(struct cuzkd_session *s, uint64_t request_id, cuzk_error *err)
{
	struct cuzkd *d = s->d;
	int64_t unread = cuzk_ring_unread(&s->ring, err);

	if (unread < 0)
		return (int)unread;
	if (find_job(s, request_id))
		return cuzk_fail(err, CUZK_E_INVAL, "%s: request id %" PRIu64 " is already in flight", s->who,
				 request_id);
	if (s->n_jobs + (uint64_t)unread >= s->max_inflight)
		return cuzk_fail(err, CUZK_E_BUSY,
				 "%s: %u requests in flight and %lld unread completions: the limit is %u", s->who,
				 s->n_jobs, (long long)unread, s->max_inflight);
	if (d->inflight_total >= d->cfg.max_inflight_total)
		return cuzk_fail(err, CUZK_E_BUSY, "the daemon has %u requests in flight (max_inflight_total)",
				 d->inflight_total);
	return 0;
}

static struct cuzkd_job *job_new(struct cuzkd_session *s, const struct cuzk_msg_prove *req, uint64_t t_recv)
{
	struct cuzkd *d = s->d;
	struct cuzkd_job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->witness = calloc(1, sizeof(struct cuzkd_witness));
	if (!job->witness) {
		free(job);
		return NULL;
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
	return job;
}

static void job_free(struct cuzkd *d, struct cuzkd_job *job)
{
	struct cuzkd_witness *w = job->witness;

	if (w) {
		cuzkd_witness_close(w, &d->reg);
		free(w);
	}
	free(job->proofs);
	free(job);
}

static void on_prove(struct cuzkd_session *s, const void *buf, size_t len, int *fds, unsigned nfds,
		     const cuzk_error *fd_err, uint64_t t_recv)
{
	struct cuzkd *d = s->d;
	struct cuzk_msg_prove req;
	struct cuzkd_witness *w;
	struct cuzkd_job *job;
	cuzk_error err;
	int r;

	d->stats.requests++;
	if (cuzk_msg_parse_prove(&req, buf, len, &err)) {
		cuzk_error_prefix(&err, "%s", s->who);
		reject(s, request_id_of(buf, len), &err);
		return;
	}
	if (fd_err) {
		err = *fd_err;
		cuzk_error_prefix(&err, "%s", s->who);
		reject(s, req.hdr.request_id, &err);
		return;
	}
	if (nfds != 1) {
		cuzk_fail(&err, CUZK_E_FD, "%s: a PROVE request carries exactly one fd, not %u", s->who, nfds);
		reject(s, req.hdr.request_id, &err);
		return;
	}
	if (d->draining) {
		cuzk_fail(&err, CUZK_E_SHUTDOWN, "the daemon is shutting down");
		reject(s, req.hdr.request_id, &err);
		return;
	}
	r = check_limits(s, req.hdr.request_id, &err);
	if (r == -CUZK_E_PROTOCOL) {
		protocol_error(s, req.hdr.request_id, &err);
		return;
	}
	if (r == 0)
		r = cuzkd_srs_lookup(&d->srs, req.srs, &err);
	if (r) {
		if (r != -CUZK_E_BUSY)
			cuzk_error_prefix(&err, "%s", s->who);
		reject(s, req.hdr.request_id, &err);
		return;
	}
	job = job_new(s, &req, t_recv);
	if (!job) {
		cuzk_fail(&err, CUZK_E_NOMEM, "out of memory for a request");
		reject(s, req.hdr.request_id, &err);
		return;
	}
	w = job->witness;
	r = cuzkd_witness_open(w, &d->reg, fds[0], &req, d->cfg.max_witness_bytes, s->id, s->who, job->view,
			       &err);
	if (r == 0 && s->pinned_bytes + w->buf->size > d->cfg.max_pinned_bytes_per_client)
		r = cuzk_fail(&err, CUZK_E_BUSY,
			      "%s: %llu witness bytes in flight plus %llu exceed max_pinned_bytes_per_client", s->who,
			      (unsigned long long)s->pinned_bytes, (unsigned long long)w->buf->size);
	if (r == 0) {
		job->n_parts = w->desc.hdr.num_partitions;
		job->proofs = calloc(job->n_parts, GROTH16_PROOF_SIZE);
		if (!job->proofs)
			r = cuzk_fail(&err, CUZK_E_NOMEM, "out of memory for a request");
	}
	if (r) {
		job_free(d, job);
		reject(s, req.hdr.request_id, &err);
		return;
	}
	job->buf = d->use_gpu ? w->buf : NULL;
	job->phase_ns[CUZKD_PH_CHECK] = monotonic_ns() - t_recv;
	job->session_next = s->jobs;
	s->jobs = job;
	s->n_jobs++;
	s->refs++;
	s->pinned_bytes += w->buf->size;
	d->inflight_total++;
	/* Accepted: the reply names the daemon-wide job id (PROTOCOL.md, REPLY). */
	struct cuzk_msg_reply accepted;
	cuzk_msg_reply_init(&accepted, req.hdr.request_id, 0, "");
	accepted.job_id = job->id;
	send_msg(s, &accepted, sizeof(accepted), NULL, 0);
	cuzkd_engine_submit(&d->engine, job);
}

static void on_cancel(struct cuzkd_session *s, const void *buf, size_t len)
{
	struct cuzk_msg_cancel m;
	struct cuzkd_job *job;
	cuzk_error err;

	if (cuzk_msg_parse_cancel(&m, buf, len, &err)) {
		reject(s, request_id_of(buf, len), &err);
		return;
	}
	job = m.scope == CUZK_CANCEL_JOB ? find_daemon_job(s->d, m.hdr.request_id) : find_job(s, m.hdr.request_id);
	if (!job) {
		cuzk_fail(&err, CUZK_E_NOTFOUND, "no %s %" PRIu64 " in flight",
			  m.scope == CUZK_CANCEL_JOB ? "job" : "request", m.hdr.request_id);
		reply(s, m.hdr.request_id, CUZK_E_NOTFOUND, err.msg);
		return;
	}
	/* Another connection's job: only its owner's uid, or root. */
	if (s->cred.uid != 0 && (int64_t)s->cred.uid != job->client_uid) {
		cuzk_fail(&err, CUZK_E_PERM, "%s: job %" PRIu64 " belongs to uid %lld", s->who, job->id,
			  (long long)job->client_uid);
		reply(s, m.hdr.request_id, CUZK_E_PERM, err.msg);
		return;
	}
	cuzkd_engine_cancel(&s->d->engine, job, CUZK_E_CANCELLED, "cancelled by the client");
	reply(s, m.hdr.request_id, 0, "");
}

/* Sends text as TEXT chunks. */
static void send_text(struct cuzkd_session *s, uint64_t request_id, const char *text)
{
	size_t len = text ? strlen(text) : 0, off = 0;
	uint8_t *pkt = malloc(CUZK_MSG_MAX);
	uint32_t seq = 0;

	if (!pkt || !text) {
		free(pkt);
		reply(s, request_id, CUZK_E_NOMEM, "out of memory building the answer");
		return;
	}
	if (len > CUZK_TEXT_MAX)
		len = CUZK_TEXT_MAX;
	do {
		struct cuzk_msg_text t;
		size_t n = len - off < CUZK_TEXT_CHUNK_MAX ? len - off : CUZK_TEXT_CHUNK_MAX;
		memset(&t, 0, sizeof(t));
		cuzk_msg_init(&t.hdr, CUZK_MSG_TEXT, (uint32_t)(sizeof(t) + n), request_id);
		t.seq = seq++;
		t.data_len = (uint32_t)n;
		t.flags = off + n == len ? CUZK_TEXT_LAST : 0;
		memcpy(pkt, &t, sizeof(t));
		memcpy(pkt + sizeof(t), text + off, n);
		off += n;
		if (send_msg(s, pkt, sizeof(t) + n, NULL, 0))
			break;
	} while (off < len);
	free(pkt);
}

/* STATUS and METRICS: both answered with TEXT chunks. */
static void on_text_request(struct cuzkd_session *s, const struct cuzk_msg_hdr *h, const void *buf, size_t len)
{
	struct cuzk_msg_status st;
	struct cuzk_msg_metrics m;
	cuzk_error err;
	char *text;
	int r;

	if (h->type == CUZK_MSG_STATUS)
		r = cuzk_msg_parse_status(&st, buf, len, &err);
	else
		r = cuzk_msg_parse_metrics(&m, buf, len, &err);
	if (r) {
		reject(s, h->request_id, &err);
		return;
	}
	if (h->type == CUZK_MSG_STATUS && st.format == CUZK_STATUS_PARAMS)
		text = cuzkd_srs_list_text(&s->d->srs);
	else if (h->type == CUZK_MSG_STATUS)
		text = cuzkd_status_text(s->d, st.format == CUZK_STATUS_JSON);
	else
		text = cuzkd_metrics_text(s->d);
	send_text(s, h->request_id, text);
	free(text);
}

static void on_message(struct cuzkd_session *s, size_t len)
{
	uint64_t t_recv = monotonic_ns();
	int fds[CUZKD_MAX_RECV_FDS];
	unsigned nfds = 0;
	struct cuzk_msg_hdr h;
	cuzk_error err, fd_err;
	int have_fd_err;

	/* Every fd is taken (or closed) before anything else can return. */
	have_fd_err = cuzk_msg_take_fds(&s->mh, fds, CUZKD_MAX_RECV_FDS, &nfds, &fd_err) != 0;
	if (s->mh.msg_flags & MSG_TRUNC) {
		cuzk_fail(&err, CUZK_E_PROTOCOL, "%s: message longer than %u bytes", s->who, CUZK_MSG_MAX);
		close_fds(fds, nfds);
		protocol_error(s, 0, &err);
		return;
	}
	if (cuzk_msg_parse_hdr(&h, s->msg, len, &err)) {
		cuzk_error_prefix(&err, "%s", s->who);
		close_fds(fds, nfds);
		protocol_error(s, 0, &err);
		return;
	}
	if (!s->hello_done && h.type != CUZK_MSG_HELLO) {
		cuzk_fail(&err, CUZK_E_PROTOCOL, "%s: the first message must be HELLO (got type %u)", s->who,
			  h.type);
		close_fds(fds, nfds);
		protocol_error(s, h.request_id, &err);
		return;
	}
	if (h.type == CUZK_MSG_PROVE) {
		on_prove(s, s->msg, len, fds, nfds, have_fd_err ? &fd_err : NULL, t_recv);
		close_fds(fds, nfds);
		return;
	}
	if (nfds || have_fd_err) {
		close_fds(fds, nfds);
		cuzk_fail(&err, CUZK_E_FD, "%s: message type %u carries no fds", s->who, h.type);
		reject(s, h.request_id, &err);
		return;
	}
	switch (h.type) {
	case CUZK_MSG_HELLO:
		on_hello(s, s->msg, len);
		break;
	case CUZK_MSG_CANCEL:
		on_cancel(s, s->msg, len);
		break;
	case CUZK_MSG_STATUS:
	case CUZK_MSG_METRICS:
		on_text_request(s, &h, s->msg, len);
		break;
	default:
		cuzk_fail(&err, CUZK_E_PROTOCOL, "%s: message type %u is not a request", s->who, h.type);
		protocol_error(s, h.request_id, &err);
		break;
	}
}

void cuzkd_session_on_recv(struct cuzkd_session *s, int res)
{
	s->recv_pending = 0;
	if (s->closing) {
		int fds[CUZKD_MAX_RECV_FDS];
		unsigned n = 0;
		if (res > 0 && cuzk_msg_take_fds(&s->mh, fds, CUZKD_MAX_RECV_FDS, &n, NULL) == 0)
			close_fds(fds, n);
		close(s->fd);
		s->fd = -1;
		cuzkd_session_unref(s);
		return;
	}
	/* Closing drops the connection's reference, which may be the last:
	 * hold one until this function is done with s. */
	s->refs++;
	if (s->refused) {
		cuzkd_session_close(s, "connection refused");
		cuzkd_session_unref(s);
		return;
	}
	if (res <= 0) {
		if (res == 0 && s->mh.msg_controllen == 0)
			cuzkd_session_close(s, "the client closed the connection");
		else if (res == 0)
			on_message(s, 0);
		else
			cuzkd_session_close(s, strerror(-res));
	} else {
		on_message(s, (size_t)res);
	}
	if (!s->closing)
		arm_recv(s);
	cuzkd_session_unref(s);
}

/* phases may be NULL (abandoned: workers may still be writing the job's). */
static void write_completion(struct cuzkd *d, struct cuzkd_session *s, const struct cuzkd_job *job, int status,
			     const char *message, const uint64_t *phases)
{
	struct cuzk_ring_rec rec;
	uint64_t one = 1;
	cuzk_error err;

	memset(&rec, 0, sizeof(rec));
	rec.request_id = job->request_id;
	rec.status = (uint32_t)status;
	rec.num_partitions = status ? 0 : job->n_parts;
	for (int p = 0; phases && p < CUZKD_PHASES; p++)
		rec.phase_ns[p] = phases[p];
	snprintf(rec.message, sizeof(rec.message), "%s", message);
	if (cuzk_ring_push(&s->ring, &rec, status ? NULL : &job->proofs[0][0], &err)) {
		/* Cannot be full (the in-flight limit counts unread completions):
		 * the client moved its head out of range. */
		d->stats.disconnects_misbehaving++;
		cuzkd_session_close(s, err.msg);
		return;
	}
	if (write(s->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		cuzkd_session_close(s, "eventfd write failed");
}

void cuzkd_session_complete(struct cuzkd *d, struct cuzkd_job *job)
{
	struct cuzkd_session *s = job->session;
	struct cuzkd_witness *w = job->witness;
	struct cuzkd_log_fields f = client_fields(s);

	for (struct cuzkd_job **pp = &s->jobs; *pp; pp = &(*pp)->session_next) {
		if (*pp == job) {
			*pp = job->session_next;
			break;
		}
	}
	s->n_jobs--;
	s->pinned_bytes -= w->buf->size;
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
	if (!s->closing && s->hello_done)
		write_completion(d, s, job, job->status, job->message, job->phase_ns);
	job_free(d, job);
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
