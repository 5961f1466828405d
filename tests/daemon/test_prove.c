// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzkd end to end: proofs of several circuits over the real socket verify
 * (groth16_verify and, when node and the oracle are there, @noble/curves);
 * several partitions per request, loaded once by two workers at the same
 * time; fixed r/s give the same bytes twice; a reused buffer hits the
 * registration cache; status, metrics and cancel answer.  Then the SRS
 * cache: preload, eviction under cache_budget, a broken parameter file. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/daemon/harness.h"

static int prove(struct tclient *cl, const struct tcircuit *c, uint64_t id, int fd, uint32_t flags,
		 uint64_t seed, struct ring_rec *rec, uint8_t *proofs)
{
	struct msg_prove m;
	struct msg_reply rep;

	tc_prove_msg(&m, id, c->name, CUZK_PRIORITY_NORMAL, flags, seed);
	if (tc_send(cl, &m, sizeof(m), &fd, 1) || tc_reply(cl, &rep) != 0) {
		fprintf(stderr, "request %llu rejected: %s\n", (unsigned long long)id, rep.message);
		return -1;
	}
	if (tc_wait(cl, rec, proofs, TD_TIMEOUT_MS))
		return -1;
	if (rec->request_id != id || rec->status != 0) {
		fprintf(stderr, "request %llu: status %u: %s\n", (unsigned long long)id, rec->status, rec->message);
		return -1;
	}
	return 0;
}

/* The independent verifier (tests/oracle, node + @noble/curves) on the
 * daemon's proofs, when it is installed in the source tree (scripts/test.sh
 * runs npm ci there first).  The copy tests/oracle/run.sh may be installing
 * into the build tree at this very moment (make -j) is not used: npm ci
 * replaces node_modules while it runs. */
static void oracle(const struct td_env *env, const struct tcircuit *c, const uint8_t *proofs, unsigned n)
{
	static const char *const dirs[] = { TOP_SRCDIR "/tests/oracle" };
	char path[700], cmd[3000];
	const char *dir = NULL;
	FILE *f;
	int fd;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !dir; i++) {
		snprintf(path, sizeof(path), "%s/node_modules/@noble/curves", dirs[i]);
		if (access(path, F_OK) == 0)
			dir = dirs[i];
	}
	if (!dir || system("node --version >/dev/null 2>&1") != 0) {
		printf("note: the noble oracle is not installed; its check was skipped\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/daemon.proof", env->dir);
	f = fopen(path, "w");
	REQUIRE(f && fwrite(proofs, CUZK_PROOF_BYTES, n, f) == n && fclose(f) == 0);
	snprintf(path, sizeof(path), "%s/daemon.witness", env->dir);
	fd = tcircuit_file_parts(c, path, n);
	close(fd);
	snprintf(cmd, sizeof(cmd), "node %s/verify_noble.mjs --params %s/%s --proof %s/daemon.proof --witness %s",
		 dir, env->srs_dir, c->name, env->dir, path);
	CHECK_MSG(system(cmd) == 0, "the noble oracle rejects the daemon's proofs: %s", cmd);
	/* And it is not a rubber stamp: a flipped byte in C is rejected. */
	snprintf(path, sizeof(path), "%s/daemon.proof", env->dir);
	f = fopen(path, "r+");
	REQUIRE(f && fseek(f, 150, SEEK_SET) == 0 && fputc(proofs[150] ^ 1, f) != EOF && fclose(f) == 0);
	CHECK_MSG(system(cmd) != 0, "the noble oracle accepts a tampered proof");
	printf("the noble oracle verified %u proofs of the daemon\n", n);
}

/* A daemon whose SRS cache holds (almost) nothing: every switch of SRS is a
 * load and an eviction.  Preload is awaited through the status.  A
 * parameter file that does not parse fails every request that wants it. */
static void srs_cache(struct td_env *env, const struct tcircuit *circ)
{
	static const char garbage[] = "not a parameters file";
	struct ring_rec rec;
	struct tclient cl;
	char path[600], *text;
	FILE *f;
	int fd0 = tcircuit_memfd(&circ[0], 1, TD_SEALS_OK), fd1 = tcircuit_memfd(&circ[1], 2, TD_SEALS_OK);
	int fdb;

	snprintf(path, sizeof(path), "%s/broken.params", env->srs_dir);
	f = fopen(path, "w");
	REQUIRE(f && fputs(garbage, f) >= 0 && fclose(f) == 0);
	td_daemon_start(env, "[srs]\npreload = small-8.params\n");
	REQUIRE(tc_connect(&cl, env, 0) == 0);
	REQUIRE(tc_wait_status(&cl, "\"entries\":1,\"loading\":0,", NULL) == 0);
	CHECK(prove(&cl, &circ[0], 1, fd0, 0, 0, &rec, NULL) == 0);
	text = tc_text(&cl, 1, 0);
	REQUIRE(text);
	CHECK(tc_metric(text, "cuzk_srs_cache_misses_total") == 1 && tc_metric(text, "cuzk_srs_cache_hits_total") == 1);
	free(text);
	tc_close(&cl);
	CHECK(td_daemon_stop(env, SIGTERM) == 0);

	td_daemon_start(env, "[engine]\ncpu_workers = 2\n[srs]\ncache_budget = 1K\n");
	REQUIRE(tc_connect(&cl, env, 0) == 0);
	CHECK(prove(&cl, &circ[0], 1, fd0, 0, 0, &rec, NULL) == 0);
	CHECK(prove(&cl, &circ[1], 2, fd1, 0, 0, &rec, NULL) == 0);
	CHECK(prove(&cl, &circ[0], 3, fd0, 0, 0, &rec, NULL) == 0);
	/* Two partitions of a broken file: both workers get the load's error. */
	fdb = tcircuit_memfd(&circ[0], 2, TD_SEALS_OK);
	{
		struct msg_reply rep;
		CHECK(tc_submit(&cl, 4, "broken.params", CUZK_PRIORITY_NORMAL, fdb, &rep) == 0);
		REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
		CHECK_MSG(rec.status == CUZK_E_FORMAT && strstr(rec.message, "broken.params"), "broken: %u %s",
			  rec.status, rec.message);
	}
	text = tc_text(&cl, 1, 0);
	REQUIRE(text);
	CHECK_MSG(tc_metric(text, "cuzk_srs_cache_misses_total") >= 3, "%s", text);
	CHECK(tc_metric(text, "cuzk_srs_cache_evictions_total") >= 2);
	CHECK(tc_metric(text, "cuzk_srs_load_failures_total") >= 1);
	CHECK(tc_metric(text, "cuzk_srs_cache_bytes") == 0);
	free(text);
	tc_close(&cl);
	CHECK(td_daemon_stop(env, SIGTERM) == 0);
	close(fd0);
	close(fd1);
	close(fdb);
}

int main(void)
{
	static uint8_t proofs[CUZK_MAX_PARTITIONS * CUZK_PROOF_BYTES], again[CUZK_MAX_PARTITIONS * CUZK_PROOF_BYTES];
	struct tcircuit circ[3];
	struct td_env env;
	struct tclient cl;
	struct ring_rec rec;
	struct msg_cancel cancel;
	struct msg_reply rep;
	char *text;
	int fd;

	td_env_init(&env, "prove");
	tcircuit_make(&circ[0], &env, "small-8.params", 8, 2, 1);
	tcircuit_make(&circ[1], &env, "inputs-9.params", 9, 7, 2);
	tcircuit_make(&circ[2], &env, "mid-10.params", 10, 3, 3);
	printf("backend %s\n", td_backend());
	td_daemon_start(&env, "[engine]\ncpu_workers = 2\n");
	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	CHECK(cl.hello.max_inflight > 0 && cl.hello.max_inflight <= cl.hello.ring_slots);

	for (int i = 0; i < 3; i += 2) {
		fd = tcircuit_memfd(&circ[i], 1, TD_SEALS_OK);
		CHECK_MSG(prove(&cl, &circ[i], 10 + i, fd, 0, 0, &rec, proofs) == 0, "circuit %d", i);
		CHECK_MSG(rec.num_partitions == 1, "circuit %d: %u partitions", i, rec.num_partitions);
		CHECK_MSG(tcircuit_verify(&circ[i], proofs) == 0, "circuit %d", i);
		CHECK(rec.phase_ns[CUZK_PHASE_TOTAL] > 0 && rec.phase_ns[CUZK_PHASE_MSM] > 0);
		close(fd);
	}

	/* Three partitions in one request, in order, each a valid proof.  It is
	 * the first use of this SRS: both workers ask for it at once, and it is
	 * loaded once (the metrics below count 3 loads for 3 files). */
	fd = tcircuit_memfd(&circ[1], 3, TD_SEALS_OK);
	CHECK(prove(&cl, &circ[1], 20, fd, 0, 0, &rec, proofs) == 0);
	CHECK(rec.num_partitions == 3);
	for (unsigned p = 0; p < 3 && rec.num_partitions == 3; p++)
		CHECK_MSG(tcircuit_verify(&circ[1], proofs + p * CUZK_PROOF_BYTES) == 0, "partition %u", p);
	oracle(&env, &circ[1], proofs, 3);
	/* Without a seed, r and s are random: the partitions' proofs differ. */
	CHECK(memcmp(proofs, proofs + CUZK_PROOF_BYTES, CUZK_PROOF_BYTES) != 0);

	/* Fixed r/s (test flag): the same bytes twice; the same buffer again
	 * is found in the registration cache. */
	CHECK(prove(&cl, &circ[1], 21, fd, CUZK_REQ_FIXED_RS, 99, &rec, proofs) == 0);
	CHECK(prove(&cl, &circ[1], 22, fd, CUZK_REQ_FIXED_RS, 99, &rec, again) == 0);
	CHECK(memcmp(proofs, again, 3 * CUZK_PROOF_BYTES) == 0);
	CHECK(tcircuit_verify(&circ[1], again + 2 * CUZK_PROOF_BYTES) == 0);
	close(fd);

	/* A scalar form that contradicts the witness header is refused. */
	fd = tcircuit_memfd(&circ[0], 1, TD_SEALS_OK);
	{
		struct msg_prove m;
		tc_prove_msg(&m, 30, circ[0].name, CUZK_PRIORITY_LOW, CUZK_REQ_CANONICAL, 0);
		CHECK(tc_send(&cl, &m, sizeof(m), &fd, 1) == 0);
		CHECK(tc_reply(&cl, &rep) == CUZK_E_MISMATCH);
	}
	close(fd);

	/* Cancel of an id that is not in flight. */
	memset(&cancel, 0, sizeof(cancel));
	msg_init(&cancel.hdr, CUZK_MSG_CANCEL, sizeof(cancel), 12345);
	CHECK(tc_send(&cl, &cancel, sizeof(cancel), NULL, 0) == 0);
	CHECK(tc_reply(&cl, &rep) == CUZK_E_NOTFOUND);

	text = tc_text(&cl, 1, 0);
	REQUIRE(text);
	CHECK(tc_metric(text, "cuzk_proofs_total{result=\"ok\"}") == 5);
	CHECK(tc_metric(text, "cuzk_registration_cache_hits_total") >= 2);
	CHECK(tc_metric(text, "cuzk_srs_cache_misses_total") == 3);
	CHECK(tc_metric(text, "cuzk_requests_rejected_total{status=\"mismatch\"}") == 1);
	CHECK(strstr(text, "cuzk_phase_seconds_sum{phase=\"msm\"}") != NULL);
	free(text);
	text = tc_text(&cl, 0, 0);
	REQUIRE(text);
	CHECK(strstr(text, "queue: critical 0 high 0 normal 0 low 0") != NULL);
	if (strcmp(td_backend(), "cpu") == 0)
		CHECK(strstr(text, "device cpu 0: 2 workers") != NULL);
	free(text);
	text = tc_text(&cl, 0, 1);
	REQUIRE(text);
	CHECK(text[0] == '{' && strstr(text, "\"proofs_ok\":5") != NULL);
	free(text);
	tc_close(&cl);

	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	srs_cache(&env, circ);
	for (int i = 0; i < 3; i++)
		tcircuit_free(&circ[i]);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
