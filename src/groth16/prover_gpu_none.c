// SPDX-License-Identifier: Apache-2.0 OR MIT
/* prover_gpu.h when cuzk is built without CUDA: no devices, and every call
 * says so. */
#include "groth16/prover_gpu.h"

#define NO_GPU "built without the GPU backend"

int groth16_gpu_device_count(void)
{
	return 0;
}

int groth16_gpu_open(groth16_gpu **ret, int device, size_t vram_budget, cuzk_error *err)
{
	*ret = NULL;
	return cuzk_fail(err, CUZK_E_UNSUPPORTED, NO_GPU);
}

void groth16_gpu_close(groth16_gpu *gpu)
{
}

int groth16_gpu_load_params(groth16_gpu *gpu, const groth16_params *p, cuzk_error *err)
{
	return cuzk_fail(err, CUZK_E_UNSUPPORTED, NO_GPU);
}

void groth16_gpu_unload_params(groth16_gpu *gpu, const groth16_params *p)
{
}

int groth16_gpu_prove(groth16_gpu *gpu, const groth16_params *p, const groth16_witness_view *w,
		      int witness_pinned, const fr_t *r, const fr_t *s, groth16_proof *out,
		      groth16_timings *t, cuzk_error *err)
{
	return cuzk_fail(err, CUZK_E_UNSUPPORTED, NO_GPU);
}

int groth16_gpu_register_host(void *ptr, size_t len, int read_only, cuzk_error *err)
{
	return cuzk_fail(err, CUZK_E_UNSUPPORTED, NO_GPU);
}

int groth16_gpu_unregister_host(void *ptr, cuzk_error *err)
{
	return cuzk_fail(err, CUZK_E_UNSUPPORTED, NO_GPU);
}

int groth16_gpu_ntt(groth16_gpu *gpu, fr_t *v, unsigned log_m, int coset, int reps,
		    double *ret_device_ms, cuzk_error *err)
{
	return cuzk_fail(err, CUZK_E_UNSUPPORTED, NO_GPU);
}

int groth16_gpu_vram(groth16_gpu *gpu, size_t *ret_reserved, size_t *ret_free, size_t *ret_budget)
{
	return -CUZK_E_UNSUPPORTED;
}

int groth16_gpu_index(const groth16_gpu *gpu)
{
	return -1;
}

void *groth16_gpu_handle(groth16_gpu *gpu)
{
	return NULL;
}
