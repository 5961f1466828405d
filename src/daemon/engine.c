// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The engine's devices and worker threads (see engine.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "daemon/engine.h"
#include "prover/params_upload.h"

static void *worker_main(void *arg)
{
	struct cuzkd_worker *w = arg;
	struct cuzkd_engine *e = w->engine;
	struct cuzkd_device *d = w->dev;

	pthread_mutex_lock(&e->lock);
	for (;;) {
		struct cuzkd_item *it = cuzkd_queue_pop_locked(e);
		if (!it) {
			if (e->stopping)
				break;
			/* The waker takes this worker off `idle` when it signals
			 * (queue.c). */
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
		cuzkd_prove_partition(w, it);
		pthread_mutex_lock(&e->lock);
		d->running--;
		d->partitions++;
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

static void unload_from_devices(void *ctx, const groth16_params *p)
{
	struct cuzkd_engine *e = ctx;

	for (unsigned i = 0; i < e->n_devices; i++)
		if (e->devices[i].dev)
			e->be->unload_params(e->devices[i].dev, p);
}

/* The SRS cache's reads on a backend with device memory: the params go to
 * every device while they are decoded (prover/params_upload.h), so that a
 * preload ends with them resident wherever they fit and the first request
 * pays no upload.  A device without room in its budget streams them from
 * its first proof on, as before; a device whose upload fails is named in
 * the log and its first proof uploads them again. */
static int read_to_devices(void *ctx, groth16_params *ret, int fd, const char *name, const groth16_params_load_opts *o,
			   const groth16_params *key, cuzk_error *err)
{
	struct cuzkd_engine *e = ctx;
	groth16_device **devs = calloc(e->n_devices, sizeof(*devs));
	struct groth16_upload_stats st;

	if (!devs)
		return err_fail(err, CUZK_E_NOMEM, "SRS '%s': out of memory", name);
	for (unsigned i = 0; i < e->n_devices; i++)
		devs[i] = e->devices[i].dev;
	int r = groth16_params_read_to_devices(ret, fd, name, o, e->be, devs, e->n_devices, key, &st, err);
	free(devs);
	if (r)
		return r;
	if (st.rc)
		cuzkd_log(e->log, CUZKD_LOG_WARNING, NULL, "SRS '%s': upload: %s (its first proof there uploads it)",
			  name, st.err.msg);
	cuzkd_log(e->log, CUZKD_LOG_INFO, NULL,
		  "SRS '%s': resident on %u of %u devices, %.0f ms after its decoding ended; %llu points decoded on "
		  "%s %u", name, st.resident, st.devices, st.tail_ms, (unsigned long long)st.device_decoded,
		  e->be->name, e->devices[0].number);
	return 0;
}

/* The one place where the configuration's GPU keys and CPU keys part: a
 * backend with device memory gets the listed devices (or all) with
 * workers_per_device each; the CPU gets cpu_devices pseudo-devices of
 * cpu_workers each, scheduled like GPUs, so that the multi-device placement
 * is testable on a machine without any. */
static int plan_devices(struct cuzkd_engine *e, const struct cuzkd_config *cfg, cuzk_error *err)
{
	const int gpu_like = e->be->mem != NULL;
	int count = e->be->device_count();
	unsigned n = !gpu_like ? cfg->cpu_devices : cfg->devices_all ? (unsigned)(count > 0 ? count : 0) : cfg->n_devices;

	if (n == 0)
		return err_fail(err, CUZK_E_UNSUPPORTED, "backend %s: no device found", e->be->name);
	e->devices = calloc(n, sizeof(*e->devices));
	if (!e->devices)
		return err_fail(err, CUZK_E_NOMEM, "engine: out of memory");
	e->n_devices = n;
	for (unsigned i = 0; i < n; i++) {
		struct cuzkd_device *d = &e->devices[i];
		int index = !gpu_like ? 0 : cfg->devices_all ? (int)i : cfg->devices[i];
		pthread_cond_init(&d->wake, NULL);
		d->number = gpu_like ? (unsigned)index : i;
		d->log_gpu = gpu_like ? index : -1;
		d->workers = gpu_like ? cfg->workers_per_device : cfg->cpu_workers;
		if (index >= count)
			return err_fail(err, CUZK_E_NOTFOUND, "devices: %s %d does not exist (%d found)",
					e->be->name, index, count);
		if (e->be->open(&d->dev, index, gpu_like ? cfg->vram_budget : 0, err))
			return err_prefix(err, "%s %d", e->be->name, index);
	}
	return 0;
}

static int start_workers(struct cuzkd_engine *e, cuzk_error *err)
{
	unsigned w = 0;

	for (unsigned i = 0; i < e->n_devices; i++)
		e->n_workers += e->devices[i].workers;
	e->workers = calloc(e->n_workers, sizeof(*e->workers));
	if (!e->workers)
		return err_fail(err, CUZK_E_NOMEM, "engine: out of memory");
	for (unsigned i = 0; i < e->n_devices; i++) {
		for (unsigned k = 0; k < e->devices[i].workers; k++, w++) {
			char name[16];
			int r;
			e->workers[w].engine = e;
			e->workers[w].index = w;
			e->workers[w].dev = &e->devices[i];
			r = pthread_create(&e->workers[w].thread, NULL, worker_main, &e->workers[w]);
			if (r)
				return err_fail_errno(err, r, "engine: starting worker %u", w);
			e->workers[w].started = 1;
			snprintf(name, sizeof(name), "cuzkd-w%u", w);
			pthread_setname_np(e->workers[w].thread, name);
		}
	}
	return 0;
}

/* Tests only: $CUZKD_TEST_GATE names a FIFO from which a worker reads one
 * byte before each partition, so that a test decides when work runs (and
 * what is queued or running when it looks) whatever the backend's speed. */
static int open_test_gate(struct cuzkd_engine *e, cuzk_error *err)
{
	const char *path = getenv("CUZKD_TEST_GATE");

	if (!path || !*path)
		return 0;
	e->test_gate = open(path, O_RDWR | O_CLOEXEC);
	return e->test_gate < 0 ? err_fail_errno(err, errno, "CUZKD_TEST_GATE %s", path) : 0;
}

int cuzkd_engine_start(struct cuzkd_engine *e, const struct cuzkd_config *cfg, const struct groth16_backend *be,
		       struct cuzkd_srs_cache *srs, struct cuzkd_log *log, cuzk_error *err)
{
	int r;

	memset(e, 0, sizeof(*e));
	e->test_gate = -1;
	e->log = log;
	e->srs = srs;
	e->be = be;
	e->starvation_limit = cfg->starvation_limit;
	e->verify = cfg->verify;
	pthread_mutex_init(&e->lock, NULL);
	e->done_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->done_efd < 0)
		return err_fail_errno(err, errno, "engine: eventfd");
	r = open_test_gate(e, err);
	if (r == 0)
		r = plan_devices(e, cfg, err);
	if (r)
		return r;
	if (be->unload_params) {
		srs->on_evict = unload_from_devices;
		srs->evict_ctx = e;
	}
	if (be->upload_begin) {
		srs->read_params = read_to_devices;
		srs->read_ctx = e;
	}
	return start_workers(e, err);
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
	 * not call back into devices freed here.  Closing a device frees the
	 * parameters it holds anyway. */
	if (e->srs && e->srs->on_evict == unload_from_devices) {
		e->srs->on_evict = NULL;
		e->srs->evict_ctx = NULL;
	}
	if (e->srs && e->srs->read_params == read_to_devices) {
		e->srs->read_params = NULL;
		e->srs->read_ctx = NULL;
	}
	for (unsigned i = 0; i < e->n_devices; i++) {
		if (e->devices[i].dev)
			e->be->close(e->devices[i].dev);
		pthread_cond_destroy(&e->devices[i].wake);
	}
	free(e->workers);
	free(e->devices);
	e->workers = NULL;
	e->devices = NULL;
	e->n_devices = e->n_workers = 0;
	if (e->done_efd >= 0)
		close(e->done_efd);
	if (e->test_gate >= 0)
		close(e->test_gate);
	pthread_mutex_destroy(&e->lock);
}
