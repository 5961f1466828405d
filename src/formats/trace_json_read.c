// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A timeline read back onto another's clock (groth16_trace_merge_json in
 * trace_json.h).  Keys it does not know are skipped, and so are events of
 * other kinds than a complete span ("X") or a track's name: the timeline
 * may come from a newer writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json_cursor.h"
#include "formats/trace_json.h"

/* The writer keeps 63 bytes of a name; a track's is "GPU N " and a lane. */
#define NAME_CAP 64
#define TRACK_CAP 160

struct read_event {
	char ph[4], name[NAME_CAP], job[NAME_CAP], arg_name[TRACK_CAP];
	double tid, ts, dur, partition;
	int has_tid, has_ts, has_dur, has_partition;
};

struct read_span {
	char name[NAME_CAP], job[NAME_CAP];
	double tid, ts, dur;
	long partition;
	size_t index;          /* in traceEvents, for errors */
};

struct read_track {
	double tid;
	char name[TRACK_CAP];
};

struct reader {
	struct json_cursor c;
	struct read_span *span;
	size_t n_span, cap_span;
	struct read_track *track;
	size_t n_track, cap_track;
	double origin_ms;
	int has_origin, has_events;
};

static int grow(void **p, size_t *cap, size_t n, size_t size, const char *name, cuzk_error *err)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? 2 * *cap : 64;
	void *q = realloc(*p, c * size);
	if (!q)
		return err_fail(err, CUZK_E_NOMEM, "%s: out of memory for %zu events", name, c);
	*p = q;
	*cap = c;
	return 0;
}

static int key(struct json_cursor *c, char *out, size_t cap, const char *where, cuzk_error *err)
{
	long n = json_string(c, out, cap, where, err);
	if (n < 0)
		return (int)n;
	if ((size_t)n >= cap)
		out[0] = '\0';   /* longer than any key we know */
	return json_expect(c, ':', where, err);
}

static int string_into(struct json_cursor *c, char *out, size_t cap, const char *where, cuzk_error *err)
{
	long n = json_string(c, out, cap, where, err);
	return n < 0 ? (int)n : 0;
}

static int read_args(struct json_cursor *c, struct read_event *e, const char *where, cuzk_error *err)
{
	char k[16];
	int first = 1, r;

	if ((r = json_expect(c, '{', where, err)) < 0)
		return r;
	while ((r = json_more(c, '}', &first, where, err)) > 0) {
		if ((r = key(c, k, sizeof(k), where, err)) < 0)
			return r;
		if (strcmp(k, "partition") == 0) {
			r = json_number(c, &e->partition, where, err);
			e->has_partition = 1;
		} else if (strcmp(k, "job") == 0) {
			r = string_into(c, e->job, sizeof(e->job), where, err);
		} else if (strcmp(k, "name") == 0) {
			r = string_into(c, e->arg_name, sizeof(e->arg_name), where, err);
		} else {
			r = json_skip(c, where, err);
		}
		if (r < 0)
			return r;
	}
	return r;
}

static int read_event(struct json_cursor *c, struct read_event *e, const char *where, cuzk_error *err)
{
	char k[16];
	int first = 1, r;

	memset(e, 0, sizeof(*e));
	if ((r = json_expect(c, '{', where, err)) < 0)
		return r;
	while ((r = json_more(c, '}', &first, where, err)) > 0) {
		if ((r = key(c, k, sizeof(k), where, err)) < 0)
			return r;
		if (strcmp(k, "ph") == 0) {
			r = string_into(c, e->ph, sizeof(e->ph), where, err);
		} else if (strcmp(k, "name") == 0) {
			r = string_into(c, e->name, sizeof(e->name), where, err);
		} else if (strcmp(k, "tid") == 0) {
			r = json_number(c, &e->tid, where, err);
			e->has_tid = 1;
		} else if (strcmp(k, "ts") == 0) {
			r = json_number(c, &e->ts, where, err);
			e->has_ts = 1;
		} else if (strcmp(k, "dur") == 0) {
			r = json_number(c, &e->dur, where, err);
			e->has_dur = 1;
		} else if (strcmp(k, "args") == 0) {
			r = read_args(c, e, where, err);
		} else {
			r = json_skip(c, where, err);
		}
		if (r < 0)
			return r;
	}
	return r;
}

/* A span is kept with its times as they are; its track is found once the
 * whole timeline is read (a track may be named after its spans). */
static int keep_event(struct reader *rd, const struct read_event *e, size_t index, size_t at, cuzk_error *err)
{
	const char *name = rd->c.name;

	if (strcmp(e->ph, "M") == 0 && strcmp(e->name, "thread_name") == 0 && e->has_tid) {
		if (grow((void **)&rd->track, &rd->cap_track, rd->n_track, sizeof(*rd->track), name, err) < 0)
			return -CUZK_E_NOMEM;
		rd->track[rd->n_track].tid = e->tid;
		memcpy(rd->track[rd->n_track++].name, e->arg_name, sizeof(e->arg_name));
		return 0;
	}
	if (strcmp(e->ph, "X") != 0)
		return 0;
	/* 10^15 µs is 31 years: no span of a proof. */
	if (e->has_ts && e->has_dur && !(e->ts > -1e15 && e->ts < 1e15 && e->dur < 1e15))
		return err_fail(err, CUZK_E_FORMAT, "%s: traceEvents[%zu] at offset %zu: a span (\"X\") at %g µs for %g "
				 "µs: out of range", name, index, at, e->ts, e->dur);
	if (!e->has_tid || !e->has_ts || !e->has_dur || e->dur < 0)
		return err_fail(err, CUZK_E_FORMAT, "%s: traceEvents[%zu] at offset %zu: a span (\"X\") without %s", name,
				index, at, !e->has_tid ? "its tid" : !e->has_ts ? "its ts" : "a dur of 0 or more");
	if (e->has_partition && (!(e->partition >= 0 && e->partition <= 1e9) || e->partition != (double)(long)e->partition))
		return err_fail(err, CUZK_E_FORMAT, "%s: traceEvents[%zu] at offset %zu: partition %g is not a count",
				name, index, at, e->partition);
	if (grow((void **)&rd->span, &rd->cap_span, rd->n_span, sizeof(*rd->span), name, err) < 0)
		return -CUZK_E_NOMEM;
	struct read_span *s = &rd->span[rd->n_span++];
	memcpy(s->name, e->name, sizeof(s->name));
	memcpy(s->job, e->job, sizeof(s->job));
	s->tid = e->tid;
	s->ts = e->ts;
	s->dur = e->dur;
	s->partition = e->has_partition ? (long)e->partition : -1;
	s->index = index;
	return 0;
}

static int read_events(struct reader *rd, cuzk_error *err)
{
	struct read_event e;
	char where[48];
	int first = 1, r;
	size_t i = 0;

	if ((r = json_expect(&rd->c, '[', "traceEvents", err)) < 0)
		return r;
	while ((r = json_more(&rd->c, ']', &first, "traceEvents", err)) > 0) {
		json_skip_space(&rd->c);
		size_t at = rd->c.pos;
		snprintf(where, sizeof(where), "traceEvents[%zu]", i);
		if ((r = read_event(&rd->c, &e, where, err)) < 0 || (r = keep_event(rd, &e, i, at, err)) < 0)
			return r;
		i++;
	}
	rd->has_events = 1;
	return r;
}

static int read_other(struct reader *rd, cuzk_error *err)
{
	char k[16], clock[24];
	int first = 1, r;

	if ((r = json_expect(&rd->c, '{', "otherData", err)) < 0)
		return r;
	while ((r = json_more(&rd->c, '}', &first, "otherData", err)) > 0) {
		size_t at;
		if ((r = key(&rd->c, k, sizeof(k), "otherData", err)) < 0)
			return r;
		json_skip_space(&rd->c);
		at = rd->c.pos;
		if (strcmp(k, "origin_ms") == 0) {
			r = json_number(&rd->c, &rd->origin_ms, "otherData.origin_ms", err);
			rd->has_origin = 1;
		} else if (strcmp(k, "clock") == 0) {
			if ((r = string_into(&rd->c, clock, sizeof(clock), "otherData.clock", err)) == 0 &&
			    strcmp(clock, "CLOCK_MONOTONIC") != 0)
				r = err_fail(err, CUZK_E_FORMAT, "%s: otherData.clock at offset %zu is '%s', not "
						 "CLOCK_MONOTONIC", rd->c.name, at, clock);
		} else {
			r = json_skip(&rd->c, "otherData", err);
		}
		if (r < 0)
			return r;
	}
	return r;
}

static int read_top(struct reader *rd, cuzk_error *err)
{
	char k[24];
	int first = 1, r;

	if ((r = json_expect(&rd->c, '{', "the timeline", err)) < 0)
		return r;
	while ((r = json_more(&rd->c, '}', &first, "the timeline", err)) > 0) {
		if ((r = key(&rd->c, k, sizeof(k), "the timeline", err)) < 0)
			return r;
		if (strcmp(k, "traceEvents") == 0)
			r = read_events(rd, err);
		else if (strcmp(k, "otherData") == 0)
			r = read_other(rd, err);
		else
			r = json_skip(&rd->c, "the timeline", err);
		if (r < 0)
			return r;
	}
	if (r == 0)
		r = json_end(&rd->c, err);
	if (r == 0 && !rd->has_events)
		r = err_fail(err, CUZK_E_FORMAT, "%s: no traceEvents: not a trace-event timeline", rd->c.name);
	if (r == 0 && rd->has_origin && !(rd->origin_ms >= 0 && rd->origin_ms < 1e13))
		r = err_fail(err, CUZK_E_FORMAT, "%s: otherData.origin_ms %g is no time on CLOCK_MONOTONIC", rd->c.name,
			     rd->origin_ms);
	if (r == 0 && !rd->has_origin)
		r = err_fail(err, CUZK_E_FORMAT, "%s: no otherData.origin_ms: the timeline does not say where its times "
				 "start (it was not written by cuzk, or by one older than 2026-12)", rd->c.name);
	return r;
}

/* "GPU 3 compute (2)" is the lane "compute" of device 3, as the writer
 * names it: its second row, where spans that overlap the first's went.
 * The row's suffix is cut off in place. */
static void split_track(char *track, const char **lane, int *device)
{
	char *p = track + 4, *paren = strrchr(track, '(');
	size_t n = strlen(track);
	long d = 0;

	if (paren && paren > track + 1 && paren[-1] == ' ' && n >= 2 && track[n - 1] == ')' &&
	    strspn(paren + 1, "0123456789") == (size_t)(track + n - 1 - (paren + 1)) && paren + 1 < track + n - 1)
		paren[-1] = '\0';

	*lane = track;
	*device = -1;
	if (strncmp(track, "GPU ", 4) != 0 || *p < '0' || *p > '9')
		return;
	while (*p >= '0' && *p <= '9' && d < 100000)
		d = d * 10 + (*p++ - '0');
	if (*p == ' ' && p[1] && d < 100000) {
		*lane = p + 1;
		*device = (int)d;
	}
}

static int add_spans(groth16_trace *t, struct reader *rd, cuzk_error *err)
{
	for (size_t i = 0; i < rd->n_span; i++) {
		const struct read_span *s = &rd->span[i];
		struct read_track *k = NULL;
		const char *lane;
		int device, r;

		for (size_t j = 0; j < rd->n_track && !k; j++)
			if (rd->track[j].tid == s->tid)
				k = &rd->track[j];
		if (!k)
			return err_fail(err, CUZK_E_FORMAT, "%s: traceEvents[%zu] (\"%s\") is on track %g, which has no "
					 "thread_name", rd->c.name, s->index, s->name, s->tid);
		split_track(k->name, &lane, &device);
		const double start = rd->origin_ms + s->ts / 1e3;
		if ((r = groth16_trace_add_event(t, s->name, lane, device, s->partition, s->job[0] ? s->job : NULL, start,
						 start + s->dur / 1e3, err)) < 0)
			return r;
	}
	return 0;
}

int groth16_trace_merge_json(groth16_trace *t, const char *buf, size_t len, const char *name, double *origin_ms,
			     cuzk_error *err)
{
	struct reader rd = { .c = { buf, len, 0, name } };
	int r = read_top(&rd, err);

	if (r == 0)
		r = add_spans(t, &rd, err);
	if (r == 0)
		*origin_ms = rd.origin_ms;
	free(rd.span);
	free(rd.track);
	return r;
}
