// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A timeline of proofs in the Chrome trace-event format (the JSON object
 * form: {"traceEvents": [...]}), which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open.  Every span of every proof becomes a complete
 * event ("ph": "X") on a track named after its lane ("GPU 0 copy",
 * "GPU 0 compute", "cpu worker 1", ...), with the partition (and job) in
 * its args; other spans (loading, setup) can be added by name.  Times are
 * microseconds from the trace's start on CLOCK_MONOTONIC.
 *
 * Events are kept in memory and written by groth16_trace_write.  Not
 * thread-safe: one writer. */
#ifndef CUZK_FORMATS_TRACE_JSON_H
#define CUZK_FORMATS_TRACE_JSON_H

#include <stdint.h>

#include "common/error.h"
#include "prover/types.h"

typedef struct groth16_trace groth16_trace;

/* A trace whose time 0 is now; process_name labels the whole trace. */
int groth16_trace_new(groth16_trace **ret, const char *process_name, cuzk_error *err);
void groth16_trace_free(groth16_trace *t);

/* Every span of one proof.  job may be NULL (the CLI) or a request's id. */
int groth16_trace_add_proof(groth16_trace *t, const groth16_timings *tm, unsigned partition, const char *job,
			    cuzk_error *err);
/* One span (start and end on CLOCK_MONOTONIC, ms); name and lane are copied. */
int groth16_trace_add_span(groth16_trace *t, const char *name, const char *lane, int device,
			   double start_ms, double end_ms, cuzk_error *err);

/* Writes the JSON to path (created or truncated). */
int groth16_trace_write(const groth16_trace *t, const char *path, cuzk_error *err);

#endif
