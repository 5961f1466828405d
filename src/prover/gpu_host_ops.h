// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The host's curve code (src/bls12_381) in the shape the GPU backend asks for
 * (cuzk_gpu_host_ops in cuda/cuzk_gpu.h): Jacobian points as limb arrays. */
#ifndef CUZK_PROVER_GPU_HOST_OPS_H
#define CUZK_PROVER_GPU_HOST_OPS_H

#include "cuzk_gpu.h"

const cuzk_gpu_host_ops *groth16_gpu_host_ops(void);

#endif
