// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Many clients at once: 16 connections submit together with mixed
 * priorities and every proof verifies; with one worker (on any backend),
 * critical work queued after low work completes before it.  Then the 16 clients again
 * against a daemon whose io_uring has 2 entries, so that its submission
 * and completion queues are full again and again: nothing may be lost and
 * the loop must not stall. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/daemon/harness.h"

enum { CLIENTS = 16, LOWS = 5 };

struct client_arg {
	const struct td_env *env;
	const struct tcircuit *circ;
	pthread_barrier_t *start;
	unsigned index;
	int ok;
};

static void *client_main(void *p)
{
	struct client_arg *a = p;
	uint8_t proofs[2 * CUZK_PROOF_BYTES];
	struct msg_reply rep;
	struct ring_rec rec;
	struct msg_prove m;
	struct tclient cl;
	unsigned parts = 1 + a->index % 2;
	int fd = tcircuit_memfd(a->circ, parts, TD_SEALS_OK);

	a->ok = 0;
	if (tc_connect(&cl, a->env, 0) == 0) {
		tc_prove_msg(&m, 1000 + a->index, a->circ->name, a->index % CUZK_PRIORITY__COUNT, 0, 0);
		pthread_barrier_wait(a->start);
		if (tc_send(&cl, &m, sizeof(m), &fd, 1) == 0 && tc_reply(&cl, &rep) == 0 &&
		    tc_wait(&cl, &rec, proofs, TD_TIMEOUT_MS) == 0 && rec.status == 0 &&
		    rec.request_id == 1000 + a->index && rec.num_partitions == parts) {
			a->ok = 1;
			for (unsigned k = 0; k < parts; k++)
				if (tcircuit_verify(a->circ, proofs + k * CUZK_PROOF_BYTES))
					a->ok = 0;
		}
	} else {
		pthread_barrier_wait(a->start);
	}
	if (!a->ok)
		fprintf(stderr, "client %u failed\n", a->index);
	tc_close(&cl);
	close(fd);
	return NULL;
}

static void many_clients(const struct td_env *env, const struct tcircuit *c)
{
	pthread_t th[CLIENTS];
	struct client_arg args[CLIENTS];
	pthread_barrier_t start;

	pthread_barrier_init(&start, NULL, CLIENTS);
	for (unsigned i = 0; i < CLIENTS; i++) {
		args[i] = (struct client_arg){ .env = env, .circ = c, .start = &start, .index = i };
		REQUIRE(pthread_create(&th[i], NULL, client_main, &args[i]) == 0);
	}
	for (unsigned i = 0; i < CLIENTS; i++) {
		pthread_join(th[i], NULL);
		CHECK_MSG(args[i].ok, "client %u", i);
	}
	pthread_barrier_destroy(&start);
}

/* One worker, held at the partition gate on the first of LOWS low-priority
 * requests while the others and then a critical one are queued: the
 * critical request completes second, before the low ones that were queued,
 * which complete in FIFO order. */
static void critical_overtakes(struct td_env *env, const struct tcircuit *c)
{
	uint8_t proofs[CUZK_PROOF_BYTES * 2];
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	int fd = tcircuit_memfd(c, 1, TD_SEALS_OK);
	int crit_at = -1, last_low = -1;

	REQUIRE(tc_connect(&cl, env, 0) == 0);
	for (unsigned i = 0; i < LOWS; i++) {
		CHECK(tc_submit(&cl, 100 + i, c->name, CUZK_PRIORITY_LOW, fd, &rep) == 0);
		if (i == 0)
			REQUIRE(tc_wait_running(&cl) == 0);
	}
	CHECK(tc_submit(&cl, 1, c->name, CUZK_PRIORITY_CRITICAL, fd, &rep) == 0);
	td_gate_pass(env, LOWS + 1);
	for (int k = 0; k < LOWS + 1; k++) {
		REQUIRE(tc_wait(&cl, &rec, proofs, TD_TIMEOUT_MS) == 0);
		CHECK_MSG(rec.status == 0, "request %llu: %s", (unsigned long long)rec.request_id, rec.message);
		if (rec.request_id == 1) {
			crit_at = k;
			CHECK(tcircuit_verify(c, proofs) == 0);
		} else {
			CHECK_MSG((int)rec.request_id - 100 == last_low + 1, "low %llu out of order",
				  (unsigned long long)rec.request_id);
			last_low = (int)rec.request_id - 100;
		}
	}
	CHECK_MSG(crit_at == 1, "the critical request completed at position %d", crit_at);
	tc_close(&cl);
	close(fd);
}

int main(void)
{
	struct tcircuit small, slow;
	struct td_env env;

	td_env_init(&env, "clients");
	tcircuit_make(&small, &env, "small.params", 7, 2, 11);
	tcircuit_make(&slow, &env, "slow.params", 11, 2, 12);
	td_daemon_start(&env, "[limits]\nmax_clients = 20\n");
	many_clients(&env, &small);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	td_gate_open(&env);
	td_daemon_start(&env, td_one_worker_conf());
	critical_overtakes(&env, &slow);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	td_gate_close(&env);
	REQUIRE(setenv("CUZKD_TEST_RING_ENTRIES", "2", 1) == 0);
	td_daemon_start(&env, "[engine]\ncpu_workers = 2\n[limits]\nmax_clients = 20\n");
	unsetenv("CUZKD_TEST_RING_ENTRIES");
	many_clients(&env, &small);
	many_clients(&env, &small);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	tcircuit_free(&small);
	tcircuit_free(&slow);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
