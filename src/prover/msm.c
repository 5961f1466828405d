// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "prover/msm.h"

#include <stdlib.h>
#include <string.h>

#include "bls12_381/fp2.h"
#include "common/parallel.h"
#include "prover/curve_ops.h"
#include "prover/msm_affine.h"
#include "prover/scalar_digits.h"

/* Classifying scalars is cheap: below this many per thread, one thread. */
#define MSM_MIN_CLASSIFY_CHUNK 8192
#define MSM_MAX_WINDOW 16
/* The GLV split copies each dense scalar's point and its image: beyond this
 * many bytes of copies (5.6 million G1 points, 2.8 million G2) the MSM runs
 * on the whole scalars instead, ~10% slower, rather than double the memory
 * of a huge SRS.  CUZK_MSM_NO_GLV=1 in the environment forces that path
 * (tests, and measuring what the split gains). */
#define MSM_GLV_MAX_BYTES ((size_t)1 << 30)

size_t msm_density_count(const uint64_t *density, size_t n)
{
	size_t count = 0, words = n / 64;
	for (size_t i = 0; i < words; i++)
		count += (size_t)__builtin_popcountll(density[i]);
	if (n % 64)
		count += (size_t)__builtin_popcountll(density[words] &
						      (((uint64_t)1 << (n % 64)) - 1));
	return count;
}

static int density_bit(const uint64_t *density, size_t i)
{
	return (int)((density[i / 64] >> (i % 64)) & 1);
}

/* The scalars sorted out: zeros dropped, ones listed by base index, the
 * rest as (base index, canonical limbs). */
struct sorted_scalars {
	size_t *dense_idx;
	uint64_t (*dense_k)[4];
	size_t n_dense;
	size_t *ones_idx;
	size_t n_ones;
};

struct classify_ctx {
	const fr_t *scalars;
	const uint64_t *density;      /* NULL: every scalar takes part */
	int montgomery;
	struct sorted_scalars *out;
	/* per thread: where its range began, what it found, the first bad index */
	size_t *begin, *n_dense, *n_ones, *bad;
};

/* Each thread writes its findings from position `begin` of the output
 * arrays (it cannot find more than its range holds); the runs are made
 * contiguous afterwards. */
static void classify_range(void *p, size_t begin, size_t end, unsigned t)
{
	struct classify_ctx *ctx = p;
	struct sorted_scalars *o = ctx->out;
	size_t base = ctx->density ? msm_density_count(ctx->density, begin) : begin;
	size_t nd = 0, no = 0, bad = SIZE_MAX;
	for (size_t i = begin; i < end; i++) {
		if (ctx->density && !density_bit(ctx->density, i))
			continue;
		size_t b = base++;
		uint64_t k[4];
		if (ctx->montgomery)
			fr_from_mont(k, &ctx->scalars[i]);
		else
			memcpy(k, ctx->scalars[i].l, sizeof(k));
		if (!sd_below_modulus(k) || (ctx->montgomery && !sd_below_modulus(ctx->scalars[i].l))) {
			if (bad == SIZE_MAX)
				bad = i;
			continue;
		}
		if ((k[0] | k[1] | k[2] | k[3]) == 0)
			continue;
		if (k[0] == 1 && (k[1] | k[2] | k[3]) == 0) {
			o->ones_idx[begin + no++] = b;
			continue;
		}
		o->dense_idx[begin + nd] = b;
		memcpy(o->dense_k[begin + nd], k, sizeof(k));
		nd++;
	}
	ctx->begin[t] = begin;
	ctx->n_dense[t] = nd;
	ctx->n_ones[t] = no;
	ctx->bad[t] = bad;
}

static void sorted_free(struct sorted_scalars *s)
{
	free(s->dense_idx);
	free(s->dense_k);
	free(s->ones_idx);
}

static int sort_scalars(struct sorted_scalars *s, const fr_t *scalars, size_t n,
			const uint64_t *density, int montgomery, unsigned nt, cuzk_error *err)
{
	memset(s, 0, sizeof(*s));
	size_t cap = n ? n : 1;
	s->dense_idx = malloc(cap * sizeof(*s->dense_idx));
	s->dense_k = malloc(cap * sizeof(*s->dense_k));
	s->ones_idx = malloc(cap * sizeof(*s->ones_idx));
	if (!s->dense_idx || !s->dense_k || !s->ones_idx) {
		sorted_free(s);
		return err_fail(err, CUZK_E_NOMEM, "MSM: no memory to sort %zu scalars", n);
	}
	size_t per_thread[4][nt];
	struct classify_ctx ctx = { scalars, density, montgomery, s,
				    per_thread[0], per_thread[1], per_thread[2], per_thread[3] };
	memset(per_thread, 0, sizeof(per_thread));
	for (unsigned t = 0; t < nt; t++)
		ctx.bad[t] = SIZE_MAX;
	parallel_for(n, MSM_MIN_CLASSIFY_CHUNK, nt, classify_range, &ctx);
	for (unsigned t = 0; t < nt; t++) {
		if (ctx.bad[t] != SIZE_MAX) {
			sorted_free(s);
			return err_fail(err, CUZK_E_NONCANONICAL, "MSM: scalar %zu is not below r",
					ctx.bad[t]);
		}
	}
	/* Threads ran over ascending ranges; unused thread slots have zero counts. */
	for (unsigned t = 0; t < nt; t++) {
		memmove(s->dense_idx + s->n_dense, s->dense_idx + ctx.begin[t],
			ctx.n_dense[t] * sizeof(*s->dense_idx));
		memmove(s->dense_k + s->n_dense, s->dense_k + ctx.begin[t],
			ctx.n_dense[t] * sizeof(*s->dense_k));
		memmove(s->ones_idx + s->n_ones, s->ones_idx + ctx.begin[t],
			ctx.n_ones[t] * sizeof(*s->ones_idx));
		s->n_dense += ctx.n_dense[t];
		s->n_ones += ctx.n_ones[t];
	}
	return 0;
}

/* Window width and point chunks: a task is one window over one chunk of the
 * points (n/chunks bucket additions, then the sum of its 2^(c-1) buckets);
 * tasks are spread evenly over the threads.  Minimises the time of the
 * busiest thread, in units of a Jacobian mixed addition.  Jacobian buckets
 * cost one per point and ~2.5 per bucket to sum (a mixed and a full
 * addition); affine buckets (msm_affine.h) ~0.6 per point and ~0.6 per
 * bucket, their sum being batched affine additions too (fitted to x5 at
 * 2^14: 16k-64k points of 128 bits, where c = 12-13 ran 6-8% faster than
 * the c = 11 that the Jacobian sum's cost picked). */
static void choose_window(size_t n, unsigned bits, unsigned nthreads, unsigned *ret_c,
			  unsigned *ret_chunks)
{
	double best = -1;
	*ret_c = 1;
	*ret_chunks = 1;
	for (unsigned c = 1; c <= MSM_MAX_WINDOW; c++) {
		unsigned nwin = sd_num_windows_bits(c, bits);
		int affine = c >= MSM_AFFINE_MIN_WINDOW;
		double per_point = affine ? 0.6 : 1.0, per_bucket = affine ? 0.6 : 2.5;
		for (unsigned chunks = 1; chunks <= nthreads; chunks *= 2) {
			size_t tasks = (size_t)nwin * chunks;
			size_t rounds = (tasks + nthreads - 1) / nthreads;
			double per_task = per_point * (double)n / chunks +
					  per_bucket * (double)((size_t)1 << (c - 1));
			double cost = (double)rounds * per_task;
			if (best < 0 || cost < best) {
				best = cost;
				*ret_c = c;
				*ret_chunks = chunks;
			}
		}
	}
}

/* Endomorphisms that act as multiplication by x^2 (x the curve parameter),
 * for the GLV split k·P = k1·P + k2·E(P) of scalar_digits.h; each maps the
 * all-zero identity to itself. */
typedef struct glv_endo {
	fp2_t k[2];                   /* G2: psi^2(x, y) = (k0·x, k1·y) */
	void (*apply)(void *out, const void *p, const struct glv_endo *e);
} glv_endo;

/* G1: -phi, phi acting as -x^2 (g1.h). */
static void g1_endo_x2(void *out, const void *p, const glv_endo *e)
{
	(void)e;
	g1_aff_t *o = out;
	g1_aff_phi(o, p);
	fp_neg(&o->y, &o->y);
}

/* G2: psi^2 acts as x^2 (psi as x, g2.h).  On Fp2 the Frobenius squared is
 * the identity, so psi^2 scales x and y by constants, read off the generator. */
static void g2_endo_x2(void *out, const void *p, const glv_endo *e)
{
	g2_aff_t *o = out;
	const g2_aff_t *q = p;
	fp2_mul(&o->x, &q->x, &e->k[0]);
	fp2_mul(&o->y, &q->y, &e->k[1]);
}

static void glv_endo_init(glv_endo *e, const curve_ops *ops)
{
	memset(e, 0, sizeof(*e));
	if (ops == &CURVE_G1) {
		e->apply = g1_endo_x2;
		return;
	}
	g2_aff_t t;
	fp2_t inv;
	g2_aff_psi(&t, &G2_GENERATOR);
	g2_aff_psi(&t, &t);
	fp2_inv(&inv, &G2_GENERATOR.x);
	fp2_mul(&e->k[0], &t.x, &inv);
	fp2_inv(&inv, &G2_GENERATOR.y);
	fp2_mul(&e->k[1], &t.y, &inv);
	e->apply = g2_endo_x2;
}

struct glv_ctx {
	const curve_ops *ops;
	const struct sorted_scalars *s;
	const unsigned char *bases;
	unsigned char *pts;
	size_t *idx;
	uint64_t (*k)[4];
	glv_endo e;
};

static void glv_range(void *p, size_t begin, size_t end, unsigned t)
{
	(void)t;
	struct glv_ctx *ctx = p;
	size_t as = ctx->ops->aff_size;
	for (size_t i = begin; i < end; i++) {
		const unsigned char *b = ctx->bases + ctx->s->dense_idx[i] * as;
		memcpy(ctx->pts + 2 * i * as, b, as);
		ctx->e.apply(ctx->pts + (2 * i + 1) * as, b, &ctx->e);
		sd_glv_split(ctx->k[2 * i], ctx->k[2 * i + 1], ctx->s->dense_k[i]);
		ctx->idx[2 * i] = 2 * i;
		ctx->idx[2 * i + 1] = 2 * i + 1;
	}
}

/* Replaces the dense scalars k_i on bases[idx_i] by the GLV halves: entry
 * 2i is k1 on P = bases[idx_i], entry 2i+1 is k2 on E(P) (scalar_digits.h),
 * with the points copied to *ret_bases in that order. */
static int glv_expand(const curve_ops *ops, struct sorted_scalars *s, unsigned char **ret_bases,
		      const unsigned char *bases, unsigned nt, cuzk_error *err)
{
	size_t n = s->n_dense, as = ops->aff_size;
	unsigned char *pts = malloc(2 * n * as);
	size_t *idx = malloc(2 * n * sizeof(*idx));
	uint64_t(*k)[4] = malloc(2 * n * sizeof(*k));
	if (!pts || !idx || !k) {
		free(pts);
		free(idx);
		free(k);
		return err_fail(err, CUZK_E_NOMEM, "%s MSM: no memory to split %zu scalars",
				ops->name, n);
	}
	struct glv_ctx ctx = { .ops = ops, .s = s, .bases = bases, .pts = pts, .idx = idx, .k = k };
	glv_endo_init(&ctx.e, ops);
	parallel_for(n, MSM_MIN_CLASSIFY_CHUNK / 4, nt, glv_range, &ctx);
	free(s->dense_idx);
	free(s->dense_k);
	s->dense_idx = idx;
	s->dense_k = k;
	s->n_dense = 2 * n;
	*ret_bases = pts;
	return 0;
}

struct pippenger_ctx {
	const curve_ops *ops;
	const unsigned char *bases;
	const struct sorted_scalars *s;
	unsigned c, nwin, chunks;
	unsigned char *results;       /* one Jacobian point per task */
	int *nomem;                   /* per thread */
};

/* Tasks [begin, end) with affine buckets (windows of MSM_AFFINE_MIN_WINDOW
 * bits or more). */
static void affine_range(struct pippenger_ctx *ctx, size_t begin, size_t end, unsigned t)
{
	msm_affine_scratch *scratch = msm_affine_scratch_new(ctx->ops, ctx->c);
	if (!scratch) {
		ctx->nomem[t] = 1;
		return;
	}
	const struct sorted_scalars *s = ctx->s;
	size_t per_chunk = (s->n_dense + ctx->chunks - 1) / ctx->chunks;
	for (size_t task = begin; task < end; task++) {
		size_t lo = (task % ctx->chunks) * per_chunk;
		msm_window_job job = {
			.bases = ctx->bases, .idx = s->dense_idx,
			.k = (const uint64_t(*)[4])s->dense_k,
			.lo = lo, .hi = lo + per_chunk < s->n_dense ? lo + per_chunk : s->n_dense,
			.w = (unsigned)(task / ctx->chunks), .c = ctx->c, .nwin = ctx->nwin,
		};
		msm_affine_window(ctx->results + task * ctx->ops->jac_size, scratch, &job);
	}
	msm_affine_scratch_free(scratch);
}

static void pippenger_range(void *p, size_t begin, size_t end, unsigned t)
{
	struct pippenger_ctx *ctx = p;
	const curve_ops *ops = ctx->ops;
	if (ctx->c >= MSM_AFFINE_MIN_WINDOW) {
		affine_range(ctx, begin, end, t);
		return;
	}
	size_t nb = (size_t)1 << (ctx->c - 1), js = ops->jac_size, as = ops->aff_size;
	unsigned char *buckets = malloc(nb * js);
	if (!buckets) {
		ctx->nomem[t] = 1;
		return;
	}
	const struct sorted_scalars *s = ctx->s;
	size_t per_chunk = (s->n_dense + ctx->chunks - 1) / ctx->chunks;
	for (size_t task = begin; task < end; task++) {
		unsigned w = (unsigned)(task / ctx->chunks);
		size_t lo = (task % ctx->chunks) * per_chunk;
		size_t hi = lo + per_chunk < s->n_dense ? lo + per_chunk : s->n_dense;
		for (size_t b = 0; b < nb; b++)
			ops->set_inf(buckets + b * js);
		any_aff_t neg;
		any_jac_t tmp;
		for (size_t i = lo; i < hi; i++) {
			int d = sd_digit(s->dense_k[i], w, ctx->c, ctx->nwin);
			if (d == 0)
				continue;
			const unsigned char *base = ctx->bases + s->dense_idx[i] * as;
			if (d < 0) {
				ops->aff_neg(&neg, base);
				base = (const unsigned char *)&neg;
				d = -d;
			}
			unsigned char *bucket = buckets + (size_t)(d - 1) * js;
			ops->add_aff(&tmp, bucket, base);
			memcpy(bucket, &tmp, js);
		}
		/* sum_b (b+1)·bucket[b] by running sums from the top bucket down. */
		any_jac_t running, sum;
		ops->set_inf(&running);
		ops->set_inf(&sum);
		for (size_t b = nb; b-- > 0;) {
			ops->add(&tmp, &running, buckets + b * js);
			running = tmp;
			ops->add(&tmp, &sum, &running);
			sum = tmp;
		}
		memcpy(ctx->results + task * js, &sum, js);
	}
	free(buckets);
}

struct ones_ctx {
	const curve_ops *ops;
	const unsigned char *bases;
	const size_t *idx;
	unsigned char *partial;       /* one Jacobian point per thread */
};

static void ones_range(void *p, size_t begin, size_t end, unsigned t)
{
	struct ones_ctx *ctx = p;
	const curve_ops *ops = ctx->ops;
	any_jac_t acc;
	ops->set_inf(&acc);
	msm_affine_sum(ops, &acc, ctx->bases, ctx->idx + begin, end - begin);
	memcpy(ctx->partial + t * ops->jac_size, &acc, ops->jac_size);
}

static int msm_generic(const curve_ops *ops, void *ret, const void *bases, size_t n_bases,
		       const fr_t *scalars, size_t n, const uint64_t *density, int montgomery,
		       unsigned nt, cuzk_error *err)
{
	if (nt == 0)
		nt = parallel_nthreads();
	if (density) {
		size_t count = msm_density_count(density, n);
		if (count != n_bases)
			return err_fail(err, CUZK_E_MISMATCH,
					"%s MSM: density has %zu set bits but there are %zu bases",
					ops->name, count, n_bases);
	} else if (n != n_bases) {
		return err_fail(err, CUZK_E_MISMATCH, "%s MSM: %zu scalars but %zu bases",
				ops->name, n, n_bases);
	}
	struct sorted_scalars s;
	int rc = sort_scalars(&s, scalars, n, density, montgomery, nt, err);
	if (rc)
		return rc;
	unsigned char *results = NULL, *partial = NULL;
	int *nomem = NULL;

	/* Each dense scalar becomes two of 128 bits, on P and on E(P). */
	unsigned bits = 255;
	const void *dense_bases = bases;
	unsigned char *glv_bases = NULL;
	const char *no_glv = getenv("CUZK_MSM_NO_GLV");
	if (s.n_dense && s.n_dense <= MSM_GLV_MAX_BYTES / (2 * ops->aff_size) &&
	    !(no_glv && strcmp(no_glv, "1") == 0)) {
		if ((rc = glv_expand(ops, &s, &glv_bases, bases, nt, err)))
			goto out;
		dense_bases = glv_bases;
		bits = 128;
	}
	unsigned c, chunks;
	choose_window(s.n_dense, bits, nt, &c, &chunks);
	unsigned nwin = sd_num_windows_bits(c, bits);
	size_t tasks = (size_t)nwin * chunks, js = ops->jac_size;
	results = malloc(tasks * js);
	partial = malloc((size_t)nt * js);
	nomem = calloc(nt, sizeof(*nomem));
	if (!results || !partial || !nomem) {
		rc = err_fail(err, CUZK_E_NOMEM, "%s MSM: no memory for %zu partial sums",
			      ops->name, tasks);
		goto out;
	}
	uint64_t off[4];
	sd_offset_bits(off, c, bits);
	for (size_t i = 0; i < s.n_dense; i++)
		sd_recode(s.dense_k[i], s.dense_k[i], off);

	any_jac_t acc, tmp;
	ops->set_inf(&acc);
	if (s.n_dense) {
		struct pippenger_ctx pc = { ops, dense_bases, &s, c, nwin, chunks, results, nomem };
		parallel_for(tasks, 1, nt, pippenger_range, &pc);
		for (unsigned t = 0; t < nt; t++) {
			if (nomem[t]) {
				rc = err_fail(err, CUZK_E_NOMEM, "%s MSM: no memory for 2^%u buckets",
					      ops->name, c - 1);
				goto out;
			}
		}
		/* Horner over the windows, top first: acc = acc·2^c + window sum. */
		for (unsigned w = nwin; w-- > 0;) {
			for (unsigned i = 0; w + 1 < nwin && i < c; i++) {
				ops->dbl(&tmp, &acc);
				acc = tmp;
			}
			for (unsigned ch = 0; ch < chunks; ch++) {
				ops->add(&tmp, &acc, results + ((size_t)w * chunks + ch) * js);
				acc = tmp;
			}
		}
	}
	if (s.n_ones) {
		for (unsigned t = 0; t < nt; t++)
			ops->set_inf(partial + t * js);
		struct ones_ctx oc = { ops, bases, s.ones_idx, partial };
		parallel_for(s.n_ones, MSM_MIN_CLASSIFY_CHUNK, nt, ones_range, &oc);
		for (unsigned t = 0; t < nt; t++) {
			ops->add(&tmp, &acc, partial + t * js);
			acc = tmp;
		}
	}
	memcpy(ret, &acc, js);
out:
	free(results);
	free(partial);
	free(glv_bases);
	free(nomem);
	sorted_free(&s);
	return rc;
}

int msm_g1(g1_jac_t *ret, const g1_aff_t *bases, const fr_t *scalars, size_t n, int montgomery,
	   cuzk_error *err)
{
	return msm_generic(&CURVE_G1, ret, bases, n, scalars, n, NULL, montgomery, 0, err);
}

int msm_g2(g2_jac_t *ret, const g2_aff_t *bases, const fr_t *scalars, size_t n, int montgomery,
	   cuzk_error *err)
{
	return msm_generic(&CURVE_G2, ret, bases, n, scalars, n, NULL, montgomery, 0, err);
}

int msm_g1_filtered(g1_jac_t *ret, const g1_aff_t *bases, size_t n_bases, const fr_t *scalars,
		    size_t n, const uint64_t *density, int montgomery, cuzk_error *err)
{
	return msm_generic(&CURVE_G1, ret, bases, n_bases, scalars, n, density, montgomery, 0, err);
}

int msm_g2_filtered(g2_jac_t *ret, const g2_aff_t *bases, size_t n_bases, const fr_t *scalars,
		    size_t n, const uint64_t *density, int montgomery, cuzk_error *err)
{
	return msm_generic(&CURVE_G2, ret, bases, n_bases, scalars, n, density, montgomery, 0, err);
}

int msm_g1_threads(g1_jac_t *ret, const g1_aff_t *bases, size_t n_bases, const fr_t *scalars,
		   size_t n, const uint64_t *density, int montgomery, unsigned nthreads,
		   cuzk_error *err)
{
	return msm_generic(&CURVE_G1, ret, bases, n_bases, scalars, n, density, montgomery,
			   nthreads, err);
}

int msm_g2_threads(g2_jac_t *ret, const g2_aff_t *bases, size_t n_bases, const fr_t *scalars,
		   size_t n, const uint64_t *density, int montgomery, unsigned nthreads,
		   cuzk_error *err)
{
	return msm_generic(&CURVE_G2, ret, bases, n_bases, scalars, n, density, montgomery,
			   nthreads, err);
}
