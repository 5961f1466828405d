// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The file's writing thread and its ring of buffers (async_writer.h).
 *
 * Buffers are handed over in sequence: buffer number s (counted from 0 for
 * the whole file) lives in slot s % nbufs.  The caller fills slot
 * `queued % nbufs`; the thread writes slots `written % nbufs` up to
 * `queued`.  The caller may fill a slot only once the thread is done with
 * it (queued - written < nbufs), so a slot always has one owner, and the
 * mutex that moves the counters also orders the bytes between them. */
#include "formats/async_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"

struct slot {
	uint8_t *data;
	size_t len;
};

struct async_writer {
	int fd;
	char *path;
	size_t nbufs, cap;
	struct slot *slot;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work;      /* a buffer was queued, or closing: the thread's */
	pthread_cond_t freed;     /* a buffer was written, or a write failed: the caller's */
	/* The caller's alone (read by get_stats on the caller's thread): */
	uint64_t filled;          /* bytes filled */
	uint64_t blocked_ns;      /* submit waiting for a free buffer */
	/* Under mu: */
	uint64_t queued, written; /* buffers handed over, buffers written */
	uint64_t write_ns;        /* the thread in write(2) */
	int closing;
	int err_no;               /* the first failed write's errno, 0 if none */
	uint64_t err_offset;
	size_t err_len;
	/* The thread's alone: */
	uint64_t offset;          /* bytes written */
};

/* len bytes at the file's end, whatever the kernel's short writes.  0 or
 * an errno (a write of 0 bytes, which a regular file never gives, counts
 * as EIO rather than looping for ever). */
static int write_full(int fd, const uint8_t *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void *writer_main(void *arg)
{
	async_writer *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->written == w->queued && !w->closing)
			pthread_cond_wait(&w->work, &w->mu);
		if (w->written == w->queued)
			break;
		const struct slot *s = &w->slot[w->written % w->nbufs];
		pthread_mutex_unlock(&w->mu);
		uint64_t t0 = monotonic_ns();
		int e = write_full(w->fd, s->data, s->len);
		uint64_t t1 = monotonic_ns();
		pthread_mutex_lock(&w->mu);
		w->write_ns += t1 - t0;
		if (e) {
			/* Nothing after a failed write: the file ends where the
			 * error says, and the caller hears of it. */
			w->err_no = e;
			w->err_offset = w->offset;
			w->err_len = s->len;
			pthread_cond_signal(&w->freed);
			break;
		}
		w->offset += s->len;
		w->written++;
		pthread_cond_signal(&w->freed);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* With mu held, or once the thread has ended. */
static int write_error(const async_writer *w, cuzk_error *err)
{
	return err_fail_errno(err, w->err_no, "%s: writing %zu bytes at offset %" PRIu64, w->path, w->err_len,
			      w->err_offset);
}

static void free_slots(async_writer *w)
{
	for (size_t i = 0; w->slot && i < w->nbufs; i++)
		free(w->slot[i].data);
	free(w->slot);
	free(w->path);
	free(w);
}

int async_writer_open(async_writer **ret, const char *path, size_t nbufs, size_t buf_bytes, cuzk_error *err)
{
	if (nbufs < 2 || buf_bytes < 1)
		return err_fail(err, CUZK_E_INVAL, "%s: %zu buffers of %zu bytes", path, nbufs, buf_bytes);
	async_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return err_fail(err, CUZK_E_NOMEM, "%s: out of memory for the writer", path);
	w->nbufs = nbufs;
	w->cap = buf_bytes;
	w->path = strdup(path);
	w->slot = calloc(nbufs, sizeof(*w->slot));
	int ok = w->path && w->slot;
	for (size_t i = 0; ok && i < nbufs; i++)
		ok = (w->slot[i].data = malloc(buf_bytes)) != NULL;
	if (!ok) {
		free_slots(w);
		return err_fail(err, CUZK_E_NOMEM, "%s: out of memory for %zu buffers of %zu bytes", path, nbufs,
				buf_bytes);
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (w->fd < 0) {
		int rc = err_fail_errno(err, errno, "%s: open for writing", path);
		free_slots(w);
		return rc;
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->freed, NULL);
	int e = pthread_create(&w->thread, NULL, writer_main, w);
	if (e) {
		int rc = err_fail_errno(err, e, "%s: starting the writing thread", path);
		pthread_cond_destroy(&w->freed);
		pthread_cond_destroy(&w->work);
		pthread_mutex_destroy(&w->mu);
		close(w->fd);
		free_slots(w);
		return rc;
	}
	*ret = w;
	return 0;
}

/* The caller's slot: queued is the caller's to change, so it reads it
 * without the lock. */
static struct slot *filling(async_writer *w)
{
	return &w->slot[w->queued % w->nbufs];
}

uint8_t *async_writer_room(async_writer *w, size_t *ret_len)
{
	struct slot *s = filling(w);
	*ret_len = w->cap - s->len;
	return s->data + s->len;
}

void async_writer_fill(async_writer *w, size_t n)
{
	filling(w)->len += n;
	w->filled += n;
}

int async_writer_submit(async_writer *w, cuzk_error *err)
{
	int rc = 0;
	pthread_mutex_lock(&w->mu);
	if (!w->err_no && filling(w)->len > 0) {
		w->queued++;
		pthread_cond_signal(&w->work);
		/* The clock only when the caller does wait: the usual submit
		 * finds a buffer free. */
		if (w->queued - w->written >= w->nbufs && !w->err_no) {
			uint64_t t0 = monotonic_ns();
			while (w->queued - w->written >= w->nbufs && !w->err_no)
				pthread_cond_wait(&w->freed, &w->mu);
			w->blocked_ns += monotonic_ns() - t0;
		}
		filling(w)->len = 0;
	}
	if (w->err_no)
		rc = write_error(w, err);
	pthread_mutex_unlock(&w->mu);
	return rc;
}

int async_writer_check(async_writer *w, cuzk_error *err)
{
	pthread_mutex_lock(&w->mu);
	int rc = w->err_no ? write_error(w, err) : 0;
	pthread_mutex_unlock(&w->mu);
	return rc;
}

/* With mu held, or once the thread has ended. */
static void stats_of(const async_writer *w, async_writer_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->bytes = w->filled;
	ret->buffers = w->queued;
	ret->blocked_ms = (double)w->blocked_ns / 1e6;
	ret->write_ms = (double)w->write_ns / 1e6;
}

void async_writer_get_stats(async_writer *w, async_writer_stats *ret)
{
	pthread_mutex_lock(&w->mu);
	stats_of(w, ret);
	pthread_mutex_unlock(&w->mu);
}

int async_writer_close(async_writer *w, cuzk_error *err)
{
	return async_writer_finish(w, 0, NULL, err);
}

int async_writer_finish(async_writer *w, unsigned flags, async_writer_stats *ret_stats, cuzk_error *err)
{
	async_writer_stats st = { 0 };
	if (!w) {
		if (ret_stats)
			*ret_stats = st;
		return 0;
	}
	uint64_t t0 = monotonic_ns();
	pthread_mutex_lock(&w->mu);
	if (!w->err_no && filling(w)->len > 0)
		w->queued++;
	w->closing = 1;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	uint64_t t1 = monotonic_ns();
	int rc = w->err_no ? write_error(w, err) : 0;
	/* Only a file whose every write went through is worth making
	 * durable. */
	if ((flags & ASYNC_WRITER_FSYNC) && rc == 0 && fsync(w->fd) < 0)
		rc = err_fail_errno(err, errno, "%s: fsync after writing %" PRIu64 " bytes", w->path, w->offset);
	uint64_t t2 = monotonic_ns();
	/* close(2) may report a write-back error (NFS, a full quota): it
	 * counts, unless a write failed first. */
	if (close(w->fd) < 0 && rc == 0)
		rc = err_fail_errno(err, errno, "%s: close after writing %" PRIu64 " bytes", w->path, w->offset);
	uint64_t t3 = monotonic_ns();
	stats_of(w, &st);
	st.drain_ms = (double)(t1 - t0) / 1e6;
	st.sync_ms = flags & ASYNC_WRITER_FSYNC ? (double)(t2 - t1) / 1e6 : 0;
	st.close_ms = (double)(t3 - t2) / 1e6;
	if (ret_stats)
		*ret_stats = st;
	pthread_cond_destroy(&w->freed);
	pthread_cond_destroy(&w->work);
	pthread_mutex_destroy(&w->mu);
	free_slots(w);
	return rc;
}
