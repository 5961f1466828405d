// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The first failing index of a parallel loop.  parallel_for gives each
 * thread one contiguous chunk, in order, and each thread stops at its own
 * first failure, so the smallest recorded index is the first overall. */
#ifndef CUZK_COMMON_FIRST_FAIL_H
#define CUZK_COMMON_FIRST_FAIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/parallel.h"

#define FIRST_FAIL_NONE SIZE_MAX

typedef struct first_fail {
	unsigned nthreads;
	size_t *at;              /* per thread, FIRST_FAIL_NONE until it fails */
} first_fail;

/* 0, or -1 when out of memory. */
static inline int first_fail_init(first_fail *f)
{
	f->nthreads = parallel_nthreads();
	f->at = malloc(f->nthreads * sizeof(*f->at));
	if (!f->at)
		return -1;
	for (unsigned t = 0; t < f->nthreads; t++)
		f->at[t] = FIRST_FAIL_NONE;
	return 0;
}

/* The first failing index (FIRST_FAIL_NONE if none); frees f. */
static inline size_t first_fail_finish(first_fail *f)
{
	size_t first = FIRST_FAIL_NONE;
	for (unsigned t = 0; t < f->nthreads; t++)
		if (f->at[t] < first)
			first = f->at[t];
	free(f->at);
	f->at = NULL;
	return first;
}

#endif
