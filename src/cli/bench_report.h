// SPDX-License-Identifier: Apache-2.0 OR MIT
/* What a benchmark prints: a header line, one row per phase, and the same
 * as JSON (--json FILE) with the date and host, so that figures can be
 * pasted into docs/BENCHMARKS.md with their context. */
#ifndef CUZK_CLI_BENCH_REPORT_H
#define CUZK_CLI_BENCH_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define BENCH_MAX_PHASES 24
#define BENCH_MAX_COUNTS 12
#define BENCH_MAX_SIZES 4

struct bench_report {
	const char *bench;         /* "prove", "msm", "ntt" */
	const char *backend;
	unsigned log_size;         /* 2^log_size constraints / points / scalars */
	const char *shape;         /* prove: the synthetic circuit's shape; NULL otherwise */
	struct { const char *name; uint64_t value; } count[BENCH_MAX_COUNTS];
	size_t n_count;
	/* A phase marked `excluded` is shown but is not part of what is timed
	 * (the development setup next to a proof). */
	struct { const char *name; double ms; int excluded; } phase[BENCH_MAX_PHASES];
	size_t n_phase;
	/* Sizes measured beside the timings (the device memory a proof held),
	 * the unit in the name: "vram peak reserved MiB". */
	struct { const char *name; uint64_t value; } size[BENCH_MAX_SIZES];
	size_t n_size;
};

void bench_count(struct bench_report *b, const char *name, uint64_t value);
void bench_phase(struct bench_report *b, const char *name, double ms, int excluded);
void bench_size(struct bench_report *b, const char *name, uint64_t value);

/* The table on stdout. */
void bench_report_print(const struct bench_report *b);
/* The JSON file: {"bench":..., "backend":..., "log_size":..., "date":...,
 * "host":..., "threads":..., ["shape":...,] counts..., sizes...,
 * "phases_ms": {name: ms, ...}}. */
int bench_report_json(const struct bench_report *b, const char *path, cuzk_error *err);

#endif
