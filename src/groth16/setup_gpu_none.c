// SPDX-License-Identifier: Apache-2.0 OR MIT
/* setup_gpu.h when cuzk is built without CUDA. */
#include "groth16/setup_gpu.h"

int groth16_gpu_setup_open(groth16_gpu_setup **ret, groth16_gpu *gpu, cuzk_error *err)
{
	(void)gpu;
	*ret = NULL;
	return cuzk_fail(err, CUZK_E_UNSUPPORTED, "built without the GPU backend");
}

void groth16_gpu_setup_close(groth16_gpu_setup *s)
{
	(void)s;
}

const groth16_setup_engine *groth16_gpu_setup_engine(const groth16_gpu_setup *s)
{
	(void)s;
	return NULL;
}
