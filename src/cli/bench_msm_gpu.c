// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "config.h"

#include "cli/bench_msm_gpu.h"

#ifdef CUZK_HAVE_CUDA

#include "groth16/gpu_host_ops.h"
#include "msm/msm_check.h"

#define BENCH_MSM_GPU_REPS 5

int bench_msm_gpu(struct bench_report *rep, int g2, unsigned log_size, cuzk_error *err)
{
	static const char *const phases[7] = {"  split 0/1/other", "  ones", "  digits", "  sort",
					      "  accumulate", "  windows", "  finish"};
	cuzk_msm_bench_result b;
	char msg[CUZK_ERRMSG_MAX] = "";
	int r = cuzk_msm_bench(g2 ? 2 : 1, log_size, BENCH_MSM_GPU_REPS, groth16_gpu_host_ops(), &b, msg,
			       sizeof msg);
	if (r < 0)
		return cuzk_fail(err, -r, "bench msm --backend gpu: %s", msg);
	bench_count(rep, "points", (uint64_t)1 << log_size);
	bench_count(rep, "window bits", b.window_bits);
	bench_count(rep, "scratch MiB", b.scratch_bytes >> 20);
	bench_phase(rep, g2 ? "msm g2 (best of 5)" : "msm g1 (best of 5)", b.best_ms, 0);
	bench_phase(rep, "median of 5", b.median_ms, 1);
	for (int p = 0; p < 7; p++)
		bench_phase(rep, phases[p], b.phase_ms[p], 1);
	return 0;
}

#else

int bench_msm_gpu(struct bench_report *rep, int g2, unsigned log_size, cuzk_error *err)
{
	(void)rep;
	(void)g2;
	(void)log_size;
	return cuzk_fail(err, CUZK_E_UNSUPPORTED, "bench msm --backend gpu: built without the GPU backend");
}

#endif
