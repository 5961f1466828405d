// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The GPU NTT and h computation against the CPU's (src/prover/ntt.h), bit
 * for bit: every transform kind at sizes from 2^1 through three-pass sizes,
 * and h for constraint counts that are and are not powers of two, in
 * Montgomery and canonical form.  Without a CUDA device: SKIP (77).
 * $CUZK_NTT_IMPL (radix2 or radix8) picks the kernel under test.
 *
 *   test_gpu_ntt --large K    also every kind at 2^21..2^K (three passes of
 *                             the radix-8 kernel) and h at 2^K
 *   test_gpu_ntt --bench-h K  times h at 2^K (device time of its 6 NTTs and
 *                             the quotient, median of 5), no checks */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/check.h"
#include "cuzk_gpu.h"
#include "prover/fr_sample.h"
#include "prover/ntt.h"

static fr_t *random_vec(size_t n, rng_t *rng)
{
	fr_t *v = malloc(n * sizeof(fr_t));
	REQUIRE(v);
	for (size_t i = 0; i < n; i++)
		fr_sample_rng(&v[i], rng);
	return v;
}

static size_t first_diff(const fr_t *x, const fr_t *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (memcmp(&x[i], &y[i], sizeof(fr_t)))
			return i;
	return n;
}

static void check_ntt(cuzk_gpu_dev *dev, unsigned log_n, rng_t *rng)
{
	static const char *names[] = { "forward", "inverse", "coset forward", "coset inverse" };
	ntt_domain d;
	cuzk_error err;
	REQUIRE(ntt_domain_init(&d, log_n, &err) == 0);
	size_t n = (size_t)1 << log_n;
	for (int kind = CUZK_GPU_NTT_FORWARD; kind <= CUZK_GPU_NTT_COSET_INVERSE; kind++) {
		fr_t *cpu = random_vec(n, rng), *gpu = malloc(n * sizeof(fr_t));
		REQUIRE(gpu);
		memcpy(gpu, cpu, n * sizeof(fr_t));
		switch (kind) {
		case CUZK_GPU_NTT_FORWARD: ntt_forward(&d, cpu); break;
		case CUZK_GPU_NTT_INVERSE: ntt_inverse(&d, cpu); break;
		case CUZK_GPU_NTT_COSET_FORWARD: ntt_coset_forward(&d, cpu); break;
		default: ntt_coset_inverse(&d, cpu); break;
		}
		cuzk_error e = { 0 };
		int rc = cuzk_gpu_ntt(dev, gpu, log_n, kind, 1, NULL, &e);
		CHECK_MSG(rc == 0, "NTT 2^%u %s: %s", log_n, names[kind], e.msg);
		size_t at = first_diff(cpu, gpu, n);
		CHECK_MSG(rc || at == n, "NTT 2^%u %s differs from the CPU at %zu", log_n, names[kind], at);
		free(cpu);
		free(gpu);
	}
	ntt_domain_free(&d);
}

static void check_h(cuzk_gpu_dev *dev, size_t n, int montgomery, rng_t *rng)
{
	fr_t *abc[3];
	for (int i = 0; i < 3; i++) {
		abc[i] = random_vec(n, rng);
		if (!montgomery)   /* canonical limbs of random values are < r too */
			for (size_t j = 0; j < n; j++) {
				fr_t m = abc[i][j];
				fr_from_mont(abc[i][j].l, &m);
			}
	}
	unsigned log_m = ntt_log2_ceil(n);
	size_t m = (size_t)1 << log_m;
	fr_t *cpu = malloc((m - 1) * sizeof(fr_t)), *gpu = malloc((m - 1) * sizeof(fr_t));
	REQUIRE(cpu && gpu);
	memset(gpu, 0xa5, (m - 1) * sizeof(fr_t));   /* poison: every output must be written */
	cuzk_error err;
	REQUIRE(groth16_compute_h(cpu, abc[0], abc[1], abc[2], n, montgomery, &err) == 0);
	cuzk_error e = { 0 };
	int rc = cuzk_gpu_compute_h(dev, gpu, abc[0], abc[1], abc[2], n, montgomery, NULL, &e);
	CHECK_MSG(rc == 0, "h for n = %zu: %s", n, e.msg);
	size_t at = first_diff(cpu, gpu, m - 1);
	CHECK_MSG(rc || at == m - 1, "h for n = %zu (%s) differs from the CPU at %zu", n,
		  montgomery ? "Montgomery" : "canonical", at);
	for (int i = 0; i < 3; i++)
		free(abc[i]);
	free(cpu);
	free(gpu);
}

/* Uniform below 2^254 < r: valid elements, cheap to make in bulk. */
static fr_t *cheap_vec(size_t n, rng_t *rng)
{
	fr_t *v = malloc(n * sizeof(fr_t));
	REQUIRE(v);
	for (size_t i = 0; i < n; i++) {
		for (int j = 0; j < 4; j++)
			v[i].l[j] = rng_next(rng);
		v[i].l[3] >>= 2;
	}
	return v;
}

static int bench_h(cuzk_gpu_dev *dev, unsigned log_n, rng_t *rng)
{
	const size_t n = (size_t)1 << log_n;
	fr_t *abc[3], *h = malloc(n * sizeof(fr_t));
	REQUIRE(h);
	for (int i = 0; i < 3; i++)
		abc[i] = cheap_vec(n, rng);
	double ms[5];
	cuzk_error e = { 0 };
	for (int r = 0; r < 5; r++) {
		int rc = cuzk_gpu_compute_h(dev, h, abc[0], abc[1], abc[2], n, 1, &ms[r], &e);
		if (rc) {
			fprintf(stderr, "h at 2^%u: %s\n", log_n, e.msg);
			return 1;
		}
	}
	for (int i = 1; i < 5; i++)   /* insertion sort for the median */
		for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
			double t = ms[j];
			ms[j] = ms[j - 1];
			ms[j - 1] = t;
		}
	const char *impl = getenv("CUZK_NTT_IMPL");
	printf("h (6 NTTs) 2^%u, %s kernel: %.2f ms (median of 5; min %.2f, max %.2f)\n", log_n,
	       impl ? impl : "default", ms[2], ms[0], ms[4]);
	for (int i = 0; i < 3; i++)
		free(abc[i]);
	free(h);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned large = 0, bench = 0;
	if (argc == 3 && !strcmp(argv[1], "--large"))
		large = (unsigned)atoi(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "--bench-h"))
		bench = (unsigned)atoi(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [--large K | --bench-h K]\n", argv[0]);
		return 2;
	}
	if ((large && (large < 21 || large > 28)) || (bench && (bench < 1 || bench > 28))) {
		fprintf(stderr, "%s: K must be 21..28 (--large) or 1..28 (--bench-h)\n", argv[0]);
		return 2;
	}
	if (cuzk_gpu_device_count() <= 0)
		CHECK_SKIP("no CUDA device");
	cuzk_error e = { 0 };
	cuzk_gpu_dev *dev;
	int rc = cuzk_gpu_open(&dev, 0, 0, &e);
	if (rc) {
		fprintf(stderr, "cuzk_gpu_open: %s\n", e.msg);
		return 1;
	}
	rng_t rng;
	rng_seed(&rng, 20261129);
	if (bench) {
		rc = bench_h(dev, bench, &rng);
		cuzk_gpu_close(dev);
		return rc;
	}
	/* 1..9: one pass; 10..18: two; 19, 20: three. */
	static const unsigned sizes[] = { 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 14, 16, 17, 18, 19, 20 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		check_ntt(dev, sizes[i], &rng);
	static const size_t hsizes[] = { 2, 3, 5, 64, 1000, 4097, 65536, 100003, 262144 };
	for (size_t i = 0; i < sizeof(hsizes) / sizeof(hsizes[0]); i++)
		check_h(dev, hsizes[i], (int)(i & 1), &rng);
	for (unsigned k = 21; large && k <= large; k++)
		check_ntt(dev, k, &rng);
	if (large)
		check_h(dev, ((size_t)1 << large) - 3, 1, &rng);
	/* A request the budget can never hold fails cleanly with CUZK_E_VRAM. */
	cuzk_gpu_dev *small;
	rc = cuzk_gpu_open(&small, 0, (size_t)64 << 20, &e);
	REQUIRE(rc == 0);
	fr_t *big = calloc((size_t)1 << 21, sizeof(fr_t));
	REQUIRE(big);
	rc = cuzk_gpu_ntt(small, big, 21, CUZK_GPU_NTT_FORWARD, 1, NULL, &e);
	CHECK_MSG(rc == -CUZK_E_VRAM, "a 128 MiB NTT in a 64 MiB budget returned %d (%s)", rc, e.msg);
	free(big);
	cuzk_gpu_close(small);
	cuzk_gpu_close(dev);
	CHECK_DONE();
}
