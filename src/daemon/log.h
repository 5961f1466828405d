// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzkd's log: structured journald records when stderr is the journal
 * (JOURNAL_STREAM names stderr's device and inode), plain stderr lines
 * otherwise.  Thread-safe: workers log too. */
#ifndef CUZK_DAEMON_LOG_H
#define CUZK_DAEMON_LOG_H

#include <pthread.h>
#include <stdint.h>

#include "daemon/conf.h"

/* Optional structured fields of one record; negative numbers and NULL
 * strings are left out. */
struct cuzkd_log_fields {
	int64_t job;               /* CUZK_JOB: the daemon's job id */
	int64_t client_pid, client_uid;
	int worker, gpu;
	const char *phase;
	double ms;                 /* CUZK_MS, when >= 0 */
	int64_t vram_reserved_mb, vram_free_mb;
};
#define CUZKD_LOG_NO_FIELDS { .job = -1, .client_pid = -1, .client_uid = -1, .worker = -1, \
			      .gpu = -1, .ms = -1, .vram_reserved_mb = -1, .vram_free_mb = -1 }

/* Clients tracked apart per rate-limit window; more in one window share the
 * overall budget only. */
#define CUZKD_LOG_CLIENT_SLOTS 64

struct cuzkd_log {
	int journal;               /* 1: sd_journal_send, 0: stderr lines */
	enum cuzkd_log_level level;
	/* Rate limit for what clients can trigger: per window, a budget per
	 * client (keyed by pid; records without one share a key) and one for
	 * all, so that a flooding client silences only itself. */
	pthread_mutex_t lock;
	uint64_t window_start_ns;   /* monotonic_ns() */
	unsigned in_window, suppressed;
	struct cuzkd_log_slot {
		int64_t pid;             /* -1: free */
		unsigned in_window;
	} slot[CUZKD_LOG_CLIENT_SLOTS];
};

void cuzkd_log_init(struct cuzkd_log *log, enum cuzkd_log_level level);
void cuzkd_log_destroy(struct cuzkd_log *log);

/* A record from the daemon itself. f may be NULL. */
void cuzkd_log(struct cuzkd_log *log, int prio, const struct cuzkd_log_fields *f, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A record a client can cause (bad input, limits): rate-limited, with a
 * summary of what was dropped once the window ends. */
void cuzkd_log_client(struct cuzkd_log *log, int prio, const struct cuzkd_log_fields *f, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
