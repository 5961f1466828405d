// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The GPU engine of the development setup (setup_gpu.h). */
#include "prover/setup_gpu.h"

#include <stdlib.h>

#include "cuzk_gpu.h"
#include "prover/fixed_base.h"

/* 14-bit windows: 19 additions a product; the tables are 19·2^13 points,
 * 15 MiB (G1) and 30 MiB (G2), which stay in the H200's 50 MiB of L2. */
#define GPU_SETUP_WINDOW_BITS 14

struct groth16_gpu_setup {
	groth16_setup_engine engine;
	cuzk_gpu_fixed_base *fb[2];   /* G1, G2 */
	int device;
};

struct emit_ctx {
	const groth16_point_sink *sink;
	cuzk_error *err;
	int rc;
};

static int emit_points(void *ctx, const void *points, size_t n)
{
	struct emit_ctx *c = ctx;
	c->rc = c->sink->emit(c->sink->ctx, points, n, c->err);
	return c->rc;
}

static int gpu_mul(void *self, int g2, const fr_t *k, size_t n, const groth16_point_sink *sink, cuzk_error *err)
{
	groth16_gpu_setup *s = self;
	struct emit_ctx ctx = { sink, err, 0 };
	cuzk_error e = { 0 };   /* not err: a failed sink has written its reason there */
	int rc = cuzk_gpu_fixed_base_mul(s->fb[g2 != 0], k, n, 1, sink->direct, sink->direct ? NULL : emit_points,
					 &ctx, &e);
	if (rc == 0)
		return 0;
	if (ctx.rc)   /* the sink failed and said why */
		return ctx.rc;
	return err_fail(err, -rc, "GPU %d: setup: %s", s->device, e.msg);
}

int groth16_gpu_setup_open(groth16_gpu_setup **ret, cuzk_gpu_dev *dev, int device, cuzk_error *err)
{
	*ret = NULL;
	groth16_gpu_setup *s = calloc(1, sizeof(*s));
	if (!s)
		return err_fail(err, CUZK_E_NOMEM, "GPU setup: out of memory");
	s->device = device;
	s->engine = (groth16_setup_engine){ "gpu", gpu_mul, s };
	const curve_ops *ops[2] = { &CURVE_G1, &CURVE_G2 };
	const void *gens[2] = { &G1_GENERATOR, &G2_GENERATOR };
	int rc = 0;
	for (int g = 0; g < 2 && rc == 0; g++) {
		fixed_base fb;
		if ((rc = fixed_base_init(&fb, ops[g], gens[g], GPU_SETUP_WINDOW_BITS, err)) < 0)
			break;
		rc = cuzk_gpu_fixed_base_open(dev, &s->fb[g], g, fb.table, GPU_SETUP_WINDOW_BITS, err);
		fixed_base_free(&fb);
		if (rc && err)
			err_prefix(err, "GPU %d: setup tables", s->device);
	}
	if (rc) {
		groth16_gpu_setup_close(s);
		return rc;
	}
	*ret = s;
	return 0;
}

void groth16_gpu_setup_close(groth16_gpu_setup *s)
{
	if (!s)
		return;
	cuzk_gpu_fixed_base_close(s->fb[0]);
	cuzk_gpu_fixed_base_close(s->fb[1]);
	free(s);
}

const groth16_setup_engine *groth16_gpu_setup_engine(const groth16_gpu_setup *s)
{
	return &s->engine;
}
