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
/* The scratch with which the call takes its fastest path: the batch-affine
 * rounds (G1 and G2; ~15-20 GB more from 2^22 points on, none below; the
 * same as *_scratch_bytes with $CUZK_MSM_ACC=xyzz).  A call given at least
 * this much takes it; with less, XYZZ additions alone (the same sum). */
size_t cuzk_msm_g1_scratch_bytes_fast(size_t n);
size_t cuzk_msm_g2_scratch_bytes_fast(size_t n);

int cuzk_msm_g1(const void *d_bases, const void *d_scalars, size_t n, int scalars_montgomery, void *h_out_jac,
		const cuzk_gpu_host_ops *ops, void *d_scratch, size_t scratch_bytes, cudaStream_t s, cuzk_error *err);
int cuzk_msm_g2(const void *d_bases, const void *d_scalars, size_t n, int scalars_montgomery, void *h_out_jac,
		const cuzk_gpu_host_ops *ops, void *d_scratch, size_t scratch_bytes, cudaStream_t s, cuzk_error *err);

/* A batched MSM: the same sum over shape->n_total points that come in
 * batches (a streamed SRS: batch k's points are in d_bases, its scalars in
 * d_scalars, n of them, at most shape->n_batch), one call per batch in
 * order on the same stream, each with the same shape.  Its buckets stay in
 * d_running (*_batch_running_bytes(n_total) bytes, 256-byte aligned) from
 * batch to batch and the windows are reduced once: flags CUZK_MSM_FIRST on
 * the first batch (clears them), CUZK_MSM_LAST on the last (writes
 * h_out_jac, which the others leave alone); one batch of all n_total points
 * takes both.  d_running must not be touched between the calls; d_scratch
 * holds nothing from one call to the next, so the batches of several
 * batched MSMs, each with its own d_running, may take turns on one stream
 * with one scratch.  *_batch_scratch_bytes covers any batch of at most
 * n_batch points of any total up to n_total, whatever the shape's n_dense. */
enum { CUZK_MSM_FIRST = 1, CUZK_MSM_LAST = 2 };
typedef struct cuzk_msm_batch_shape {
	size_t n_total; /* points in all the batches */
	size_t n_batch; /* the most in one batch */
	/* About how many of the n_total scalars are neither 0 nor 1 (those
	 * take no bucket additions): the windows follow it, the sum does not.
	 * n_total where unknown; cuzk_msm_dense_estimate counts a sample. */
	size_t n_dense;
} cuzk_msm_batch_shape;
size_t cuzk_msm_g1_batch_scratch_bytes(size_t n_batch, size_t n_total);
size_t cuzk_msm_g2_batch_scratch_bytes(size_t n_batch, size_t n_total);
size_t cuzk_msm_g1_batch_running_bytes(size_t n_total);
size_t cuzk_msm_g2_batch_running_bytes(size_t n_total);
int cuzk_msm_g1_batch(const void *d_bases, const void *d_scalars, size_t n, const cuzk_msm_batch_shape *shape,
		      int flags, int scalars_montgomery, void *h_out_jac, const cuzk_gpu_host_ops *ops,
		      void *d_running, void *d_scratch, size_t scratch_bytes, cudaStream_t s, cuzk_error *err);
int cuzk_msm_g2_batch(const void *d_bases, const void *d_scalars, size_t n, const cuzk_msm_batch_shape *shape,
		      int flags, int scalars_montgomery, void *h_out_jac, const cuzk_gpu_host_ops *ops,
		      void *d_running, void *d_scratch, size_t scratch_bytes, cudaStream_t s, cuzk_error *err);

/* An estimate of how many of n scalars (device memory) are neither 0 nor 1,
 * for a batched MSM's shape: evenly spaced samples, at most
 * CUZK_MSM_DENSE_SAMPLES of them, are classified on stream s, whose work
 * this waits for.  d_count: 8 bytes of device memory. */
enum { CUZK_MSM_DENSE_SAMPLES = 1 << 20 };
int cuzk_msm_dense_estimate(const void *d_scalars, size_t n, int scalars_montgomery, size_t *n_dense, void *d_count,
			    cudaStream_t s, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
