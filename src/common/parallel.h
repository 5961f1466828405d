// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Data-parallel loops over a range, on plain pthreads.
 *
 * Threads are started per call and joined before it returns: no pool, no
 * global state.  The calls that use this (NTT, MSM, decoding) are large
 * enough that thread start-up (~20 us) is noise. */
#ifndef CUZK_COMMON_PARALLEL_H
#define CUZK_COMMON_PARALLEL_H

#include <stddef.h>

/* Number of worker threads: $CUZK_THREADS if set (>= 1), else the online CPUs. */
unsigned parallel_nthreads(void);

/* Calls fn(ctx, begin, end, thread_index) over disjoint chunks covering
 * [0, n), using at most nthreads threads (0 = parallel_nthreads()).  Chunks are
 * contiguous, one per thread, split as evenly as possible; ranges smaller
 * than min_chunk run on fewer threads. */
typedef void (*parallel_range_fn)(void *ctx, size_t begin, size_t end, unsigned thread_index);
void parallel_for(size_t n, size_t min_chunk, unsigned nthreads, parallel_range_fn fn, void *ctx);

#endif
