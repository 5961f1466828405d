// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Priorities (issue 11, finding 4: any client could submit at critical, and
 * 8 critical jobs of 16 partitions made honest critical proofs wait 16-73 s).
 *  - Critical and high are for the uids and groups the configuration names
 *    (priority_users, priority_groups; by default root and cuzkd's own
 *    group): others are refused with `permission`.
 *  - A flood at one priority holds a lower one back by at most
 *    starvation_limit + 3 partitions: with one worker and the default limit
 *    of 8, a low request submitted behind a critical request of 16
 *    partitions completes before it. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/daemon/harness.h"

enum { FLOOD_PARTS = 16 };

static struct td_env env;
static struct tcircuit small;

static void permission(void)
{
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	int fd = tcircuit_memfd(&small, 1, TD_SEALS_OK);

	td_daemon_start(&env, "[limits]\npriority_users =\npriority_groups =\n");
	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	CHECK(tc_submit(&cl, 1, small.name, CUZK_PRIORITY_CRITICAL, fd, &rep) == CUZK_E_PERM);
	CHECK_MSG(strstr(rep.message, "critical") && strstr(rep.message, "priority_users"), "%s", rep.message);
	CHECK(tc_submit(&cl, 2, small.name, CUZK_PRIORITY_HIGH, fd, &rep) == CUZK_E_PERM);
	CHECK(tc_submit(&cl, 3, small.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	CHECK(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0 && rec.request_id == 3 && rec.status == 0);
	tc_close(&cl);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	close(fd);
}

static void bounded_starvation(void)
{
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	int flood = tcircuit_memfd(&small, FLOOD_PARTS, TD_SEALS_OK), one = tcircuit_memfd(&small, 1, TD_SEALS_OK);

	/* One worker on either backend, held at the gate on the flood's first
	 * partition until the low request is queued too; root may use
	 * critical (the default). */
	td_gate_open(&env);
	td_daemon_start(&env, td_one_worker_conf());
	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	CHECK(tc_submit(&cl, 1, small.name, CUZK_PRIORITY_CRITICAL, flood, &rep) == 0);
	REQUIRE(tc_wait_running(&cl) == 0);
	CHECK(tc_submit(&cl, 2, small.name, CUZK_PRIORITY_LOW, one, &rep) == 0);
	td_gate_pass(&env, FLOOD_PARTS + 1);
	REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
	CHECK_MSG(rec.request_id == 2 && rec.status == 0,
		  "the low request waited for all %d critical partitions (request %llu completed first)", FLOOD_PARTS,
		  (unsigned long long)rec.request_id);
	REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
	CHECK(rec.status == 0 && rec.num_partitions == FLOOD_PARTS);
	tc_close(&cl);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	td_gate_close(&env);
	close(flood);
	close(one);
}

int main(void)
{
	td_env_init(&env, "priority");
	tcircuit_make(&small, &env, "small.params", 7, 2, 111);
	bounded_starvation();
	permission();
	tcircuit_free(&small);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
