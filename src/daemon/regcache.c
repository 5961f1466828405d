// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Registration cache (see regcache.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "common/clock.h"
#include "daemon/engine.h"
#include "daemon/regcache.h"

/* Unregisters and unmaps b, which nothing references any more. */
static void release(struct cuzkd_regcache *rc, struct cuzkd_buf *b)
{
	if (b->pinned_by) {
		b->pinned_by->unregister_host(b->map);
		atomic_fetch_sub(&rc->bytes_pinned, b->size);
	}
	pthread_mutex_destroy(&b->pin_lock);
	munmap(b->map, b->size);
	free(b);
}

/* The releaser thread: releases what the loop queued, in batches. */
static void *releaser(void *arg)
{
	struct cuzkd_regcache *rc = arg;
	/* The thread's malloc arena is made now, not by its first release (the
	 * GPU backend's unregister allocates): otherwise the daemon gains a
	 * mapping in the middle of serving, after its start-up (an H100 showed
	 * it: tests/daemon/test_sparse counts the maps around its refusals).
	 * volatile: a malloc whose block is only freed may be left out. */
	void *volatile arena = malloc(64);

	free(arena);
	pthread_mutex_lock(&rc->rel_mu);
	for (;;) {
		while (!rc->rel_list && !rc->rel_stop)
			pthread_cond_wait(&rc->rel_cv, &rc->rel_mu);
		struct cuzkd_buf *batch = rc->rel_list;
		if (!batch)
			break;   /* stopping, and nothing left */
		rc->rel_list = NULL;
		pthread_mutex_unlock(&rc->rel_mu);
		while (batch) {
			struct cuzkd_buf *b = batch;
			batch = b->next;
			release(rc, b);
			atomic_fetch_sub(&rc->releasing, 1);
		}
		pthread_mutex_lock(&rc->rel_mu);
		pthread_cond_broadcast(&rc->rel_cv);
	}
	pthread_mutex_unlock(&rc->rel_mu);
	return NULL;
}

int cuzkd_regcache_init(struct cuzkd_regcache *rc, uint64_t budget, unsigned max_entries,
			unsigned max_entries_per_uid, cuzk_error *err)
{
	int r;

	memset(rc, 0, sizeof(*rc));
	rc->budget = budget;
	rc->max_entries = max_entries;
	rc->max_entries_per_uid = max_entries_per_uid;
	pthread_mutex_init(&rc->rel_mu, NULL);
	pthread_cond_init(&rc->rel_cv, NULL);
	rc->rel_init = 1;
	r = pthread_create(&rc->releaser, NULL, releaser, rc);
	if (r)
		return err_fail_errno(err, r, "starting the registration cache's releaser thread");
	rc->rel_started = 1;
	return 0;
}

/* Drops b, unlinked from the list, from the cache's counts.  A pinned
 * buffer goes to the releaser: unregistering and unmapping a PoRep
 * partition's witness takes 0.5-1.7 s, which the event loop must not
 * spend.  One never pinned is unmapped here (a mapping the daemon did not
 * touch, or a small one): cheap, and done at once. */
static void unmap(struct cuzkd_regcache *rc, struct cuzkd_buf *b)
{
	rc->bytes -= b->size;
	rc->entries--;
	pthread_mutex_lock(&b->pin_lock);
	const int pinned = b->pinned_by != NULL;
	pthread_mutex_unlock(&b->pin_lock);
	if (!pinned || !rc->rel_started) {
		release(rc, b);
		return;
	}
	atomic_fetch_add(&rc->releasing, 1);
	pthread_mutex_lock(&rc->rel_mu);
	b->next = rc->rel_list;
	rc->rel_list = b;
	pthread_cond_broadcast(&rc->rel_cv);
	pthread_mutex_unlock(&rc->rel_mu);
}

static void unlink_buf(struct cuzkd_regcache *rc, struct cuzkd_buf *b)
{
	for (struct cuzkd_buf **pp = &rc->list; *pp; pp = &(*pp)->next) {
		if (*pp == b) {
			*pp = b->next;
			return;
		}
	}
}

void cuzkd_regcache_destroy(struct cuzkd_regcache *rc)
{
	if (rc->rel_started) {   /* it releases what is queued, then stops */
		pthread_mutex_lock(&rc->rel_mu);
		rc->rel_stop = 1;
		pthread_cond_broadcast(&rc->rel_cv);
		pthread_mutex_unlock(&rc->rel_mu);
		pthread_join(rc->releaser, NULL);
		rc->rel_started = 0;
	}
	while (rc->list) {
		struct cuzkd_buf *b = rc->list;
		rc->list = b->next;
		unmap(rc, b);
	}
	if (rc->rel_init) {
		pthread_cond_destroy(&rc->rel_cv);
		pthread_mutex_destroy(&rc->rel_mu);
		rc->rel_init = 0;
	}
}

/* Drops the least recently used unused entry (of uid, unless any): 0, or
 * -1 when every such entry is in use. */
static int evict_one(struct cuzkd_regcache *rc, int any, uint32_t uid)
{
	struct cuzkd_buf *victim = NULL;

	for (struct cuzkd_buf *b = rc->list; b; b = b->next)
		if (b->refs == 0 && (any || b->uid == uid) && (!victim || b->last_use < victim->last_use))
			victim = b;
	if (!victim)
		return -1;
	unlink_buf(rc, victim);
	rc->evictions++;
	unmap(rc, victim);
	return 0;
}

static unsigned entries_of(const struct cuzkd_regcache *rc, uint32_t uid)
{
	unsigned n = 0;

	for (const struct cuzkd_buf *b = rc->list; b; b = b->next)
		n += b->uid == uid;
	return n;
}

/* Room for one more entry of size bytes for o, evicting unused ones. */
static int make_room(struct cuzkd_regcache *rc, uint64_t size, const struct cuzkd_owner *o, cuzk_error *err)
{
	if (rc->bytes_in_use + size > rc->budget)
		return err_fail(err, CUZK_E_BUSY,
				"%s: witness of %llu bytes does not fit max_pinned_bytes_total (%llu of %llu in use)",
				o->who, (unsigned long long)size, (unsigned long long)rc->bytes_in_use,
				(unsigned long long)rc->budget);
	while (entries_of(rc, o->uid) >= rc->max_entries_per_uid)
		if (evict_one(rc, 0, o->uid))
			return err_fail(err, CUZK_E_BUSY,
					"%s: uid %u has %u witness buffers mapped, all in use (max_buffers_per_uid)",
					o->who, o->uid, rc->max_entries_per_uid);
	while (rc->entries >= rc->max_entries)
		if (evict_one(rc, 1, 0))
			return err_fail(err, CUZK_E_BUSY,
					"%s: %u witness buffers are mapped, all in use (max_buffers_total)", o->who,
					rc->max_entries);
	while (rc->bytes + size > rc->budget && evict_one(rc, 1, 0) == 0)
		;
	return 0;
}

int cuzkd_regcache_get(struct cuzkd_regcache *rc, int fd, const struct stat *st, const struct cuzkd_owner *o,
		       struct cuzkd_buf **ret, cuzk_error *err)
{
	uint64_t size = (uint64_t)st->st_size;
	struct cuzkd_buf *b;
	int r;

	for (b = rc->list; b; b = b->next) {
		if (b->dev == st->st_dev && b->ino == st->st_ino && b->size == size) {
			if (b->refs++ == 0)
				rc->bytes_in_use += b->size;
			if (b->orphan) {
				b->orphan = 0;
				b->owner = o->session;
				b->uid = o->uid;
			}
			b->last_use = ++rc->tick;
			rc->hits++;
			*ret = b;
			return 0;
		}
	}
	r = make_room(rc, size, o, err);
	if (r)
		return r;
	b = calloc(1, sizeof(*b));
	if (!b)
		return err_fail(err, CUZK_E_NOMEM, "%s: out of memory", o->who);
	b->map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (b->map == MAP_FAILED) {
		r = err_fail_errno(err, errno, "%s: mmap of the witness (%llu bytes)", o->who,
				   (unsigned long long)size);
		free(b);
		return r;
	}
	b->rc = rc;
	pthread_mutex_init(&b->pin_lock, NULL);
	b->dev = st->st_dev;
	b->ino = st->st_ino;
	b->size = size;
	b->refs = 1;
	b->owner = o->session;
	b->uid = o->uid;
	b->last_use = ++rc->tick;
	b->next = rc->list;
	rc->list = b;
	rc->bytes += size;
	rc->bytes_in_use += size;
	rc->entries++;
	rc->misses++;
	*ret = b;
	return 0;
}

void cuzkd_regcache_keep(struct cuzkd_buf *b)
{
	b->kept = 1;
}

void cuzkd_regcache_put(struct cuzkd_regcache *rc, struct cuzkd_buf *b)
{
	if (--b->refs)
		return;
	rc->bytes_in_use -= b->size;
	if (b->orphan || !b->kept || rc->bytes > rc->budget) {
		unlink_buf(rc, b);
		unmap(rc, b);
	}
}

void cuzkd_regcache_drop_owner(struct cuzkd_regcache *rc, uint64_t owner)
{
	struct cuzkd_buf **pp = &rc->list;

	while (*pp) {
		struct cuzkd_buf *b = *pp;
		if (b->owner != owner) {
			pp = &b->next;
			continue;
		}
		if (b->refs) {
			b->orphan = 1;
			pp = &b->next;
			continue;
		}
		*pp = b->next;
		unmap(rc, b);
	}
}

int cuzkd_buf_pin(struct cuzkd_buf *b, const struct groth16_backend *be, uint64_t *ret_ns, cuzk_error *err)
{
	uint64_t t0;
	int r = 0;

	*ret_ns = 0;
	pthread_mutex_lock(&b->pin_lock);
	if (!b->pinned_by) {
		/* Buffers the loop dropped may still be pinned, queued for the
		 * releaser: wait for them when pinning this one would otherwise
		 * exceed max_pinned_bytes_total.  (What the cache holds fits it:
		 * the loop admits no buffer that does not.) */
		struct cuzkd_regcache *rc = b->rc;
		pthread_mutex_lock(&rc->rel_mu);
		for (int waited = 0;
		     atomic_load(&rc->releasing) && atomic_load(&rc->bytes_pinned) + b->size > rc->budget;
		     waited = 1) {
			if (!waited) {
				atomic_fetch_add(&rc->release_waits, 1);
				pthread_cond_broadcast(&rc->rel_cv);   /* for whoever watches release_waits */
			}
			pthread_cond_wait(&rc->rel_cv, &rc->rel_mu);
		}
		pthread_mutex_unlock(&rc->rel_mu);
		t0 = monotonic_ns();
		r = be->register_host(b->map, b->size, err);
		if (r == 0) {
			*ret_ns = monotonic_ns() - t0;
			b->pinned_by = be;
			atomic_fetch_add(&b->rc->registrations, 1);
			atomic_fetch_add(&b->rc->register_ns_total, *ret_ns);
			atomic_fetch_add(&b->rc->bytes_pinned, b->size);
		}
	}
	pthread_mutex_unlock(&b->pin_lock);
	return r;
}
