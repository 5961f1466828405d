// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Params copied to devices while they are decoded (params_upload.h). */
#include "prover/params_upload.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"

/* Points a device's thread copies at least at a time (96 MiB of G1 points):
 * the staging path moves 64 MiB chunks, and each wake-up of the thread is a
 * few microseconds against the ~30 ms the decoding threads take to make
 * that many points on 16 cores.  Small params go in sixteenths, so that
 * they overlap too. */
#define UPLOAD_STEP ((uint64_t)1 << 20)

static uint64_t step_for(uint64_t total)
{
	uint64_t s = total / 16;
	return s < 1 ? 1 : s > UPLOAD_STEP ? UPLOAD_STEP : s;
}

enum load_state { LOADING, LOADED, FAILED };

struct device_job {
	groth16_params_uploader *u;
	groth16_device *dev;
	pthread_t thread;
	int started;
	int resident;
	int rc;
	cuzk_error err;
};

struct groth16_params_uploader {
	const struct groth16_backend *be;
	const groth16_params *key;
	int overlap;                 /* copy while decoding (else only after) */
	pthread_mutex_t mu;
	pthread_cond_t cv;           /* the run grew, the load ended, or a copy ended */
	groth16_params arrays;       /* their pointers and counts, once have_arrays */
	int have_arrays;
	uint64_t done, total;        /* the decoded run, of total points (ic included) */
	uint64_t signalled;          /* done at the last wake-up of the threads */
	unsigned begun;              /* threads past their upload_begin (or without one) */
	enum load_state state;
	unsigned copying;            /* threads reading the host arrays now */
	unsigned n;
	struct device_job job[];
};

static uint64_t points_of(const groth16_params *p)
{
	return p->vk.n_ic + p->n_h + p->n_l + p->n_a + p->n_b_g1 + p->n_b_g2;
}

/* Points [from, to) of the file order (ic, h, l, a, b_g1, b_g2) to the
 * device, query by query; ic is the VK's and stays on the host. */
static int copy_run(const struct groth16_backend *be, groth16_upload *up, const groth16_params *a, uint64_t from,
		    uint64_t to, cuzk_error *err)
{
	const size_t n[GROTH16_Q__COUNT] = { a->n_h, a->n_l, a->n_a, a->n_b_g1, a->n_b_g2 };
	uint64_t at = a->vk.n_ic;
	for (int q = 0; q < GROTH16_Q__COUNT; q++) {
		uint64_t lo = from > at ? from : at, hi = to < at + n[q] ? to : at + n[q];
		int rc = lo < hi ? be->upload_part(up, (enum groth16_query)q, lo - at, hi - at, err) : 0;
		if (rc < 0)
			return rc;
		at += n[q];
	}
	return 0;
}

/* Waits for the load's end (the params are not the caller's before it) and
 * makes them resident, or drops them if the load failed. */
static void end_upload(struct device_job *j, groth16_upload *up)
{
	groth16_params_uploader *u = j->u;
	pthread_mutex_lock(&u->mu);
	while (u->state == LOADING)
		pthread_cond_wait(&u->cv, &u->mu);
	enum load_state st = u->state;
	pthread_mutex_unlock(&u->mu);
	if (st == FAILED) {
		u->be->upload_abort(up);
		return;
	}
	j->rc = u->be->upload_end(up, &j->err);
	j->resident = j->rc == 0;
}

static void *device_main(void *arg)
{
	struct device_job *j = arg;
	groth16_params_uploader *u = j->u;
	groth16_upload *up = NULL;
	groth16_params a;
	uint64_t copied = 0;

	pthread_mutex_lock(&u->mu);
	while (!u->have_arrays && u->state != FAILED)
		pthread_cond_wait(&u->cv, &u->mu);
	int have = u->have_arrays && u->state != FAILED;
	a = u->arrays;
	const uint64_t total = u->total, step = step_for(total);
	pthread_mutex_unlock(&u->mu);
	if (have)
		j->rc = u->be->upload_begin(j->dev, u->key, &a, &up, &j->err);
	pthread_mutex_lock(&u->mu);
	u->begun++;
	pthread_cond_broadcast(&u->cv);
	pthread_mutex_unlock(&u->mu);
	if (!have || j->rc < 0 || !up)
		return NULL;   /* nothing to copy, or not resident here: load_params streams them */
	for (;;) {
		pthread_mutex_lock(&u->mu);
		while (u->state == LOADING && u->done < total && u->done - copied < step)
			pthread_cond_wait(&u->cv, &u->mu);
		uint64_t to = u->done;
		int failed = u->state == FAILED;
		if (!failed && to > copied)
			u->copying++;
		pthread_mutex_unlock(&u->mu);
		if (failed) {   /* the arrays may be gone: not one more read */
			u->be->upload_abort(up);
			return NULL;
		}
		if (to > copied) {
			int rc = copy_run(u->be, up, &a, copied, to, &j->err);
			pthread_mutex_lock(&u->mu);
			u->copying--;
			pthread_cond_broadcast(&u->cv);
			pthread_mutex_unlock(&u->mu);
			if (rc < 0) {
				j->rc = rc;
				u->be->upload_abort(up);
				return NULL;
			}
			copied = to;
		}
		if (copied == total) {
			end_upload(j, up);
			return NULL;
		}
	}
}

static int overlap_wanted(void)
{
	const char *v = getenv("CUZK_SRS_UPLOAD_OVERLAP");
	return !(v && strcmp(v, "0") == 0);
}

int groth16_params_uploader_start(groth16_params_uploader **ret, const struct groth16_backend *be,
				  groth16_device *const *devs, unsigned n, const groth16_params *key,
				  cuzk_error *err)
{
	if (!be->upload_begin)
		n = 0;
	groth16_params_uploader *u = calloc(1, sizeof(*u) + n * sizeof(u->job[0]));
	if (!u)
		return err_fail(err, CUZK_E_NOMEM, "params upload: out of memory for %u devices", n);
	u->be = be;
	u->key = key;
	u->overlap = overlap_wanted();
	u->state = LOADING;
	u->n = n;
	pthread_mutex_init(&u->mu, NULL);
	pthread_cond_init(&u->cv, NULL);
	for (unsigned i = 0; i < n; i++) {
		u->job[i] = (struct device_job){ .u = u, .dev = devs[i] };
		int e = pthread_create(&u->job[i].thread, NULL, device_main, &u->job[i]);
		if (e) {
			groth16_params_uploader_finish(u, NULL, NULL);
			return err_fail_errno(err, e, "params upload: starting the thread of device %u", i);
		}
		u->job[i].started = 1;
	}
	*ret = u;
	return 0;
}

void groth16_params_uploader_decoded(void *ctx, const groth16_params *p, uint64_t done)
{
	groth16_params_uploader *u = ctx;
	pthread_mutex_lock(&u->mu);
	if (!p) {
		/* The load failed and frees the arrays when this returns: stop
		 * every thread before, and wait for the copies reading them. */
		u->state = FAILED;
		pthread_cond_broadcast(&u->cv);
		while (u->copying)
			pthread_cond_wait(&u->cv, &u->mu);
	} else if (u->overlap) {
		if (!u->have_arrays) {
			u->arrays = *p;
			u->total = points_of(p);
			u->have_arrays = 1;
			pthread_cond_broadcast(&u->cv);
			/* The devices reserve their resident copies before the
			 * decoding starts (this is its first call): a device's
			 * point decoder takes its buffers from the same budget,
			 * and a file that just fits must not be pushed out of
			 * residency by them. */
			while (u->begun < u->n)
				pthread_cond_wait(&u->cv, &u->mu);
		}
		u->done = done;
		/* A wake-up a step, not a block (2^14 points: ~26,000 at
		 * 2^27, times the devices); a thread then copies at most two
		 * steps behind. */
		if (done - u->signalled >= step_for(u->total) || done == u->total) {
			u->signalled = done;
			pthread_cond_broadcast(&u->cv);
		}
	}
	pthread_mutex_unlock(&u->mu);
}

void groth16_params_uploader_finish(groth16_params_uploader *u, const groth16_params *loaded,
				    struct groth16_upload_stats *st)
{
	double t0 = monotonic_ms();
	pthread_mutex_lock(&u->mu);
	if (loaded && u->state != FAILED) {
		if (!u->have_arrays) {   /* not overlapped: everything is there now */
			u->arrays = *loaded;
			u->total = points_of(loaded);
			u->have_arrays = 1;
		}
		u->done = u->total;
		u->state = LOADED;
	} else {
		u->state = FAILED;
	}
	pthread_cond_broadcast(&u->cv);
	pthread_mutex_unlock(&u->mu);
	struct groth16_upload_stats s = { .devices = u->n };
	for (unsigned i = 0; i < u->n; i++) {
		struct device_job *j = &u->job[i];
		if (!j->started)
			continue;
		pthread_join(j->thread, NULL);
		s.resident += (unsigned)j->resident;
		if (j->rc < 0 && s.rc == 0) {
			s.rc = j->rc;
			s.err = j->err;
		}
	}
	s.tail_ms = monotonic_ms() - t0;
	if (st)
		*st = s;
	pthread_cond_destroy(&u->cv);
	pthread_mutex_destroy(&u->mu);
	free(u);
}

/* The backend's point decoder, counting the points it decoded, so that a
 * load whose threads all fell back to the CPU says so. */
struct counted_decoder {
	const groth16_point_decoder *inner;
	void *ctx;                   /* the device */
	atomic_uint_fast64_t points;
};

static void *counted_begin(void *ctx, size_t bytes, uint8_t **ret_buf)
{
	struct counted_decoder *d = ctx;
	return d->inner->begin(d->ctx, bytes, ret_buf);
}

static int counted_decode(void *ctx, void *thread, void *dst, const uint8_t *src, size_t n, int g2, unsigned checks,
			  size_t *ret_bad, cuzk_error *err)
{
	struct counted_decoder *d = ctx;
	int rc = d->inner->decode(d->ctx, thread, dst, src, n, g2, checks, ret_bad, err);
	if (rc == 0)
		atomic_fetch_add(&d->points, *ret_bad < n ? *ret_bad : n);
	return rc;
}

static void counted_end(void *ctx, void *thread)
{
	struct counted_decoder *d = ctx;
	d->inner->end(d->ctx, thread);
}

static int device_decode_wanted(void)
{
	const char *v = getenv("CUZK_GPU_DECODE");
	return !(v && strcmp(v, "0") == 0);
}

int groth16_params_read_to_devices(groth16_params *ret, int fd, const char *name, const groth16_params_load_opts *o,
				   const struct groth16_backend *be, groth16_device *const *devs, unsigned n,
				   const groth16_params *key, struct groth16_upload_stats *st, cuzk_error *err)
{
	groth16_params_uploader *up = NULL;
	struct groth16_upload_stats us = { .devices = n };
	int r = be->upload_begin && n ? groth16_params_uploader_start(&up, be, devs, n, key, err) : 0;
	if (r < 0)
		return r;
	groth16_params_load_opts lo = *o;
	lo.decoded = up ? groth16_params_uploader_decoded : NULL;
	lo.decoded_ctx = up;
	/* The first device decodes (params_io.h keeps subgroup checks off it). */
	const groth16_point_decoder *inner = n && device_decode_wanted() ? be->point_decoder : NULL;
	struct counted_decoder cd = { .inner = inner, .ctx = n ? devs[0] : NULL };
	atomic_init(&cd.points, 0);
	groth16_point_decoder counted = { inner ? inner->block_points : 0, counted_begin, counted_decode, counted_end };
	if (inner) {
		lo.decoder = &counted;
		lo.decoder_ctx = &cd;
	}
	double t0 = monotonic_ms();
	r = groth16_params_read_fd_opts(ret, fd, name, &lo, err);
	const double decode_ms = monotonic_ms() - t0;
	if (up)
		groth16_params_uploader_finish(up, r == 0 ? ret : NULL, &us);
	us.decode_ms = decode_ms;
	us.device_decoded = atomic_load(&cd.points);
	if (st)
		*st = us;
	return r;
}
