// SPDX-License-Identifier: Apache-2.0 OR MIT
/* G1 and G2: group laws, scalar multiplication (of one point and of two),
 * batch normalisation, and the endomorphism subgroup tests against r·P = 0. */
#include <string.h>

#include "bls12_381/g1.h"
#include "bls12_381/g2.h"
#include "bls12_381/test_rand.h"
#include "../../tests/check.h"

/* Cofactors: h1 = (x-1)^2/3 and h2 = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13)/9 */
static const uint64_t G1_COFACTOR[8] = { 0x8c00aaab0000aaabULL, 0x396c8c005555e156ULL };
static const uint64_t G2_COFACTOR[8] = {
	0xcf1c38e31c7238e5ULL, 0x1616ec6e786f0c70ULL, 0x21537e293a6691aeULL, 0xa628f1cb4d9e82efULL,
	0xa68a205b2e5a7ddfULL, 0xcd91de4547085abaULL, 0x091d50792876a202ULL, 0x05d543a95414e7f1ULL,
};

#define EC(name) g1_##name
#define FE(name) fp_##name
#define FE_T fp_t
#define EC_AFF_T g1_aff_t
#define EC_JAC_T g1_jac_t
#define FE_ONE FP_ONE
#define EC_B G1_B
#define EC_GENERATOR G1_GENERATOR
#define EC_COFACTOR G1_COFACTOR
#define RAND_FE rand_fp
#define GROUP_NAME "G1"
#include "bls12_381/test_curve_impl.h"
#undef EC
#undef FE
#undef FE_T
#undef EC_AFF_T
#undef EC_JAC_T
#undef FE_ONE
#undef EC_B
#undef EC_GENERATOR
#undef EC_COFACTOR
#undef RAND_FE
#undef GROUP_NAME

#define EC(name) g2_##name
#define FE(name) fp2_##name
#define FE_T fp2_t
#define EC_AFF_T g2_aff_t
#define EC_JAC_T g2_jac_t
#define FE_ONE FP2_ONE
#define EC_B G2_B
#define EC_GENERATOR G2_GENERATOR
#define EC_COFACTOR G2_COFACTOR
#define RAND_FE rand_fp2
#define GROUP_NAME "G2"
#include "bls12_381/test_curve_impl.h"

/* psi acts on G2 as multiplication by x = -0xd201000000010000 */
static void test_psi(void)
{
	g2_aff_t psi;
	g2_jac_t g, xg, jpsi;
	uint64_t x_abs[4] = { 0xd201000000010000ULL };
	g2_aff_psi(&psi, &G2_GENERATOR);
	g2_from_affine(&g, &G2_GENERATOR);
	g2_mul(&xg, &g, x_abs);
	g2_neg(&xg, &xg);
	g2_from_affine(&jpsi, &psi);
	CHECK(g2_eq(&jpsi, &xg));
}

int main(void)
{
	rng_t rng;
	rng_seed(&rng, 0xc0e);
	g1_test_generator();
	g1_test_laws(&rng);
	g1_test_batch_affine(&rng);
	g1_test_mul2(&rng);
	g1_test_subgroup(&rng);
	g2_test_generator();
	g2_test_laws(&rng);
	g2_test_batch_affine(&rng);
	g2_test_mul2(&rng);
	g2_test_subgroup(&rng);
	test_psi();
	CHECK_DONE();
}
