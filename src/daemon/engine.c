// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The engine: priority queue and workers (see engine.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/clock.h"
#include "daemon/engine.h"
#include "groth16/params_io.h"
#include "groth16/prover.h"

const double cuzkd_total_bucket_le[12] = { 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600 };

static uint64_t ms_to_ns(double ms)
{
	return ms > 0 ? (uint64_t)(ms * 1e6) : 0;
}

/* Called with the lock held: one partition of job is over. */
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

static void fail_locked(struct cuzkd_job *job, int status, const char *msg)
{
	if (job->status)
		return;
	job->status = status;
	snprintf(job->message, sizeof(job->message), "%s", msg);
}

static void finish_part(struct cuzkd_engine *e, struct cuzkd_job *job, unsigned part, int status,
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

static void log_vram(struct cuzkd_worker *w, struct cuzkd_log_fields *f)
{
	size_t reserved, free_b, budget;

	if (!w->dev->gpu || groth16_gpu_vram(w->dev->gpu, &reserved, &free_b, &budget) < 0)
		return;
	f->vram_reserved_mb = (int64_t)(reserved >> 20);
	f->vram_free_mb = (int64_t)(free_b >> 20);
}

/* The journal gets one structured record per phase (CUZK_PHASE, CUZK_MS);
 * stderr gets only the summary line, to stay readable. */
static void log_phases(struct cuzkd_engine *e, const struct cuzkd_log_fields *base, const struct cuzkd_job *job,
		       unsigned part, const groth16_timings *t)
{
	const struct { const char *name; double ms; } ph[] = {
		{ "upload", t->upload_ms }, { "ntt", t->ntt_ms }, { "msm_h", t->msm_h_ms },
		{ "msm_l", t->msm_l_ms }, { "msm_a", t->msm_a_ms }, { "msm_b_g1", t->msm_b_g1_ms },
		{ "msm_b_g2", t->msm_b_g2_ms }, { "assemble", t->assemble_ms },
	};
	struct cuzkd_log_fields f = *base;

	for (size_t i = 0; i < sizeof(ph) / sizeof(ph[0]); i++) {
		if (ph[i].ms <= 0)
			continue;
		f.phase = ph[i].name;
		f.ms = ph[i].ms;
		cuzkd_log(e->log, CUZKD_LOG_INFO, &f, "job %" PRIu64 " partition %u: %s %.1f ms", job->id, part,
			  ph[i].name, ph[i].ms);
	}
}

/* GPU backend: page-locks the witness once (the registration cache keeps it
 * so).  Unpinned memory still works, the GPU side stages it, only slower. */
static int pin_witness(struct cuzkd_worker *w, struct cuzkd_job *job, uint64_t *ret_ns)
{
	cuzk_error err;

	*ret_ns = 0;
	if (!w->dev->gpu || !job->buf)
		return 0;
	if (cuzkd_buf_pin(job->buf, ret_ns, &err) == 0)
		return 1;
	cuzkd_log_client(w->engine->log, CUZKD_LOG_WARNING, NULL,
			 "job %" PRIu64 ": witness not pinned, proving from pageable memory: %s", job->id, err.msg);
	return 0;
}

/* The partition's density bitmaps, which lie in the client's memfd, copied
 * into memory of this worker's before anything reads them (the shape check,
 * then the prover), so that a client rewriting them cannot make the prover
 * walk past its points.  Done here rather than on the event loop, which
 * would stall every client for the copy (3 x 16 MiB for a 2^27 partition).
 * *ret_copy: free() it. */
static int private_densities(groth16_witness_view *v, uint64_t **ret_copy, cuzk_error *err)
{
	const size_t aux_words = (v->num_aux + 63) / 64, in_words = (v->num_inputs + 63) / 64;
	uint64_t *copy = malloc((2 * aux_words + in_words + 1) * sizeof(uint64_t));

	*ret_copy = NULL;
	if (!copy)
		return cuzk_fail(err, CUZK_E_NOMEM, "out of memory copying the density bitmaps (%zu bytes)",
				 (2 * aux_words + in_words) * sizeof(uint64_t));
	memcpy(copy, v->a_aux_density, aux_words * sizeof(uint64_t));
	memcpy(copy + aux_words, v->b_aux_density, aux_words * sizeof(uint64_t));
	memcpy(copy + 2 * aux_words, v->b_input_density, in_words * sizeof(uint64_t));
	v->a_aux_density = copy;
	v->b_aux_density = copy + aux_words;
	v->b_input_density = copy + 2 * aux_words;
	v->density_shared = 0;
	*ret_copy = copy;
	return 0;
}

static int prove_one(struct cuzkd_worker *w, struct cuzkd_job *job, const groth16_witness_view *view, unsigned part,
		     const groth16_params *p, int pinned, groth16_proof *out, groth16_timings *t, cuzk_error *err)
{
	fr_t r, s;
	int ret;

	if (job->fixed_rs) {
		groth16_seeded_rs(&r, &s, job->seed, part);
	} else {
		ret = groth16_random_rs(&r, &s, err);
		if (ret)
			return ret;
	}
	if (w->dev->gpu)
		ret = groth16_gpu_prove(w->dev->gpu, p, view, pinned, &r, &s, out, t, err);
	else
		ret = groth16_prove_cpu(p, view, &r, &s, out, t, err);
	/* r and s are secrets: do not leave them on the stack. */
	explicit_bzero(&r, sizeof(r));
	explicit_bzero(&s, sizeof(s));
	return ret;
}

static void run_item(struct cuzkd_worker *w, struct cuzkd_item *item)
{
	struct cuzkd_engine *e = w->engine;
	struct cuzkd_job *job = item->job;
	unsigned part = item->part;
	uint64_t ph[CUZKD_PHASES] = { 0 };
	uint64_t t0 = monotonic_ns(), t1, t_copy;
	struct cuzkd_log_fields f = CUZKD_LOG_NO_FIELDS;
	groth16_timings t = { 0 };
	groth16_proof proof;
	struct cuzkd_srs *srs;
	cuzk_error err = { 0 };
	groth16_witness_view view = job->view[part];
	uint64_t *density_copy = NULL;
	int r, pinned;

	ph[CUZKD_PH_QUEUE] = t0 - item->t_queued_ns;
	free(item);
	f.job = (int64_t)job->id;
	f.client_pid = job->client_pid;
	f.client_uid = job->client_uid;
	f.worker = (int)w->index;
	f.gpu = w->dev->index;
	if (atomic_load(&job->cancelled)) {
		finish_part(e, job, part, CUZK_E_CANCELLED, "cancelled", NULL, ph);
		return;
	}
	r = cuzkd_srs_acquire(e->srs, job->srs_name, &srs, &err);
	t1 = monotonic_ns();
	ph[CUZKD_PH_SRS] = t1 - t0;
	if (r) {
		finish_part(e, job, part, -r, err.msg, NULL, ph);
		return;
	}
	pinned = pin_witness(w, job, &ph[CUZKD_PH_REGISTER]);
	/* The provers check the shape first (groth16_check_shape), from the
	 * daemon's copy of the header and this worker's copies of the
	 * densities, so a client that rewrites its buffer cannot change it. */
	t_copy = monotonic_ns();
	r = view.density_shared ? private_densities(&view, &density_copy, &err) : 0;
	ph[CUZKD_PH_CHECK] = monotonic_ns() - t_copy;
	if (r == 0 && !atomic_load(&job->cancelled))
		r = prove_one(w, job, &view, part, &srs->params, pinned, &proof, &t, &err);
	else if (r == 0)
		r = cuzk_fail(&err, CUZK_E_CANCELLED, "cancelled");
	free(density_copy);
	cuzkd_srs_release(e->srs, srs);

	ph[CUZKD_PH_UPLOAD] = ms_to_ns(t.upload_ms);
	ph[CUZKD_PH_NTT] = ms_to_ns(t.ntt_ms);
	ph[CUZKD_PH_MSM] = ms_to_ns(t.msm_h_ms + t.msm_l_ms + t.msm_a_ms + t.msm_b_g1_ms + t.msm_b_g2_ms);
	ph[CUZKD_PH_ASSEMBLE] = ms_to_ns(t.assemble_ms);
	f.phase = "prove";
	f.ms = (double)(monotonic_ns() - t1) / 1e6;
	log_vram(w, &f);
	if (r == 0 && e->log->journal)
		log_phases(e, &f, job, part, &t);
	if (r)   /* usually the client's doing (shape, cancel): rate-limited */
		cuzkd_log_client(e->log, CUZKD_LOG_WARNING, &f, "job %" PRIu64 " partition %u failed: %s", job->id,
				 part, err.msg);
	else
		cuzkd_log(e->log, CUZKD_LOG_INFO, &f,
			  "job %" PRIu64 " partition %u proved in %.1f ms (ntt %.1f, msm %.1f)", job->id, part,
			  f.ms, t.ntt_ms, (double)ph[CUZKD_PH_MSM] / 1e6);
	finish_part(e, job, part, r ? -r : 0, err.msg, r ? NULL : &proof, ph);
}

static struct cuzkd_item *pop_locked(struct cuzkd_engine *e)
{
	for (unsigned p = 0; p < CUZKD_PRIORITIES; p++) {
		struct cuzkd_item *it = e->head[p];
		if (!it)
			continue;
		e->head[p] = it->next;
		if (!e->head[p])
			e->tail[p] = NULL;
		e->queued[p]--;
		return it;
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	struct cuzkd_worker *w = arg;
	struct cuzkd_engine *e = w->engine;
	struct cuzkd_device *d = w->dev;

	pthread_mutex_lock(&e->lock);
	for (;;) {
		struct cuzkd_item *it = pop_locked(e);
		if (!it) {
			if (e->stopping)
				break;
			/* The waker takes this worker off `idle` when it signals,
			 * so that the next partition queued goes to another device
			 * instead of signalling this one again. */
			d->idle++;
			while (!d->wakeups && !e->stopping)
				pthread_cond_wait(&d->wake, &e->lock);
			if (d->wakeups)
				d->wakeups--;
			else
				d->idle--;
			continue;
		}
		d->running++;
		it->job->parts_started++;
		pthread_mutex_unlock(&e->lock);
		run_item(w, it);
		pthread_mutex_lock(&e->lock);
		d->running--;
		d->partitions++;
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* Called with the lock held: wakes one worker on the device that has an
 * idle worker and the fewest partitions running; among equals, the one that
 * has finished the fewest, so that one-partition requests on an idle host
 * rotate over the devices instead of always landing on the first. */
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
 * job is NULL), failing their jobs with status.  Lock held. */
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
	for (int b = 0; b < 12; b++)
		if (total_s <= cuzkd_total_bucket_le[b])
			c->total_bucket[b]++;
	pthread_mutex_unlock(&e->lock);
}

static void unload_from_gpus(void *ctx, const groth16_params *p)
{
	struct cuzkd_engine *e = ctx;

	for (unsigned i = 0; i < e->n_devices; i++)
		if (e->devices[i].gpu)
			groth16_gpu_unload_params(e->devices[i].gpu, p);
}

static int open_devices(struct cuzkd_engine *e, const struct cuzkd_config *cfg, cuzk_error *err)
{
	int count = groth16_gpu_device_count();
	unsigned n = cfg->devices_all ? (unsigned)(count > 0 ? count : 0) : cfg->n_devices;

	if (n == 0)
		return cuzk_fail(err, CUZK_E_UNSUPPORTED, "backend gpu: no CUDA device found");
	e->devices = calloc(n, sizeof(*e->devices));
	if (!e->devices)
		return cuzk_fail(err, CUZK_E_NOMEM, "engine: out of memory");
	e->n_devices = n;
	for (unsigned i = 0; i < n; i++) {
		struct cuzkd_device *d = &e->devices[i];
		int r;
		d->index = cfg->devices_all ? (int)i : cfg->devices[i];
		pthread_cond_init(&d->wake, NULL);
		d->workers = cfg->workers_per_device;
		if (d->index >= count)
			return cuzk_fail(err, CUZK_E_NOTFOUND, "devices: GPU %d does not exist (%d found)",
					 d->index, count);
		r = groth16_gpu_open(&d->gpu, d->index, cfg->vram_budget, err);
		if (r)
			return cuzk_error_prefix(err, "GPU %d", d->index);
	}
	return 0;
}

int cuzkd_engine_start(struct cuzkd_engine *e, const struct cuzkd_config *cfg, int use_gpu,
		       struct cuzkd_srs_cache *srs, struct cuzkd_log *log, cuzk_error *err)
{
	unsigned w = 0;
	int r;

	memset(e, 0, sizeof(*e));
	e->log = log;
	e->srs = srs;
	e->use_gpu = use_gpu;
	pthread_mutex_init(&e->lock, NULL);
	e->done_efd = -1;
	e->done_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->done_efd < 0)
		return cuzk_fail_errno(err, errno, "engine: eventfd");
	if (use_gpu) {
		r = open_devices(e, cfg, err);
		if (r)
			return r;
		srs->on_evict = unload_from_gpus;
		srs->evict_ctx = e;
	} else {
		/* cpu_devices > 1 splits the CPU workers into pseudo-devices that
		 * the scheduler treats as GPUs: the multi-device placement is then
		 * testable on a machine without any. */
		e->devices = calloc(cfg->cpu_devices, sizeof(*e->devices));
		if (!e->devices)
			return cuzk_fail(err, CUZK_E_NOMEM, "engine: out of memory");
		e->n_devices = cfg->cpu_devices;
		for (unsigned i = 0; i < e->n_devices; i++) {
			e->devices[i].index = -1 - (int)i;
			e->devices[i].workers = cfg->cpu_workers;
			pthread_cond_init(&e->devices[i].wake, NULL);
		}
	}
	for (unsigned i = 0; i < e->n_devices; i++)
		e->n_workers += e->devices[i].workers;
	e->workers = calloc(e->n_workers, sizeof(*e->workers));
	if (!e->workers)
		return cuzk_fail(err, CUZK_E_NOMEM, "engine: out of memory");
	for (unsigned i = 0; i < e->n_devices; i++) {
		for (unsigned k = 0; k < e->devices[i].workers; k++, w++) {
			char name[16];
			e->workers[w].engine = e;
			e->workers[w].index = w;
			e->workers[w].dev = &e->devices[i];
			r = pthread_create(&e->workers[w].thread, NULL, worker_main, &e->workers[w]);
			if (r)
				return cuzk_fail_errno(err, r, "engine: starting worker %u", w);
			e->workers[w].started = 1;
			snprintf(name, sizeof(name), "cuzkd-w%u", w);
			pthread_setname_np(e->workers[w].thread, name);
		}
	}
	return 0;
}

void cuzkd_engine_stop(struct cuzkd_engine *e, int abandon)
{
	pthread_mutex_lock(&e->lock);
	e->stopping = 1;
	for (unsigned i = 0; i < e->n_devices; i++)
		pthread_cond_broadcast(&e->devices[i].wake);
	pthread_mutex_unlock(&e->lock);
	if (abandon)
		return;   /* busy workers run on until the process exits */
	for (unsigned i = 0; i < e->n_workers; i++)
		if (e->workers && e->workers[i].started)
			pthread_join(e->workers[i].thread, NULL);
}

void cuzkd_engine_destroy(struct cuzkd_engine *e)
{
	/* The SRS cache outlives the engine (the daemon frees it last): it must
	 * not call back into devices freed here.  Closing a GPU frees the
	 * parameters it holds anyway. */
	if (e->srs && e->srs->on_evict == unload_from_gpus) {
		e->srs->on_evict = NULL;
		e->srs->evict_ctx = NULL;
	}
	for (unsigned i = 0; i < e->n_devices; i++) {
		if (e->devices[i].gpu)
			groth16_gpu_close(e->devices[i].gpu);
		pthread_cond_destroy(&e->devices[i].wake);
	}
	free(e->workers);
	free(e->devices);
	e->workers = NULL;
	e->devices = NULL;
	e->n_devices = e->n_workers = 0;
	if (e->done_efd >= 0)
		close(e->done_efd);
	pthread_mutex_destroy(&e->lock);
}
