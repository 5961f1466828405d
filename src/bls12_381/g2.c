// SPDX-License-Identifier: Apache-2.0 OR MIT
/* G2 over Fp2: the shared Jacobian code, the generator and the subgroup test. */
#include "bls12_381/g2.h"

#include "bls12_381/curve_param.h"
#include "bls12_381/field_inline.h"

#define EC(name) g2_##name
/* inline field additions (the products stay calls: field_inline.h) */
#define FE(name) fp2i_##name
#define FE_T fp2_t
#define EC_AFF_T g2_aff_t
#define EC_JAC_T g2_jac_t
#define FE_ZERO FP2_ZERO
#define FE_ONE FP2_ONE
#define EC_B G2_B

/* b' = 4(1 + u), Montgomery form */
const fp2_t G2_B = {
	{ {
		0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
		0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL,
	} },
	{ {
		0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
		0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL,
	} },
};

#include "bls12_381/jacobian_impl.h"


const g2_aff_t G2_GENERATOR = {
	{
		{ {
			0xf5f28fa202940a10ULL, 0xb3f5fb2687b4961aULL, 0xa1a893b53e2ae580ULL,
			0x9894999d1a3caee9ULL, 0x6f67b7631863366bULL, 0x058191924350bcd7ULL,
		} },
		{ {
			0xa5a9c0759e23f606ULL, 0xaaa0c59dbccd60c3ULL, 0x3bb17e18e2867806ULL,
			0x1b1ab6cc8541b367ULL, 0xc2b6ed0ef2158547ULL, 0x11922a097360edf3ULL,
		} },
	},
	{
		{ {
			0x4c730af860494c4aULL, 0x597cfa1f5e369c5aULL, 0xe7e6856caa0a635aULL,
			0xbbefb5e96e0d495fULL, 0x07d3a975f0ef25a2ULL, 0x0083fd8e7e80dae5ULL,
		} },
		{ {
			0xadc0fc92df64b05dULL, 0x18aa270a2b1461dcULL, 0x86adac6a3be4eba0ULL,
			0x79495c4ec93da33aULL, 0xe7175850a43ccaedULL, 0x0b2bc2a163de1bf2ULL,
		} },
	},
};

/* psi = twist^-1 ∘ Frobenius ∘ twist: psi(x, y) = (conj(x)·PSI_X, conj(y)·PSI_Y)
 * with PSI_X = xi^(-(p-1)/3), PSI_Y = xi^(-(p-1)/2) (Montgomery form). */
static const fp2_t PSI_X = {
	{ { 0 } },
	{ {
		0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL,
		0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL,
	} },
};
static const fp2_t PSI_Y = {
	{ {
		0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL,
		0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL,
	} },
	{ {
		0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
		0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL,
	} },
};

void g2_aff_psi(g2_aff_t *r, const g2_aff_t *p)
{
	fp2_conj(&r->x, &p->x);
	fp2_mul(&r->x, &r->x, &PSI_X);
	fp2_conj(&r->y, &p->y);
	fp2_mul(&r->y, &r->y, &PSI_Y);
}

/* Scott, "A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves" (ePrint 2021/1130): a point of E'(Fp2) is in G2
 * iff psi(P) = x·P.  One multiplication by the sparse 64-bit |x|. */
int g2_aff_in_subgroup(const g2_aff_t *p)
{
	if (g2_aff_is_infinity(p))
		return 1;
	g2_aff_t psi;
	g2_jac_t jp, xp, jpsi;
	g2_from_affine(&jp, p);
	g2_mul_u64_public(&xp, &jp, BLS_X_ABS);
	g2_neg(&xp, &xp);
	g2_aff_psi(&psi, p);
	g2_from_affine(&jpsi, &psi);
	return g2_eq(&jpsi, &xp);
}
