// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The io_uring event loop: accept, recvmsg (session.c), the engine's
 * eventfd, signals through a signalfd, and two timers (status/watchdog tick,
 * drain deadline).  Handlers only queue SQEs; the loop submits them once per
 * pass, right before it sleeps. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "daemon/daemon.h"

enum { RING_ENTRIES = 256, STATUS_PERIOD_MS = 5000, ACCEPT_RETRY_MS = 100 };

/* Moves every completion in the ring to the backlog.  Returns how many, or
 * -1 when the backlog cannot grow (they then stay in the ring). */
static int reap(struct cuzkd *d)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0, ready = io_uring_cq_ready(&d->ring);

	if (!ready)
		return 0;
	if (d->backlog_n + ready > d->backlog_cap) {
		size_t cap = d->backlog_cap ? d->backlog_cap : 64;
		struct cuzkd_cqe *b;
		while (cap < d->backlog_n + ready)
			cap *= 2;
		b = realloc(d->backlog, cap * sizeof(*b));
		if (!b)
			return -1;
		d->backlog = b;
		d->backlog_cap = cap;
	}
	/* Only the `ready` the backlog has room for: io_uring_for_each_cqe
	 * reads the kernel's tail on every step, and completions that the
	 * kernel posts meanwhile would run past the backlog (they stay in the
	 * ring for the next reap). */
	io_uring_for_each_cqe(&d->ring, head, cqe) {
		if (n == ready)
			break;
		d->backlog[d->backlog_n + n] =
			(struct cuzkd_cqe){ io_uring_cqe_get_data(cqe), cqe->res, cqe->flags };
		n++;
	}
	io_uring_cq_advance(&d->ring, n);
	d->backlog_n += n;
	return (int)n;
}

struct io_uring_sqe *cuzkd_sqe(struct cuzkd *d)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->ring);

	while (!sqe) {
		/* The SQ is full: hand what is queued to the kernel first.  It
		 * refuses (EBUSY) while completions it could not post wait for
		 * room in the completion queue: make room by taking those in
		 * the ring into the backlog, and when there are none, sleep
		 * until one comes rather than spin. */
		int r = io_uring_submit(&d->ring), n;
		if (r < 0 && r != -EINTR && (n = reap(d)) <= 0) {
			struct io_uring_cqe *cqe;
			if (n == 0 && io_uring_wait_cqe(&d->ring, &cqe) == 0)
				n = reap(d);
			if (n < 0) {
				/* No memory for a few more completions: nothing can
				 * go on, and spinning would hide it; systemd restarts
				 * the service. */
				cuzkd_log(&d->log, CUZKD_LOG_ERR, NULL, "out of memory for the event loop's completions");
				abort();
			}
		}
		sqe = io_uring_get_sqe(&d->ring);
	}
	return sqe;
}

static void arm_accept(struct cuzkd *d)
{
	struct io_uring_sqe *sqe = cuzkd_sqe(d);

	if (d->multishot_accept)
		io_uring_prep_multishot_accept(sqe, d->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	else
		io_uring_prep_accept(sqe, d->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	io_uring_sqe_set_data(sqe, &d->accept_op);
	d->accept_armed = 1;
}

static void arm_signal(struct cuzkd *d)
{
	struct io_uring_sqe *sqe = cuzkd_sqe(d);

	io_uring_prep_read(sqe, d->sig_fd, &d->siginfo, sizeof(d->siginfo), 0);
	io_uring_sqe_set_data(sqe, &d->signal_op);
}

static void arm_done(struct cuzkd *d)
{
	struct io_uring_sqe *sqe = cuzkd_sqe(d);

	io_uring_prep_read(sqe, d->engine.done_efd, &d->done_count, sizeof(d->done_count), 0);
	io_uring_sqe_set_data(sqe, &d->done_op);
}

static void arm_timer(struct cuzkd *d, struct cuzkd_op *op, struct __kernel_timespec *ts, uint64_t ms)
{
	struct io_uring_sqe *sqe = cuzkd_sqe(d);

	ts->tv_sec = (long long)(ms / 1000);
	ts->tv_nsec = (long long)(ms % 1000) * 1000000;
	io_uring_prep_timeout(sqe, ts, 0, 0);
	io_uring_sqe_set_data(sqe, op);
}

/* The tick: the period of STATUS= updates, or less: half the watchdog
 * interval when systemd asks for one, half of each connection timeout (so
 * that a connection is closed within 1.5 times its timeout). */
static uint64_t tick_ms(const struct cuzkd *d)
{
	const uint64_t halves[] = { d->watchdog_usec / 2000, d->cfg.hello_timeout_ms / 2, d->cfg.idle_timeout_ms / 2 };
	uint64_t ms = STATUS_PERIOD_MS;

	for (size_t i = 0; i < sizeof(halves) / sizeof(halves[0]); i++)
		if (halves[i] && halves[i] < ms)
			ms = halves[i];
	return ms ? ms : 1;
}

static void notify_status(struct cuzkd *d)
{
	char line[256];

	cuzkd_status_line(d, line, sizeof(line));
	if (strcmp(line, d->last_status) == 0)
		return;
	memcpy(d->last_status, line, sizeof(line));
	sd_notifyf(0, "STATUS=%s", line);
}

static void on_tick(struct cuzkd *d)
{
	if (d->watchdog_usec)
		sd_notify(0, "WATCHDOG=1");
	cuzkd_sessions_sweep(d);
	notify_status(d);
	arm_timer(d, &d->tick_op, &d->tick_ts, tick_ms(d));
}

static void start_drain(struct cuzkd *d)
{
	struct io_uring_sqe *sqe;

	if (d->draining)
		return;
	d->draining = 1;
	sd_notify(0, "STOPPING=1\nSTATUS=draining: no new requests");
	cuzkd_log(&d->log, CUZKD_LOG_NOTICE, NULL,
		  "draining (SIGTERM): no new requests, %u in flight get %llu ms to finish", d->inflight_total,
		  (unsigned long long)d->cfg.drain_timeout_ms);
	if (d->accept_armed) {
		sqe = cuzkd_sqe(d);
		io_uring_prep_cancel(sqe, &d->accept_op, 0);
		io_uring_sqe_set_data(sqe, &d->cancel_op);
		io_uring_submit(&d->ring);
	}
	/* New clients get "connection refused" rather than a socket nobody
	 * answers; under systemd, cuzkd.socket keeps listening and queues them
	 * for the next start. */
	if (d->listen_fd >= 0) {
		close(d->listen_fd);
		d->listen_fd = -1;
		if (!d->activated)
			unlink(d->cfg.socket);
	}
	cuzkd_engine_drain(&d->engine, CUZK_E_SHUTDOWN, "the daemon is shutting down; the request had not started");
	arm_timer(d, &d->drain_op, &d->drain_ts, d->cfg.drain_timeout_ms);
}

static void on_signal(struct cuzkd *d, int res)
{
	if (res != (int)sizeof(d->siginfo)) {
		cuzkd_log(&d->log, CUZKD_LOG_ERR, NULL, "signalfd read failed: %s", strerror(res < 0 ? -res : EIO));
		d->quit = 1;
		return;
	}
	switch (d->siginfo.ssi_signo) {
	case SIGHUP:
		cuzkd_log(&d->log, CUZKD_LOG_NOTICE, NULL,
			  "SIGHUP: not a reload; restart cuzkd to apply a new configuration");
		break;
	default:
		cuzkd_log(&d->log, CUZKD_LOG_NOTICE, NULL, "%s received from pid %u",
			  strsignal((int)d->siginfo.ssi_signo), d->siginfo.ssi_pid);
		start_drain(d);
		break;
	}
	arm_signal(d);
}

static void on_done(struct cuzkd *d, int res)
{
	struct cuzkd_job *job = cuzkd_engine_take_done(&d->engine);

	while (job) {
		struct cuzkd_job *next = job->done_next;
		cuzkd_session_complete(d, job);
		job = next;
	}
	if (res < 0 && res != -EAGAIN && res != -EINTR) {
		cuzkd_log(&d->log, CUZKD_LOG_ERR, NULL, "engine eventfd read failed: %s", strerror(-res));
		d->quit = 1;
		return;
	}
	arm_done(d);
}

static void on_accept(struct cuzkd *d, int res, unsigned flags)
{
	if (!(flags & IORING_CQE_F_MORE))
		d->accept_armed = 0;
	if (res >= 0) {
		cuzkd_session_new(d, res);
	} else if (res == -EINVAL && d->multishot_accept) {
		/* An older kernel: no multishot accept; one SQE per connection. */
		d->multishot_accept = 0;
	} else if (res != -ECANCELED) {
		/* EMFILE, ENOMEM...: retrying at once would spin; try again shortly. */
		cuzkd_log_client(&d->log, CUZKD_LOG_WARNING, NULL, "accept: %s; retrying in %d ms", strerror(-res),
				 ACCEPT_RETRY_MS);
		if (!d->accept_armed && !d->draining)
			arm_timer(d, &d->accept_retry_op, &d->accept_retry_ts, ACCEPT_RETRY_MS);
		return;
	}
	if (!d->accept_armed && !d->draining)
		arm_accept(d);
}

static void on_drain_timeout(struct cuzkd *d)
{
	if (!d->inflight_total)
		return;
	cuzkd_log(&d->log, CUZKD_LOG_WARNING, NULL,
		  "drain timeout (%llu ms): failing %u requests still in flight",
		  (unsigned long long)d->cfg.drain_timeout_ms, d->inflight_total);
	cuzkd_sessions_abandon(d);
	d->abandon = 1;
	d->quit = 1;
}

static void handle(struct cuzkd *d, const struct cuzkd_cqe *cqe)
{
	struct cuzkd_op *op = cqe->op;

	switch (op->kind) {
	case CUZKD_OP_ACCEPT:
		on_accept(d, cqe->res, cqe->flags);
		break;
	case CUZKD_OP_SIGNAL:
		on_signal(d, cqe->res);
		break;
	case CUZKD_OP_DONE:
		on_done(d, cqe->res);
		break;
	case CUZKD_OP_TICK:
		on_tick(d);
		break;
	case CUZKD_OP_DRAIN:
		on_drain_timeout(d);
		break;
	case CUZKD_OP_ACCEPT_RETRY:
		if (!d->accept_armed && !d->draining && d->listen_fd >= 0)
			arm_accept(d);
		break;
	case CUZKD_OP_RECV:
		cuzkd_session_on_recv(op->session, cqe->res);
		break;
	case CUZKD_OP_CANCEL:
		break;
	}
}

/* CUZKD_TEST_RING_ENTRIES (tests only) shrinks the ring so that full
 * submission and completion queues happen with a handful of clients. */
static unsigned ring_entries(void)
{
	const char *e = getenv("CUZKD_TEST_RING_ENTRIES");
	unsigned long n = e ? strtoul(e, NULL, 10) : 0;

	return n >= 1 && n <= RING_ENTRIES ? (unsigned)n : RING_ENTRIES;
}

int cuzkd_loop_init(struct cuzkd *d, cuzk_error *err)
{
	sigset_t mask;
	int r;

	d->listen_fd = d->sig_fd = -1;
	d->accept_op.kind = CUZKD_OP_ACCEPT;
	d->signal_op.kind = CUZKD_OP_SIGNAL;
	d->done_op.kind = CUZKD_OP_DONE;
	d->tick_op.kind = CUZKD_OP_TICK;
	d->drain_op.kind = CUZKD_OP_DRAIN;
	d->cancel_op.kind = CUZKD_OP_CANCEL;
	d->accept_retry_op.kind = CUZKD_OP_ACCEPT_RETRY;
	d->multishot_accept = 1;
	/* Blocked here, before any thread starts, so that every thread inherits
	 * the mask and the signals only ever arrive through the signalfd. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	r = pthread_sigmask(SIG_BLOCK, &mask, NULL);
	if (r)
		return err_fail_errno(err, r, "pthread_sigmask");
	signal(SIGPIPE, SIG_IGN);
	d->sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d->sig_fd < 0)
		return err_fail_errno(err, errno, "signalfd");
	r = io_uring_queue_init(ring_entries(), &d->ring, 0);
	if (r < 0)
		return err_fail_errno(err, -r, "io_uring_queue_init");
	d->ring_ok = 1;
	return 0;
}

int cuzkd_loop_run(struct cuzkd *d, cuzk_error *err)
{
	uint64_t wd_usec = 0;

	if (d->cfg.watchdog && sd_watchdog_enabled(0, &wd_usec) > 0)
		d->watchdog_usec = wd_usec;
	arm_accept(d);
	arm_signal(d);
	arm_done(d);
	arm_timer(d, &d->tick_op, &d->tick_ts, tick_ms(d));
	cuzkd_status_line(d, d->last_status, sizeof(d->last_status));
	sd_notifyf(0, "READY=1\nSTATUS=%s", d->last_status);
	cuzkd_log(&d->log, CUZKD_LOG_INFO, NULL, "ready: %u workers on %u %s devices", d->engine.n_workers,
		  d->engine.n_devices, d->be->name);
	while (!d->quit) {
		int r;

		if (d->draining && d->inflight_total == 0)
			break;
		/* Before sleep: everything the handlers queued goes in one call. */
		r = io_uring_submit_and_wait(&d->ring, 1);
		if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
			return err_fail_errno(err, -r, "io_uring_submit_and_wait");
		if (reap(d) < 0)
			return err_fail(err, CUZK_E_NOMEM, "out of memory for %u completions of the event loop",
					io_uring_cq_ready(&d->ring));
		/* Handlers may reap more (cuzkd_sqe): they join the backlog's end. */
		for (size_t i = 0; i < d->backlog_n; i++) {
			struct cuzkd_cqe cqe = d->backlog[i];
			handle(d, &cqe);
		}
		d->backlog_n = 0;
	}
	cuzkd_log(&d->log, CUZKD_LOG_NOTICE, NULL, "stopped%s", d->abandon ? " (requests abandoned)" : "");
	return 0;
}

void cuzkd_loop_destroy(struct cuzkd *d)
{
	if (d->ring_ok)
		io_uring_queue_exit(&d->ring);
	d->ring_ok = 0;
	free(d->backlog);
	d->backlog = NULL;
	d->backlog_n = d->backlog_cap = 0;
	if (d->sig_fd >= 0)
		close(d->sig_fd);
	if (d->listen_fd >= 0)
		close(d->listen_fd);
	d->sig_fd = d->listen_fd = -1;
}
