// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The parameter-file writer alone (groth16_params_writer), without the
 * setup's products: a parameters file is read into memory, then written
 * again and again through the writer, in runs of RUN points as an engine
 * hands them over (the GPU's 2^22 G1 / 2^21 G2, the CPU engine's 2^16).
 * Prints each round's wall and CPU time (user + system, every thread).
 * The output file (a regular one) is removed and the page cache written
 * back (sync) before each round, so that no round pays for the last one's
 * dirty pages; OUT may be /dev/null, to time the encoding alone.
 *
 *   bench_params_write IN.params OUT.params [ROUNDS [RUN]]   (RUN default 2^22) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "formats/params_io.h"

static double cpu_seconds(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* p's points to the writer, section by section, in runs of at most run. */
static int write_in_runs(const groth16_params *p, const char *path, size_t run, cuzk_error *err)
{
	size_t counts[GROTH16_PARAMS_SECTIONS] = { p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2 };
	const void *arrays[GROTH16_PARAMS_SECTIONS] = { p->h, p->l, p->a, p->b_g1, p->b_g2 };
	groth16_params_writer w;
	int rc = groth16_params_writer_open(&w, path, &p->vk, counts, err);
	if (rc < 0)
		return rc;
	for (int q = 0; q < GROTH16_PARAMS_SECTIONS && rc == 0; q++) {
		size_t size = q == GROTH16_PARAMS_SECTIONS - 1 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
		for (size_t i = 0; i < counts[q] && rc == 0; i += run) {
			size_t n = counts[q] - i < run ? counts[q] - i : run;
			rc = groth16_params_writer_put(&w, (const char *)arrays[q] + i * size, n, err);
		}
	}
	int rc2 = groth16_params_writer_close(&w, rc < 0 ? NULL : err);
	return rc < 0 ? rc : rc2;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: %s IN.params OUT.params [ROUNDS [RUN]]\n", argv[0]);
		return 2;
	}
	int rounds = argc > 3 ? atoi(argv[3]) : 3;
	size_t run = argc > 4 ? strtoull(argv[4], NULL, 0) : (size_t)1 << 22;
	if (rounds < 1 || run < 1) {
		fprintf(stderr, "%s: ROUNDS and RUN must be at least 1\n", argv[0]);
		return 2;
	}
	groth16_params p;
	cuzk_error err;
	if (groth16_params_read(&p, argv[1], BLS_CHECK_NONE, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	size_t bytes = groth16_vk_encoded_size(p.vk.n_ic) + 20 +
		       (p.n_h + p.n_l + p.n_a + p.n_b_g1) * G1_UNCOMPRESSED_SIZE + p.n_b_g2 * G2_UNCOMPRESSED_SIZE;
	int rc = 0;
	for (int r = 0; r < rounds && rc == 0; r++) {
		/* Only a regular file: OUT may be /dev/null, to time the encoding
		 * alone. */
		struct stat st;
		if (lstat(argv[2], &st) == 0 && S_ISREG(st.st_mode) && unlink(argv[2]) < 0)
			perror(argv[2]);
		sync();
		double t0 = monotonic_ms(), c0 = cpu_seconds();
		rc = write_in_runs(&p, argv[2], run, &err);
		double ms = monotonic_ms() - t0, cpu = cpu_seconds() - c0;
		if (rc < 0)
			fprintf(stderr, "%s\n", err.msg);
		else
			printf("round %d: %zu bytes in runs of %zu: wall %.1f ms (%.2f GB/s), cpu %.1f ms\n", r, bytes,
			       run, ms, (double)bytes / ms / 1e6, cpu * 1e3);
	}
	groth16_params_free(&p);
	return rc < 0 ? 1 : 0;
}
