// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A timeline of proofs in the Chrome trace-event format (the JSON object
 * form: {"traceEvents": [...]}), which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open.  Every span of every proof becomes a complete
 * event ("ph": "X") on a track named after its lane ("GPU 0 copy",
 * "GPU 0 compute", "cpu worker 1", ...), with the partition (and job) in
 * its args; other spans (loading, setup) can be added by name.  Times are
 * microseconds from the trace's start on CLOCK_MONOTONIC, and that start,
 * in ms, is the top-level otherData.origin_ms.
 *
 * Events are kept in memory and written by groth16_trace_write.  Not
 * thread-safe: one writer. */
#ifndef CUZK_FORMATS_TRACE_JSON_H
#define CUZK_FORMATS_TRACE_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "prover/types.h"

typedef struct groth16_trace groth16_trace;

/* A trace whose time 0 is now; process_name labels the whole trace. */
int groth16_trace_new(groth16_trace **ret, const char *process_name, cuzk_error *err);
void groth16_trace_free(groth16_trace *t);
/* Moves time 0 (CLOCK_MONOTONIC, ms): cuzkd counts a job's trace from the
 * moment its request arrived, not from when the trace is put together. */
void groth16_trace_set_origin(groth16_trace *t, double t0_ms);

/* Every span of one proof.  job may be NULL (the CLI) or a request's id. */
int groth16_trace_add_proof(groth16_trace *t, const groth16_timings *tm, unsigned partition, const char *job,
			    cuzk_error *err);
/* One span (start and end on CLOCK_MONOTONIC, ms); name and lane are copied. */
int groth16_trace_add_span(groth16_trace *t, const char *name, const char *lane, int device,
			   double start_ms, double end_ms, cuzk_error *err);
/* The same with what add_proof records: partition (-1 for none: the span
 * is not a proof's) and job (may be NULL). */
int groth16_trace_add_event(groth16_trace *t, const char *name, const char *lane, int device, long partition,
			    const char *job, double start_ms, double end_ms, cuzk_error *err);

/* Adds every span of a timeline in this format (len bytes at buf; name is
 * what an error names) to t, on t's clock: a span starts at the timeline's
 * origin (its otherData.origin_ms, which the writer puts there) plus its ts.
 * Tracks are matched by name ("GPU 0 compute" is the lane "compute" of
 * device 0); a span keeps its partition and job.  So the timelines of
 * several requests to one daemon, each from its own arrival, land on one
 * clock.  The timeline's origin goes to *origin_ms.  Errors: CUZK_E_FORMAT
 * (not JSON, or no traceEvents, no origin, a clock other than
 * CLOCK_MONOTONIC, a span without its times or on a track without a name:
 * the span's index and the offset named), CUZK_E_NOMEM, after which t may
 * hold part of the timeline. */
int groth16_trace_merge_json(groth16_trace *t, const char *buf, size_t len, const char *name, double *origin_ms,
			     cuzk_error *err);

/* How busy a GPU's compute streams were: from the first span on its
 * tracks whose lane is "compute..." (its kernels' streams, every workspace's)
 * to the last one's end, the time no such span covered.  A span runs from
 * one CUDA event to another on its stream, so a stream's wait inside a
 * span counts as busy: this measures what the host left idle between the
 * spans, not the SMs' use. */
#define GROTH16_TRACE_GAP_MS 0.1
struct groth16_trace_busy {
	double first_ms, last_ms;     /* CLOCK_MONOTONIC */
	double idle_ms;               /* of last_ms - first_ms, with no compute span */
	size_t gaps;                  /* gaps of GROTH16_TRACE_GAP_MS or more */
	double longest_gap_ms;
	char before[64], job[64];     /* the span that ended the longest gap, its job ("" if none) */
	long partition;               /* and its partition, -1 if none */
};
/* 1 and *ret filled, or 0 when the device has no compute spans. */
int groth16_trace_compute_busy(const groth16_trace *t, int device, struct groth16_trace_busy *ret, cuzk_error *err);
/* The highest device index of any track, -1 when all are the CPU's. */
int groth16_trace_max_device(const groth16_trace *t);
/* For each GPU with compute spans, a line to f: "GPU 0 compute: idle 84.3
 * of 12914.4 ms from its first span to its last (99.35% busy); 12 gaps of
 * 0.1 ms or more, the longest ...".  GPU 0's figures also go to *gpu0 when
 * it is not NULL and GPU 0 has compute spans.  The count of lines, or an
 * error. */
int groth16_trace_print_busy(const groth16_trace *t, FILE *f, struct groth16_trace_busy *gpu0, cuzk_error *err);

/* Writes the JSON to path (created or truncated). */
int groth16_trace_write(const groth16_trace *t, const char *path, cuzk_error *err);
/* Writes the JSON to f, which stays open; name (a path, "trace fd") is
 * what an error names.  A short write is an error. */
int groth16_trace_write_stream(const groth16_trace *t, FILE *f, const char *name, cuzk_error *err);

#endif
