// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The protocol parsers (a valid message and each rejection), the fd rules of
 * send/recv, and the completion ring (wrap-around, full, counters out of range). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc/protocol.h"
#include "../../tests/check.h"

/* The codes are on the wire: docs/PROTOCOL.md's table. */
_Static_assert(CUZK_E_FORMAT == 4 && CUZK_E_VERSION == 5 && CUZK_E_MISMATCH == 12, "codes");
_Static_assert(CUZK_E_CANCELLED == 16 && CUZK_E_BUSY == 17 && CUZK_E_NOTFOUND == 18, "codes");
_Static_assert(CUZK_E_PROTOCOL == 21 && CUZK_E_FD == 22 && CUZK_E_SEALS == 23, "codes");
_Static_assert(CUZK_E_SHUTDOWN == 24 && CUZK_E_INTERNAL == 25 && CUZK_E__MAX == 26, "codes");

static cuzk_error err;

/* Expects a rejection with code and a message containing word. */
#define REJECT(call, code, word)                                                              \
	do {                                                                                  \
		memset(&err, 0, sizeof(err));                                                 \
		int r_ = (call);                                                              \
		CHECK_MSG(r_ == -(code), "%s -> %d (%s), expected %d", #call, r_, err.msg, -(code)); \
		CHECK_MSG(strstr(err.msg, (word)) != NULL, "'%s' lacks '%s'", err.msg, (word)); \
	} while (0)

static void test_hdr(void)
{
	struct msg_metrics m;
	struct msg_header h;
	memset(&m, 0, sizeof(m));
	msg_init(&m.hdr, CUZK_MSG_METRICS, sizeof(m), 42);
	CHECK(msg_parse_header(&h, &m, sizeof(m), &err) == 0 && h.request_id == 42 && h.type == CUZK_MSG_METRICS);

	REJECT(msg_parse_header(&h, &m, 10, &err), CUZK_E_PROTOCOL, "shorter");
	m.hdr.magic ^= 1;
	REJECT(msg_parse_header(&h, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "magic");
	m.hdr.magic = CUZK_MSG_MAGIC;
	m.hdr.version = 2;
	REJECT(msg_parse_header(&h, &m, sizeof(m), &err), CUZK_E_VERSION, "version 2");
	m.hdr.version = CUZK_PROTOCOL_VERSION;
	REJECT(msg_parse_header(&h, &m, sizeof(m) - 1, &err), CUZK_E_PROTOCOL, "length");
	m.hdr.reserved = 1;
	REJECT(msg_parse_header(&h, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "reserved");
	m.hdr.reserved = 0;
	m.hdr.type = 0;
	REJECT(msg_parse_header(&h, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "unknown type 0");
	m.hdr.type = CUZK_MSG__END;
	REJECT(msg_parse_header(&h, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "unknown type");
}

static void test_hello(void)
{
	struct msg_hello m, got;
	memset(&m, 0, sizeof(m));
	msg_init(&m.hdr, CUZK_MSG_HELLO, sizeof(m), 1);
	m.max_inflight = 8;
	CHECK(msg_parse_hello(&got, &m, sizeof(m), &err) == 0 && got.max_inflight == 8);

	char big[sizeof(m) + 8];
	memset(big, 0, sizeof(big));
	memcpy(big, &m, sizeof(m));
	((struct msg_header *)big)->length = sizeof(big);
	REJECT(msg_parse_hello(&got, big, sizeof(big), &err), CUZK_E_PROTOCOL, "must be 72");
	m.flags = CUZK_HELLO_TRACE;
	CHECK(msg_parse_hello(&got, &m, sizeof(m), &err) == 0 && got.flags == CUZK_HELLO_TRACE);
	m.flags = CUZK_HELLO_TRACE | 4;
	REJECT(msg_parse_hello(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "unknown flags 0x4");
	m.flags = 0;
	m.reserved0 = 1;
	REJECT(msg_parse_hello(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "reserved0");
	m.reserved0 = 0;
	m.reserved[3] = 1;
	REJECT(msg_parse_hello(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "reserved");
	m.reserved[3] = 0;
	m.hdr.type = CUZK_MSG_CANCEL;
	REJECT(msg_parse_hello(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "expected a hello");
}

static void valid_hello_reply(struct msg_hello_reply *m, uint32_t slots, uint32_t parts)
{
	memset(m, 0, sizeof(*m));
	msg_init(&m->hdr, CUZK_MSG_HELLO_REPLY, sizeof(*m), 1);
	m->max_inflight = slots;
	m->max_partitions = parts;
	m->max_witness_bytes = 1 << 30;
	m->ring_slots = slots;
	m->slot_size = ring_slot_size(parts);
	m->ring_bytes = ring_memfd_bytes(slots, m->slot_size);
	m->head_bytes = CUZK_RING_HEAD_BYTES;
}

static void test_hello_reply(void)
{
	struct msg_hello_reply m, got;
	valid_hello_reply(&m, 16, 10);
	CHECK(msg_parse_hello_reply(&got, &m, sizeof(m), &err) == 0 && got.slot_size == 384 + 1920);

	m.ring_slots = 12;
	REJECT(msg_parse_hello_reply(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "power of two");
	valid_hello_reply(&m, 16, 10);
	m.max_inflight = 17;
	REJECT(msg_parse_hello_reply(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "max_inflight");
	valid_hello_reply(&m, 16, 10);
	m.max_partitions = 65;
	REJECT(msg_parse_hello_reply(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "max_partitions");
	valid_hello_reply(&m, 16, 10);
	m.slot_size += 64;
	REJECT(msg_parse_hello_reply(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "slot_size");
	valid_hello_reply(&m, 16, 10);
	m.ring_bytes -= 1;
	REJECT(msg_parse_hello_reply(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "ring_bytes");
	valid_hello_reply(&m, 16, 10);
	m.head_bytes = 64;
	REJECT(msg_parse_hello_reply(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "head_bytes");
	valid_hello_reply(&m, 16, 10);
	m.flags = CUZK_HELLO_TRACE;
	CHECK(msg_parse_hello_reply(&got, &m, sizeof(m), &err) == 0 && got.flags == CUZK_HELLO_TRACE);
	m.flags = 2;
	REJECT(msg_parse_hello_reply(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "flags 0x2");
	valid_hello_reply(&m, 16, 10);
	m.reserved[0] = 9;
	REJECT(msg_parse_hello_reply(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "reserved");
}

static void valid_prove(struct msg_prove *m)
{
	memset(m, 0, sizeof(*m));
	msg_init(&m->hdr, CUZK_MSG_PROVE, sizeof(*m), 77);
	m->priority = CUZK_PRIORITY_LOW;
	m->flags = CUZK_REQ_FIXED_RS | CUZK_REQ_MONTGOMERY;
	m->seed = 5;
	strcpy(m->srs, "porep-32g.params");
}

static void test_prove(void)
{
	struct msg_prove m, got;
	valid_prove(&m);
	CHECK(msg_parse_prove(&got, &m, sizeof(m), &err) == 0 && got.seed == 5 &&
	      strcmp(got.srs, "porep-32g.params") == 0 && got.hdr.request_id == 77);

	m.priority = 4;
	REJECT(msg_parse_prove(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "priority 4");
	valid_prove(&m);
	m.flags |= 0x100;
	REJECT(msg_parse_prove(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "unknown flags 0x100");
	valid_prove(&m);
	/* The trace flag parses; whether the connection may use it is the
	 * daemon's check (it needs the HELLO flag). */
	m.flags |= CUZK_PROVE_FLAG_TRACE;
	CHECK(msg_parse_prove(&got, &m, sizeof(m), &err) == 0 && (got.flags & CUZK_PROVE_FLAG_TRACE));
	valid_prove(&m);
	m.flags |= CUZK_REQ_CANONICAL;
	REJECT(msg_parse_prove(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "both");
	valid_prove(&m);
	m.flags = 0;
	REJECT(msg_parse_prove(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "seed without");
	valid_prove(&m);
	m.reserved[1] = 1;
	REJECT(msg_parse_prove(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "reserved");
	valid_prove(&m);
	memset(m.srs, 0, sizeof(m.srs));
	REJECT(msg_parse_prove(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "srs is empty");
	valid_prove(&m);
	memset(m.srs, 'x', sizeof(m.srs));
	REJECT(msg_parse_prove(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "NUL-terminated");
	valid_prove(&m);
	m.srs[200] = 'y';
	REJECT(msg_parse_prove(&got, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "srs is not zero");
	valid_prove(&m);
	memset(m.srs, 'x', CUZK_SRS_NAME_MAX);  /* the longest name is fine */
	CHECK(msg_parse_prove(&got, &m, sizeof(m), &err) == 0);
	valid_prove(&m);
	REJECT(msg_parse_prove(&got, &m, sizeof(m) - 8, &err) + 0, CUZK_E_PROTOCOL, "length");

	/* got is untouched by a rejection */
	memset(&got, 0xab, sizeof(got));
	m.priority = 9;
	msg_parse_prove(&got, &m, sizeof(m), &err);
	CHECK(got.hdr.magic == 0xabababab);

	/* The scalar form: the header decides unless the request says, and then they agree. */
	valid_prove(&m);
	m.flags = 0;
	CHECK(msg_prove_scalar_form(&m, CUZK_WITNESS_MONTGOMERY, &err) == 1);
	CHECK(msg_prove_scalar_form(&m, 0, &err) == 0);
	m.flags = CUZK_REQ_MONTGOMERY;
	REJECT(msg_prove_scalar_form(&m, 0, &err), CUZK_E_MISMATCH, "canonical");
	m.flags = CUZK_REQ_CANONICAL;
	REJECT(msg_prove_scalar_form(&m, CUZK_WITNESS_MONTGOMERY, &err), CUZK_E_MISMATCH, "Montgomery");
	CHECK(msg_prove_scalar_form(&m, 0, &err) == 0);
}

static void test_small_requests(void)
{
	struct msg_cancel c, cg;
	memset(&c, 0, sizeof(c));
	msg_init(&c.hdr, CUZK_MSG_CANCEL, sizeof(c), 9);
	CHECK(msg_parse_cancel(&cg, &c, sizeof(c), &err) == 0 && cg.hdr.request_id == 9);
	c.scope = CUZK_CANCEL_JOB;
	CHECK(msg_parse_cancel(&cg, &c, sizeof(c), &err) == 0 && cg.scope == CUZK_CANCEL_JOB);
	c.scope = 2;
	REJECT(msg_parse_cancel(&cg, &c, sizeof(c), &err), CUZK_E_PROTOCOL, "scope 2");
	c.scope = 0;
	c.reserved0 = 1;
	REJECT(msg_parse_cancel(&cg, &c, sizeof(c), &err), CUZK_E_PROTOCOL, "reserved0");
	c.reserved0 = 0;
	c.reserved = 1;
	REJECT(msg_parse_cancel(&cg, &c, sizeof(c), &err), CUZK_E_PROTOCOL, "reserved");

	struct msg_status s, sg;
	memset(&s, 0, sizeof(s));
	msg_init(&s.hdr, CUZK_MSG_STATUS, sizeof(s), 3);
	s.format = CUZK_STATUS_JSON;
	CHECK(msg_parse_status(&sg, &s, sizeof(s), &err) == 0 && sg.format == CUZK_STATUS_JSON);
	s.format = CUZK_STATUS_PARAMS;
	CHECK(msg_parse_status(&sg, &s, sizeof(s), &err) == 0 && sg.format == CUZK_STATUS_PARAMS);
	s.format = 3;
	REJECT(msg_parse_status(&sg, &s, sizeof(s), &err), CUZK_E_PROTOCOL, "format 3");
	s.format = 0;
	s.reserved0 = 1;
	REJECT(msg_parse_status(&sg, &s, sizeof(s), &err), CUZK_E_PROTOCOL, "reserved0");
	s.reserved0 = 0;
	s.reserved[0] = 1;
	REJECT(msg_parse_status(&sg, &s, sizeof(s), &err), CUZK_E_PROTOCOL, "reserved");

	struct msg_metrics m, mg;
	memset(&m, 0, sizeof(m));
	msg_init(&m.hdr, CUZK_MSG_METRICS, sizeof(m), 3);
	CHECK(msg_parse_metrics(&mg, &m, sizeof(m), &err) == 0);
	m.reserved[0] = 1;
	REJECT(msg_parse_metrics(&mg, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "reserved");
	/* A cancel is not a metrics request, even of the same size. */
	REJECT(msg_parse_metrics(&mg, &cg, sizeof(cg), &err), CUZK_E_PROTOCOL, "expected a metrics");
}

static void test_reply_and_text(void)
{
	struct msg_reply r, rg;
	msg_reply_init(&r, 12, -CUZK_E_SEALS, "client 7: witness memfd lacks F_SEAL_GROW\nsecond line");
	CHECK(msg_parse_reply(&rg, &r, sizeof(r), &err) == 0);
	CHECK(rg.status == CUZK_E_SEALS && rg.hdr.request_id == 12);
	CHECK(strchr(rg.message, '\n') == NULL && strstr(rg.message, "second line"));
	msg_reply_init(&r, 12, CUZK_E_BUSY, NULL);
	CHECK(strcmp(r.message, "busy") == 0);
	char longmsg[600];
	memset(longmsg, 'm', sizeof(longmsg) - 1);
	longmsg[sizeof(longmsg) - 1] = 0;
	msg_reply_init(&r, 1, 0, longmsg);
	CHECK(msg_parse_reply(&rg, &r, sizeof(r), &err) == 0 && strlen(rg.message) == CUZK_MESSAGE_MAX - 1);

	r.status = CUZK_E__MAX;
	REJECT(msg_parse_reply(&rg, &r, sizeof(r), &err), CUZK_E_PROTOCOL, "unknown status");
	msg_reply_init(&r, 1, 0, "ok");
	memset(r.message, 'z', sizeof(r.message));
	REJECT(msg_parse_reply(&rg, &r, sizeof(r), &err), CUZK_E_PROTOCOL, "NUL-terminated");
	msg_reply_init(&r, 1, 0, "");
	r.status = CUZK_E_FD;
	REJECT(msg_parse_reply(&rg, &r, sizeof(r), &err), CUZK_E_PROTOCOL, "without a message");
	msg_reply_init(&r, 1, CUZK_E_BUSY, "busy");
	r.job_id = 4;
	REJECT(msg_parse_reply(&rg, &r, sizeof(r), &err), CUZK_E_PROTOCOL, "job id");
	msg_reply_init(&r, 1, 0, "");
	r.job_id = 4;
	CHECK(msg_parse_reply(&rg, &r, sizeof(r), &err) == 0 && rg.job_id == 4);
	r.reserved0 = 3;
	REJECT(msg_parse_reply(&rg, &r, sizeof(r), &err), CUZK_E_PROTOCOL, "reserved0");

	uint8_t buf[sizeof(struct msg_text) + 5];
	struct msg_text t, tg;
	const void *data;
	memset(&t, 0, sizeof(t));
	msg_init(&t.hdr, CUZK_MSG_TEXT, sizeof(buf), 4);
	t.seq = 2;
	t.flags = CUZK_TEXT_LAST;
	t.data_len = 5;
	memcpy(buf, &t, sizeof(t));
	memcpy(buf + sizeof(t), "hello", 5);
	CHECK(msg_parse_text(&tg, &data, buf, sizeof(buf), &err) == 0 && tg.seq == 2 &&
	      memcmp(data, "hello", 5) == 0);
	buf[sizeof(t) + 2] = 0;
	REJECT(msg_parse_text(&tg, &data, buf, sizeof(buf), &err), CUZK_E_PROTOCOL, "NUL byte");
	buf[sizeof(t) + 2] = 'l';
	((struct msg_text *)(void *)buf)->data_len = 6;
	REJECT(msg_parse_text(&tg, &data, buf, sizeof(buf), &err), CUZK_E_PROTOCOL, "data_len 6");
	((struct msg_text *)(void *)buf)->data_len = 5;
	((struct msg_text *)(void *)buf)->flags = 2;
	REJECT(msg_parse_text(&tg, &data, buf, sizeof(buf), &err), CUZK_E_PROTOCOL, "flags");
	((struct msg_text *)(void *)buf)->flags = 0;
	((struct msg_text *)(void *)buf)->reserved0 = 1;
	REJECT(msg_parse_text(&tg, &data, buf, sizeof(buf), &err), CUZK_E_PROTOCOL, "reserved0");
	((struct msg_text *)(void *)buf)->hdr.length = 30;
	REJECT(msg_parse_text(&tg, &data, buf, 30, &err), CUZK_E_PROTOCOL, "shorter than its");
}

/* A TEXT chunk of request id: seq, the LAST flag, and data. */
static size_t text_chunk(uint8_t *buf, uint64_t id, uint32_t seq, int last, const char *data)
{
	struct msg_text t;
	size_t n = strlen(data);
	memset(&t, 0, sizeof(t));
	msg_init(&t.hdr, CUZK_MSG_TEXT, (uint32_t)(sizeof(t) + n), id);
	t.seq = seq;
	t.flags = last ? CUZK_TEXT_LAST : 0;
	t.data_len = (uint32_t)n;
	memcpy(buf, &t, sizeof(t));
	memcpy(buf + sizeof(t), data, n);
	return sizeof(t) + n;
}

static void test_text_reassembly(void)
{
	uint8_t buf[256];
	struct text_answer t;

	text_init(&t, 9);
	CHECK(text_add(&t, buf, text_chunk(buf, 9, 0, 0, "queue: "), &err) == 0);
	CHECK(text_add(&t, buf, text_chunk(buf, 9, 1, 1, "empty\n"), &err) == 1);
	CHECK(t.text && t.len == 13 && strcmp(t.text, "queue: empty\n") == 0);
	text_free(&t);

	text_init(&t, 9);
	CHECK(text_add(&t, buf, text_chunk(buf, 9, 0, 1, ""), &err) == 1 && t.text && t.text[0] == '\0');
	text_free(&t);

	text_init(&t, 9);
	CHECK(text_add(&t, buf, text_chunk(buf, 9, 0, 0, "a"), &err) == 0);
	REJECT(text_add(&t, buf, text_chunk(buf, 9, 2, 1, "b"), &err), CUZK_E_PROTOCOL, "expected chunk 1");
	REJECT(text_add(&t, buf, text_chunk(buf, 8, 1, 1, "b"), &err), CUZK_E_PROTOCOL, "of request 8");
	struct msg_metrics m;
	memset(&m, 0, sizeof(m));
	msg_init(&m.hdr, CUZK_MSG_METRICS, sizeof(m), 9);
	REJECT(text_add(&t, &m, sizeof(m), &err), CUZK_E_PROTOCOL, "expected a text message");
	text_free(&t);
	CHECK(t.text == NULL && t.len == 0);
}

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	REQUIRE(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void test_socket(void)
{
	int sv[2], fds[8];
	unsigned nfds;
	size_t len;
	static uint8_t buf[CUZK_MSG_MAX];
	struct msg_cancel m;
	memset(&m, 0, sizeof(m));
	msg_init(&m.hdr, CUZK_MSG_CANCEL, sizeof(m), 5);
	REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
	int base = count_fds();

	/* one fd, received close-on-exec */
	int mfd = memfd_create("t", MFD_CLOEXEC);
	REQUIRE(mfd >= 0);
	CHECK(msg_send(sv[0], &m, sizeof(m), &mfd, 1, &err) == 0);
	CHECK(msg_recv(sv[1], buf, sizeof(buf), &len, fds, 1, &nfds, &err) == 0);
	CHECK(len == sizeof(m) && nfds == 1 && memcmp(buf, &m, sizeof(m)) == 0);
	if (nfds == 1) {
		CHECK(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
		close(fds[0]);
	}
	/* no fd */
	CHECK(msg_send(sv[0], &m, sizeof(m), NULL, 0, &err) == 0);
	CHECK(msg_recv(sv[1], buf, sizeof(buf), &len, fds, 1, &nfds, &err) == 0 && nfds == 0);
	/* two fds where one is allowed: both closed */
	int two[2] = { mfd, mfd };
	CHECK(msg_send(sv[0], &m, sizeof(m), two, 2, &err) == 0);
	REJECT(msg_recv(sv[1], buf, sizeof(buf), &len, fds, 1, &nfds, &err), CUZK_E_FD, "2 fds");
	CHECK(count_fds() == base + 1);
	/* more fds than the control buffer holds: MSG_CTRUNC */
	{
		union {
			char b[CMSG_SPACE(6 * sizeof(int))];
			struct cmsghdr a;
		} ctl;
		int six[6] = { mfd, mfd, mfd, mfd, mfd, mfd };
		struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
				     .msg_controllen = sizeof(ctl.b) };
		memset(&ctl, 0, sizeof(ctl));
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(six));
		memcpy(CMSG_DATA(cm), six, sizeof(six));
		CHECK(sendmsg(sv[0], &mh, 0) == (ssize_t)sizeof(m));
		REJECT(msg_recv(sv[1], buf, sizeof(buf), &len, fds, 3, &nfds, &err), CUZK_E_FD, "MSG_CTRUNC");
		CHECK(count_fds() == base + 1);
	}
	/* a packet larger than the buffer: MSG_TRUNC, its fd closed */
	CHECK(msg_send(sv[0], buf, 100, &mfd, 1, &err) == 0);
	REJECT(msg_recv(sv[1], buf, 50, &len, fds, 1, &nfds, &err), CUZK_E_PROTOCOL, "truncated");
	CHECK(count_fds() == base + 1);
	/* more than 3 fds cannot be sent */
	REJECT(msg_send(sv[0], &m, sizeof(m), fds, 4, &err), CUZK_E_INVAL, "at most 3");
	/* A peer that answers and closes with our packet unread: the kernel
	 * reports ECONNRESET first, the answer is still there after it. */
	{
		int pr[2];
		REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pr) == 0);
		CHECK(msg_send(pr[0], &m, sizeof(m), NULL, 0, &err) == 0);
		struct msg_reply bye;
		msg_reply_init(&bye, 0, CUZK_E_BUSY, "too many clients");
		CHECK(msg_send(pr[1], &bye, sizeof(bye), NULL, 0, &err) == 0);
		close(pr[1]);
		CHECK_MSG(msg_recv(pr[0], buf, sizeof(buf), &len, fds, 1, &nfds, &err) == 0, "%s", err.msg);
		CHECK(len == sizeof(bye) && memcmp(buf, &bye, sizeof(bye)) == 0);
		CHECK(msg_recv(pr[0], buf, sizeof(buf), &len, fds, 1, &nfds, &err) == 0 && len == 0);
		close(pr[0]);
	}
	/* the peer closed */
	close(sv[0]);
	CHECK(msg_recv(sv[1], buf, sizeof(buf), &len, fds, 1, &nfds, &err) == 0 && len == 0);
	close(sv[1]);
	close(mfd);
}

static void fill_rec(struct ring_rec *rec, uint8_t *proofs, uint64_t id, uint32_t parts)
{
	memset(rec, 0, sizeof(*rec));
	rec->request_id = id;
	rec->num_partitions = parts;
	rec->phase_ns[CUZK_PHASE_TOTAL] = id * 1000;
	for (uint32_t i = 0; i < parts * CUZK_PROOF_BYTES; i++)
		proofs[i] = (uint8_t)(id * 31 + i);
}

static void test_ring(void)
{
	struct ring_producer p;
	struct ring_consumer c;
	struct msg_hello_reply hello;
	struct ring_rec rec, got;
	static uint8_t proofs[CUZK_MAX_PARTITIONS * CUZK_PROOF_BYTES], out[sizeof(proofs)];

	REQUIRE(ring_producer_create(&p, 4, 3, &err) == 0);
	valid_hello_reply(&hello, 4, 3);
	REQUIRE(ring_consumer_open(&c, p.ring_fd, p.head_fd, &hello, &err) == 0);

	/* The client cannot map the ring writable (F_SEAL_FUTURE_WRITE), nor resize it. */
	void *w = mmap(NULL, p.ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, p.ring_fd, 0);
	CHECK_MSG(w == MAP_FAILED, "the ring memfd could be mapped writable");
	if (w != MAP_FAILED)
		munmap(w, p.ring_bytes);
	CHECK(ftruncate(p.ring_fd, 0) < 0 && errno == EPERM);

	CHECK(ring_pop(&c, &got, out, &err) == 0);
	/* wrap-around: 11 completions through 4 slots, 1 to 3 partitions */
	for (uint64_t id = 1; id <= 11; id++) {
		uint32_t parts = (uint32_t)(id % 3) + 1;
		fill_rec(&rec, proofs, id, parts);
		CHECK(ring_push(&p, &rec, proofs, &err) == 0);
		memset(out, 0, sizeof(out));
		CHECK(ring_pop(&c, &got, out, &err) == 1);
		CHECK(got.request_id == id && got.num_partitions == parts && got.phase_ns[CUZK_PHASE_TOTAL] == id * 1000);
		CHECK(memcmp(out, proofs, parts * CUZK_PROOF_BYTES) == 0);
	}
	CHECK(ring_pop(&c, &got, out, &err) == 0);

	/* full: 4 unread, the fifth is refused until one is read */
	for (uint64_t id = 20; id < 24; id++) {
		fill_rec(&rec, proofs, id, 1);
		CHECK(ring_push(&p, &rec, proofs, &err) == 0);
	}
	CHECK(ring_unread(&p, &err) == 4);
	fill_rec(&rec, proofs, 24, 1);
	REJECT(ring_push(&p, &rec, proofs, &err), CUZK_E_BUSY, "full");
	CHECK(ring_pop(&c, &got, out, &err) == 1 && got.request_id == 20);
	CHECK(ring_push(&p, &rec, proofs, &err) == 0);
	for (uint64_t id = 21; id <= 24; id++)
		CHECK(ring_pop(&c, &got, out, &err) == 1 && got.request_id == id);

	/* too many partitions for the ring */
	fill_rec(&rec, proofs, 30, 3);
	rec.num_partitions = 4;
	REJECT(ring_push(&p, &rec, proofs, &err), CUZK_E_INVAL, "4 partitions");

	/* The client's head out of range, ahead of the tail or too far behind. */
	fill_rec(&rec, proofs, 30, 1);
	uint64_t saved = c.headp->head;
	c.headp->head = p.tail + 1;
	REJECT(ring_push(&p, &rec, proofs, &err), CUZK_E_PROTOCOL, "head");
	c.headp->head = p.tail - 5;
	REJECT((int)ring_unread(&p, &err), CUZK_E_PROTOCOL, "out of range");
	c.headp->head = saved;

	/* The daemon's tail out of range, and a corrupt record, seen by the client. */
	struct ring_ctrl *ctrl = (struct ring_ctrl *)p.ring;
	ctrl->tail = p.tail + 5;
	REJECT(ring_pop(&c, &got, out, &err), CUZK_E_PROTOCOL, "tail");
	ctrl->tail = p.tail;
	fill_rec(&rec, proofs, 31, 1);
	rec.status = CUZK_E_GPU;
	CHECK(ring_push(&p, &rec, proofs, &err) == 0);
	REJECT(ring_pop(&c, &got, out, &err), CUZK_E_PROTOCOL, "status 15 with 1 proofs");
	struct ring_rec *slot = (struct ring_rec *)(void *)(p.ring + CUZK_RING_SLOTS_OFFSET +
								       ((p.tail - 1) & 3) * p.slot_size);
	slot->num_partitions = 0;
	memset(slot->message, 'q', sizeof(slot->message));
	REJECT(ring_pop(&c, &got, out, &err), CUZK_E_PROTOCOL, "NUL-terminated");
	strcpy(slot->message, "gpu: out of memory");
	CHECK(ring_pop(&c, &got, out, &err) == 1 && got.status == CUZK_E_GPU &&
	      strcmp(got.message, "gpu: out of memory") == 0);

	ring_consumer_close(&c);
	/* A hello that disagrees with the control block is refused. */
	valid_hello_reply(&hello, 8, 3);
	REJECT(ring_consumer_open(&c, p.ring_fd, p.head_fd, &hello, &err), CUZK_E_PROTOCOL, "bytes");
	ring_producer_destroy(&p);

	CHECK(ring_pick_slots(0, 5) == 8 && ring_pick_slots(100, 5) == 128 &&
	      ring_pick_slots(1u << 20, 1) == CUZK_RING_MAX_SLOTS && ring_pick_slots(0, 0) == 1);
	REJECT(ring_producer_create(&p, 6, 3, &err), CUZK_E_INVAL, "power of two");
	REJECT(ring_producer_create(&p, 8, 65, &err), CUZK_E_INVAL, "partitions");
}

int main(void)
{
	test_hdr();
	test_hello();
	test_hello_reply();
	test_prove();
	test_small_requests();
	test_reply_and_text();
	test_text_reassembly();
	test_socket();
	test_ring();
	CHECK_DONE();
}
