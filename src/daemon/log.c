// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Logging to journald or stderr (see log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "common/clock.h"
#include "daemon/log.h"

/* Client-triggered records per window: at most CLIENT_BURST from one client,
 * TOTAL_BURST from all. */
enum { CLIENT_BURST = 20, TOTAL_BURST = 100, RATE_WINDOW_S = 10 };

static int stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(STDERR_FILENO, &st) < 0)
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void cuzkd_log_init(struct cuzkd_log *log, enum cuzkd_log_level level)
{
	memset(log, 0, sizeof(*log));
	log->journal = stderr_is_journal();
	log->level = level;
	pthread_mutex_init(&log->lock, NULL);
	log->window_start_ns = monotonic_ns();
	for (int i = 0; i < CUZKD_LOG_CLIENT_SLOTS; i++)
		log->slot[i].pid = -1;
}

/* The window's count of this client's records, under the lock; NULL when
 * every slot is taken by other clients this window. */
static unsigned *client_count(struct cuzkd_log *log, int64_t pid)
{
	struct cuzkd_log_slot *free_slot = NULL;

	for (int i = 0; i < CUZKD_LOG_CLIENT_SLOTS; i++) {
		if (log->slot[i].pid == pid)
			return &log->slot[i].in_window;
		if (log->slot[i].pid == -1 && !free_slot)
			free_slot = &log->slot[i];
	}
	if (!free_slot)
		return NULL;
	free_slot->pid = pid;
	free_slot->in_window = 0;
	return &free_slot->in_window;
}

void cuzkd_log_destroy(struct cuzkd_log *log)
{
	pthread_mutex_destroy(&log->lock);
}

/* One journal field "NAME=value" in its own buffer. */
struct field_buf {
	char text[96];
};

static void emit(struct cuzkd_log *log, int prio, const struct cuzkd_log_fields *f, const char *msg)
{
	struct field_buf fb[12];
	struct iovec iov[16];
	char message[CUZK_ERRMSG_MAX + 32];
	int n = 0, nf = 0;

	if (!log->journal) {
		char extra[160] = "";
		if (f && f->job >= 0)
			snprintf(extra, sizeof(extra), " [job %lld]", (long long)f->job);
		fprintf(stderr, "cuzkd: %s%s\n", msg, extra);
		return;
	}
	snprintf(message, sizeof(message), "MESSAGE=%s", msg);
	iov[n++] = (struct iovec){ message, strlen(message) };
#define FIELD(...)                                                                     \
	do {                                                                           \
		snprintf(fb[nf].text, sizeof(fb[nf].text), __VA_ARGS__);               \
		iov[n++] = (struct iovec){ fb[nf].text, strlen(fb[nf].text) };         \
		nf++;                                                                  \
	} while (0)
	FIELD("PRIORITY=%d", prio);
	if (f) {
		if (f->job >= 0)
			FIELD("CUZK_JOB=%lld", (long long)f->job);
		if (f->client_pid >= 0)
			FIELD("CUZK_CLIENT_PID=%lld", (long long)f->client_pid);
		if (f->client_uid >= 0)
			FIELD("CUZK_CLIENT_UID=%lld", (long long)f->client_uid);
		if (f->worker >= 0)
			FIELD("CUZK_WORKER=%d", f->worker);
		if (f->gpu >= 0)
			FIELD("CUZK_GPU=%d", f->gpu);
		if (f->phase)
			FIELD("CUZK_PHASE=%.64s", f->phase);
		if (f->ms >= 0)
			FIELD("CUZK_MS=%.3f", f->ms);
		if (f->vram_reserved_mb >= 0)
			FIELD("CUZK_VRAM_RESERVED_MB=%lld", (long long)f->vram_reserved_mb);
		if (f->vram_free_mb >= 0)
			FIELD("CUZK_VRAM_FREE_MB=%lld", (long long)f->vram_free_mb);
	}
#undef FIELD
	if (sd_journal_sendv(iov, n) < 0)
		fprintf(stderr, "cuzkd: %s\n", msg);
}

static void vlog(struct cuzkd_log *log, int prio, const struct cuzkd_log_fields *f, const char *fmt,
		 va_list ap)
{
	char msg[CUZK_ERRMSG_MAX];

	if (prio > (int)log->level)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	emit(log, prio, f, msg);
}

void cuzkd_log(struct cuzkd_log *log, int prio, const struct cuzkd_log_fields *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(log, prio, f, fmt, ap);
	va_end(ap);
}

void cuzkd_log_client(struct cuzkd_log *log, int prio, const struct cuzkd_log_fields *f, const char *fmt, ...)
{
	uint64_t now;
	unsigned dropped = 0;
	int pass;
	va_list ap;

	/* Records below the level cost nothing and must not use up the budget. */
	if (prio > (int)log->level)
		return;
	now = monotonic_ns();
	pthread_mutex_lock(&log->lock);
	if (now - log->window_start_ns >= RATE_WINDOW_S * UINT64_C(1000000000)) {
		dropped = log->suppressed;
		log->window_start_ns = now;
		log->in_window = 0;
		log->suppressed = 0;
		for (int i = 0; i < CUZKD_LOG_CLIENT_SLOTS; i++)
			log->slot[i].pid = -1;
	}
	{
		/* Records that name no client (accept errors) share one key. */
		unsigned *mine = client_count(log, f && f->client_pid >= 0 ? f->client_pid : -2);
		pass = log->in_window < TOTAL_BURST && (!mine || *mine < CLIENT_BURST);
		if (pass) {
			log->in_window++;
			if (mine)
				(*mine)++;
		} else {
			log->suppressed++;
		}
	}
	pthread_mutex_unlock(&log->lock);
	if (dropped)
		cuzkd_log(log, CUZKD_LOG_WARNING, NULL,
			  "%u client-triggered log records suppressed in the last %d s", dropped, RATE_WINDOW_S);
	if (!pass)
		return;
	va_start(ap, fmt);
	vlog(log, prio, f, fmt, ap);
	va_end(ap);
}
