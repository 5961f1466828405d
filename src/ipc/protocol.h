// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The cuzkd wire protocol, version 1 (docs/PROTOCOL.md is the normative text).
 *
 * Transport: an AF_UNIX SOCK_SEQPACKET socket; one message per packet, at most
 * CUZK_MSG_MAX bytes.  Every message starts with struct msg_header; all
 * integers are little-endian, all structs fixed-size with explicit padding,
 * every reserved field zero.
 *
 * Conversation:
 *   client                              daemon
 *   HELLO                     ->
 *                             <-  HELLO_REPLY + 3 fds (ring, head page, eventfd)
 *                                 or REPLY(error), then close
 *   PROVE + 1 fd (witness), or 2 (witness, trace file) with CUZK_PROVE_FLAG_TRACE
 *                             ->
 *                             <-  REPLY(0: accepted, with its job_id | error: rejected)
 *                 ... later, for each accepted PROVE, one completion in the ring,
 *                     then an eventfd write
 *   CANCEL (id, scope)        ->
 *                             <-  REPLY(0 | NOTFOUND | PERM)
 *   STATUS / METRICS          ->
 *                             <-  TEXT chunk 0, 1, ..., the last flagged LAST
 *
 * Requests are answered in the order sent.  A malformed message (bad magic,
 * version, length, type, or anything but HELLO first) is answered with a REPLY
 * carrying CUZK_E_PROTOCOL / CUZK_E_VERSION and the daemon closes the
 * connection; a well-framed request with bad contents gets an error REPLY and
 * the connection stays up.  Before closing a connection for any other reason
 * (drain, misbehaviour) the daemon may send an unsolicited REPLY with
 * request_id 0 saying why.
 *
 * Flow control: a request counts against the client's max_inflight from the
 * moment it is accepted until the client has consumed its completion (moved
 * the ring head past it).  Since ring_slots >= max_inflight, the ring can never
 * overflow; a client that never reads its ring gets CUZK_E_BUSY for new work.
 * A client that stops reading its socket is disconnected when a reply would
 * block. */
#ifndef CUZK_IPC_PROTOCOL_H
#define CUZK_IPC_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "abi/witness_format.h"
#include "common/error.h"
#include "cuzk.h"

#define CUZK_PROTOCOL_VERSION 1u
#define CUZK_MSG_MAGIC 0x4d4b5a43u      /* bytes "CZKM" */
#define CUZK_MSG_MAX 65536u             /* largest packet either side sends */
#define CUZK_SRS_FIELD 256u             /* CUZK_SRS_NAME_MAX + NUL */
#define CUZK_TEXT_MAX (4u << 20)        /* status/metrics text, all chunks together */

_Static_assert(CUZK_SRS_FIELD == CUZK_SRS_NAME_MAX + 1, "SRS field holds a name and its NUL");
_Static_assert(CUZK_MAX_PARTITIONS == CUZK_WITNESS_MAX_PARTITIONS, "one partition limit");

enum msg_type {
	CUZK_MSG_HELLO = 1,         /* c->d: struct msg_hello */
	CUZK_MSG_HELLO_REPLY = 2,   /* d->c: struct msg_hello_reply + fds (ring, head, eventfd) */
	CUZK_MSG_PROVE = 3,         /* c->d: struct msg_prove + 1 fd (witness memfd) */
	CUZK_MSG_CANCEL = 4,        /* c->d: struct msg_cancel */
	CUZK_MSG_STATUS = 5,        /* c->d: struct msg_status */
	CUZK_MSG_METRICS = 6,       /* c->d: struct msg_metrics */
	CUZK_MSG_REPLY = 7,         /* d->c: struct msg_reply */
	CUZK_MSG_TEXT = 8,          /* d->c: struct msg_text + data */
	CUZK_MSG__END
};

/* Every message: 24 bytes. */
struct msg_header {
	uint32_t magic;             /* CUZK_MSG_MAGIC */
	uint16_t type;              /* enum msg_type */
	uint16_t version;           /* CUZK_PROTOCOL_VERSION */
	uint32_t length;            /* whole message in bytes, this header included; = packet size */
	uint32_t reserved;          /* zero */
	uint64_t request_id;        /* chosen by the client; replies echo it (see each type) */
};

/* HELLO flags: what a client asks for beyond version 1 as first written
 * (docs/PROTOCOL.md §10).  The daemon grants a flag by setting it in
 * HELLO_REPLY's flags; a daemon that predates one refuses the HELLO
 * (CUZK_E_PROTOCOL), so a client sets only what it will use. */
#define CUZK_HELLO_TRACE 0x1u      /* PROVE may carry CUZK_PROVE_FLAG_TRACE and a trace fd */
#define CUZK_HELLO_KNOWN CUZK_HELLO_TRACE

/* request_id: echoed.  The daemon may lower both wishes, never raise them
 * above its own limits. */
struct msg_hello {
	struct msg_header hdr;
	uint32_t max_inflight;      /* wish, 0 = daemon's limit */
	uint32_t ring_slots;        /* wish, 0 = daemon's default */
	uint32_t flags;             /* CUZK_HELLO_* asked for */
	uint32_t reserved0;
	uint64_t reserved[4];
};

/* Sent with exactly three fds, in this order:
 *   [0] ring memfd, ring_bytes long, sealed SHRINK|GROW|SEAL and FUTURE_WRITE:
 *       the client can map it PROT_READ only; struct ring_ctrl at 0,
 *       slot i at CUZK_RING_SLOTS_OFFSET + i * slot_size;
 *   [1] head memfd, head_bytes long (one page), sealed SHRINK|GROW|SEAL: the
 *       client maps it read-write and stores struct ring_head.head there;
 *   [2] an eventfd (EFD_NONBLOCK on the daemon side) written after completions.
 * max_inflight <= ring_slots always. */
struct msg_hello_reply {
	struct msg_header hdr;
	uint32_t max_inflight;      /* per this client, unread completions included */
	uint32_t max_partitions;    /* per request, <= CUZK_MAX_PARTITIONS */
	uint64_t max_witness_bytes; /* largest witness file accepted */
	uint32_t ring_slots;        /* power of two */
	uint32_t slot_size;         /* = ring_slot_size(max_partitions) */
	uint64_t ring_bytes;        /* = ring_memfd_bytes(ring_slots, slot_size) */
	uint32_t head_bytes;        /* = CUZK_RING_HEAD_BYTES */
	uint32_t flags;             /* CUZK_HELLO_* granted: only ones the HELLO asked for */
	uint64_t reserved[4];
};

/* A PROVE flag of the wire only: libcuzk sets it for cuzk_submit_ex's
 * CUZK_SUBMIT_TRACE (the public request flags are cuzk.h's CUZK_REQ_*).
 * The request then carries a second fd, a file on tmpfs open for writing,
 * into which the daemon writes the job's timeline (Chrome trace-event JSON)
 * before it posts the completion.  Only on a connection granted
 * CUZK_HELLO_TRACE. */
#define CUZK_PROVE_FLAG_TRACE 0x8u
_Static_assert((CUZK_PROVE_FLAG_TRACE & (CUZK_REQ_MONTGOMERY | CUZK_REQ_CANONICAL | CUZK_REQ_FIXED_RS)) == 0,
	       "the wire's trace flag is not a request flag");

/* request_id: the client's id for this proof, unique among its requests in
 * flight (a duplicate is rejected with CUZK_E_INVAL).  One fd, the witness
 * memfd (docs/PROTOCOL.md "Witness file"), then the trace fd with
 * CUZK_PROVE_FLAG_TRACE.
 * Scalar form: with neither CUZK_REQ_MONTGOMERY nor CUZK_REQ_CANONICAL the
 * witness header's flag decides; with one of them it must agree with the
 * header (else CUZK_E_MISMATCH); both at once is CUZK_E_PROTOCOL. */
struct msg_prove {
	struct msg_header hdr;
	uint32_t priority;          /* enum cuzk_priority */
	uint32_t flags;             /* CUZK_REQ_*, CUZK_PROVE_FLAG_TRACE */
	uint64_t seed;              /* r, s seed with CUZK_REQ_FIXED_RS, else zero */
	uint64_t reserved[2];
	char srs[CUZK_SRS_FIELD];   /* NUL-terminated, bytes after the NUL zero */
};

/* Which request a CANCEL names. */
enum msg_cancel_scope {
	CUZK_CANCEL_OWN = 0,        /* request_id is this connection's own proof request id */
	CUZK_CANCEL_JOB = 1,        /* request_id is a daemon job id (REPLY.job_id, status output),
				     * possibly of another connection: allowed when the peer's uid
				     * owns that job or is 0, else CUZK_E_PERM */
	CUZK_CANCEL__COUNT
};

/* request_id: the request to cancel (see scope).  The REPLY echoes it. */
struct msg_cancel {
	struct msg_header hdr;
	uint32_t scope;             /* enum msg_cancel_scope */
	uint32_t reserved0;
	uint64_t reserved;
};

/* request_id: any tag, echoed by every TEXT chunk of the answer. */
struct msg_status {
	struct msg_header hdr;
	uint32_t format;            /* enum cuzk_status_format */
	uint32_t reserved0;
	uint64_t reserved[2];
};

struct msg_metrics {
	struct msg_header hdr;
	uint64_t reserved[2];
};

/* The answer to HELLO (errors only), PROVE and CANCEL, and the error answer
 * to anything.  request_id echoes the request's (0 when it could not be read). */
struct msg_reply {
	struct msg_header hdr;
	uint32_t status;            /* 0 or a CUZK_E_* */
	uint32_t reserved0;
	uint64_t job_id;            /* accepted PROVE: the daemon-wide job id (for logs, status and
				     * CUZK_CANCEL_JOB); 0 in every other reply */
	char message[CUZK_MESSAGE_MAX];  /* one line, NUL-terminated, "" for success */
};

#define CUZK_TEXT_LAST 0x1u

/* One chunk of a status or metrics answer: data follows the struct, length =
 * sizeof(struct msg_text) + data_len.  Chunks are numbered from 0; the
 * text is their concatenation, at most CUZK_TEXT_MAX bytes, UTF-8 without NUL. */
struct msg_text {
	struct msg_header hdr;
	uint32_t seq;
	uint32_t flags;             /* CUZK_TEXT_LAST on the final chunk */
	uint32_t data_len;
	uint32_t reserved0;
};
#define CUZK_TEXT_CHUNK_MAX (CUZK_MSG_MAX - sizeof(struct msg_text))

_Static_assert(sizeof(struct msg_header) == 24, "header size is part of the protocol");
_Static_assert(sizeof(struct msg_hello) == 72, "hello size");
_Static_assert(sizeof(struct msg_hello_reply) == 96, "hello reply size");
_Static_assert(sizeof(struct msg_prove) == 312, "prove size");
_Static_assert(sizeof(struct msg_cancel) == 40, "cancel size");
_Static_assert(sizeof(struct msg_status) == 48, "status size");
_Static_assert(sizeof(struct msg_metrics) == 40, "metrics size");
_Static_assert(sizeof(struct msg_reply) == 296, "reply size");
_Static_assert(sizeof(struct msg_text) == 40, "text chunk header size");

/* ---- building and parsing messages ----
 * msg_init fills a header for a message of `length` bytes.
 * msg_parse_header checks magic, version, reserved, length == len and a
 * known type; it is what a receiver runs first, to learn the type.  Each
 * msg_parse_<type> copies buf (which may be unaligned) into *ret and
 * checks everything of that type: header, exact length, reserved fields,
 * enum ranges, flags, NUL-terminated strings.  All return 0 or -CUZK_E_PROTOCOL
 * (-CUZK_E_VERSION for a version mismatch) with the field named in err.
 * *ret is untouched on failure. */
void msg_init(struct msg_header *hdr, enum msg_type type, uint32_t length,
	      uint64_t request_id);
int msg_parse_header(struct msg_header *ret, const void *buf, size_t len, cuzk_error *err);
int msg_parse_hello(struct msg_hello *ret, const void *buf, size_t len, cuzk_error *err);
int msg_parse_hello_reply(struct msg_hello_reply *ret, const void *buf, size_t len,
			  cuzk_error *err);
int msg_parse_prove(struct msg_prove *ret, const void *buf, size_t len, cuzk_error *err);
int msg_parse_cancel(struct msg_cancel *ret, const void *buf, size_t len, cuzk_error *err);
int msg_parse_status(struct msg_status *ret, const void *buf, size_t len, cuzk_error *err);
int msg_parse_metrics(struct msg_metrics *ret, const void *buf, size_t len,
		      cuzk_error *err);
int msg_parse_reply(struct msg_reply *ret, const void *buf, size_t len, cuzk_error *err);
/* *ret_data points into buf, ret->data_len bytes. */
int msg_parse_text(struct msg_text *ret, const void **ret_data, const void *buf,
		   size_t len, cuzk_error *err);

/* A TEXT answer being reassembled (text.c): the chunks answering
 * request_id, numbered from 0, at most CUZK_TEXT_MAX bytes in all. */
struct text_answer {
	uint64_t request_id;
	uint32_t next_seq;
	size_t len;
	char *text;                 /* malloc'd, NUL-terminated; NULL before the first chunk */
};
void text_init(struct text_answer *t, uint64_t request_id);
/* Adds the TEXT message in buf (len bytes): 1 when it was the last chunk
 * (t->text then holds the whole answer), 0 when more follow, or
 * -CUZK_E_PROTOCOL (not a text message, another request's chunk, out of
 * order, too long) / -CUZK_E_NOMEM.  The caller frees with text_free
 * whatever the outcome, or takes t->text. */
int text_add(struct text_answer *t, const void *buf, size_t len, cuzk_error *err);
void text_free(struct text_answer *t);

/* Fills a REPLY (job_id 0: set it after for an accepted PROVE); message is
 * cut to one line of CUZK_MESSAGE_MAX - 1 bytes (newlines become spaces). */
void msg_reply_init(struct msg_reply *msg, uint64_t request_id, int status,
		    const char *message);

/* The scalar form a request asks for given the witness header's flags:
 * 1 Montgomery, 0 canonical, or -CUZK_E_MISMATCH with the message. */
int msg_prove_scalar_form(const struct msg_prove *req, uint32_t witness_flags,
			  cuzk_error *err);

/* ---- sending and receiving with fds (socket.c) ---- */

/* sendmsg of one packet with up to 3 fds (nfds may be 0), MSG_NOSIGNAL,
 * retrying EINTR.  A packet that would block is -CUZK_E_BUSY when the socket
 * is non-blocking.  0 or -CUZK_E_IO / -CUZK_E_BUSY. */
int msg_send(int sock, const void *msg, size_t len, const int *fds, unsigned nfds,
	     cuzk_error *err);

/* recvmsg of one packet into buf (cap >= CUZK_MSG_MAX) with MSG_CMSG_CLOEXEC.
 * Received fds go to fds[0..*ret_nfds), at most max_fds; when there are more,
 * or the control data was truncated (MSG_CTRUNC), or the packet was (MSG_TRUNC),
 * every received fd is closed and -CUZK_E_FD / -CUZK_E_PROTOCOL returned.
 * *ret_len = 0 means the peer closed.  0 or -CUZK_E_IO/-CUZK_E_FD/-CUZK_E_PROTOCOL. */
int msg_recv(int sock, void *buf, size_t cap, size_t *ret_len, int *fds, unsigned max_fds,
	     unsigned *ret_nfds, cuzk_error *err);

/* The fd part of msg_recv for callers that ran recvmsg themselves (the
 * daemon's io_uring loop): takes the SCM_RIGHTS fds out of mh (its msg_flags
 * already set by the kernel), applying the same rules.  Every fd received is
 * either returned or closed. */
int msg_take_fds(const struct msghdr *mh, int *fds, unsigned max_fds, unsigned *ret_nfds,
		 cuzk_error *err);

/* Control buffer big enough for the 3 fds of a HELLO_REPLY. */
#define CUZK_CMSG_SPACE CMSG_SPACE(3 * sizeof(int))

/* memfd_create(name, flags) sized to size bytes: the fd, or -CUZK_E_IO etc.
 * (memfd.c). */
int memfd_new(const char *name, unsigned int flags, uint64_t size, cuzk_error *err);

/* ---- the completion ring (ring.c) ----
 * Ring memfd: struct ring_ctrl at offset 0 (one page), then ring_slots
 * slots of slot_size bytes.  Each slot: struct ring_rec, then
 * num_partitions * 192 proof bytes.  Indices are free-running u64 counters;
 * slot of index i is i & (ring_slots - 1).
 *   daemon: writes slot tail, then store-release ctrl.tail = tail + 1, then
 *           writes the eventfd.  Before writing it load-acquires head and
 *           requires tail - head < ring_slots and head <= tail (else the client
 *           broke its head: disconnect).
 *   client: load-acquire ctrl.tail; while head < tail: copy slot head out,
 *           check it, store-release head + 1 into the head page.
 * Neither side trusts the other's counter beyond these bounds checks. */
#define CUZK_RING_MAGIC 0x474e5243u     /* bytes "CRNG" */
#define CUZK_RING_SLOTS_OFFSET 4096u
#define CUZK_RING_HEAD_BYTES 4096u
#define CUZK_RING_MAX_SLOTS 4096u

struct ring_ctrl {
	uint32_t magic;             /* CUZK_RING_MAGIC */
	uint32_t version;           /* CUZK_PROTOCOL_VERSION */
	uint32_t ring_slots;
	uint32_t slot_size;
	uint32_t max_partitions;
	uint32_t reserved0;
	uint64_t reserved[5];
	uint64_t tail;              /* offset 64, its own cache line: completions written */
	uint64_t reserved_tail[7];
};

/* At offset 0 of the head memfd. */
struct ring_head {
	uint64_t head;              /* completions consumed by the client */
	uint64_t reserved[7];
};

/* The start of every slot; proofs follow at offset 384. */
struct ring_rec {
	uint64_t request_id;
	uint32_t status;            /* 0 or a CUZK_E_* */
	uint32_t num_partitions;    /* proofs that follow; 0 unless status == 0 */
	uint64_t phase_ns[CUZK_PHASE_SLOTS];  /* enum cuzk_phase; unused slots 0 */
	char message[CUZK_MESSAGE_MAX];       /* NUL-terminated, "" on success */
	uint64_t reserved[2];
};

_Static_assert(sizeof(struct ring_ctrl) == 128, "ring control block");
_Static_assert(sizeof(struct ring_head) == 64, "ring head");
_Static_assert(sizeof(struct ring_rec) == 384, "completion record");
_Static_assert(CUZK_PHASE__COUNT <= CUZK_PHASE_SLOTS, "phases fit the record");

uint32_t ring_slot_size(uint32_t max_partitions);
uint64_t ring_memfd_bytes(uint32_t ring_slots, uint32_t slot_size);
/* ring_slots for a wish: a power of two in [max(min_slots, 1), CUZK_RING_MAX_SLOTS]. */
uint32_t ring_pick_slots(uint32_t wish, uint32_t min_slots);

/* The daemon's side: creates both memfds (named "cuzk-ring" and "cuzk-ring-head"),
 * maps them, writes the control block, seals them (the ring with
 * F_SEAL_FUTURE_WRITE too, so the client can only map it read-only). */
struct ring_producer {
	int ring_fd, head_fd;       /* handed to the client, then the daemon may close them */
	uint8_t *ring;              /* ring_bytes, read-write */
	const struct ring_head *headp;
	uint64_t ring_bytes;
	uint32_t ring_slots, slot_size, max_partitions;
	uint64_t tail;              /* the daemon's own copy; never read back */
};
int ring_producer_create(struct ring_producer *ret, uint32_t ring_slots,
			 uint32_t max_partitions, cuzk_error *err);
void ring_producer_destroy(struct ring_producer *p);
/* Unread completions (tail - head), or -CUZK_E_PROTOCOL when the client's
 * head is out of range. */
int64_t ring_unread(const struct ring_producer *p, cuzk_error *err);
/* Writes one completion: rec (num_partitions set) and num_partitions * 192
 * proof bytes.  -CUZK_E_BUSY when the ring is full, -CUZK_E_PROTOCOL when the
 * client's head is out of range, -CUZK_E_INVAL for too many partitions.  The
 * caller writes the eventfd afterwards. */
int ring_push(struct ring_producer *p, const struct ring_rec *rec,
	      const uint8_t *proofs, cuzk_error *err);

/* The client's side. */
struct ring_consumer {
	const uint8_t *ring;        /* PROT_READ mapping */
	struct ring_head *headp;    /* PROT_READ|PROT_WRITE mapping */
	uint64_t ring_bytes;
	uint32_t ring_slots, slot_size, max_partitions;
	uint64_t head;              /* the client's own copy */
};
/* Maps ring_fd and head_fd as the hello reply describes and checks the control
 * block against it.  The fds are not closed. */
int ring_consumer_open(struct ring_consumer *ret, int ring_fd, int head_fd,
		       const struct msg_hello_reply *hello, cuzk_error *err);
void ring_consumer_close(struct ring_consumer *c);
/* Copies the next completion into *ret_rec and proofs (room for
 * max_partitions * 192 bytes) and advances the head.
 * 1: one taken; 0: ring empty; -CUZK_E_PROTOCOL: the daemon's tail or the
 * record is out of range (partition count, status, unterminated message). */
int ring_pop(struct ring_consumer *c, struct ring_rec *ret_rec, uint8_t *proofs,
	     cuzk_error *err);

#endif
