// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzkd: one object that owns everything (no global mutable state) and
 * one io_uring loop that drives it.
 *
 * The loop thread owns sessions, rings, the registration cache and the
 * limits' counters; workers (engine.c) only prove and post finished jobs
 * back through an eventfd. */
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
#include "daemon/session.h"
#include "daemon/srs_cache.h"
#include "daemon/witness.h"
#include "ipc/protocol.h"

struct cuzkd_stats {                     /* loop-side counters for metrics */
	uint64_t connections, rejected_connections, requests, rejected[32];
	uint64_t disconnects_misbehaving, timeouts;
	uint64_t traces_written, traces_failed;
};

struct cuzkd {
	struct cuzkd_config cfg;
	struct cuzkd_log log;
	struct cuzkd_srs_cache srs;
	struct cuzkd_regcache reg;
	struct cuzkd_engine engine;
	int engine_started;
	const struct groth16_backend *be;
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
	struct cuzkd_accounts accounts;  /* per uid */
	gid_t own_gid;                   /* priority_groups' "self" */
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

/* status.c */
/* The status text (format = enum cuzk_status_format) or Prometheus metrics,
 * malloc'd; NULL when out of memory. */
char *cuzkd_status_text(struct cuzkd *d, int json);
char *cuzkd_metrics_text(struct cuzkd *d);
/* One line for systemd's STATUS=. */
void cuzkd_status_line(struct cuzkd *d, char *buf, size_t len);

#endif
