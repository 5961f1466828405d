// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The GPU prover: prover_gpu.h on top of the CUDA backend's C boundary
 * (cuda/cuzk_gpu.h).  The device computes h and the five query sums; r and s
 * are mixed in here by the same code as the CPU prover (groth16_assemble),
 * so both backends write the same bytes for the same r and s. */
#include "common/clock.h"
#include "groth16/prover_gpu.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk_gpu.h"
#include "groth16/gpu_host_ops.h"
#include "groth16/prover.h"

_Static_assert(CUZK_GPU_E_INVAL == CUZK_E_INVAL && CUZK_GPU_E_NOMEM == CUZK_E_NOMEM &&
		       CUZK_GPU_E_MISMATCH == CUZK_E_MISMATCH && CUZK_GPU_E_UNSUPPORTED == CUZK_E_UNSUPPORTED &&
		       CUZK_GPU_E_GPU == CUZK_E_GPU && CUZK_GPU_E_VRAM == CUZK_E_VRAM,
	       "cuzk_gpu.h codes must be enum cuzk_status's");
_Static_assert(sizeof(fr_t) == 32 && sizeof(g1_aff_t) == 96 && sizeof(g2_aff_t) == 192,
	       "the device reads the host's layouts");

struct groth16_gpu {
	cuzk_gpu_dev *dev;
	int device;
};

/* A negative CUZK_GPU_E_* code and its message into the cuzk convention. */
static int gpu_error(cuzk_error *err, int rc, const char *msg, int device)
{
	return cuzk_fail(err, -rc, "GPU %d: %s", device, msg);
}

int groth16_gpu_device_count(void)
{
	return cuzk_gpu_device_count();
}

int groth16_gpu_open(groth16_gpu **ret, int device, size_t vram_budget, cuzk_error *err)
{
	char msg[CUZK_ERRMSG_MAX] = "";
	groth16_gpu *g = calloc(1, sizeof(*g));
	if (!g)
		return cuzk_fail(err, CUZK_E_NOMEM, "GPU %d: no memory for the device state", device);
	int rc = cuzk_gpu_open(&g->dev, device, vram_budget, msg, sizeof msg);
	if (rc) {
		free(g);
		return gpu_error(err, rc, msg, device);
	}
	g->device = device;
	*ret = g;
	return 0;
}

void groth16_gpu_close(groth16_gpu *gpu)
{
	if (!gpu)
		return;
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

int groth16_gpu_load_params(groth16_gpu *gpu, const groth16_params *p, cuzk_error *err)
{
	char msg[CUZK_ERRMSG_MAX] = "";
	cuzk_gpu_srs s;
	int resident = 0;
	srs_of(&s, p);
	int rc = cuzk_gpu_load_srs(gpu->dev, &s, &resident, msg, sizeof msg);
	return rc ? gpu_error(err, rc, msg, gpu->device) : 0;
}

void groth16_gpu_unload_params(groth16_gpu *gpu, const groth16_params *p)
{
	cuzk_gpu_unload_srs(gpu->dev, p);
}

int groth16_gpu_prove(groth16_gpu *gpu, const groth16_params *p, const groth16_witness_view *w,
		      int witness_pinned, const fr_t *r, const fr_t *s, groth16_proof *out,
		      groth16_timings *t, cuzk_error *err)
{
	int rc = groth16_check_shape(p, w, err);
	if (rc)
		return rc;
	if ((rc = groth16_gpu_load_params(gpu, p, err)))
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
	char msg[CUZK_ERRMSG_MAX] = "";
	rc = cuzk_gpu_prove_sums(gpu->dev, &srs, &wit, groth16_gpu_host_ops(), &sums, &gt, msg, sizeof msg);
	if (rc)
		return gpu_error(err, rc, msg, gpu->device);
	groth16_query_sums q;
	memcpy(&q.h, sums.h, sizeof(q.h));
	memcpy(&q.l, sums.l, sizeof(q.l));
	memcpy(&q.a, sums.a, sizeof(q.a));
	memcpy(&q.b_g1, sums.b_g1, sizeof(q.b_g1));
	memcpy(&q.b_g2, sums.b_g2, sizeof(q.b_g2));
	double t0 = monotonic_ms();
	groth16_assemble(out, &p->vk, &q, r, s);
	double assemble_ms = monotonic_ms() - t0;
	if (t) {
		memset(t, 0, sizeof(*t));
		t->upload_ms = gt.upload_ms;
		t->ntt_ms = gt.ntt_ms;
		t->msm_h_ms = gt.msm_h_ms;
		t->msm_l_ms = gt.msm_l_ms;
		t->msm_a_ms = gt.msm_a_ms;
		t->msm_b_g1_ms = gt.msm_b_g1_ms;
		t->msm_b_g2_ms = gt.msm_b_g2_ms;
		t->assemble_ms = assemble_ms;
		t->total_ms = gt.total_ms + t->assemble_ms;
	}
	return 0;
}

int groth16_gpu_register_host(void *ptr, size_t len, int read_only, cuzk_error *err)
{
	char msg[CUZK_ERRMSG_MAX] = "";
	int rc = cuzk_gpu_host_register(ptr, len, read_only, msg, sizeof msg);
	return rc ? cuzk_fail(err, -rc, "%s", msg) : 0;
}

int groth16_gpu_unregister_host(void *ptr, cuzk_error *err)
{
	char msg[CUZK_ERRMSG_MAX] = "";
	int rc = cuzk_gpu_host_unregister(ptr, msg, sizeof msg);
	return rc ? cuzk_fail(err, -rc, "%s", msg) : 0;
}

int groth16_gpu_ntt(groth16_gpu *gpu, fr_t *v, unsigned log_m, int coset, int reps,
		    double *ret_device_ms, cuzk_error *err)
{
	char msg[CUZK_ERRMSG_MAX] = "";
	int rc = cuzk_gpu_ntt(gpu->dev, v, log_m, coset ? CUZK_GPU_NTT_COSET_FORWARD : CUZK_GPU_NTT_FORWARD,
			      reps, ret_device_ms, msg, sizeof msg);
	return rc ? gpu_error(err, rc, msg, gpu->device) : 0;
}

int groth16_gpu_vram(groth16_gpu *gpu, size_t *ret_reserved, size_t *ret_free, size_t *ret_budget)
{
	return cuzk_gpu_vram(gpu->dev, ret_reserved, ret_free, ret_budget);
}
