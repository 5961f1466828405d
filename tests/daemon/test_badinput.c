// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Bad input, one case each, spoken as raw protocol; after every case the
 * daemon must still serve a well-behaved client (td_serves). */
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/rand.h"
#include "tests/check.h"
#include "tests/daemon/harness.h"

static struct td_env env;
static struct tcircuit circ, other;

/* Submits fd (or no fd when fd < 0) with srs and expects status; when
 * closes is set, the daemon must also hang up. */
static void expect(const char *what, int fd, const char *srs, int status)
{
	struct msg_reply rep;
	struct tclient cl;
	int got;

	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	if (fd >= 0) {
		got = tc_submit(&cl, 7, srs, CUZK_PRIORITY_NORMAL, fd, &rep);
	} else {
		struct msg_prove m;
		tc_prove_msg(&m, 7, srs, CUZK_PRIORITY_NORMAL, 0, 0);
		got = tc_send(&cl, &m, sizeof(m), NULL, 0) ? -1 : tc_reply(&cl, &rep);
	}
	CHECK_MSG(got == status, "%s: status %d (%s), expected %d", what, got, got >= 0 ? rep.message : "-",
		  status);
	if (got > 0)
		CHECK_MSG(strstr(rep.message, "client") != NULL || status == CUZK_E_NOTFOUND ||
				  status == CUZK_E_INVAL,
			  "%s: message does not name the client: %s", what, rep.message);
	tc_close(&cl);
	CHECK_MSG(td_serves(&env, &circ) == 0, "after %s", what);
}

/* A witness memfd whose image is changed by edit before sealing. */
typedef void (*edit_fn)(uint8_t *map, size_t size);

static int edited_memfd(edit_fn edit)
{
	int fd = tcircuit_memfd(&circ, 1, 0);
	struct stat st;
	uint8_t *map;

	REQUIRE(fstat(fd, &st) == 0);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED);
	edit(map, (size_t)st.st_size);
	munmap(map, (size_t)st.st_size);
	REQUIRE(fcntl(fd, F_ADD_SEALS, TD_SEALS_OK) == 0);
	return fd;
}

static struct witness_header *hdr(uint8_t *map)
{
	return (struct witness_header *)map;
}

static struct witness_partition *part0(uint8_t *map)
{
	return (struct witness_partition *)(map + sizeof(struct witness_header));
}

static void edit_offset_overflow(uint8_t *map, size_t size)
{
	part0(map)->offset[CUZK_SEC_AUX] = UINT64_MAX - 63;
}

static void edit_offset_past_end(uint8_t *map, size_t size)
{
	part0(map)->offset[CUZK_SEC_C] = (uint64_t)size;
}

static void edit_count_huge(uint8_t *map, size_t size)
{
	hdr(map)->num_aux = 1ull << 58;
}

static void edit_count_wrong(uint8_t *map, size_t size)
{
	/* Still inside the file, but not what the SRS was made for. */
	hdr(map)->num_aux -= 1;
}

static void edit_version(uint8_t *map, size_t size)
{
	hdr(map)->version = CUZK_WITNESS_VERSION + 1;
}

static void edit_partitions(uint8_t *map, size_t size)
{
	hdr(map)->num_partitions = CUZK_WITNESS_MAX_PARTITIONS + 1;
}

static void seals_and_files(void)
{
	char path[64];
	struct statfs sfs;
	int fd;

	fd = tcircuit_memfd(&circ, 1, 0);
	expect("unsealed memfd", fd, circ.name, CUZK_E_SEALS);
	close(fd);
	fd = tcircuit_memfd(&circ, 1, F_SEAL_SHRINK);
	expect("memfd without GROW", fd, circ.name, CUZK_E_SEALS);
	close(fd);
	fd = tcircuit_memfd(&circ, 1, F_SEAL_GROW | F_SEAL_SEAL);
	expect("memfd without SHRINK", fd, circ.name, CUZK_E_SEALS);
	close(fd);
	/* WRITE sealed is fine too. */
	fd = tcircuit_memfd(&circ, 1, TD_SEALS_OK | F_SEAL_WRITE);
	expect("memfd sealed for writing", fd, circ.name, 0);
	close(fd);
	/* A regular file in the build tree: rejected as "not on tmpfs" when the
	 * tree is on a disk, or for its missing seals when it is on tmpfs. */
	snprintf(path, sizeof(path), "cuzkd-badinput-%d.witness", (int)getpid());
	fd = tcircuit_file(&circ, path);
	REQUIRE(fstatfs(fd, &sfs) == 0);
	expect("regular file", fd, circ.name, sfs.f_type == TMPFS_MAGIC ? CUZK_E_SEALS : CUZK_E_FD);
	close(fd);
	unlink(path);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	expect("character device", fd, circ.name, CUZK_E_FD);
	close(fd);
}

static void headers(void)
{
	struct { const char *what; edit_fn fn; int status; } cases[] = {
		{ "offset that overflows", edit_offset_overflow, CUZK_E_FORMAT },
		{ "offset past the end", edit_offset_past_end, CUZK_E_FORMAT },
		{ "counts larger than the file", edit_count_huge, CUZK_E_FORMAT },
		{ "unknown version", edit_version, CUZK_E_VERSION },
		{ "too many partitions", edit_partitions, CUZK_E_FORMAT },
	};
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	int fd;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fd = edited_memfd(cases[i].fn);
		expect(cases[i].what, fd, circ.name, cases[i].status);
		close(fd);
	}
	/* Counts that fit the file but not the SRS: accepted, then the worker
	 * compares the shape with the parameters. */
	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	fd = edited_memfd(edit_count_wrong);
	if (tc_submit(&cl, 8, circ.name, CUZK_PRIORITY_HIGH, fd, &rep) == 0) {
		REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
		CHECK_MSG(rec.status == CUZK_E_MISMATCH, "wrong counts: status %u %s", rec.status, rec.message);
	} else {
		CHECK_MSG(rep.status == CUZK_E_FORMAT, "wrong counts: rejected with %u %s", rep.status, rep.message);
	}
	close(fd);
	/* A valid witness of another circuit against this SRS. */
	fd = tcircuit_memfd(&other, 1, TD_SEALS_OK);
	CHECK(tc_submit(&cl, 9, circ.name, CUZK_PRIORITY_HIGH, fd, &rep) == 0);
	REQUIRE(tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) == 0);
	CHECK_MSG(rec.status == CUZK_E_MISMATCH, "other circuit: status %u %s", rec.status, rec.message);
	close(fd);
	tc_close(&cl);
	CHECK(td_serves(&env, &circ) == 0);
}

static void fds_and_framing(void)
{
	struct msg_prove m;
	struct msg_reply rep;
	struct tclient cl;
	uint8_t buf[CUZK_MSG_MAX + 64];
	int fd = tcircuit_memfd(&circ, 1, TD_SEALS_OK);
	int two[2] = { fd, fd };

	expect("no fd", -1, circ.name, CUZK_E_FD);

	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	tc_prove_msg(&m, 5, circ.name, CUZK_PRIORITY_NORMAL, 0, 0);
	CHECK(tc_send(&cl, &m, sizeof(m), two, 2) == 0);
	CHECK(tc_reply(&cl, &rep) == CUZK_E_FD);
	/* More fds than the daemon's control buffer holds: MSG_CTRUNC. */
	{
		int many[12];
		for (int i = 0; i < 12; i++)
			many[i] = fd;
		tc_prove_msg(&m, 6, circ.name, CUZK_PRIORITY_NORMAL, 0, 0);
		CHECK(tc_send(&cl, &m, sizeof(m), many, 12) == 0);
		CHECK(tc_reply(&cl, &rep) == CUZK_E_FD);
		CHECK_MSG(strstr(rep.message, "MSG_CTRUNC") != NULL, "%s", rep.message);
	}
	/* An fd on a message that takes none. */
	{
		struct msg_cancel c;
		memset(&c, 0, sizeof(c));
		msg_init(&c.hdr, CUZK_MSG_CANCEL, sizeof(c), 5);
		CHECK(tc_send(&cl, &c, sizeof(c), &fd, 1) == 0);
		CHECK(tc_reply(&cl, &rep) == CUZK_E_FD);
	}
	/* Bad contents in a well-framed request: the connection stays. */
	tc_prove_msg(&m, 6, circ.name, 9, 0, 0);
	CHECK(tc_send(&cl, &m, sizeof(m), &fd, 1) == 0);
	CHECK(tc_reply(&cl, &rep) == CUZK_E_PROTOCOL);
	/* Truncated: half a PROVE.  Malformed framing closes the connection. */
	tc_prove_msg(&m, 7, circ.name, CUZK_PRIORITY_NORMAL, 0, 0);
	CHECK(tc_send(&cl, &m, sizeof(m) / 2, &fd, 1) == 0);
	CHECK(tc_reply(&cl, &rep) == CUZK_E_PROTOCOL);
	CHECK(tc_recv(&cl, buf, sizeof(buf), TD_TIMEOUT_MS) == 0);
	tc_close(&cl);
	CHECK(td_serves(&env, &circ) == 0);

	/* Longer than any message may be. */
	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	memset(buf, 0, sizeof(buf));
	tc_prove_msg(&m, 8, circ.name, CUZK_PRIORITY_NORMAL, 0, 0);
	memcpy(buf, &m, sizeof(m));
	CHECK(tc_send(&cl, buf, sizeof(buf), NULL, 0) == 0);
	CHECK(tc_reply(&cl, &rep) == CUZK_E_PROTOCOL);
	CHECK(tc_recv(&cl, buf, sizeof(buf), TD_TIMEOUT_MS) == 0);
	tc_close(&cl);
	close(fd);
	CHECK(td_serves(&env, &circ) == 0);
}

static void srs_names(void)
{
	char link[600];
	int fd = tcircuit_memfd(&circ, 1, TD_SEALS_OK);

	expect("unknown SRS", fd, "nope.params", CUZK_E_NOTFOUND);
	expect("path traversal", fd, "../srs/small.params", CUZK_E_INVAL);
	expect("absolute path", fd, "/etc/passwd", CUZK_E_INVAL);
	expect("hidden name", fd, ".params", CUZK_E_INVAL);
	expect("dot dot", fd, "..", CUZK_E_INVAL);
	/* An empty name is malformed at the protocol level already. */
	expect("empty name", fd, "", CUZK_E_PROTOCOL);
	snprintf(link, sizeof(link), "%s/link.params", env.srs_dir);
	REQUIRE(symlink("/etc/passwd", link) == 0);
	expect("symlink out of the directory", fd, "link.params", CUZK_E_PERM);
	close(fd);
}

static void garbage(void)
{
	uint8_t buf[512];
	struct msg_reply rep;
	struct msg_hello h;
	struct tclient cl;
	rng_t rng;

	rng_seed(&rng, 5);
	for (int round = 0; round < 3; round++) {
		size_t n = 1 + rng_next(&rng) % sizeof(buf);
		rng_bytes(&rng, buf, n);
		REQUIRE(tc_connect_raw(&cl, &env) == 0);
		CHECK(tc_send(&cl, buf, n, NULL, 0) == 0);
		CHECK_MSG(tc_reply(&cl, &rep) == CUZK_E_PROTOCOL, "garbage round %d", round);
		CHECK(tc_recv(&cl, buf, sizeof(buf), TD_TIMEOUT_MS) == 0);
		tc_close(&cl);
		/* The same after a good hello. */
		REQUIRE(tc_connect(&cl, &env, 0) == 0);
		CHECK(tc_send(&cl, buf, n, NULL, 0) == 0);
		CHECK_MSG(tc_reply(&cl, &rep) == CUZK_E_PROTOCOL, "garbage after hello, round %d", round);
		tc_close(&cl);
	}
	/* A hello of a protocol version the daemon does not speak. */
	REQUIRE(tc_connect_raw(&cl, &env) == 0);
	memset(&h, 0, sizeof(h));
	msg_init(&h.hdr, CUZK_MSG_HELLO, sizeof(h), 1);
	h.hdr.version = CUZK_PROTOCOL_VERSION + 1;
	CHECK(tc_send(&cl, &h, sizeof(h), NULL, 0) == 0);
	CHECK(tc_reply(&cl, &rep) == CUZK_E_VERSION);
	tc_close(&cl);
	/* A request before the hello. */
	REQUIRE(tc_connect_raw(&cl, &env) == 0);
	{
		struct msg_metrics m;
		memset(&m, 0, sizeof(m));
		msg_init(&m.hdr, CUZK_MSG_METRICS, sizeof(m), 3);
		CHECK(tc_send(&cl, &m, sizeof(m), NULL, 0) == 0);
		CHECK(tc_reply(&cl, &rep) == CUZK_E_PROTOCOL);
	}
	tc_close(&cl);
	CHECK(td_serves(&env, &circ) == 0);
}

int main(void)
{
	int fds_before;

	td_env_init(&env, "badinput");
	tcircuit_make(&circ, &env, "small.params", 7, 2, 21);
	tcircuit_make(&other, &env, "other.params", 7, 3, 22);
	td_daemon_start(&env, "[engine]\ncpu_workers = 1\n");
	CHECK(td_serves(&env, &circ) == 0);
	fds_before = td_daemon_usage(&env, NULL).fds;
	seals_and_files();
	headers();
	fds_and_framing();
	srs_names();
	garbage();
	CHECK(td_daemon_alive(&env));
	/* Every fd that came with a bad request was closed. */
	CHECK_MSG(td_daemon_usage(&env, NULL).fds == fds_before, "the daemon had %d fds, now %d", fds_before, td_daemon_usage(&env, NULL).fds);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	tcircuit_free(&circ);
	tcircuit_free(&other);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
