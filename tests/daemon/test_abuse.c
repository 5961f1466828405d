// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Clients that go away or misbehave: disconnect mid-proof, killed with
 * SIGKILL while the proof runs, never read their ring, flood past their
 * limit, break their ring head.  Everyone else is served; what the gone
 * clients held is released.  One worker, and a partition gate (harness.h)
 * that holds "the proof runs" for as long as each case needs, however fast
 * the backend. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/daemon/harness.h"

static struct td_env env;
static struct tcircuit small, slow;

static uint64_t fd_size(int fd)
{
	struct stat st;

	REQUIRE(fstat(fd, &st) == 0);
	return (uint64_t)st.st_size;
}

/* Two requests, the first one proving (and nothing else in flight, so the
 * running partition is ours), then the connection closes. */
static void disconnect_mid_proof(struct tclient *obs)
{
	struct msg_reply rep;
	struct tclient cl;
	int fd = tcircuit_memfd(&slow, 2, TD_SEALS_OK);

	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	CHECK(tc_submit(&cl, 1, slow.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	CHECK(tc_submit(&cl, 2, slow.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	REQUIRE(tc_wait_status(obs, "\"running\":1,", "\"inflight\":2,") == 0);
	tc_close(&cl);
	close(fd);
	td_gate_pass(&env, 1);   /* the running partition; the rest was dropped */
}

/* A child process submits and tells us through a pipe; we kill it once its
 * proof runs (it is the only request in flight). */
static void killed_client(struct tclient *obs)
{
	int pipefd[2];
	pid_t pid;
	char byte;
	int status;

	REQUIRE(pipe(pipefd) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		struct msg_reply rep;
		struct tclient cl;
		int fd = tcircuit_memfd(&slow, 1, TD_SEALS_OK);
		close(pipefd[0]);
		if (tc_connect(&cl, &env, 0) || tc_submit(&cl, 1, slow.name, CUZK_PRIORITY_NORMAL, fd, &rep))
			_exit(1);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	REQUIRE(read(pipefd[0], &byte, 1) == 1);
	close(pipefd[0]);
	REQUIRE(tc_wait_status(obs, "\"running\":1,", "\"inflight\":1,") == 0);
	REQUIRE(kill(pid, SIGKILL) == 0);
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status));
	td_gate_pass(&env, 1);
}

/* An observer stays connected through the previous cases; its own proof
 * queues behind theirs (one worker, FIFO), so once it completes nothing of
 * theirs is in flight, and only the observer's buffer stays mapped.  From
 * here on the gate is open. */
static void observer_checks(struct tclient *obs)
{
	uint8_t proofs[CUZK_MAX_PARTITIONS * CUZK_PROOF_BYTES];
	struct msg_reply rep;
	struct ring_rec rec;
	int fd = tcircuit_memfd(&small, 1, TD_SEALS_OK);
	char *m;

	CHECK(tc_submit(obs, 50, small.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	REQUIRE(tc_wait(obs, &rec, proofs, TD_TIMEOUT_MS) == 0);
	CHECK(rec.status == 0 && rec.request_id == 50);
	CHECK(tcircuit_verify(&small, proofs) == 0);
	m = tc_text(obs, 1, 0);
	REQUIRE(m);
	CHECK_MSG(tc_metric(m, "cuzk_inflight_requests") == 0, "in flight: %g", tc_metric(m, "cuzk_inflight_requests"));
	CHECK_MSG(tc_metric(m, "cuzk_witness_bytes_mapped") == (double)fd_size(fd), "mapped %g, observer %llu",
		  tc_metric(m, "cuzk_witness_bytes_mapped"), (unsigned long long)fd_size(fd));
	CHECK(tc_metric(m, "cuzk_completions_total{status=\"cancelled\"}") >= 1);
	free(m);
	close(fd);
}

static int cancel(struct tclient *cl, uint64_t id, uint32_t scope)
{
	struct msg_cancel m;
	struct msg_reply rep;

	memset(&m, 0, sizeof(m));
	msg_init(&m.hdr, CUZK_MSG_CANCEL, sizeof(m), id);
	m.scope = scope;
	return tc_send(cl, &m, sizeof(m), NULL, 0) ? -1 : tc_reply(cl, &rep);
}

/* CANCEL of a queued request ends it at once; of a running one (two
 * partitions) at the partition boundary, its queued partition dropped.  A
 * job id from another connection can be cancelled too (same uid). */
static void cancels(struct tclient *obs)
{
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	int fd = tcircuit_memfd(&slow, 2, TD_SEALS_OK);
	uint64_t job3;
	char *m;

	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	CHECK(tc_submit(&cl, 1, slow.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	CHECK(tc_submit(&cl, 2, slow.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	CHECK(tc_submit(&cl, 3, slow.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	job3 = rep.job_id;
	REQUIRE(tc_wait_status(obs, "\"running\":1,", "\"inflight\":3,") == 0);
	CHECK(cancel(&cl, 2, CUZK_CANCEL_OWN) == 0);
	REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
	CHECK_MSG(rec.request_id == 2 && rec.status == CUZK_E_CANCELLED, "request %llu: %u",
		  (unsigned long long)rec.request_id, rec.status);
	CHECK(cancel(obs, job3, CUZK_CANCEL_JOB) == 0);
	REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
	CHECK(rec.request_id == 3 && rec.status == CUZK_E_CANCELLED);
	CHECK(cancel(&cl, 1, CUZK_CANCEL_OWN) == 0);
	td_gate_pass(&env, 1);
	REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
	CHECK(rec.request_id == 1 && rec.status == CUZK_E_CANCELLED && rec.num_partitions == 0);
	CHECK(cancel(&cl, 1, CUZK_CANCEL_OWN) == CUZK_E_NOTFOUND);
	m = tc_text(obs, 1, 0);
	REQUIRE(m);
	CHECK_MSG(tc_metric(m, "cuzk_inflight_requests") == 0, "%g", tc_metric(m, "cuzk_inflight_requests"));
	free(m);
	tc_close(&cl);
	close(fd);
}

/* max_inflight 2 and a ring never read: the third request is refused, and
 * accepted again once the client consumes its completions. */
static void never_reads_ring(void)
{
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	int fd = tcircuit_memfd(&small, 1, TD_SEALS_OK);
	uint64_t woken = 0;

	REQUIRE(tc_connect(&cl, &env, 2) == 0);
	CHECK(cl.hello.max_inflight == 2);
	CHECK(tc_submit(&cl, 1, small.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	CHECK(tc_submit(&cl, 2, small.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	/* Wait (on the eventfd, without touching the ring) until both are written. */
	while (__atomic_load_n(&((const struct ring_ctrl *)cl.ring.ring)->tail, __ATOMIC_ACQUIRE) < 2) {
		struct pollfd p = { .fd = cl.efd, .events = POLLIN };
		uint64_t v;
		REQUIRE(poll(&p, 1, TD_TIMEOUT_MS) == 1);
		if (read(cl.efd, &v, sizeof(v)) == sizeof(v))
			woken += v;
	}
	CHECK(tc_submit(&cl, 3, small.name, CUZK_PRIORITY_NORMAL, fd, &rep) == CUZK_E_BUSY);
	CHECK(td_serves(&env, &small) == 0);
	CHECK(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0 && rec.request_id == 1 && rec.status == 0);
	CHECK(tc_submit(&cl, 4, small.name, CUZK_PRIORITY_NORMAL, fd, &rep) == 0);
	CHECK(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0 && rec.request_id == 2);
	CHECK(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0 && rec.request_id == 4);
	tc_close(&cl);
	close(fd);
}

/* max_inflight_per_client = 4 (config): of 12 requests sent back to back
 * exactly 4 are accepted (unread completions count, so timing cannot let
 * a fifth in); another client is served meanwhile. */
static void flood(void)
{
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	int fd = tcircuit_memfd(&small, 1, TD_SEALS_OK);
	int accepted = 0, busy = 0;

	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	CHECK(cl.hello.max_inflight == 4);
	for (int i = 0; i < 12; i++) {
		int st = tc_submit(&cl, 100 + i, small.name, CUZK_PRIORITY_LOW, fd, &rep);
		accepted += st == 0;
		busy += st == CUZK_E_BUSY;
	}
	CHECK_MSG(accepted == 4 && busy == 8, "accepted %d, busy %d", accepted, busy);
	CHECK(td_serves(&env, &small) == 0);
	for (int i = 0; i < accepted; i++)
		CHECK(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0 && rec.status == 0);
	tc_close(&cl);
	close(fd);
}

/* A client that moves its ring head out of range is disconnected at its
 * next completion; nobody else notices. */
static void broken_head(void)
{
	struct msg_reply rep;
	struct tclient cl;
	uint8_t buf[512];
	int fd = tcircuit_memfd(&small, 1, TD_SEALS_OK);

	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	__atomic_store_n(&cl.ring.headp->head, 1000, __ATOMIC_RELEASE);
	CHECK(tc_submit(&cl, 1, small.name, CUZK_PRIORITY_NORMAL, fd, &rep) == CUZK_E_PROTOCOL);
	CHECK(tc_recv(&cl, buf, sizeof(buf), TD_TIMEOUT_MS) == 0);
	tc_close(&cl);
	close(fd);
	CHECK(td_serves(&env, &small) == 0);
}

/* The other limits, on a daemon of their own: witness size, bytes held per
 * client, clients; and a second daemon refused on a live socket. */
static void limits(void)
{
	char cmd[1200];
	struct msg_reply rep;
	struct tclient a, b, c;
	int one = tcircuit_memfd(&slow, 1, TD_SEALS_OK), other = tcircuit_memfd(&slow, 1, TD_SEALS_OK);
	int two = tcircuit_memfd(&slow, 2, TD_SEALS_OK);
	char conf[600];
	uint64_t size = fd_size(one);

	snprintf(conf, sizeof(conf),
		 "%s[limits]\nmax_clients = 2\nmax_witness_bytes = %llu\nmax_pinned_bytes_per_client = %llu\n",
		 td_one_worker_conf(), (unsigned long long)size + 1, (unsigned long long)size * 3 / 2);
	td_daemon_start(&env, conf);
	REQUIRE(tc_connect(&a, &env, 0) == 0);
	CHECK(tc_submit(&a, 1, slow.name, CUZK_PRIORITY_NORMAL, two, &rep) == CUZK_E_BUSY);
	CHECK_MSG(strstr(rep.message, "max_witness_bytes") != NULL, "%s", rep.message);
	CHECK(tc_submit(&a, 2, slow.name, CUZK_PRIORITY_NORMAL, one, &rep) == 0);
	/* The first one is still proving (at the gate): a second buffer would
	 * hold more than max_pinned_bytes_per_client. */
	CHECK(tc_submit(&a, 3, slow.name, CUZK_PRIORITY_NORMAL, other, &rep) == CUZK_E_BUSY);
	CHECK_MSG(strstr(rep.message, "max_pinned_bytes_per_client") != NULL, "%s", rep.message);
	REQUIRE(tc_connect(&b, &env, 0) == 0);
	CHECK(tc_connect(&c, &env, 0) == -CUZK_E_BUSY);
	tc_close(&c);
	snprintf(cmd, sizeof(cmd), "timeout 60 %s --config %s 2>/dev/null", td_cuzkd_bin(), env.conf);
	CHECK_MSG(WEXITSTATUS(system(cmd)) == 1, "a second cuzkd started on a live socket");
	tc_close(&b);
	tc_close(&a);
	td_gate_pass(&env, 1);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	close(one);
	close(other);
	close(two);
}

int main(void)
{
	struct tclient obs;

	td_env_init(&env, "abuse");
	tcircuit_make(&small, &env, "small.params", 7, 2, 31);
	tcircuit_make(&slow, &env, "slow.params", 11, 2, 32);
	char conf[300];

	snprintf(conf, sizeof(conf), "%s[limits]\nmax_inflight_per_client = 4\n", td_one_worker_conf());
	td_gate_open(&env);
	td_daemon_start(&env, conf);
	REQUIRE(tc_connect(&obs, &env, 0) == 0);
	killed_client(&obs);
	disconnect_mid_proof(&obs);
	cancels(&obs);
	td_gate_pass(&env, 60000);   /* open (the pipe holds 64 KiB) */
	observer_checks(&obs);
	CHECK(td_serves(&env, &small) == 0);
	never_reads_ring();
	flood();
	broken_head();
	tc_close(&obs);
	CHECK(td_daemon_alive(&env));
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	td_gate_close(&env);
	td_gate_open(&env);   /* empty again for the next daemon */
	limits();
	tcircuit_free(&small);
	tcircuit_free(&slow);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
