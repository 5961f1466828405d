// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The CPU and GPU backends as the CLI sees them (cli_backend.h). */
#include "cli/cli_backend.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "groth16/msm.h"
#include "groth16/ntt.h"
#include "groth16/prover.h"
#include "groth16/prover_gpu.h"

struct cli_backend_ctx {
	ntt_domain dom;            /* CPU: the last NTT domain, kept so repeated runs skip twiddles */
	int have_dom;
	groth16_gpu *gpu;          /* GPU: device 0 */
};

static int ctx_new(cli_backend_ctx **ret, cuzk_error *err)
{
	cli_backend_ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return cuzk_fail(err, CUZK_E_NOMEM, "backend context: out of memory");
	*ret = c;
	return 0;
}

static void ctx_free(cli_backend_ctx *c)
{
	if (!c)
		return;
	if (c->have_dom)
		ntt_domain_free(&c->dom);
	if (c->gpu)
		groth16_gpu_close(c->gpu);
	free(c);
}

static int cpu_prove(cli_backend_ctx *ctx, const groth16_params *p, const groth16_witness_view *w,
		     const fr_t *r, const fr_t *s, groth16_proof *out, groth16_timings *t, cuzk_error *err)
{
	return groth16_prove_cpu(p, w, r, s, out, t, err);
}

static int cpu_msm_g1(cli_backend_ctx *ctx, g1_jac_t *ret, const g1_aff_t *bases, const fr_t *scalars,
		      size_t n, cuzk_error *err)
{
	return msm_g1(ret, bases, scalars, n, 1, err);
}

static int cpu_msm_g2(cli_backend_ctx *ctx, g2_jac_t *ret, const g2_aff_t *bases, const fr_t *scalars,
		      size_t n, cuzk_error *err)
{
	return msm_g2(ret, bases, scalars, n, 1, err);
}

static int cpu_ntt(cli_backend_ctx *ctx, fr_t *v, unsigned log_m, cuzk_error *err)
{
	if (!ctx->have_dom || ctx->dom.log_m != log_m) {
		if (ctx->have_dom)
			ntt_domain_free(&ctx->dom);
		ctx->have_dom = 0;
		int r = ntt_domain_init(&ctx->dom, log_m, err);
		if (r < 0)
			return r;
		ctx->have_dom = 1;
	}
	ntt_forward(&ctx->dom, v);
	return 0;
}

static int gpu_open(cli_backend_ctx **ret, cuzk_error *err)
{
	cli_backend_ctx *c = NULL;
	int r = ctx_new(&c, err);
	if (r < 0)
		return r;
	r = groth16_gpu_open(&c->gpu, 0, 0, err);
	if (r < 0) {
		ctx_free(c);
		return cuzk_error_prefix(err, "--backend gpu");
	}
	*ret = c;
	return 0;
}

static int gpu_prove(cli_backend_ctx *ctx, const groth16_params *p, const groth16_witness_view *w,
		     const fr_t *r, const fr_t *s, groth16_proof *out, groth16_timings *t, cuzk_error *err)
{
	return groth16_gpu_prove(ctx->gpu, p, w, 0, r, s, out, t, err);
}

static int gpu_ntt(cli_backend_ctx *ctx, fr_t *v, unsigned log_m, cuzk_error *err)
{
	return groth16_gpu_ntt(ctx->gpu, v, log_m, 0, 1, NULL, err);
}

static int gpu_ntt_device(cli_backend_ctx *ctx, fr_t *v, unsigned log_m, int coset, int reps,
			  double *ret_ms, cuzk_error *err)
{
	return groth16_gpu_ntt(ctx->gpu, v, log_m, coset, reps, ret_ms, err);
}

static const struct cli_backend backends[] = {
	{ .name = "cpu", .open = ctx_new, .close = ctx_free, .prove = cpu_prove,
	  .msm_g1 = cpu_msm_g1, .msm_g2 = cpu_msm_g2, .ntt = cpu_ntt },
	{ .name = "gpu", .open = gpu_open, .close = ctx_free, .prove = gpu_prove,
	  .ntt = gpu_ntt, .ntt_device = gpu_ntt_device },
};

int cli_backend_find(const struct cli_backend **ret, const char *name, cuzk_error *err)
{
	if (!name)
		name = "cpu";
	/* As cuzkd's backend = auto: the GPU when a CUDA device is usable. */
	if (strcmp(name, "auto") == 0)
		name = groth16_gpu_device_count() > 0 ? "gpu" : "cpu";
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		if (strcmp(backends[i].name, name) == 0) {
			*ret = &backends[i];
			return 0;
		}
	}
	return cli_usage(err, "--backend '%s': expected auto, cpu or gpu", name);
}
