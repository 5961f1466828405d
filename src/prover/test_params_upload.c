// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The upload of params beside their decoding (params_upload.h), against a
 * fake backend whose "devices" are host buffers: every device ends with the
 * bytes the load returned, copied in order while the decoding still ran;
 * one whose budget is too small, or whose copy fails, is left to
 * load_params; a failed load reads nothing after it said so; with the
 * overlap turned off the copies wait for the load's end.  With a point
 * decoder (a fake GPU decoder on the CPU), groth16_params_read_to_devices
 * has the first device decode every query point, unless
 * $CUZK_GPU_DECODE=0 or the device cannot set it up. */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "devtools/gencircuit.h"
#include "devtools/setup.h"
#include "formats/params_io.h"
#include "prover/params_upload.h"
#include "tests/test_files.h"

struct groth16_device {
	int fits;                 /* upload_begin takes the params */
	int fail_at_part;         /* the n-th part fails (1-based), 0 never */
	/* what upload_end / upload_abort left */
	int resident, aborted;
	const groth16_params *key;
	uint8_t *copy[GROTH16_Q__COUNT];
	size_t size[GROTH16_Q__COUNT];
	atomic_size_t copied[GROTH16_Q__COUNT];   /* points of each query so far */
	unsigned parts, parts_before_load_end;
	int bad;                  /* a part out of order, or one after the load said stop */
	int refuse_decoder;       /* its point decoder cannot be set up */
	atomic_size_t decoded;    /* points its point decoder decoded */
};

struct groth16_upload {
	groth16_device *dev;
	const groth16_params *arrays;
	groth16_params a;         /* the arrays' pointers and counts */
};

static atomic_int load_returned;   /* the test's load has returned */
static atomic_uint upload_begins;  /* upload_begin calls of the load, every device */
static unsigned load_devices;      /* devices given to the load */
static atomic_int decoder_early;   /* a point decoder set up before every upload_begin had run */
static atomic_int load_stopped;    /* the loader said "failed, stop reading" */

static size_t count_of(const groth16_params *p, int q)
{
	const size_t n[GROTH16_Q__COUNT] = { p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2 };
	return n[q];
}

static const void *array_of(const groth16_params *p, int q)
{
	const void *a[GROTH16_Q__COUNT] = { p->h, p->l, p->a, p->b_g1, p->b_g2 };
	return a[q];
}

static size_t point_size(int q)
{
	return q == GROTH16_Q_B_G2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
}

static int fake_begin(groth16_device *dev, const groth16_params *key, const groth16_params *arrays,
		      groth16_upload **ret, cuzk_error *err)
{
	*ret = NULL;
	atomic_fetch_add(&upload_begins, 1);
	if (!dev->fits)
		return 0;
	groth16_upload *u = calloc(1, sizeof(*u));
	if (!u)
		return err_fail(err, CUZK_E_NOMEM, "fake: no memory");
	u->dev = dev;
	u->a = *arrays;
	dev->key = key;
	for (int q = 0; q < GROTH16_Q__COUNT; q++) {
		dev->size[q] = count_of(arrays, q) * point_size(q);
		dev->copy[q] = calloc(1, dev->size[q] + 1);
		atomic_store(&dev->copied[q], 0);
	}
	*ret = u;
	return 0;
}

static int fake_part(groth16_upload *u, enum groth16_query q, size_t begin, size_t end, cuzk_error *err)
{
	groth16_device *dev = u->dev;
	dev->bad |= atomic_load(&load_stopped);
	dev->bad |= begin != atomic_load(&dev->copied[q]) || end <= begin || end > count_of(&u->a, q);
	dev->parts++;
	if (!atomic_load(&load_returned))
		dev->parts_before_load_end++;
	if (dev->fail_at_part && (int)dev->parts == dev->fail_at_part)
		return err_fail(err, CUZK_E_GPU, "fake device: copy %u failed", dev->parts);
	size_t sz = point_size(q);
	memcpy(dev->copy[q] + begin * sz, (const uint8_t *)array_of(&u->a, q) + begin * sz, (end - begin) * sz);
	dev->bad |= atomic_load(&load_stopped);   /* the arrays were freed while we read them */
	atomic_store(&dev->copied[q], end);
	return 0;
}

static int fake_end(groth16_upload *u, cuzk_error *err)
{
	groth16_device *dev = u->dev;
	int rc = 0;
	for (int q = 0; q < GROTH16_Q__COUNT; q++)
		if (atomic_load(&dev->copied[q]) != count_of(&u->a, q))
			rc = err_fail(err, CUZK_E_INVAL, "fake: query %d incomplete", q);
	dev->resident = rc == 0;
	free(u);
	return rc;
}

static void fake_abort(groth16_upload *u)
{
	u->dev->aborted = 1;
	free(u);
}

/* A device's point decoder (params_io.h), decoding on the CPU. */
static void *fake_decoder_begin(void *ctx, size_t bytes, uint8_t **ret_buf)
{
	groth16_device *dev = ctx;
	if (atomic_load(&upload_begins) < load_devices)
		atomic_store(&decoder_early, 1);
	return dev->refuse_decoder ? NULL : (*ret_buf = malloc(bytes));
}

static int fake_decoder_decode(void *ctx, void *thread, void *dst, const uint8_t *src, size_t n, int g2,
			       unsigned checks, size_t *ret_bad, cuzk_error *err)
{
	groth16_device *dev = ctx;
	(void)thread;
	*ret_bad = SIZE_MAX;
	for (size_t k = 0; k < n && *ret_bad == SIZE_MAX; k++)
		if ((g2 ? g2_decode((g2_aff_t *)dst + k, src + k * 192, 192, checks, err)
			: g1_decode((g1_aff_t *)dst + k, src + k * 96, 96, checks, err)) < 0)
			*ret_bad = k;
	atomic_fetch_add(&dev->decoded, *ret_bad < n ? *ret_bad : n);
	return 0;
}

static void fake_decoder_end(void *ctx, void *thread)
{
	(void)ctx;
	free(thread);
}

static const groth16_point_decoder fake_decoder = { 1024, fake_decoder_begin, fake_decoder_decode,
						    fake_decoder_end };

static const struct groth16_backend fake = {
	.name = "fake",
	.upload_begin = fake_begin,
	.upload_part = fake_part,
	.upload_end = fake_end,
	.upload_abort = fake_abort,
	.point_decoder = &fake_decoder,
};

static void reset_dev(groth16_device *d, int fits, int fail_at_part)
{
	for (int q = 0; q < GROTH16_Q__COUNT; q++)
		free(d->copy[q]);
	memset(d, 0, sizeof(*d));
	d->fits = fits;
	d->fail_at_part = fail_at_part;
}

static int dev_holds(const groth16_device *d, const groth16_params *p)
{
	for (int q = 0; q < GROTH16_Q__COUNT; q++)
		if (memcmp(d->copy[q], array_of(p, q), d->size[q]) != 0)
			return 0;
	return d->resident && d->key == p;
}

/* The loader's callback, noting when it says "stop" (p == NULL) and has
 * returned: from then on no device may read the arrays. */
static void decoded(void *ctx, const groth16_params *p, uint64_t done)
{
	groth16_params_uploader_decoded(ctx, p, done);
	if (!p)
		atomic_store(&load_stopped, 1);
}

static int load(groth16_params *p, const char *path, groth16_device **devs, unsigned n,
		struct groth16_upload_stats *st, cuzk_error *err)
{
	groth16_params_uploader *u;
	REQUIRE(groth16_params_uploader_start(&u, &fake, devs, n, p, err) == 0);
	groth16_params_load_opts o = { .checks = BLS_CHECK_CURVE, .decoded = decoded, .decoded_ctx = u };
	atomic_store(&load_returned, 0);
	atomic_store(&load_stopped, 0);
	int rc = groth16_params_read_opts(p, path, &o, err);
	atomic_store(&load_returned, 1);
	groth16_params_uploader_finish(u, rc == 0 ? p : NULL, st);
	return rc;
}

/* Waits (10 s at most) until device d has copied at least n points of h. */
static int wait_copied(groth16_device *d, size_t n)
{
	for (int i = 0; i < 10000 && atomic_load(&d->copied[GROTH16_Q_H]) < n; i++)
		usleep(1000);
	return atomic_load(&d->copied[GROTH16_Q_H]) >= n;
}

/* The run handed over by hand: the device copies the first half before the
 * second exists, so the copies do run beside the decoding. */
static void test_overlap(const groth16_params *p)
{
	groth16_device d = { 0 }, *devs[1] = { &d };
	groth16_params_uploader *u;
	struct groth16_upload_stats st;
	cuzk_error err;
	uint64_t total = p->vk.n_ic + p->n_h + p->n_l + p->n_a + p->n_b_g1 + p->n_b_g2, half = p->vk.n_ic + p->n_h / 2;

	reset_dev(&d, 1, 0);
	REQUIRE(groth16_params_uploader_start(&u, &fake, devs, 1, p, &err) == 0);
	groth16_params_uploader_decoded(u, p, 0);
	groth16_params_uploader_decoded(u, p, half);
	CHECK_MSG(wait_copied(&d, p->n_h / 4), "h: %zu of %zu copied before the rest was decoded",
		  atomic_load(&d.copied[GROTH16_Q_H]), p->n_h);
	CHECK(atomic_load(&d.copied[GROTH16_Q_H]) <= p->n_h / 2 && !d.resident);
	groth16_params_uploader_decoded(u, p, total);
	groth16_params_uploader_finish(u, p, &st);
	CHECK(!d.bad && dev_holds(&d, p) && st.resident == 1 && st.devices == 1 && st.rc == 0);
	reset_dev(&d, 0, 0);
}

/* groth16_params_read_to_devices on the fake: the first device
 * decodes every query point (and is resident, as the second is), the
 * params are the CPU's; $CUZK_GPU_DECODE=0 and a device whose decoder
 * cannot be set up leave it to the CPU, with the same params. */
static void test_device_decode(const groth16_params *p, const char *path)
{
	groth16_device d1 = { 0 }, d2 = { 0 }, *devs[2] = { &d1, &d2 };
	struct groth16_upload_stats st;
	groth16_params q;
	cuzk_error err;
	const uint64_t queries = p->n_h + p->n_l + p->n_a + p->n_b_g1 + p->n_b_g2;
	groth16_params_load_opts o = { .checks = BLS_CHECK_CURVE };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	for (int run = 0; run < 3; run++) {
		reset_dev(&d1, 1, 0);
		reset_dev(&d2, 1, 0);
		if (run == 1)
			setenv("CUZK_GPU_DECODE", "0", 1);
		d1.refuse_decoder = run == 2;
		atomic_store(&upload_begins, 0);
		atomic_store(&decoder_early, 0);
		load_devices = 2;
		REQUIRE(groth16_params_read_to_devices(&q, fd, path, &o, &fake, devs, 2, &q, &st, &err) == 0);
		/* Both devices reserved their copies before the first decoder
		 * took its buffers from a budget. */
		CHECK_MSG(!atomic_load(&decoder_early), "run %d: a point decoder was set up before the uploads began", run);
		load_devices = 0;
		unsetenv("CUZK_GPU_DECODE");
		CHECK(memcmp(q.storage, p->storage, p->storage_len) == 0);
		CHECK(dev_holds(&d1, &q) && dev_holds(&d2, &q) && st.resident == 2);
		const uint64_t want = run == 0 ? queries : 0;
		CHECK_MSG(st.device_decoded == want && atomic_load(&d1.decoded) == want && atomic_load(&d2.decoded) == 0,
			  "run %d: %llu points decoded on the device (%zu, %zu), %llu expected", run,
			  (unsigned long long)st.device_decoded, atomic_load(&d1.decoded), atomic_load(&d2.decoded),
			  (unsigned long long)want);
		groth16_params_free(&q);
	}
	close(fd);
	reset_dev(&d1, 0, 0);
	reset_dev(&d2, 0, 0);
}

int main(void)
{
	gencircuit_spec spec = { .log_constraints = 12, .seed = 9, .shape = GENCIRCUIT_SHAPE_POREP,
				 .num_inputs = gencircuit_default_inputs(GENCIRCUIT_SHAPE_POREP) };
	groth16_params p, q;
	r1cs cs;
	fr_t *z;
	cuzk_error err;
	char path[256];

	REQUIRE(gencircuit_build(&spec, &cs, &z, &err) == 0);
	REQUIRE(groth16_dev_setup_insecure(&p, &cs, 9, &err) == 0);
	test_temp_file(path, sizeof(path), "upload");
	REQUIRE(groth16_params_write(&p, path, &err) == 0);
	setenv("CUZK_THREADS", "3", 1);
	test_overlap(&p);
	test_device_decode(&p, path);

	/* Two devices that take the params, one too small for them. */
	groth16_device d1 = { 0 }, d2 = { 0 }, d3 = { 0 }, *devs[3] = { &d1, &d2, &d3 };
	struct groth16_upload_stats st;
	reset_dev(&d1, 1, 0);
	reset_dev(&d2, 1, 0);
	reset_dev(&d3, 0, 0);
	REQUIRE(load(&q, path, devs, 3, &st, &err) == 0);
	CHECK(memcmp(q.storage, p.storage, p.storage_len) == 0);
	CHECK_MSG(!d1.bad && !d2.bad && dev_holds(&d1, &q) && dev_holds(&d2, &q), "bad %d %d", d1.bad, d2.bad);
	CHECK(!d3.resident && !d3.parts && st.devices == 3 && st.resident == 2 && st.rc == 0);
	printf("2 devices: %u and %u copies, %u and %u of them before the load returned; tail %.2f ms\n", d1.parts,
	       d2.parts, d1.parts_before_load_end, d2.parts_before_load_end, st.tail_ms);
	groth16_params_free(&q);

	/* A copy that fails: that device is dropped, the other is resident. */
	reset_dev(&d1, 1, 2);
	reset_dev(&d2, 1, 0);
	REQUIRE(load(&q, path, devs, 2, &st, &err) == 0);
	CHECK(d1.aborted && !d1.resident && dev_holds(&d2, &q) && st.resident == 1);
	CHECK_MSG(st.rc == -CUZK_E_GPU && strstr(st.err.msg, "fake device: copy 2 failed"), "%d '%s'", st.rc,
		  st.err.msg);
	groth16_params_free(&q);

	/* A bad point late in the file: the load fails, nothing is resident,
	 * and nothing read the arrays after the loader said stop. */
	size_t len;
	uint8_t *file = test_slurp(path, &len);
	file[len - 1] ^= 1;   /* the last b_g2 point's y */
	FILE *f = fopen(path, "wb");
	REQUIRE(f && fwrite(file, 1, len, f) == len && fclose(f) == 0);
	reset_dev(&d1, 1, 0);
	reset_dev(&d2, 1, 0);
	CHECK(load(&q, path, devs, 2, &st, &err) == -CUZK_E_NOT_ON_CURVE);
	CHECK_MSG(!d1.bad && !d2.bad && d1.aborted && d2.aborted && !d1.resident && !d2.resident && st.resident == 0,
		  "bad %d %d, aborted %d %d", d1.bad, d2.bad, d1.aborted, d2.aborted);
	file[len - 1] ^= 1;
	f = fopen(path, "wb");
	REQUIRE(f && fwrite(file, 1, len, f) == len && fclose(f) == 0);
	free(file);

	/* Overlap off: every copy after the load's end, the same result. */
	setenv("CUZK_SRS_UPLOAD_OVERLAP", "0", 1);
	reset_dev(&d1, 1, 0);
	REQUIRE(load(&q, path, devs, 1, &st, &err) == 0);
	CHECK(dev_holds(&d1, &q) && d1.parts > 0 && d1.parts_before_load_end == 0 && st.resident == 1);
	groth16_params_free(&q);
	unsetenv("CUZK_SRS_UPLOAD_OVERLAP");

	/* A backend without uploads (the CPU): nothing happens. */
	groth16_params_uploader *u;
	groth16_device *none[1] = { &d1 };
	REQUIRE(groth16_params_uploader_start(&u, &groth16_backend_cpu, none, 1, &p, &err) == 0);
	groth16_params_uploader_finish(u, &p, &st);
	CHECK(st.devices == 0 && st.resident == 0 && st.rc == 0);

	reset_dev(&d1, 0, 0);
	reset_dev(&d2, 0, 0);
	reset_dev(&d3, 0, 0);
	unlink(path);
	groth16_params_free(&p);
	r1cs_free(&cs);
	free(z);
	CHECK_DONE();
}
