// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Witness buffers: the layout the pointers give, the huge-page choice and its
 * fallback (logged once per client), and the seals a submit applies. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/client_internal.h"
#include "../../tests/check.h"

static cuzk_error err;

struct log_count {
	int lines;
	int level;
	char last[1024];
};

static void count_log(void *opaque, int level, const char *line)
{
	struct log_count *lc = opaque;
	lc->lines++;
	lc->level = level;
	snprintf(lc->last, sizeof(lc->last), "%s", line);
}

/* A client with nothing but a log callback: all buffer allocation uses. */
static void fake_client(cuzk_client *c, struct log_count *lc)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	c->log = count_log;
	c->log_opaque = lc;
	memset(lc, 0, sizeof(*lc));
}

static const struct pages_env no_huge = { .hugetlb_free = 0, .hugetlb_size = 2 << 20, .thp_shmem = "never" };

static int in_buffer(cuzk_buffer *b, const void *p, uint64_t len)
{
	const uint8_t *s = cuzk_buffer_data(b);
	return (const uint8_t *)p >= s && (const uint8_t *)p + len <= s + cuzk_buffer_size(b);
}

static void test_layout(void)
{
	const struct cuzk_dims dims = { .num_constraints = 1000, .num_inputs = 3, .num_aux = 130, .num_partitions = 3,
					.flags = CUZK_WITNESS_FLAG_MONTGOMERY };
	cuzk_buffer *b;
	struct cuzk_partition p[3];
	REQUIRE(buffer_alloc_env(NULL, &b, &dims, &no_huge, &err) == 0);
	CHECK(cuzk_buffer_pages(b) == CUZK_PAGES_SMALL);

	/* The header in the buffer parses to the same layout. */
	struct witness_desc d;
	REQUIRE(witness_parse(&d, cuzk_buffer_data(b), cuzk_buffer_size(b), "buffer", &err) == 0);
	CHECK(d.hdr.num_partitions == 3 && d.hdr.num_constraints == 1000 && d.hdr.num_aux == 130);
	CHECK(d.hdr.flags == CUZK_WITNESS_MONTGOMERY);

	const uint8_t *base = cuzk_buffer_data(b);
	for (uint32_t i = 0; i < 3; i++) {
		REQUIRE(cuzk_buffer_partition(b, i, &p[i]) == 0);
		void *sec[CUZK_SEC__COUNT] = { p[i].a, p[i].b, p[i].c, p[i].input, p[i].aux,
					       p[i].a_aux_density, p[i].b_input_density, p[i].b_aux_density };
		for (int s = 0; s < CUZK_SEC__COUNT; s++) {
			CHECK((uint64_t)((uint8_t *)sec[s] - base) == d.part[i].offset[s]);
			CHECK(((uintptr_t)sec[s] & 63) == 0);
			CHECK(in_buffer(b, sec[s], d.len[s]));
		}
		CHECK(d.len[CUZK_SEC_A] == 1000 * 32 && d.len[CUZK_SEC_AUX] == 130 * 32 &&
		      d.len[CUZK_SEC_A_AUX_DENSITY] == 3 * 8 && d.len[CUZK_SEC_B_INPUT_DENSITY] == 8);
		/* Writing through the pointers lands in the file the daemon reads. */
		memset(p[i].aux, (int)(0x10 + i), d.len[CUZK_SEC_AUX]);
		p[i].b_aux_density[2] = 0x3;
	}
	/* Sections of one partition do not overlap the next partition's. */
	CHECK((uint8_t *)p[0].b_aux_density + d.len[CUZK_SEC_B_AUX_DENSITY] <= (uint8_t *)p[1].a);
	uint8_t byte;
	CHECK(pread(cuzk_buffer_fd(b), &byte, 1, (off_t)d.part[2].offset[CUZK_SEC_AUX] + 5) == 1 && byte == 0x12);
	CHECK(cuzk_buffer_partition(b, 3, &p[0]) == -CUZK_E_INVAL);
	cuzk_buffer_free(b);

	/* Bad dimensions are refused, not rounded. */
	struct cuzk_dims bad = dims;
	bad.num_partitions = 0;
	CHECK(buffer_alloc_env(NULL, &b, &bad, &no_huge, &err) == -CUZK_E_INVAL);
	bad = dims;
	bad.num_partitions = CUZK_MAX_PARTITIONS + 1;
	CHECK(buffer_alloc_env(NULL, &b, &bad, &no_huge, &err) == -CUZK_E_INVAL);
	bad = dims;
	bad.reserved[1] = 1;
	CHECK(buffer_alloc_env(NULL, &b, &bad, &no_huge, &err) == -CUZK_E_INVAL);
	bad = dims;
	bad.flags = 0x80;
	CHECK(buffer_alloc_env(NULL, &b, &bad, &no_huge, &err) == -CUZK_E_INVAL);
	bad = dims;
	bad.num_aux = UINT64_MAX / 8;
	CHECK(buffer_alloc_env(NULL, &b, &bad, &no_huge, &err) == -CUZK_E_NOMEM);
}

static void test_memfd_name(void)
{
	const struct cuzk_dims dims = { .num_constraints = 64, .num_inputs = 2, .num_aux = 10, .num_partitions = 2 };
	cuzk_buffer *b;
	char link[64], target[256];
	REQUIRE(buffer_alloc_env(NULL, &b, &dims, &no_huge, &err) == 0);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", cuzk_buffer_fd(b));
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	REQUIRE(n > 0);
	target[n] = 0;
	CHECK_MSG(strstr(target, "memfd:cuzk-witness-2x64") != NULL, "memfd named %s", target);
	CHECK(fcntl(cuzk_buffer_fd(b), F_GETFD) & FD_CLOEXEC);
	cuzk_buffer_free(b);
}

static void test_seals(void)
{
	const struct cuzk_dims dims = { .num_constraints = 64, .num_inputs = 2, .num_aux = 10, .num_partitions = 1 };
	cuzk_buffer *b;
	struct cuzk_partition p;
	REQUIRE(buffer_alloc_env(NULL, &b, &dims, &no_huge, &err) == 0);
	int fd = cuzk_buffer_fd(b);
	CHECK(fcntl(fd, F_GET_SEALS) == 0);
	CHECK(buffer_seal(b, &err) == 0);
	int seals = fcntl(fd, F_GET_SEALS);
	CHECK(seals == (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL));
	CHECK(!(seals & F_SEAL_WRITE));
	/* The size is fixed now: what the daemon checked stays true. */
	CHECK(ftruncate(fd, 4096) < 0 && errno == EPERM);
	CHECK(ftruncate(fd, (off_t)cuzk_buffer_size(b) * 2) < 0 && errno == EPERM);
	/* ... but the buffer can be written for the next proof, and sealed again. */
	REQUIRE(cuzk_buffer_partition(b, 0, &p) == 0);
	memset(p.a, 7, 64);
	CHECK(buffer_seal(b, &err) == 0);
	cuzk_buffer_free(b);
}

static void test_page_choice(void)
{
	char reason[512];
	struct pages_env env = { .hugetlb_free = 512, .hugetlb_size = 2 << 20, .thp_shmem = "advise" };
	CHECK(pages_choose(&env, 1 << 30, reason, sizeof(reason)) == CUZK_PAGES_HUGETLB && reason[0] == 0);
	CHECK(pages_choose(&env, (1ull << 30) + 1, reason, sizeof(reason)) == CUZK_PAGES_THP);
	CHECK(strstr(reason, "513 needed") && strstr(reason, "advise"));
	strcpy(env.thp_shmem, "never");
	CHECK(pages_choose(&env, (1ull << 30) + 1, reason, sizeof(reason)) == CUZK_PAGES_SMALL);
	CHECK(strstr(reason, "4 KiB") && strstr(reason, "never"));
	/* One line, naming the installed docs rather than a source tree's. */
	CHECK(!strchr(reason, '\n') && strstr(reason, "see /") && strstr(reason, "/doc/cuzk/OPERATIONS.md"));
	env.hugetlb_size = 0;
	env.thp_shmem[0] = 0;
	CHECK(pages_choose(&env, 1, reason, sizeof(reason)) == CUZK_PAGES_SMALL);
	CHECK(strstr(reason, "hugetlb: no pool") && strstr(reason, "absent"));
	CHECK(pages_thp_usable("always") && pages_thp_usable("within_size") &&
	      pages_thp_usable("force") && !pages_thp_usable("deny") && !pages_thp_usable(""));

	/* The probe reads a host's files; a fake root stands in for one. */
	char root[] = "/tmp/cuzk-pages-XXXXXX", path[256];
	REQUIRE(mkdtemp(root));
	snprintf(path, sizeof(path), "mkdir -p %s/proc %s/sys/kernel/mm/transparent_hugepage", root, root);
	REQUIRE(system(path) == 0);
	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	FILE *f = fopen(path, "w");
	REQUIRE(f);
	fputs("MemTotal: 100 kB\nHugePages_Total: 40\nHugePages_Free:       17\nHugepagesize:    1048576 kB\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/sys/kernel/mm/transparent_hugepage/shmem_enabled", root);
	f = fopen(path, "w");
	REQUIRE(f);
	fputs("always within_size [advise] never deny force\n", f);
	fclose(f);
	pages_probe(&env, root);
	CHECK(env.hugetlb_free == 17 && env.hugetlb_size == (1ull << 30) && strcmp(env.thp_shmem, "advise") == 0);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	CHECK(system(path) == 0);
	pages_probe(&env, "/nonexistent-root");
	CHECK(env.hugetlb_free == 0 && env.hugetlb_size == 0 && env.thp_shmem[0] == 0);
}

static void test_fallback_logged_once(void)
{
	const struct cuzk_dims dims = { .num_constraints = 256, .num_inputs = 2, .num_aux = 100, .num_partitions = 1 };
	cuzk_client c;
	struct log_count lc;
	cuzk_buffer *b1, *b2;

	/* No huge pages at all: 4 KiB pages, the reason logged once per client,
	 * as info for a small buffer (they cost nothing there) ... */
	fake_client(&c, &lc);
	REQUIRE(buffer_alloc_env(&c, &b1, &dims, &no_huge, &err) == 0);
	REQUIRE(buffer_alloc_env(&c, &b2, &dims, &no_huge, &err) == 0);
	CHECK(cuzk_buffer_pages(b1) == CUZK_PAGES_SMALL && cuzk_buffer_pages(b2) == CUZK_PAGES_SMALL);
	CHECK_MSG(lc.lines == 1, "%d lines", lc.lines);
	CHECK(lc.level == 6 && strstr(lc.last, "4 KiB pages"));
	cuzk_buffer_free(b1);
	cuzk_buffer_free(b2);
	/* ... and as a warning, once, from CUZK_PAGES_WARN_BYTES on (the memfd
	 * stays sparse: only its header page is written). */
	const struct cuzk_dims big = { .num_constraints = 1 << 22, .num_inputs = 2, .num_aux = 1 << 20,
				       .num_partitions = 1 };
	REQUIRE(buffer_alloc_env(&c, &b1, &big, &no_huge, &err) == 0);
	REQUIRE(cuzk_buffer_size(b1) >= CUZK_PAGES_WARN_BYTES);
	REQUIRE(buffer_alloc_env(&c, &b2, &big, &no_huge, &err) == 0);
	CHECK_MSG(lc.lines == 2 && lc.level == 4, "%d lines, level %d", lc.lines, lc.level);
	cuzk_buffer_free(b1);
	cuzk_buffer_free(b2);
	pthread_mutex_destroy(&c.lock);

	/* A pool that claims free pages but cannot deliver them (this host's,
	 * unless it really has a pool): the hugetlb mapping fails and the buffer
	 * falls back with the failure logged. */
	struct pages_env real, lying;
	pages_probe(&real, "");
	lying = real;
	lying.hugetlb_size = real.hugetlb_size ? real.hugetlb_size : 2 << 20;
	lying.hugetlb_free = 1;
	strcpy(lying.thp_shmem, "never");
	fake_client(&c, &lc);
	REQUIRE(buffer_alloc_env(&c, &b1, &dims, &lying, &err) == 0);
	if (real.hugetlb_free == 0) {
		CHECK(cuzk_buffer_pages(b1) == CUZK_PAGES_SMALL);
		CHECK_MSG(lc.lines == 1 && strstr(lc.last, "hugetlb allocation failed"), "log: %s", lc.last);
	} else {
		CHECK(cuzk_buffer_pages(b1) == CUZK_PAGES_HUGETLB && lc.lines == 0);
		CHECK(cuzk_buffer_size(b1) % lying.hugetlb_size == 0);
	}
	/* The fallback buffer is a complete witness file all the same. */
	struct witness_desc d;
	CHECK(witness_parse(&d, cuzk_buffer_data(b1), cuzk_buffer_size(b1), "fallback", &err) == 0);
	cuzk_buffer_free(b1);
	pthread_mutex_destroy(&c.lock);

	/* THP requested: madvise(MADV_HUGEPAGE) is applied (or its failure logged),
	 * and the file is whole huge pages. */
	struct pages_env thp = { .hugetlb_size = 2 << 20, .thp_shmem = "advise" };
	fake_client(&c, &lc);
	REQUIRE(buffer_alloc_env(&c, &b1, &dims, &thp, &err) == 0);
	if (cuzk_buffer_pages(b1) == CUZK_PAGES_THP) {
		CHECK(cuzk_buffer_size(b1) == (2 << 20));
		CHECK(lc.lines == 1 && lc.level == 6 && strstr(lc.last, "transparent huge pages"));
	} else {
		CHECK(strstr(lc.last, "MADV_HUGEPAGE"));
	}
	cuzk_buffer_free(b1);
	pthread_mutex_destroy(&c.lock);
}

int main(void)
{
	test_layout();
	test_memfd_name();
	test_seals();
	test_page_choice();
	test_fallback_logged_once();
	CHECK_DONE();
}
