// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Timelines read back onto one clock (groth16_trace_merge_json): two
 * requests' timelines, each from its own origin, merged into one whose
 * spans sit where they happened, on one track per lane; a merged timeline
 * read back writes the same bytes; spans that overlap without nesting
 * written on further rows of their track, so that every row nests (the
 * format's rule), checked on random spans by a reader of the output of
 * its own; and every kind of bad timeline refused with what is wrong and
 * where. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/trace_json.h"
#include "tests/check.h"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static char *render(const groth16_trace *t)
{
	char *buf = NULL;
	size_t len = 0;
	cuzk_error err;
	FILE *f = open_memstream(&buf, &len);
	REQUIRE(f && groth16_trace_write_stream(t, f, "memory", &err) == 0);
	REQUIRE(fclose(f) == 0);
	return buf;
}

/* A request's timeline as cuzkd writes it: from its arrival at origin. */
static char *request(double origin, const char *job, double gpu_start)
{
	groth16_trace *t;
	cuzk_error err;
	REQUIRE(groth16_trace_new(&t, "cuzkd job", &err) == 0);
	groth16_trace_set_origin(t, origin);
	REQUIRE(groth16_trace_add_event(t, "check request", "cuzkd", -1, -1, job, origin, origin + 0.25, &err) == 0);
	REQUIRE(groth16_trace_add_event(t, "srs wait", "cuzkd worker 1", -1, 0, job, origin + 0.25, origin + 0.5,
					&err) == 0);
	REQUIRE(groth16_trace_add_event(t, "msm \"h\"", "compute", 0, 0, job, gpu_start, gpu_start + 1, &err) == 0);
	REQUIRE(groth16_trace_add_event(t, "upload a", "copy", 1, 1, job, gpu_start, gpu_start + 2, &err) == 0);
	char *s = render(t);
	groth16_trace_free(t);
	return s;
}

static void expect_refused(const char *text, int code, const char *needle)
{
	groth16_trace *t;
	cuzk_error err = { 0 };
	double origin = -1;
	REQUIRE(groth16_trace_new(&t, "x", &err) == 0);
	int r = groth16_trace_merge_json(t, text, strlen(text), "t.json", &origin, &err);
	CHECK_MSG(r == -code && strstr(err.msg, needle) && strstr(err.msg, "t.json"), "rc %d '%s', wanted '%s'", r,
		  err.msg, needle);
	CHECK(origin == -1);
	groth16_trace_free(t);
}

struct out_span {
	unsigned long tid;
	long long start, end;   /* ns */
};

static int by_tid_start(const void *a, const void *b)
{
	const struct out_span *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end);
}

/* Every row of the written timeline nests: a span that starts inside
 * another ends inside it too.  Returns the spans read. */
static size_t check_rows_nest(const char *json)
{
	size_t n = 0, cap = count(json, "\"ph\": \"X\"") + 1;
	struct out_span *sp = calloc(cap, sizeof(*sp));
	REQUIRE(sp);
	for (const char *p = strstr(json, "{\"ph\": \"X\""); p; p = strstr(p + 1, "{\"ph\": \"X\"")) {
		unsigned long tid;
		long long ts_us, ts_frac, dur_us, dur_frac;
		REQUIRE(sscanf(p, "{\"ph\": \"X\", \"pid\": 1, \"tid\": %lu, \"ts\": %lld.%3lld, \"dur\": %lld.%3lld", &tid,
			       &ts_us, &ts_frac, &dur_us, &dur_frac) == 5);
		sp[n].tid = tid;
		sp[n].start = ts_us * 1000 + ts_frac;
		sp[n].end = sp[n].start + dur_us * 1000 + dur_frac;
		n++;
	}
	qsort(sp, n, sizeof(*sp), by_tid_start);
	long long *open = calloc(n + 1, sizeof(*open));
	size_t depth = 0;
	REQUIRE(open);
	for (size_t i = 0; i < n; i++) {
		if (i && sp[i].tid != sp[i - 1].tid)
			depth = 0;
		while (depth && open[depth - 1] <= sp[i].start)
			depth--;
		CHECK_MSG(!depth || sp[i].end <= open[depth - 1], "tid %lu: [%lld, %lld] ns overlaps a span ending at %lld",
			  sp[i].tid, sp[i].start, sp[i].end, open[depth - 1]);
		open[depth++] = sp[i].end;
	}
	free(open);
	free(sp);
	return n;
}

/* Spans that overlap on one lane: rows; random ones: every row nests. */
static void overlapping_spans(void)
{
	groth16_trace *t, *back;
	cuzk_error err;
	double o;

	REQUIRE(groth16_trace_new(&t, "rows", &err) == 0);
	groth16_trace_set_origin(t, 0);
	const double span[][2] = { { 0, 10 }, { 5, 15 }, { 6, 8 }, { 10, 12 }, { 7, 14 } };
	for (size_t i = 0; i < 5; i++)
		REQUIRE(groth16_trace_add_event(t, "s", "copy", 0, (long)i, NULL, span[i][0], span[i][1], &err) == 0);
	char *json = render(t);
	/* [5, 15] and [7, 14] overlap [0, 10] without nesting in it: row 2;
	 * [6, 8] nests in [0, 10], and [10, 12] starts where it ends. */
	CHECK(strstr(json, "\"tid\": 1, \"name\": \"thread_name\", \"args\": {\"name\": \"GPU 0 copy\"}") &&
	      strstr(json, "\"tid\": 2, \"name\": \"thread_name\", \"args\": {\"name\": \"GPU 0 copy (2)\"}") &&
	      count(json, "\"thread_name\"") == 2);
	CHECK(strstr(json, "\"tid\": 1, \"ts\": 0.000, \"dur\": 10000.000") &&
	      strstr(json, "\"tid\": 2, \"ts\": 5000.000, \"dur\": 10000.000") &&
	      strstr(json, "\"tid\": 1, \"ts\": 6000.000, \"dur\": 2000.000") &&
	      strstr(json, "\"tid\": 1, \"ts\": 10000.000, \"dur\": 2000.000") &&
	      strstr(json, "\"tid\": 2, \"ts\": 7000.000, \"dur\": 7000.000"));
	CHECK(check_rows_nest(json) == 5);
	/* Read back, the rows are one lane again, and written the same. */
	REQUIRE(groth16_trace_new(&back, "rows", &err) == 0);
	REQUIRE(groth16_trace_merge_json(back, json, strlen(json), "rows", &o, &err) == 0);
	groth16_trace_set_origin(back, o);
	char *again = render(back);
	CHECK_MSG(strcmp(json, again) == 0, "read back:\n%s\nwritten:\n%s", again, json);
	free(again);
	free(json);
	groth16_trace_free(back);
	groth16_trace_free(t);

	/* Random spans on three lanes, on a grid of 0.4 µs (times that are
	 * no whole count of ns in binary), some equal, some touching. */
	REQUIRE(groth16_trace_new(&t, "random", &err) == 0);
	groth16_trace_set_origin(t, 1234.5);
	unsigned long long x = 88172645463325252ULL;
	for (int i = 0; i < 3000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		const double a = 1234.5 + (double)(x % 5000) * 4e-4, d = (double)(x >> 20 & 255) * 4e-4;
		const char *lane = (x >> 40) % 3 == 0 ? "cpu" : (x >> 40) % 3 == 1 ? "compute" : "copy";
		REQUIRE(groth16_trace_add_event(t, "r", lane, (x >> 40) % 3 ? 0 : -1, -1, NULL, a, a + d, &err) == 0);
	}
	json = render(t);
	CHECK(check_rows_nest(json) == 3000);
	CHECK(strstr(json, "\"GPU 0 compute (2)\"") && strstr(json, "\"cpu (3)\""));
	free(json);
	groth16_trace_free(t);
}

/* A GPU's compute streams (every "compute..." lane of every workspace,
 * not the copies nor the CPU's lanes): from the first span to the last,
 * the time none ran, and the longest such gap. */
static void compute_busy(void)
{
	groth16_trace *t;
	cuzk_error err;
	struct groth16_trace_busy b;
	static const struct { const char *name, *lane; int device; long part; const char *job; double a, z; } span[] = {
		{ "ntt", "compute", 0, 0, NULL, 0, 10 },
		{ "msm", "compute 2", 0, 0, NULL, 5, 12 },
		{ "msm h", "compute (2nd workspace)", 0, 1, "9", 12.5, 20 },
		{ "tiny", "compute", 0, 1, "9", 20.04, 21 },
		{ "upload", "copy", 0, 1, NULL, 10, 30 },
		{ "cpu msm", "compute", -1, 0, NULL, 40, 50 },
		{ "also not", "computer", 0, 0, NULL, 25, 26 },
		{ "ntt", "compute", 1, 2, NULL, 100, 101 },
	};

	REQUIRE(groth16_trace_new(&t, "busy", &err) == 0);
	CHECK(groth16_trace_max_device(t) == -1 && groth16_trace_compute_busy(t, 0, &b, &err) == 0);
	for (size_t i = 0; i < sizeof(span) / sizeof(span[0]); i++)
		REQUIRE(groth16_trace_add_event(t, span[i].name, span[i].lane, span[i].device, span[i].part, span[i].job,
						span[i].a, span[i].z, &err) == 0);
	CHECK(groth16_trace_max_device(t) == 1);
	CHECK(groth16_trace_compute_busy(t, 0, &b, &err) == 1);
	CHECK(b.first_ms == 0 && b.last_ms == 21 && b.idle_ms > 0.5399 && b.idle_ms < 0.5401 && b.gaps == 1);
	CHECK(b.longest_gap_ms == 0.5 && strcmp(b.before, "msm h") == 0 && strcmp(b.job, "9") == 0 && b.partition == 1);
	CHECK(groth16_trace_compute_busy(t, 2, &b, &err) == 0);

	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	REQUIRE(f);
	struct groth16_trace_busy gpu0 = { .first_ms = -1 };
	CHECK(groth16_trace_print_busy(t, f, &gpu0, &err) == 2);
	CHECK(gpu0.first_ms == 0 && gpu0.last_ms == 21 && gpu0.longest_gap_ms == 0.5);
	REQUIRE(fclose(f) == 0);
	CHECK_MSG(strcmp(out, "GPU 0 compute: idle 0.5 of 21.0 ms from its first span to its last (97.43% busy); 1 gap "
			      "of 0.1 ms or more, the longest 0.50 ms before \"msm h\" (job 9, partition 1)\n"
			      "GPU 1 compute: idle 0.0 of 1.0 ms from its first span to its last (100.00% busy); 0 gaps "
			      "of 0.1 ms or more\n") == 0, "%s", out);
	free(out);
	groth16_trace_free(t);
}

#define HEAD "{\"otherData\": {\"clock\": \"CLOCK_MONOTONIC\", \"origin_ms\": 5}, \"traceEvents\": ["
#define NAMED "{\"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"name\": \"thread_name\", \"args\": {\"name\": \"L\"}}"

int main(void)
{
	groth16_trace *m, *again;
	cuzk_error err;
	double o1 = 0, o2 = 0;

	char *r1 = request(1000.0, "5", 1002.0), *r2 = request(1500.25, "6", 1500.75);
	CHECK(strstr(r1, "\"otherData\": {\"clock\": \"CLOCK_MONOTONIC\", \"origin_ms\": 1000.000000}"));

	REQUIRE(groth16_trace_new(&m, "cuzkd, 2 requests", &err) == 0);
	REQUIRE(groth16_trace_merge_json(m, r1, strlen(r1), "job 5", &o1, &err) == 0);
	REQUIRE(groth16_trace_merge_json(m, r2, strlen(r2), "job 6", &o2, &err) == 0);
	CHECK(o1 == 1000.0 && o2 == 1500.25);
	groth16_trace_set_origin(m, o1);
	char *merged = render(m);
	/* One track per lane, whichever request used it. */
	CHECK(count(merged, "\"thread_name\"") == 4 && count(merged, "\"GPU 0 compute\"") == 1 &&
	      count(merged, "\"GPU 1 copy\"") == 1 && count(merged, "\"cuzkd worker 1\"") == 1);
	CHECK(count(merged, "\"ph\": \"X\"") == 8);
	/* Each span where it happened on the first request's clock, its job
	 * and partition kept, its name's quote escaped again. */
	CHECK(strstr(merged, "\"ts\": 2000.000, \"dur\": 1000.000, \"name\": \"msm \\\"h\\\"\", \"cat\": \"proof\", "
			     "\"args\": {\"partition\": 0, \"job\": \"5\"}"));
	CHECK(strstr(merged, "\"ts\": 500750.000, \"dur\": 1000.000, \"name\": \"msm \\\"h\\\"\", \"cat\": \"proof\", "
			     "\"args\": {\"partition\": 0, \"job\": \"6\"}"));
	CHECK(strstr(merged, "\"ts\": 500250.000, \"dur\": 250.000, \"name\": \"check request\", \"cat\": \"host\", "
			     "\"args\": {\"job\": \"6\"}"));
	CHECK(strstr(merged, "\"name\": \"upload a\", \"cat\": \"proof\", \"args\": {\"partition\": 1, \"job\": \"6\"}"));

	/* Read back, the merged timeline writes the same bytes. */
	REQUIRE(groth16_trace_new(&again, "cuzkd, 2 requests", &err) == 0);
	REQUIRE(groth16_trace_merge_json(again, merged, strlen(merged), "merged", &o1, &err) == 0);
	groth16_trace_set_origin(again, o1);
	char *twice = render(again);
	CHECK_MSG(strcmp(merged, twice) == 0, "read back:\n%s\nwritten:\n%s", merged, twice);

	overlapping_spans();
	compute_busy();

	/* Bad timelines: each refused, with what is wrong and where. */
	expect_refused("", CUZK_E_FORMAT, "expected '{'");
	expect_refused("[]", CUZK_E_FORMAT, "expected '{'");
	expect_refused("{\"traceEvents\": []}", CUZK_E_FORMAT, "no otherData.origin_ms");
	expect_refused("{\"otherData\": {\"origin_ms\": 1}}", CUZK_E_FORMAT, "no traceEvents");
	expect_refused("{\"otherData\": {\"clock\": \"CLOCK_REALTIME\", \"origin_ms\": 1}, \"traceEvents\": []}",
		       CUZK_E_FORMAT, "otherData.clock at offset 24 is 'CLOCK_REALTIME'");
	expect_refused(HEAD NAMED ", {\"ph\": \"X\", \"tid\": 1, \"dur\": 1}]}", CUZK_E_FORMAT,
		       "traceEvents[1] at offset 155: a span (\"X\") without its ts");
	expect_refused(HEAD NAMED ", {\"ph\": \"X\", \"tid\": 1, \"ts\": 1, \"dur\": -1}]}", CUZK_E_FORMAT,
		       "without a dur of 0 or more");
	expect_refused(HEAD NAMED ", {\"ph\": \"X\", \"ts\": 1, \"dur\": 1}]}", CUZK_E_FORMAT, "without its tid");
	expect_refused(HEAD NAMED ", {\"ph\": \"X\", \"tid\": 1, \"ts\": 1e300, \"dur\": 1}]}", CUZK_E_FORMAT,
		       "a span (\"X\") at 1e+300 µs for 1 µs: out of range");
	expect_refused("{\"otherData\": {\"origin_ms\": -5}, \"traceEvents\": []}", CUZK_E_FORMAT,
		       "otherData.origin_ms -5 is no time on CLOCK_MONOTONIC");
	expect_refused(HEAD "{\"ph\": \"X\", \"tid\": 2, \"ts\": 1, \"dur\": 1, \"name\": \"n\"}]}", CUZK_E_FORMAT,
		       "traceEvents[0] (\"n\") is on track 2, which has no thread_name");
	expect_refused(HEAD NAMED ", {\"ph\": \"X\", \"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"partition\": 1.5}}]}",
		       CUZK_E_FORMAT, "partition 1.5 is not a count");
	expect_refused(HEAD NAMED ",]}", CUZK_E_FORMAT, "traceEvents[1]: expected '{' at offset 154");
	expect_refused(HEAD NAMED "]} x", CUZK_E_FORMAT, "unexpected bytes after the JSON value at offset 156");

	/* Unknown keys, other kinds of events, a track named after its span. */
	const char *odd = "{\"future\": [1, {\"x\": null}], \"traceEvents\": [{\"ph\": \"X\", \"tid\": 1, \"ts\": 1000, "
			  "\"dur\": 500, \"name\": \"n\", \"cs\": \"x\"}, {\"ph\": \"i\", \"tid\": 1, \"ts\": 3}, "
			  "{\"ph\": \"M\", \"tid\": 1, \"name\": \"thread_name\", \"args\": {\"name\": \"GPU 12 x y\"}}], "
			  "\"otherData\": {\"origin_ms\": 2, \"host\": \"h\"}}";
	groth16_trace *t;
	REQUIRE(groth16_trace_new(&t, "odd", &err) == 0);
	CHECK(groth16_trace_merge_json(t, odd, strlen(odd), "odd", &o1, &err) == 0 && o1 == 2);
	groth16_trace_set_origin(t, 0);
	char *s = render(t);
	CHECK(strstr(s, "\"GPU 12 x y\"") && strstr(s, "\"ts\": 3000.000, \"dur\": 500.000, \"name\": \"n\"") &&
	      count(s, "\"ph\": \"X\"") == 1);
	free(s);
	groth16_trace_free(t);

	free(r1);
	free(r2);
	free(merged);
	free(twice);
	groth16_trace_free(m);
	groth16_trace_free(again);
	CHECK_DONE();
}
