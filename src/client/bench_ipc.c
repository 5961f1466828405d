// SPDX-License-Identifier: Apache-2.0 OR MIT
/* bench_ipc: what the client side of the IPC costs.
 *
 *   bench_ipc buffer LOG_CONSTRAINTS
 *       allocates a one-partition witness buffer (aux = constraints / 2;
 *       the allocation backs every page, so it pays the page faults),
 *       then writes every section twice: what a fresh and a reused (pooled)
 *       buffer cost to fill.
 *   bench_ipc submit SOCKET SRS LOG_CONSTRAINTS [REPEAT]
 *       submits the same buffer REPEAT times (default 5) to a running cuzkd
 *       and prints, per submit, the accept round trip, the client-observed
 *       time to the completion, and the daemon's own phase times.  An SRS of
 *       another shape is fine: the request is then refused by the worker
 *       (mismatch) after the daemon checked, mapped and registered the
 *       buffer, which is the IPC path being measured. */
#include <cuzk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"

static const char *const page_names[] = { "hugetlb", "thp", "4k" };

static int fail(const char *what, const cuzk_error *err)
{
	fprintf(stderr, "bench_ipc: %s: %s\n", what, err->msg);
	return 1;
}

/* Writes every byte after the header with value v; returns the ms it took. */
static double write_all(cuzk_buffer *b, int v)
{
	struct cuzk_partition p;
	cuzk_buffer_partition(b, 0, &p);
	uint8_t *from = p.a, *end = (uint8_t *)cuzk_buffer_data(b) + cuzk_buffer_size(b);
	double t = monotonic_ms();
	memset(from, v, (size_t)(end - from));
	return monotonic_ms() - t;
}

static int alloc(cuzk_client *c, cuzk_buffer **b, unsigned logk, cuzk_error *err)
{
	const struct cuzk_dims dims = { .num_constraints = 1ull << logk, .num_inputs = 2,
					.num_aux = (1ull << logk) / 2, .num_partitions = 1,
					.flags = CUZK_WITNESS_FLAG_MONTGOMERY };
	double t = monotonic_ms();
	int r = cuzk_buffer_alloc(c, b, &dims, err);
	if (r == 0) {
		double ms = monotonic_ms() - t, gib = (double)cuzk_buffer_size(*b) / (1 << 30);
		printf("buffer: %.3f GiB, %s pages, allocated with every page backed (the page faults) in %.2f ms "
		       "= %.1f ms/GiB\n", gib, page_names[cuzk_buffer_pages(*b)], ms, ms / gib);
	}
	return r;
}

static int bench_buffer(unsigned logk)
{
	cuzk_error err;
	cuzk_buffer *b;
	if (alloc(NULL, &b, logk, &err) < 0)
		return fail("alloc", &err);
	double gib = (double)cuzk_buffer_size(b) / (1 << 30);
	double first = write_all(b, 1), second = write_all(b, 2);
	printf("first write: %.1f ms = %.1f ms/GiB\nsecond write (reused buffer): %.1f ms = %.1f ms/GiB\n",
	       first, first / gib, second, second / gib);
	cuzk_buffer_free(b);
	return 0;
}

static int bench_submit(const char *sock, const char *srs, unsigned logk, int repeat)
{
	struct cuzk_completion *done = malloc(sizeof(*done));
	cuzk_error err;
	cuzk_client *c;
	cuzk_buffer *b;
	if (!done) {
		perror("bench_ipc");
		return 1;
	}
	if (cuzk_connect(&c, sock, NULL, &err) < 0)
		return fail(sock, &err);
	if (alloc(c, &b, logk, &err) < 0)
		return fail("alloc", &err);
	write_all(b, 0);
	const struct cuzk_request req = { .srs = srs, .priority = CUZK_PRIORITY_CRITICAL };
	for (int i = 0; i < repeat; i++) {
		uint64_t id;
		double t0 = monotonic_ms();
		if (cuzk_submit(c, b, &req, &id, NULL, &err) < 0)
			return fail("submit", &err);
		double t1 = monotonic_ms();
		if (cuzk_wait(c, done, -1, &err) != 1)
			return fail("wait", &err);
		double t2 = monotonic_ms();
		const uint64_t *ph = done->phase_ns;
		printf("submit %d: accepted after %.3f ms, completion after %.3f ms (status %s); daemon: check %.3f "
		       "register %.3f queue %.3f total %.3f ms; IPC overhead %.3f ms\n",
		       i, t1 - t0, t2 - t0, cuzk_status_name(done->status), ph[CUZK_PHASE_CHECK] / 1e6,
		       ph[CUZK_PHASE_REGISTER] / 1e6, ph[CUZK_PHASE_QUEUE] / 1e6, ph[CUZK_PHASE_TOTAL] / 1e6,
		       (t2 - t0) - ph[CUZK_PHASE_TOTAL] / 1e6);
	}
	cuzk_buffer_free(b);
	cuzk_disconnect(c);
	free(done);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "buffer") == 0)
		return bench_buffer((unsigned)atoi(argv[2]));
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "submit") == 0)
		return bench_submit(argv[2], argv[3], (unsigned)atoi(argv[4]), argc == 6 ? atoi(argv[5]) : 5);
	fprintf(stderr, "usage: bench_ipc buffer LOG_CONSTRAINTS\n"
			"       bench_ipc submit SOCKET SRS LOG_CONSTRAINTS [REPEAT]\n");
	return 2;
}
