// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The development setup's fixed-base products on a GPU: an engine
 * (setup_engine.h) over cuda/cuzk_gpu.h's cuzk_gpu_fixed_base_*.  The
 * parameters are the CPU engine's, byte for byte (cuda/test_gpu_setup
 * checks it).
 * Built with CUDA only; the GPU backend (backend_gpu.c) owns one per device
 * and hands it out as its setup_engine. */
#ifndef CUZK_PROVER_SETUP_GPU_H
#define CUZK_PROVER_SETUP_GPU_H

#include "common/error.h"
#include "cuzk_gpu.h"
#include "prover/setup_engine.h"

typedef struct groth16_gpu_setup groth16_gpu_setup;

/* Uploads the G1 and G2 tables to dev, CUDA device number `device` (which
 * must outlive the engine).  0, -CUZK_E_VRAM, -CUZK_E_GPU, -CUZK_E_NOMEM. */
int groth16_gpu_setup_open(groth16_gpu_setup **ret, cuzk_gpu_dev *dev, int device, cuzk_error *err);
void groth16_gpu_setup_close(groth16_gpu_setup *s);
const groth16_setup_engine *groth16_gpu_setup_engine(const groth16_gpu_setup *s);

#endif
