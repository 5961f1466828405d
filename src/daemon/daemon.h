// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzkd: one object that owns everything (no global mutable state) and
 * one io_uring loop that drives it.
 *
 * The loop thread owns sessions, rings, the registration cache and the
 * limits' counters; workers (engine.c) only prove and post finished jobs
 * back through an eventfd.  Every operation in flight in the ring carries a
 * struct cuzkd_op as its user_data. */
#ifndef CUZK_DAEMON_DAEMON_H
#define CUZK_DAEMON_DAEMON_H

#include <liburing.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/socket.h>

#include "daemon/conf.h"
#include "daemon/engine.h"
#include "daemon/log.h"
#include "daemon/regcache.h"
#include "daemon/srs_cache.h"
#include "daemon/witness.h"
#include "ipc/protocol.h"

enum cuzkd_op_kind {
	CUZKD_OP_ACCEPT, CUZKD_OP_SIGNAL, CUZKD_OP_DONE, CUZKD_OP_TICK, CUZKD_OP_DRAIN,
	CUZKD_OP_RECV, CUZKD_OP_CANCEL, CUZKD_OP_ACCEPT_RETRY
};

struct cuzkd_session;

struct cuzkd_op {
	enum cuzkd_op_kind kind;
	struct cuzkd_session *session;   /* CUZKD_OP_RECV */
};

/* Room for more fds than any message may carry, so that two fds are seen
 * and rejected instead of being cut off. */
#define CUZKD_MAX_RECV_FDS 4

struct cuzkd_session {
	struct cuzkd *d;
	uint64_t id;
	int fd;
	struct ucred cred;
	char who[64];                    /* "client 1234 (uid 1000)" */
	int hello_done, closing, recv_pending;
	int refused;                     /* CUZK_E_BUSY/SHUTDOWN: answered, closed after one read */
	unsigned refs;                   /* 1 while connected + 1 per job */
	struct cuzk_ring_producer ring;
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

struct cuzkd_stats {                     /* loop-side counters for metrics */
	uint64_t connections, rejected_connections, requests, rejected[32];
	uint64_t disconnects_misbehaving;
};

struct cuzkd {
	struct cuzkd_config cfg;
	struct cuzkd_log log;
	struct cuzkd_srs_cache srs;
	struct cuzkd_regcache reg;
	struct cuzkd_engine engine;
	int engine_started, use_gpu;
	struct io_uring ring;
	int ring_ok;
	/* Completions taken out of the ring, in order, not handled yet: taking
	 * them frees the completion queue, which a submission may need (see
	 * cuzkd_sqe). */
	struct cuzkd_cqe {
		void *op;
		int res;
		unsigned flags;
	} *backlog;
	size_t backlog_n, backlog_cap;
	int listen_fd, sig_fd;
	int activated;                   /* the socket came from systemd */
	int multishot_accept, accept_armed;
	int draining, quit, abandon;
	uint64_t watchdog_usec;
	struct cuzkd_session *sessions;
	unsigned n_sessions;             /* accepted ones; refused ones apart */
	unsigned n_refused;
	uint64_t next_session_id;
	unsigned inflight_total;
	uint64_t started_ns;
	char last_status[256];
	struct cuzkd_stats stats;
	/* Operations that live as long as the daemon. */
	struct cuzkd_op accept_op, signal_op, done_op, tick_op, drain_op, cancel_op, accept_retry_op;
	struct signalfd_siginfo siginfo;
	uint64_t done_count;
	struct __kernel_timespec tick_ts, drain_ts, accept_retry_ts;
};

/* loop.c */
int cuzkd_loop_init(struct cuzkd *d, cuzk_error *err);
int cuzkd_loop_run(struct cuzkd *d, cuzk_error *err);
void cuzkd_loop_destroy(struct cuzkd *d);
/* An SQE to fill; submits queued ones first when the queue is full. */
struct io_uring_sqe *cuzkd_sqe(struct cuzkd *d);

/* session.c */
int cuzkd_session_new(struct cuzkd *d, int fd);
void cuzkd_session_on_recv(struct cuzkd_session *s, int res);
/* Stops reading, cancels its jobs; freed when the last job comes back. */
void cuzkd_session_close(struct cuzkd_session *s, const char *why);
/* A finished job: writes the completion into its session's ring. */
void cuzkd_session_complete(struct cuzkd *d, struct cuzkd_job *job);
void cuzkd_session_unref(struct cuzkd_session *s);
/* Drain timeout: writes a CUZK_E_SHUTDOWN completion for every job still in
 * flight (workers may still hold them: nothing is freed). */
void cuzkd_sessions_abandon(struct cuzkd *d);

/* status.c */
/* The status text (format = enum cuzk_status_format) or Prometheus metrics,
 * malloc'd; NULL when out of memory. */
char *cuzkd_status_text(struct cuzkd *d, int json);
char *cuzkd_metrics_text(struct cuzkd *d);
/* One line for systemd's STATUS=. */
void cuzkd_status_line(struct cuzkd *d, char *buf, size_t len);

#endif
