// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The engines that make a development setup's fixed-base products
 * (devtools/setup.h): a backend hands out its device's (backend.h,
 * setup_engine), so the interface lives with the backends, not with the
 * setup that drives it. */
#ifndef CUZK_PROVER_SETUP_ENGINE_H
#define CUZK_PROVER_SETUP_ENGINE_H

#include <stddef.h>

#include "bls12_381/fr.h"
#include "common/error.h"

/* Where a run of products goes: straight into memory (direct != NULL: the
 * n points of the call), or handed over in order, in runs, to emit. */
typedef struct groth16_point_sink {
	void *direct;
	int (*emit)(void *ctx, const void *points, size_t n, cuzk_error *err);
	void *ctx;
} groth16_point_sink;

/* What makes the fixed-base products k_i·G of a setup: the CPU's tables
 * (the default) or a GPU (setup_gpu.h).  mul computes k[i]·G for i < n,
 * G the G1 generator (g2 = 0) or the G2 one, k in Montgomery form, as
 * affine points in the host layout (infinity all-zero).  Every engine
 * writes the same points (an affine point has one representation), so the
 * parameters do not depend on the engine. */
typedef struct groth16_setup_engine {
	const char *name;
	int (*mul)(void *self, int g2, const fr_t *k, size_t n, const groth16_point_sink *sink,
		   cuzk_error *err);
	void *self;
} groth16_setup_engine;

#endif
