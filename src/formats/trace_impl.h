// SPDX-License-Identifier: Apache-2.0 OR MIT
/* What a groth16_trace holds (trace_json.h): its writer and the figures
 * taken from it (trace_busy.c) share it; nothing else sees it. */
#ifndef CUZK_FORMATS_TRACE_IMPL_H
#define CUZK_FORMATS_TRACE_IMPL_H

#include <stddef.h>

#include "formats/trace_json.h"

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
	int device;                   /* -1: the CPU's */
};

struct groth16_trace {
	char process[TRACE_NAME_MAX];
	double t0_ms;
	struct trace_event *ev;
	size_t n_ev, cap_ev;
	struct trace_track *tracks;
	size_t n_tracks, cap_tracks;
};

#endif
