// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A client that rewrites its header, partition table and density bitmaps
 * while its proof is checked and runs (the memfd is not WRITE-sealed, as the
 * protocol allows).  The daemon copied what it validated, so the client gets
 * an error or a wrong proof, never a crash or an out-of-bounds read (this
 * test runs under ASan in the sanitizer build), and the next client is
 * served normally. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/rand.h"
#include "tests/check.h"
#include "tests/daemon/harness.h"

struct vandal {
	uint8_t *map;
	size_t size;
	struct cuzk_witness_desc desc;
	atomic_int stop;
	uint64_t seed;
};

/* Flips counts, offsets and density words until told to stop.  It yields
 * between passes so that the daemon's threads get the CPU on small hosts. */
static void *vandal_main(void *p)
{
	struct vandal *v = p;
	struct cuzk_witness_header *h = (struct cuzk_witness_header *)v->map;
	struct cuzk_witness_partition *t = (struct cuzk_witness_partition *)(v->map + sizeof(*h));
	uint64_t *a_dens = (uint64_t *)(v->map + v->desc.part[0].offset[CUZK_SEC_A_AUX_DENSITY]);
	size_t words = v->desc.len[CUZK_SEC_A_AUX_DENSITY] / 8;
	cuzk_rng rng;

	cuzk_rng_seed(&rng, v->seed);
	while (!atomic_load(&v->stop)) {
		uint64_t r = cuzk_rng_next(&rng);
		switch (r % 6) {
		case 0: h->num_aux = cuzk_rng_next(&rng); break;
		case 1: h->num_constraints = v->desc.hdr.num_constraints * 4; break;
		case 2: t->offset[r % CUZK_SEC__COUNT] = cuzk_rng_next(&rng) & ~63ull; break;
		case 3: a_dens[r % words] = ~0ull; break;
		case 4: h->num_partitions = (uint32_t)(r >> 32); break;
		default: memcpy(v->map, &v->desc.hdr, sizeof(v->desc.hdr)); break;
		}
		sched_yield();
	}
	return NULL;
}

static void round_trip(const struct td_env *env, const struct tcircuit *c, uint64_t seed, int *errors)
{
	struct cuzk_msg_reply rep;
	struct cuzk_ring_rec rec;
	struct tclient cl;
	struct vandal v = { .seed = seed };
	pthread_t th;
	struct stat st;
	int fd = tcircuit_memfd(c, 1, TD_SEALS_OK), status;
	cuzk_error err;

	REQUIRE(fstat(fd, &st) == 0);
	v.size = (size_t)st.st_size;
	v.map = mmap(NULL, v.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(v.map != MAP_FAILED);
	REQUIRE(cuzk_witness_parse(&v.desc, v.map, v.size, "test", &err) == 0);
	REQUIRE(tc_connect(&cl, env, 0) == 0);
	REQUIRE(pthread_create(&th, NULL, vandal_main, &v) == 0);
	status = tc_submit(&cl, seed, c->name, CUZK_PRIORITY_NORMAL, fd, &rep);
	if (status == 0) {
		CHECK(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
		*errors += rec.status != 0;
	} else {
		CHECK_MSG(status == CUZK_E_FORMAT || status == CUZK_E_VERSION, "rejected with %d: %s", status,
			  rep.message);
		*errors += 1;
	}
	atomic_store(&v.stop, 1);
	pthread_join(th, NULL);
	munmap(v.map, v.size);
	tc_close(&cl);
	close(fd);
}

int main(void)
{
	struct tcircuit c;
	struct td_env env;
	int errors = 0;

	td_env_init(&env, "rewrite");
	tcircuit_make(&c, &env, "small.params", 8, 2, 51);
	td_daemon_start(&env, "[engine]\ncpu_workers = 1\n");
	for (uint64_t round = 1; round <= 12; round++)
		round_trip(&env, &c, round, &errors);
	printf("%d of 12 tampered requests failed cleanly, the rest gave (wrong) proofs\n", errors);
	CHECK(td_daemon_alive(&env));
	CHECK(td_serves(&env, &c) == 0);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	tcircuit_free(&c);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
