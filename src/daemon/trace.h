// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A job's timeline, for a PROVE with CUZK_PROVE_FLAG_TRACE (docs/PROTOCOL.md,
 * PROVE): the client's trace fd, checked on admission and kept (a dup) for
 * the job; the spans of each partition, recorded by the worker that proved
 * it; and the Chrome trace-event JSON (formats/trace_json.h, the writer
 * `cuzk bench --trace` uses) written into the fd by the event loop once the
 * job is over, before its completion is posted.
 *
 * The fd must be a regular file on tmpfs (a memfd, a file in /dev/shm) open
 * for writing and not sealed against writes or growth.  Only tmpfs: the
 * event loop writes the file, and a write to a disk, a network file system
 * or a FUSE mount (which the client may serve itself) can block for as long
 * as its server likes, stalling every client; a write to tmpfs cannot.  So
 * the daemon never opens a path a client names, nor writes anywhere but into
 * memory the client handed it.
 *
 * Bounds: a partition keeps at most CUZKD_TRACE_PART_SPANS spans (the
 * backend's GROTH16_MAX_SPANS and the daemon's own CUZKD_TRACE_OWN_SPANS),
 * a job one more (its admission).  At 40 bytes a span, only as many as a
 * partition had, a 64-partition job holds at most about 10.5 MB (a 2^27
 * partition streamed in the smallest batches has ~3,300), and only while
 * it is in flight, which the in-flight limits bound;
 * cuzkd_engine.trace_bytes counts what all jobs hold.  Everything is
 * freed with the job: when its completion is written, or, for a client that
 * went away, when its last running partition returns.
 *
 * Threads: cuzkd_trace_new, _write and _free run on the loop;
 * cuzkd_trace_record on the worker that proves the partition, the only one
 * that touches that partition's slot.  The loop reads the slots only after
 * the job came back through the engine's done list, whose lock orders the
 * workers' writes before it. */
#ifndef CUZK_DAEMON_TRACE_H
#define CUZK_DAEMON_TRACE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "prover/types.h"

/* The daemon's spans of a partition: queue wait, srs wait, register
 * witness (backends that register), verify (verify = yes). */
#define CUZKD_TRACE_OWN_SPANS 4
#define CUZKD_TRACE_PART_SPANS (GROTH16_MAX_SPANS + CUZKD_TRACE_OWN_SPANS)

/* The track of the daemon's job-wide spans (check request, queue wait). */
#define CUZKD_TRACE_LANE "cuzkd"

struct cuzkd_trace_part {
	int ran;                         /* a worker recorded it */
	unsigned worker;
	unsigned n_own, n, dropped;      /* dropped: spans past the bound, or not kept for want of memory */
	groth16_span own[CUZKD_TRACE_OWN_SPANS];   /* lane NULL: the worker's track */
	groth16_span *span;              /* the backend's, n of them */
};

struct cuzkd_trace {
	int fd;                          /* the client's file (our dup), -1 once written */
	unsigned n_parts;
	uint64_t admitted_ns;            /* the request checked and queued (CLOCK_MONOTONIC) */
	struct cuzkd_trace_part part[];  /* n_parts */
};

/* The checks of a trace fd, each failure CUZK_E_FD (CUZK_E_SEALS for the
 * seals) with a message that names the trace fd and who sent it. */
int cuzkd_trace_check_fd(int fd, const char *who, cuzk_error *err);

/* A trace for n_parts partitions that writes into a dup of fd (which the
 * caller keeps); its bytes are added to *bytes. */
int cuzkd_trace_new(struct cuzkd_trace **ret, int fd, unsigned n_parts, atomic_uint_fast64_t *bytes,
		    cuzk_error *err);

/* Worker: partition part's spans, the daemon's own (n_own, at most
 * CUZKD_TRACE_OWN_SPANS) and the backend's (tm; NULL when the backend
 * did not run).  Never fails: spans it cannot keep are counted as dropped. */
void cuzkd_trace_record(struct cuzkd_trace *t, atomic_uint_fast64_t *bytes, unsigned part, unsigned worker,
			const groth16_span *own, unsigned n_own, const groth16_timings *tm);

/* Loop: the JSON of job job_id (its request received at t_received_ns)
 * into the fd, at the fd's file offset; the fd is closed after. */
int cuzkd_trace_write(struct cuzkd_trace *t, uint64_t job_id, uint64_t t_received_ns, cuzk_error *err);

/* t may be NULL. */
void cuzkd_trace_free(struct cuzkd_trace *t, atomic_uint_fast64_t *bytes);

/* What a trace of n_parts partitions holds before any span is recorded
 * (inline: the tests check the daemon's gauge against it). */
static inline size_t cuzkd_trace_base_bytes(unsigned n_parts)
{
	return sizeof(struct cuzkd_trace) + (size_t)n_parts * sizeof(struct cuzkd_trace_part);
}

#endif
