// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Printing benchmark results (bench_report.h). */
#include "cli/bench_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>

#include "common/parallel.h"

void bench_count(struct bench_report *b, const char *name, uint64_t value)
{
	if (b->n_count < BENCH_MAX_COUNTS) {
		b->count[b->n_count].name = name;
		b->count[b->n_count++].value = value;
	}
}

void bench_phase(struct bench_report *b, const char *name, double ms, int excluded)
{
	if (b->n_phase < BENCH_MAX_PHASES) {
		b->phase[b->n_phase].name = name;
		b->phase[b->n_phase].ms = ms;
		b->phase[b->n_phase++].excluded = excluded;
	}
}

void bench_size(struct bench_report *b, const char *name, uint64_t value)
{
	if (b->n_size < BENCH_MAX_SIZES) {
		b->size[b->n_size].name = name;
		b->size[b->n_size++].value = value;
	}
}

void bench_report_print(const struct bench_report *b)
{
	printf("bench %s: backend %s", b->bench, b->backend);
	if (b->log_size)   /* bench load has no size of its own */
		printf(", 2^%u", b->log_size);
	printf(", %u threads", parallel_nthreads());
	if (b->shape)
		printf(", shape %s", b->shape);
	for (size_t i = 0; i < b->n_count; i++)
		printf(", %s %" PRIu64, b->count[i].name, b->count[i].value);
	printf("\n%-24s %12s\n", "phase", "ms");
	for (size_t i = 0; i < b->n_phase; i++)
		printf("%-24s %12.1f%s\n", b->phase[i].name, b->phase[i].ms,
		       b->phase[i].excluded ? "   (not part of the proof)" : "");
	/* Sizes are not times: rows of their own after the phases. */
	for (size_t i = 0; i < b->n_size; i++)
		printf("%-24s %12" PRIu64 "   (not part of the proof)\n", b->size[i].name, b->size[i].value);
}

int bench_report_json(const struct bench_report *b, const char *path, cuzk_error *err)
{
	FILE *f = fopen(path, "we");
	if (!f)
		return err_fail_errno(err, errno, "%s: cannot create", path);
	char date[32] = "";
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	struct utsname u;
	const char *host = uname(&u) == 0 ? u.nodename : "";
	fprintf(f, "{\"bench\": \"%s\", \"backend\": \"%s\", \"log_size\": %u, \"date\": \"%s\", "
		   "\"host\": \"%s\", \"threads\": %u",
		b->bench, b->backend, b->log_size, date, host, parallel_nthreads());
	if (b->shape)
		fprintf(f, ", \"shape\": \"%s\"", b->shape);
	for (size_t i = 0; i < b->n_count; i++)
		fprintf(f, ", \"%s\": %" PRIu64, b->count[i].name, b->count[i].value);
	for (size_t i = 0; i < b->n_size; i++)
		fprintf(f, ", \"%s\": %" PRIu64, b->size[i].name, b->size[i].value);
	fputs(", \"phases_ms\": {", f);
	for (size_t i = 0; i < b->n_phase; i++)
		fprintf(f, "%s\"%s\": %.3f", i ? ", " : "", b->phase[i].name, b->phase[i].ms);
	fputs("}}\n", f);
	int bad = ferror(f);
	if (fclose(f) != 0 || bad)
		return err_fail_errno(err, errno ? errno : EIO, "%s: write", path);
	return 0;
}
