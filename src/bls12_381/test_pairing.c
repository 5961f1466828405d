// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The pairing: known answer e(G1, G2) (from @noble/curves), bilinearity,
 * non-degeneracy, and products with one shared final exponentiation. */
#include <stdio.h>
#include <string.h>

#include "bls12_381/pairing.h"
#include "bls12_381/test_rand.h"
#include "../../tests/check.h"

/* e(G1, G2) from noble: the 12 Fp coefficients in the order
 * c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1, big-endian hex. */
static const char *const E_G1_G2[12] = {
	"1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
	"089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
	"1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
	"193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
	"01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
	"018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
	"19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
	"06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
	"11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
	"03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
	"04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
	"0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631",
};

static void fp_from_hex(fp_t *r, const char *hex)
{
	uint8_t b[48];
	for (int i = 0; i < 48; i++) {
		unsigned v;
		REQUIRE(sscanf(hex + 2 * i, "%2x", &v) == 1);
		b[i] = (uint8_t)v;
	}
	REQUIRE(fp_from_be_bytes(r, b) == 0);
}

static void fp12_pow_fr(fp12_t *r, const fp12_t *a, const fr_t *k)
{
	uint64_t e[4];
	fr_from_mont(e, k);
	fp12_t acc;
	fp12_set_one(&acc);
	for (int i = 3; i >= 0; i--)
		for (int bit = 63; bit >= 0; bit--) {
			fp12_sqr(&acc, &acc);
			if ((e[i] >> bit) & 1)
				fp12_mul(&acc, &acc, a);
		}
	*r = acc;
}

static void test_known_answer(void)
{
	fp12_t e, want;
	fp_t *slots[12] = {
		&want.c0.c0.c0, &want.c0.c0.c1, &want.c0.c1.c0, &want.c0.c1.c1, &want.c0.c2.c0, &want.c0.c2.c1,
		&want.c1.c0.c0, &want.c1.c0.c1, &want.c1.c1.c0, &want.c1.c1.c1, &want.c1.c2.c0, &want.c1.c2.c1,
	};
	for (int i = 0; i < 12; i++)
		fp_from_hex(slots[i], E_G1_G2[i]);
	bls_pairing(&e, &G1_GENERATOR, &G2_GENERATOR);
	CHECK(fp12_eq(&e, &want));
	/* non-degenerate, and of order r */
	CHECK(!fp12_is_one(&e));
	fp12_t er;
	fp12_t acc;
	fp12_set_one(&acc);
	for (int i = 3; i >= 0; i--)
		for (int bit = 63; bit >= 0; bit--) {
			fp12_sqr(&acc, &acc);
			if ((FR_MODULUS[i] >> bit) & 1)
				fp12_mul(&acc, &acc, &e);
		}
	er = acc;
	CHECK(fp12_is_one(&er));
}

static void test_bilinear(rng_t *rng)
{
	fp12_t e, eab, want;
	bls_pairing(&e, &G1_GENERATOR, &G2_GENERATOR);
	for (int iter = 0; iter < 2; iter++) {
		fr_t a, b, ab;
		rand_fr(rng, &a);
		rand_fr(rng, &b);
		fr_mul(&ab, &a, &b);
		g1_jac_t ap;
		g2_jac_t bq;
		g1_aff_t apa;
		g2_aff_t bqa;
		g1_from_affine(&ap, &G1_GENERATOR);
		g2_from_affine(&bq, &G2_GENERATOR);
		g1_mul_fr(&ap, &ap, &a);
		g2_mul_fr(&bq, &bq, &b);
		g1_to_affine(&apa, &ap);
		g2_to_affine(&bqa, &bq);
		/* e(aP, bQ) = e(P, Q)^(ab) */
		bls_pairing(&eab, &apa, &bqa);
		fp12_pow_fr(&want, &e, &ab);
		CHECK(fp12_eq(&eab, &want));
		/* e(aP, Q)·e(-aP, Q) = 1 and e(aP, bQ)·e(-abP, Q) = 1 via one final exponentiation */
		g1_aff_t ps[2];
		g2_aff_t qs[2];
		ps[0] = apa;
		g1_aff_neg(&ps[1], &apa);
		qs[0] = G2_GENERATOR;
		qs[1] = G2_GENERATOR;
		CHECK(bls_pairing_product_is_one(ps, qs, 2));
		g1_jac_t abp;
		g1_from_affine(&abp, &G1_GENERATOR);
		g1_mul_fr(&abp, &abp, &ab);
		g1_neg(&abp, &abp);
		g1_to_affine(&ps[1], &abp);
		qs[0] = bqa;
		CHECK(bls_pairing_product_is_one(ps, qs, 2));
		/* and a wrong exponent is caught */
		g1_aff_neg(&ps[1], &ps[1]);
		CHECK(!bls_pairing_product_is_one(ps, qs, 2));
	}
}

static void test_degenerate_and_many(void)
{
	g1_aff_t inf1;
	g2_aff_t inf2;
	memset(&inf1, 0, sizeof inf1);
	memset(&inf2, 0, sizeof inf2);
	fp12_t e;
	bls_pairing(&e, &inf1, &G2_GENERATOR);
	CHECK(fp12_is_one(&e));
	bls_pairing(&e, &G1_GENERATOR, &inf2);
	CHECK(fp12_is_one(&e));
	CHECK(bls_pairing_product_is_one(&inf1, &inf2, 1));
	CHECK(bls_pairing_product_is_one(NULL, NULL, 0));

	/* 10 pairs (more than one chunk of the Miller loop): sum_i k_i·G paired
	 * with G, k_i = i + 1 for i < 9, and the last one -(1 + ... + 9)·G */
	enum { N = 10 };
	g1_aff_t ps[N];
	g2_aff_t qs[N];
	g1_jac_t g, t;
	g1_from_affine(&g, &G1_GENERATOR);
	for (int i = 0; i < N - 1; i++) {
		uint64_t k[4] = { (uint64_t)i + 1 };
		g1_mul(&t, &g, k);
		g1_to_affine(&ps[i], &t);
		qs[i] = G2_GENERATOR;
	}
	uint64_t k[4] = { 45 };
	g1_mul(&t, &g, k);
	g1_neg(&t, &t);
	g1_to_affine(&ps[N - 1], &t);
	qs[N - 1] = G2_GENERATOR;
	CHECK(bls_pairing_product_is_one(ps, qs, N));
	ps[3] = inf1;   /* dropping 4·G breaks it */
	CHECK(!bls_pairing_product_is_one(ps, qs, N));
}

int main(void)
{
	rng_t rng;
	rng_seed(&rng, 0xe);
	test_known_answer();
	test_bilinear(&rng);
	test_degenerate_and_many();
	CHECK_DONE();
}
