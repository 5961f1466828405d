// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Sparse witness memfds (issue 11, finding 3: a 16 GiB sparse memfd with
 * 64 KiB of data was accepted, and the worker read its holes, allocating
 * them, for 27-50 s; three claiming 512 GiB filled max_pinned_bytes_total
 * with ~2 MB of real memory).  A memfd with holes is refused at once
 * (`format`, naming it sparse), before it is mapped or queued, whatever its
 * header says: holes in a header that does not fit the SRS, or a punched
 * hole in a witness that does.  The limits then hold what they say, and an
 * honest client is served meanwhile. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/daemon/harness.h"

static struct td_env env;
static struct tcircuit small;

/* A valid header and table for large dimensions, then 64 KiB of data, in a
 * file of the layout's size: nearly all holes. */
static int sparse_memfd(uint64_t constraints, uint64_t aux, uint64_t *ret_size)
{
	struct witness_desc d;
	cuzk_error err;
	uint8_t *buf = calloc(1, 65536);
	int fd = memfd_create("cuzk-test-sparse", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	REQUIRE(buf && fd >= 0);
	REQUIRE(witness_layout(&d, constraints, 2, aux, 1, CUZK_WITNESS_MONTGOMERY, &err) == 0);
	witness_write_header(buf, &d);
	REQUIRE(ftruncate(fd, (off_t)d.file_size) == 0);
	REQUIRE(pwrite(fd, buf, 65536, 0) == 65536);
	REQUIRE(fcntl(fd, F_ADD_SEALS, TD_SEALS_OK) == 0);
	free(buf);
	*ret_size = d.file_size;
	return fd;
}

static void refused(struct tclient *cl, int fd, const char *what)
{
	static uint64_t id;
	struct msg_reply rep;

	CHECK_MSG(tc_submit(cl, ++id, small.name, CUZK_PRIORITY_NORMAL, fd, &rep) == CUZK_E_FORMAT, "%s: status %u: %s",
		  what, rep.status, rep.message);
	CHECK_MSG(strstr(rep.message, "sparse") != NULL, "%s: %s", what, rep.message);
}

int main(void)
{
	struct td_usage before, after;
	struct tclient greedy;
	uint64_t size;
	int fd;

	td_env_init(&env, "sparse");
	tcircuit_make(&small, &env, "small.params", 7, 2, 91);
	td_daemon_start(&env, "[limits]\nmax_pinned_bytes_total = 1G\n");
	REQUIRE(tc_connect(&greedy, &env, 0) == 0);
	CHECK(td_warm(&env, &small) == 0);   /* the SRS loaded on every worker, their stacks touched */
	before = td_daemon_usage(&env, &greedy);

	/* Holes and counts that do not fit the SRS: refused before any work. */
	fd = sparse_memfd(1u << 20, 1u << 22, &size);
	refused(&greedy, fd, "a sparse memfd of 160 MiB");
	close(fd);
	/* Holes in a witness that fits: a punched hole in its aux section. */
	fd = tcircuit_memfd(&small, 1, 0);
	REQUIRE(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 8192, 4096) == 0);
	REQUIRE(fcntl(fd, F_ADD_SEALS, TD_SEALS_OK) == 0);
	refused(&greedy, fd, "a punched hole");
	close(fd);
	/* Claims of 3 x 400 MiB against a 1 GiB budget cost nothing, and hold
	 * nothing: an honest client is served. */
	for (int i = 0; i < 3; i++) {
		fd = sparse_memfd(1u << 22, 1u << 22, &size);
		refused(&greedy, fd, "one of three sparse memfds of 400 MiB");
		close(fd);
	}
	CHECK(td_serves(&env, &small) == 0);
	after = td_daemon_usage(&env, &greedy);
	CHECK_MSG(!TD_MEMORY_FIGURES || (td_same_mappings(&before, &after) && after.rss_kb < before.rss_kb + 16384),
		  "the daemon went from %d maps (%d of files), %ld KiB to %d maps (%d of files), %ld KiB", before.maps,
		  before.file_maps, before.rss_kb, after.maps, after.file_maps, after.rss_kb);
	tc_close(&greedy);
	CHECK(td_daemon_stop(&env, SIGTERM) == 0);
	tcircuit_free(&small);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
