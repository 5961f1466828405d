// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The proving backends through their one interface (backend.h): the CPU
 * backend (and the GPU one when a device is present) proves a view over
 * shared memory (density_shared) to the same bytes as a private view, and a
 * view whose bitmaps do not fit is refused, and one whose counts do not fit
 * is refused before its bitmaps are read at all: here they lie in memory
 * that faults when touched.  A backend with device memory reports its
 * peaks, and params uploaded to it in parts prove to the CPU's bytes.  The GPU
 * backend's MSMs side by side ($CUZK_GPU_MSM_STREAMS) prove the bytes of one
 * after another, and a bad setting is refused by name. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "devtools/gencircuit.h"
#include "devtools/setup.h"
#include "devtools/synth.h"
#include "formats/params_io.h"
#include "prover/backend.h"
#include "prover/prover.h"
#include "tests/check.h"

static void check_backend(const struct groth16_backend *be, const groth16_params *p, const groth16_witness_view *w)
{
	groth16_device *dev;
	groth16_proof plain, shared;
	uint8_t a[GROTH16_PROOF_SIZE], b[GROTH16_PROOF_SIZE];
	groth16_witness_view v = *w;
	size_t page = 4096;
	cuzk_error err;
	fr_t r, s;

	if (be->device_count() <= 0 || be->open(&dev, 0, 0, &err)) {
		printf("backend %s: no device, skipped\n", be->name);
		return;
	}
	groth16_seeded_rs(&r, &s, 3, 0);
	CHECK_MSG(be->prove(dev, p, w, 0, &r, &s, &plain, NULL, &err) == 0, "%s: %s", be->name, err.msg);
	v.density_shared = 1;
	CHECK_MSG(be->prove(dev, p, &v, 0, &r, &s, &shared, NULL, &err) == 0, "%s shared: %s", be->name, err.msg);
	groth16_proof_encode(a, &plain);
	groth16_proof_encode(b, &shared);
	CHECK_MSG(memcmp(a, b, sizeof(a)) == 0, "%s: a shared view proves to other bytes", be->name);

	/* Device memory: the peaks cover what the proofs held (one thread: every
	 * reservation was allocated before the device was read after it), and
	 * a reset starts them from what is held now. */
	struct groth16_mem m;
	if (be->mem) {
		CHECK(be->mem(dev, &m) == 0);
		CHECK_MSG(m.reserved > 0 && m.peak_reserved >= m.reserved && m.peak_reserved <= m.budget &&
				  m.peak_device_used >= m.peak_reserved,
			  "%s: reserved %zu, peak %zu, budget %zu, device used %zu", be->name, m.reserved,
			  m.peak_reserved, m.budget, m.peak_device_used);
		CHECK_MSG(be->mem_reset_peaks(dev, &err) == 0, "%s: %s", be->name, err.msg);
		CHECK(be->mem(dev, &m) == 0 && m.peak_reserved == m.reserved && m.peak_device_used > 0);
	}

	/* Counts that fit, a bitmap that does not: its popcount is checked on
	 * the copy the proof reads (on the GPU, the device's). */
	size_t words = (w->num_aux + 63) / 64;
	uint64_t *more = malloc(words * sizeof(uint64_t));
	REQUIRE(more);
	memcpy(more, w->a_aux_density, words * sizeof(uint64_t));
	more[0] ^= 1;   /* one variable more or less in A */
	v.a_aux_density = more;
	CHECK_MSG(be->prove(dev, p, &v, 0, &r, &s, &shared, NULL, &err) == -CUZK_E_MISMATCH, "%s: %s", be->name,
		  err.msg);
	free(more);

	/* Counts that do not fit, bitmaps that must not be touched. */
	uint64_t *none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(none != MAP_FAILED);
	v.num_aux = w->num_aux + 64 * 1024;
	v.a_aux_density = v.b_aux_density = v.b_input_density = none;
	CHECK_MSG(be->prove(dev, p, &v, 0, &r, &s, &shared, NULL, &err) == -CUZK_E_MISMATCH, "%s: %s", be->name,
		  err.msg);
	munmap(none, page);
	be->close(dev);
	printf("backend %s: shared views prove alike; a wrong shape is refused first\n", be->name);
}

/* $CUZK_GPU_MSM_STREAMS: a bad value is refused when a device is opened,
 * before the device is looked at (so that part runs without one); with a
 * device, every count of streams, auto and the default (empty) prove the
 * bytes of one stream,
 * and the MSMs of more than one stream are on their own timeline lanes
 * ("compute 2" ..), those of one stream on "compute". */
static void check_msm_streams(const groth16_params *p, const groth16_witness_view *w)
{
#ifdef CUZK_HAVE_CUDA
	static const char *const bad[] = { "0", "6", "x", "2x", "-1", " 3", "auto5", "55" };
	static const char *const good[] = { "1", "2", "3", "4", "5", "auto", "" };
	static groth16_timings tm;
	const struct groth16_backend *be = &groth16_backend_gpu;
	uint8_t one[GROTH16_PROOF_SIZE], bytes[GROTH16_PROOF_SIZE];
	groth16_device *dev;
	groth16_proof pr;
	cuzk_error err;
	fr_t r, s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("CUZK_GPU_MSM_STREAMS", bad[i], 1);
		err.msg[0] = 0;
		CHECK_MSG(be->open(&dev, 0, 0, &err) == -CUZK_E_INVAL && strstr(err.msg, "CUZK_GPU_MSM_STREAMS"),
			  "CUZK_GPU_MSM_STREAMS=\"%s\": %s", bad[i], err.msg);
	}
	if (be->device_count() > 0) {
		groth16_seeded_rs(&r, &s, 3, 0);
		for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
			setenv("CUZK_GPU_MSM_STREAMS", good[i], 1);
			int rc = be->open(&dev, 0, 0, &err);
			CHECK_MSG(rc == 0, "CUZK_GPU_MSM_STREAMS=%s: %s", good[i], err.msg);
			if (rc)
				continue;
			CHECK_MSG(be->prove(dev, p, w, 0, &r, &s, &pr, &tm, &err) == 0, "CUZK_GPU_MSM_STREAMS=%s: %s",
				  good[i], err.msg);
			groth16_proof_encode(i ? bytes : one, &pr);
			CHECK_MSG(!i || memcmp(one, bytes, sizeof(one)) == 0,
				  "CUZK_GPU_MSM_STREAMS=%s proves to other bytes than 1", good[i]);
			unsigned on_extra = 0, msms = 0;
			for (unsigned j = 0; j < tm.n_spans; j++) {
				if (strncmp(tm.span[j].name, "msm ", 4) != 0)
					continue;
				msms++;
				const char *l = tm.span[j].lane;   /* "compute 2" .. "compute 6" */
				on_extra += strncmp(l, "compute ", 8) == 0 && l[8] >= '2' && l[8] <= '6' && !l[9];
			}
			/* auto at 2^8 in a whole device's budget has room for all five;
			 * so has the default ("": auto up to 2^20) */
			const int side_by_side = strcmp(good[i], "1") != 0;
			CHECK_MSG(msms == 5 && on_extra == (side_by_side ? 5u : 0u),
				  "CUZK_GPU_MSM_STREAMS=%s: %u MSM spans, %u on extra streams", good[i], msms, on_extra);
			be->close(dev);
		}
		printf("backend gpu: MSMs on 1..5 streams and auto prove alike\n");
	}
	unsetenv("CUZK_GPU_MSM_STREAMS");
#else
	(void)p, (void)w;
#endif
}

/* $CUZK_GPU_WORKSPACES (a cap for tests): a bad value is refused when a
 * device is opened, before the device is looked at, like the stream count:
 * a typo must not pass for "no cap". */
static void check_workspaces_env(void)
{
#ifdef CUZK_HAVE_CUDA
	static const char *const bad[] = { "0", "x", "1x", "-1", " 2", "+2", "1025", "99999999999999999999" };
	const struct groth16_backend *be = &groth16_backend_gpu;
	groth16_device *dev;
	cuzk_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("CUZK_GPU_WORKSPACES", bad[i], 1);
		err.msg[0] = 0;
		CHECK_MSG(be->open(&dev, 0, 0, &err) == -CUZK_E_INVAL && strstr(err.msg, "CUZK_GPU_WORKSPACES"),
			  "CUZK_GPU_WORKSPACES=\"%s\": %s", bad[i], err.msg);
	}
	unsetenv("CUZK_GPU_WORKSPACES");
	printf("backend gpu: bad workspace caps refused by name\n");
#endif
}

/* Params uploaded in parts (odd sizes, every query in several, h's last
 * part in the middle of a copy run) as the loader's decoded run would
 * deliver them: the proof from the resident copy has the CPU's bytes. */
static void check_upload(const struct groth16_backend *be, const groth16_params *p, const groth16_witness_view *w)
{
	groth16_device *dev, *cpu;
	groth16_upload *up;
	groth16_proof a, b;
	uint8_t ea[GROTH16_PROOF_SIZE], eb[GROTH16_PROOF_SIZE];
	cuzk_error err;
	fr_t r, s;

	if (!be->upload_begin || be->device_count() <= 0 || be->open(&dev, 0, 0, &err)) {
		printf("backend %s: no uploads or no device, skipped\n", be->name);
		return;
	}
	REQUIRE(groth16_backend_cpu.open(&cpu, 0, 0, &err) == 0);
	CHECK_MSG(be->upload_begin(dev, p, p, &up, &err) == 0 && up, "%s: %s", be->name, err.msg);
	const size_t n[GROTH16_Q__COUNT] = { p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2 };
	for (int q = 0; up && q < GROTH16_Q__COUNT; q++)
		for (size_t at = 0; at < n[q]; at += 7) {
			size_t end = at + 7 < n[q] ? at + 7 : n[q];
			CHECK_MSG(be->upload_part(up, (enum groth16_query)q, at, end, &err) == 0, "%s: %s", be->name,
				  err.msg);
		}
	/* A part out of order is refused, naming it (before anything changes:
	 * the upload goes on). */
	if (up && n[GROTH16_Q_L] > 1)
		CHECK(be->upload_part(up, GROTH16_Q_L, 0, 1, &err) == -CUZK_E_INVAL && strstr(err.msg, "of l"));
	CHECK_MSG(up && be->upload_end(up, &err) == 0, "%s: %s", be->name, up ? err.msg : "no upload");
	groth16_seeded_rs(&r, &s, 4, 0);
	CHECK_MSG(be->prove(dev, p, w, 0, &r, &s, &a, NULL, &err) == 0, "%s: %s", be->name, err.msg);
	REQUIRE(groth16_backend_cpu.prove(cpu, p, w, 0, &r, &s, &b, NULL, &err) == 0);
	groth16_proof_encode(ea, &a);
	groth16_proof_encode(eb, &b);
	CHECK_MSG(memcmp(ea, eb, sizeof(ea)) == 0, "%s: the uploaded params prove to other bytes", be->name);
	/* Resident already: a second upload is not begun. */
	CHECK(be->upload_begin(dev, p, p, &up, &err) == 0 && !up);
	be->unload_params(dev, p);
	groth16_backend_cpu.close(cpu);
	be->close(dev);
	printf("backend %s: params uploaded in parts prove to the CPU's bytes\n", be->name);
}

int main(void)
{
	gencircuit_spec spec = { .log_constraints = 8, .num_inputs = 3, .seed = 5 };
	const struct groth16_backend *be;
	groth16_witness_view w;
	groth16_params p;
	groth16_synth syn;
	cuzk_error err;
	r1cs cs;
	fr_t *z;

	REQUIRE(gencircuit_build(&spec, &cs, &z, &err) == 0);
	REQUIRE(groth16_dev_setup_insecure(&p, &cs, 5, &err) == 0);
	REQUIRE(groth16_synthesize(&syn, &cs, z, cs.num_inputs + cs.num_aux, &err) == 0);
	groth16_synth_view(&w, &syn, z);
	check_backend(&groth16_backend_cpu, &p, &w);
	check_backend(&groth16_backend_gpu, &p, &w);
	check_msm_streams(&p, &w);
	check_workspaces_env();
	check_upload(&groth16_backend_cpu, &p, &w);
	check_upload(&groth16_backend_gpu, &p, &w);
	CHECK(groth16_backend_find(&be, "cpu", &err) == 0 && be == &groth16_backend_cpu);
	CHECK(groth16_backend_find(&be, NULL, &err) == 0 && be == &groth16_backend_cpu);
	CHECK(groth16_backend_find(&be, "auto", &err) == 0 && be->device_count() > 0);
	CHECK(groth16_backend_find(&be, "tpu", &err) == -CUZK_E_INVAL && strstr(err.msg, "tpu"));
	groth16_synth_free(&syn);
	groth16_params_free(&p);
	r1cs_free(&cs);
	free(z);
	CHECK_DONE();
}
