// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Which pages a witness buffer gets.  The host's state is read once into a
 * struct so that the choice can be tested against any host (a fake root). */
#ifndef CUZK_CLIENT_PAGES_H
#define CUZK_CLIENT_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "cuzk.h"

struct pages_env {
	uint64_t hugetlb_free;       /* HugePages_Free */
	uint64_t hugetlb_size;       /* Hugepagesize in bytes, 0 if unknown */
	char thp_shmem[16];          /* the selected word of shmem_enabled, "" if absent */
};

/* Reads <root>/proc/meminfo and <root>/sys/kernel/mm/transparent_hugepage/shmem_enabled
 * (root "" for this host).  Missing files leave the fields zero/empty: never fails. */
void pages_probe(struct pages_env *ret, const char *root);

/* From this witness size on, 4 KiB pages cost enough to warn about: about
 * 0.1 s more to fill, and slower pinning (docs/GROTH16.md: 4.8 s against
 * 1.3 s for 8 GiB).  Below it the fallback is only an info line. */
#define CUZK_PAGES_WARN_BYTES (UINT64_C(256) << 20)

/* The best page kind for a buffer of size bytes, and when it is not hugetlb
 * the one-line reason in reason[len], which starts with what the buffer gets
 * (else reason[0] = 0). */
enum cuzk_page_kind pages_choose(const struct pages_env *env, uint64_t size, char *reason,
				 size_t len);

/* 1 when madvise(MADV_HUGEPAGE) on shmem can give huge pages in this mode. */
int pages_thp_usable(const char *thp_shmem);

#endif
