// SPDX-License-Identifier: Apache-2.0 OR MIT
/* G1 over Fp: the shared Jacobian code, the generator and the subgroup test. */
#include "bls12_381/g1.h"

#include "bls12_381/curve_param.h"
#include "bls12_381/field_inline.h"

#define EC(name) g1_##name
/* inline field operations: the point formulas are all field arithmetic */
#define FE(name) fpi_##name
#define FE_T fp_t
#define EC_AFF_T g1_aff_t
#define EC_JAC_T g1_jac_t
#define FE_ZERO FP_ZERO
#define FE_ONE FP_ONE
#define EC_B G1_B

/* b = 4, Montgomery form */
const fp_t G1_B = { {
	0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
	0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL,
} };

#include "bls12_381/jacobian_impl.h"


const g1_aff_t G1_GENERATOR = {
	{ {
		0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL,
		0xf0ae6acdf3d0e747ULL, 0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL,
	} },
	{ {
		0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL,
		0x51ac582950405194ULL, 0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL,
	} },
};

/* beta, a primitive cube root of unity in Fp (Montgomery form), chosen so
 * that phi(x, y) = (beta·x, y) acts on G1 as multiplication by -x^2 mod r. */
static const fp_t G1_BETA = { {
	0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
	0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL,
} };

void g1_aff_phi(g1_aff_t *r, const g1_aff_t *p)
{
	fp_mul(&r->x, &p->x, &G1_BETA);
	r->y = p->y;
}

/* Bowe, "Faster subgroup checks for BLS12-381" (ePrint 2019/814): a point
 * of E(Fp) is in G1 iff phi(P) = -x^2·P.  Two multiplications by the sparse
 * 64-bit |x| instead of one by the 255-bit r. */
int g1_aff_in_subgroup(const g1_aff_t *p)
{
	if (g1_aff_is_infinity(p))
		return 1;
	g1_jac_t jp, x2p, phi;
	g1_from_affine(&jp, p);
	g1_mul_u64_public(&x2p, &jp, BLS_X_ABS);
	g1_mul_u64_public(&x2p, &x2p, BLS_X_ABS);
	g1_neg(&x2p, &x2p);
	fp_mul(&phi.X, &p->x, &G1_BETA);
	phi.Y = p->y;
	phi.Z = FP_ONE;
	return g1_eq(&phi, &x2p);
}
