// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The GPU development setup writes the CPU setup's parameters, byte for
 * byte: for generator circuits of both shapes at small sizes, in memory
 * (the points straight into the arrays) and streamed into a file (the
 * points handed over run by run), and with a VRAM budget so small that the
 * products run in many small runs.  Without a CUDA device: SKIP (77).
 *
 *   cuda/test_gpu_setup [MAX_LOG]    (default 14; tests/gpu/run.sh passes more) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devtools/gencircuit.h"
#include "devtools/setup.h"
#include "formats/params_io.h"
#include "prover/backend.h"
#include "tests/test_files.h"

static int same_params(const groth16_params *a, const groth16_params *b)
{
	return a->storage_len == b->storage_len && memcmp(a->storage, b->storage, a->storage_len) == 0 &&
	       memcmp(&a->vk.alpha_g1, &b->vk.alpha_g1, sizeof(g1_aff_t)) == 0 &&
	       memcmp(&a->vk.delta_g2, &b->vk.delta_g2, sizeof(g2_aff_t)) == 0;
}

static void check(groth16_device *gpu, unsigned k, enum gencircuit_shape shape)
{
	gencircuit_spec spec = { k, gencircuit_default_inputs(shape), 100 + k, shape };
	if (gencircuit_check_spec(&spec, NULL) < 0)
		spec.num_inputs = 2;
	groth16_row_source rows;
	gencircuit_rows(&spec, &rows);
	cuzk_error err;
	const groth16_setup_engine *engine;
	REQUIRE(groth16_backend_gpu.setup_engine(gpu, &engine, &err) == 0);
	groth16_setup_opts gpu_opts = { .engine = engine };

	groth16_params cpu, dev;
	REQUIRE(groth16_dev_setup_rows(&cpu, NULL, &rows, 7, NULL, &err) == 0);
	int rc = groth16_dev_setup_rows(&dev, NULL, &rows, 7, &gpu_opts, &err);
	CHECK_MSG(rc == 0, "%s 2^%u: GPU setup: %s", gencircuit_shape_name(shape), k, err.msg);
	if (rc == 0) {
		CHECK_MSG(same_params(&cpu, &dev), "%s 2^%u: GPU parameters differ from the CPU's",
			  gencircuit_shape_name(shape), k);
		groth16_params_free(&dev);
	}

	char cpu_path[256], gpu_path[256];
	test_temp_file(cpu_path, sizeof(cpu_path), "setup-cpu");
	test_temp_file(gpu_path, sizeof(gpu_path), "setup-gpu");
	REQUIRE(groth16_params_write(&cpu, cpu_path, &err) == 0);
	rc = groth16_dev_setup_rows_write(gpu_path, &rows, 7, &gpu_opts, NULL, &err);
	CHECK_MSG(rc == 0, "%s 2^%u: GPU setup to a file: %s", gencircuit_shape_name(shape), k, err.msg);
	CHECK_MSG(rc || test_same_files(cpu_path, gpu_path), "%s 2^%u: the GPU's parameter file differs",
		  gencircuit_shape_name(shape), k);
	printf("%s 2^%u: %zu + %zu + %zu + %zu G1 and %zu G2 points: GPU == CPU\n", gencircuit_shape_name(shape), k,
	       cpu.n_h, cpu.n_l, cpu.n_a, cpu.n_b_g1, cpu.n_b_g2);
	unlink(cpu_path);
	unlink(gpu_path);
	groth16_params_free(&cpu);
}

int main(int argc, char **argv)
{
	const struct groth16_backend *be = &groth16_backend_gpu;
	unsigned max_log = argc > 1 ? (unsigned)atoi(argv[1]) : 14;
	if (be->device_count() == 0) {
		printf("SKIP: no CUDA device\n");
		return 77;
	}
	groth16_device *gpu;
	cuzk_error err;
	REQUIRE(be->open(&gpu, 0, 0, &err) == 0);
	for (unsigned k = 10; k <= max_log; k += 2) {
		check(gpu, k, GENCIRCUIT_SHAPE_BASIC);
		check(gpu, k, GENCIRCUIT_SHAPE_POREP);
	}
	be->close(gpu);

	/* A budget that holds the NTT tables (~17 MiB), the setup's tables
	 * (45 MiB) and little else: runs of 8192 or 16384 points, several per
	 * query at 2^16. */
	REQUIRE(be->open(&gpu, 0, (size_t)80 << 20, &err) == 0);
	check(gpu, 16, GENCIRCUIT_SHAPE_POREP);
	be->close(gpu);
	CHECK_DONE();
}
