// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Traced requests (PROVE with CUZK_PROVE_FLAG_TRACE, docs/PROTOCOL.md): the
 * HELLO flag is granted; a traced request's timeline is in the client's
 * memfd when its completion arrives, is Chrome trace-event JSON (parsed by
 * node when it is installed) and holds every phase of every partition;
 * every bad trace fd is refused with its own message, and none leaks; a
 * file sealed after its check costs the trace, not the proofs; many traced
 * requests at once hold no more than the bound, and nothing once they are
 * done or their client went away. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "daemon/trace.h"
#include "tests/check.h"
#include "tests/daemon/harness.h"

static struct td_env env;
static struct tcircuit circ, other;
static int have_node;

/* What every partition's timeline holds on either backend. */
static const char NAMES[] = "queue wait,srs wait,ntt (h),msm a,msm b_g1,msm b_g2,assemble,verify";

static int trace_memfd(void)
{
	int fd = memfd_create("cuzk-test-trace", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	REQUIRE(fd >= 0);
	return fd;
}

/* PROVE request id with the witness fd and, unless trace_fd < 0, the trace
 * flag and trace_fd.  The reply's status (-1: none). */
static int submit(struct tclient *cl, uint64_t id, int wfd, int trace_fd, struct msg_reply *rep)
{
	struct msg_prove m;
	int fds[2] = { wfd, trace_fd };

	tc_prove_msg(&m, id, circ.name, CUZK_PRIORITY_NORMAL, trace_fd >= 0 ? CUZK_PROVE_FLAG_TRACE : 0, 0);
	if (tc_send(cl, &m, sizeof(m), fds, trace_fd >= 0 ? 2 : 1))
		return -1;
	return tc_reply(cl, rep);
}

/* The memfd's whole content, NUL-terminated (malloc'd). */
static char *slurp(int fd, size_t *ret_len)
{
	struct stat st;
	char *buf;
	size_t got = 0;

	REQUIRE(fstat(fd, &st) == 0);
	buf = malloc((size_t)st.st_size + 1);
	REQUIRE(buf);
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);
		REQUIRE(n > 0);
		got += (size_t)n;
	}
	buf[got] = '\0';
	*ret_len = got;
	return buf;
}

/* The trace in fd is the timeline of job with parts partitions. */
static void check_trace(int fd, uint64_t job, unsigned parts, const char *what)
{
	char path[400], cmd[1200], jobs[24];
	size_t len;
	char *text = slurp(fd, &len);
	FILE *f;

	snprintf(jobs, sizeof(jobs), "%" PRIu64, job);
	CHECK_MSG(len > 0 && text[0] == '{' && strstr(text, "\n]}\n") == text + len - 4,
		  "%s: not a whole trace (%zu bytes)", what, len);
	if (!have_node) {
		/* Without node, at least the names. */
		char needle[64];
		snprintf(needle, sizeof(needle), "\"partition\": %u", parts - 1);
		CHECK_MSG(strstr(text, "\"verify\"") && strstr(text, "\"queue wait\"") && strstr(text, needle),
			  "%s: phases missing", what);
		free(text);
		return;
	}
	snprintf(path, sizeof(path), "%s/trace-%s.json", env.dir, jobs);
	f = fopen(path, "w");
	REQUIRE(f && fwrite(text, 1, len, f) == len && fclose(f) == 0);
	snprintf(cmd, sizeof(cmd), "node %s/tests/daemon/check_trace.mjs %s %u %s '%s' %u", TOP_SRCDIR, path, parts,
		 jobs, NAMES, (unsigned)CUZKD_TRACE_PART_SPANS);
	CHECK_MSG(system(cmd) == 0, "%s: %s", what, cmd);
	free(text);
}

static uint64_t trace_bytes(struct tclient *cl)
{
	char *text = tc_text(cl, 1, 0);
	double v;

	REQUIRE(text);
	v = tc_metric(text, "cuzk_trace_bytes");
	free(text);
	return v < 0 ? UINT64_MAX : (uint64_t)v;
}

static void traced_request(void)
{
	uint8_t proofs[CUZK_MAX_PARTITIONS * CUZK_PROOF_BYTES];
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	struct stat st;
	size_t len;
	char *text;
	int wfd = tcircuit_memfd(&circ, 3, TD_SEALS_OK), ofd = tcircuit_memfd(&other, 1, TD_SEALS_OK);
	int tfd = trace_memfd(), plain = trace_memfd(), failed = trace_memfd();

	REQUIRE(tc_connect_flags(&cl, &env, 0, CUZK_HELLO_TRACE) == 0);
	CHECK_MSG(cl.hello.flags == CUZK_HELLO_TRACE, "HELLO_REPLY flags 0x%x", cl.hello.flags);
	REQUIRE(submit(&cl, 1, wfd, tfd, &rep) == 0);
	REQUIRE(tc_wait(&cl, &rec, proofs, TD_TIMEOUT_MS) == 0);
	CHECK_MSG(rec.status == 0 && rec.num_partitions == 3 && rec.message[0] == '\0', "status %u: %s", rec.status,
		  rec.message);
	for (unsigned p = 0; p < rec.num_partitions && rec.num_partitions == 3; p++)
		CHECK(tcircuit_verify(&circ, proofs + p * CUZK_PROOF_BYTES) == 0);
	/* Written before the completion was posted: whole when it arrives. */
	check_trace(tfd, rep.job_id, 3, "3 partitions");
	/* At the file's offset, which the client's descriptor shares. */
	REQUIRE(fstat(tfd, &st) == 0);
	CHECK(st.st_size > 0 && lseek(tfd, 0, SEEK_CUR) == st.st_size);

	/* The same connection without the flag: one fd, nothing written. */
	REQUIRE(submit(&cl, 2, wfd, -1, &rep) == 0);
	REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
	CHECK(rec.status == 0);
	CHECK(lseek(plain, 0, SEEK_END) == 0);

	/* A job that fails has its timeline too, up to where it failed: a
	 * witness of another circuit fails the shape check before any MSM. */
	REQUIRE(submit(&cl, 3, ofd, failed, &rep) == 0);
	REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
	CHECK_MSG(rec.status == CUZK_E_MISMATCH, "other circuit: %u %s", rec.status, rec.message);
	text = slurp(failed, &len);
	CHECK_MSG(strstr(text, "\"srs wait\"") && strstr(text, "\"check request\"") && !strstr(text, "\"verify\""),
		  "the failed job's trace: %s", text);
	free(text);
	CHECK(trace_bytes(&cl) == 0);
	tc_close(&cl);
	close(wfd);
	close(ofd);
	close(tfd);
	close(plain);
	close(failed);
}

/* A traced request with trace fd tfd (the witness is good) is refused
 * with status, and the message names the trace fd (or the flag). */
static void expect_refused(const char *what, struct tclient *cl, int tfd, int status, const char *needle)
{
	struct msg_reply rep;
	int wfd = tcircuit_memfd(&circ, 1, TD_SEALS_OK);
	int got = submit(cl, 40, wfd, tfd, &rep);

	CHECK_MSG(got == status && strstr(rep.message, needle) && strstr(rep.message, "client"),
		  "%s: status %d (%s), expected %d and \"%s\"", what, got, got >= 0 ? rep.message : "-", status, needle);
	close(wfd);
}

static void bad_fds(void)
{
	char path[400], ro[64];
	struct msg_reply rep;
	struct statfs sfs;
	struct tclient cl;
	int pipefd[2], fd, mfd;

	REQUIRE(tc_connect_flags(&cl, &env, 0, CUZK_HELLO_TRACE) == 0);
	fd = open(env.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	expect_refused("a directory", &cl, fd, CUZK_E_FD, "the trace fd is a directory");
	close(fd);
	REQUIRE(pipe2(pipefd, O_CLOEXEC) == 0);
	expect_refused("a pipe", &cl, pipefd[1], CUZK_E_FD, "the trace fd is a pipe");
	close(pipefd[0]);
	close(pipefd[1]);
	/* A memfd reopened read-only through /proc. */
	mfd = trace_memfd();
	snprintf(ro, sizeof(ro), "/proc/self/fd/%d", mfd);
	fd = open(ro, O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	expect_refused("a read-only memfd", &cl, fd, CUZK_E_FD, "the trace fd is not open for writing (O_RDONLY)");
	close(fd);
	fd = open(ro, O_PATH | O_CLOEXEC);
	REQUIRE(fd >= 0);
	expect_refused("an O_PATH fd", &cl, fd, CUZK_E_FD, "not open for writing (O_PATH)");
	close(fd);
	REQUIRE(fcntl(mfd, F_ADD_SEALS, F_SEAL_WRITE) == 0);
	expect_refused("a WRITE-sealed memfd", &cl, mfd, CUZK_E_SEALS, "sealed against writing");
	close(mfd);
	mfd = trace_memfd();
	REQUIRE(fcntl(mfd, F_ADD_SEALS, F_SEAL_GROW) == 0);
	expect_refused("a GROW-sealed memfd", &cl, mfd, CUZK_E_SEALS, "sealed against growing");
	close(mfd);
	/* A file in the build tree, on a disk unless the tree is on tmpfs. */
	snprintf(path, sizeof(path), "cuzkd-trace-%d.json", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	REQUIRE(fd >= 0 && fstatfs(fd, &sfs) == 0);
	if (sfs.f_type != TMPFS_MAGIC)
		expect_refused("a file on disk", &cl, fd, CUZK_E_FD, "the trace fd is not a file on tmpfs");
	close(fd);
	unlink(path);

	/* The flag with one fd, or two fds without the flag. */
	mfd = trace_memfd();
	{
		struct msg_prove m;
		int wfd = tcircuit_memfd(&circ, 1, TD_SEALS_OK), two[2] = { wfd, mfd };
		tc_prove_msg(&m, 41, circ.name, CUZK_PRIORITY_NORMAL, CUZK_PROVE_FLAG_TRACE, 0);
		CHECK(tc_send(&cl, &m, sizeof(m), &wfd, 1) == 0);
		CHECK(tc_reply(&cl, &rep) == CUZK_E_FD && strstr(rep.message, "the witness, then the trace file"));
		tc_prove_msg(&m, 42, circ.name, CUZK_PRIORITY_NORMAL, 0, 0);
		CHECK(tc_send(&cl, &m, sizeof(m), two, 2) == 0);
		CHECK(tc_reply(&cl, &rep) == CUZK_E_FD);
		close(wfd);
	}
	tc_close(&cl);
	/* The flag on a connection that did not ask for traces: refused, and
	 * the connection stays. */
	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	CHECK(cl.hello.flags == 0);
	expect_refused("no HELLO flag", &cl, mfd, CUZK_E_PROTOCOL, "HELLO flag");
	CHECK(lseek(mfd, 0, SEEK_END) == 0);
	tc_close(&cl);
	close(mfd);
	CHECK(td_serves(&env, &circ) == 0);
}

/* As many traced requests as a client may have in flight, gated so that
 * all are held at once: the daemon holds exactly their bases, at most the
 * bound once they ran, and nothing after; then the same for a client that
 * leaves with its requests in flight, into whose files nothing is written. */
static void greedy(void)
{
	enum { PARTS = 4 };
	const uint64_t base = cuzkd_trace_base_bytes(PARTS);
	const uint64_t bound = base + (uint64_t)PARTS * CUZKD_TRACE_PART_SPANS * sizeof(groth16_span);
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl, watch;
	uint64_t jobs[CUZK_RING_MAX_SLOTS];
	int tfd[CUZK_RING_MAX_SLOTS];
	int wfd = tcircuit_memfd(&circ, PARTS, TD_SEALS_OK);
	unsigned n;

	td_gate_open(&env);
	td_daemon_start(&env, td_one_worker_conf());
	REQUIRE(tc_connect_flags(&cl, &env, 0, CUZK_HELLO_TRACE) == 0);
	REQUIRE(tc_connect(&watch, &env, 0) == 0);
	n = cl.hello.max_inflight;
	for (unsigned i = 0; i < n; i++) {
		tfd[i] = trace_memfd();
		REQUIRE(submit(&cl, 100 + i, wfd, tfd[i], &rep) == 0);
		jobs[i] = rep.job_id;
	}
	/* One more is over the client's limit, traced or not. */
	{
		int extra = trace_memfd();
		CHECK(submit(&cl, 99, wfd, extra, &rep) == CUZK_E_BUSY);
		close(extra);
	}
	CHECK_MSG(trace_bytes(&watch) == n * base, "%u traced requests queued hold %" PRIu64 " bytes, not %u x %" PRIu64,
		  n, trace_bytes(&watch), n, base);
	/* The first client seals its file after it was checked: that trace
	 * cannot be written, and its proofs still arrive. */
	REQUIRE(fcntl(tfd[0], F_ADD_SEALS, F_SEAL_WRITE) == 0);
	td_gate_pass(&env, n * PARTS);
	for (unsigned i = 0; i < n; i++) {
		REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
		CHECK_MSG(rec.status == 0, "request %" PRIu64 ": %u %s", rec.request_id, rec.status, rec.message);
		/* Completions come in the order the jobs finish: one worker,
		 * FIFO, so in the order they were sent.  While the others
		 * still hold theirs, this one's trace is no larger than the
		 * bound allows. */
		CHECK(rec.request_id == 100 + i);
		CHECK(trace_bytes(&watch) <= (n - i - 1) * bound);
		if (i == 0)
			CHECK_MSG(rec.num_partitions == PARTS && strstr(rec.message, "trace not written") &&
					  strstr(rec.message, "the trace fd") && lseek(tfd[0], 0, SEEK_END) == 0,
				  "sealed trace file: %u proofs, message %s", rec.num_partitions, rec.message);
		else
			check_trace(tfd[i], jobs[i], PARTS, "greedy");
		close(tfd[i]);
	}
	{
		char *text = tc_text(&watch, 1, 0);
		REQUIRE(text);
		CHECK(tc_metric(text, "cuzk_traces_total{result=\"failed\"}") == 1);
		CHECK(tc_metric(text, "cuzk_traces_total{result=\"written\"}") == n - 1);
		free(text);
	}
	CHECK_MSG(trace_bytes(&watch) == 0, "%" PRIu64 " trace bytes held with nothing in flight", trace_bytes(&watch));

	/* The client leaves with its traced requests in flight. */
	for (unsigned i = 0; i < n; i++) {
		tfd[i] = trace_memfd();
		REQUIRE(submit(&cl, 200 + i, wfd, tfd[i], &rep) == 0);
	}
	REQUIRE(tc_wait_running(&watch) == 0);
	CHECK(trace_bytes(&watch) == n * base);
	tc_close(&cl);
	td_gate_pass(&env, 1);   /* the one running partition; the rest were dropped */
	REQUIRE(tc_wait_status(&watch, "\"inflight\":0,", NULL) == 0);
	CHECK_MSG(trace_bytes(&watch) == 0, "%" PRIu64 " trace bytes held after the client left", trace_bytes(&watch));
	for (unsigned i = 0; i < n; i++) {
		CHECK_MSG(lseek(tfd[i], 0, SEEK_END) == 0, "a trace written for a client that left");
		close(tfd[i]);
	}
	tc_close(&watch);
	close(wfd);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	td_gate_close(&env);
}

int main(void)
{
	int fds_before;

	have_node = system("node --version >/dev/null 2>&1") == 0;
	if (!have_node)
		printf("note: node is not installed: the traces are not parsed, only searched\n");
	td_env_init(&env, "trace");
	tcircuit_make(&circ, &env, "small.params", 7, 2, 31);
	tcircuit_make(&other, &env, "other.params", 7, 3, 32);
	td_daemon_start(&env, "[engine]\ncpu_workers = 2\n");
	CHECK(td_serves(&env, &circ) == 0);
	fds_before = td_daemon_usage(&env, NULL).fds;
	traced_request();
	bad_fds();
	/* Every trace fd the daemon took (written, refused) it closed. */
	CHECK_MSG(td_daemon_usage(&env, NULL).fds == fds_before, "the daemon had %d fds, now %d", fds_before,
		  td_daemon_usage(&env, NULL).fds);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	greedy();
	tcircuit_free(&circ);
	tcircuit_free(&other);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
