// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Checks and benchmarks of the GPU MSM that make their own data on the device
 * (cuda/msm/msm_check.cu).  Plain C, no CUDA headers needed.  curve is 1 (G1)
 * or 2 (G2).  RETURN VALUE of each: 0, or a negative CUZK_E_* code with a
 * one-line message in err. */
#ifndef CUZK_CUDA_MSM_MSM_CHECK_H
#define CUZK_CUDA_MSM_MSM_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Shapes of scalar vectors. */
enum cuzk_msm_pattern {
	CUZK_MSM_RANDOM = 0,    /* uniform in [0, r) */
	CUZK_MSM_ZERO = 1,      /* all 0 */
	CUZK_MSM_ONE = 2,       /* all 1 */
	CUZK_MSM_WITNESS = 3,   /* ~45% 0, ~45% 1, the rest r - 1 or random: like real aux vectors */
	CUZK_MSM_MINUS_ONE = 4, /* all r - 1 */
	CUZK_MSM_SMALL = 5      /* random below 2^20 (many zero digits) */
};

/* Makes n points k_i·G on the device (k_i pseudo-random 64-bit, some 0 so
 * that infinity appears among the bases), n scalars of the pattern, runs the
 * GPU MSM and compares it with (Σ s_i·k_i mod r)·G computed on the host: a
 * reference that shares no MSM code.  Scalars go in Montgomery form when
 * montgomery != 0.  The MSM runs twice: with the windows combined on the
 * device, and (when ops is not NULL) by ops on the host; then as a batched
 * MSM (cuzk_msm_g*_batch) in three batches, and for n <= 64 in batches of
 * one point.  -CUZK_E_MISMATCH when a result differs. */
int cuzk_msm_check(int curve, size_t n, int pattern, int montgomery, uint64_t seed, const cuzk_gpu_host_ops *ops,
		   cuzk_error *err);

/* Per-call figures of the benchmark. */
typedef struct cuzk_msm_bench_result {
	double best_ms, median_ms;   /* wall time of one call (host clock around it) */
	double phase_ms[7];          /* device time: split, ones, pairs, sort, accumulate, windows, finish */
	unsigned window_bits, windows, group;
	unsigned rounds;             /* batch-affine rounds a sort group may take (0: XYZZ alone) */
	size_t scratch_bytes;
} cuzk_msm_bench_result;

/* Times reps MSMs of 2^log_size scalars (in Montgomery form where montgomery
 * is nonzero, as a proof's h and witness are, else canonical) with resident
 * points (made on the device: up to 2^22 distinct points, tiled), the
 * windows combined on the host by ops (NULL: on the device).  pattern:
 * CUZK_MSM_RANDOM (255-bit values below r) or CUZK_MSM_WITNESS (the PoRep
 * shape of docs/BENCHMARKS.md: 45% zeros, 45% ones, 10% random). */
int cuzk_msm_bench(int curve, unsigned log_size, unsigned reps, int montgomery, int pattern,
		   const cuzk_gpu_host_ops *ops, cuzk_msm_bench_result *out, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
