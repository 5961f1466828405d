// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Pippenger against the naive sum of k_i·P_i, for G1 and G2: sizes 0, 1 and
 * non-powers of two; random, all-zero, all-one, r-1 and witness-like mixed
 * scalars; canonical and Montgomery input; the density-filtered form; more
 * threads than windows (point ranges split); rejection of bad input; the
 * GLV split of the scalars on its edge cases. */
#include <stdlib.h>
#include <string.h>

#include "../../tests/check.h"
#include "common/rand.h"
#include "prover/curve_ops.h"
#include "prover/fr_sample.h"
#include "prover/msm.h"
#include "prover/scalar_digits.h"

enum kind { RANDOM, ZEROS, ONES, MINUS_ONE, MIXED, SAME, GLV_EDGE, STEPS, KINDS };
static const char *const kind_name[KINDS] = { "random", "zeros", "ones", "r-1", "mixed", "same",
					       "GLV edges", "a, a-1" };

/* Scalars at the edges of the GLV split k = k1 + k2·x^2 (scalar_digits.h):
 * 0, 1, r-1, lambda = x^2 - 1 (a cube root of unity mod r), x^2, x^2 + 1,
 * lambda^2, r - x^2, and multiples of lambda, small and random. */
#define GLV_EDGES 12
static void glv_edge(fr_t *k, unsigned which, rng_t *rng)
{
	static const uint64_t x2[4] = { 0x0000000100000000ULL, 0xac45a4010001a402ULL, 0, 0 };
	static const uint64_t lam[4] = { 0x00000000ffffffffULL, 0xac45a4010001a402ULL, 0, 0 };
	fr_t l, t;
	fr_to_mont(&l, lam);
	switch (which % GLV_EDGES) {
	case 0: *k = FR_ZERO; break;
	case 1: *k = FR_ONE; break;
	case 2: fr_neg(k, &FR_ONE); break;
	case 3: *k = l; break;
	case 4: fr_to_mont(k, x2); break;
	case 5: fr_to_mont(k, x2), fr_add(k, k, &FR_ONE); break;
	case 6: fr_sqr(k, &l); break;
	case 7: fr_to_mont(&t, x2), fr_neg(k, &t); break;
	case 8: fr_add(k, &l, &l); break;
	case 9: fr_from_u64(&t, 12345), fr_mul(k, &l, &t); break;
	case 10: fr_sample_rng(&t, rng), fr_mul(k, &l, &t); break;
	default: fr_neg(&t, &l), fr_add(k, &t, &t); break;   /* -2·lambda */
	}
}

static void make_scalars(fr_t *k, size_t n, enum kind kind, rng_t *rng)
{
	fr_t minus_one, same, same_less;
	fr_neg(&minus_one, &FR_ONE);
	fr_sample_rng(&same, rng);
	fr_sub(&same_less, &same, &FR_ONE);
	for (size_t i = 0; i < n; i++) {
		unsigned pick = (unsigned)(rng_next(rng) % 10);
		enum kind kk = kind == MIXED ? (pick < 4 ? ZEROS : pick < 8 ? ONES : pick < 9 ? RANDOM
									    : MINUS_ONE)
					     : kind;
		switch (kk) {
		case ZEROS: k[i] = FR_ZERO; break;
		case ONES: k[i] = FR_ONE; break;
		case MINUS_ONE: k[i] = minus_one; break;
		case SAME: k[i] = same; break;
		case GLV_EDGE: glv_edge(&k[i], (unsigned)i, rng); break;
		case STEPS: k[i] = i % 2 ? same_less : same; break;
		default: fr_sample_rng(&k[i], rng); break;
		}
	}
}

/* n affine points P_i = a·G + i·b·G (cheap to make, all distinct); with
 * repeats = 1, every 5th point repeats an earlier one, every 7th negates one,
 * and point 3 is the identity (doublings, opposite points, infinity in
 * buckets); with repeats = 2, odd points equal or negate their neighbour;
 * with repeats = 3 they negate it. */
static void *make_bases_with(const curve_ops *ops, size_t n, rng_t *rng, int repeats)
{
	unsigned char *jac = malloc((n + 1) * ops->jac_size), *aff = malloc((n + 1) * ops->aff_size);
	REQUIRE(jac && aff);
	any_jac_t g, step;
	fr_t a, b;
	fr_sample_rng(&a, rng);
	fr_sample_rng(&b, rng);
	ops->from_aff(&g, ops->generator);
	ops->mul_fr(&step, &g, &b);
	ops->mul_fr(jac, &g, &a);
	for (size_t i = 1; i < n; i++)
		ops->add(jac + i * ops->jac_size, jac + (i - 1) * ops->jac_size, &step);
	ops->batch_to_aff(aff, jac, n);
	/* Neighbours equal or opposite: what the pairwise sum of ones meets. */
	for (size_t i = 1; (repeats == 2 || repeats == 3) && i < n; i += 2) {
		if (repeats == 2 && i % 4 == 1)
			memcpy(aff + i * ops->aff_size, aff + (i - 1) * ops->aff_size, ops->aff_size);
		else
			ops->aff_neg(aff + i * ops->aff_size, aff + (i - 1) * ops->aff_size);
	}
	for (size_t i = 1; repeats == 1 && i < n; i++) {
		size_t j = (size_t)(rng_next(rng) % i);
		if (i % 5 == 0)
			memcpy(aff + i * ops->aff_size, aff + j * ops->aff_size, ops->aff_size);
		else if (i % 7 == 0)
			ops->aff_neg(aff + i * ops->aff_size, aff + j * ops->aff_size);
		else if (i == 3)
			memset(aff + i * ops->aff_size, 0, ops->aff_size);
	}
	free(jac);
	return aff;
}

static void *make_bases(const curve_ops *ops, size_t n, rng_t *rng)
{
	return make_bases_with(ops, n, rng, 0);
}

static void naive(const curve_ops *ops, void *ret, const unsigned char *bases, const fr_t *k,
		  size_t n, const uint64_t *density)
{
	any_jac_t acc, p, t, u;
	ops->set_inf(&acc);
	size_t b = 0;
	for (size_t i = 0; i < n; i++) {
		if (density && !((density[i / 64] >> (i % 64)) & 1))
			continue;
		ops->from_aff(&p, bases + b++ * ops->aff_size);
		ops->mul_fr(&t, &p, &k[i]);
		ops->add(&u, &acc, &t);
		acc = u;
	}
	memcpy(ret, &acc, ops->jac_size);
}

static int jac_eq(const curve_ops *ops, const void *a, const void *b)
{
	return ops == &CURVE_G1 ? g1_eq(a, b) : g2_eq(a, b);
}

static int run_msm(const curve_ops *ops, void *ret, const void *bases, size_t n_bases,
		   const fr_t *k, size_t n, const uint64_t *density, int mont, cuzk_error *err)
{
	if (ops == &CURVE_G1)
		return density ? msm_g1_filtered(ret, bases, n_bases, k, n, density, mont, err)
			       : msm_g1(ret, bases, k, n, mont, err);
	return density ? msm_g2_filtered(ret, bases, n_bases, k, n, density, mont, err)
		       : msm_g2(ret, bases, k, n, mont, err);
}

static void check_case_with(const curve_ops *ops, size_t n, enum kind kind, int filtered,
			    int repeats, rng_t *rng)
{
	fr_t *k = malloc((n + 1) * sizeof(fr_t)), *canon = malloc((n + 1) * sizeof(fr_t));
	uint64_t *density = calloc(n / 64 + 1, sizeof(uint64_t));
	REQUIRE(k && canon && density);
	make_scalars(k, n, kind, rng);
	size_t n_bases = n;
	if (filtered) {
		n_bases = 0;
		for (size_t i = 0; i < n; i++)
			if (rng_next(rng) % 3) {
				density[i / 64] |= (uint64_t)1 << (i % 64);
				n_bases++;
			}
	}
	unsigned char *bases = make_bases_with(ops, n_bases, rng, repeats);
	any_jac_t want, got;
	naive(ops, &want, bases, k, n, filtered ? density : NULL);
	cuzk_error err;
	int rc = run_msm(ops, &got, bases, n_bases, k, n, filtered ? density : NULL, 1, &err);
	CHECK_MSG(rc == 0 && jac_eq(ops, &got, &want), "%s MSM n=%zu %s%s (Montgomery): rc %d",
		  ops->name, n, kind_name[kind], filtered ? " filtered" : "", rc);
	for (size_t i = 0; i < n; i++)
		fr_from_mont(canon[i].l, &k[i]);
	rc = run_msm(ops, &got, bases, n_bases, canon, n, filtered ? density : NULL, 0, &err);
	CHECK_MSG(rc == 0 && jac_eq(ops, &got, &want), "%s MSM n=%zu %s%s (canonical): rc %d",
		  ops->name, n, kind_name[kind], filtered ? " filtered" : "", rc);
	free(k), free(canon), free(density), free(bases);
}

static void check_case(const curve_ops *ops, size_t n, enum kind kind, int filtered, rng_t *rng)
{
	check_case_with(ops, n, kind, filtered, 0, rng);
}

/* k = k1 + k2·x^2 exactly, both halves below 2^128 and k1 below x^2, on
 * the edge scalars and random ones; and k·P = k1·P + k2·(-phi(P)) in G1. */
static void check_glv_split(rng_t *rng)
{
	static const uint64_t x2[2] = { 0x0000000100000000ULL, 0xac45a4010001a402ULL };
	g1_jac_t p, phi_j, want, a, b, got;
	g1_aff_t pa, phi;
	fr_t s;
	fr_sample_rng(&s, rng);
	g1_from_affine(&p, &G1_GENERATOR);
	g1_mul_fr(&p, &p, &s);
	g1_to_affine(&pa, &p);
	g1_aff_phi(&phi, &pa);
	fp_neg(&phi.y, &phi.y);
	g1_from_affine(&phi_j, &phi);
	for (unsigned i = 0; i < GLV_EDGES + 200; i++) {
		fr_t k;
		if (i < GLV_EDGES)
			glv_edge(&k, i, rng);
		else
			fr_sample_rng(&k, rng);
		uint64_t kc[4], k1[4], k2[4];
		fr_from_mont(kc, &k);
		sd_glv_split(k1, k2, kc);
		CHECK_MSG((k1[2] | k1[3] | k2[2] | k2[3]) == 0, "GLV halves of edge %u exceed 2^128", i);
		CHECK_MSG(k1[1] < x2[1] || (k1[1] == x2[1] && k1[0] < x2[0]), "GLV k1 >= x^2 (edge %u)", i);
		/* k2·x^2 + k1 in 256 bits */
		uint64_t sum[4] = { 0 };
		for (int u = 0; u < 2; u++) {
			unsigned __int128 carry = 0;
			for (int v = 0; v < 2; v++) {
				carry += (unsigned __int128)k2[u] * x2[v] + sum[u + v];
				sum[u + v] = (uint64_t)carry;
				carry >>= 64;
			}
			for (int w = u + 2; w < 4; w++) {
				carry += sum[w];
				sum[w] = (uint64_t)carry;
				carry >>= 64;
			}
		}
		unsigned __int128 carry = 0;
		for (int w = 0; w < 4; w++) {
			carry += (unsigned __int128)sum[w] + (w < 2 ? k1[w] : 0);
			sum[w] = (uint64_t)carry;
			carry >>= 64;
		}
		CHECK_MSG(memcmp(sum, kc, sizeof(sum)) == 0, "GLV split of edge %u does not recompose", i);
		if (i < GLV_EDGES + 20) {
			g1_mul(&want, &p, kc);
			g1_mul(&a, &p, k1);
			g1_mul(&b, &phi_j, k2);
			g1_add(&got, &a, &b);
			CHECK_MSG(g1_eq(&got, &want), "k·P != k1·P + k2·(-phi(P)) for edge %u", i);
		}
	}
}

static void check_rejections(rng_t *rng)
{
	size_t n = 10;
	fr_t k[10];
	make_scalars(k, n, RANDOM, rng);
	g1_aff_t *bases = make_bases(&CURVE_G1, n, rng);
	g1_jac_t r;
	cuzk_error err;
	memcpy(k[7].l, FR_MODULUS, sizeof(k[7].l));
	CHECK(msm_g1(&r, bases, k, n, 0, &err) == -CUZK_E_NONCANONICAL);
	CHECK_MSG(strstr(err.msg, "scalar 7") != NULL, "message: %s", err.msg);
	uint64_t density = 0x3f;   /* 6 set bits, 10 bases */
	CHECK(msm_g1_filtered(&r, bases, n, k, n, &density, 1, &err) == -CUZK_E_MISMATCH);
	free(bases);
}

int main(void)
{
	rng_t rng;
	rng_seed(&rng, 0x6d736d);
	size_t sizes[] = { 0, 1, 2, 3, 7, 33, 100, 257 };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (int kind = 0; kind < KINDS; kind++)
			check_case(&CURVE_G1, sizes[s], kind, 0, &rng);
	check_case(&CURVE_G1, 1000, RANDOM, 0, &rng);
	check_case(&CURVE_G1, 1000, MIXED, 1, &rng);
	check_case(&CURVE_G1, 130, RANDOM, 1, &rng);
	for (size_t s = 0; s < 5; s++)
		for (int kind = 0; kind < KINDS; kind++)
			check_case(&CURVE_G2, sizes[s], kind, s == 4, &rng);
	check_case(&CURVE_G2, 200, RANDOM, 0, &rng);
	check_case(&CURVE_G2, 200, MIXED, 1, &rng);

	/* Enough points for windows of 10+ bits: affine buckets with batched
	 * inversions, and their fallbacks (a bucket twice in one batch, equal
	 * or opposite points, the identity, one scalar for every point). */
	check_case_with(&CURVE_G1, 2500, RANDOM, 0, 1, &rng);
	check_case_with(&CURVE_G1, 2500, SAME, 0, 1, &rng);
	check_case_with(&CURVE_G2, 2500, RANDOM, 1, 1, &rng);
	/* Many ones: summed pairwise in affine, equal and opposite neighbours. */
	check_case_with(&CURVE_G1, 3000, ONES, 0, 1, &rng);
	check_case_with(&CURVE_G1, 1000, ONES, 0, 2, &rng);
	check_case_with(&CURVE_G2, 600, ONES, 1, 2, &rng);
	/* a·P + (a-1)·(-P) pairs: buckets of digits d and d-1 that cancel, so
	 * that the running sums of the bucket sum meet the identity and
	 * opposite points, and side buckets that cancel their affine twin. */
	check_case_with(&CURVE_G1, 2500, STEPS, 0, 3, &rng);
	check_case_with(&CURVE_G2, 2500, STEPS, 0, 3, &rng);

	/* More threads than windows: each window's points split into ranges. */
	setenv("CUZK_THREADS", "40", 1);
	check_case(&CURVE_G1, 600, RANDOM, 0, &rng);
	check_case(&CURVE_G2, 100, MIXED, 1, &rng);
	unsetenv("CUZK_THREADS");

	/* The GLV split, alone and inside MSMs of both groups (G1 with -phi,
	 * G2 with psi^2). */
	check_glv_split(&rng);
	check_case(&CURVE_G1, 40, GLV_EDGE, 0, &rng);
	check_case_with(&CURVE_G1, 2500, GLV_EDGE, 0, 1, &rng);
	check_case(&CURVE_G2, 40, GLV_EDGE, 1, &rng);

	/* The same without the split (what MSMs too large for its copies run). */
	setenv("CUZK_MSM_NO_GLV", "1", 1);
	check_case(&CURVE_G1, 257, MIXED, 0, &rng);
	check_case(&CURVE_G1, 100, GLV_EDGE, 1, &rng);
	check_case_with(&CURVE_G1, 2500, RANDOM, 0, 1, &rng);
	check_case_with(&CURVE_G2, 2500, RANDOM, 1, 1, &rng);
	check_case(&CURVE_G2, 100, MIXED, 1, &rng);
	unsetenv("CUZK_MSM_NO_GLV");

	check_rejections(&rng);
	CHECK_DONE();
}
