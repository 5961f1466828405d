// SPDX-License-Identifier: Apache-2.0 OR MIT
/* GPU MSM against a host reference that shares no MSM code, for G1 and G2:
 * random sizes (powers of two and not), n = 1, all-zero, all-one, all r - 1,
 * mostly-0/1 witness-like vectors, small scalars, canonical and Montgomery.
 *
 *   test_gpu_msm                 the quick table (make check)
 *   test_gpu_msm --large         adds 2^22 to 2^24 points (several window groups;
 *                                batched, the windows a sparse estimate picks)
 *   test_gpu_msm --bench G K R [mont] [witness]  times R MSMs on curve G
 *                                (1|2) of 2^K points (canonical scalars, or in
 *                                Montgomery form with mont; random, or shaped
 *                                like PoRep's witness with witness)
 *   test_gpu_msm --fp-pipes S R  times chains of S Fp products on the integer
 *                                and FP64 pipes, alone and together, R runs
 *   test_gpu_msm --affine-round K R  one round of batch-affine additions of
 *                                2^K pairs against XYZZ on the same points
 *
 * Without a CUDA device it says so and exits 77 (skip). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk_gpu.h"
#include "ff/fp_pipes.h"
#include "msm/affine_round.h"
#include "msm/msm_check.h"
#include "prover/gpu_host_ops.h"

struct msm_case {
	int curve;
	size_t n;
	int pattern;
	int montgomery;
};

static const char *pattern_name(int p)
{
	static const char *names[] = {"random", "zero", "one", "witness", "r-1", "small"};
	return p >= 0 && p < (int)(sizeof names / sizeof names[0]) ? names[p] : "?";
}

static int run_cases(const struct msm_case *cs, size_t count)
{
	int failed = 0;
	printf("%-5s %10s %-8s %-10s %s\n", "curve", "n", "scalars", "form", "result");
	for (size_t i = 0; i < count; i++) {
		const struct msm_case *c = &cs[i];
		cuzk_error err = { 0 };
		int r = cuzk_msm_check(c->curve, c->n, c->pattern, c->montgomery, 1000 + i, groth16_gpu_host_ops(), &err);
		printf("G%-4d %10zu %-8s %-10s %s%s%s\n", c->curve, c->n, pattern_name(c->pattern),
		       c->montgomery ? "montgomery" : "canonical", r ? "FAIL" : "ok", r ? ": " : "", r ? err.msg : "");
		fflush(stdout);
		failed += r != 0;
	}
	return failed;
}

static int bench(int curve, unsigned log_size, unsigned reps, int mont, int witness)
{
	static const char *phases[] = {"split", "ones", "pairs", "sort", "accumulate", "windows", "finish"};
	cuzk_msm_bench_result b;
	cuzk_error err = { 0 };
	int r = cuzk_msm_bench(curve, log_size, reps, mont, witness ? CUZK_MSM_WITNESS : CUZK_MSM_RANDOM,
			       groth16_gpu_host_ops(), &b, &err);
	if (r) {
		fprintf(stderr, "bench G%d 2^%u: %s\n", curve, log_size, err.msg);
		return 1;
	}
	printf("G%d MSM 2^%u%s%s: best %.2f ms, median %.2f ms over %u (c = %u, %u windows, %u per sort, %u rounds, "
	       "scratch %.2f GiB)\n",
	       curve, log_size, witness ? " witness-shaped" : "", mont ? " (Montgomery)" : "", b.best_ms, b.median_ms,
	       reps, b.window_bits, b.windows, b.group, b.rounds, b.scratch_bytes / 1073741824.0);
	for (int p = 0; p < 7; p++)
		printf("  %-11s %9.2f ms\n", phases[p], b.phase_ms[p]);
	return 0;
}

static int fp_pipes(unsigned steps, unsigned reps)
{
	cuzk_fp_pipes_result b;
	cuzk_error err = { 0 };
	int r = cuzk_fp_pipes_bench(steps, reps, &b, &err);
	if (r) {
		fprintf(stderr, "fp pipes: %s\n", err.msg);
		return 1;
	}
	printf("Fp products, %u a chain, best of %u runs (every chain == the integer one's):\n", steps, reps);
	for (int m = 0; m < CUZK_FP_PIPES_MODES; m++)
		printf("  %-28s %8.4f ns a product (%.2f ms, one wave: %u blocks of 128)  %.2fx integer\n",
		       cuzk_fp_pipes_mode_name(m), b.ns_per_product[m], b.ms[m], b.blocks[m],
		       b.ns_per_product[0] / b.ns_per_product[m]);
	return 0;
}

static int affine_round(unsigned log_pairs, unsigned reps)
{
	static const unsigned per[] = { 8, 16, 32 };
	printf("Batch-affine round, 2^%u pairs, best of %u runs (4096 sampled sums == the host's):\n", log_pairs, reps);
	for (int gather = 0; gather < 2; gather++)
		for (unsigned k = 0; k < sizeof per / sizeof per[0]; k++) {
			cuzk_affine_round_result b;
			cuzk_error err = { 0 };
			if (cuzk_affine_round_bench(log_pairs, per[k], gather, reps, &b, &err)) {
				fprintf(stderr, "affine round: %s\n", err.msg);
				return 1;
			}
			printf("  %-8s %2u a thread: products %6.2f + inverses %5.2f (inversions %5.2f) + sums %6.2f = "
			       "%7.2f ms, %.4f ns an addition | XYZZ %7.2f ms, %.4f ns | %.3fx\n",
			       gather ? "gathered" : "planes", per[k], b.pre_ms, b.inv_ms, b.invert_ms, b.sum_ms,
			       b.pre_ms + b.inv_ms + b.sum_ms, b.ns_per_add, b.xyzz_ms, b.xyzz_ns_per_add,
			       b.ns_per_add / b.xyzz_ns_per_add);
		}
	return 0;
}

int main(int argc, char **argv)
{
	if (cuzk_gpu_device_count() <= 0) {
		printf("SKIP: no CUDA device\n");
		return 77;
	}
	if (argc == 4 && strcmp(argv[1], "--fp-pipes") == 0)
		return fp_pipes((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "--affine-round") == 0)
		return affine_round((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
	if (argc >= 5 && strcmp(argv[1], "--bench") == 0) {
		int mont = 0, witness = 0, known = 1;
		for (int i = 5; i < argc; i++) {
			if (strcmp(argv[i], "mont") == 0 && !mont)
				mont = 1;
			else if (strcmp(argv[i], "witness") == 0 && !witness)
				witness = 1;
			else
				known = 0;
		}
		if (known)
			return bench(atoi(argv[2]), (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]), mont, witness);
	}

	const int large_too = argc == 2 && strcmp(argv[1], "--large") == 0;
	if (argc > 1 && !large_too) {   // a mistyped option must not run the table instead
		fprintf(stderr, "test_gpu_msm: unknown arguments; usage: test_gpu_msm [--large | "
				"--bench G K R [mont] [witness] | --fp-pipes S R | --affine-round K R]\n");
		return 2;
	}

	static const struct msm_case quick[] = {
		{1, 1, CUZK_MSM_RANDOM, 0},      {1, 1, CUZK_MSM_ONE, 1},        {1, 2, CUZK_MSM_RANDOM, 1},
		{1, 3, CUZK_MSM_ZERO, 0},        {1, 100, CUZK_MSM_RANDOM, 1},   {1, 1000, CUZK_MSM_ONE, 0},
		{1, 1000, CUZK_MSM_ZERO, 1},     {1, 1000, CUZK_MSM_MINUS_ONE, 1}, {1, 4097, CUZK_MSM_WITNESS, 1},
		{1, 12345, CUZK_MSM_RANDOM, 0},  {1, 30001, CUZK_MSM_SMALL, 0},  {1, 65536, CUZK_MSM_RANDOM, 1},
		{1, 65536, CUZK_MSM_WITNESS, 1}, {1, 65536, CUZK_MSM_MINUS_ONE, 0}, {1, 200003, CUZK_MSM_RANDOM, 1},
		{2, 1, CUZK_MSM_RANDOM, 1},      {2, 1, CUZK_MSM_ONE, 0},        {2, 7, CUZK_MSM_ZERO, 1},
		{2, 1000, CUZK_MSM_ONE, 1},      {2, 1000, CUZK_MSM_MINUS_ONE, 0}, {2, 5000, CUZK_MSM_WITNESS, 1},
		{2, 12345, CUZK_MSM_RANDOM, 0},  {2, 65536, CUZK_MSM_RANDOM, 1}, {2, 30001, CUZK_MSM_SMALL, 1},
	};
	static const struct msm_case large[] = {
		{1, ((size_t)1 << 24) + 1, CUZK_MSM_RANDOM, 1},
		{2, ((size_t)1 << 22) + 5, CUZK_MSM_WITNESS, 1},
		{1, ((size_t)1 << 23) + 3, CUZK_MSM_WITNESS, 0},   /* batched: c = 15 from its estimate, 16 dense */
	};
	int failed = run_cases(quick, sizeof quick / sizeof quick[0]);
	if (large_too)
		failed += run_cases(large, sizeof large / sizeof large[0]);
	printf("%d case(s) failed\n", failed);
	return failed ? 1 : 0;
}
