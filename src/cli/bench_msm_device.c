// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The device-resident MSM benchmark (see bench_msm_device.h). */
#include "cli/bench_msm_device.h"

#define BENCH_MSM_DEVICE_REPS 5

int bench_msm_device(struct bench_report *rep, const struct groth16_backend *be, groth16_device *dev, int g2,
		     unsigned log_size, int porep, cuzk_error *err)
{
	static const char *const phases[7] = {"  split 0/1/other", "  ones", "  digits", "  sort",
					      "  accumulate", "  windows", "  finish"};
	struct groth16_msm_bench b;
	int r = be->msm_bench(dev, g2, log_size, BENCH_MSM_DEVICE_REPS, porep, &b, err);
	if (r < 0)
		return err_prefix(err, "bench msm --backend %s", be->name);
	bench_count(rep, "points", (uint64_t)1 << log_size);
	bench_count(rep, "window bits", b.window_bits);
	bench_count(rep, "scratch MiB", b.scratch_bytes >> 20);
	bench_phase(rep, g2 ? "msm g2 (best of 5)" : "msm g1 (best of 5)", b.best_ms, 0);
	bench_phase(rep, "median of 5", b.median_ms, 1);
	for (int p = 0; p < 7; p++)
		bench_phase(rep, phases[p], b.phase_ms[p], 1);
	return 0;
}
