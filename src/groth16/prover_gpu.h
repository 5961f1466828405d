// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The GPU prover, behind the same shapes as the CPU one.
 *
 * When cuzk is built without CUDA every function here returns
 * -CUZK_E_UNSUPPORTED with "built without the GPU backend".  The CUDA side
 * (cuda/) sits behind a plain C header; this file is its adapter. */
#ifndef CUZK_GROTH16_PROVER_GPU_H
#define CUZK_GROTH16_PROVER_GPU_H

#include <stddef.h>

#include "common/error.h"
#include "groth16/types.h"

typedef struct groth16_gpu groth16_gpu;   /* one device: its VRAM budget, streams, resident SRS */

/* Number of usable CUDA devices (0 when none or when built without CUDA). */
int groth16_gpu_device_count(void);

/* Opens device `device` with a VRAM budget in bytes (0 = what the device has
 * free, less a safety margin). */
int groth16_gpu_open(groth16_gpu **ret, int device, size_t vram_budget, cuzk_error *err);
void groth16_gpu_close(groth16_gpu *gpu);

/* Makes params resident on the device when they fit the budget (otherwise
 * proofs stream them, and their host memory stays page-locked until
 * groth16_gpu_unload_params or close: unload before freeing params).
 * Idempotent per params object; proving calls it too. */
int groth16_gpu_load_params(groth16_gpu *gpu, const groth16_params *p, cuzk_error *err);
void groth16_gpu_unload_params(groth16_gpu *gpu, const groth16_params *p);

/* Proves one partition; the witness memory may be pinned by the caller
 * (witness_pinned = 1: cudaHostRegister'ed, DMA straight from it).
 * Writes the same proof as groth16_prove_cpu for the same r and s.
 * Thread-safe: several workers may prove on one device at once. */
int groth16_gpu_prove(groth16_gpu *gpu, const groth16_params *p, const groth16_witness_view *w,
		      int witness_pinned, const fr_t *r, const fr_t *s, groth16_proof *out,
		      groth16_timings *t, cuzk_error *err);

/* Page-locks host memory for DMA (cudaHostRegister, read-only mapping allowed). */
int groth16_gpu_register_host(void *ptr, size_t len, int read_only, cuzk_error *err);
int groth16_gpu_unregister_host(void *ptr, cuzk_error *err);

/* Benchmarks: a forward (coset != 0: coset forward) NTT of 2^log_m
 * Montgomery scalars, natural order in and out, in place; the transform runs
 * `reps` times on device-resident data and *ret_device_ms (may be NULL) is
 * the median device time of one. */
int groth16_gpu_ntt(groth16_gpu *gpu, fr_t *v, unsigned log_m, int coset, int reps,
		    double *ret_device_ms, cuzk_error *err);

/* The device's index, and its handle on the CUDA side (a cuzk_gpu_dev *,
 * for the adapters of cuda/cuzk_gpu.h only). */
int groth16_gpu_index(const groth16_gpu *gpu);
void *groth16_gpu_handle(groth16_gpu *gpu);

/* VRAM figures for logs and status, in bytes. */
int groth16_gpu_vram(groth16_gpu *gpu, size_t *ret_reserved, size_t *ret_free, size_t *ret_budget);

#endif
