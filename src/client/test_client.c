// SPDX-License-Identifier: Apache-2.0 OR MIT
/* libcuzk against a scripted peer that speaks the protocol from the daemon's
 * side (src/ipc only, no engine): hello and the ring, submit and its seals,
 * completions to several waiting threads, a traced request (the HELLO flag
 * asked for, the trace fd sent second), a rejection, cancel, a multi-chunk
 * status, an error instead of text, a daemon that says goodbye, and one that
 * refuses a connection before reading its hello. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "client/client_internal.h"
#include "../../tests/check.h"

#define STATUS_BYTES 150000u  /* three TEXT chunks */

struct peer {
	int listen_fd;
	int seals_ok;                 /* every PROVE fd had SHRINK and GROW */
	int proves;
	int traced;                   /* PROVEs with the TRACE flag and a writable second fd */
	struct ring_producer ring;
	int efd;
};

static void send_reply(int fd, uint64_t id, int status, uint64_t job, const char *msg)
{
	struct msg_reply r;
	msg_reply_init(&r, id, status, msg);
	r.job_id = job;
	REQUIRE(msg_send(fd, &r, sizeof(r), NULL, 0, NULL) == 0);
}

static void send_status(int fd, uint64_t tag)
{
	static uint8_t pkt[CUZK_MSG_MAX];
	uint32_t sent = 0;
	for (uint32_t seq = 0; sent < STATUS_BYTES; seq++) {
		uint32_t n = STATUS_BYTES - sent < CUZK_TEXT_CHUNK_MAX ? STATUS_BYTES - sent : (uint32_t)CUZK_TEXT_CHUNK_MAX;
		struct msg_text t;
		memset(&t, 0, sizeof(t));
		msg_init(&t.hdr, CUZK_MSG_TEXT, (uint32_t)sizeof(t) + n, tag);
		t.seq = seq;
		t.data_len = n;
		t.flags = sent + n == STATUS_BYTES ? CUZK_TEXT_LAST : 0;
		memcpy(pkt, &t, sizeof(t));
		memset(pkt + sizeof(t), 'a' + (int)seq, n);
		REQUIRE(msg_send(fd, pkt, sizeof(t) + n, NULL, 0, NULL) == 0);
		sent += n;
	}
}

static void on_prove(struct peer *p, int fd, const uint8_t *buf, size_t len, const int *fds, unsigned nfds)
{
	struct msg_prove m;
	int wfd = fds[0];
	REQUIRE(msg_parse_prove(&m, buf, len, NULL) == 0);
	REQUIRE(nfds == ((m.flags & CUZK_PROVE_FLAG_TRACE) ? 2u : 1u));
	if (nfds == 2) {
		/* What a daemon does with it: the timeline at its offset. */
		static const char json[] = "{\"traceEvents\": []}\n";
		p->traced += write(fds[1], json, sizeof(json) - 1) == (ssize_t)sizeof(json) - 1;
		close(fds[1]);
	}
	int seals = fcntl(wfd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK) || !(seals & F_SEAL_GROW) || (seals & F_SEAL_WRITE))
		p->seals_ok = 0;
	close(wfd);
	if (strcmp(m.srs, "bye") == 0) {
		/* The daemon's last word, then the connection goes away. */
		send_reply(fd, 0, CUZK_E_SHUTDOWN, 0, "the daemon is shutting down");
		shutdown(fd, SHUT_RDWR);
		return;
	}
	if (strcmp(m.srs, "missing") == 0) {
		send_reply(fd, m.hdr.request_id, CUZK_E_NOTFOUND, 0, "unknown SRS 'missing'");
		return;
	}
	p->proves++;
	send_reply(fd, m.hdr.request_id, 0, 1000 + m.hdr.request_id, "");
	struct ring_rec rec;
	static uint8_t proofs[2 * CUZK_PROOF_BYTES];
	memset(&rec, 0, sizeof(rec));
	rec.request_id = m.hdr.request_id;
	rec.num_partitions = 2;
	rec.phase_ns[CUZK_PHASE_TOTAL] = 42;
	memset(proofs, (int)m.hdr.request_id, sizeof(proofs));
	REQUIRE(ring_push(&p->ring, &rec, proofs, NULL) == 0);
	uint64_t one = 1;
	REQUIRE(write(p->efd, &one, sizeof(one)) == sizeof(one));
}

static void *peer_main(void *arg)
{
	struct peer *p = arg;
	static uint8_t buf[CUZK_MSG_MAX];
	int fd = accept4(p->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	REQUIRE(fd >= 0);
	for (;;) {
		size_t len;
		int fds[2];
		unsigned nfds = 0;
		struct msg_header h;
		if (msg_recv(fd, buf, sizeof(buf), &len, fds, 2, &nfds, NULL) < 0 || len == 0)
			break;
		REQUIRE(msg_parse_header(&h, buf, len, NULL) == 0);
		if (h.type == CUZK_MSG_HELLO) {
			struct msg_hello hello;
			struct msg_hello_reply rep;
			REQUIRE(msg_parse_hello(&hello, buf, len, NULL) == 0);
			REQUIRE(ring_producer_create(&p->ring, 4, 2, NULL) == 0);
			p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
			REQUIRE(p->efd >= 0);
			memset(&rep, 0, sizeof(rep));
			msg_init(&rep.hdr, CUZK_MSG_HELLO_REPLY, sizeof(rep), hello.hdr.request_id);
			rep.max_inflight = 4;
			rep.max_partitions = 2;
			rep.max_witness_bytes = 1 << 20;
			rep.ring_slots = 4;
			rep.slot_size = p->ring.slot_size;
			rep.ring_bytes = p->ring.ring_bytes;
			rep.head_bytes = CUZK_RING_HEAD_BYTES;
			rep.flags = hello.flags;   /* grants what was asked for */
			int out[3] = { p->ring.ring_fd, p->ring.head_fd, p->efd };
			REQUIRE(msg_send(fd, &rep, sizeof(rep), out, 3, NULL) == 0);
		} else if (h.type == CUZK_MSG_PROVE) {
			REQUIRE(nfds >= 1);
			on_prove(p, fd, buf, len, fds, nfds);
		} else if (h.type == CUZK_MSG_CANCEL) {
			struct msg_cancel m;
			REQUIRE(msg_parse_cancel(&m, buf, len, NULL) == 0);
			if (m.scope == CUZK_CANCEL_JOB)
				send_reply(fd, m.hdr.request_id, CUZK_E_PERM, 0, "job 7 belongs to uid 1000");
			else
				send_reply(fd, m.hdr.request_id, m.hdr.request_id == 999 ? CUZK_E_NOTFOUND : 0, 0,
					   m.hdr.request_id == 999 ? "no request 999 in flight" : "");
		} else if (h.type == CUZK_MSG_STATUS) {
			send_status(fd, h.request_id);
		} else if (h.type == CUZK_MSG_METRICS) {
			send_reply(fd, h.request_id, CUZK_E_INTERNAL, 0, "metrics are broken today");
		}
	}
	close(fd);
	/* A second connection is refused before its hello is read, as a daemon
	 * at max_clients does: the reply, then the close. */
	fd = accept4(p->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	REQUIRE(fd >= 0);
	send_reply(fd, 0, CUZK_E_BUSY, 0, "too many clients (max_clients reached)");
	close(fd);
	return NULL;
}

struct waiter {
	cuzk_client *c;
	struct cuzk_completion done;
	int r;
};

static void *wait_one(void *arg)
{
	struct waiter *w = arg;
	cuzk_error err;
	w->r = cuzk_wait(w->c, &w->done, 10000, &err);
	return NULL;
}

static void log_quietly(void *opaque, int level, const char *line)
{
	(void)opaque;
	(void)level;
	(void)line;
}

int main(void)
{
	char dir[] = "/tmp/cuzk-client-XXXXXX";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct peer p = { .seals_ok = 1, .efd = -1 };
	pthread_t peer;
	cuzk_error err;
	cuzk_client *c;

	REQUIRE(mkdtemp(dir));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/d.sock", dir);
	p.listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	REQUIRE(p.listen_fd >= 0 && bind(p.listen_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
		listen(p.listen_fd, 4) == 0);
	REQUIRE(pthread_create(&peer, NULL, peer_main, &p) == 0);

	const struct cuzk_connect_opts opts = { .max_inflight = 2, .log = log_quietly, .flags = CUZK_CONNECT_TRACE };
	REQUIRE(cuzk_connect(&c, sa.sun_path, &opts, &err) == 0);
	struct cuzk_limits lim;
	cuzk_client_limits(c, &lim);
	CHECK(lim.max_inflight == 4 && lim.ring_slots == 4 && lim.max_partitions == 2);
	struct cuzk_completion done;
	CHECK(cuzk_poll(c, &done, &err) == 0);

	const struct cuzk_dims dims = { .num_constraints = 16, .num_inputs = 2, .num_aux = 8, .num_partitions = 2 };
	cuzk_buffer *b;
	REQUIRE(cuzk_buffer_alloc(c, &b, &dims, &err) == 0);

	/* Four waiters sleep first; four submits wake them, one completion each. */
	struct waiter w[4];
	pthread_t t[4];
	for (int i = 0; i < 4; i++) {
		w[i].c = c;
		REQUIRE(pthread_create(&t[i], NULL, wait_one, &w[i]) == 0);
	}
	uint64_t ids[4], job;
	struct cuzk_request req = { .srs = "small.params", .priority = CUZK_PRIORITY_HIGH };
	for (int i = 0; i < 4; i++) {
		CHECK(cuzk_submit(c, b, &req, &ids[i], &job, &err) == 0);
		CHECK(job == 1000 + ids[i]);
	}
	uint64_t seen = 0;
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK_MSG(w[i].r == 1, "waiter %d: %d", i, w[i].r);
		CHECK(w[i].done.status == 0 && w[i].done.num_partitions == 2 && w[i].done.phase_ns[CUZK_PHASE_TOTAL] == 42);
		CHECK(w[i].done.proof[1][191] == (uint8_t)w[i].done.request_id);
		for (int k = 0; k < 4; k++)
			if (w[i].done.request_id == ids[k])
				seen |= 1u << k;
	}
	CHECK_MSG(seen == 0xf, "completions seen: 0x%llx", (unsigned long long)seen);
	CHECK(p.seals_ok && (fcntl(cuzk_buffer_fd(b), F_GET_SEALS) & F_SEAL_SEAL));
	CHECK(cuzk_wait(c, &done, 0, &err) == 0);  /* nothing left: times out */

	/* A traced request: the trace fd goes second, and stays the caller's. */
	{
		int tfd = memfd_create("trace", MFD_CLOEXEC);
		struct cuzk_submit_opts so = { .flags = CUZK_SUBMIT_TRACE, .trace_fd = tfd };
		char back[64] = { 0 };
		REQUIRE(tfd >= 0);
		CHECK(cuzk_submit_ex(c, b, &req, &so, &ids[0], NULL, &err) == 0);
		CHECK(cuzk_wait(c, &done, 10000, &err) == 1 && done.request_id == ids[0]);
		CHECK(p.traced == 1 && pread(tfd, back, sizeof(back) - 1, 0) > 0 && strstr(back, "traceEvents"));
		CHECK(fcntl(tfd, F_GETFD) >= 0);
		so.trace_fd = -1;
		CHECK(cuzk_submit_ex(c, b, &req, &so, &ids[0], NULL, &err) == -CUZK_E_INVAL);
		so.trace_fd = tfd;
		so.reserved[2] = 1;
		CHECK(cuzk_submit_ex(c, b, &req, &so, &ids[0], NULL, &err) == -CUZK_E_INVAL);
		/* The wire's flag by hand, without the fd. */
		req.flags = CUZK_PROVE_FLAG_TRACE;
		CHECK(cuzk_submit(c, b, &req, &ids[0], NULL, &err) == -CUZK_E_INVAL && strstr(err.msg, "cuzk_submit_ex"));
		req.flags = 0;
		close(tfd);
	}

	/* A rejection is returned by submit, with the daemon's message. */
	req.srs = "missing";
	CHECK(cuzk_submit(c, b, &req, &ids[0], NULL, &err) == -CUZK_E_NOTFOUND && strstr(err.msg, "unknown SRS"));
	/* Caller mistakes are named before anything is sent. */
	req.srs = "small.params";
	req.flags = CUZK_REQ_MONTGOMERY | CUZK_REQ_CANONICAL;
	CHECK(cuzk_submit(c, b, &req, &ids[0], NULL, &err) == -CUZK_E_INVAL && strstr(err.msg, "both"));
	req.flags = 0;
	req.priority = 4;
	CHECK(cuzk_submit(c, b, &req, &ids[0], NULL, &err) == -CUZK_E_INVAL);
	req.priority = 0;

	CHECK(cuzk_cancel(c, 5, &err) == 0);
	CHECK(cuzk_cancel(c, 999, &err) == -CUZK_E_NOTFOUND && strstr(err.msg, "999"));
	CHECK(cuzk_cancel_job(c, 7, &err) == -CUZK_E_PERM && strstr(err.msg, "uid 1000"));

	char *text = NULL;
	size_t len = 0;
	CHECK(cuzk_daemon_status(c, CUZK_STATUS_JSON, &text, &len, &err) == 0);
	CHECK(len == STATUS_BYTES && text && text[len] == '\0' && text[0] == 'a' && text[len - 1] == 'c');
	free(text);
	CHECK(cuzk_daemon_metrics(c, &text, &len, &err) == -CUZK_E_INTERNAL && strstr(err.msg, "broken today"));

	/* The daemon says goodbye: submit reports it, and waiting ends. */
	req.srs = "bye";
	CHECK(cuzk_submit(c, b, &req, &ids[0], NULL, &err) == -CUZK_E_SHUTDOWN && strstr(err.msg, "shutting down"));
	CHECK(cuzk_wait(c, &done, 10000, &err) == -CUZK_E_IO);
	cuzk_client *refused = NULL;
	CHECK_MSG(cuzk_connect(&refused, sa.sun_path, &opts, &err) == -CUZK_E_BUSY && strstr(err.msg, "max_clients"),
		  "refused connection: %s", err.msg);
	CHECK(refused == NULL);
	pthread_join(peer, NULL);

	cuzk_disconnect(c);
	cuzk_buffer_free(b);
	ring_producer_destroy(&p.ring);
	close(p.efd);
	close(p.listen_fd);
	unlink(sa.sun_path);
	rmdir(dir);
	CHECK_DONE();
}
