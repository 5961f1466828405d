// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A client connection: accepted or refused, its messages received and
 * dispatched, HELLO, replies, and its close (see session.h). */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
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

struct cuzkd_log_fields cuzkd_session_fields(const struct cuzkd_session *s)
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

/* Why a new connection is refused (its status, the reason in why), or 0. */
static int refusal(struct cuzkd *d, const struct ucred *cred, char *why, size_t len)
{
	struct cuzkd_account *acct = cuzkd_account_find(&d->accounts, (uint32_t)cred->uid);

	if (d->draining) {
		snprintf(why, len, "the daemon is shutting down");
		return CUZK_E_SHUTDOWN;
	}
	if (d->n_sessions >= d->cfg.max_clients) {
		snprintf(why, len, "too many clients (max_clients reached)");
		return CUZK_E_BUSY;
	}
	if (acct && acct->sessions >= d->cfg.max_clients_per_uid) {
		snprintf(why, len, "uid %u has %u connections (max_clients_per_uid)", (unsigned)cred->uid,
			 acct->sessions);
		return CUZK_E_BUSY;
	}
	return 0;
}

/* Critical and high priority are for the uids and primary groups of
 * priority_users and priority_groups ("self": cuzkd's own group). */
static int may_prioritize(const struct cuzkd *d, const struct ucred *cred)
{
	const struct cuzkd_config *c = &d->cfg;

	for (uint32_t i = 0; i < c->n_priority_uids; i++)
		if (c->priority_uids[i] == (uint32_t)cred->uid)
			return 1;
	for (uint32_t i = 0; i < c->n_priority_gids; i++)
		if (c->priority_gids[i] == (uint32_t)cred->gid)
			return 1;
	return c->priority_own_group && cred->gid == d->own_gid;
}

int cuzkd_session_new(struct cuzkd *d, int fd)
{
	struct cuzkd_session *s;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct msg_reply busy;
	char why[128];
	int refused;

	d->stats.connections++;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		cred.pid = 0;
		cred.uid = cred.gid = (uid_t)-1;
	}
	refused = refusal(d, &cred, why, sizeof(why));
	if (refused) {
		msg_reply_init(&busy, 0, refused, why);
		msg_send(fd, &busy, sizeof(busy), NULL, 0, NULL);
		d->stats.rejected_connections++;
		cuzkd_log_client(&d->log, CUZKD_LOG_WARNING, NULL, "connection from pid %d refused: %s", (int)cred.pid,
				 why);
		if (d->n_refused >= REFUSED_MAX) {
			close(fd);
			return -refused;
		}
	}
	s = calloc(1, sizeof(*s));
	if (s && !refused && !(s->acct = cuzkd_account_join(&d->accounts, (uint32_t)cred.uid))) {
		free(s);
		s = NULL;
	}
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
	s->cred = cred;
	s->may_prioritize = may_prioritize(d, &cred);
	s->connected_ns = s->active_ns = monotonic_ns();
	s->ring.ring_fd = s->ring.head_fd = -1;
	s->recv_op.kind = CUZKD_OP_RECV;
	s->recv_op.session = s;
	snprintf(s->who, sizeof(s->who), "client %d (uid %d)", (int)s->cred.pid, (int)s->cred.uid);
	s->next = d->sessions;
	if (d->sessions)
		d->sessions->prev = s;
	d->sessions = s;
	if (refused)
		d->n_refused++;
	else
		d->n_sessions++;
	struct cuzkd_log_fields f = cuzkd_session_fields(s);
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
	if (s->acct)
		cuzkd_account_leave(&d->accounts, s->acct);
	ring_producer_destroy(&s->ring);
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
	struct cuzkd_log_fields f = cuzkd_session_fields(s);

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

int cuzkd_session_send(struct cuzkd_session *s, const void *msg, size_t len, const int *fds, unsigned nfds)
{
	cuzk_error err;
	int r;

	if (s->closing)
		return -CUZK_E_IO;
	r = msg_send(s->fd, msg, len, fds, nfds, &err);
	if (r) {
		s->d->stats.disconnects_misbehaving += r == -CUZK_E_BUSY;
		cuzkd_session_close(s, err.msg);
	}
	return r;
}

void cuzkd_session_reply(struct cuzkd_session *s, uint64_t request_id, int status, const char *message)
{
	struct msg_reply m;

	msg_reply_init(&m, request_id, status, message);
	cuzkd_session_send(s, &m, sizeof(m), NULL, 0);
}

void cuzkd_session_reject(struct cuzkd_session *s, uint64_t request_id, cuzk_error *err)
{
	struct cuzkd_log_fields f = cuzkd_session_fields(s);
	int code = err->code > 0 && err->code < 32 ? err->code : CUZK_E_INTERNAL;

	/* Messages name the client once, whoever wrote them. */
	if (strncmp(err->msg, s->who, strlen(s->who)) != 0)
		err_prefix(err, "%s", s->who);
	s->d->stats.rejected[code]++;
	cuzkd_log_client(&s->d->log, CUZKD_LOG_WARNING, &f, "request %" PRIu64 " rejected: %s", request_id,
			 err->msg);
	cuzkd_session_reply(s, request_id, code, err->msg);
}

/* A framing error: answered, then the connection closes (PROTOCOL.md §3). */
static void protocol_error(struct cuzkd_session *s, uint64_t request_id, cuzk_error *err)
{
	cuzkd_session_reject(s, request_id, err);
	s->d->stats.disconnects_misbehaving++;
	cuzkd_session_close(s, err->msg);
}

uint64_t cuzkd_msg_request_id(const void *buf, size_t len)
{
	struct msg_header h;

	if (len < sizeof(h))
		return 0;
	memcpy(&h, buf, sizeof(h));
	return h.request_id;
}

struct cuzkd_job *cuzkd_session_job(struct cuzkd_session *s, uint64_t request_id)
{
	for (struct cuzkd_job *j = s->jobs; j; j = j->session_next)
		if (j->request_id == request_id)
			return j;
	return NULL;
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
	struct msg_hello h;
	struct msg_hello_reply rep;
	cuzk_error err;
	uint32_t max_inflight = d->cfg.max_inflight_per_client, slots;
	int fds[3];

	if (msg_parse_hello(&h, buf, len, &err)) {
		protocol_error(s, 0, &err);
		return;
	}
	if (s->hello_done) {
		err_fail(&err, CUZK_E_PROTOCOL, "%s: a second HELLO", s->who);
		protocol_error(s, h.hdr.request_id, &err);
		return;
	}
	if (h.max_inflight && h.max_inflight < max_inflight)
		max_inflight = h.max_inflight;
	slots = ring_pick_slots(h.ring_slots, max_inflight);
	if (max_inflight > slots)
		max_inflight = slots;
	if (ring_producer_create(&s->ring, slots, CUZK_MAX_PARTITIONS, &err)) {
		err_prefix(&err, "%s: completion ring", s->who);
		protocol_error(s, h.hdr.request_id, &err);
		return;
	}
	s->ring_ok = 1;
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->efd < 0) {
		err_fail_errno(&err, errno, "%s: eventfd", s->who);
		protocol_error(s, h.hdr.request_id, &err);
		return;
	}
	s->max_inflight = max_inflight;
	/* Every flag this daemon knows is granted: traces cost only what their
	 * own bounds allow (trace.h). */
	s->may_trace = (h.flags & CUZK_HELLO_TRACE) != 0;
	memset(&rep, 0, sizeof(rep));
	msg_init(&rep.hdr, CUZK_MSG_HELLO_REPLY, sizeof(rep), h.hdr.request_id);
	rep.max_inflight = max_inflight;
	rep.max_partitions = CUZK_MAX_PARTITIONS;
	rep.max_witness_bytes = d->cfg.max_witness_bytes;
	rep.ring_slots = s->ring.ring_slots;
	rep.slot_size = s->ring.slot_size;
	rep.ring_bytes = s->ring.ring_bytes;
	rep.head_bytes = CUZK_RING_HEAD_BYTES;
	rep.flags = h.flags & CUZK_HELLO_KNOWN;
	fds[0] = s->ring.ring_fd;
	fds[1] = s->ring.head_fd;
	fds[2] = s->efd;
	if (cuzkd_session_send(s, &rep, sizeof(rep), fds, 3))
		return;
	/* The mappings stay; the client has its own fds now. */
	close(s->ring.ring_fd);
	close(s->ring.head_fd);
	s->ring.ring_fd = s->ring.head_fd = -1;
	s->hello_done = 1;
}

static void on_message(struct cuzkd_session *s, size_t len)
{
	uint64_t t_recv = monotonic_ns();
	int fds[CUZKD_MAX_RECV_FDS];
	unsigned nfds = 0;
	struct msg_header h;
	cuzk_error err, fd_err;
	int have_fd_err;

	/* Every fd is taken (or closed) before anything else can return. */
	have_fd_err = msg_take_fds(&s->mh, fds, CUZKD_MAX_RECV_FDS, &nfds, &fd_err) != 0;
	if (s->mh.msg_flags & MSG_TRUNC) {
		err_fail(&err, CUZK_E_PROTOCOL, "%s: message longer than %u bytes", s->who, CUZK_MSG_MAX);
		close_fds(fds, nfds);
		protocol_error(s, 0, &err);
		return;
	}
	if (msg_parse_header(&h, s->msg, len, &err)) {
		err_prefix(&err, "%s", s->who);
		close_fds(fds, nfds);
		protocol_error(s, 0, &err);
		return;
	}
	if (!s->hello_done && h.type != CUZK_MSG_HELLO) {
		err_fail(&err, CUZK_E_PROTOCOL, "%s: the first message must be HELLO (got type %u)", s->who,
			 h.type);
		close_fds(fds, nfds);
		protocol_error(s, h.request_id, &err);
		return;
	}
	if (h.type == CUZK_MSG_PROVE) {
		cuzkd_on_prove(s, s->msg, len, fds, nfds, have_fd_err ? &fd_err : NULL, t_recv);
		close_fds(fds, nfds);
		return;
	}
	if (nfds || have_fd_err) {
		close_fds(fds, nfds);
		err_fail(&err, CUZK_E_FD, "%s: message type %u carries no fds", s->who, h.type);
		cuzkd_session_reject(s, h.request_id, &err);
		return;
	}
	switch (h.type) {
	case CUZK_MSG_HELLO:
		on_hello(s, s->msg, len);
		break;
	case CUZK_MSG_CANCEL:
		cuzkd_on_cancel(s, s->msg, len);
		break;
	case CUZK_MSG_STATUS:
	case CUZK_MSG_METRICS:
		cuzkd_on_text_request(s, &h, s->msg, len);
		break;
	default:
		err_fail(&err, CUZK_E_PROTOCOL, "%s: message type %u is not a request", s->who, h.type);
		protocol_error(s, h.request_id, &err);
		break;
	}
}

/* Closes whatever fds came with a message that will not be read. */
static void drop_fds(struct cuzkd_session *s, int res)
{
	int fds[CUZKD_MAX_RECV_FDS];
	unsigned n = 0;

	if (res >= 0 && msg_take_fds(&s->mh, fds, CUZKD_MAX_RECV_FDS, &n, NULL) == 0)
		close_fds(fds, n);
}

/* recvmsg returns 0 both at the end of the stream and for an empty packet,
 * which PROTOCOL.md §3 answers as a framing error.  Only the end of the
 * stream comes with the peer's shutdown. */
static int peer_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };

	return poll(&p, 1, 0) != 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

void cuzkd_session_on_recv(struct cuzkd_session *s, int res)
{
	s->recv_pending = 0;
	if (s->closing) {
		drop_fds(s, res);
		close(s->fd);
		s->fd = -1;
		cuzkd_session_unref(s);
		return;
	}
	/* Closing drops the connection's reference, which may be the last:
	 * hold one until this function is done with s. */
	s->refs++;
	if (s->refused) {
		drop_fds(s, res);
		cuzkd_session_close(s, "connection refused");
	} else if (res < 0) {
		cuzkd_session_close(s, strerror(-res));
	} else if (res == 0 && s->mh.msg_controllen == 0 && peer_gone(s->fd)) {
		cuzkd_session_close(s, "the client closed the connection");
	} else {
		s->active_ns = monotonic_ns();
		on_message(s, (size_t)res);
	}
	if (!s->closing)
		arm_recv(s);
	cuzkd_session_unref(s);
}

/* Closes s for holding its slot without using it, saying why first
 * (PROTOCOL.md §3: an unsolicited REPLY with request id 0). */
static void time_out(struct cuzkd_session *s, int status, const char *why)
{
	s->d->stats.timeouts++;
	if (!s->refused)
		cuzkd_session_reply(s, 0, status, why);
	cuzkd_session_close(s, why);
}

/* Idle: connected, nothing in flight, every completion read, no message
 * for idle_timeout. */
static int idle(struct cuzkd_session *s, uint64_t now)
{
	const uint64_t limit = s->d->cfg.idle_timeout_ms * 1000000;
	cuzk_error err;

	return limit && s->hello_done && s->n_jobs == 0 && now - s->active_ns >= limit &&
	       ring_unread(&s->ring, &err) == 0;
}

void cuzkd_sessions_sweep(struct cuzkd *d)
{
	const uint64_t now = monotonic_ns(), hello = d->cfg.hello_timeout_ms * 1000000;
	char why[160];

	for (struct cuzkd_session *s = d->sessions, *next; s; s = next) {
		next = s->next;
		if (s->closing)
			continue;
		if (!s->hello_done && now - s->connected_ns >= hello) {
			snprintf(why, sizeof(why), "%s: no HELLO within %llu ms (hello_timeout)", s->who,
				 (unsigned long long)d->cfg.hello_timeout_ms);
			time_out(s, CUZK_E_PROTOCOL, why);
		} else if (idle(s, now)) {
			snprintf(why, sizeof(why), "%s: idle for %llu ms (idle_timeout): closing; reconnect to submit",
				 s->who, (unsigned long long)d->cfg.idle_timeout_ms);
			time_out(s, CUZK_E_BUSY, why);
		}
	}
}
