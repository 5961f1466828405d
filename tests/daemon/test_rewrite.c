// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A client that rewrites its header, partition table, density bitmaps and
 * scalars while its proof is checked and runs (the memfd is not WRITE-sealed,
 * as the protocol allows).  The daemon copied what it validated, so the
 * client gets an error, never a crash or an out-of-bounds read (this test
 * runs under ASan in the sanitizer build); a proof that came out wrong is
 * reported as CUZK_E_VERIFY, never with status 0 (issue 11, finding 5: 12 of
 * 12 such requests completed with status 0 and proofs that did not verify);
 * and the next client is served normally. */
#include <pthread.h>
#include <sched.h>
#include <fcntl.h>
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
	struct witness_desc desc;
	atomic_int stop;
	uint64_t seed;
};

/* Flips counts, offsets, density words and scalars (to small values, which
 * are canonical) until told to stop.  It yields between passes so that the
 * daemon's threads get the CPU on small hosts. */
static void *vandal_main(void *p)
{
	struct vandal *v = p;
	struct witness_header *h = (struct witness_header *)v->map;
	struct witness_partition *t = (struct witness_partition *)(v->map + sizeof(*h));
	uint64_t *a_dens = (uint64_t *)(v->map + v->desc.part[0].offset[CUZK_SEC_A_AUX_DENSITY]);
	size_t words = v->desc.len[CUZK_SEC_A_AUX_DENSITY] / 8;
	uint64_t *scalars = (uint64_t *)(v->map + v->desc.part[0].offset[CUZK_SEC_A]);
	size_t n_scalars = (v->desc.len[CUZK_SEC_A] + v->desc.len[CUZK_SEC_B] + v->desc.len[CUZK_SEC_C]) / 32;
	rng_t rng;

	rng_seed(&rng, v->seed);
	while (!atomic_load(&v->stop)) {
		uint64_t r = rng_next(&rng);
		switch (r % 8) {
		case 6:
		case 7: {
			uint64_t *x = scalars + 4 * (rng_next(&rng) % n_scalars);
			x[0] = r >> 48, x[1] = x[2] = x[3] = 0;
			break;
		}
		case 0: h->num_aux = rng_next(&rng); break;
		case 1: h->num_constraints = v->desc.hdr.num_constraints * 4; break;
		case 2: t->offset[r % CUZK_SEC__COUNT] = rng_next(&rng) & ~63ull; break;
		case 3: a_dens[r % words] = ~0ull; break;
		case 4: h->num_partitions = (uint32_t)(r >> 32); break;
		default: memcpy(v->map, &v->desc.hdr, sizeof(v->desc.hdr)); break;
		}
		sched_yield();
	}
	return NULL;
}

static void round_trip(const struct td_env *env, const struct tcircuit *c, uint64_t seed, int *errors,
		       int *caught)
{
	uint8_t proofs[CUZK_PROOF_BYTES];
	struct msg_reply rep;
	struct ring_rec rec;
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
	REQUIRE(witness_parse(&v.desc, v.map, v.size, "test", &err) == 0);
	REQUIRE(tc_connect(&cl, env, 0) == 0);
	REQUIRE(pthread_create(&th, NULL, vandal_main, &v) == 0);
	status = tc_submit(&cl, seed, c->name, CUZK_PRIORITY_NORMAL, fd, &rep);
	if (status == 0) {
		CHECK(tc_wait(&cl, &rec, proofs, TD_TIMEOUT_MS) == 0);
		*errors += rec.status != 0;
		*caught += rec.status == CUZK_E_VERIFY;
		if (rec.status == 0)
			CHECK_MSG(tcircuit_verify(c, proofs) == 0, "request %llu: status 0 with a proof that does not verify",
				  (unsigned long long)seed);
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

/* A witness whose private inputs (aux) were changed after synthesis, as a
 * rewrite during the proof would: the proof comes out wrong, and the
 * daemon says so (issue 11, finding 5). */
static void wrong_aux(const struct td_env *env, const struct tcircuit *c)
{
	struct msg_reply rep;
	struct ring_rec rec;
	struct witness_desc desc;
	struct tclient cl;
	struct stat st;
	int fd = tcircuit_memfd(c, 1, 0);
	cuzk_error err;
	uint8_t *map;

	REQUIRE(fstat(fd, &st) == 0);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED);
	REQUIRE(witness_parse(&desc, map, (size_t)st.st_size, "test", &err) == 0);
	memset(map + desc.part[0].offset[CUZK_SEC_AUX] + 5 * 32, 0, 32);
	memset(map + desc.part[0].offset[CUZK_SEC_AUX] + 9 * 32, 0, 32);
	REQUIRE(fcntl(fd, F_ADD_SEALS, TD_SEALS_OK) == 0);
	REQUIRE(tc_connect(&cl, env, 0) == 0);
	CHECK(tc_submit(&cl, 99, c->name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
	CHECK_MSG(rec.status == CUZK_E_VERIFY && rec.num_partitions == 0, "a wrong witness completed with %u: %s",
		  rec.status, rec.message);
	CHECK_MSG(strstr(rec.message, "partition 0") != NULL, "%s", rec.message);
	/* The check's cost and its failures are in the metrics. */
	char *m = tc_text(&cl, 1, 0);
	REQUIRE(m);
	CHECK(tc_metric(m, "cuzk_verify_failures_total") >= 1 && tc_metric(m, "cuzk_verify_seconds_count") >= 1);
	CHECK(tc_metric(m, "cuzk_completions_total{status=\"verify-failed\"}") >= 1);
	free(m);
	munmap(map, (size_t)st.st_size);
	tc_close(&cl);
	close(fd);
}

int main(void)
{
	struct tcircuit c;
	struct td_env env;
	int errors = 0, caught = 0;

	td_env_init(&env, "rewrite");
	tcircuit_make(&c, &env, "small.params", 8, 2, 51);
	td_daemon_start(&env, "[engine]\ncpu_workers = 1\n");
	for (uint64_t round = 1; round <= 12; round++)
		round_trip(&env, &c, round, &errors, &caught);
	printf("%d of 12 tampered requests failed cleanly (%d as verify-failed), the rest gave proofs that verify\n",
	       errors, caught);
	wrong_aux(&env, &c);
	CHECK(td_daemon_alive(&env));
	CHECK(td_serves(&env, &c) == 0);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	tcircuit_free(&c);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
