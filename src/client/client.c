// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A connection to cuzkd: the hello, request/reply exchanges on the socket,
 * and completions from the shared ring.  One mutex per client serialises the
 * exchanges, so replies always match the request just sent. */
#include "client/client_internal.h"
#include "common/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

void client_log(cuzk_client *c, int level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (c->log)
		c->log(c->log_opaque, level, line);
	else if (level <= 4)   /* without a callback, warnings and errors only */
		fprintf(stderr, "libcuzk: %s\n", line);
}

/* Receives one packet that must carry no fds (only the hello reply has some). */
static int recv_plain(cuzk_client *c, size_t *ret_len, cuzk_error *err)
{
	unsigned nfds = 0;
	int r = msg_recv(c->sock, c->rx, CUZK_MSG_MAX, ret_len, NULL, 0, &nfds, err);
	if (r < 0)
		return err_prefix(err, "daemon connection");
	if (*ret_len == 0)
		return err_fail(err, CUZK_E_IO, "daemon closed the connection");
	return 0;
}

/* Checks the REPLY in c->rx (len bytes) answering request id.  An
 * unsolicited REPLY with id 0 is the daemon's last word before it closes the
 * connection: report it. */
static int check_reply(cuzk_client *c, uint64_t id, size_t len, uint64_t *ret_job_id, cuzk_error *err)
{
	struct msg_reply rep;
	int r;
	if ((r = msg_parse_reply(&rep, c->rx, len, err)) < 0)
		return err_prefix(err, "daemon reply");
	if (rep.hdr.request_id != id && rep.hdr.request_id != 0)
		return err_fail(err, CUZK_E_PROTOCOL, "daemon replied to request %llu, expected %llu",
				(unsigned long long)rep.hdr.request_id, (unsigned long long)id);
	if (rep.status != 0)
		return err_fail(err, (int)rep.status, "cuzkd: %s", rep.message);
	if (rep.hdr.request_id != id)
		return err_fail(err, CUZK_E_PROTOCOL, "daemon sent an empty reply for request 0");
	if (ret_job_id)
		*ret_job_id = rep.job_id;
	return 0;
}

static int expect_reply(cuzk_client *c, uint64_t id, uint64_t *ret_job_id, cuzk_error *err)
{
	size_t len;
	int r = recv_plain(c, &len, err);
	return r < 0 ? r : check_reply(c, id, len, ret_job_id, err);
}

/* After a reply we could not make sense of, the next packet would be read as
 * the answer to the next request: end the conversation instead. */
static int broken(cuzk_client *c, int r)
{
	if (r == -CUZK_E_PROTOCOL)
		shutdown(c->sock, SHUT_RDWR);
	return r;
}

static int say_hello(cuzk_client *c, const struct cuzk_connect_opts *opts, cuzk_error *err)
{
	struct msg_hello hello;
	int fds[3];
	unsigned nfds = 0;
	size_t len;

	memset(&hello, 0, sizeof(hello));
	msg_init(&hello.hdr, CUZK_MSG_HELLO, sizeof(hello), c->next_id++);
	hello.max_inflight = opts ? opts->max_inflight : 0;
	hello.ring_slots = opts ? opts->ring_slots : 0;
	hello.flags = c->hello_asked;
	/* A daemon that refuses the connection (too many clients, draining)
	 * answers before our hello and closes: then the send fails, and its
	 * reply, still queued, says why. */
	cuzk_error send_err;
	int sent = msg_send(c->sock, &hello, sizeof(hello), NULL, 0, &send_err);
	int r = msg_recv(c->sock, c->rx, CUZK_MSG_MAX, &len, fds, 3, &nfds, err);
	if (sent < 0 && (r < 0 || len == 0)) {
		if (err)
			*err = send_err;
		return sent;
	}
	if (r < 0)
		return err_prefix(err, "hello");
	if (len == 0)
		return err_fail(err, CUZK_E_IO, "hello: daemon closed the connection");

	struct msg_header hdr;
	if ((r = msg_parse_header(&hdr, c->rx, len, err)) < 0)
		goto close_fds;
	if (hdr.type == CUZK_MSG_REPLY) {
		struct msg_reply rep;
		if ((r = msg_parse_reply(&rep, c->rx, len, err)) == 0)
			r = err_fail(err, rep.status ? (int)rep.status : CUZK_E_PROTOCOL, "cuzkd refused hello%s: %s",
				     rep.status == CUZK_E_PROTOCOL && c->hello_asked
					     ? " (it asked for traces, CUZK_CONNECT_TRACE: a cuzkd older than them says no)"
					     : "",
				     rep.message);
		goto close_fds;
	}
	if ((r = msg_parse_hello_reply(&c->hello, c->rx, len, err)) < 0)
		goto close_fds;
	if (c->hello.flags & ~c->hello_asked) {
		r = err_fail(err, CUZK_E_PROTOCOL, "hello reply grants flags 0x%x that the hello did not ask for",
			     c->hello.flags & ~c->hello_asked);
		goto close_fds;
	}
	if (nfds != 3) {
		r = err_fail(err, CUZK_E_FD, "hello reply carried %u fds, expected 3", nfds);
		goto close_fds;
	}
	c->ring_fd = fds[0];
	c->head_fd = fds[1];
	c->efd = fds[2];
	/* The eventfd's file description is shared with the daemon, which
	 * creates it non-blocking; make sure, since a blocking read under the
	 * mutex would stall every thread. */
	int fl = fcntl(c->efd, F_GETFL);
	if (fl < 0 || fcntl(c->efd, F_SETFL, fl | O_NONBLOCK) < 0)
		return err_fail_errno(err, errno, "hello: the daemon's eventfd");
	return ring_consumer_open(&c->ring, c->ring_fd, c->head_fd, &c->hello, err);

close_fds:
	for (unsigned i = 0; i < nfds; i++)
		close(fds[i]);
	return r;
}

/* No socket, or a socket file nobody listens on (cuzkd stopped without
 * removing it): the usual first-run mistake, so say how to start cuzkd. */
static int connect_failed(int e, const char *path, cuzk_error *err)
{
	if (e != ENOENT && e != ECONNREFUSED)
		return err_fail_errno(err, e, "connect(%s)", path);
	int code = e == ENOENT ? CUZK_E_NOTFOUND : CUZK_E_IO;
	if (strcmp(path, CUZK_DEFAULT_SOCKET) == 0)
		return err_fail(err, code, "cuzkd is not listening on %s (connect: %s); start it with "
				"'systemctl start cuzkd.socket', or run 'cuzkd --socket %s'", path, strerror(e), path);
	return err_fail(err, code, "cuzkd is not listening on %s (connect: %s); start one there with "
			"'cuzkd --socket %s'", path, strerror(e), path);
}

int cuzk_connect(cuzk_client **ret, const char *socket_path, const struct cuzk_connect_opts *opts,
		 cuzk_error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int r;

	if (!ret || !socket_path)
		return err_fail(err, CUZK_E_INVAL, "cuzk_connect: NULL argument");
	if (opts && (opts->reserved0 || opts->reserved[0] || opts->reserved[1] || opts->reserved[2]))
		return err_fail(err, CUZK_E_INVAL, "cuzk_connect: reserved fields of cuzk_connect_opts are not zero");
	if (opts && (opts->flags & ~CUZK_CONNECT_TRACE))
		return err_fail(err, CUZK_E_INVAL, "cuzk_connect: unknown flags 0x%x in cuzk_connect_opts",
				opts->flags & ~CUZK_CONNECT_TRACE);
	if (strlen(socket_path) >= sizeof(sa.sun_path))
		return err_fail(err, CUZK_E_INVAL, "socket path %s is longer than %zu bytes", socket_path,
				sizeof(sa.sun_path) - 1);
	strcpy(sa.sun_path, socket_path);

	cuzk_client *c = calloc(1, sizeof(*c));
	if (!c || !(c->rx = malloc(CUZK_MSG_MAX))) {
		free(c);
		return err_fail(err, CUZK_E_NOMEM, "cuzk_connect: out of memory");
	}
	c->sock = c->efd = c->ring_fd = c->head_fd = -1;
	c->next_id = 1;
	if (opts) {
		c->log = opts->log;
		c->log_opaque = opts->log_opaque;
		c->hello_asked = opts->flags & CUZK_CONNECT_TRACE ? CUZK_HELLO_TRACE : 0;
	}
	if ((r = pthread_mutex_init(&c->lock, NULL)) != 0) {
		free(c->rx);
		free(c);
		return err_fail_errno(err, r, "pthread_mutex_init");
	}
	c->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (c->sock < 0) {
		r = err_fail_errno(err, errno, "socket(AF_UNIX, SOCK_SEQPACKET)");
		goto fail;
	}
	if (connect(c->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = connect_failed(errno, socket_path, err);
		goto fail;
	}
	if ((r = say_hello(c, opts, err)) < 0) {
		err_prefix(err, "%s", socket_path);
		goto fail;
	}
	*ret = c;
	return 0;

fail:
	cuzk_disconnect(c);
	return r;
}

void cuzk_disconnect(cuzk_client *c)
{
	if (!c)
		return;
	ring_consumer_close(&c->ring);
	int fds[] = { c->sock, c->efd, c->ring_fd, c->head_fd };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	pthread_mutex_destroy(&c->lock);
	free(c->rx);
	free(c);
}

void cuzk_client_limits(const cuzk_client *c, struct cuzk_limits *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->max_inflight = c->hello.max_inflight;
	ret->max_partitions = c->hello.max_partitions;
	ret->max_witness_bytes = c->hello.max_witness_bytes;
	ret->ring_slots = c->hello.ring_slots;
}

int cuzk_client_eventfd(const cuzk_client *c)
{
	return c->efd;
}

/* The options' part of the checks: 1 when a trace is asked for. */
static int check_submit_opts(const cuzk_client *c, const struct cuzk_submit_opts *opts, cuzk_error *err)
{
	if (!opts)
		return 0;
	if (opts->reserved[0] || opts->reserved[1] || opts->reserved[2])
		return err_fail(err, CUZK_E_INVAL, "cuzk_submit_ex: reserved fields of cuzk_submit_opts are not zero");
	if (opts->flags & ~CUZK_SUBMIT_TRACE)
		return err_fail(err, CUZK_E_INVAL, "cuzk_submit_ex: unknown flags 0x%x in cuzk_submit_opts",
				opts->flags & ~CUZK_SUBMIT_TRACE);
	if (!(opts->flags & CUZK_SUBMIT_TRACE))
		return 0;
	if (opts->trace_fd < 0)
		return err_fail(err, CUZK_E_INVAL, "cuzk_submit_ex: trace_fd %d with CUZK_SUBMIT_TRACE", opts->trace_fd);
	/* The hello decided it, once for the connection (docs/PROTOCOL.md §10). */
	if (!(c->hello.flags & CUZK_HELLO_TRACE))
		return err_fail(err, CUZK_E_UNSUPPORTED,
				"cuzk_submit_ex: a trace needs a connection made with CUZK_CONNECT_TRACE");
	return 1;
}

int cuzk_submit(cuzk_client *c, cuzk_buffer *b, const struct cuzk_request *req, uint64_t *ret_id,
		uint64_t *ret_job_id, cuzk_error *err)
{
	return cuzk_submit_ex(c, b, req, NULL, ret_id, ret_job_id, err);
}

int cuzk_submit_ex(cuzk_client *c, cuzk_buffer *b, const struct cuzk_request *req,
		   const struct cuzk_submit_opts *opts, uint64_t *ret_id, uint64_t *ret_job_id, cuzk_error *err)
{
	struct msg_prove m;
	int r, traced;

	if (!c || !b || !req || !req->srs || !ret_id)
		return err_fail(err, CUZK_E_INVAL, "cuzk_submit: NULL argument");
	if (req->reserved[0] || req->reserved[1])
		return err_fail(err, CUZK_E_INVAL, "cuzk_submit: reserved fields of cuzk_request are not zero");
	/* The wire's trace flag is not the caller's to set: it goes with the fd. */
	if (req->flags & CUZK_PROVE_FLAG_TRACE)
		return err_fail(err, CUZK_E_INVAL, "cuzk_submit: flag 0x%x is not a request flag (a trace is "
				"asked for with cuzk_submit_ex and CUZK_SUBMIT_TRACE)", CUZK_PROVE_FLAG_TRACE);
	if ((traced = check_submit_opts(c, opts, err)) < 0)
		return traced;
	size_t n = strlen(req->srs);
	if (n == 0 || n > CUZK_SRS_NAME_MAX)
		return err_fail(err, CUZK_E_INVAL, "SRS name of %zu bytes (1..%u allowed)", n, CUZK_SRS_NAME_MAX);
	if (req->priority >= CUZK_PRIORITY__COUNT)
		return err_fail(err, CUZK_E_INVAL, "priority %u not in 0..%u", req->priority,
				CUZK_PRIORITY__COUNT - 1);

	memset(&m, 0, sizeof(m));
	m.priority = req->priority;
	m.flags = req->flags | (traced ? CUZK_PROVE_FLAG_TRACE : 0);
	m.seed = (req->flags & CUZK_REQ_FIXED_RS) ? req->seed : 0;
	memcpy(m.srs, req->srs, n);

	pthread_mutex_lock(&c->lock);
	uint64_t id = c->next_id++;
	msg_init(&m.hdr, CUZK_MSG_PROVE, sizeof(m), id);
	/* Check our own message with the daemon's parser: a bad flag is the
	 * caller's mistake and is named here, not after a round trip. */
	struct msg_prove checked;
	if ((r = msg_parse_prove(&checked, &m, sizeof(m), err)) < 0) {
		if (err)
			err->code = CUZK_E_INVAL;
		r = -CUZK_E_INVAL;
		goto out;
	}
	if ((r = buffer_seal(b, err)) < 0)
		goto out;
	int fds[2] = { b->fd, traced ? opts->trace_fd : -1 };
	if ((r = msg_send(c->sock, &m, sizeof(m), fds, traced ? 2 : 1, err)) < 0)
		goto out;
	uint64_t job = 0;
	if ((r = broken(c, expect_reply(c, id, &job, err))) < 0)
		goto out;
	*ret_id = id;
	if (ret_job_id)
		*ret_job_id = job;
out:
	pthread_mutex_unlock(&c->lock);
	return r;
}

/* Wakes other waiters when completions remain after ours: they may have
 * gone to sleep after we drained the eventfd. */
static void pass_wakeup(cuzk_client *c)
{
	uint64_t tail = __atomic_load_n(&((const struct ring_ctrl *)c->ring.ring)->tail, __ATOMIC_ACQUIRE);
	uint64_t one = 1;
	if (tail != c->ring.head && write(c->efd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is already huge, so waiters wake anyway. */
	}
}

static int poll_locked(cuzk_client *c, struct cuzk_completion *ret, cuzk_error *err)
{
	struct ring_rec rec;
	uint64_t count;
	/* Drain before looking, so a completion written after the look leaves
	 * the eventfd readable for the next sleep. */
	if (read(c->efd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return err_fail_errno(err, errno, "reading the daemon's eventfd");
	int r = ring_pop(&c->ring, &rec, &ret->proof[0][0], err);
	if (r <= 0)
		return r;
	ret->request_id = rec.request_id;
	ret->status = (int32_t)rec.status;
	ret->num_partitions = rec.num_partitions;
	memcpy(ret->phase_ns, rec.phase_ns, sizeof(ret->phase_ns));
	memcpy(ret->message, rec.message, sizeof(ret->message));
	pass_wakeup(c);
	return 1;
}

int cuzk_poll(cuzk_client *c, struct cuzk_completion *ret, cuzk_error *err)
{
	pthread_mutex_lock(&c->lock);
	int r = poll_locked(c, ret, err);
	pthread_mutex_unlock(&c->lock);
	return r;
}

/* The daemon's last words on a closed connection, if it left any. */
static int connection_lost(cuzk_client *c, cuzk_error *err)
{
	struct msg_reply rep;
	size_t len;
	cuzk_error ignored;
	pthread_mutex_lock(&c->lock);
	int r = msg_recv(c->sock, c->rx, CUZK_MSG_MAX, &len, NULL, 0, &(unsigned){ 0 }, &ignored);
	if (r == 0 && len && msg_parse_reply(&rep, c->rx, len, &ignored) == 0 && rep.status)
		r = err_fail(err, CUZK_E_IO, "cuzkd closed the connection: %s", rep.message);
	else
		r = err_fail(err, CUZK_E_IO, "cuzkd closed the connection");
	pthread_mutex_unlock(&c->lock);
	return r;
}

int cuzk_wait_fd(cuzk_client *c, struct cuzk_completion *ret, int timeout_ms, int wake_fd, cuzk_error *err)
{
	/* Another thread may take the completion that woke us: the timeout
	 * counts from the call, not from each wake-up. */
	int64_t deadline = timeout_ms >= 0 ? (int64_t)monotonic_ms() + timeout_ms : -1;
	for (;;) {
		int r = cuzk_poll(c, ret, err);
		if (r != 0)
			return r;
		if (deadline >= 0) {
			int64_t left = deadline - (int64_t)monotonic_ms();
			timeout_ms = left > 0 ? (int)left : 0;
		}
		/* The socket is watched for hang-up only: its replies belong to
		 * whichever thread holds the mutex.  A negative wake_fd is
		 * ignored by poll. */
		struct pollfd pfd[3] = {
			{ .fd = c->efd, .events = POLLIN },
			{ .fd = c->sock, .events = 0 },
			{ .fd = wake_fd, .events = POLLIN },
		};
		int n = poll(pfd, 3, timeout_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_fail_errno(err, errno, "poll on the daemon's eventfd");
		if (n == 0)
			return 0;
		if (pfd[0].revents & POLLIN)
			continue;
		if (pfd[1].revents & (POLLHUP | POLLERR)) {
			/* Completions written before the daemon went away still count. */
			if ((r = cuzk_poll(c, ret, err)) != 0)
				return r;
			return connection_lost(c, err);
		}
		if (pfd[2].revents & POLLNVAL)
			return err_fail(err, CUZK_E_INVAL, "wake fd %d is not open", wake_fd);
		if (pfd[2].revents & (POLLIN | POLLHUP | POLLERR))
			return err_fail(err, CUZK_E_CANCELLED, "wait interrupted through fd %d", wake_fd);
	}
}

int cuzk_wait(cuzk_client *c, struct cuzk_completion *ret, int timeout_ms, cuzk_error *err)
{
	return cuzk_wait_fd(c, ret, timeout_ms, -1, err);
}

static int cancel(cuzk_client *c, uint64_t id, enum msg_cancel_scope scope, cuzk_error *err)
{
	struct msg_cancel m;
	memset(&m, 0, sizeof(m));
	msg_init(&m.hdr, CUZK_MSG_CANCEL, sizeof(m), id);
	m.scope = (uint32_t)scope;
	pthread_mutex_lock(&c->lock);
	int r = msg_send(c->sock, &m, sizeof(m), NULL, 0, err);
	if (r == 0)
		r = broken(c, expect_reply(c, id, NULL, err));
	pthread_mutex_unlock(&c->lock);
	return r;
}

int cuzk_cancel(cuzk_client *c, uint64_t request_id, cuzk_error *err)
{
	return cancel(c, request_id, CUZK_CANCEL_OWN, err);
}

int cuzk_cancel_job(cuzk_client *c, uint64_t job_id, cuzk_error *err)
{
	return cancel(c, job_id, CUZK_CANCEL_JOB, err);
}

/* Collects TEXT chunks answering tag into one malloc'd string. */
static int recv_text(cuzk_client *c, uint64_t tag, char **ret, size_t *ret_len, cuzk_error *err)
{
	struct text_answer t;
	int r;

	text_init(&t, tag);
	do {
		size_t len;
		struct msg_header hdr;
		if ((r = recv_plain(c, &len, err)) < 0 || (r = msg_parse_header(&hdr, c->rx, len, err)) < 0)
			break;
		if (hdr.type == CUZK_MSG_REPLY) {
			r = check_reply(c, tag, len, NULL, err);
			if (r == 0)
				r = err_fail(err, CUZK_E_PROTOCOL, "daemon answered a text request with an empty reply");
			break;
		}
		r = text_add(&t, c->rx, len, err);
	} while (r == 0);
	if (r < 0) {
		text_free(&t);
		return r;
	}
	*ret = t.text;
	*ret_len = t.len;
	return 0;
}

static int text_request(cuzk_client *c, void *msg, size_t len, char **ret, size_t *ret_len,
			cuzk_error *err)
{
	struct msg_header *hdr = msg;
	if (!ret || !ret_len)
		return err_fail(err, CUZK_E_INVAL, "NULL result pointer");
	pthread_mutex_lock(&c->lock);
	hdr->request_id = c->next_id++;
	int r = msg_send(c->sock, msg, len, NULL, 0, err);
	if (r == 0)
		r = broken(c, recv_text(c, hdr->request_id, ret, ret_len, err));
	pthread_mutex_unlock(&c->lock);
	return r;
}

int cuzk_daemon_status(cuzk_client *c, enum cuzk_status_format format, char **ret, size_t *ret_len,
		       cuzk_error *err)
{
	struct msg_status m;
	if (format != CUZK_STATUS_TEXT && format != CUZK_STATUS_JSON && format != CUZK_STATUS_PARAMS)
		return err_fail(err, CUZK_E_INVAL, "unknown status format %d", (int)format);
	memset(&m, 0, sizeof(m));
	msg_init(&m.hdr, CUZK_MSG_STATUS, sizeof(m), 0);
	m.format = (uint32_t)format;
	return text_request(c, &m, sizeof(m), ret, ret_len, err);
}

int cuzk_daemon_metrics(cuzk_client *c, char **ret, size_t *ret_len, cuzk_error *err)
{
	struct msg_metrics m;
	memset(&m, 0, sizeof(m));
	msg_init(&m.hdr, CUZK_MSG_METRICS, sizeof(m), 0);
	return text_request(c, &m, sizeof(m), ret, ret_len, err);
}
