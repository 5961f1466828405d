// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The GPU backend (backend.h) on top of the CUDA side's C boundary
 * (cuda/cuzk_gpu.h).  The device computes h and the five query sums; r and s
 * are mixed in here by the same code as the CPU prover (assemble.h), so
 * both backends write the same bytes for the same r and s. */
#include "prover/backend.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "cuzk_gpu.h"
#include "formats/params_io.h"
#include "msm/msm_check.h"
#include "prover/gpu_host_ops.h"
#include "prover/prover.h"
#include "prover/setup_gpu.h"

_Static_assert(CUZK_E_INVAL == CUZK_E_INVAL && CUZK_E_NOMEM == CUZK_E_NOMEM &&
		       CUZK_E_MISMATCH == CUZK_E_MISMATCH && CUZK_E_UNSUPPORTED == CUZK_E_UNSUPPORTED &&
		       CUZK_E_GPU == CUZK_E_GPU && CUZK_E_VRAM == CUZK_E_VRAM,
	       "cuzk_gpu.h codes must be enum cuzk_status's");
_Static_assert(sizeof(fr_t) == 32 && sizeof(g1_aff_t) == 96 && sizeof(g2_aff_t) == 192,
	       "the device reads the host's layouts");

void groth16_backend_process_init(void)
{
	/* 0: a CUDA_MODULE_LOADING the operator set stays.  Should setenv
	 * fail (ENOMEM), the kernels load lazily: slower first launches,
	 * nothing wrong. */
	(void)setenv("CUDA_MODULE_LOADING", "EAGER", 0);
}

struct groth16_device {
	cuzk_gpu_dev *dev;
	int device;
	groth16_gpu_setup *setup;   /* the development setup's engine, made on first use */
};

/* The GPU backend's failure (rc, *err already filled), named by device. */
static int gpu_error(cuzk_error *err, int rc, int device)
{
	if (err)
		err_prefix(err, "GPU %d", device);
	return rc;
}

static int gpu_device_count(void)
{
	return cuzk_gpu_device_count();
}

static int gpu_open(groth16_device **ret, int device, size_t vram_budget, cuzk_error *err)
{
	groth16_device *g = calloc(1, sizeof(*g));
	if (!g)
		return err_fail(err, CUZK_E_NOMEM, "GPU %d: no memory for the device state", device);
	int rc = cuzk_gpu_open(&g->dev, device, vram_budget, err);
	if (rc) {
		free(g);
		return gpu_error(err, rc, device);
	}
	g->device = device;
	*ret = g;
	return 0;
}

static void gpu_close(groth16_device *gpu)
{
	if (!gpu)
		return;
	groth16_gpu_setup_close(gpu->setup);
	cuzk_gpu_close(gpu->dev);
	free(gpu);
}

static void srs_of(cuzk_gpu_srs *s, const groth16_params *p)
{
	memset(s, 0, sizeof(*s));
	s->key = p;
	s->num_inputs = p->vk.n_ic;
	s->h = p->h;
	s->l = p->l;
	s->a = p->a;
	s->b_g1 = p->b_g1;
	s->b_g2 = p->b_g2;
	s->n_h = p->n_h;
	s->n_l = p->n_l;
	s->n_a = p->n_a;
	s->n_b_g1 = p->n_b_g1;
	s->n_b_g2 = p->n_b_g2;
}

static int gpu_load_params(groth16_device *gpu, const groth16_params *p, cuzk_error *err)
{
	cuzk_gpu_srs s;
	int resident = 0;
	srs_of(&s, p);
	int rc = cuzk_gpu_load_srs(gpu->dev, &s, &resident, err);
	return rc ? gpu_error(err, rc, gpu->device) : 0;
}

static void gpu_unload_params(groth16_device *gpu, const groth16_params *p)
{
	cuzk_gpu_unload_srs(gpu->dev, p);
}

/* The timeline's tracks of a GPU proof's spans, by workspace and lane.
 * Proofs side by side use other workspaces, with their own streams: each
 * its own tracks (the fifth and later share the fourth's).  MSMs side by
 * side within a proof (CUZK_GPU_MSM_STREAMS) run on the workspace's
 * "compute 2" .. "compute 6". */
_Static_assert(CUZK_GPU_LANE_COPY == 0 && CUZK_GPU_LANE_COMPUTE == 1 && CUZK_GPU_LANE_HOST == 2 &&
		       CUZK_GPU_LANE_COMPUTE_2 == 3 && CUZK_GPU_LANE_COMPUTE_6 == 7 && CUZK_GPU_LANE_COUNT == 8,
	       "the names below follow enum cuzk_gpu_lane");
#define GPU_LANES(ws)                                                                                   \
	{ "copy" ws, "compute" ws, "host" ws, "compute 2" ws, "compute 3" ws, "compute 4" ws, "compute 5" ws, \
	  "compute 6" ws }
static const char *const GPU_LANE[4][CUZK_GPU_LANE_COUNT] = {
	GPU_LANES(""),
	GPU_LANES(" (2nd workspace)"),
	GPU_LANES(" (3rd workspace)"),
	GPU_LANES(" (4th+ workspace)"),
};
#undef GPU_LANES

/* The assembly's precompute (assemble.h: what needs only the key, r and s,
 * among it the G2 multiplication s·δ₂) on a host thread of its own while
 * the device computes the sums, so that only the finish waits for them. */
struct precompute_job {
	groth16_assembly_pre pre;
	const groth16_vk *vk;
	const fr_t *r, *s;
	double start_ms, end_ms;
};

static void precompute_run(struct precompute_job *j)
{
	j->start_ms = monotonic_ms();
	groth16_assemble_precompute(&j->pre, j->vk, j->r, j->s);
	j->end_ms = monotonic_ms();
}

static void *precompute_main(void *arg)
{
	precompute_run(arg);
	return NULL;
}

/* An upload beside the decoding: the device's, and which device (for messages). */
struct groth16_upload {
	cuzk_gpu_srs_upload *u;
	int device;
};

_Static_assert((int)GROTH16_Q_H == (int)CUZK_GPU_SRS_H && (int)GROTH16_Q_L == (int)CUZK_GPU_SRS_L &&
		       (int)GROTH16_Q_A == (int)CUZK_GPU_SRS_A && (int)GROTH16_Q_B_G1 == (int)CUZK_GPU_SRS_B_G1 &&
		       (int)GROTH16_Q_B_G2 == (int)CUZK_GPU_SRS_B_G2,
	       "upload_part names the arrays as cuzk_gpu.h does");

static int gpu_upload_begin(groth16_device *gpu, const groth16_params *key, const groth16_params *arrays,
			    groth16_upload **ret, cuzk_error *err)
{
	*ret = NULL;
	groth16_upload *up = malloc(sizeof(*up));
	if (!up)
		return err_fail(err, CUZK_E_NOMEM, "GPU %d: no memory for an SRS upload", gpu->device);
	cuzk_gpu_srs s;
	srs_of(&s, arrays);
	s.key = key;
	int rc = cuzk_gpu_srs_upload_begin(gpu->dev, &s, &up->u, err);
	if (rc || !up->u) {
		free(up);
		return rc ? gpu_error(err, rc, gpu->device) : 0;
	}
	up->device = gpu->device;
	*ret = up;
	return 0;
}

static int gpu_upload_part(groth16_upload *up, enum groth16_query q, size_t begin, size_t end, cuzk_error *err)
{
	int rc = cuzk_gpu_srs_upload_part(up->u, (int)q, begin, end, err);
	return rc ? gpu_error(err, rc, up->device) : 0;
}

static int gpu_upload_end(groth16_upload *up, cuzk_error *err)
{
	int rc = cuzk_gpu_srs_upload_end(up->u, err), device = up->device;
	free(up);
	return rc ? gpu_error(err, rc, device) : 0;
}

static void gpu_upload_abort(groth16_upload *up)
{
	cuzk_gpu_srs_upload_abort(up->u);
	free(up);
}

/* The loader's point decoder (params_io.h) on this device: each decoding
 * thread gets a stream and buffers of its own (cuzk_gpu_point_decoder).  A
 * thread whose decoder cannot be set up (no room in the budget, no pinned
 * memory, a device in trouble) decodes on the CPU, as without a GPU. */
static void *gpu_decoder_begin(void *ctx, size_t bytes, uint8_t **ret_buf)
{
	groth16_device *gpu = ctx;
	cuzk_gpu_point_decoder *d;
	void *in;
	if (cuzk_gpu_point_decoder_open(gpu->dev, bytes, &d, &in, NULL) < 0)
		return NULL;
	*ret_buf = in;
	return d;
}

static int gpu_decoder_decode(void *ctx, void *thread, void *dst, const uint8_t *src, size_t n, int g2,
			      unsigned checks, size_t *ret_bad, cuzk_error *err)
{
	groth16_device *gpu = ctx;
	int rc = cuzk_gpu_point_decoder_run(thread, dst, src, n, g2, (checks & BLS_CHECK_CURVE) != 0, ret_bad, err);
	return rc ? gpu_error(err, rc, gpu->device) : 0;
}

static void gpu_decoder_end(void *ctx, void *thread)
{
	(void)ctx;
	cuzk_gpu_point_decoder_close(thread);
}

/* 2^16 points a block: a round trip has a fixed cost (two copies, a launch,
 * a wait: tens of microseconds) against the 6 or 12 MiB it moves, and each
 * thread holds 2 x 12 MiB pinned and 2 x 12 MiB on the device (16 threads:
 * 384 MiB of each) while the load runs. */
static const groth16_point_decoder gpu_point_decoder = {
	.block_points = (size_t)1 << 16,
	.begin = gpu_decoder_begin,
	.decode = gpu_decoder_decode,
	.end = gpu_decoder_end,
};

/* The counts first, on the host: a wrong shape costs no upload.  The density
 * bitmaps go to the device as they are (by DMA from the caller's registered
 * memory when witness_pinned), and are counted and checked against the SRS
 * there, on the copy the proof then reads (cuda/prove/density.cuh): a view
 * over shared memory needs no private copy on this backend. */
static int gpu_prove(groth16_device *gpu, const groth16_params *p, const groth16_witness_view *w,
		     int witness_pinned, const fr_t *r, const fr_t *s, groth16_proof *out,
		     groth16_timings *t, cuzk_error *err)
{
	int rc = groth16_check_dims(p, w->num_constraints, w->num_inputs, w->num_aux, err);
	if (rc)
		return rc;
	if ((rc = gpu_load_params(gpu, p, err)))
		return rc;
	cuzk_gpu_srs srs;
	srs_of(&srs, p);
	const cuzk_gpu_witness wit = {
		.num_constraints = w->num_constraints,
		.num_inputs = w->num_inputs,
		.num_aux = w->num_aux,
		.montgomery = w->montgomery,
		.pinned = witness_pinned,
		.a = w->a,
		.b = w->b,
		.c = w->c,
		.input = w->input,
		.aux = w->aux,
		.a_aux_density = w->a_aux_density,
		.b_input_density = w->b_input_density,
		.b_aux_density = w->b_aux_density,
	};
	cuzk_gpu_sums sums;
	cuzk_gpu_timings gt;
	struct precompute_job pj = { .vk = &p->vk, .r = r, .s = s };
	pthread_t precompute;
	/* A thread that cannot be started (EAGAIN: out of threads or memory)
	 * costs the overlap, not the proof: the precompute then runs after
	 * the sums, inside the assembly's time. */
	const int threaded = pthread_create(&precompute, NULL, precompute_main, &pj) == 0;
	rc = cuzk_gpu_prove_sums(gpu->dev, &srs, &wit, groth16_gpu_host_ops(), &sums, &gt, err);
	/* The sums are back: the assembly's time starts here, waiting for the
	 * precompute included. */
	double t0 = monotonic_ms();
	/* Joining the thread made just above fails only by a bug, and then it
	 * may still be writing pj, which lives in this frame. */
	if (threaded && pthread_join(precompute, NULL) != 0)
		abort();
	if (rc) {
		explicit_bzero(&pj.pre, sizeof(pj.pre));
		return gpu_error(err, rc, gpu->device);
	}
	if (!threaded)
		precompute_run(&pj);
	groth16_query_sums q;
	memcpy(&q.h, sums.h, sizeof(q.h));
	memcpy(&q.l, sums.l, sizeof(q.l));
	memcpy(&q.a, sums.a, sizeof(q.a));
	memcpy(&q.b_g1, sums.b_g1, sizeof(q.b_g1));
	memcpy(&q.b_g2, sums.b_g2, sizeof(q.b_g2));
	groth16_assemble_finish(out, &pj.pre, &q);
	double t1 = monotonic_ms();
	if (t) {
		memset(t, 0, sizeof(*t));
		t->upload_ms = gt.upload_ms;
		t->ntt_ms = gt.ntt_ms;
		t->msm_h_ms = gt.msm_h_ms;
		t->msm_l_ms = gt.msm_l_ms;
		t->msm_a_ms = gt.msm_a_ms;
		t->msm_b_g1_ms = gt.msm_b_g1_ms;
		t->msm_b_g2_ms = gt.msm_b_g2_ms;
		t->assemble_ms = t1 - t0;
		t->total_ms = gt.total_ms + t->assemble_ms;
		const char *const *lane = GPU_LANE[gt.workspace < 3 ? gt.workspace : 3];
		for (unsigned i = 0; i < gt.n_spans; i++) {
			const int l = gt.span[i].lane;
			groth16_span_add(t, gt.span[i].name,
					 lane[l >= 0 && l < CUZK_GPU_LANE_COUNT ? l : CUZK_GPU_LANE_COMPUTE],
					 gpu->device, gt.span[i].start_ms, gt.span[i].end_ms);
		}
		t->spans_dropped += gt.spans_dropped;
		/* The precompute at its real times on the host track.  What of it
		 * came after the sums (it outlasted the device, or ran inline) is
		 * a span of its own inside "assemble", added after it, so that
		 * the track's spans nest. */
		const char *host = lane[CUZK_GPU_LANE_HOST];
		if (pj.start_ms < t0)
			groth16_span_add(t, "assemble precompute", host, gpu->device, pj.start_ms,
					 pj.end_ms < t0 ? pj.end_ms : t0);
		groth16_span_add(t, "assemble", host, gpu->device, t0, t1);
		if (pj.end_ms > t0)
			groth16_span_add(t, "assemble precompute", host, gpu->device,
					 pj.start_ms > t0 ? pj.start_ms : t0, pj.end_ms);
	}
	return 0;
}

static int gpu_register_host(void *ptr, size_t len, cuzk_error *err)
{
	return cuzk_gpu_host_register(ptr, len, 1, err);
}

/* Unregistering memory that was registered cannot fail but for a bug, and
 * there is nothing the caller could do about it then. */
static void gpu_unregister_host(void *ptr)
{
	cuzk_gpu_host_unregister(ptr, NULL);
}

static int gpu_ntt_device(groth16_device *gpu, fr_t *v, unsigned log_m, enum groth16_ntt_kind kind, int reps,
			  double *ret_device_ms, cuzk_error *err)
{
	int rc = cuzk_gpu_ntt(gpu->dev, v, log_m,
			      kind == GROTH16_NTT_COSET_FORWARD ? CUZK_GPU_NTT_COSET_FORWARD : CUZK_GPU_NTT_FORWARD,
			      reps, ret_device_ms, err);
	return rc ? gpu_error(err, rc, gpu->device) : 0;
}

static int gpu_ntt(groth16_device *gpu, fr_t *v, unsigned log_m, cuzk_error *err)
{
	return gpu_ntt_device(gpu, v, log_m, GROTH16_NTT_FORWARD, 1, NULL, err);
}

static int gpu_msm_bench(groth16_device *gpu, int g2, unsigned log_size, unsigned reps, int porep,
			 struct groth16_msm_bench *ret, cuzk_error *err)
{
	cuzk_msm_bench_result b;
	int rc = cuzk_msm_bench(g2 ? 2 : 1, log_size, reps, porep ? 1 : 0, porep ? CUZK_MSM_WITNESS : CUZK_MSM_RANDOM,
				groth16_gpu_host_ops(), &b, err);
	if (rc)
		return gpu_error(err, rc, gpu->device);
	memset(ret, 0, sizeof(*ret));
	ret->best_ms = b.best_ms;
	ret->median_ms = b.median_ms;
	memcpy(ret->phase_ms, b.phase_ms, sizeof(ret->phase_ms));
	ret->window_bits = b.window_bits;
	ret->scratch_bytes = b.scratch_bytes;
	return 0;
}

static int gpu_mem(groth16_device *gpu, struct groth16_mem *ret)
{
	cuzk_gpu_vram_info v;
	int rc = cuzk_gpu_vram(gpu->dev, &v);
	if (rc == 0)
		*ret = (struct groth16_mem){ .reserved = v.reserved, .budget = v.budget, .free = v.free,
					     .peak_reserved = v.peak_reserved, .peak_device_used = v.peak_device_used };
	return rc;
}

static int gpu_mem_reset_peaks(groth16_device *gpu, cuzk_error *err)
{
	int rc = cuzk_gpu_vram_reset_peaks(gpu->dev, err);
	return rc ? gpu_error(err, rc, gpu->device) : 0;
}

static int gpu_setup_engine(groth16_device *gpu, const groth16_setup_engine **ret, cuzk_error *err)
{
	int rc = gpu->setup ? 0 : groth16_gpu_setup_open(&gpu->setup, gpu->dev, gpu->device, err);
	if (rc)
		return rc;
	*ret = groth16_gpu_setup_engine(gpu->setup);
	return 0;
}

const struct groth16_backend groth16_backend_gpu = {
	.name = "gpu",
	.device_count = gpu_device_count,
	.open = gpu_open,
	.close = gpu_close,
	.load_params = gpu_load_params,
	.unload_params = gpu_unload_params,
	.upload_begin = gpu_upload_begin,
	.upload_part = gpu_upload_part,
	.upload_end = gpu_upload_end,
	.upload_abort = gpu_upload_abort,
	.point_decoder = &gpu_point_decoder,
	.register_host = gpu_register_host,
	.unregister_host = gpu_unregister_host,
	.prove = gpu_prove,
	.mem = gpu_mem,
	.mem_reset_peaks = gpu_mem_reset_peaks,
	.msm_bench = gpu_msm_bench,
	.ntt = gpu_ntt,
	.ntt_device = gpu_ntt_device,
	.setup_engine = gpu_setup_engine,
};
