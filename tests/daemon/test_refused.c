// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Connections the daemon refuses (max_clients reached) are answered and
 * closed, and the descriptors that came with their first message are
 * closed too (issue 11, finding 1: 200 refused connections carrying 4
 * memfds each held 800 fds and 800 MiB of shmem until a restart; 5000 with
 * eventfds took the daemon to its fd limit).  Afterwards the daemon holds
 * the fds it held before, and still serves. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/daemon/harness.h"

enum { REFUSED = 100, CARRIED = 4 };

/* A hello that brings descriptors along; the daemon refuses the
 * connection without reading further. */
static void refused_with_fds(const struct td_env *env, const int *fds, unsigned n)
{
	struct msg_reply rep;
	struct msg_hello h;
	uint8_t buf[512];
	struct tclient cl;

	REQUIRE(tc_connect_raw(&cl, env) == 0);
	memset(&h, 0, sizeof(h));
	msg_init(&h.hdr, CUZK_MSG_HELLO, sizeof(h), 1);
	tc_send(&cl, &h, sizeof(h), fds, n);
	CHECK(tc_reply(&cl, &rep) == CUZK_E_BUSY);
	/* The daemon closes once it has read the hello (and its fds). */
	CHECK(tc_recv(&cl, buf, sizeof(buf), TD_TIMEOUT_MS) == 0);
	tc_close(&cl);
}

int main(void)
{
	struct tcircuit c;
	struct td_env env;
	struct tclient a, b, hold;
	struct td_usage before, after;
	int fds[CARRIED];

	td_env_init(&env, "refused");
	tcircuit_make(&c, &env, "small.params", 7, 2, 61);
	td_daemon_start(&env, "[limits]\nmax_clients = 3\n");
	REQUIRE(tc_connect(&a, &env, 0) == 0);
	REQUIRE(tc_connect(&b, &env, 0) == 0);
	REQUIRE(tc_connect(&hold, &env, 0) == 0);
	before = td_daemon_usage(&env, &a);
	for (unsigned i = 0; i < CARRIED; i++) {
		fds[i] = i % 2 ? eventfd(0, EFD_CLOEXEC) : memfd_create("cuzk-test-carried", MFD_CLOEXEC);
		REQUIRE(fds[i] >= 0);
		if (i % 2 == 0)
			REQUIRE(ftruncate(fds[i], 1 << 20) == 0);
	}
	for (int i = 0; i < REFUSED; i++)
		refused_with_fds(&env, fds, CARRIED);
	after = td_daemon_usage(&env, &a);
	tc_close(&hold);
	CHECK_MSG(after.fds == before.fds, "the daemon held %d fds before %d refused connections with %d fds each, "
		  "%d after", before.fds, REFUSED, CARRIED, after.fds);
	tc_close(&b);
	CHECK(td_serves(&env, &c) == 0);
	tc_close(&a);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	for (unsigned i = 0; i < CARRIED; i++)
		close(fds[i]);
	tcircuit_free(&c);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
