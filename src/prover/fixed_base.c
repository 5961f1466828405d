// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "prover/fixed_base.h"

#include <stdlib.h>
#include <string.h>

#include "common/parallel.h"
#include "prover/msm_affine.h"
#include "prover/scalar_digits.h"

/* Products computed together: one inversion per window shared by this many. */
#define FIXED_BASE_BATCH 256

int fixed_base_init(fixed_base *fb, const curve_ops *ops, const void *base, unsigned c,
		    cuzk_error *err)
{
	memset(fb, 0, sizeof(*fb));
	if (c < 2 || c > 16)
		return err_fail(err, CUZK_E_INVAL, "fixed-base window of %u bits", c);
	fb->ops = ops;
	fb->c = c;
	fb->nwin = sd_num_windows(c);
	fb->per_win = (size_t)1 << (c - 1);
	size_t n = fb->nwin * fb->per_win, js = ops->jac_size;
	unsigned char *jac = malloc(n * js);
	fb->table = malloc(n * ops->aff_size);
	if (!jac || !fb->table) {
		free(jac);
		fixed_base_free(fb);
		return err_fail(err, CUZK_E_NOMEM, "%s fixed-base table of %zu points", ops->name, n);
	}
	any_jac_t pw, tmp;    /* pw = 2^(w·c)·P */
	ops->from_aff(&pw, base);
	for (unsigned w = 0; w < fb->nwin; w++) {
		unsigned char *row = jac + (size_t)w * fb->per_win * js;
		memcpy(row, &pw, js);
		for (size_t d = 1; d < fb->per_win; d++)
			ops->add(row + d * js, row + (d - 1) * js, &pw);
		for (unsigned i = 0; i < c; i++) {
			ops->dbl(&tmp, &pw);
			pw = tmp;
		}
	}
	ops->batch_to_aff(fb->table, jac, n);
	free(jac);
	return 0;
}

void fixed_base_free(fixed_base *fb)
{
	free(fb->table);
	fb->table = NULL;
}

struct mul_ctx {
	const fixed_base *fb;
	unsigned char *out;
	const fr_t *k;
};

/* acc += e when acc and e share x (acc = ±e): the complete Jacobian
 * formula, then back to affine; the identity is all-zero.  Rare. */
static void add_same_x(const curve_ops *ops, unsigned char *acc, const void *e,
		       unsigned char *filled)
{
	any_jac_t j, sum;
	ops->from_aff(&j, acc);
	ops->add_aff(&sum, &j, e);
	if (ops->is_inf(&sum)) {
		memset(acc, 0, ops->aff_size);
		*filled = 0;
		return;
	}
	ops->batch_to_aff(acc, &sum, 1);
}

/* out[i] for i in [begin, end), FIXED_BASE_BATCH at a time: window by
 * window, every product of the batch adds its table entry in affine
 * coordinates with one shared inversion (msm_affine_add_batch). */
static void mul_range(void *p, size_t begin, size_t end, unsigned t)
{
	(void)t;
	struct mul_ctx *ctx = p;
	const fixed_base *fb = ctx->fb;
	const curve_ops *ops = fb->ops;
	size_t as = ops->aff_size;
	uint64_t off[4], kp[FIXED_BASE_BATCH][4];
	unsigned char filled[FIXED_BASE_BATCH];
	uint32_t idx[FIXED_BASE_BATCH];
	any_aff_t pt[FIXED_BASE_BATCH];
	fp2_t scratch[FIXED_BASE_BATCH];
	unsigned char *pts = (unsigned char *)pt;
	sd_offset(off, fb->c);
	for (size_t i = begin; i < end; i += FIXED_BASE_BATCH) {
		size_t len = end - i < FIXED_BASE_BATCH ? end - i : FIXED_BASE_BATCH;
		unsigned char *acc = ctx->out + i * as;
		for (size_t j = 0; j < len; j++) {
			fr_from_mont(kp[j], &ctx->k[i + j]);
			sd_recode(kp[j], kp[j], off);
		}
		memset(acc, 0, len * as);
		memset(filled, 0, sizeof(filled));
		for (unsigned w = 0; w < fb->nwin; w++) {
			size_t n = 0;
			for (size_t j = 0; j < len; j++) {
				int d = sd_digit(kp[j], w, fb->c, fb->nwin);
				if (d == 0)
					continue;
				const unsigned char *e =
					fb->table + ((size_t)w * fb->per_win + (size_t)(d < 0 ? -d : d) - 1) * as;
				unsigned char *slot = pts + n * as;
				if (d < 0)
					ops->aff_neg(slot, e);
				else
					memcpy(slot, e, as);
				unsigned char *a = acc + j * as;
				if (!filled[j]) {
					memcpy(a, slot, as);
					filled[j] = 1;
				} else if (memcmp(a, slot, as / 2) == 0) {
					add_same_x(ops, a, slot, &filled[j]);   /* x is the first half */
				} else {
					idx[n++] = (uint32_t)j;
				}
			}
			msm_affine_add_batch(ops, acc, idx, pts, n, scratch);
		}
	}
	explicit_bzero(kp, sizeof(kp));
}

void fixed_base_mul_many(const fixed_base *fb, void *out, const fr_t *k, size_t n)
{
	struct mul_ctx ctx = { fb, out, k };
	parallel_for(n, FIXED_BASE_BATCH, 0, mul_range, &ctx);
}
