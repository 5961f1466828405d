// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Group-law and subgroup tests, written once for G1 and G2 (test_curve.c
 * includes this twice with the same macros jacobian_impl.h uses, plus
 * RAND_FE(rng, fe) and GROUP_NAME). */

/* A point of E (not E[r]) from a random x: most such points are outside the
 * subgroup, since the cofactor is large. */
static void EC(rand_curve_point)(rng_t *rng, EC_AFF_T *r)
{
	for (;;) {
		FE_T x, rhs;
		RAND_FE(rng, &x);
		FE(sqr)(&rhs, &x);
		FE(mul)(&rhs, &rhs, &x);
		FE(add)(&rhs, &rhs, &EC_B);
		if (FE(sqrt)(&r->y, &rhs)) {
			r->x = x;
			return;
		}
	}
}

/* h·P for the 512-bit cofactor h = hi·2^256 + lo. */
static void EC(mul_cofactor)(EC_JAC_T *r, const EC_JAC_T *p)
{
	EC_JAC_T hi, lo;
	EC(mul)(&hi, p, EC_COFACTOR + 4);
	for (int i = 0; i < 256; i++)
		EC(dbl)(&hi, &hi);
	EC(mul)(&lo, p, EC_COFACTOR);
	EC(add)(r, &hi, &lo);
}

static void EC(rand_subgroup_point)(rng_t *rng, EC_JAC_T *r, fr_t *k)
{
	EC_JAC_T g;
	rand_fr(rng, k);
	EC(from_affine)(&g, &EC_GENERATOR);
	EC(mul_fr)(r, &g, k);
}

static void EC(test_generator)(void)
{
	EC_JAC_T g, t;
	CHECK(EC(aff_is_on_curve)(&EC_GENERATOR));
	CHECK(EC(aff_in_subgroup)(&EC_GENERATOR));
	EC(from_affine)(&g, &EC_GENERATOR);
	EC(mul)(&t, &g, FR_MODULUS);
	CHECK_MSG(EC(is_infinity)(&t), "%s: r·G = 0", GROUP_NAME);
	uint64_t r_minus_1[4] = { FR_MODULUS[0] - 1, FR_MODULUS[1], FR_MODULUS[2], FR_MODULUS[3] };
	EC(mul)(&t, &g, r_minus_1);
	EC_JAC_T ng;
	EC(neg)(&ng, &g);
	CHECK_MSG(EC(eq)(&t, &ng), "%s: (r-1)·G = -G", GROUP_NAME);
	/* small multiples: 5G by additions */
	EC_JAC_T five;
	EC(set_infinity)(&five);
	for (int i = 0; i < 5; i++)
		EC(add_affine)(&five, &five, &EC_GENERATOR);
	uint64_t k5[4] = { 5 };
	EC(mul)(&t, &g, k5);
	CHECK(EC(eq)(&t, &five));
	uint64_t k0[4] = { 0 };
	EC(mul)(&t, &g, k0);
	CHECK(EC(is_infinity)(&t));
}

static void EC(test_laws)(rng_t *rng)
{
	for (int iter = 0; iter < 12; iter++) {
		EC_JAC_T P, Q, t1, t2, t3, inf;
		EC_AFF_T pa, qa;
		fr_t a, b, ab;
		EC(rand_subgroup_point)(rng, &P, &a);
		EC(rand_subgroup_point)(rng, &Q, &b);
		EC(to_affine)(&pa, &P);
		EC(to_affine)(&qa, &Q);
		CHECK(EC(aff_is_on_curve)(&pa));
		CHECK(EC(aff_in_subgroup)(&pa));
		EC(set_infinity)(&inf);

		EC(add)(&t1, &P, &Q);
		EC(add)(&t2, &Q, &P);
		CHECK(EC(eq)(&t1, &t2));
		EC(add_affine)(&t2, &P, &qa);
		CHECK(EC(eq)(&t1, &t2));
		EC(dbl)(&t1, &P);
		EC(add)(&t2, &P, &P);
		CHECK(EC(eq)(&t1, &t2));
		EC(add_affine)(&t2, &P, &pa);
		CHECK(EC(eq)(&t1, &t2));
		/* P + (-P) = 0 and P + 0 = P, through both additions */
		EC(neg)(&t1, &P);
		EC(add)(&t2, &P, &t1);
		CHECK(EC(is_infinity)(&t2));
		EC_AFF_T npa;
		EC(aff_neg)(&npa, &pa);
		EC(add_affine)(&t2, &P, &npa);
		CHECK(EC(is_infinity)(&t2));
		EC(add)(&t2, &P, &inf);
		CHECK(EC(eq)(&t2, &P));
		EC(add)(&t2, &inf, &P);
		CHECK(EC(eq)(&t2, &P));
		EC(add_affine)(&t2, &inf, &pa);
		CHECK(EC(eq)(&t2, &P));
		EC_AFF_T zero;
		memset(&zero, 0, sizeof zero);
		EC(add_affine)(&t2, &P, &zero);
		CHECK(EC(eq)(&t2, &P));
		/* (P + Q) + P = P + (Q + P) with a non-normalised Z on both sides */
		EC(add)(&t1, &P, &Q);
		EC(add)(&t1, &t1, &P);
		EC(add)(&t2, &Q, &P);
		EC(add)(&t2, &P, &t2);
		CHECK(EC(eq)(&t1, &t2));
		/* (a + b)G = aG + bG and b(aG) = (ab)G */
		fr_t s;
		fr_add(&s, &a, &b);
		EC_JAC_T g;
		EC(from_affine)(&g, &EC_GENERATOR);
		EC(mul_fr)(&t1, &g, &s);
		EC(add)(&t2, &P, &Q);
		CHECK_MSG(EC(eq)(&t1, &t2), "%s: (a+b)G = aG + bG", GROUP_NAME);
		fr_mul(&ab, &a, &b);
		EC(mul_fr)(&t1, &g, &ab);
		EC(mul_fr)(&t3, &P, &b);
		CHECK_MSG(EC(eq)(&t1, &t3), "%s: b(aG) = (ab)G", GROUP_NAME);
		/* affine round trip */
		EC(from_affine)(&t1, &pa);
		CHECK(EC(eq)(&t1, &P));
		CHECK(!EC(eq)(&P, &Q));
		CHECK(!EC(eq)(&P, &inf));
	}
}

static void EC(test_batch_affine)(rng_t *rng)
{
	enum { N = 9 };
	EC_JAC_T in[N];
	EC_AFF_T out[N], one;
	fr_t k;
	for (int i = 0; i < N; i++)
		EC(rand_subgroup_point)(rng, &in[i], &k);
	EC(set_infinity)(&in[3]);
	EC(batch_to_affine)(out, in, N);
	for (int i = 0; i < N; i++) {
		EC(to_affine)(&one, &in[i]);
		CHECK(EC(aff_eq)(&one, &out[i]));
		/* and from 1/Z, the caller's (for infinity any value) */
		FE_T zinv;
		FE(inv)(&zinv, &in[i].Z);
		if (i == 3)
			zinv = FE_ONE;
		EC(to_affine_zinv)(&out[i], &in[i], &zinv);
		CHECK(memcmp(&one, &out[i], sizeof one) == 0);
	}
	CHECK(EC(aff_is_infinity)(&out[3]));
}

/* mul2 against two single multiplications and an addition: random points
 * and 256-bit scalars, then the edge cases: a scalar 0, 1 or r - 1, a point
 * at infinity, p2 = p1 and p2 = -p1 (where the shared accumulator meets the
 * exceptional cases of the addition), and a sum that is 0. */
static void EC(test_mul2)(rng_t *rng)
{
	enum { RANDOM, K1_ZERO, K2_ZERO, K1_MAX, K2_MAX, SAME, OPPOSITE, P2_INF, SUM_ZERO, N_CASES };
	static const uint64_t ZERO[4] = { 0 }, ONE[4] = { 1 };
	const uint64_t r_minus_1[4] = { FR_MODULUS[0] - 1, FR_MODULUS[1], FR_MODULUS[2], FR_MODULUS[3] };
	EC_JAC_T inf;
	EC(set_infinity)(&inf);
	for (int iter = 0; iter < 16 + N_CASES; iter++) {
		int c = iter < 16 ? RANDOM : iter - 16;
		EC_JAC_T P, Q, negP, one, two, want, got;
		fr_t k;
		uint64_t k1[4], k2[4];
		EC(rand_subgroup_point)(rng, &P, &k);
		EC(rand_subgroup_point)(rng, &Q, &k);
		EC(neg)(&negP, &P);
		for (int i = 0; i < 4; i++) {
			k1[i] = rng_next(rng);
			k2[i] = rng_next(rng);
		}
		const EC_JAC_T *p2 = c == SAME || c == SUM_ZERO ? &P : c == OPPOSITE ? &negP : c == P2_INF ? &inf : &Q;
		const uint64_t *a = c == K1_ZERO ? ZERO : c == K1_MAX ? r_minus_1 : c == SUM_ZERO ? ONE : k1;
		const uint64_t *b = c == K2_ZERO ? ZERO : c == K2_MAX || c == SUM_ZERO ? r_minus_1 : k2;
		EC(mul)(&one, &P, a);
		EC(mul)(&two, p2, b);
		EC(add)(&want, &one, &two);
		EC(mul2)(&got, &P, a, p2, b);
		CHECK_MSG(EC(eq)(&got, &want), "%s: mul2 = mul + mul (iteration %d)", GROUP_NAME, iter);
		if (c == SUM_ZERO)
			CHECK(EC(is_infinity)(&got));
	}
}

/* The endomorphism test must agree with r·P = 0 on points inside and
 * outside the subgroup. */
static void EC(test_subgroup)(rng_t *rng)
{
	int outside = 0;
	for (int iter = 0; iter < 12; iter++) {
		EC_AFF_T pa;
		EC_JAC_T P, rP;
		EC(rand_curve_point)(rng, &pa);
		CHECK(EC(aff_is_on_curve)(&pa));
		EC(from_affine)(&P, &pa);
		EC(mul)(&rP, &P, FR_MODULUS);
		int in = EC(is_infinity)(&rP);
		outside += !in;
		CHECK_MSG(EC(aff_in_subgroup)(&pa) == in, "%s: subgroup test vs r·P", GROUP_NAME);
		/* with the cofactor cleared it is in the subgroup */
		EC(mul_cofactor)(&rP, &P);
		EC_AFF_T cleared;
		EC(to_affine)(&cleared, &rP);
		CHECK(EC(aff_in_subgroup)(&cleared));
		EC(mul)(&rP, &rP, FR_MODULUS);
		CHECK(EC(is_infinity)(&rP));
	}
	CHECK(outside >= 10);
	/* off the curve: (x, y + 1) */
	EC_AFF_T bad = EC_GENERATOR;
	FE(add)(&bad.y, &bad.y, &FE_ONE);
	CHECK(!EC(aff_is_on_curve)(&bad));
	EC_AFF_T inf;
	memset(&inf, 0, sizeof inf);
	CHECK(EC(aff_is_on_curve)(&inf));
	CHECK(EC(aff_in_subgroup)(&inf));
}
