// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The engine's counters for status and metrics (engine.h): queue depths,
 * workers, and the cumulative results with the request-time histogram. */
#include <string.h>

#include "daemon/engine.h"

const double cuzkd_total_bucket_le[CUZKD_TOTAL_BUCKETS] = { 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600 };

void cuzkd_engine_stats(struct cuzkd_engine *e, struct cuzkd_engine_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	pthread_mutex_lock(&e->lock);
	for (unsigned p = 0; p < CUZKD_PRIORITIES; p++)
		ret->queued[p] = e->queued[p];
	for (unsigned i = 0; i < e->n_devices; i++) {
		ret->running += e->devices[i].running;
		ret->idle += e->devices[i].idle;
	}
	ret->workers = e->n_workers;
	pthread_mutex_unlock(&e->lock);
}

void cuzkd_engine_device_stats(struct cuzkd_engine *e, unsigned i, struct cuzkd_device_stats *ret)
{
	pthread_mutex_lock(&e->lock);
	ret->workers = e->devices[i].workers;
	ret->running = e->devices[i].running;
	ret->partitions = e->devices[i].partitions;
	pthread_mutex_unlock(&e->lock);
}

void cuzkd_engine_count(struct cuzkd_engine *e, const struct cuzkd_job *job)
{
	struct cuzkd_counters *c = &e->counters;
	double total_s = (double)job->phase_ns[CUZKD_PH_TOTAL] / 1e9;

	pthread_mutex_lock(&e->lock);
	if (job->status == 0) {
		c->proofs_ok++;
		c->partitions += job->n_parts;
	} else {
		c->proofs_failed++;
	}
	c->by_status[job->status < 32 ? job->status : 31]++;
	for (int p = 0; p < CUZKD_PHASES; p++) {
		if (!job->phase_ns[p])
			continue;
		c->phase_ms_sum[p] += (double)job->phase_ns[p] / 1e6;
		c->phase_count[p]++;
	}
	for (int b = 0; b < CUZKD_TOTAL_BUCKETS; b++)
		if (total_s <= cuzkd_total_bucket_le[b])
			c->total_bucket[b]++;
	pthread_mutex_unlock(&e->lock);
}

void cuzkd_engine_count_verify(struct cuzkd_engine *e, double ms, int ok)
{
	pthread_mutex_lock(&e->lock);
	e->counters.verified++;
	e->counters.verify_failed += !ok;
	e->counters.verify_ms_sum += ms;
	pthread_mutex_unlock(&e->lock);
}
