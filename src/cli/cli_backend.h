// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The proving backends the CLI can use (`--backend cpu|gpu`), behind one
 * small interface shared by `cuzk prove` and `cuzk bench` (`--backend auto`
 * picks one).  A backend that
 * does not offer an operation leaves its pointer NULL; bench reports that
 * instead of measuring.  The GPU work extends the gpu entry (cli_backend.c). */
#ifndef CUZK_CLI_CLI_BACKEND_H
#define CUZK_CLI_CLI_BACKEND_H

#include <stddef.h>

#include "bls12_381/fr.h"
#include "bls12_381/g1.h"
#include "bls12_381/g2.h"
#include "common/error.h"
#include "groth16/types.h"

typedef struct cli_backend_ctx cli_backend_ctx;

struct cli_backend {
	const char *name;
	/* Opens what the backend needs (a device); -CUZK_E_UNSUPPORTED with a
	 * message when it is not built or has no device. */
	int (*open)(cli_backend_ctx **ret, cuzk_error *err);
	void (*close)(cli_backend_ctx *ctx);
	int (*prove)(cli_backend_ctx *ctx, const groth16_params *p, const groth16_witness_view *w,
		     const fr_t *r, const fr_t *s, groth16_proof *out, groth16_timings *t, cuzk_error *err);
	/* sum k_i·P_i over n points, Montgomery scalars. */
	int (*msm_g1)(cli_backend_ctx *ctx, g1_jac_t *ret, const g1_aff_t *bases, const fr_t *scalars,
		      size_t n, cuzk_error *err);
	int (*msm_g2)(cli_backend_ctx *ctx, g2_jac_t *ret, const g2_aff_t *bases, const fr_t *scalars,
		      size_t n, cuzk_error *err);
	/* Forward NTT of 2^log_m Montgomery scalars, in place. */
	int (*ntt)(cli_backend_ctx *ctx, fr_t *v, unsigned log_m, cuzk_error *err);
	/* Optional (GPU): the forward NTT (coset != 0: coset forward) repeated
	 * `reps` times on device-resident data; *ret_ms = median device time. */
	int (*ntt_device)(cli_backend_ctx *ctx, fr_t *v, unsigned log_m, int coset, int reps,
			  double *ret_ms, cuzk_error *err);
};

/* The backend called name ("cpu", "gpu", or "auto": the GPU when a CUDA
 * device is usable, else the CPU); NULL name means "cpu".
 * CLI_E_USAGE naming the unknown backend. */
int cli_backend_find(const struct cli_backend **ret, const char *name, cuzk_error *err);

#endif
