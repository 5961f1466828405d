// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The GPU MSM for G1 and G2, a plain C interface (usable from C and CUDA C++).
 *
 * Bases: a device array of n affine points in the host layout (G1: x‖y, 96 B;
 * G2: x.c0‖x.c1‖y.c0‖y.c1, 192 B; Montgomery Fp; infinity all-zero), 16-byte
 * aligned.  Scalars: a device array of n Fr values (4 LE u64), canonical or
 * in Montgomery form (scalars_montgomery != 0).  n <= 2^28, any count.
 * The result Σ s_i·P_i is written to HOST memory as a Jacobian point in the
 * host layout (3 fp_t for G1, 3 fp2_t for G2; infinity has Z = 0).
 *
 * Host curve code: with ops (its g*_acc and g*_dbl for the curve) the window
 * sums are combined on the host, which is ~0.1 ms instead of ~8 ms of one
 * GPU thread; with ops NULL the device does it.
 *
 * Scratch: the caller gives d_scratch of at least *_scratch_bytes(n) bytes
 * (so the pipeline can reserve it in its VRAM budget); nothing is allocated
 * inside and there is no device-wide synchronisation, only on stream s (the
 * call returns when the result is in h_out_jac).
 *
 * RETURN VALUE: 0, or a negative CUZK_E_* code with a one-line message in
 * err (CUZK_E_INVAL for bad arguments or too little scratch,
 * CUZK_E_GPU for a failed CUDA call). */
#ifndef CUZK_CUDA_MSM_MSM_CUH
#define CUZK_CUDA_MSM_MSM_CUH

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cuzk_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

size_t cuzk_msm_g1_scratch_bytes(size_t n);
size_t cuzk_msm_g2_scratch_bytes(size_t n);

int cuzk_msm_g1(const void *d_bases, const void *d_scalars, size_t n, int scalars_montgomery, void *h_out_jac,
		const cuzk_gpu_host_ops *ops, void *d_scratch, size_t scratch_bytes, cudaStream_t s, cuzk_error *err);
int cuzk_msm_g2(const void *d_bases, const void *d_scalars, size_t n, int scalars_montgomery, void *h_out_jac,
		const cuzk_gpu_host_ops *ops, void *d_scratch, size_t scratch_bytes, cudaStream_t s, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
