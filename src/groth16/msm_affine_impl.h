/* The affine-bucket window sum of msm_affine.c, written once for G1 and G2.
 * msm_affine.c includes it once per group after defining
 *   BA(name)            the generated function's name (name##_g1)
 *   FE(op), FE_T        the field (fp_##op, fp_t)
 *   EC(op), AFF_T, JAC_T  the group (g1_##op, g1_aff_t, g1_jac_t)
 * and struct msm_affine_scratch, whose arrays are untyped bytes here given
 * their types.  It undefines those macros at its end, ready for the next group. */
#ifndef BA
#error "define BA, FE, FE_T, EC, AFF_T and JAC_T before including msm_affine_impl.h"
#endif

/* acc[idx[j]] += pt[j] for j < n, one shared inversion (Montgomery's trick):
 * λ = (y_p - y_a)/(x_p - x_a), x = λ² - x_a - x_p, y = λ·(x_a - x) - y_a.
 * The idx are distinct and no x_p equals its x_a, so every factor is
 * non-zero.  pre: n field elements of scratch. */
static void BA(add_batch)(AFF_T *acc, const uint32_t *idx, const AFF_T *pt, size_t n, FE_T *pre)
{
	FE_T inv_all, inv, t, lambda, x3;
	if (n == 0)
		return;
	for (size_t j = 0; j < n; j++) {
		FE(sub)(&t, &pt[j].x, &acc[idx[j]].x);
		if (j == 0)
			pre[0] = t;
		else
			FE(mul)(&pre[j], &pre[j - 1], &t);
	}
	FE(inv_vartime)(&inv_all, &pre[n - 1]);   /* bucket sums of public points */
	for (size_t j = n; j-- > 0;) {
		AFF_T *a = &acc[idx[j]];
		FE(sub)(&t, &pt[j].x, &a->x);
		if (j > 0) {
			FE(mul)(&inv, &inv_all, &pre[j - 1]);   /* 1/(x_p - x_a) of entry j */
			FE(mul)(&inv_all, &inv_all, &t);        /* drop entry j's factor */
		} else {
			inv = inv_all;
		}
		FE(sub)(&lambda, &pt[j].y, &a->y);
		FE(mul)(&lambda, &lambda, &inv);
		FE(sqr)(&x3, &lambda);
		FE(sub)(&x3, &x3, &a->x);
		FE(sub)(&x3, &x3, &pt[j].x);
		FE(sub)(&t, &a->x, &x3);
		FE(mul)(&t, &t, &lambda);
		FE(sub)(&a->y, &t, &a->y);
		a->x = x3;
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
		BA(add_batch)(s->bucket, s->batch_bucket, s->batch_pt, s->nbatch, s->prefix);
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

static void BA(window)(void *ret, msm_affine_scratch *s, const msm_window_job *job)
{
	AFF_T *bucket = s->bucket;
	JAC_T *jac = s->jac, tmp;
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
		if (EC(aff_is_infinity)(p))
			continue;
		AFF_T q = *p;
		if (d < 0)
			FE(neg)(&q.y, &q.y);
		BA(insert)(s, (uint32_t)(d < 0 ? -d : d) - 1, &q);
		while (s->nbatch == s->cap)   /* the deferred points may fill the next one */
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

	/* sum_b (b+1)·bucket[b], by running sums from the top bucket down. */
	JAC_T running, sum;
	EC(set_infinity)(&running);
	EC(set_infinity)(&sum);
	for (size_t b = nb; b-- > 0;) {
		if (s->filled[b]) {
			EC(add_affine)(&tmp, &running, &bucket[b]);
			running = tmp;
		}
		if (s->jac_filled[b]) {
			EC(add)(&tmp, &running, &jac[b]);
			running = tmp;
		}
		EC(add)(&tmp, &sum, &running);
		sum = tmp;
	}
	*(JAC_T *)ret = sum;
}

#undef BA
#undef FE
#undef FE_T
#undef EC
#undef AFF_T
#undef JAC_T
