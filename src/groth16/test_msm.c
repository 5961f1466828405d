/* Pippenger against the naive sum of k_i·P_i, for G1 and G2: sizes 0, 1 and
 * non-powers of two; random, all-zero, all-one, r-1 and witness-like mixed
 * scalars; canonical and Montgomery input; the density-filtered form; more
 * threads than windows (point ranges split); rejection of bad input. */
#include <stdlib.h>
#include <string.h>

#include "../../tests/check.h"
#include "common/rand.h"
#include "groth16/curve_ops.h"
#include "groth16/fr_sample.h"
#include "groth16/msm.h"

enum kind { RANDOM, ZEROS, ONES, MINUS_ONE, MIXED, SAME, KINDS };
static const char *const kind_name[KINDS] = { "random", "zeros", "ones", "r-1", "mixed", "same" };

static void make_scalars(fr_t *k, size_t n, enum kind kind, cuzk_rng *rng)
{
	fr_t minus_one, same;
	fr_neg(&minus_one, &FR_ONE);
	fr_sample_rng(&same, rng);
	for (size_t i = 0; i < n; i++) {
		unsigned pick = (unsigned)(cuzk_rng_next(rng) % 10);
		enum kind kk = kind == MIXED ? (pick < 4 ? ZEROS : pick < 8 ? ONES : pick < 9 ? RANDOM
									    : MINUS_ONE)
					     : kind;
		switch (kk) {
		case ZEROS: k[i] = FR_ZERO; break;
		case ONES: k[i] = FR_ONE; break;
		case MINUS_ONE: k[i] = minus_one; break;
		case SAME: k[i] = same; break;
		default: fr_sample_rng(&k[i], rng); break;
		}
	}
}

/* n affine points P_i = a·G + i·b·G (cheap to make, all distinct); with
 * repeats = 1, every 5th point repeats an earlier one, every 7th negates one,
 * and point 3 is the identity (doublings, opposite points, infinity in
 * buckets); with repeats = 2, odd points equal or negate their neighbour. */
static void *make_bases_with(const curve_ops *ops, size_t n, cuzk_rng *rng, int repeats)
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
	for (size_t i = 1; repeats == 2 && i < n; i += 2) {
		if (i % 4 == 1)
			memcpy(aff + i * ops->aff_size, aff + (i - 1) * ops->aff_size, ops->aff_size);
		else
			ops->aff_neg(aff + i * ops->aff_size, aff + (i - 1) * ops->aff_size);
	}
	for (size_t i = 1; repeats == 1 && i < n; i++) {
		size_t j = (size_t)(cuzk_rng_next(rng) % i);
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

static void *make_bases(const curve_ops *ops, size_t n, cuzk_rng *rng)
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
			    int repeats, cuzk_rng *rng)
{
	fr_t *k = malloc((n + 1) * sizeof(fr_t)), *canon = malloc((n + 1) * sizeof(fr_t));
	uint64_t *density = calloc(n / 64 + 1, sizeof(uint64_t));
	REQUIRE(k && canon && density);
	make_scalars(k, n, kind, rng);
	size_t n_bases = n;
	if (filtered) {
		n_bases = 0;
		for (size_t i = 0; i < n; i++)
			if (cuzk_rng_next(rng) % 3) {
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

static void check_case(const curve_ops *ops, size_t n, enum kind kind, int filtered, cuzk_rng *rng)
{
	check_case_with(ops, n, kind, filtered, 0, rng);
}

static void check_rejections(cuzk_rng *rng)
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
	cuzk_rng rng;
	cuzk_rng_seed(&rng, 0x6d736d);
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

	/* More threads than windows: each window's points split into ranges. */
	setenv("CUZK_THREADS", "40", 1);
	check_case(&CURVE_G1, 600, RANDOM, 0, &rng);
	check_case(&CURVE_G2, 100, MIXED, 1, &rng);
	unsetenv("CUZK_THREADS");

	check_rejections(&rng);
	CHECK_DONE();
}
