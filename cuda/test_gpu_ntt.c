// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The GPU NTT and h computation against the CPU's (src/groth16/ntt.h), bit
 * for bit: every transform kind at sizes from 2^1 through three-pass sizes,
 * and h for constraint counts that are and are not powers of two, in
 * Montgomery and canonical form.  Without a CUDA device: SKIP (77). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk_gpu.h"
#include "groth16/fr_sample.h"
#include "groth16/ntt.h"
#include "../tests/check.h"

static fr_t *random_vec(size_t n, cuzk_rng *rng)
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

static void check_ntt(cuzk_gpu_dev *dev, unsigned log_n, cuzk_rng *rng)
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
		char msg[512];
		int rc = cuzk_gpu_ntt(dev, gpu, log_n, kind, 1, NULL, msg, sizeof msg);
		CHECK_MSG(rc == 0, "NTT 2^%u %s: %s", log_n, names[kind], msg);
		size_t at = first_diff(cpu, gpu, n);
		CHECK_MSG(rc || at == n, "NTT 2^%u %s differs from the CPU at %zu", log_n, names[kind], at);
		free(cpu);
		free(gpu);
	}
	ntt_domain_free(&d);
}

static void check_h(cuzk_gpu_dev *dev, size_t n, int montgomery, cuzk_rng *rng)
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
	char msg[512];
	int rc = cuzk_gpu_compute_h(dev, gpu, abc[0], abc[1], abc[2], n, montgomery, NULL, msg, sizeof msg);
	CHECK_MSG(rc == 0, "h for n = %zu: %s", n, msg);
	size_t at = first_diff(cpu, gpu, m - 1);
	CHECK_MSG(rc || at == m - 1, "h for n = %zu (%s) differs from the CPU at %zu", n,
		  montgomery ? "Montgomery" : "canonical", at);
	for (int i = 0; i < 3; i++)
		free(abc[i]);
	free(cpu);
	free(gpu);
}

int main(void)
{
	if (cuzk_gpu_device_count() <= 0)
		CHECK_SKIP("no CUDA device");
	char msg[512];
	cuzk_gpu_dev *dev;
	int rc = cuzk_gpu_open(&dev, 0, 0, msg, sizeof msg);
	if (rc) {
		fprintf(stderr, "cuzk_gpu_open: %s\n", msg);
		return 1;
	}
	cuzk_rng rng;
	cuzk_rng_seed(&rng, 20261129);
	/* 1..9: one pass; 10..18: two; 19, 20: three. */
	static const unsigned sizes[] = { 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 14, 16, 17, 18, 19, 20 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		check_ntt(dev, sizes[i], &rng);
	static const size_t hsizes[] = { 2, 3, 5, 64, 1000, 4097, 65536, 100003, 262144 };
	for (size_t i = 0; i < sizeof(hsizes) / sizeof(hsizes[0]); i++)
		check_h(dev, hsizes[i], (int)(i & 1), &rng);
	/* A request the budget can never hold fails cleanly with CUZK_E_VRAM. */
	cuzk_gpu_dev *small;
	rc = cuzk_gpu_open(&small, 0, (size_t)64 << 20, msg, sizeof msg);
	REQUIRE(rc == 0);
	fr_t *big = calloc((size_t)1 << 21, sizeof(fr_t));
	REQUIRE(big);
	rc = cuzk_gpu_ntt(small, big, 21, CUZK_GPU_NTT_FORWARD, 1, NULL, msg, sizeof msg);
	CHECK_MSG(rc == -CUZK_GPU_E_VRAM, "a 128 MiB NTT in a 64 MiB budget returned %d (%s)", rc, msg);
	free(big);
	cuzk_gpu_close(small);
	cuzk_gpu_close(dev);
	CHECK_DONE();
}
