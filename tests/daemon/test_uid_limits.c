// SPDX-License-Identifier: Apache-2.0 OR MIT
/* One uid cannot take what the others need (issue 11, finding 4: 64 idle
 * connections that never sent HELLO kept every other client out for as
 * long as they liked; 17 connections x 16 jobs filled the global in-flight
 * limit).
 *  - Connections that do not say HELLO within hello_timeout get a REPLY
 *    saying so and are closed; so are idle ones (idle_timeout), but not one
 *    with a request in flight.
 *  - max_clients_per_uid: a uid's extra connections are refused, another
 *    uid still connects (when the test runs as root, as uid 65534).
 *  - max_inflight_per_uid and max_pinned_bytes_per_uid hold over all of a
 *    uid's connections. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/daemon/harness.h"

enum { PER_UID = 4 };

static struct td_env env;
static struct tcircuit small, slow;

/* The daemon's unsolicited REPLY and the close, within a few seconds. */
static void expect_closed(struct tclient *cl, int status, const char *needle)
{
	uint8_t buf[CUZK_MSG_MAX];
	struct msg_reply rep;
	ssize_t n = tc_recv(cl, buf, sizeof(buf), 10000);

	CHECK_MSG(n > 0 && msg_parse_reply(&rep, buf, (size_t)n, NULL) == 0 && rep.status == (uint32_t)status &&
			  rep.hdr.request_id == 0 && strstr(rep.message, needle),
		  "no REPLY naming %s (got %zd bytes)", needle, n);
	CHECK(tc_recv(cl, buf, sizeof(buf), 10000) == 0);
}

/* A client of another uid connects and says HELLO. */
static int other_uid_connects(void)
{
	pid_t pid = fork();
	int status;

	REQUIRE(pid >= 0);
	if (pid == 0) {
		struct tclient cl;
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(tc_connect(&cl, &env, 0) == 0 ? 0 : 1);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}

/* The finding as it was: with the default limits, one uid's silent
 * connections fill max_clients and nobody else gets in. */
static void default_limits(void)
{
	struct tclient silent[64];

	td_daemon_start(&env, NULL);
	REQUIRE(chmod(env.dir, 0711) == 0 && chmod(env.socket, 0777) == 0);
	for (int i = 0; i < 64; i++)
		REQUIRE(tc_connect_raw(&silent[i], &env) == 0);
	CHECK_MSG(other_uid_connects() == 0, "uid 65534 was kept out by 64 silent connections of uid 0");
	for (int i = 0; i < 64; i++)
		tc_close(&silent[i]);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
}

static void connections(void)
{
	struct tclient silent[PER_UID], extra, idle;
	struct msg_reply rep;

	for (int i = 0; i < PER_UID; i++)
		REQUIRE(tc_connect_raw(&silent[i], &env) == 0);
	/* The uid's slots are taken: one more is refused, naming the limit. */
	REQUIRE(tc_connect_raw(&extra, &env) == 0);
	CHECK(tc_reply(&extra, &rep) == CUZK_E_BUSY && strstr(rep.message, "max_clients_per_uid"));
	tc_close(&extra);
	if (getuid() == 0) {
		REQUIRE(chmod(env.dir, 0711) == 0 && chmod(env.socket, 0777) == 0);
		CHECK_MSG(other_uid_connects() == 0, "uid 65534 could not connect while uid 0 held its %d", PER_UID);
	}
	/* Silence costs the slot. */
	for (int i = 0; i < PER_UID; i++) {
		expect_closed(&silent[i], CUZK_E_PROTOCOL, "hello_timeout");
		tc_close(&silent[i]);
	}
	REQUIRE(tc_connect(&idle, &env, 0) == 0);
	expect_closed(&idle, CUZK_E_BUSY, "idle_timeout");
	tc_close(&idle);
}

/* A request running longer than idle_timeout keeps its connection (on a
 * daemon of its own, whose idle_timeout is shorter than the proof on a CPU). */
static void busy_is_not_idle(void)
{
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	int fd = tcircuit_memfd(&slow, 2, TD_SEALS_OK), tiny = tcircuit_memfd(&small, 1, TD_SEALS_OK);

	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	CHECK(tc_submit(&cl, 1, slow.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	CHECK(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0 && rec.status == 0);
	printf("# 2 partitions took %.0f ms (idle_timeout 100 ms)\n", (double)rec.phase_ns[CUZK_PHASE_TOTAL] / 1e6);
	CHECK(tc_submit(&cl, 2, small.name, CUZK_PRIORITY_NORMAL, tiny, &rep) == 0);
	CHECK(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0 && rec.status == 0);
	tc_close(&cl);
	close(fd);
	close(tiny);
}

/* Two connections of one uid share its in-flight and pinned-bytes limits
 * (the gate holds the first request, so that all stay in flight). */
static void shared_by_connections(void)
{
	struct msg_reply rep;
	struct tclient a, b;
	int fd[3], tiny = tcircuit_memfd(&small, 1, TD_SEALS_OK);

	for (int i = 0; i < 3; i++)
		fd[i] = tcircuit_memfd(&slow, 1, TD_SEALS_OK);
	REQUIRE(tc_connect(&a, &env, 0) == 0);
	REQUIRE(tc_connect(&b, &env, 0) == 0);
	CHECK(tc_submit(&a, 1, slow.name, CUZK_PRIORITY_NORMAL, fd[0], &rep) == 0);
	CHECK(tc_submit(&a, 2, slow.name, CUZK_PRIORITY_NORMAL, fd[1], &rep) == 0);
	CHECK(tc_submit(&b, 1, slow.name, CUZK_PRIORITY_NORMAL, fd[2], &rep) == CUZK_E_BUSY);
	CHECK_MSG(strstr(rep.message, "max_pinned_bytes_per_uid"), "%s", rep.message);
	CHECK(tc_submit(&b, 2, small.name, CUZK_PRIORITY_NORMAL, tiny, &rep) == 0);
	CHECK(tc_submit(&b, 3, small.name, CUZK_PRIORITY_NORMAL, tiny, &rep) == CUZK_E_BUSY);
	CHECK_MSG(strstr(rep.message, "max_inflight_per_uid"), "%s", rep.message);
	td_gate_pass(&env, 60000);
	tc_close(&a);
	tc_close(&b);
	for (int i = 0; i < 3; i++)
		close(fd[i]);
	close(tiny);
}

int main(void)
{
	char conf[400];
	uint64_t size;
	int fd;

	td_env_init(&env, "uidlimits");
	tcircuit_make(&small, &env, "small.params", 7, 2, 101);
	tcircuit_make(&slow, &env, "slow.params", 11, 2, 102);
	fd = tcircuit_memfd(&slow, 1, TD_SEALS_OK);
	size = (uint64_t)lseek(fd, 0, SEEK_END);
	close(fd);
	/* Pinned bytes: two of slow's buffers per uid, not three (a buffer
	 * submitted twice counts twice). */
	snprintf(conf, sizeof(conf),
		 "[limits]\nmax_clients = 16\nmax_clients_per_uid = %d\nhello_timeout = 500ms\nidle_timeout = 700ms\n"
		 "max_inflight_per_uid = 3\nmax_pinned_bytes_per_uid = %llu\n[engine]\ncpu_workers = 1\n",
		 PER_UID, (unsigned long long)size * 5 / 2);
	if (getuid() == 0)
		default_limits();
	else
		printf("# not root: a second uid is not tried\n");
	td_gate_open(&env);
	td_daemon_start(&env, conf);
	connections();
	shared_by_connections();
	CHECK(td_serves(&env, &small) == 0);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	td_gate_close(&env);
	td_daemon_start(&env, "[limits]\nidle_timeout = 100ms\n[engine]\ncpu_workers = 1\n");
	busy_is_not_idle();
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	tcircuit_free(&small);
	tcircuit_free(&slow);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
