// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Pippenger's bucket accumulation with affine buckets and batched
 * inversions (internal to msm.c).
 *
 * Adding an affine point to an affine bucket costs one inversion; done for
 * a batch of buckets at once (Montgomery's trick) that is about 3
 * multiplications each, so an addition is ~5M+1S instead of the 7M+4S of a
 * Jacobian mixed addition.  The batch may not hold a bucket twice, and the
 * affine formula fails when the point and the bucket share x (doubling or
 * opposite points): those additions go to a second, Jacobian, bucket of the
 * same digit with a complete mixed addition, so that scalars repeated many
 * times (all points into one bucket) are merely as slow as without batching.
 * The buckets are then summed with batched affine additions too (segments
 * of buckets, each with its own running sum, advanced together). */
#ifndef CUZK_PROVER_MSM_AFFINE_H
#define CUZK_PROVER_MSM_AFFINE_H

#include <stddef.h>
#include <stdint.h>

#include "prover/curve_ops.h"

/* Fewer buckets than this make batches too small to pay for an inversion. */
#define MSM_AFFINE_MIN_WINDOW 10

typedef struct msm_window_job {
	const void *bases;            /* affine points of the group */
	const size_t *idx;            /* base index of each scalar */
	const uint64_t (*k)[4];       /* scalars recoded for signed digits */
	size_t lo, hi;                /* the scalars of this task */
	unsigned w, c, nwin;          /* window and digit geometry */
} msm_window_job;

typedef struct msm_affine_scratch msm_affine_scratch;

/* Per-thread buffers for windows of c bits; NULL when out of memory. */
msm_affine_scratch *msm_affine_scratch_new(const curve_ops *ops, unsigned c);
void msm_affine_scratch_free(msm_affine_scratch *s);

/* acc[idx[j]] += pt[j] for j < n, all affine, with one inversion: the idx
 * must be distinct and no pt[j] may share x with its accumulator (nor be,
 * or meet, the identity).  scratch: room for n field elements (fp2_t). */
void msm_affine_add_batch(const curve_ops *ops, void *acc, const uint32_t *idx, const void *pt,
			  size_t n, void *scratch);

/* acc (Jacobian) += the sum of bases[idx[i]] for i < n (the scalars equal
 * to 1): pairwise sums in affine coordinates, one inversion per level of
 * the tree, while enough points remain to share it; complete mixed
 * additions for the rest, for pairs that share x and when memory is short. */
void msm_affine_sum(const curve_ops *ops, void *acc, const void *bases, const size_t *idx, size_t n);

/* ret (Jacobian) = sum over digits d of d·(sum of the points whose digit in
 * window job->w is ±d, negated for -d). */
void msm_affine_window(void *ret, msm_affine_scratch *s, const msm_window_job *job);

#endif
