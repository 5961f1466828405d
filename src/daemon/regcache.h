// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The registration cache: witness buffers mapped (and, on the GPU backend,
 * page-locked with cudaHostRegister) once, and kept so that a client that
 * reuses a memfd pays neither the mapping nor the pinning again.
 *
 * Keyed by the file's (st_dev, st_ino) and size: a sealed memfd cannot change
 * size, and the mapping we keep holds a reference to the inode, so the key
 * cannot be recycled while the entry lives.  Entries in use by a job stay;
 * unused ones are evicted least recently used first when the cache is over
 * max_pinned_bytes_total, max_buffers_total or (among one uid's buffers)
 * max_buffers_per_uid, and when the client that brought them disconnects.
 * A buffer that never served an accepted request (its request was
 * rejected) is dropped as soon as its request is answered: rejected
 * requests cost no mapping that outlives them.
 *
 * The cache itself belongs to the event loop thread.  Pinning does not:
 * cudaHostRegister costs 20-60 ms per GiB, seconds for a PoRep witness, so a
 * worker pins a buffer right before its first proof on a backend that
 * registers host memory (cuzkd_buf_pin) and the loop never waits for it.
 * Unpinning neither: a pinned buffer the cache drops (evicted, or its last
 * job let go) leaves the counts at once and goes to the releaser thread,
 * which unregisters and unmaps it; the loop's admission of the next
 * request used to wait 0.5-1.7 s for that (docs/BENCHMARKS.md, "Issue 10's
 * figures, 2026-12-07 (later)").  A worker about to pin waits for those
 * still queued when there would otherwise be more than the budget pinned. */
#ifndef CUZK_DAEMON_REGCACHE_H
#define CUZK_DAEMON_REGCACHE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>

#include "common/error.h"
#include "prover/backend.h"

struct cuzkd_buf {
	dev_t dev;
	ino_t ino;
	uint64_t size;
	void *map;                 /* PROT_READ, MAP_SHARED */
	struct cuzkd_regcache *rc;
	pthread_mutex_t pin_lock;
	const struct groth16_backend *pinned_by;   /* registered with it (for DMA); under pin_lock */
	unsigned refs;             /* jobs using it */
	int kept;                  /* served an accepted request: worth keeping when unused */
	uint64_t owner;            /* session that brought it */
	uint32_t uid;              /* its owner's */
	uint64_t last_use;
	int orphan;                /* owner gone: drop when refs reaches 0 */
	struct cuzkd_buf *next;
};

struct cuzkd_regcache {
	uint64_t budget;           /* max_pinned_bytes_total */
	unsigned max_entries, max_entries_per_uid;
	uint64_t bytes;            /* mapped (and pinned when pin) */
	uint64_t bytes_in_use;     /* of entries with refs > 0 */
	unsigned entries;
	struct cuzkd_buf *list;
	uint64_t tick;
	/* metrics; the pinning ones are written by workers */
	uint64_t hits, misses, evictions;
	atomic_uint_fast64_t registrations, register_ns_total, bytes_pinned, release_waits;
	/* Dropped pinned buffers not yet unregistered and unmapped (queued, or
	 * in the releaser's hands): their memory is still held.  Raised before
	 * a buffer is queued, lowered once it is released. */
	atomic_uint_fast64_t releasing;
	/* Pinned buffers the cache dropped, for the releaser thread to
	 * unregister and unmap (rel_mu guards rel_list; rel_cv says work was
	 * queued, stop was asked, or a batch was released). */
	pthread_mutex_t rel_mu;
	pthread_cond_t rel_cv;
	struct cuzkd_buf *rel_list;
	int rel_stop, rel_init, rel_started;
	pthread_t releaser;
};

/* The client a buffer is mapped for. */
struct cuzkd_owner {
	uint64_t session;
	uint32_t uid;
	const char *who;           /* "client 1234 (uid 1000)", for messages */
};

/* Starts the releaser thread: -errno (named in err) when it cannot. */
int cuzkd_regcache_init(struct cuzkd_regcache *rc, uint64_t budget, unsigned max_entries,
			unsigned max_entries_per_uid, cuzk_error *err);
void cuzkd_regcache_destroy(struct cuzkd_regcache *rc);

/* Returns a referenced buffer for the checked fd st describes: the cached
 * one, or a new mapping.  Evicts unused entries to stay under the budget
 * and the counts; -CUZK_E_BUSY when in-use buffers fill them. */
int cuzkd_regcache_get(struct cuzkd_regcache *rc, int fd, const struct stat *st, const struct cuzkd_owner *o,
		       struct cuzkd_buf **ret, cuzk_error *err);
/* The buffer's request was accepted: keep it mapped when unused, for the
 * next request that brings the same file. */
void cuzkd_regcache_keep(struct cuzkd_buf *b);
void cuzkd_regcache_put(struct cuzkd_regcache *rc, struct cuzkd_buf *b);
/* The session owner went away: unused buffers it brought are dropped now,
 * used ones when their last job ends. */
void cuzkd_regcache_drop_owner(struct cuzkd_regcache *rc, uint64_t owner);

/* Worker side: registers b with the backend for DMA (be->register_host)
 * unless it already is.  *ret_ns: the time it took (0 when it was
 * registered already).  Thread-safe; the caller holds a job's reference to
 * b. */
int cuzkd_buf_pin(struct cuzkd_buf *b, const struct groth16_backend *be, uint64_t *ret_ns, cuzk_error *err);

#endif
