// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The affine-bucket window sum of msm_affine.c, written once for G1 and G2.
 * msm_affine.c includes it once per group after defining
 *   BA(name)            the generated function's name (name##_g1)
 *   FE(op), FE_T        the field (fp_##op, fp_t)
 *   EC(op), AFF_T, JAC_T  the group (g1_##op, g1_aff_t, g1_jac_t)
 *   BA(key), BA(unkey)    the keys of Montgomery's trick (BA(push) below)
 *   BA_KEEP_KEYS        1: the keys are stored, 0: recomputed (cheap ones)
 * and struct msm_affine_scratch, whose arrays are untyped bytes here given
 * their types, and struct inv_slot.  It undefines those macros at its end,
 * ready for the next group. */
#ifndef BA
#error "define BA, FE, FE_T, EC, AFF_T and JAC_T before including msm_affine_impl.h"
#endif

/* Affine infinity is all-zero (g1.h, g2.h); inline, as it runs per point. */
static inline int BA(is_inf)(const AFF_T *p)
{
	return FE(is_zero)(&p->x) & FE(is_zero)(&p->y);
}

/* a += b given the slope λ of the line through them (or the tangent):
 * x = λ² - x_a - x_b, y = λ·(x_a - x) - y_a. */
static inline void BA(finish)(AFF_T *a, const FE_T *x_b, const FE_T *lambda)
{
	FE_T x3, t;
	FE(sqr)(&x3, lambda);
	FE(sub)(&x3, &x3, &a->x);
	FE(sub)(&x3, &x3, x_b);
	FE(sub)(&t, &a->x, &x3);
	FE(mul)(&t, &t, lambda);
	FE(sub)(&a->y, &t, &a->y);
	a->x = x3;
}

/* Montgomery's trick over keys in Fp (BA(key): the denominator itself in
 * G1, its norm in G2, so that G2 shares an Fp inversion and pays 2M per
 * entry for the norm and 2M to undo it instead of 6M for Fp2 products).
 * push: entry j with key k joins the product; pop, in reverse order:
 * *inv = 1/key of entry j. */
static inline void BA(push)(struct inv_slot *slot, size_t j, const fp_t *k, fp_t *prod, int first)
{
	if (BA_KEEP_KEYS)
		slot[j].key = *k;
	if (first) {
		*prod = *k;
		return;
	}
	slot[j].before = *prod;
	fpi_mul(prod, prod, k);
}

static inline void BA(pop)(fp_t *inv, const struct inv_slot *slot, size_t j, const FE_T *d,
			   fp_t *inv_all, int first)
{
	if (first) {
		*inv = *inv_all;
		return;
	}
	fpi_mul(inv, inv_all, &slot[j].before);
	if (BA_KEEP_KEYS) {
		fpi_mul(inv_all, inv_all, &slot[j].key);
	} else {
		fp_t k;
		BA(key)(&k, d);
		fpi_mul(inv_all, inv_all, &k);
	}
}

/* acc[idx[j]] += pt[j] for j < n, one shared inversion:
 * λ = (y_p - y_a)/(x_p - x_a), x = λ² - x_a - x_p, y = λ·(x_a - x) - y_a.
 * The idx are distinct and no x_p equals its x_a, so every factor is
 * non-zero.  slot: n entries of scratch. */
static void BA(add_batch)(AFF_T *acc, const uint32_t *idx, const AFF_T *pt, size_t n,
			  struct inv_slot *slot)
{
	FE_T d, inv, lambda;
	fp_t key, prod = FP_ZERO, inv_all, inv_key;
	if (n == 0)
		return;
	for (size_t j = 0; j < n; j++) {
		FE(sub)(&d, &pt[j].x, &acc[idx[j]].x);
		BA(key)(&key, &d);
		BA(push)(slot, j, &key, &prod, j == 0);
	}
	fp_inv_vartime(&inv_all, &prod);   /* bucket sums of public points */
	for (size_t j = n; j-- > 0;) {
		AFF_T *a = &acc[idx[j]];
		FE(sub)(&d, &pt[j].x, &a->x);
		BA(pop)(&inv_key, slot, j, &d, &inv_all, j == 0);
		BA(unkey)(&inv, &d, &inv_key);   /* 1/(x_p - x_a) */
		FE(sub)(&lambda, &pt[j].y, &a->y);
		FE(mul)(&lambda, &lambda, &inv);
		BA(finish)(a, &pt[j].x, &lambda);
	}
}

/* What a complete affine addition a += b comes down to. */
enum { BA(SLOPE), BA(TANGENT), BA(TAKE_B), BA(KEEP), BA(ZERO) };

static int BA(add_kind)(const AFF_T *a, const AFF_T *b)
{
	if (BA(is_inf)(b))
		return BA(KEEP);
	if (BA(is_inf)(a))
		return BA(TAKE_B);
	if (!FE(eq)(&a->x, &b->x))
		return BA(SLOPE);
	/* b = a (a doubling) or b = -a; y = 0 would be a point of order 2 */
	if (FE(eq)(&a->y, &b->y) && !FE(is_zero)(&a->y))
		return BA(TANGENT);
	return BA(ZERO);
}

/* The slope's denominator: x_b - x_a, or 2·y_a for the tangent. */
static inline void BA(denominator)(FE_T *d, const AFF_T *a, const AFF_T *b, int kind)
{
	if (kind == BA(SLOPE))
		FE(sub)(d, &b->x, &a->x);
	else
		FE(dbl)(d, &a->y);
}

/* *acc[j] += *q[j] for j < n, complete: either may be the identity, equal
 * or opposite (one inversion shared by the slopes that need a division).
 * The acc[j] are distinct; a q[j] may be an acc[i] only for i < j (it is
 * read before: the pairs are done from the last down).  slot, kind: n each. */
static void BA(add_complete)(AFF_T *const *acc, const AFF_T *const *q, size_t n,
			     struct inv_slot *slot, unsigned char *kind)
{
	FE_T d, inv, lambda;
	fp_t key, prod = FP_ZERO, inv_all = FP_ZERO, inv_key;
	size_t first = n;   /* the first entry that divides */
	for (size_t j = 0; j < n; j++) {
		kind[j] = (unsigned char)BA(add_kind)(acc[j], q[j]);
		if (kind[j] > BA(TANGENT))
			continue;
		BA(denominator)(&d, acc[j], q[j], kind[j]);
		BA(key)(&key, &d);
		BA(push)(slot, j, &key, &prod, first == n);
		if (first == n)
			first = j;
	}
	if (first < n)
		fp_inv_vartime(&inv_all, &prod);   /* sums of public points */
	for (size_t j = n; j-- > 0;) {
		AFF_T *a = acc[j];
		const AFF_T *b = q[j];
		if (kind[j] == BA(TAKE_B)) {
			*a = *b;
			continue;
		}
		if (kind[j] == BA(ZERO)) {
			memset(a, 0, sizeof(*a));
			continue;
		}
		if (kind[j] == BA(KEEP))
			continue;
		BA(denominator)(&d, a, b, kind[j]);
		BA(pop)(&inv_key, slot, j, &d, &inv_all, j == first);
		BA(unkey)(&inv, &d, &inv_key);
		if (kind[j] == BA(SLOPE)) {
			FE(sub)(&lambda, &b->y, &a->y);
		} else {
			FE(sqr)(&lambda, &a->x);      /* 3·x_a² */
			FE(add)(&d, &lambda, &lambda);
			FE(add)(&lambda, &lambda, &d);
		}
		FE(mul)(&lambda, &lambda, &inv);
		BA(finish)(a, &b->x, &lambda);
	}
}

/* The Jacobian side bucket: for additions the batch cannot take. */
static void BA(to_jac)(msm_affine_scratch *s, uint32_t b, const AFF_T *q)
{
	JAC_T *jac = s->jac, tmp;
	if (!s->jac_filled[b]) {
		EC(from_affine)(&jac[b], q);
		s->jac_filled[b] = 1;
	} else {
		EC(add_affine)(&tmp, &jac[b], q);
		jac[b] = tmp;
	}
}

/* bucket[b] += q: the first point fills the bucket, the next ones join the
 * open batch; a bucket already in the batch defers its point to the next
 * batch while there is room (cheaper than the Jacobian addition); points
 * that share x with the bucket go to the Jacobian side. */
static void BA(insert)(msm_affine_scratch *s, uint32_t b, const AFF_T *q)
{
	AFF_T *bucket = s->bucket;
	if (!s->filled[b]) {
		bucket[b] = *q;
		s->filled[b] = 1;
	} else if (s->stamp[b] == s->epoch) {
		if (s->ndefer < s->cap) {
			s->defer_bucket[s->ndefer] = b;
			((AFF_T *)s->defer_pt)[s->ndefer++] = *q;
		} else {
			BA(to_jac)(s, b, q);
		}
	} else if (FE(eq)(&q->x, &bucket[b].x)) {
		BA(to_jac)(s, b, q);
	} else {
		s->stamp[b] = s->epoch;
		s->batch_bucket[s->nbatch] = b;
		((AFF_T *)s->batch_pt)[s->nbatch++] = *q;
	}
}

/* Closes the batch, then opens the next one with the deferred points
 * (those whose bucket repeats stay deferred). */
static void BA(close_batch)(msm_affine_scratch *s)
{
	if (s->nbatch) {
		BA(add_batch)(s->bucket, s->batch_bucket, s->batch_pt, s->nbatch, s->slots);
		s->nbatch = 0;
		s->epoch++;
	}
}

static void BA(flush)(msm_affine_scratch *s)
{
	BA(close_batch)(s);
	size_t n = s->ndefer;
	s->ndefer = 0;
	AFF_T *dp = s->defer_pt;
	for (size_t j = 0; j < n; j++) {
		uint32_t b = s->defer_bucket[j];
		AFF_T q = dp[j];
		BA(insert)(s, b, &q);   /* never grows the queue past j */
	}
}

/* Folds the Jacobian side buckets into the affine ones (rare: repeated
 * points), a chunk at a time with one inversion per chunk. */
static void BA(merge_side)(msm_affine_scratch *s)
{
	AFF_T *bucket = s->bucket, *side = s->side_aff;
	JAC_T *jac = s->jac, *chunk = s->side_jac;
	AFF_T **acc = s->chain_acc;
	const AFF_T **q = s->chain_q;
	size_t b = 0;
	while (b < s->nb) {
		size_t m = 0;
		for (; b < s->nb && m < s->cap; b++) {
			if (!s->jac_filled[b])
				continue;
			if (!s->filled[b]) {
				memset(&bucket[b], 0, sizeof(bucket[b]));
				s->filled[b] = 1;
			}
			chunk[m] = jac[b];
			acc[m++] = &bucket[b];
		}
		EC(batch_to_affine)(side, chunk, m);
		for (size_t j = 0; j < m; j++)
			q[j] = &side[j];
		BA(add_complete)(acc, q, m, s->slots, s->kind);
	}
}

/* ret = sum_b (b+1)·bucket[b].  The buckets are cut into K segments of L;
 * segment g keeps a running sum R_g (of its buckets from the top down) and
 * a sum S_g of the running sums before each step, so that
 * S_g + R_g = sum (b - gL + 1)·bucket[b] over its buckets.  The segments
 * step together, each step one batched affine addition of 2K pairs (S_g +=
 * R_g, R_g += its next bucket: one inversion shared by 2K additions, against
 * two Jacobian additions per bucket).  Then
 *   ret = sum_g S_g + sum_g R_g + L·sum_g g·R_g,
 * the last sums by running sums over g in Jacobian coordinates. */
static void BA(reduce)(void *ret, msm_affine_scratch *s)
{
	AFF_T *bucket = s->bucket, *run = s->chain, *sum = run + s->nseg;
	AFF_T **acc = s->chain_acc;
	const AFF_T **q = s->chain_q;
	size_t k = s->nseg, len = s->nb / k;
	BA(merge_side)(s);
	memset(run, 0, 2 * k * sizeof(*run));
	for (size_t step = 0; step < len; step++) {
		/* R_g += bucket first, S_g += R_g after: add_complete works from
		 * the last pair down, so each S_g reads R_g before it moves on. */
		size_t m = 0;
		for (size_t g = 0; g < k; g++) {
			size_t b = g * len + (len - 1 - step);
			if (s->filled[b]) {
				acc[m] = &run[g];
				q[m++] = &bucket[b];
			}
		}
		for (size_t g = 0; step > 0 && g < k; g++) {
			acc[m] = &sum[g];
			q[m++] = &run[g];
		}
		BA(add_complete)(acc, q, m, s->slots, s->kind);
	}
	JAC_T total, tail, weighted, tmp;
	EC(set_infinity)(&tail);
	EC(set_infinity)(&weighted);
	for (size_t g = k; g-- > 0;) {
		EC(add_affine)(&tmp, &tail, &run[g]);
		tail = tmp;
		if (g == 0)
			break;
		EC(add)(&tmp, &weighted, &tail);
		weighted = tmp;
	}
	for (size_t l = len; l > 1; l /= 2) {
		EC(dbl)(&tmp, &weighted);
		weighted = tmp;
	}
	EC(add)(&total, &weighted, &tail);
	for (size_t g = 0; g < k; g++) {
		EC(add_affine)(&tmp, &total, &sum[g]);
		total = tmp;
	}
	*(JAC_T *)ret = total;
}

static void BA(window)(void *ret, msm_affine_scratch *s, const msm_window_job *job)
{
	const AFF_T *bases = job->bases;
	size_t nb = s->nb;
	memset(s->filled, 0, nb);
	memset(s->jac_filled, 0, nb);
	s->ndefer = 0;
	for (size_t i = job->lo; i < job->hi; i++) {
		int d = sd_digit(job->k[i], job->w, job->c, job->nwin);
		if (d == 0)
			continue;
		const AFF_T *p = &bases[job->idx[i]];
		if (BA(is_inf)(p))
			continue;
		AFF_T q = *p;
		if (d < 0)
			FE(neg)(&q.y, &q.y);
		BA(insert)(s, (uint32_t)(d < 0 ? -d : d) - 1, &q);
		/* A full batch closes (the deferred points may fill the next one).
		 * So does one that cannot fill up because the window's digits
		 * reach fewer buckets than a batch holds (the top window: the
		 * deferred points would pile up and spill into Jacobian additions,
		 * a tenth of all additions at 2^15 GLV points), unless it is too
		 * small to pay for its inversion (one digit for every point). */
		while (s->nbatch == s->cap ||
		       (s->ndefer == s->cap && s->nbatch >= MSM_AFFINE_MIN_EARLY_BATCH))
			BA(flush)(s);
	}
	/* Two more batches take most deferred points; a long tail (one bucket
	 * hit over and over) would cost an inversion per point: Jacobian. */
	BA(flush)(s);
	BA(flush)(s);
	BA(close_batch)(s);
	AFF_T *dp = s->defer_pt;
	for (size_t j = 0; j < s->ndefer; j++)
		BA(to_jac)(s, s->defer_bucket[j], &dp[j]);
	s->ndefer = 0;

	BA(reduce)(ret, s);
}

#undef BA
#undef FE
#undef FE_T
#undef EC
#undef AFF_T
#undef JAC_T
#undef BA_KEEP_KEYS
