// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Throughput of the Fp Montgomery product on the GPU's two multiplier pipes
 * (cuda/ff/fp_pipes.cu): the integer product of ff/fp.cuh (mul_parity, the
 * MSM's), the FP64 one of ff/fpd.cuh, and both at once (issue 9's question:
 * do the FP64 units add to the integer ones?).  Plain C, no CUDA headers.
 * RETURN VALUE: 0, -CUZK_E_MISMATCH when any product chain of any mode
 * differs from the integer one's, or another negative CUZK_E_* code; err
 * then names the mode and the chain. */
#ifndef CUZK_CUDA_FF_FP_PIPES_H
#define CUZK_CUDA_FF_FP_PIPES_H

#include "cuzk_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

enum cuzk_fp_pipes_mode {
	CUZK_FP_PIPES_IMAD = 0,         /* every chain on the integer pipe (mul_parity) */
	CUZK_FP_PIPES_FP64 = 1,         /* every chain in doubles, sums in doubles (fpd.cuh's mul) */
	CUZK_FP_PIPES_FP64_IA = 2,      /* in doubles, sums in integers (fpd.cuh's mul_ia) */
	CUZK_FP_PIPES_SPLIT_WARPS = 3,  /* even warps integer, odd warps mul_ia */
	CUZK_FP_PIPES_SPLIT_THREAD = 4, /* each thread one chain of each */
	CUZK_FP_PIPES_WIDE = 5,         /* integer, the 768-bit product then its reduction (mul_wide, redc_parity) */
	CUZK_FP_PIPES_KARA = 6,         /* the same with the product by one level of Karatsuba (mul_kara) */
	CUZK_FP_PIPES_MODES = 7
};

typedef struct cuzk_fp_pipes_result {
	double ns_per_product[CUZK_FP_PIPES_MODES]; /* the whole GPU's, best of the runs */
	double ms[CUZK_FP_PIPES_MODES];             /* device time of that run */
	unsigned blocks[CUZK_FP_PIPES_MODES];       /* one wave: occupancy x SMs */
} cuzk_fp_pipes_result;

/* The mode's name for a table or a message ("?" when m is out of range). */
const char *cuzk_fp_pipes_mode_name(int m);

/* Each thread runs two chains x <- x·y of `steps` products from its own
 * canonical values, in each mode (one wave of blocks at that mode's
 * occupancy), reps times; then every chain's last value, brought to
 * canonical form, is compared with the integer mode's. */
int cuzk_fp_pipes_bench(unsigned steps, unsigned reps, cuzk_fp_pipes_result *out, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
