// SPDX-License-Identifier: Apache-2.0 OR MIT
/* One round of batch-affine pair additions over the whole GPU
 * (cuda/msm/affine_round.cu), against the XYZZ mixed addition the MSM's
 * accumulation uses, on the same points: what a bucket accumulation made of
 * such rounds could gain (docs/BENCHMARKS.md, "GPU MSM, 2026-12-06 (night)").
 * Plain C, no CUDA headers.
 * RETURN VALUE: 0, -CUZK_E_MISMATCH when a sampled sum differs from the
 * same sum with its own inversion computed on the host, or another negative
 * CUZK_E_* code; err then names the pair. */
#ifndef CUZK_CUDA_MSM_AFFINE_ROUND_H
#define CUZK_CUDA_MSM_AFFINE_ROUND_H

#include "cuzk_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_affine_round_result {
	double pre_ms;        /* pass 1: the denominators' running products */
	double inv_ms;        /* the products' inverses (two levels, one inversion per $CUZK_MSM_ROUNDS_LEVEL threads) */
	double invert_ms;     /* of which the inversions themselves (Fermat's, one a second-level thread) */
	double sum_ms;        /* pass 2: the walk back and the additions, stored */
	double ns_per_add;    /* (pre + inv + sum) / pairs, the best run */
	double xyzz_ms;       /* the same points summed two per XYZZ mixed addition */
	double xyzz_ns_per_add;
	unsigned checked;     /* sampled pairs compared with the host */
} cuzk_affine_round_result;

/* 2^log_pairs pairs (16..26) of pseudo-random field elements (the formulas
 * cost the same on any x, y): per_thread pairs a thread (8, 16 or 32),
 * read from planes of 16-byte words in the pairs' order (gather 0: later
 * rounds, coalesced) or as 96-byte points by index (gather 1: an MSM's
 * first round); reps runs, the best kept. */
int cuzk_affine_round_bench(unsigned log_pairs, unsigned per_thread, int gather, unsigned reps,
			    cuzk_affine_round_result *out, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
