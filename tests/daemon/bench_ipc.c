// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The cost of the IPC path, without the proof: a witness memfd of the given
 * size (valid layout, zero scalars) is submitted again and again against a
 * small SRS whose shape it does not match, so each request goes through
 * every check and the registration cache, reaches a worker and comes back at
 * once with CUZK_E_MISMATCH.  Prints, per round: the client's send -> accept
 * round trip, the daemon's check phase (fd checks, mapping on a miss, header
 * and density copies), the wait for a worker, and the client-observed time
 * minus the daemon's own (socket in + completion ring and eventfd out).
 *
 * The first write of the buffer (its page faults) is timed too, and the
 * pages can be chosen, to compare what huge pages save on faults and on
 * cudaHostRegister: 4k (plain memfd), thp (madvise(MADV_HUGEPAGE) on the
 * shmem mapping: needs shmem_enabled=advise or always) or hugetlb
 * (MFD_HUGETLB: needs a hugetlb pool as large as the buffer).
 *
 *   bench_ipc [SIZE_MIB [ROUNDS [4k|thp|hugetlb]]]   (CUZKD_TEST_BACKEND=gpu for the GPU) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/clock.h"
#include "tests/daemon/harness.h"

enum pages { PAGES_4K, PAGES_THP, PAGES_HUGETLB };

/* A sealed memfd of about mib MiB with a valid single-partition layout;
 * *ret_write_ms is how long its first write took. */
static int big_witness(unsigned mib, enum pages pages, uint64_t *ret_size, double *ret_write_ms)
{
	const uint64_t huge = 2u << 20;
	uint64_t n = ((uint64_t)mib << 20) / (4 * 32);
	struct witness_desc d;
	cuzk_error err;
	uint8_t *map;
	int fd;

	if (witness_layout(&d, n, 2, n, 1, CUZK_WITNESS_MONTGOMERY, &err)) {
		fprintf(stderr, "layout: %s\n", err.msg);
		exit(1);
	}
	/* A hugetlbfs file's size is whole huge pages; the layout may end before. */
	uint64_t size = pages == PAGES_HUGETLB ? (d.file_size + huge - 1) / huge * huge : d.file_size;
	double t0;
	fd = memfd_create("cuzk-bench-witness",
			  MFD_CLOEXEC | MFD_ALLOW_SEALING | (pages == PAGES_HUGETLB ? MFD_HUGETLB : 0));
	if (fd < 0) {
		perror("memfd_create");
		exit(1);
	}
	if (ftruncate(fd, (off_t)size) < 0) {
		perror("ftruncate");
		exit(1);
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap (is the hugetlb pool large enough?)");
		exit(1);
	}
	if (pages == PAGES_THP && madvise(map, size, MADV_HUGEPAGE) < 0) {
		perror("madvise(MADV_HUGEPAGE)");
		exit(1);
	}
	/* Touch every page, as a client writing its witness would. */
	t0 = monotonic_ms();
	memset(map, 0, size);
	*ret_write_ms = monotonic_ms() - t0;
	witness_write_header(map, &d);
	munmap(map, size);
	if (fcntl(fd, F_ADD_SEALS, TD_SEALS_OK) < 0) {
		perror("F_ADD_SEALS");
		exit(1);
	}
	*ret_size = size;
	return fd;
}

int main(int argc, char **argv)
{
	unsigned mib = argc > 1 ? (unsigned)atoi(argv[1]) : 64, rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 10;
	const char *page_arg = argc > 3 ? argv[3] : "4k";
	enum pages pages;
	double write_ms;
	struct msg_reply rep;
	struct ring_rec rec;
	struct tcircuit c;
	struct td_env env;
	struct tclient cl;
	uint64_t size;
	char conf[256];
	int fd;

	if (!strcmp(page_arg, "4k"))
		pages = PAGES_4K;
	else if (!strcmp(page_arg, "thp"))
		pages = PAGES_THP;
	else if (!strcmp(page_arg, "hugetlb"))
		pages = PAGES_HUGETLB;
	else
		mib = 0;
	if (mib == 0 || rounds == 0) {
		fprintf(stderr, "usage: bench_ipc [SIZE_MIB [ROUNDS [4k|thp|hugetlb]]]\n");
		return 2;
	}
	td_env_init(&env, "bench");
	tcircuit_make(&c, &env, "tiny.params", 5, 2, 1);
	snprintf(conf, sizeof(conf), "[engine]\ncpu_workers = 1\nworkers_per_device = 1\n[limits]\n"
				     "max_witness_bytes = %uM\nmax_pinned_bytes_per_client = %uM\n", mib + 64, mib + 64);
	td_daemon_start(&env, conf);
	fd = big_witness(mib, pages, &size, &write_ms);
	if (tc_connect(&cl, &env, 0)) {
		fprintf(stderr, "cannot connect\n");
		return 1;
	}
	printf("backend %s, witness %.1f MiB, %s pages, first write %.0f ms (%.0f ms/GiB), %u rounds "
	       "(round 1 maps the buffer, later ones hit the cache)\n",
	       td_backend(), (double)size / (1 << 20), page_arg, write_ms, write_ms * 1024 / ((double)size / (1 << 20)),
	       rounds);
	printf("%5s %10s %10s %10s %12s %12s\n", "round", "accept_ms", "check_ms", "queue_ms", "register_ms",
	       "ipc_other_ms");
	for (unsigned r = 1; r <= rounds; r++) {
		double t0 = monotonic_ms(), t1, t2;
		if (tc_submit(&cl, r, c.name, CUZK_PRIORITY_CRITICAL, fd, &rep) != 0) {
			fprintf(stderr, "round %u rejected: %s\n", r, rep.message);
			return 1;
		}
		t1 = monotonic_ms();
		if (tc_wait(&cl, &rec, NULL, TD_TIMEOUT_MS) || rec.status != CUZK_E_MISMATCH) {
			fprintf(stderr, "round %u: unexpected completion %u %s\n", r, rec.status, rec.message);
			return 1;
		}
		t2 = monotonic_ms();
		printf("%5u %10.3f %10.3f %10.3f %12.3f %12.3f\n", r, t1 - t0, rec.phase_ns[CUZK_PHASE_CHECK] / 1e6,
		       rec.phase_ns[CUZK_PHASE_QUEUE] / 1e6, rec.phase_ns[CUZK_PHASE_REGISTER] / 1e6,
		       (t2 - t0) - rec.phase_ns[CUZK_PHASE_TOTAL] / 1e6);
	}
	tc_close(&cl);
	close(fd);
	td_daemon_stop(&env, SIGTERM);
	tcircuit_free(&c);
	td_env_cleanup(&env, 0);
	return 0;
}
