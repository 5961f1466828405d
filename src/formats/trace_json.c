// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Chrome trace-event JSON (trace_json.h). */
#include "formats/trace_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "formats/trace_impl.h"

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

static void put_track_name(FILE *f, const struct trace_track *k, unsigned sub)
{
	char name[2 * TRACE_NAME_MAX + 16];
	int n = k->device >= 0 ? snprintf(name, sizeof(name), "GPU %d %s", k->device, k->lane)
			       : snprintf(name, sizeof(name), "%s", k->lane);
	if (sub && n >= 0 && (size_t)n < sizeof(name))
		snprintf(name + n, sizeof(name) - (size_t)n, " (%u)", sub + 1);
	put_string(f, name);
}

/* Microseconds with three decimals, exactly, from nanoseconds. */
static void put_us(FILE *f, long long ns)
{
	if (ns < 0) {
		fputc('-', f);
		ns = -ns;
	}
	fprintf(f, "%lld.%03lld", ns / 1000, ns % 1000);
}

/* Nanoseconds from the origin, rounded: what is written, and what the
 * rows are found from, so that spans nest as written. */
static long long ns_from(const groth16_trace *t, double ms)
{
	double ns = (ms - t->t0_ms) * 1e6;
	/* ±2^62 ns is ±146 years: past it (or NaN), the bound, not an overflow. */
	if (!(ns > -4.6e18))
		return -4600000000000000000LL;
	if (ns > 4.6e18)
		return 4600000000000000000LL;
	return (long long)(ns >= 0 ? ns + 0.5 : ns - 0.5);
}

struct placed {
	long long start, end;        /* ns from t0, as written */
	size_t ev;
	unsigned track;
};

static int by_track_then_nesting(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)   /* the longer first: it is the parent */
		return x->end > y->end ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

/* The open spans of one row of a track: their ends, innermost last. */
struct row {
	long long *end;
	size_t n, cap;
};

/* A track's rows: used of them by the track placed now, made ones kept
 * (with their arrays) for the next track. */
struct rows {
	struct row *row;
	size_t used, made, cap;
};

/* The row of a track that p fits on: one where every open span either
 * ends by p's start or holds p whole.  Spans on one row of a track must
 * nest (the format's rule: Perfetto drops a span that overlaps another
 * without nesting in it), so spans that overlap go to further rows, the
 * track's "(2)", "(3)", ... */
static long place(struct rows *rs, const struct placed *p, cuzk_error *err)
{
	size_t k;
	for (k = 0; k < rs->used; k++) {
		struct row *r = &rs->row[k];
		while (r->n && r->end[r->n - 1] <= p->start)
			r->n--;
		if (!r->n || r->end[r->n - 1] >= p->end)
			break;
	}
	if (k == rs->used && k == rs->made) {
		if (grow((void **)&rs->row, &rs->cap, rs->made, sizeof(*rs->row), err) < 0)
			return -1;
		rs->row[rs->made++] = (struct row){ NULL, 0, 0 };
	}
	if (k == rs->used)
		rs->row[rs->used++].n = 0;
	struct row *r = &rs->row[k];
	if (grow((void **)&r->end, &r->cap, r->n, sizeof(*r->end), err) < 0)
		return -1;
	r->end[r->n++] = p->end;
	return (long)k;
}

/* Each event's row (row[ev]) and each track's count of rows (n_rows[track]). */
static int place_all(const groth16_trace *t, unsigned *row, unsigned *n_rows, cuzk_error *err)
{
	struct placed *p = malloc((t->n_ev ? t->n_ev : 1) * sizeof(*p));
	struct rows rs = { NULL, 0, 0, 0 };
	int r = 0;

	if (!p)
		return err_fail(err, CUZK_E_NOMEM, "trace: out of memory for %zu spans", t->n_ev);
	for (size_t i = 0; i < t->n_ev; i++)
		p[i] = (struct placed){ ns_from(t, t->ev[i].start_ms), ns_from(t, t->ev[i].end_ms), i, t->ev[i].track };
	qsort(p, t->n_ev, sizeof(*p), by_track_then_nesting);
	for (size_t i = 0; i < t->n_ev && r == 0; i++) {
		if (i == 0 || p[i].track != p[i - 1].track)
			rs.used = 0;
		long k = place(&rs, &p[i], err);
		if (k < 0)
			r = -CUZK_E_NOMEM;
		else
			row[p[i].ev] = (unsigned)k;
		if (rs.used > n_rows[p[i].track])
			n_rows[p[i].track] = (unsigned)rs.used;
	}
	for (size_t k = 0; k < rs.made; k++)
		free(rs.row[k].end);
	free(rs.row);
	free(p);
	return r;
}

static void put_event(FILE *f, const groth16_trace *t, const struct trace_event *e, size_t tid)
{
	const long long start = ns_from(t, e->start_ms), end = ns_from(t, e->end_ms);

	fprintf(f, ",\n{\"ph\": \"X\", \"pid\": 1, \"tid\": %zu, \"ts\": ", tid);
	put_us(f, start);
	fputs(", \"dur\": ", f);
	put_us(f, end - start);
	fputs(", \"name\": ", f);
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

int groth16_trace_write_stream(const groth16_trace *t, FILE *f, const char *name, cuzk_error *err)
{
	unsigned *row = calloc(t->n_ev + 1, sizeof(*row)), *n_rows = calloc(t->n_tracks + 1, sizeof(*n_rows));
	size_t *tid = calloc(t->n_tracks + 1, sizeof(*tid));

	int r = row && n_rows && tid ? place_all(t, row, n_rows, err)
				    : err_fail(err, CUZK_E_NOMEM, "%s: out of memory for %zu spans", name, t->n_ev);

	if (r < 0) {
		free(row);
		free(n_rows);
		free(tid);
		return r;
	}
	/* The origin on the host's clock: the timelines of several requests
	 * can be put on one (groth16_trace_merge_json). */
	fprintf(f, "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"clock\": \"CLOCK_MONOTONIC\", "
		   "\"origin_ms\": %.6f},\n\"traceEvents\": [\n", t->t0_ms);
	fputs("{\"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"name\": \"process_name\", \"args\": {\"name\": ", f);
	put_string(f, t->process);
	fputs("}}", f);
	/* Tracks in order of first use, each row after the one before it,
	 * GPUs' after the CPU's: tids 1, 2, ... */
	for (size_t i = 0, next = 1; i < t->n_tracks; i++) {
		tid[i] = next;
		for (unsigned k = 0; k < (n_rows[i] ? n_rows[i] : 1); k++, next++) {
			fprintf(f, ",\n{\"ph\": \"M\", \"pid\": 1, \"tid\": %zu, \"name\": \"thread_name\", "
				   "\"args\": {\"name\": ", next);
			put_track_name(f, &t->tracks[i], k);
			fprintf(f, "}},\n{\"ph\": \"M\", \"pid\": 1, \"tid\": %zu, \"name\": \"thread_sort_index\", "
				   "\"args\": {\"sort_index\": %zu}}",
				next, (size_t)(t->tracks[i].device + 1) * 100000 + next);
		}
	}
	for (size_t i = 0; i < t->n_ev; i++)
		put_event(f, t, &t->ev[i], tid[t->ev[i].track] + row[i]);
	fputs("\n]}\n", f);
	free(row);
	free(n_rows);
	free(tid);
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
