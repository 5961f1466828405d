// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "common/parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

unsigned parallel_nthreads(void)
{
	const char *env = getenv("CUZK_THREADS");
	if (env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);
		if (*end == '\0' && v >= 1 && v <= 4096)
			return (unsigned)v;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

struct chunk {
	parallel_range_fn fn;
	void *ctx;
	size_t begin, end;
	unsigned index;
	int started;
};

static void *run_chunk(void *arg)
{
	struct chunk *c = arg;
	c->fn(c->ctx, c->begin, c->end, c->index);
	return NULL;
}

void parallel_for(size_t n, size_t min_chunk, unsigned nthreads, parallel_range_fn fn, void *ctx)
{
	if (n == 0)
		return;
	if (nthreads == 0)
		nthreads = parallel_nthreads();
	if (min_chunk == 0)
		min_chunk = 1;
	size_t max_by_size = (n + min_chunk - 1) / min_chunk;
	if (max_by_size < nthreads)
		nthreads = (unsigned)max_by_size;
	if (nthreads <= 1) {
		fn(ctx, 0, n, 0);
		return;
	}
	struct chunk *chunks = calloc(nthreads, sizeof(*chunks));
	pthread_t *tids = calloc(nthreads, sizeof(*tids));
	if (!chunks || !tids) {
		/* Out of memory for bookkeeping: do the work on this thread. */
		free(chunks);
		free(tids);
		fn(ctx, 0, n, 0);
		return;
	}
	size_t base = n / nthreads, extra = n % nthreads, at = 0;
	for (unsigned t = 0; t < nthreads; t++) {
		size_t len = base + (t < extra ? 1 : 0);
		chunks[t] = (struct chunk){ fn, ctx, at, at + len, t, 0 };
		at += len;
	}
	/* Chunk 0 runs on the calling thread; a thread that cannot be created
	 * has its chunk run here instead, so the loop always completes. */
	for (unsigned t = 1; t < nthreads; t++) {
		chunks[t].started = pthread_create(&tids[t], NULL, run_chunk, &chunks[t]) == 0;
		if (!chunks[t].started)
			run_chunk(&chunks[t]);
	}
	run_chunk(&chunks[0]);
	for (unsigned t = 1; t < nthreads; t++)
		if (chunks[t].started)
			pthread_join(tids[t], NULL);
	free(chunks);
	free(tids);
}
