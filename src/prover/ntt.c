// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "prover/ntt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/parallel.h"
#include "prover/scalar_digits.h"

/* Stages whose butterflies stay inside a block of 2^NTT_BLOCK_LOG elements
 * (128 KiB of scalars: L2-sized) run block by block, each block through all
 * of them while it is in cache; later stages run one pass over the whole
 * vector per stage, the butterflies of a stage split among threads. */
#define NTT_BLOCK_LOG 12
/* Below this many elements per thread a parallel pass costs more than it saves. */
#define NTT_MIN_CHUNK 4096

static size_t bit_reverse(size_t x, unsigned bits)
{
	uint64_t v = x;
	v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
	v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
	v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
	v = __builtin_bswap64(v);
	return (size_t)(v >> (64 - bits));
}

struct powers_ctx {
	fr_t *out;
	const fr_t *q;
};

/* out[i] = q^i */
static void powers_range(void *p, size_t begin, size_t end, unsigned t)
{
	(void)t;
	struct powers_ctx *ctx = p;
	fr_t x;
	fr_pow_u64(&x, ctx->q, begin);
	for (size_t i = begin; i < end; i++) {
		ctx->out[i] = x;
		fr_mul(&x, &x, ctx->q);
	}
}

unsigned ntt_log2_ceil(size_t n)
{
	unsigned k = 0;
	while (k < 8 * sizeof(size_t) - 1 && ((size_t)1 << k) < n)
		k++;
	return k;
}

int ntt_domain_init(ntt_domain *d, unsigned log_m, cuzk_error *err)
{
	memset(d, 0, sizeof(*d));
	if (log_m > NTT_MAX_LOG)
		return err_fail(err, CUZK_E_INVAL, "NTT domain 2^%u is larger than 2^%u", log_m,
				NTT_MAX_LOG);
	d->log_m = log_m;
	d->m = (size_t)1 << log_m;
	fr_root_of_unity(&d->omega, log_m);
	fr_inv(&d->omega_inv, &d->omega);
	fr_t m_fr;
	fr_from_u64(&m_fr, d->m);
	fr_inv(&d->m_inv, &m_fr);
	fr_from_u64(&d->g, FR_GENERATOR);
	fr_inv(&d->g_inv, &d->g);
	if (d->m == 1)
		return 0;
	size_t half = d->m / 2;
	d->tw = malloc(half * sizeof(fr_t));
	d->tw_inv = malloc(half * sizeof(fr_t));
	if (!d->tw || !d->tw_inv) {
		ntt_domain_free(d);
		return err_fail(err, CUZK_E_NOMEM, "NTT domain 2^%u: no memory for twiddles", log_m);
	}
	struct powers_ctx fwd = { d->tw, &d->omega }, inv = { d->tw_inv, &d->omega_inv };
	parallel_for(half, NTT_MIN_CHUNK, 0, powers_range, &fwd);
	parallel_for(half, NTT_MIN_CHUNK, 0, powers_range, &inv);
	return 0;
}

void ntt_domain_free(ntt_domain *d)
{
	free(d->tw);
	free(d->tw_inv);
	d->tw = d->tw_inv = NULL;
}

struct pass_ctx {
	fr_t *v;
	const fr_t *tw;          /* ω^i or ω^-i, i < m/2 */
	size_t m;
	unsigned log_m;
	size_t half;             /* butterfly span of the stage (global passes) */
	unsigned block_log;      /* blocked passes: stages up to 2^block_log */
};

static void bitrev_range(void *p, size_t begin, size_t end, unsigned t)
{
	(void)t;
	struct pass_ctx *ctx = p;
	for (size_t i = begin; i < end; i++) {
		size_t j = bit_reverse(i, ctx->log_m);
		if (i < j) {
			fr_t tmp = ctx->v[i];
			ctx->v[i] = ctx->v[j];
			ctx->v[j] = tmp;
		}
	}
}

/* Cooley-Tukey butterflies of the stage of span `half` for the butterflies
 * numbered [b0, b1): butterfly b pairs v[k+j] and v[k+j+half], with
 * k = (b / half)·2·half, j = b % half, twiddle ω^(j·m/(2·half)). */
static void butterflies(fr_t *v, const fr_t *tw, size_t m, size_t half, size_t b0, size_t b1)
{
	size_t stride = m / (2 * half);
	size_t j = b0 % half;
	fr_t *lo = v + (b0 / half) * 2 * half + j;
	for (size_t b = b0; b < b1; b++) {
		fr_t t;
		fr_mul(&t, &lo[half], &tw[j * stride]);
		fr_sub(&lo[half], &lo[0], &t);
		fr_add(&lo[0], &lo[0], &t);
		lo++;
		if (++j == half) {
			j = 0;
			lo += half;
		}
	}
}

static void global_pass_range(void *p, size_t begin, size_t end, unsigned t)
{
	(void)t;
	struct pass_ctx *ctx = p;
	butterflies(ctx->v, ctx->tw, ctx->m, ctx->half, begin, end);
}

/* Blocks [begin, end) of 2^block_log elements through every stage of span
 * < 2^block_log. */
static void blocked_pass_range(void *p, size_t begin, size_t end, unsigned t)
{
	(void)t;
	struct pass_ctx *ctx = p;
	size_t bsize = (size_t)1 << ctx->block_log;
	for (size_t blk = begin; blk < end; blk++) {
		fr_t *v = ctx->v + blk * bsize;
		for (size_t half = 1; half < bsize; half *= 2)
			butterflies(v, ctx->tw, ctx->m, half, 0, bsize / 2);
	}
}

/* Natural order in and out, no 1/m scaling. */
static void ntt_core(const ntt_domain *d, fr_t *v, const fr_t *tw)
{
	if (d->m == 1)
		return;
	struct pass_ctx ctx = { v, tw, d->m, d->log_m, 0, 0 };
	parallel_for(d->m, NTT_MIN_CHUNK, 0, bitrev_range, &ctx);
	ctx.block_log = d->log_m < NTT_BLOCK_LOG ? d->log_m : NTT_BLOCK_LOG;
	size_t nblocks = d->m >> ctx.block_log;
	parallel_for(nblocks, 1, 0, blocked_pass_range, &ctx);
	for (ctx.half = (size_t)1 << ctx.block_log; ctx.half < d->m; ctx.half *= 2)
		parallel_for(d->m / 2, NTT_MIN_CHUNK / 2, 0, global_pass_range, &ctx);
}

struct scale_ctx {
	fr_t *v;
	const fr_t *c, *q;
};

static void scale_range(void *p, size_t begin, size_t end, unsigned t)
{
	(void)t;
	struct scale_ctx *ctx = p;
	fr_t x;
	fr_pow_u64(&x, ctx->q, begin);
	fr_mul(&x, &x, ctx->c);
	for (size_t i = begin; i < end; i++) {
		fr_mul(&ctx->v[i], &ctx->v[i], &x);
		fr_mul(&x, &x, ctx->q);
	}
}

void ntt_scale_by_powers(fr_t *v, size_t n, const fr_t *c, const fr_t *q)
{
	struct scale_ctx ctx = { v, c, q };
	parallel_for(n, NTT_MIN_CHUNK, 0, scale_range, &ctx);
}

void ntt_forward(const ntt_domain *d, fr_t *v)
{
	ntt_core(d, v, d->tw);
}

void ntt_inverse(const ntt_domain *d, fr_t *v)
{
	ntt_core(d, v, d->tw_inv);
	ntt_scale_by_powers(v, d->m, &d->m_inv, &FR_ONE);
}

void ntt_coset_forward(const ntt_domain *d, fr_t *v)
{
	ntt_scale_by_powers(v, d->m, &FR_ONE, &d->g);
	ntt_core(d, v, d->tw);
}

void ntt_coset_inverse(const ntt_domain *d, fr_t *v)
{
	/* 1/m folded into the g^-i pass: one sweep instead of two. */
	ntt_core(d, v, d->tw_inv);
	ntt_scale_by_powers(v, d->m, &d->m_inv, &d->g_inv);
}

/* ---- h = (A·B - C)/Z ---- */

struct load_ctx {
	fr_t *dst;
	const fr_t *src;
	int montgomery;
	size_t *first_bad;    /* per thread; SIZE_MAX when all are < r */
};

static void load_range(void *p, size_t begin, size_t end, unsigned t)
{
	struct load_ctx *ctx = p;
	size_t bad = SIZE_MAX;
	for (size_t i = begin; i < end; i++) {
		if (!sd_below_modulus(ctx->src[i].l)) {
			if (bad == SIZE_MAX)
				bad = i;
			ctx->dst[i] = FR_ZERO;
		} else if (ctx->montgomery) {
			ctx->dst[i] = ctx->src[i];
		} else {
			fr_to_mont(&ctx->dst[i], ctx->src[i].l);
		}
	}
	ctx->first_bad[t] = bad;
}

/* dst[0..m) = src[0..n) in Montgomery form, zero-padded. */
static int load_padded(fr_t *dst, size_t m, const fr_t *src, size_t n, int montgomery,
		       const char *name, cuzk_error *err)
{
	unsigned nt = parallel_nthreads();
	size_t first_bad[nt];
	for (unsigned t = 0; t < nt; t++)
		first_bad[t] = SIZE_MAX;
	struct load_ctx ctx = { dst, src, montgomery, first_bad };
	parallel_for(n, NTT_MIN_CHUNK, nt, load_range, &ctx);
	memset(dst + n, 0, (m - n) * sizeof(fr_t));
	for (unsigned t = 0; t < nt; t++)
		if (first_bad[t] != SIZE_MAX)
			return err_fail(err, CUZK_E_NONCANONICAL, "witness %s[%zu] is not below r",
					name, first_bad[t]);
	return 0;
}

/* Values on the domain -> values on the coset g·ω^j. */
static int to_coset(const ntt_domain *d, fr_t *buf, const fr_t *src, size_t n, int montgomery,
		    const char *name, cuzk_error *err)
{
	int rc = load_padded(buf, d->m, src, n, montgomery, name, err);
	if (rc)
		return rc;
	ntt_core(d, buf, d->tw_inv);
	ntt_scale_by_powers(buf, d->m, &d->m_inv, &d->g);
	ntt_core(d, buf, d->tw);
	return 0;
}

struct pointwise_ctx {
	fr_t *x;
	const fr_t *y;
	const fr_t *zinv;
};

static void mul_range(void *p, size_t begin, size_t end, unsigned t)
{
	(void)t;
	struct pointwise_ctx *ctx = p;
	for (size_t i = begin; i < end; i++)
		fr_mul(&ctx->x[i], &ctx->x[i], &ctx->y[i]);
}

static void sub_div_range(void *p, size_t begin, size_t end, unsigned t)
{
	(void)t;
	struct pointwise_ctx *ctx = p;
	for (size_t i = begin; i < end; i++) {
		fr_sub(&ctx->x[i], &ctx->x[i], &ctx->y[i]);
		fr_mul(&ctx->x[i], &ctx->x[i], ctx->zinv);
	}
}

int groth16_compute_h(fr_t *h_out, const fr_t *a, const fr_t *b, const fr_t *c, size_t n,
		      int montgomery, cuzk_error *err)
{
	unsigned log_m = ntt_log2_ceil(n);
	size_t m = (size_t)1 << log_m;
	ntt_domain d;
	int rc = ntt_domain_init(&d, log_m, err);
	if (rc)
		return rc;
	fr_t *x = malloc(m * sizeof(fr_t)), *y = malloc(m * sizeof(fr_t));
	if (!x || !y) {
		rc = err_fail(err, CUZK_E_NOMEM, "h: no memory for 2 x %zu scalars", m);
		goto out;
	}
	if ((rc = to_coset(&d, x, a, n, montgomery, "a", err)) ||
	    (rc = to_coset(&d, y, b, n, montgomery, "b", err)))
		goto out;
	struct pointwise_ctx pw = { x, y, NULL };
	parallel_for(m, NTT_MIN_CHUNK, 0, mul_range, &pw);
	if ((rc = to_coset(&d, y, c, n, montgomery, "c", err)))
		goto out;
	/* Z(g·ω^j) = g^m·ω^(j·m) - 1 = g^m - 1 on every point of the coset. */
	fr_t zinv;
	fr_pow_u64(&zinv, &d.g, m);
	fr_sub(&zinv, &zinv, &FR_ONE);
	fr_inv(&zinv, &zinv);
	pw.zinv = &zinv;
	parallel_for(m, NTT_MIN_CHUNK, 0, sub_div_range, &pw);
	ntt_coset_inverse(&d, x);
	memcpy(h_out, x, (m - 1) * sizeof(fr_t));
out:
	free(x);
	free(y);
	ntt_domain_free(&d);
	return rc;
}
