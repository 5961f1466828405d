// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The small findings of issue 11:
 *  - an empty (0-byte) packet is a framing error: the REPLY PROTOCOL.md §3
 *    promises (CUZK_E_PROTOCOL, request id 0), then the close; before HELLO
 *    and after it;
 *  - a witness fd that cannot read (reopened O_WRONLY through /proc, or
 *    O_PATH) is CUZK_E_FD, not `permission` (a code for CANCEL);
 *  - a rejected request's message and log line name the client once. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/daemon/harness.h"

static struct td_env env;
static struct tcircuit small, slow;

static void empty_packet(int after_hello)
{
	struct msg_reply rep;
	uint8_t buf[512];
	struct tclient cl;

	REQUIRE((after_hello ? tc_connect(&cl, &env, 0) : tc_connect_raw(&cl, &env)) == 0);
	CHECK(tc_send(&cl, "", 0, NULL, 0) == 0);
	CHECK_MSG(tc_reply(&cl, &rep) == CUZK_E_PROTOCOL, "an empty packet %s HELLO got no REPLY",
		  after_hello ? "after" : "before");
	CHECK(rep.hdr.request_id == 0);
	CHECK(tc_recv(&cl, buf, sizeof(buf), TD_TIMEOUT_MS) == 0);
	tc_close(&cl);
}

static void unreadable_fd(int flags, const char *what)
{
	struct msg_reply rep;
	struct tclient cl;
	char path[64];
	int fd = tcircuit_memfd(&small, 1, TD_SEALS_OK), other;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	other = open(path, flags | O_CLOEXEC);
	REQUIRE(other >= 0);
	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	CHECK_MSG(tc_submit(&cl, 3, small.name, CUZK_PRIORITY_NORMAL, other, &rep) == CUZK_E_FD, "%s: status %u: %s",
		  what, rep.status, rep.message);
	CHECK_MSG(strstr(rep.message, what) != NULL, "%s", rep.message);
	tc_close(&cl);
	close(other);
	close(fd);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* A duplicate request id (the first held at the gate, so still in flight):
 * the answer and the log name the client once. */
static void named_once(void)
{
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	char who[64], twice[160];
	int fd = tcircuit_memfd(&slow, 1, TD_SEALS_OK);

	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	CHECK(tc_submit(&cl, 5, slow.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	CHECK(tc_submit(&cl, 5, slow.name, CUZK_PRIORITY_NORMAL, fd, &rep) == CUZK_E_INVAL);
	snprintf(who, sizeof(who), "client %d (uid %d)", (int)getpid(), (int)getuid());
	CHECK_MSG(count(rep.message, who) == 1, "%s", rep.message);
	snprintf(twice, sizeof(twice), "%s: %s", who, who);
	CHECK_MSG(!td_log_has(&env, twice), "the log repeats '%s'", who);
	td_gate_pass(&env, 60000);
	CHECK(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0 && rec.status == 0);
	tc_close(&cl);
	close(fd);
}

int main(void)
{
	td_env_init(&env, "small");
	tcircuit_make(&small, &env, "small.params", 7, 2, 71);
	tcircuit_make(&slow, &env, "slow.params", 10, 2, 72);
	td_gate_open(&env);
	td_daemon_start(&env, NULL);
	empty_packet(0);
	empty_packet(1);
	unreadable_fd(O_WRONLY, "O_WRONLY");
	unreadable_fd(O_PATH, "O_PATH");
	named_once();
	CHECK(td_serves(&env, &small) == 0);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	tcircuit_free(&small);
	tcircuit_free(&slow);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
