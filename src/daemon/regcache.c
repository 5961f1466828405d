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

void cuzkd_regcache_init(struct cuzkd_regcache *rc, uint64_t budget, unsigned max_entries,
			 unsigned max_entries_per_uid)
{
	memset(rc, 0, sizeof(*rc));
	rc->budget = budget;
	rc->max_entries = max_entries;
	rc->max_entries_per_uid = max_entries_per_uid;
}

static void unmap(struct cuzkd_regcache *rc, struct cuzkd_buf *b)
{
	if (b->pinned_by) {
		b->pinned_by->unregister_host(b->map);
		atomic_fetch_sub(&rc->bytes_pinned, b->size);
	}
	pthread_mutex_destroy(&b->pin_lock);
	munmap(b->map, b->size);
	rc->bytes -= b->size;
	rc->entries--;
	free(b);
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
	while (rc->list) {
		struct cuzkd_buf *b = rc->list;
		rc->list = b->next;
		unmap(rc, b);
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
