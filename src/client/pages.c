// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Huge-page policy for witness buffers (docs/GROTH16.md: 8 GiB of 4 KiB
 * shmem pages cost 4.8 s of faults to fill, huge pages 1.3 s, and pin about
 * twice as fast). */
#include "client/pages.h"

#include <stdio.h>
#include <string.h>

/* Where the docs are installed (configure's docdir, from Makefile.inc), for
 * the hint a fallback to 4 KiB pages gives. */
#ifndef CUZK_DOCDIR
#error "CUZK_DOCDIR must name the installed documentation directory"
#endif

static FILE *open_under(const char *root, const char *path)
{
	char full[4096];
	if (snprintf(full, sizeof(full), "%s%s", root, path) >= (int)sizeof(full))
		return NULL;
	return fopen(full, "re");
}

void pages_probe(struct pages_env *ret, const char *root)
{
	char line[256];
	memset(ret, 0, sizeof(*ret));

	FILE *f = open_under(root, "/proc/meminfo");
	if (f) {
		unsigned long long v;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "HugePages_Free: %llu", &v) == 1)
				ret->hugetlb_free = v;
			else if (sscanf(line, "Hugepagesize: %llu kB", &v) == 1)
				ret->hugetlb_size = v * 1024;
		}
		fclose(f);
	}
	/* The selected mode is the bracketed word: "always within_size [advise] never". */
	f = open_under(root, "/sys/kernel/mm/transparent_hugepage/shmem_enabled");
	if (f) {
		if (fgets(line, sizeof(line), f)) {
			char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
			if (close && (size_t)(close - open - 1) < sizeof(ret->thp_shmem)) {
				memcpy(ret->thp_shmem, open + 1, (size_t)(close - open - 1));
				ret->thp_shmem[close - open - 1] = '\0';
			}
		}
		fclose(f);
	}
}

int pages_thp_usable(const char *thp_shmem)
{
	return !strcmp(thp_shmem, "advise") || !strcmp(thp_shmem, "always") ||
	       !strcmp(thp_shmem, "within_size") || !strcmp(thp_shmem, "force");
}

enum cuzk_page_kind pages_choose(const struct pages_env *env, uint64_t size, char *reason,
				 size_t len)
{
	char why_not_hugetlb[128];
	reason[0] = '\0';
	if (env->hugetlb_size) {
		uint64_t need = (size + env->hugetlb_size - 1) / env->hugetlb_size;
		if (env->hugetlb_free >= need)
			return CUZK_PAGES_HUGETLB;
		snprintf(why_not_hugetlb, sizeof(why_not_hugetlb), "hugetlb: %llu free pages of %llu KiB, %llu needed",
			 (unsigned long long)env->hugetlb_free,
			 (unsigned long long)(env->hugetlb_size >> 10), (unsigned long long)need);
	} else {
		snprintf(why_not_hugetlb, sizeof(why_not_hugetlb), "hugetlb: no pool");
	}
	if (pages_thp_usable(env->thp_shmem)) {
		snprintf(reason, len, "shmem transparent huge pages (%s; shmem_enabled=%s)", why_not_hugetlb,
			 env->thp_shmem);
		return CUZK_PAGES_THP;
	}
	snprintf(reason, len, "4 KiB pages (%s; shmem_enabled=%s): huge pages fill and pin 2-3x faster, see "
		 CUZK_DOCDIR "/OPERATIONS.md", why_not_hugetlb, env->thp_shmem[0] ? env->thp_shmem : "absent");
	return CUZK_PAGES_SMALL;
}
