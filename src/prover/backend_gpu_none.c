// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The GPU backend when cuzk is built without CUDA: no devices, and opening
 * one says why. */
#include "prover/backend.h"

void groth16_backend_process_init(void)
{
}

static int none_device_count(void)
{
	return 0;
}

static int none_open(groth16_device **ret, int index, size_t mem_budget, cuzk_error *err)
{
	(void)index;
	(void)mem_budget;
	*ret = NULL;
	return err_fail(err, CUZK_E_UNSUPPORTED, "built without the GPU backend");
}

static void none_close(groth16_device *dev)
{
	(void)dev;
}

static int none_prove(groth16_device *dev, const groth16_params *p, const groth16_witness_view *w, int registered,
		      const fr_t *r, const fr_t *s, groth16_proof *out, groth16_timings *t, cuzk_error *err)
{
	(void)dev, (void)p, (void)w, (void)registered, (void)r, (void)s, (void)out, (void)t;
	return err_fail(err, CUZK_E_UNSUPPORTED, "built without the GPU backend");
}

const struct groth16_backend groth16_backend_gpu = {
	.name = "gpu",
	.device_count = none_device_count,
	.open = none_open,
	.close = none_close,
	.prove = none_prove,
};
