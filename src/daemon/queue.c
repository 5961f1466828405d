// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The engine's priority queue of partitions and the done list (engine.h).
 * Everything here runs under the engine's lock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "daemon/engine.h"
#include "formats/params_io.h"

/* One partition of job is over. */
static void part_done_locked(struct cuzkd_engine *e, struct cuzkd_job *job)
{
	uint64_t one = 1;

	if (--job->parts_left)
		return;
	job->done_next = NULL;
	if (e->done_tail)
		e->done_tail->done_next = job;
	else
		e->done_head = job;
	e->done_tail = job;
	/* A full eventfd counter (2^64-2) cannot happen: the loop reads it. */
	if (write(e->done_efd, &one, sizeof(one)) < 0)
		cuzkd_log(e->log, CUZKD_LOG_ERR, NULL, "engine: eventfd write failed: %s", strerror(errno));
}

/* The first failure of a job is the one its client hears about. */
static void fail_locked(struct cuzkd_job *job, int status, const char *msg)
{
	if (job->status)
		return;
	job->status = status;
	snprintf(job->message, sizeof(job->message), "%s", msg);
}

void cuzkd_engine_finish_part(struct cuzkd_engine *e, struct cuzkd_job *job, unsigned part, int status,
			      const char *msg, const groth16_proof *proof, const uint64_t phase_ns[CUZKD_PHASES])
{
	pthread_mutex_lock(&e->lock);
	if (status)
		fail_locked(job, status, msg);
	else if (proof)
		groth16_proof_encode(job->proofs[part], proof);
	for (int p = 0; p < CUZKD_PHASES; p++) {
		/* Waits overlap between partitions: keep the longest; work adds up. */
		if (p == CUZKD_PH_QUEUE || p == CUZKD_PH_SRS)
			job->phase_ns[p] = phase_ns[p] > job->phase_ns[p] ? phase_ns[p] : job->phase_ns[p];
		else
			job->phase_ns[p] += phase_ns[p];
	}
	part_done_locked(e, job);
	pthread_mutex_unlock(&e->lock);
}

/* Strict priority, with a bound on how long a level waits: each level with
 * work waiting counts the partitions of higher levels started past it, and
 * one that has counted starvation_limit is served next (the highest such
 * level first).  A partition at the head of its level then starts after at
 * most starvation_limit + 3 partitions of other levels; a critical one after
 * at most 3 (one of each lower level that had waited that long). */
struct cuzkd_item *cuzkd_queue_pop_locked(struct cuzkd_engine *e)
{
	unsigned pick = CUZKD_PRIORITIES, first = CUZKD_PRIORITIES;
	struct cuzkd_item *it;

	for (unsigned p = 0; p < CUZKD_PRIORITIES; p++) {
		if (!e->head[p])
			continue;
		if (first == CUZKD_PRIORITIES)
			first = p;
		if (pick == CUZKD_PRIORITIES && e->skipped[p] >= e->starvation_limit)
			pick = p;
	}
	if (first == CUZKD_PRIORITIES)
		return NULL;
	if (pick == CUZKD_PRIORITIES)
		pick = first;
	for (unsigned p = pick + 1; p < CUZKD_PRIORITIES; p++)
		if (e->head[p])
			e->skipped[p]++;
	e->skipped[pick] = 0;
	it = e->head[pick];
	e->head[pick] = it->next;
	if (!e->head[pick])
		e->tail[pick] = NULL;
	e->queued[pick]--;
	return it;
}

/* Wakes one worker on the device that has an idle worker and the fewest
 * partitions running; among equals, the one that has finished the fewest,
 * so that one-partition requests on an idle host rotate over the devices
 * instead of always landing on the first. */
static void wake_least_loaded_locked(struct cuzkd_engine *e)
{
	struct cuzkd_device *best = NULL;

	for (unsigned i = 0; i < e->n_devices; i++) {
		struct cuzkd_device *d = &e->devices[i];
		if (!d->idle)
			continue;
		if (!best || d->running < best->running ||
		    (d->running == best->running && d->partitions < best->partitions))
			best = d;
	}
	if (best) {
		/* The woken worker is no longer idle for the next waker, so that
		 * the next partition queued goes to another device. */
		best->idle--;
		best->wakeups++;
		pthread_cond_signal(&best->wake);
	}
}

void cuzkd_engine_submit(struct cuzkd_engine *e, struct cuzkd_job *job)
{
	uint64_t now = monotonic_ns();
	unsigned prio = job->priority < CUZKD_PRIORITIES ? job->priority : CUZKD_PRIORITIES - 1;

	pthread_mutex_lock(&e->lock);
	job->parts_left = job->n_parts;
	for (unsigned k = 0; k < job->n_parts; k++) {
		struct cuzkd_item *it = calloc(1, sizeof(*it));
		if (!it) {
			fail_locked(job, CUZK_E_NOMEM, "out of memory queueing a partition");
			atomic_store(&job->cancelled, 1);
			part_done_locked(e, job);
			continue;
		}
		it->job = job;
		it->part = k;
		it->t_queued_ns = now;
		if (e->tail[prio])
			e->tail[prio]->next = it;
		else
			e->head[prio] = it;
		e->tail[prio] = it;
		e->queued[prio]++;
		wake_least_loaded_locked(e);
	}
	pthread_mutex_unlock(&e->lock);
}

/* Drops the queued items that match (job, or every job not started when
 * job is NULL), failing their jobs with status. */
static void drop_items_locked(struct cuzkd_engine *e, struct cuzkd_job *job, int status, const char *why)
{
	for (unsigned p = 0; p < CUZKD_PRIORITIES; p++) {
		struct cuzkd_item **pp = &e->head[p], *last = NULL;
		while (*pp) {
			struct cuzkd_item *it = *pp;
			struct cuzkd_job *j = it->job;
			if (job ? j != job : j->parts_started != 0) {
				last = it;
				pp = &it->next;
				continue;
			}
			*pp = it->next;
			e->queued[p]--;
			free(it);
			atomic_store(&j->cancelled, 1);
			fail_locked(j, status, why);
			part_done_locked(e, j);
		}
		e->tail[p] = last;
		if (!e->head[p])
			e->skipped[p] = 0;
	}
}

void cuzkd_engine_cancel(struct cuzkd_engine *e, struct cuzkd_job *job, int status, const char *why)
{
	pthread_mutex_lock(&e->lock);
	/* A job whose partitions are all done keeps its result. */
	if (job->parts_left == 0) {
		pthread_mutex_unlock(&e->lock);
		return;
	}
	atomic_store(&job->cancelled, 1);
	fail_locked(job, status, why);
	drop_items_locked(e, job, status, why);
	pthread_mutex_unlock(&e->lock);
}

void cuzkd_engine_drain(struct cuzkd_engine *e, int status, const char *why)
{
	pthread_mutex_lock(&e->lock);
	drop_items_locked(e, NULL, status, why);
	pthread_mutex_unlock(&e->lock);
}

struct cuzkd_job *cuzkd_engine_take_done(struct cuzkd_engine *e)
{
	struct cuzkd_job *list;

	pthread_mutex_lock(&e->lock);
	list = e->done_head;
	e->done_head = e->done_tail = NULL;
	pthread_mutex_unlock(&e->lock);
	return list;
}
