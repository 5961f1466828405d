// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The engine: a priority queue of partitions (queue.c) and the workers that
 * prove them (engine.c, partition.c) on the devices of one proving backend
 * (prover/backend.h): GPUs, workers_per_device each, or the CPU.
 *
 * Work is queued per partition, so the partitions of one request spread
 * over every device that has an idle worker.  A new item wakes a worker of
 * the least-loaded device that has one idle.  Workers never touch client
 * sockets or rings: a finished job goes on a mutex-protected list and the
 * event loop is woken through an eventfd; it writes the client's ring.
 *
 * Ownership: the loop creates a job (one reference) and submits it; the
 * engine holds it until every partition is done or dropped and then hands
 * it back through the done list.  The loop frees it after writing the
 * completion.  A job is never freed while a worker proves one of its
 * partitions. */
#ifndef CUZK_DAEMON_ENGINE_H
#define CUZK_DAEMON_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "abi/witness_format.h"
#include "common/error.h"
#include "daemon/conf.h"
#include "daemon/log.h"
#include "daemon/regcache.h"
#include "daemon/srs_cache.h"
#include "prover/backend.h"
#include "prover/types.h"

#define CUZKD_PRIORITIES 4           /* critical, high, normal, low */
#define CUZKD_PHASES 9               /* cuzk_phase: check .. total */
enum { CUZKD_PH_CHECK, CUZKD_PH_QUEUE, CUZKD_PH_SRS, CUZKD_PH_REGISTER, CUZKD_PH_UPLOAD,
       CUZKD_PH_NTT, CUZKD_PH_MSM, CUZKD_PH_ASSEMBLE, CUZKD_PH_TOTAL };

struct cuzkd_session;
struct cuzkd_witness;
struct cuzkd_trace;

struct cuzkd_job {
	uint64_t id;                     /* the daemon's, for logs */
	uint64_t request_id;             /* the client's */
	unsigned priority;
	char srs_name[CUZKD_SRS_NAME_MAX + 1];
	int fixed_rs;
	uint64_t seed;
	struct cuzkd_buf *buf;           /* the witness mapping; registered by the worker */
	int64_t client_pid, client_uid;  /* for log records */
	unsigned n_parts;
	groth16_witness_view view[CUZK_WITNESS_MAX_PARTITIONS];
	uint64_t t_received_ns;          /* CLOCK_MONOTONIC */
	/* A traced request's timeline (trace.h), or NULL: made and freed by
	 * the loop; each partition's slot written by the worker proving it. */
	struct cuzkd_trace *trace;

	/* Owned by the event loop (the engine never reads these). */
	struct cuzkd_session *session;
	struct cuzkd_witness *witness;
	struct cuzkd_job *session_next;

	/* Set by anyone, read by workers between partitions. */
	atomic_int cancelled;

	/* Results, written by workers under the engine lock. */
	unsigned parts_left;             /* queued or running partitions */
	unsigned parts_started;
	int status;                      /* 0 or a positive CUZK_E_* (first failure) */
	char message[CUZK_ERRMSG_MAX];
	uint64_t phase_ns[CUZKD_PHASES];
	uint8_t (*proofs)[GROTH16_PROOF_SIZE];   /* n_parts entries */
	struct cuzkd_job *done_next;
};

struct cuzkd_item {                  /* one queued partition */
	struct cuzkd_job *job;
	unsigned part;
	uint64_t t_queued_ns;
	struct cuzkd_item *next;
};

struct cuzkd_device {                /* a GPU, or a CPU pseudo-device */
	unsigned number;                 /* CUDA device number, or k for CPU pseudo-device k */
	int log_gpu;                     /* CUZK_GPU of its log records: the CUDA number, or -1 */
	groth16_device *dev;
	unsigned workers, idle, running;
	unsigned wakeups;                /* idle workers claimed by a waker, not yet awake */
	uint64_t partitions;             /* partitions this device has finished */
	pthread_cond_t wake;
};

struct cuzkd_engine;

struct cuzkd_worker {
	struct cuzkd_engine *engine;
	unsigned index;
	struct cuzkd_device *dev;
	pthread_t thread;
	int started;
};

#define CUZKD_TOTAL_BUCKETS 12

struct cuzkd_counters {              /* cumulative, for metrics */
	uint64_t proofs_ok, proofs_failed;
	uint64_t by_status[32];          /* completions by status code */
	uint64_t partitions;
	double phase_ms_sum[CUZKD_PHASES];
	uint64_t phase_count[CUZKD_PHASES];
	/* Histogram of request total times, upper bounds in seconds below. */
	uint64_t total_bucket[CUZKD_TOTAL_BUCKETS];
	/* The check of each partition's proof (verify = yes). */
	uint64_t verified, verify_failed;
	double verify_ms_sum;
};
extern const double cuzkd_total_bucket_le[CUZKD_TOTAL_BUCKETS];

struct cuzkd_engine {
	struct cuzkd_log *log;
	struct cuzkd_srs_cache *srs;
	const struct groth16_backend *be;
	pthread_mutex_t lock;
	struct cuzkd_item *head[CUZKD_PRIORITIES], *tail[CUZKD_PRIORITIES];
	unsigned queued[CUZKD_PRIORITIES];
	unsigned skipped[CUZKD_PRIORITIES];   /* partitions of higher levels started while this one waited */
	unsigned starvation_limit;
	int verify;                      /* check each proof before it is delivered */
	unsigned n_devices, n_workers;
	struct cuzkd_device *devices;
	struct cuzkd_worker *workers;
	int stopping;
	struct cuzkd_job *done_head, *done_tail;
	int done_efd;                    /* written once per finished job */
	int test_gate;                   /* $CUZKD_TEST_GATE (tests only), or -1 */
	struct cuzkd_counters counters;  /* under lock */
	atomic_uint_fast64_t next_job_id;
	atomic_uint_fast64_t trace_bytes;   /* held by the timelines of jobs in flight (trace.h) */
};

/* Opens the backend's devices the configuration names and starts the
 * workers. */
int cuzkd_engine_start(struct cuzkd_engine *e, const struct cuzkd_config *cfg, const struct groth16_backend *be,
		       struct cuzkd_srs_cache *srs, struct cuzkd_log *log, cuzk_error *err);
/* Stops idle workers and joins them; busy ones are joined once they finish
 * unless abandon is set (drain timeout: the process is about to exit). */
void cuzkd_engine_stop(struct cuzkd_engine *e, int abandon);
/* Frees what start made, after stop (without abandon) and after the done
 * list was drained. */
void cuzkd_engine_destroy(struct cuzkd_engine *e);

/* queue.c */
/* Queues every partition of job. */
void cuzkd_engine_submit(struct cuzkd_engine *e, struct cuzkd_job *job);
/* Marks job cancelled and drops its queued partitions; running ones end at
 * the next partition boundary.  The job still comes back through the done
 * list (status CUZK_E_CANCELLED unless it had finished). */
void cuzkd_engine_cancel(struct cuzkd_engine *e, struct cuzkd_job *job, int status, const char *why);
/* Shutdown: fails every job none of whose partitions has started; jobs
 * that are running keep their queued partitions. */
void cuzkd_engine_drain(struct cuzkd_engine *e, int status, const char *why);
/* Takes the list of finished jobs (linked by done_next). */
struct cuzkd_job *cuzkd_engine_take_done(struct cuzkd_engine *e);
/* Worker side, lock held: the next partition to prove, or NULL. */
struct cuzkd_item *cuzkd_queue_pop_locked(struct cuzkd_engine *e);
/* Worker side: one partition of job is over (status 0 with its proof, or
 * the first failure); adds its phase times. */
void cuzkd_engine_finish_part(struct cuzkd_engine *e, struct cuzkd_job *job, unsigned part, int status,
			      const char *msg, const groth16_proof *proof, const uint64_t phase_ns[CUZKD_PHASES]);

/* Counts for status lines and metrics (counters.c). */
struct cuzkd_engine_stats {
	unsigned queued[CUZKD_PRIORITIES];
	unsigned running, workers, idle;
};
void cuzkd_engine_stats(struct cuzkd_engine *e, struct cuzkd_engine_stats *ret);
/* One device's counters, read under the engine's lock (workers change them). */
struct cuzkd_device_stats {
	unsigned workers, running;
	uint64_t partitions;
};
void cuzkd_engine_device_stats(struct cuzkd_engine *e, unsigned i, struct cuzkd_device_stats *ret);
/* Records a completion in the counters (the loop calls it for every job,
 * including ones rejected before the engine saw them). */
void cuzkd_engine_count(struct cuzkd_engine *e, const struct cuzkd_job *job);
/* Records one proof's verification (workers). */
void cuzkd_engine_count_verify(struct cuzkd_engine *e, double ms, int ok);

/* partition.c: a worker proves one partition, then hands it to
 * cuzkd_engine_finish_part. */
void cuzkd_prove_partition(struct cuzkd_worker *w, struct cuzkd_item *item);

#endif
