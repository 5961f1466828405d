// SPDX-License-Identifier: Apache-2.0 OR MIT
/* One client connection (docs/PROTOCOL.md), on the loop thread only:
 *   session.c      the connection: accept, receive, dispatch, HELLO, replies, close
 *   prove_request.c  PROVE: admission and the job it becomes
 *   control.c      CANCEL, STATUS and METRICS
 *   completion.c   finished jobs into the client's completion ring
 *
 * Lifetime: a session holds one reference while connected and one per job
 * in the engine; it is freed when the last goes, so a worker's result for
 * a client that left still finds a session to account against, then is
 * dropped. */
#ifndef CUZK_DAEMON_SESSION_H
#define CUZK_DAEMON_SESSION_H

#include <stdint.h>
#include <sys/socket.h>

#include "daemon/accounts.h"
#include "daemon/engine.h"
#include "daemon/log.h"
#include "ipc/protocol.h"

struct cuzkd;

/* Room for more fds than any message may carry, so that two fds are seen
 * and rejected instead of being cut off. */
#define CUZKD_MAX_RECV_FDS 4

enum cuzkd_op_kind {
	CUZKD_OP_ACCEPT, CUZKD_OP_SIGNAL, CUZKD_OP_DONE, CUZKD_OP_TICK, CUZKD_OP_DRAIN,
	CUZKD_OP_RECV, CUZKD_OP_CANCEL, CUZKD_OP_ACCEPT_RETRY
};

/* Every operation in flight in the io_uring carries one as its user_data. */
struct cuzkd_op {
	enum cuzkd_op_kind kind;
	struct cuzkd_session *session;   /* CUZKD_OP_RECV */
};

struct cuzkd_session {
	struct cuzkd *d;
	uint64_t id;
	int fd;
	struct ucred cred;
	char who[64];                    /* "client 1234 (uid 1000)" */
	int hello_done, closing, recv_pending;
	int refused;                     /* CUZK_E_BUSY/SHUTDOWN: answered, closed after one read */
	struct cuzkd_account *acct;      /* its uid's (not for refused connections) */
	int may_prioritize;              /* may submit at critical and high priority */
	int may_trace;                   /* its HELLO asked for CUZK_HELLO_TRACE and got it */
	uint64_t connected_ns, active_ns;   /* connected; last message received */
	unsigned refs;                   /* 1 while connected + 1 per job */
	struct ring_producer ring;
	int ring_ok;
	int efd;                         /* the client's wake-up */
	uint32_t max_inflight;
	struct cuzkd_job *jobs;          /* in the engine, linked by session_next */
	unsigned n_jobs;
	uint64_t pinned_bytes;
	struct cuzkd_op recv_op;
	struct msghdr mh;
	struct iovec iov;
	union {
		/* struct cmsghdr's alignment; the struct itself ends in a flexible
		 * array, which clang rejects in the middle of this struct. */
		size_t align;
		char buf[CMSG_SPACE(CUZKD_MAX_RECV_FDS * sizeof(int))];
	} ctrl;
	uint8_t msg[CUZK_MSG_MAX];
	struct cuzkd_session *next, *prev;
};

_Static_assert(_Alignof(size_t) >= _Alignof(struct cmsghdr), "control buffer alignment");

/* session.c: the daemon's side. */
int cuzkd_session_new(struct cuzkd *d, int fd);
void cuzkd_session_on_recv(struct cuzkd_session *s, int res);
/* Stops reading, cancels its jobs; freed when the last job comes back. */
void cuzkd_session_close(struct cuzkd_session *s, const char *why);
void cuzkd_session_unref(struct cuzkd_session *s);

/* Closes connections that held their slot too long without HELLO
 * (hello_timeout) or without using it (idle_timeout); on every tick. */
void cuzkd_sessions_sweep(struct cuzkd *d);

/* completion.c */
/* A finished job: writes the completion into its session's ring. */
void cuzkd_session_complete(struct cuzkd *d, struct cuzkd_job *job);
/* Drain timeout: writes a CUZK_E_SHUTDOWN completion for every job still in
 * flight (workers may still hold them: nothing is freed). */
void cuzkd_sessions_abandon(struct cuzkd *d);

/* Shared by the request handlers. */
struct cuzkd_log_fields cuzkd_session_fields(const struct cuzkd_session *s);
/* Sends one message; a client that does not read its socket is dropped. */
int cuzkd_session_send(struct cuzkd_session *s, const void *msg, size_t len, const int *fds, unsigned nfds);
void cuzkd_session_reply(struct cuzkd_session *s, uint64_t request_id, int status, const char *message);
/* A rejected request: answered with err (its message begins with the
 * client's name, added when missing), counted, logged (rate-limited). */
void cuzkd_session_reject(struct cuzkd_session *s, uint64_t request_id, cuzk_error *err);
/* This connection's request in flight with that id, or NULL. */
struct cuzkd_job *cuzkd_session_job(struct cuzkd_session *s, uint64_t request_id);
/* The request id of a message whose body failed to parse, for the reply
 * (0 when even the header is unreadable). */
uint64_t cuzkd_msg_request_id(const void *buf, size_t len);

/* The request handlers; buf/len is the whole message. */
void cuzkd_on_prove(struct cuzkd_session *s, const void *buf, size_t len, const int *fds, unsigned nfds,
		    const cuzk_error *fd_err, uint64_t t_recv);
void cuzkd_on_cancel(struct cuzkd_session *s, const void *buf, size_t len);
void cuzkd_on_text_request(struct cuzkd_session *s, const struct msg_header *h, const void *buf, size_t len);
/* Frees a job the loop created (its witness reference, its proofs). */
void cuzkd_job_free(struct cuzkd *d, struct cuzkd_job *job);

#endif
