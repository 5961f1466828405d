#include "groth16/msm_affine.h"

#include <stdlib.h>
#include <string.h>

#include "groth16/scalar_digits.h"

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
	void *prefix;                 /* cap field elements: running products */
	size_t nbatch;
};

#define BA(name) name##_g1
#define FE(op) fp_##op
#define FE_T fp_t
#define EC(op) g1_##op
#define AFF_T g1_aff_t
#define JAC_T g1_jac_t
#include "groth16/msm_affine_impl.h"

#define BA(name) name##_g2
#define FE(op) fp2_##op
#define FE_T fp2_t
#define EC(op) g2_##op
#define AFF_T g2_aff_t
#define JAC_T g2_jac_t
#include "groth16/msm_affine_impl.h"

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
	size_t fe = ops == &CURVE_G1 ? sizeof(fp_t) : sizeof(fp2_t);
	s->bucket = malloc(s->nb * ops->aff_size);
	s->filled = malloc(s->nb);
	s->jac = malloc(s->nb * ops->jac_size);
	s->jac_filled = malloc(s->nb);
	s->stamp = calloc(s->nb, sizeof(uint32_t));
	s->batch_bucket = malloc(s->cap * sizeof(uint32_t));
	s->batch_pt = malloc(s->cap * ops->aff_size);
	s->defer_bucket = malloc(s->cap * sizeof(uint32_t));
	s->defer_pt = malloc(s->cap * ops->aff_size);
	s->prefix = malloc(s->cap * fe);
	s->epoch = 1;
	if (!s->bucket || !s->filled || !s->jac || !s->jac_filled || !s->stamp || !s->batch_bucket ||
	    !s->batch_pt || !s->defer_bucket || !s->defer_pt || !s->prefix) {
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
	free(s->prefix);
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
