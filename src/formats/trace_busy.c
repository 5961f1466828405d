// SPDX-License-Identifier: Apache-2.0 OR MIT
/* How busy a GPU's compute streams were, from a timeline
 * (groth16_trace_compute_busy in trace_json.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/trace_impl.h"

struct interval {
	double start, end;
	size_t ev;
};

static int by_start(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

/* The GPU's compute streams: "compute", "compute 2" .. "compute 6", and
 * those of other workspaces ("compute (2nd workspace)"). */
static int is_compute(const struct trace_track *k, int device)
{
	return k->device == device && strncmp(k->lane, "compute", 7) == 0 && (k->lane[7] == '\0' || k->lane[7] == ' ');
}

int groth16_trace_max_device(const groth16_trace *t)
{
	int d = -1;
	for (size_t i = 0; i < t->n_tracks; i++)
		if (t->tracks[i].device > d)
			d = t->tracks[i].device;
	return d;
}

int groth16_trace_compute_busy(const groth16_trace *t, int device, struct groth16_trace_busy *ret, cuzk_error *err)
{
	struct interval *iv = malloc((t->n_ev ? t->n_ev : 1) * sizeof(*iv));
	size_t n = 0;

	if (!iv)
		return err_fail(err, CUZK_E_NOMEM, "trace: out of memory for %zu spans", t->n_ev);
	for (size_t i = 0; i < t->n_ev; i++)
		if (is_compute(&t->tracks[t->ev[i].track], device))
			iv[n++] = (struct interval){ t->ev[i].start_ms, t->ev[i].end_ms, i };
	memset(ret, 0, sizeof(*ret));
	ret->partition = -1;
	if (n == 0) {
		free(iv);
		return 0;
	}
	qsort(iv, n, sizeof(*iv), by_start);
	double end = iv[0].start;
	ret->first_ms = iv[0].start;
	for (size_t i = 0; i < n; i++) {
		if (iv[i].start > end) {
			const double gap = iv[i].start - end;
			ret->idle_ms += gap;
			ret->gaps += gap >= GROTH16_TRACE_GAP_MS;
			if (gap > ret->longest_gap_ms) {
				const struct trace_event *e = &t->ev[iv[i].ev];
				ret->longest_gap_ms = gap;
				snprintf(ret->before, sizeof(ret->before), "%s", e->name);
				snprintf(ret->job, sizeof(ret->job), "%s", e->job);
				ret->partition = e->partition;
			}
		}
		if (iv[i].end > end)
			end = iv[i].end;
	}
	ret->last_ms = end;
	free(iv);
	return 1;
}

int groth16_trace_print_busy(const groth16_trace *t, FILE *f, struct groth16_trace_busy *gpu0, cuzk_error *err)
{
	const int max = groth16_trace_max_device(t);
	struct groth16_trace_busy b;
	int lines = 0, r;

	for (int d = 0; d <= max; d++) {
		if ((r = groth16_trace_compute_busy(t, d, &b, err)) < 0)
			return r;
		if (r == 0)
			continue;
		if (d == 0 && gpu0)
			*gpu0 = b;
		const double all = b.last_ms - b.first_ms;
		fprintf(f, "GPU %d compute: idle %.1f of %.1f ms from its first span to its last (%.2f%% busy); %zu gap%s of "
			   "%.1f ms or more", d, b.idle_ms, all, all > 0 ? 100.0 * (all - b.idle_ms) / all : 100.0, b.gaps,
			b.gaps == 1 ? "" : "s", GROTH16_TRACE_GAP_MS);
		if (b.longest_gap_ms > 0) {
			fprintf(f, ", the longest %.2f ms before \"%s\"", b.longest_gap_ms, b.before);
			if (b.job[0] && b.partition >= 0)
				fprintf(f, " (job %s, partition %ld)", b.job, b.partition);
			else if (b.job[0])
				fprintf(f, " (job %s)", b.job);
			else if (b.partition >= 0)
				fprintf(f, " (partition %ld)", b.partition);
		}
		fputc('\n', f);
		lines++;
	}
	return lines;
}
