// SPDX-License-Identifier: Apache-2.0 OR MIT
/* `cuzk bench msm` on a backend that measures its MSM with the points
 * resident on the device (made there, so 2^26 points cost no host time) and
 * uniform 255-bit scalars, or with porep shaped like a PoRep witness: the
 * best of five calls, with the device time of each phase
 * (groth16_backend.msm_bench). */
#ifndef CUZK_CLI_BENCH_MSM_DEVICE_H
#define CUZK_CLI_BENCH_MSM_DEVICE_H

#include "cli/bench_report.h"
#include "common/error.h"
#include "prover/backend.h"

/* 0, or the backend's error. */
int bench_msm_device(struct bench_report *rep, const struct groth16_backend *be, groth16_device *dev, int g2,
		     unsigned log_size, int porep, cuzk_error *err);

#endif
