// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A bounded soak (issue 11): honest clients prove continuously, first alone,
 * then while greedy clients of every kind the issue found run beside them
 * as another uid:
 *   hog       keeps silent connections open (reopened as hello_timeout
 *             closes them);
 *   carrier   opens connections with descriptors on its HELLO, refused
 *             once its uid's connections are used up;
 *   junk      submits 1-byte memfds, sparse memfds, O_WRONLY reopens,
 *             critical requests it may not make, and empty packets;
 *   filler    keeps its in-flight limit full of 8-partition requests at
 *             normal priority and reads its ring only when refused;
 *   rewriter  rewrites its witness's scalars while it is proved.
 * Every honest proof must verify; afterwards, once the greedy clients are
 * gone, the daemon's fds and mappings are what they were after the honest
 * phase alone, and its RSS within a margin.  Prints the figures: fds, maps,
 * RSS, honest latency p50/p99 alone and beside the greedy clients.
 * $CUZKD_SOAK_SECONDS sets each phase's length (default 5).  The greedy
 * side needs another uid: without root the test is skipped. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "tests/check.h"
#include "tests/daemon/harness.h"

enum { HONEST = 2, MAX_SAMPLES = 100000, HOGS = 2, GREEDY_UID = 65534 };

static struct td_env env;
static struct tcircuit small, slow;
static atomic_int stop;

/* ---- honest clients ---- */

struct honest {
	pthread_t th;
	double *lat;
	unsigned n, bad;
};

static void *honest_main(void *p)
{
	struct honest *h = p;
	uint8_t proof[CUZK_PROOF_BYTES];
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	int fd = tcircuit_memfd(&small, 1, TD_SEALS_OK);   /* reused, as a pool would */
	uint64_t id = 0;

	if (tc_connect(&cl, &env, 0)) {
		h->bad++;
		close(fd);
		return NULL;
	}
	while (!atomic_load(&stop) && h->n < MAX_SAMPLES) {
		double t0 = monotonic_ms();
		if (tc_submit(&cl, ++id, small.name, CUZK_PRIORITY_HIGH, fd, &rep) != 0 ||
		    tc_wait(&cl, &rec, proof, TD_TIMEOUT_MS) || rec.status != 0 || tcircuit_verify(&small, proof)) {
			fprintf(stderr, "honest request %llu failed: %s %s\n", (unsigned long long)id, rep.message,
				rec.message);
			h->bad++;
			break;
		}
		h->lat[h->n++] = monotonic_ms() - t0;
	}
	tc_close(&cl);
	close(fd);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct figures {
	unsigned proofs, bad;
	double p50, p99;
};

static struct figures honest_phase(double seconds, void (*during)(void), void (*after)(void))
{
	struct honest h[HONEST];
	struct figures f = { 0 };
	double *all = malloc(HONEST * MAX_SAMPLES * sizeof(double));

	REQUIRE(all);
	atomic_store(&stop, 0);
	if (during)   /* before the threads: it forks */
		during();
	for (int i = 0; i < HONEST; i++) {
		h[i] = (struct honest){ .lat = all + i * MAX_SAMPLES };
		REQUIRE(pthread_create(&h[i].th, NULL, honest_main, &h[i]) == 0);
	}
	for (double end = monotonic_ms() + seconds * 1e3; monotonic_ms() < end;) {
		struct pollfd none = { .fd = -1 };
		poll(&none, 1, 100);   /* the phase's length; nothing waits on it */
	}
	atomic_store(&stop, 1);
	if (after)
		after();
	for (int i = 0; i < HONEST; i++) {
		pthread_join(h[i].th, NULL);
		memmove(all + f.proofs, h[i].lat, h[i].n * sizeof(double));
		f.proofs += h[i].n;
		f.bad += h[i].bad;
	}
	qsort(all, f.proofs, sizeof(double), cmp_double);
	if (f.proofs) {
		f.p50 = all[f.proofs / 2];
		f.p99 = all[f.proofs * 99 / 100];
	}
	free(all);
	return f;
}

/* ---- greedy clients, in a child process of another uid ---- */

struct greedy_counts {
	atomic_uint hog_closed, refused, carried_accepted, junk, busy, verify_failed, filled;
};

static int connect_retry(struct tclient *cl)
{
	while (!atomic_load(&stop)) {
		if (tc_connect(cl, &env, 0) == 0)
			return 0;
		tc_close(cl);
		struct pollfd none = { .fd = -1 };
		poll(&none, 1, 20);   /* refused: its uid's slots are taken; try again */
	}
	return -1;
}

static void *hog_main(void *p)
{
	struct greedy_counts *g = p;
	struct tclient cl[HOGS];
	uint8_t buf[512];

	for (int i = 0; i < HOGS; i++)
		tc_connect_raw(&cl[i], &env);
	while (!atomic_load(&stop)) {
		for (int i = 0; i < HOGS; i++) {
			if (cl[i].fd < 0) {
				tc_connect_raw(&cl[i], &env);
				continue;
			}
			/* The timeout's REPLY, then the end of the stream. */
			if (tc_recv(&cl[i], buf, sizeof(buf), 10) == 0) {
				atomic_fetch_add(&g->hog_closed, 1);
				tc_close(&cl[i]);
				tc_connect_raw(&cl[i], &env);
			}
		}
	}
	for (int i = 0; i < HOGS; i++)
		tc_close(&cl[i]);
	return NULL;
}

static void *carrier_main(void *p)
{
	struct greedy_counts *g = p;
	int fds[4] = { memfd_create("cuzk-soak-carried", MFD_CLOEXEC), eventfd(0, EFD_CLOEXEC),
		       memfd_create("cuzk-soak-carried", MFD_CLOEXEC), eventfd(0, EFD_CLOEXEC) };

	if (ftruncate(fds[0], 1 << 20) || ftruncate(fds[2], 1 << 20))
		return NULL;
	while (!atomic_load(&stop)) {
		struct msg_hello h;
		struct msg_reply rep;
		struct tclient cl;
		int st;
		if (tc_connect_raw(&cl, &env))
			continue;
		memset(&h, 0, sizeof(h));
		msg_init(&h.hdr, CUZK_MSG_HELLO, sizeof(h), 1);
		tc_send(&cl, &h, sizeof(h), fds, 4);
		/* A refused connection may first report the reset (PROTOCOL.md §3),
		 * then the REPLY queued before it. */
		st = tc_reply(&cl, &rep);
		if (st < 0)
			st = tc_reply(&cl, &rep);
		/* Accepted (when a silent connection had just been closed): the
		 * fds on its HELLO are refused instead. */
		atomic_fetch_add(st == CUZK_E_BUSY ? &g->refused : &g->carried_accepted, 1);
		tc_close(&cl);
	}
	for (int i = 0; i < 4; i++)
		close(fds[i]);
	return NULL;
}

static int sparse_fd(void)
{
	struct witness_desc d;
	cuzk_error err;
	int fd = memfd_create("cuzk-soak-sparse", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	uint8_t hdr[4096] = { 0 };

	if (fd < 0 || witness_layout(&d, 1u << 20, 2, 1u << 21, 1, CUZK_WITNESS_MONTGOMERY, &err) ||
	    ftruncate(fd, (off_t)d.file_size))
		return fd;
	witness_write_header(hdr, &d);
	if (pwrite(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) || fcntl(fd, F_ADD_SEALS, TD_SEALS_OK))
		return fd;
	return fd;
}

static void *junk_main(void *p)
{
	struct greedy_counts *g = p;
	struct msg_reply rep;
	struct tclient cl;
	uint64_t id = 0;

	if (connect_retry(&cl))
		return NULL;
	while (!atomic_load(&stop)) {
		int fd, other;
		char path[64];
		switch (id++ % 5) {
		case 0:
			fd = memfd_create("cuzk-soak-tiny", MFD_CLOEXEC | MFD_ALLOW_SEALING);
			if (fd >= 0 && write(fd, "x", 1) == 1 && fcntl(fd, F_ADD_SEALS, TD_SEALS_OK) == 0)
				tc_submit(&cl, id, small.name, CUZK_PRIORITY_NORMAL, fd, &rep);
			close(fd);
			break;
		case 1:
			fd = sparse_fd();
			tc_submit(&cl, id, small.name, CUZK_PRIORITY_NORMAL, fd, &rep);
			close(fd);
			break;
		case 2:
			fd = tcircuit_memfd(&small, 1, TD_SEALS_OK);
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			other = open(path, O_WRONLY | O_CLOEXEC);
			tc_submit(&cl, id, small.name, CUZK_PRIORITY_NORMAL, other, &rep);
			close(other);
			close(fd);
			break;
		case 3:
			fd = tcircuit_memfd(&small, 1, TD_SEALS_OK);
			tc_submit(&cl, id, small.name, CUZK_PRIORITY_CRITICAL, fd, &rep);
			close(fd);
			break;
		default:   /* an empty packet: answered, and the connection closed */
			tc_send(&cl, "", 0, NULL, 0);
			tc_reply(&cl, &rep);
			tc_close(&cl);
			if (connect_retry(&cl))
				return NULL;
			break;
		}
		atomic_fetch_add(&g->junk, 1);
	}
	tc_close(&cl);
	return NULL;
}

static void *filler_main(void *p)
{
	struct greedy_counts *g = p;
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	int fd = tcircuit_memfd(&slow, 8, TD_SEALS_OK);
	uint64_t id = 0;

	if (connect_retry(&cl))
		return NULL;
	while (!atomic_load(&stop)) {
		int st = tc_submit(&cl, ++id, slow.name, CUZK_PRIORITY_NORMAL, fd, &rep);
		if (st == 0) {
			atomic_fetch_add(&g->filled, 1);
			continue;
		}
		atomic_fetch_add(&g->busy, 1);
		if (st < 0)
			break;
		/* Refused: read one completion, then fill again. */
		if (tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS))
			break;
	}
	tc_close(&cl);
	close(fd);
	return NULL;
}

static void *rewriter_main(void *p)
{
	struct greedy_counts *g = p;
	struct msg_reply rep;
	struct ring_rec rec;
	struct witness_desc d;
	struct tclient cl;
	struct stat st;
	cuzk_error err;
	int fd = tcircuit_memfd(&small, 1, TD_SEALS_OK);
	uint64_t id = 0;
	uint8_t *map;

	if (fstat(fd, &st) || connect_retry(&cl))
		return NULL;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || witness_parse(&d, map, (size_t)st.st_size, "soak", &err))
		return NULL;
	while (!atomic_load(&stop)) {
		uint8_t *aux = map + d.part[0].offset[CUZK_SEC_AUX] + (id % 8) * 32;
		aux[0] ^= 1;   /* a different witness from here on */
		if (tc_submit(&cl, ++id, small.name, CUZK_PRIORITY_NORMAL, fd, &rep) != 0)
			continue;
		aux[1] ^= 1;   /* and during the proof */
		if (tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS))
			break;
		if (rec.status == CUZK_E_VERIFY)
			atomic_fetch_add(&g->verify_failed, 1);
	}
	munmap(map, (size_t)st.st_size);
	tc_close(&cl);
	close(fd);
	return NULL;
}

/* The child: every greedy kind in its own thread until SIGTERM; then it
 * prints its counts on the pipe and exits. */
static pid_t greedy_pid;
static int greedy_pipe[2];

static void greedy_child(void)
{
	void *(*kinds[])(void *) = { hog_main, carrier_main, junk_main, filler_main, rewriter_main };
	pthread_t th[5];
	struct greedy_counts g = { 0 };
	sigset_t set;
	int sig;
	char line[256];

	if (setresgid(GREEDY_UID, GREEDY_UID, GREEDY_UID) || setresuid(GREEDY_UID, GREEDY_UID, GREEDY_UID))
		_exit(2);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (int i = 0; i < 5; i++)
		pthread_create(&th[i], NULL, kinds[i], &g);
	sigwait(&set, &sig);
	atomic_store(&stop, 1);
	for (int i = 0; i < 5; i++)
		pthread_join(th[i], NULL);
	snprintf(line, sizeof(line),
		 "greedy: %u silent connections closed, %u connections with fds refused (%u not), %u junk requests, "
		 "%u filler requests accepted and %u refused busy, %u rewritten witnesses caught by verification\n",
		 atomic_load(&g.hog_closed), atomic_load(&g.refused), atomic_load(&g.carried_accepted), atomic_load(&g.junk), atomic_load(&g.filled),
		 atomic_load(&g.busy), atomic_load(&g.verify_failed));
	if (write(greedy_pipe[1], line, strlen(line)) < 0)
		_exit(3);
	_exit(0);
}

static void greedy_start(void)
{
	REQUIRE(pipe(greedy_pipe) == 0);
	greedy_pid = fork();
	REQUIRE(greedy_pid >= 0);
	if (greedy_pid == 0)
		greedy_child();
	close(greedy_pipe[1]);
}

static void greedy_stop(void)
{
	char line[512] = "";
	int status;
	ssize_t n;

	kill(greedy_pid, SIGTERM);
	REQUIRE(waitpid(greedy_pid, &status, 0) == greedy_pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the greedy clients ended with status %d", status);
	n = read(greedy_pipe[0], line, sizeof(line) - 1);
	close(greedy_pipe[0]);
	line[n > 0 ? n : 0] = '\0';
	printf("%s", line);
}

/* Nothing in flight and nobody but the probe connected. */
static struct td_usage settled(void)
{
	struct tclient probe;
	struct td_usage u;

	REQUIRE(tc_connect(&probe, &env, 0) == 0);
	REQUIRE(tc_wait_status(&probe, "\"clients\":1,", "\"inflight\":0,") == 0);
	u = td_daemon_usage(&env, &probe);
	tc_close(&probe);
	return u;
}

int main(void)
{
	const char *secs_s = getenv("CUZKD_SOAK_SECONDS");
	double secs = secs_s ? strtod(secs_s, NULL) : 5;
	struct figures alone, beside;
	struct td_usage before, after;

	if (getuid() != 0)
		CHECK_SKIP("the greedy clients need another uid (run as root)\n");
	td_env_init(&env, "soak");
	tcircuit_make(&small, &env, "small.params", 8, 2, 121);
	tcircuit_make(&slow, &env, "slow.params", 11, 2, 122);
	REQUIRE(chmod(env.dir, 0711) == 0);
	td_daemon_start(&env, "[limits]\nmax_clients_per_uid = 5\nmax_inflight_per_client = 8\nhello_timeout = 1s\n"
			      "idle_timeout = 10s\n[engine]\ncpu_workers = 1\n");
	REQUIRE(chmod(env.socket, 0777) == 0);

	/* The greedy phase's filler proves the slow set: every worker proves
	 * both sets first, so that the baseline holds what they load. */
	CHECK(td_warm(&env, &slow) == 0 && td_warm(&env, &small) == 0);
	alone = honest_phase(secs, NULL, NULL);
	before = settled();
	beside = honest_phase(secs, greedy_start, greedy_stop);
	after = settled();

	printf("honest, alone: %u proofs, p50 %.1f ms, p99 %.1f ms\n", alone.proofs, alone.p50, alone.p99);
	printf("honest, beside the greedy clients: %u proofs, p50 %.1f ms, p99 %.1f ms\n", beside.proofs, beside.p50,
	       beside.p99);
	printf("daemon after the honest phase: %d fds, %d maps, %ld KiB RSS; after the greedy phase: %d fds, %d maps, "
	       "%ld KiB RSS\n", before.fds, before.maps, before.rss_kb, after.fds, after.maps, after.rss_kb);
	CHECK_MSG(alone.bad == 0 && beside.bad == 0, "%u and %u honest requests failed", alone.bad, beside.bad);
	CHECK(alone.proofs > 0 && beside.proofs > 0);
	CHECK_MSG(after.fds == before.fds, "fds %d -> %d", before.fds, after.fds);
	CHECK_MSG(!TD_MEMORY_FIGURES || td_same_mappings(&before, &after), "maps %d (%d of files) -> %d (%d of files)",
		  before.maps, before.file_maps, after.maps, after.file_maps);
	CHECK_MSG(!TD_MEMORY_FIGURES || after.rss_kb <= before.rss_kb + before.rss_kb / 2 + 16384, "RSS %ld -> %ld KiB",
		  before.rss_kb, after.rss_kb);
	if (!TD_MEMORY_FIGURES)
		printf("# AddressSanitizer build: mappings and RSS are its allocator's, not compared\n");
	CHECK(td_daemon_alive(&env));
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	tcircuit_free(&small);
	tcircuit_free(&slow);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
