// SPDX-License-Identifier: Apache-2.0 OR MIT
/* `cuzk bench msm --backend gpu`: the GPU MSM with its points resident on the
 * device (made there, so 2^26 points cost no host time) and uniform 255-bit
 * scalars; the best of five calls, with the device time of each phase. */
#ifndef CUZK_CLI_BENCH_MSM_GPU_H
#define CUZK_CLI_BENCH_MSM_GPU_H

#include "cli/bench_report.h"
#include "common/error.h"

/* 0, or -CUZK_E_UNSUPPORTED (built without CUDA) or the GPU's error. */
int bench_msm_gpu(struct bench_report *rep, int g2, unsigned log_size, cuzk_error *err);

#endif
