// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A file written front to back by a thread of its own, from a ring of
 * buffers that the caller fills: the caller encodes into one buffer while
 * the thread writes the ones before it, so that encoding and write(2)
 * overlap (the parameter writer of params_io.h, ~45 GB at 2^27).
 *
 * One caller thread at a time.  The caller asks for the room left in the
 * buffer it fills (async_writer_room), fills some of it and says how much
 * (async_writer_fill), and hands the buffer over when it wants
 * (async_writer_submit: when it is full, or when what is left is too small
 * for the next item); the file is the bytes filled, in order, whatever the
 * buffers' boundaries.  Submit waits only while every buffer is still being
 * written.
 *
 * The first failed write stops the thread: nothing after it is written, and
 * the error (naming the path and the offset) is returned by every later
 * submit and async_writer_check, and by close.
 *
 * It also measures itself, for timings such as `cuzk setup --timings`: the
 * time submit waited for a free buffer says the writes are behind the
 * caller (a slow disk, or the kernel throttling a writer that dirtied more
 * of the page cache than vm.dirty_ratio allows), the thread's time in
 * write(2) says how long the kernel took the bytes, and close's parts say
 * what the file's end cost.  Two clock reads a buffer: nothing measurable
 * beside the encoding. */
#ifndef CUZK_FORMATS_ASYNC_WRITER_H
#define CUZK_FORMATS_ASYNC_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

typedef struct async_writer async_writer;

/* Milliseconds of the monotonic clock (common/clock.h). */
typedef struct async_writer_stats {
	uint64_t bytes;      /* filled so far (after a close that returned 0: the file's length) */
	uint64_t buffers;    /* handed to the thread */
	double blocked_ms;   /* submit waiting for a free buffer, every buffer still being written */
	double write_ms;     /* the thread in write(2), as of its last finished write */
	double drain_ms;     /* close: waiting for the writes still queued */
	double sync_ms;      /* close: fsync(2) (0 unless asked for) */
	double close_ms;     /* close: close(2) */
} async_writer_stats;

/* async_writer_finish's flags. */
enum {
	/* fsync(2) the file before closing it: its bytes are on the disk when
	 * finish returns, not only in the page cache. */
	ASYNC_WRITER_FSYNC = 1u,
};

/* Creates (or truncates) path, mode 0666 less the umask, and starts the
 * writing thread with nbufs (>= 2) buffers of buf_bytes (>= 1) each.
 * 0, -CUZK_E_NOMEM, or the open's or pthread_create's error (named). */
int async_writer_open(async_writer **ret, const char *path, size_t nbufs, size_t buf_bytes, cuzk_error *err);
/* The free part of the buffer being filled, *ret_len bytes (0 when full). */
uint8_t *async_writer_room(async_writer *w, size_t *ret_len);
/* The first n bytes of the room are filled (n <= the room's length). */
void async_writer_fill(async_writer *w, size_t n);
/* Hands the buffer being filled to the thread (an empty one is kept) and
 * takes the next, waiting until the thread has written it out.  0, or the
 * thread's first write error. */
int async_writer_submit(async_writer *w, cuzk_error *err);
/* 0, or the thread's first write error: for a caller that wants to stop
 * at once rather than at its next submit. */
int async_writer_check(async_writer *w, cuzk_error *err);
/* Submits what is filled unless a write has failed, waits for every write,
 * closes the file and frees w (always, NULL is a no-op).  0, the first
 * write error, or close(2)'s. */
int async_writer_close(async_writer *w, cuzk_error *err);
/* The same with flags (ASYNC_WRITER_FSYNC: then also fsync(2)'s error), and
 * the writer's measures into *ret_stats (may be NULL; filled also when it
 * fails, zeroed for a NULL w). */
int async_writer_finish(async_writer *w, unsigned flags, async_writer_stats *ret_stats, cuzk_error *err);
/* The measures so far, for a caller that times its own phases: what the
 * thread has written is read under the lock. */
void async_writer_get_stats(async_writer *w, async_writer_stats *ret);

#endif
