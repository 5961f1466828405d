// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The registration cache under a greedy client (issue 11, finding 2: one
 * connection sending 66,000 PROVEs, each with a fresh 1-byte memfd, filled
 * vm.max_map_count, after which nobody could connect).
 *  - A rejected request's buffer is unmapped once it is answered: 2000 of
 *    them leave the daemon with the mappings it had.
 *  - The buffers one uid keeps mapped are bounded (max_buffers_per_uid):
 *    unused ones are evicted, and when all are in use a new buffer is
 *    refused with `busy` naming the limit. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/daemon/harness.h"

enum { REJECTED = 2000, PER_UID = 3 };

static struct td_env env;
static struct tcircuit small, slow;

static int tiny_memfd(void)
{
	int fd = memfd_create("cuzk-test-tiny", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	REQUIRE(fd >= 0);
	REQUIRE(write(fd, "x", 1) == 1);
	REQUIRE(fcntl(fd, F_ADD_SEALS, TD_SEALS_OK) == 0);
	return fd;
}

static void rejected_unmapped(void)
{
	struct msg_reply rep;
	struct td_usage before, after;
	struct tclient cl;
	int bad = 0;

	td_daemon_start(&env, NULL);
	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	CHECK(td_serves(&env, &small) == 0);
	before = td_daemon_usage(&env, &cl);
	for (int i = 0; i < REJECTED; i++) {
		int fd = tiny_memfd();
		bad += tc_submit(&cl, (uint64_t)i + 1, small.name, CUZK_PRIORITY_NORMAL, fd, &rep) != CUZK_E_FORMAT;
		close(fd);
	}
	CHECK_MSG(bad == 0, "%d of %d 1-byte witnesses were not rejected as format", bad, REJECTED);
	after = td_daemon_usage(&env, &cl);
	CHECK_MSG(td_same_mappings(&before, &after),
		  "%d rejected requests took the daemon from %d mappings (%d of files) to %d (%d of files)", REJECTED,
		  before.maps, before.file_maps, after.maps, after.file_maps);
	CHECK(td_serves(&env, &small) == 0);
	tc_close(&cl);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
}

static unsigned cached_buffers(struct tclient *cl)
{
	char *text = tc_text(cl, 0, 1);
	const char *p = text ? strstr(text, "\"registration_cache\":{\"buffers\":") : NULL;
	unsigned n = p ? (unsigned)strtoul(p + strlen("\"registration_cache\":{\"buffers\":"), NULL, 10) : 9999;

	free(text);
	return n;
}

static void bounded_per_uid(void)
{
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	int fds[PER_UID + 2];
	char conf[200];

	snprintf(conf, sizeof(conf), "[engine]\ncpu_workers = 1\ncpu_devices = 1\n[limits]\nmax_buffers_per_uid = %d\n",
		 PER_UID);
	td_gate_open(&env);
	td_daemon_start(&env, conf);
	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	/* One at a time: each proof ends before the next buffer comes, so the
	 * least recently used one can go. */
	for (int i = 0; i < PER_UID + 2; i++) {
		int fd = tcircuit_memfd(&small, 1, TD_SEALS_OK);
		td_gate_pass(&env, 1);
		CHECK(tc_submit(&cl, 10 + i, small.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
		CHECK(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0 && rec.status == 0);
		close(fd);
	}
	CHECK_MSG(cached_buffers(&cl) <= PER_UID, "%u buffers mapped for one uid, the limit is %d",
		  cached_buffers(&cl), PER_UID);
	/* All in use (held at the gate): one more is refused, and accepted
	 * once they are done. */
	for (int i = 0; i < PER_UID + 1; i++)
		fds[i] = tcircuit_memfd(&slow, 1, TD_SEALS_OK);
	for (int i = 0; i < PER_UID; i++)
		CHECK(tc_submit(&cl, 20 + i, slow.name, CUZK_PRIORITY_NORMAL, fds[i], &rep) == 0);
	CHECK(tc_submit(&cl, 30, slow.name, CUZK_PRIORITY_NORMAL, fds[PER_UID], &rep) == CUZK_E_BUSY);
	CHECK_MSG(strstr(rep.message, "max_buffers_per_uid") != NULL, "%s", rep.message);
	td_gate_pass(&env, 60000);
	for (int i = 0; i < PER_UID; i++)
		CHECK(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0 && rec.status == 0);
	CHECK(tc_submit(&cl, 31, slow.name, CUZK_PRIORITY_NORMAL, fds[PER_UID], &rep) == 0);
	CHECK(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0 && rec.status == 0);
	for (int i = 0; i < PER_UID + 1; i++)
		close(fds[i]);
	tc_close(&cl);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	td_gate_close(&env);
}

int main(void)
{
	td_env_init(&env, "regcache");
	tcircuit_make(&small, &env, "small.params", 7, 2, 81);
	tcircuit_make(&slow, &env, "slow.params", 11, 2, 82);
	rejected_unmapped();
	bounded_per_uid();
	tcircuit_free(&small);
	tcircuit_free(&slow);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
