// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The registration cache's releaser, against a backend whose unregister
 * blocks until the test lets it go:
 *  - a pinned buffer the cache evicts is unregistered off the calling
 *    (event loop) thread: the admission that evicted it returns while the
 *    unregister is still held;
 *  - a worker pinning a buffer that would take the pinned total past
 *    max_pinned_bytes_total waits until the evicted one is unpinned (and
 *    says so in release_waits), so the fake backend never holds more than
 *    the budget registered;
 *  - releasing counts a dropped buffer until it is unpinned and unmapped;
 *  - destroy releases what is still queued. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/regcache.h"
#include "prover/backend.h"
#include "tests/check.h"

enum { SZ = 1 << 20 };

/* The fake backend's state: bytes registered now and at most, and a gate
 * that holds every unregister until opened. */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t now, peak;
	unsigned unregistered, in_unregister;
	int gate_open;
	pthread_t main_thread;
	int unregistered_on_main;
} fake = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static int fake_register(void *ptr, size_t len, cuzk_error *err)
{
	(void)ptr;
	(void)err;
	pthread_mutex_lock(&fake.mu);
	fake.now += len;
	if (fake.now > fake.peak)
		fake.peak = fake.now;
	pthread_mutex_unlock(&fake.mu);
	return 0;
}

static void fake_unregister(void *ptr)
{
	(void)ptr;
	pthread_mutex_lock(&fake.mu);
	if (pthread_equal(pthread_self(), fake.main_thread))
		fake.unregistered_on_main = 1;
	fake.in_unregister++;
	pthread_cond_broadcast(&fake.cv);
	while (!fake.gate_open && !fake.unregistered_on_main)   /* on main it would wait for itself */
		pthread_cond_wait(&fake.cv, &fake.mu);
	fake.in_unregister--;
	fake.now -= SZ;
	fake.unregistered++;
	pthread_cond_broadcast(&fake.cv);
	pthread_mutex_unlock(&fake.mu);
}

static const struct groth16_backend fake_be = {
	.name = "fake",
	.register_host = fake_register,
	.unregister_host = fake_unregister,
};

static void set_gate(int open)
{
	pthread_mutex_lock(&fake.mu);
	fake.gate_open = open;
	pthread_cond_broadcast(&fake.cv);
	pthread_mutex_unlock(&fake.mu);
}

/* Waits until an unregister is held at the gate, or n are done. */
static void wait_fake(unsigned held, unsigned done)
{
	pthread_mutex_lock(&fake.mu);
	while (fake.in_unregister < held && fake.unregistered < done)
		pthread_cond_wait(&fake.cv, &fake.mu);
	pthread_mutex_unlock(&fake.mu);
}

static const struct cuzkd_owner owner = { .session = 1, .uid = 1000, .who = "test client" };

/* A mapped buffer for a fresh memfd of SZ bytes; its fd is closed (the
 * mapping keeps the file). */
static struct cuzkd_buf *get(struct cuzkd_regcache *rc)
{
	struct cuzkd_buf *b = NULL;
	struct stat st;
	cuzk_error err;
	int fd = memfd_create("cuzk-test-release", MFD_CLOEXEC);

	REQUIRE(fd >= 0 && ftruncate(fd, SZ) == 0 && fstat(fd, &st) == 0);
	CHECK_MSG(cuzkd_regcache_get(rc, fd, &st, &owner, &b, &err) == 0, "get: %s", err.msg);
	close(fd);
	REQUIRE(b);
	return b;
}

static void pin(struct cuzkd_buf *b)
{
	uint64_t ns;
	cuzk_error err;

	CHECK_MSG(cuzkd_buf_pin(b, &fake_be, &ns, &err) == 0, "pin: %s", err.msg);
}

/* A request that was accepted, pinned its buffer and completed. */
static struct cuzkd_buf *served(struct cuzkd_regcache *rc)
{
	struct cuzkd_buf *b = get(rc);
	cuzkd_regcache_keep(b);
	pin(b);
	cuzkd_regcache_put(rc, b);
	return b;
}

struct pinner {
	struct cuzkd_regcache *rc;
	struct cuzkd_buf *b;
	int done;   /* under rc->rel_mu */
};

static void *pin_thread(void *arg)
{
	struct pinner *p = arg;

	pin(p->b);
	pthread_mutex_lock(&p->rc->rel_mu);
	p->done = 1;
	pthread_cond_broadcast(&p->rc->rel_cv);
	pthread_mutex_unlock(&p->rc->rel_mu);
	return NULL;
}

int main(void)
{
	struct cuzkd_regcache rc;
	cuzk_error err;

	fake.main_thread = pthread_self();
	/* Two buffers' worth of budget: A and B fill it, C evicts A. */
	REQUIRE(cuzkd_regcache_init(&rc, 2 * SZ, 8, 8, &err) == 0);
	served(&rc);
	served(&rc);
	CHECK(fake.now == 2 * SZ);

	/* C's admission evicts A (least recently used) and returns with A's
	 * unregister still held at the gate, on another thread. */
	struct cuzkd_buf *c = get(&rc);
	CHECK(rc.evictions == 1 && rc.entries == 2 && rc.bytes == 2 * SZ);
	wait_fake(1, 1);
	CHECK_MSG(!fake.unregistered_on_main, "the evicted buffer was unregistered on the event loop's thread");
	CHECK(fake.unregistered == 0);
	CHECK_MSG(atomic_load(&rc.releasing) == 1, "%llu buffers being released, 1 expected",
		  (unsigned long long)atomic_load(&rc.releasing));

	/* Pinning C now would make three registered: it waits for A. */
	pthread_t t;
	struct pinner p = { .rc = &rc, .b = c };
	REQUIRE(pthread_create(&t, NULL, pin_thread, &p) == 0);
	pthread_mutex_lock(&rc.rel_mu);
	while (atomic_load(&rc.release_waits) == 0 && !p.done)
		pthread_cond_wait(&rc.rel_cv, &rc.rel_mu);
	pthread_mutex_unlock(&rc.rel_mu);
	CHECK_MSG(!p.done, "C was pinned while A, evicted, was still pinned");
	CHECK(fake.now == 2 * SZ);
	set_gate(1);
	REQUIRE(pthread_join(t, NULL) == 0);
	CHECK(fake.unregistered == 1 && fake.now == 2 * SZ);
	CHECK(atomic_load(&rc.releasing) == 0);
	CHECK_MSG(fake.peak == 2 * SZ, "%zu bytes were registered at once, over the budget of %d", fake.peak, 2 * SZ);
	CHECK(atomic_load(&rc.release_waits) == 1);

	/* Room to spare: no wait.  (C in use, B evicted for D.) */
	struct cuzkd_buf *d = get(&rc);
	CHECK(rc.evictions == 2);
	set_gate(0);
	cuzkd_regcache_put(&rc, c);   /* kept, within the budget: stays */
	wait_fake(1, 2);              /* B's unregister is the one held, or done */

	/* destroy: the held release finishes, then C's and D's (D was never
	 * pinned), whatever the gate: destroy waits for the releaser. */
	set_gate(1);
	cuzkd_regcache_put(&rc, d);
	cuzkd_regcache_destroy(&rc);
	CHECK(fake.unregistered == 3 && fake.now == 0 && atomic_load(&rc.releasing) == 0);
	CHECK_DONE();
}
