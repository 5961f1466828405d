// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk submit --repeat N --inflight K against a real cuzkd: one client's
 * witness buffer submitted N times (a sector's partitions from a buffer the
 * client keeps), at most K outstanding.
 *
 * One worker behind the partition gate (harness.h), so that the test, not
 * the backend's speed, decides what runs: the first two requests are
 * accepted and the third waits until one completes; then every proof comes
 * back, verifies, and with --seed all are the same bytes; the daemon mapped
 * the buffer once (registration cache: 1 miss, 2 hits).  --buffers 2: two
 * memfds in turn, each mapped once.  --trace: the requests' timelines on
 * one clock (tests/daemon/check_trace.mjs checks them), and after a
 * request fails, the timelines of those that came back.  Then the usage
 * errors: N = 0, K = 0, K above the daemon's limit (found before the
 * witness file is read), --inflight without --repeat, bad --buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/daemon/harness.h"

#ifndef CUZK_BIN
#error "CUZK_BIN must name the cuzk binary under test"
#endif

#define MAX_INFLIGHT 4

static char out[16384];

/* Reads what a popen'd command printed until it exits; its exit code. */
static int finish(FILE *p, const char *cmd)
{
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	fprintf(stderr, "$ %s\n%s", cmd, out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run(const char *cmd)
{
	char full[2048];
	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	FILE *p = popen(full, "r");
	REQUIRE(p);
	return finish(p, cmd);
}

static size_t read_file(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

static double metric(struct tclient *tc, const char *name)
{
	char *m = tc_text(tc, 1, 0);
	double v = tc_metric(m, name);
	free(m);
	return v;
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Three requests, two in flight, held at the gate to see it. */
static void gated_repeat(struct td_env *env, const struct tcircuit *c, const char *wit, const char *proof)
{
	char cmd[1600];
	struct tclient tc;
	uint8_t bytes[4 * CUZK_PROOF_BYTES];

	snprintf(cmd, sizeof(cmd),
		 "%s submit --socket %s --srs %s --witness %s --out %s --seed 5 --repeat 3 --inflight 2 2>&1", CUZK_BIN,
		 env->socket, c->name, wit, proof);
	FILE *p = popen(cmd, "r");
	REQUIRE(p);
	REQUIRE(tc_connect(&tc, env, 0) == 0);
	/* One at the gate, one queued, and no third: a completion must come
	 * first. */
	CHECK(tc_wait_status(&tc, "\"inflight\":2,", NULL) == 0);
	CHECK_MSG(metric(&tc, "cuzk_requests_total") == 2, "more than --inflight 2 requests were sent");
	td_gate_pass(env, 1);
	/* The first completed, and the client sent the third in its place. */
	CHECK(tc_wait_status(&tc, "\"proofs_ok\":1,", "\"inflight\":2,") == 0);
	CHECK(metric(&tc, "cuzk_requests_total") == 3);
	td_gate_pass(env, 2);
	CHECK(finish(p, cmd) == 0);
	CHECK(count(out, " of 3 (job ") == 3 && strstr(out, "request 1 of 3") && strstr(out, "request 3 of 3"));
	CHECK(strstr(out, "daemon ms: check ") && strstr(out, " register ") && strstr(out, " msm "));
	CHECK(strstr(out, "3 requests of 1 partition, 3 proofs (identical: --seed), at most 2 in flight: ") &&
	      strstr(out, " proofs/s; latency ms min "));
	CHECK(read_file(proof, bytes, sizeof(bytes)) == 3 * CUZK_PROOF_BYTES);
	for (int i = 0; i < 3; i++)
		CHECK_MSG(tcircuit_verify(c, bytes + i * CUZK_PROOF_BYTES) == 0, "proof %d does not verify", i);
	CHECK(memcmp(bytes, bytes + CUZK_PROOF_BYTES, CUZK_PROOF_BYTES) == 0 &&
	      memcmp(bytes, bytes + 2 * CUZK_PROOF_BYTES, CUZK_PROOF_BYTES) == 0);
	/* One memfd: mapped (and on a GPU pinned) once, found again twice. */
	CHECK(metric(&tc, "cuzk_registration_cache_misses_total") == 1);
	CHECK(metric(&tc, "cuzk_registration_cache_hits_total") == 2);
	tc_close(&tc);
}

/* --trace with a request that fails: the first is proved, the third
 * cancelled while the second waits at the gate.  The file holds the two
 * that came back, the cancelled one up to where it stopped. */
static void traced_failure(struct td_env *env, const struct tcircuit *c, const char *wit, const char *proof)
{
	char cmd[4096], line[512], trace[400], *json;
	unsigned long long job = 0;
	struct tclient tc;
	uint8_t bytes[CUZK_PROOF_BYTES];

	snprintf(trace, sizeof(trace), "%s/failed.json", env->dir);
	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs %s --witness %s --out %s.f --repeat 3 --inflight 2 "
		 "--trace %s 2>&1", CUZK_BIN, env->socket, c->name, wit, proof, trace);
	FILE *p = popen(cmd, "r");
	REQUIRE(p);
	REQUIRE(tc_connect(&tc, env, 0) == 0);
	CHECK(tc_wait_status(&tc, "\"inflight\":2,", NULL) == 0);
	td_gate_pass(env, 1);
	while (fgets(line, sizeof(line), p) && sscanf(line, "request 1 of 3 (job %llu)", &job) != 1)
		fputs(line, stderr);
	REQUIRE(job > 0);
	/* The third is sent once the first is back (gated_repeat proved 3). */
	CHECK(tc_wait_status(&tc, "\"proofs_ok\":4,", "\"inflight\":2,") == 0);
	snprintf(line, sizeof(line), "%s cancel --socket %s --request %llu", CUZK_BIN, env->socket, job + 2);
	CHECK(run(line) == 0);
	CHECK(finish(p, cmd) != 0);
	CHECK(strstr(out, "request 3 of 3 (job ") && strstr(out, "the timeline of the 2 requests that came back"));
	json = NULL;
	FILE *f = fopen(trace, "r");
	if (f) {
		json = calloc(1, 1 << 20);
		REQUIRE(json);
		CHECK(fread(json, 1, (1 << 20) - 1, f) > 0);
		fclose(f);
	}
	CHECK_MSG(json, "%s was not written", trace);
	if (json) {
		char j1[48], j3[48], j2[48];
		snprintf(j1, sizeof(j1), "\"job\": \"%llu\"", job);
		snprintf(j2, sizeof(j2), "\"job\": \"%llu\"", job + 1);
		snprintf(j3, sizeof(j3), "\"job\": \"%llu\"", job + 2);
		CHECK(strstr(json, j1) && strstr(json, j3) && !strstr(json, j2));
		CHECK(strstr(json, "\"name\": \"request 1\"") && strstr(json, "\"name\": \"request 3\"") &&
		      strstr(json, "\"cuzk submit\""));
	}
	free(json);
	snprintf(cmd, sizeof(cmd), "%s.f", proof);
	CHECK_MSG(read_file(cmd, bytes, sizeof(bytes)) == 0, "a failed run wrote proofs");
	/* The second, still at the gate, is cancelled by the disconnect. */
	td_gate_pass(env, 1);
	tc_close(&tc);
}

int main(void)
{
	struct td_env env;
	struct tcircuit c;
	char cmd[4096], wit[400], proof[400], extra[512];
	uint8_t bytes[4 * CUZK_PROOF_BYTES];

	td_env_init(&env, "repeat");
	tcircuit_make(&c, &env, "small.params", 8, 2, 5);
	snprintf(wit, sizeof(wit), "%s/w.witness", env.dir);
	snprintf(proof, sizeof(proof), "%s/p.proof", env.dir);
	close(tcircuit_file(&c, wit));
	snprintf(extra, sizeof(extra), "%s[limits]\nmax_inflight_per_client = %d\n", td_one_worker_conf(), MAX_INFLIGHT);
	td_gate_open(&env);
	td_daemon_start(&env, extra);

	gated_repeat(&env, &c, wit, proof);
	traced_failure(&env, &c, wit, proof);

	/* The gate open from here on (the pipe holds 64 KiB). */
	td_gate_pass(&env, 60000);
	/* Random r and s: three different proofs, each valid; K = N. */
	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs %s --witness %s --out %s.2 --repeat 3 --inflight %d",
		 CUZK_BIN, env.socket, c.name, wit, proof, MAX_INFLIGHT);
	CHECK(run(cmd) == 0 && strstr(out, "3 requests of 1 partition, 3 proofs, at most 3 in flight: "));
	snprintf(cmd, sizeof(cmd), "%s.2", proof);
	CHECK(read_file(cmd, bytes, sizeof(bytes)) == 3 * CUZK_PROOF_BYTES);
	for (int i = 0; i < 3; i++)
		CHECK_MSG(tcircuit_verify(&c, bytes + i * CUZK_PROOF_BYTES) == 0, "proof %d does not verify", i);
	CHECK(memcmp(bytes, bytes + CUZK_PROOF_BYTES, CUZK_PROOF_BYTES) != 0);

	/* Two memfds in turn: four requests, each buffer mapped once (two new
	 * misses) and found once more (two new hits); the proofs in order. */
	struct tclient tc;
	REQUIRE(tc_connect(&tc, &env, 0) == 0);
	const double miss0 = metric(&tc, "cuzk_registration_cache_misses_total"),
		     hit0 = metric(&tc, "cuzk_registration_cache_hits_total");
	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs %s --witness %s --out %s.4 --seed 7 --repeat 4 "
		 "--buffers 2", CUZK_BIN, env.socket, c.name, wit, proof);
	CHECK(run(cmd) == 0 && strstr(out, "4 requests of 1 partition from 2 buffers, 4 proofs (identical: --seed)") &&
	      count(out, "; buffer 1\n") == 2 && count(out, "; buffer 2\n") == 2);
	CHECK(metric(&tc, "cuzk_registration_cache_misses_total") == miss0 + 2);
	CHECK(metric(&tc, "cuzk_registration_cache_hits_total") == hit0 + 2);
	tc_close(&tc);
	snprintf(cmd, sizeof(cmd), "%s.4", proof);
	CHECK(read_file(cmd, bytes, sizeof(bytes)) == 4 * CUZK_PROOF_BYTES);
	for (int i = 0; i < 4; i++)
		CHECK_MSG(tcircuit_verify(&c, bytes + i * CUZK_PROOF_BYTES) == 0, "proof %d from two buffers", i);
	CHECK(memcmp(bytes, bytes + 3 * CUZK_PROOF_BYTES, CUZK_PROOF_BYTES) == 0);

	/* --trace: three requests' timelines in one file, on one clock. */
	snprintf(extra, sizeof(extra), "%s/repeat.json", env.dir);
	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs %s --witness %s --out %s.5 --repeat 3 --inflight 2 "
		 "--trace %s", CUZK_BIN, env.socket, c.name, wit, proof, extra);
	CHECK(run(cmd) == 0 && strstr(out, "the timeline of 3 requests, from the first one's arrival"));
	{
		unsigned long long job[3] = { 0 };
		for (int i = 0; i < 3; i++) {
			char needle[32];
			snprintf(needle, sizeof(needle), "request %d of 3 (job ", i + 1);
			const char *q = strstr(out, needle);
			CHECK(q && sscanf(q + strlen(needle), "%llu", &job[i]) == 1);
		}
		if (system("node --version >/dev/null 2>&1") == 0) {
			snprintf(cmd, sizeof(cmd), "node %s/tests/daemon/check_trace.mjs %s 1 %llu,%llu,%llu "
				 "'queue wait,srs wait,ntt (h),msm a,assemble' 260", TOP_SRCDIR, extra, job[0], job[1], job[2]);
			CHECK(run(cmd) == 0);
		}
	}

	/* Usage errors (exit 2), each naming the option. */
	static const struct { const char *args, *says; } refused[] = {
		{ "--repeat 0", "--repeat 0 is out of range" },
		{ "--repeat 3 --inflight 0", "--inflight 0 is out of range" },
		{ "--repeat x", "--repeat 'x' is not a decimal number" },
		{ "--inflight 2", "--inflight needs --repeat" },
		{ "--buffers 2", "--buffers needs --repeat" },
		{ "--repeat 2 --buffers 3", "--buffers 3 with --repeat 2: a buffer no request uses" },
		{ "--repeat 3 --buffers 0", "--buffers 0 is out of range" },
		{ "--repeat 20 --buffers 17", "--buffers 17 is out of range" },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs %s --witness %s --out %s.3 %s", CUZK_BIN,
			 env.socket, c.name, wit, proof, refused[i].args);
		CHECK(run(cmd) == 2 && strstr(out, refused[i].says));
	}
	/* Above the daemon's limit: said before the witness is read (it does
	 * not even exist here). */
	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs %s --witness %s/absent.witness --out %s.3 --repeat 9 "
		 "--inflight %d", CUZK_BIN, env.socket, c.name, env.dir, proof, MAX_INFLIGHT + 1);
	snprintf(extra, sizeof(extra), "--inflight %d: the daemon allows %d requests in flight on one connection",
		 MAX_INFLIGHT + 1, MAX_INFLIGHT);
	CHECK(run(cmd) == 2 && strstr(out, extra));
	CHECK(access(proof, F_OK) == 0);
	snprintf(cmd, sizeof(cmd), "%s.3", proof);
	CHECK_MSG(access(cmd, F_OK) != 0, "a refused command line wrote proofs");
	CHECK(td_serves(&env, &c) == 0);

	int st = td_daemon_stop(&env, SIGTERM);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	tcircuit_free(&c);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
