// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Chrome trace-event JSON (trace_json.h). */
#include "formats/trace_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"

#define TRACE_NAME_MAX 64

struct trace_event {
	char name[TRACE_NAME_MAX];
	char job[TRACE_NAME_MAX];
	unsigned track;
	long partition;               /* -1: not a proof's */
	double start_ms, end_ms;
};

struct trace_track {
	char lane[TRACE_NAME_MAX];
	int device;
};

struct groth16_trace {
	char process[TRACE_NAME_MAX];
	double t0_ms;
	struct trace_event *ev;
	size_t n_ev, cap_ev;
	struct trace_track *tracks;
	size_t n_tracks, cap_tracks;
};

int groth16_trace_new(groth16_trace **ret, const char *process_name, cuzk_error *err)
{
	groth16_trace *t = calloc(1, sizeof(*t));
	if (!t)
		return err_fail(err, CUZK_E_NOMEM, "trace: out of memory");
	snprintf(t->process, sizeof(t->process), "%s", process_name);
	t->t0_ms = monotonic_ms();
	*ret = t;
	return 0;
}

void groth16_trace_set_origin(groth16_trace *t, double t0_ms)
{
	t->t0_ms = t0_ms;
}

void groth16_trace_free(groth16_trace *t)
{
	if (!t)
		return;
	free(t->ev);
	free(t->tracks);
	free(t);
}

static int grow(void **p, size_t *cap, size_t n, size_t size, cuzk_error *err)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? 2 * *cap : 64;
	void *q = realloc(*p, c * size);
	if (!q)
		return err_fail(err, CUZK_E_NOMEM, "trace: out of memory for %zu entries", c);
	*p = q;
	*cap = c;
	return 0;
}

/* The track of (lane, device), made on first use; -1 when out of memory. */
static long track_of(groth16_trace *t, const char *lane, int device, cuzk_error *err)
{
	for (size_t i = 0; i < t->n_tracks; i++)
		if (t->tracks[i].device == device && strncmp(t->tracks[i].lane, lane, TRACE_NAME_MAX - 1) == 0)
			return (long)i;
	if (grow((void **)&t->tracks, &t->cap_tracks, t->n_tracks, sizeof(*t->tracks), err) < 0)
		return -1;
	struct trace_track *k = &t->tracks[t->n_tracks];
	snprintf(k->lane, sizeof(k->lane), "%s", lane);
	k->device = device;
	return (long)t->n_tracks++;
}

int groth16_trace_add_event(groth16_trace *t, const char *name, const char *lane, int device, long partition,
			    const char *job, double start_ms, double end_ms, cuzk_error *err)
{
	long track = track_of(t, lane, device, err);
	if (track < 0 || grow((void **)&t->ev, &t->cap_ev, t->n_ev, sizeof(*t->ev), err) < 0)
		return -CUZK_E_NOMEM;
	struct trace_event *e = &t->ev[t->n_ev++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->job, sizeof(e->job), "%s", job ? job : "");
	e->track = (unsigned)track;
	e->partition = partition;
	e->start_ms = start_ms;
	e->end_ms = end_ms < start_ms ? start_ms : end_ms;
	return 0;
}

int groth16_trace_add_span(groth16_trace *t, const char *name, const char *lane, int device,
			   double start_ms, double end_ms, cuzk_error *err)
{
	return groth16_trace_add_event(t, name, lane, device, -1, NULL, start_ms, end_ms, err);
}

int groth16_trace_add_proof(groth16_trace *t, const groth16_timings *tm, unsigned partition, const char *job,
			    cuzk_error *err)
{
	for (unsigned i = 0; i < tm->n_spans; i++) {
		const groth16_span *s = &tm->span[i];
		int rc = groth16_trace_add_event(t, s->name, s->lane, s->device, (long)partition, job, s->start_ms,
						 s->end_ms, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void put_track_name(FILE *f, const struct trace_track *k)
{
	char name[2 * TRACE_NAME_MAX];
	if (k->device >= 0)
		snprintf(name, sizeof(name), "GPU %d %s", k->device, k->lane);
	else
		snprintf(name, sizeof(name), "%s", k->lane);
	put_string(f, name);
}

int groth16_trace_write_stream(const groth16_trace *t, FILE *f, const char *name, cuzk_error *err)
{
	fputs("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n", f);
	fputs("{\"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"name\": \"process_name\", \"args\": {\"name\": ", f);
	put_string(f, t->process);
	fputs("}}", f);
	/* Tracks in order of first use, GPUs' after the CPU's: tid = index + 1. */
	for (size_t i = 0; i < t->n_tracks; i++) {
		fprintf(f, ",\n{\"ph\": \"M\", \"pid\": 1, \"tid\": %zu, \"name\": \"thread_name\", \"args\": {\"name\": ",
			i + 1);
		put_track_name(f, &t->tracks[i]);
		fprintf(f, "}},\n{\"ph\": \"M\", \"pid\": 1, \"tid\": %zu, \"name\": \"thread_sort_index\", "
			   "\"args\": {\"sort_index\": %zu}}",
			i + 1, (size_t)(t->tracks[i].device + 1) * 100 + i);
	}
	for (size_t i = 0; i < t->n_ev; i++) {
		const struct trace_event *e = &t->ev[i];
		fputs(",\n{\"ph\": \"X\", \"pid\": 1, \"tid\": ", f);
		fprintf(f, "%u, \"ts\": %.3f, \"dur\": %.3f, \"name\": ", e->track + 1, (e->start_ms - t->t0_ms) * 1e3,
			(e->end_ms - e->start_ms) * 1e3);
		put_string(f, e->name);
		fputs(", \"cat\": ", f);
		put_string(f, e->partition >= 0 ? "proof" : "host");
		fputs(", \"args\": {", f);
		if (e->partition >= 0)
			fprintf(f, "\"partition\": %ld", e->partition);
		if (e->job[0]) {
			fputs(e->partition >= 0 ? ", \"job\": " : "\"job\": ", f);
			put_string(f, e->job);
		}
		fputs("}}", f);
	}
	fputs("\n]}\n", f);
	/* stdio keeps the first failure: a short write anywhere shows here. */
	if (fflush(f) != 0 || ferror(f))
		return err_fail_errno(err, errno ? errno : EIO, "%s: write", name);
	return 0;
}

int groth16_trace_write(const groth16_trace *t, const char *path, cuzk_error *err)
{
	FILE *f = fopen(path, "we");
	if (!f)
		return err_fail_errno(err, errno, "%s: cannot create", path);
	int r = groth16_trace_write_stream(t, f, path, err);
	if (fclose(f) != 0 && r == 0)
		return err_fail_errno(err, errno ? errno : EIO, "%s: write", path);
	return r;
}
