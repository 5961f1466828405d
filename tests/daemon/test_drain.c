// SPDX-License-Identifier: Apache-2.0 OR MIT
/* SIGTERM drains: requests not started fail at once with "shutting down",
 * new requests and connections are refused, the running proof finishes,
 * the daemon exits 0.  With a drain timeout shorter than the proof, the
 * running request fails with CUZK_E_SHUTDOWN and the daemon still exits 0.
 * SIGHUP is logged as "not a reload".  One worker, and a partition gate
 * that holds the running proof for as long as the test needs, on any
 * backend (harness.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/daemon/harness.h"

static void drain(struct td_env *env, const struct tcircuit *slow)
{
	uint8_t proofs[CUZK_MAX_PARTITIONS * CUZK_PROOF_BYTES];
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl, late;
	int fd = tcircuit_memfd(slow, 2, TD_SEALS_OK);
	int status;

	char conf[300];

	snprintf(conf, sizeof(conf), "%s[daemon]\ndrain_timeout = 5m\n", td_one_worker_conf());
	td_gate_open(env);
	td_daemon_start(env, conf);
	REQUIRE(tc_connect(&cl, env, 0) == 0);
	CHECK(tc_submit(&cl, 1, slow->name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	CHECK(tc_submit(&cl, 2, slow->name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	REQUIRE(tc_wait_running(&cl) == 0);
	kill(env->pid, SIGHUP);
	kill(env->pid, SIGTERM);
	/* Request 2 had not started: it fails first, which also tells us the
	 * drain has begun.  Request 1 (two partitions) is still running. */
	REQUIRE(tc_wait(&cl, &rec, proofs, TD_TIMEOUT_MS) == 0);
	CHECK_MSG(rec.request_id == 2 && rec.status == CUZK_E_SHUTDOWN, "request %llu status %u",
		  (unsigned long long)rec.request_id, rec.status);
	CHECK(tc_submit(&cl, 3, slow->name, CUZK_PRIORITY_CRITICAL, fd, &rep) == CUZK_E_SHUTDOWN);
	CHECK(tc_connect_raw(&late, env) != 0);
	td_gate_pass(env, 2);
	REQUIRE(tc_wait(&cl, &rec, proofs, TD_TIMEOUT_MS) == 0);
	CHECK_MSG(rec.request_id == 1 && rec.status == 0, "request %llu status %u: %s",
		  (unsigned long long)rec.request_id, rec.status, rec.message);
	CHECK(rec.num_partitions == 2 && tcircuit_verify(slow, proofs) == 0 &&
	      tcircuit_verify(slow, proofs + CUZK_PROOF_BYTES) == 0);
	status = td_daemon_wait(env, TD_TIMEOUT_MS);
	CHECK_MSG(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status %d", status);
	CHECK(td_log_has(env, "not a reload"));
	tc_close(&cl);
	close(fd);
	td_gate_close(env);
}

static void drain_timeout(struct td_env *env, const struct tcircuit *slow)
{
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	int fd = tcircuit_memfd(slow, 2, TD_SEALS_OK);
	int status;

	char conf[300];

	/* The proof waits at the gate for ever: only the timeout ends it. */
	snprintf(conf, sizeof(conf), "%s[daemon]\ndrain_timeout = 1ms\n", td_one_worker_conf());
	td_gate_open(env);
	td_daemon_start(env, conf);
	REQUIRE(tc_connect(&cl, env, 0) == 0);
	CHECK(tc_submit(&cl, 1, slow->name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	REQUIRE(tc_wait_running(&cl) == 0);
	kill(env->pid, SIGTERM);
	REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
	CHECK_MSG(rec.request_id == 1 && rec.status == CUZK_E_SHUTDOWN, "status %u: %s", rec.status, rec.message);
	CHECK(strstr(rec.message, "drain_timeout") != NULL);
	status = td_daemon_wait(env, TD_TIMEOUT_MS);
	CHECK_MSG(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status %d", status);
	tc_close(&cl);
	close(fd);
	td_gate_close(env);
}

/* The systemd notify protocol: READY=1 (the harness waits for it),
 * STATUS= lines, WATCHDOG=1 at half WATCHDOG_USEC, STOPPING=1 on SIGTERM. */
static void notify(struct td_env *env)
{
	int status;

	env->watchdog_usec = 100000;
	td_daemon_start(env, td_one_worker_conf());
	CHECK_MSG(strstr(env->last_notify, "STATUS=0 queued, 0 running on 1 workers, 0 clients"), "%s",
		  env->last_notify);
	CHECK(td_notify_wait(env, "WATCHDOG=1", TD_TIMEOUT_MS) == 0);
	CHECK(td_notify_wait(env, "WATCHDOG=1", TD_TIMEOUT_MS) == 0);
	kill(env->pid, SIGTERM);
	CHECK(td_notify_wait(env, "STOPPING=1", TD_TIMEOUT_MS) == 0);
	CHECK_MSG(strstr(env->last_notify, "STATUS=draining"), "%s", env->last_notify);
	status = td_daemon_wait(env, TD_TIMEOUT_MS);
	CHECK(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	env->watchdog_usec = 0;
}

int main(void)
{
	struct tcircuit slow;
	struct td_env env;

	td_env_init(&env, "drain");
	tcircuit_make(&slow, &env, "slow.params", 11, 2, 41);
	notify(&env);
	drain(&env, &slow);
	drain_timeout(&env, &slow);
	tcircuit_free(&slow);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
