// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "prover/msm_affine.h"

#include <stdlib.h>
#include <string.h>

#include "bls12_381/field_inline.h"
#include "prover/scalar_digits.h"

struct msm_affine_scratch {
	const curve_ops *ops;
	size_t nb;                    /* buckets: 2^(c-1) */
	size_t cap;                   /* additions per batch */
	void *bucket;                 /* nb affine points */
	unsigned char *filled;        /* bucket[b] holds a point */
	void *jac;                    /* nb Jacobian buckets for additions the batch cannot take */
	unsigned char *jac_filled;
	uint32_t *stamp;              /* stamp[b] == epoch: bucket b is in the open batch */
	uint32_t epoch;
	uint32_t *batch_bucket;       /* the open batch: bucket and point of each addition */
	void *batch_pt;
	uint32_t *defer_bucket;       /* points waiting for the next batch (their bucket was in this one) */
	void *defer_pt;
	size_t ndefer;
	void *slots;                  /* cap struct inv_slot: Montgomery's trick */
	size_t nbatch;
	/* the bucket sum (msm_affine_impl.h, reduce) */
	size_t nseg;                  /* segments, each summed by its own chain */
	void *chain;                  /* 2·nseg affine points: running sums, sums */
	void *chain_acc, *chain_q;    /* cap pointers each: the pairs of one batch */
	unsigned char *kind;          /* cap: how each pair adds */
	void *side_jac, *side_aff;    /* cap Jacobian and affine: side buckets converted */
};

/* One entry of Montgomery's trick (msm_affine_impl.h, BA(push)): the
 * product of the keys before it, and its own key.  The size of an fp2_t,
 * what msm_affine_add_batch asks of its callers per entry. */
struct inv_slot {
	fp_t before, key;
};

/* G1 inverts the slopes' denominators themselves. */
static inline void key_g1(fp_t *k, const fp_t *d)
{
	*k = *d;
}

static inline void unkey_g1(fp_t *inv, const fp_t *d, const fp_t *inv_key)
{
	(void)d;
	*inv = *inv_key;
}

/* G2 inverts their norms: 1/d = conj(d)/(d0² + d1²).  Out-of-line
 * products on the G2 side (field_inline.h says why). */
static inline void key_g2(fp_t *k, const fp2_t *d)
{
	fp_t t;
	fp_sqr(k, &d->c0);
	fp_sqr(&t, &d->c1);
	fpi_add(k, k, &t);
}

static inline void unkey_g2(fp2_t *inv, const fp2_t *d, const fp_t *inv_key)
{
	fp_mul(&inv->c0, &d->c0, inv_key);
	fp_mul(&inv->c1, &d->c1, inv_key);
	fpi_neg(&inv->c1, &inv->c1);
}

/* A batch of this many additions pays for its inversion (~170 products in
 * G1) at under 3 products each. */
#define MSM_AFFINE_MIN_EARLY_BATCH 64

#define BA(name) name##_g1
#define BA_KEEP_KEYS 0
#define FE(op) fpi_##op
#define FE_T fp_t
#define EC(op) g1_##op
#define AFF_T g1_aff_t
#define JAC_T g1_jac_t
#include "prover/msm_affine_impl.h"

#define BA(name) name##_g2
#define BA_KEEP_KEYS 1
#define FE(op) fp2i_##op
#define FE_T fp2_t
#define EC(op) g2_##op
#define AFF_T g2_aff_t
#define JAC_T g2_jac_t
#include "prover/msm_affine_impl.h"

msm_affine_scratch *msm_affine_scratch_new(const curve_ops *ops, unsigned c)
{
	msm_affine_scratch *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ops = ops;
	s->nb = (size_t)1 << (c - 1);
	/* A quarter of the buckets per batch keeps repeats of a bucket within
	 * one batch rare; 2048 already makes the inversion's share small. */
	s->cap = s->nb / 2 < 2048 ? s->nb / 2 : 2048;
	if (s->cap == 0)
		s->cap = 1;
	s->bucket = malloc(s->nb * ops->aff_size);
	s->filled = malloc(s->nb);
	s->jac = malloc(s->nb * ops->jac_size);
	s->jac_filled = malloc(s->nb);
	s->stamp = calloc(s->nb, sizeof(uint32_t));
	s->batch_bucket = malloc(s->cap * sizeof(uint32_t));
	s->batch_pt = malloc(s->cap * ops->aff_size);
	s->defer_bucket = malloc(s->cap * sizeof(uint32_t));
	s->defer_pt = malloc(s->cap * ops->aff_size);
	s->slots = malloc(s->cap * sizeof(struct inv_slot));
	s->epoch = 1;
	/* Enough segments that their shared inversion costs little per
	 * addition, few enough that summing the segments stays small; a batch
	 * of the sum holds 2·nseg <= nb/4 <= cap pairs. */
	s->nseg = s->nb >= 1024 ? 128 : s->nb / 8;
	if (s->nseg == 0)
		s->nseg = 1;
	s->chain = malloc(2 * s->nseg * ops->aff_size);
	s->chain_acc = malloc(s->cap * sizeof(void *));
	s->chain_q = malloc(s->cap * sizeof(void *));
	s->kind = malloc(s->cap);
	s->side_jac = malloc(s->cap * ops->jac_size);
	s->side_aff = malloc(s->cap * ops->aff_size);
	if (!s->bucket || !s->filled || !s->jac || !s->jac_filled || !s->stamp || !s->batch_bucket ||
	    !s->batch_pt || !s->defer_bucket || !s->defer_pt || !s->slots || !s->chain ||
	    !s->chain_acc || !s->chain_q || !s->kind || !s->side_jac || !s->side_aff) {
		msm_affine_scratch_free(s);
		return NULL;
	}
	return s;
}

void msm_affine_scratch_free(msm_affine_scratch *s)
{
	if (!s)
		return;
	free(s->bucket);
	free(s->filled);
	free(s->jac);
	free(s->jac_filled);
	free(s->stamp);
	free(s->batch_bucket);
	free(s->batch_pt);
	free(s->defer_bucket);
	free(s->defer_pt);
	free(s->slots);
	free(s->chain);
	free(s->chain_acc);
	free(s->chain_q);
	free(s->kind);
	free(s->side_jac);
	free(s->side_aff);
	free(s);
}

void msm_affine_add_batch(const curve_ops *ops, void *acc, const uint32_t *idx, const void *pt,
			  size_t n, void *scratch)
{
	if (ops == &CURVE_G1)
		add_batch_g1(acc, idx, pt, n, scratch);
	else
		add_batch_g2(acc, idx, pt, n, scratch);
}

void msm_affine_window(void *ret, msm_affine_scratch *s, const msm_window_job *job)
{
	if (s->ops == &CURVE_G1)
		window_g1(ret, s, job);
	else
		window_g2(ret, s, job);
}

/* Points summed as one tree; levels with fewer pairs than MSM_SUM_MIN_PAIRS
 * do not pay for their inversion and go to mixed additions. */
#define MSM_SUM_BLOCK 4096
#define MSM_SUM_MIN_PAIRS 64

static void add_affine_to(const curve_ops *ops, void *acc, const void *p)
{
	any_jac_t tmp;
	ops->add_aff(&tmp, acc, p);
	memcpy(acc, &tmp, ops->jac_size);
}

/* One level: buf[0..n) -> buf[0..ret), pairs (2j, 2j+1) summed in place. */
static size_t sum_level(const curve_ops *ops, void *acc, unsigned char *buf, size_t n,
			unsigned char *pt, uint32_t *pair, void *scratch)
{
	size_t as = ops->aff_size, np = 0;
	for (size_t j = 0; 2 * j + 1 < n; j++) {
		unsigned char *a = buf + 2 * j * as, *b = a + as;
		if (memcmp(a, b, as / 2) == 0) {   /* same x (x is the first half): ±a */
			add_affine_to(ops, acc, a);
			add_affine_to(ops, acc, b);
			continue;
		}
		pair[np] = (uint32_t)(2 * j);
		memcpy(pt + np * as, b, as);
		np++;
	}
	msm_affine_add_batch(ops, buf, pair, pt, np, scratch);
	for (size_t j = 0; j < np; j++)
		memmove(buf + j * as, buf + (size_t)pair[j] * as, as);
	if (n % 2)
		memmove(buf + np++ * as, buf + (n - 1) * as, as);
	return np;
}

void msm_affine_sum(const curve_ops *ops, void *acc, const void *bases, const size_t *idx, size_t n)
{
	size_t as = ops->aff_size;
	const unsigned char *b = bases;
	unsigned char *buf = malloc(MSM_SUM_BLOCK * as), *pt = malloc(MSM_SUM_BLOCK / 2 * as);
	uint32_t *pair = malloc(MSM_SUM_BLOCK / 2 * sizeof(uint32_t));
	void *scratch = malloc(MSM_SUM_BLOCK / 2 * sizeof(fp2_t));
	size_t i = 0;
	while (buf && pt && pair && scratch && i < n) {
		size_t cnt = 0;
		for (; i < n && cnt < MSM_SUM_BLOCK; i++) {
			const unsigned char *p = b + idx[i] * as;
			if (!ops->aff_is_inf(p))
				memcpy(buf + cnt++ * as, p, as);
		}
		while (cnt >= 2 * MSM_SUM_MIN_PAIRS)
			cnt = sum_level(ops, acc, buf, cnt, pt, pair, scratch);
		for (size_t j = 0; j < cnt; j++)
			add_affine_to(ops, acc, buf + j * as);
	}
	for (; i < n; i++)   /* only when the buffers could not be had */
		add_affine_to(ops, acc, b + idx[i] * as);
	free(buf);
	free(pt);
	free(pair);
	free(scratch);
}
