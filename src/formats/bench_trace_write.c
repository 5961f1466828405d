// SPDX-License-Identifier: Apache-2.0 OR MIT
/* What writing a timeline costs (groth16_trace_write_stream): cuzkd writes
 * a traced job's on its event loop, where nothing else runs meanwhile.
 * PARTS partitions of SPANS spans each, on a copy, a compute and a host
 * track of one GPU, every partition's spans after the last one's, with
 * some of them overlapping without nesting (further rows); the timeline
 * is written to /dev/null ROUNDS times and each round's wall time printed.
 *
 *   bench_trace_write [PARTS [SPANS [ROUNDS]]]   (defaults 10 830 5: a
 *   PoRep request's 2^27 partitions under a 16 GiB budget; the daemon's
 *   bound is 64 × 4100) */
#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "formats/trace_json.h"

static unsigned long arg(int argc, char **argv, int i, unsigned long def)
{
	return argc > i ? strtoul(argv[i], NULL, 10) : def;
}

int main(int argc, char **argv)
{
	static const char *const lanes[] = { "copy", "compute", "host" };
	const unsigned long parts = arg(argc, argv, 1, 10), spans = arg(argc, argv, 2, 830),
			    rounds = arg(argc, argv, 3, 5);
	groth16_trace *t;
	cuzk_error err;

	if (groth16_trace_new(&t, "bench", &err) < 0)
		return fprintf(stderr, "%s\n", err.msg), 1;
	groth16_trace_set_origin(t, 0);
	for (unsigned long p = 0; p < parts; p++)
		for (unsigned long i = 0; i < spans; i++) {
			/* 0.3 ms apart, 0.25 long; every seventh 0.6 long: it
			 * overlaps the next one on its track without holding it. */
			const double a = (double)(p * spans + i) * 0.3, len = i % 7 ? 0.25 : 0.6;
			if (groth16_trace_add_event(t, "msm h batch", lanes[i % 3], 0, (long)p, "17", a, a + len, &err) < 0)
				return fprintf(stderr, "%s\n", err.msg), 1;
		}
	FILE *f = fopen("/dev/null", "w");
	if (!f)
		return perror("/dev/null"), 1;
	for (unsigned long r = 0; r < rounds; r++) {
		const double t0 = monotonic_ms();
		if (groth16_trace_write_stream(t, f, "/dev/null", &err) < 0)
			return fprintf(stderr, "%s\n", err.msg), 1;
		printf("%lu partitions x %lu spans: written in %.2f ms\n", parts, spans, monotonic_ms() - t0);
	}
	fclose(f);
	groth16_trace_free(t);
	return 0;
}
