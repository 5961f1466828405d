// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The optimal ate pairing on BLS12-381.
 *
 * Miller loop over |x| = 0xd201000000010000 with T kept in homogeneous
 * projective coordinates on the twist E': y^2 = x^3 + b', b' = 4(1 + u).
 * The twist is of M type: (x', y') on E' maps to (x'/w^2, y'/w^3) on E, so a
 * line through points of E' evaluated at P = (xP, yP) of E and multiplied by
 * w^3 (which the final exponentiation removes, as it does every factor in a
 * proper subfield) is
 *     (lambda'·x' - y') - lambda'·xP·v + yP·v·w,
 * i.e. the slots c0.c0, c0.c1 and c1.c1 of Fp12 (fp12_mul_by_014).  Any
 * further Fp2 factor of a line is removed the same way, so the projective
 * formulas below never divide.  x < 0 is handled by conjugating f at the end. */
#include "bls12_381/pairing.h"

#include "bls12_381/curve_param.h"


/* 3b' = 12(1 + u), Montgomery form */
static const fp2_t THREE_B = { { {
	0x447600000027552eULL, 0xdcb8009a43480020ULL, 0x6f7ee9ce4a6e8b59ULL,
	0xb10330b7c0a95bc6ULL, 0x6140b1fcfb1e54b7ULL, 0x0381be097f0bb4e1ULL,
} }, { {
	0x447600000027552eULL, 0xdcb8009a43480020ULL, 0x6f7ee9ce4a6e8b59ULL,
	0xb10330b7c0a95bc6ULL, 0x6140b1fcfb1e54b7ULL, 0x0381be097f0bb4e1ULL,
} } };
/* 1/2 in Fp, Montgomery form */
static const fp_t HALF = { {
	0x1804000000015554ULL, 0x855000053ab00001ULL, 0x633cb57c253c276fULL,
	0x6e22d1ec31ebb502ULL, 0xd3916126f2d14ca2ULL, 0x17fbb8571a006596ULL,
} };

typedef struct {
	fp2_t X, Y, Z;
} twist_proj_t;

/* T = 2T, and f = f·(tangent line at T)(P).  The line, scaled by 2YZ^2/Z:
 *   l0 = Y^2 - 3b'Z^2,  l1 = -3X^2·xP,  l4 = 2YZ·yP.
 * Doubling (Costello, Lange, Naehrig, "Faster pairing computations on curves
 * with high-degree twists", 2010, a = 0):
 *   X3 = XY/2·(Y^2 - 9b'Z^2), Y3 = ((Y^2 + 9b'Z^2)/2)^2 - 27b'^2·Z^4, Z3 = 2Y^3·Z. */
static void step_double(fp12_t *f, twist_proj_t *t, const g1_aff_t *p)
{
	fp2_t yy, bzz, xx, yz, l0, l1, l4, nine_bzz, u, w;
	fp2_sqr(&yy, &t->Y);
	fp2_sqr(&bzz, &t->Z);
	fp2_mul(&bzz, &bzz, &THREE_B);          /* 3b'Z^2 */
	fp2_sqr(&xx, &t->X);
	fp2_mul(&yz, &t->Y, &t->Z);

	fp2_sub(&l0, &yy, &bzz);
	fp2_dbl(&l1, &xx);
	fp2_add(&l1, &l1, &xx);
	fp2_mul_fp(&l1, &l1, &p->x);
	fp2_neg(&l1, &l1);
	fp2_dbl(&l4, &yz);
	fp2_mul_fp(&l4, &l4, &p->y);

	fp2_dbl(&nine_bzz, &bzz);
	fp2_add(&nine_bzz, &nine_bzz, &bzz);    /* 9b'Z^2 */
	fp2_sub(&u, &yy, &nine_bzz);
	fp2_mul(&w, &t->X, &t->Y);
	fp2_mul_fp(&w, &w, &HALF);
	fp2_mul(&t->X, &w, &u);                 /* X3 */
	fp2_add(&u, &yy, &nine_bzz);
	fp2_mul_fp(&u, &u, &HALF);
	fp2_sqr(&u, &u);
	fp2_sqr(&w, &bzz);                      /* 27b'^2 Z^4 = 3·(3b'Z^2)^2 */
	fp2_sub(&u, &u, &w);
	fp2_sub(&u, &u, &w);
	fp2_sub(&t->Y, &u, &w);                 /* Y3 */
	fp2_mul(&t->Z, &yy, &yz);
	fp2_dbl(&t->Z, &t->Z);                  /* Z3 = 2·Y^2·(YZ) */

	fp12_mul_by_014(f, f, &l0, &l1, &l4);
}

/* T = T + Q (Q affine), and f = f·(line through T and Q)(P).  With
 * u = yQ·Z - Y and v = xQ·Z - X the slope is u/v; the line, scaled by v:
 *   l0 = u·xQ - v·yQ,  l1 = -u·xP,  l4 = v·yP.
 * Addition (Cohen, Miyaji, Ono 1998, homogeneous, mixed):
 *   A = u^2·Z - v^3 - 2v^2·X, X3 = v·A, Y3 = u(v^2·X - A) - v^3·Y, Z3 = v^3·Z.
 * Q is in G2 and T a multiple of it below |x| < r, so T = ±Q cannot occur. */
static void step_add(fp12_t *f, twist_proj_t *t, const g2_aff_t *q, const g1_aff_t *p)
{
	fp2_t u, v, l0, l1, l4, vv, vvv, vvx, A, w;
	fp2_mul(&u, &q->y, &t->Z);
	fp2_sub(&u, &u, &t->Y);
	fp2_mul(&v, &q->x, &t->Z);
	fp2_sub(&v, &v, &t->X);

	fp2_mul(&l0, &u, &q->x);
	fp2_mul(&w, &v, &q->y);
	fp2_sub(&l0, &l0, &w);
	fp2_mul_fp(&l1, &u, &p->x);
	fp2_neg(&l1, &l1);
	fp2_mul_fp(&l4, &v, &p->y);

	fp2_sqr(&vv, &v);
	fp2_mul(&vvv, &vv, &v);
	fp2_mul(&vvx, &vv, &t->X);
	fp2_sqr(&A, &u);
	fp2_mul(&A, &A, &t->Z);
	fp2_sub(&A, &A, &vvv);
	fp2_sub(&A, &A, &vvx);
	fp2_sub(&A, &A, &vvx);
	fp2_mul(&t->X, &v, &A);
	fp2_sub(&w, &vvx, &A);
	fp2_mul(&w, &w, &u);
	fp2_mul(&t->Y, &vvv, &t->Y);
	fp2_sub(&t->Y, &w, &t->Y);
	fp2_mul(&t->Z, &vvv, &t->Z);

	fp12_mul_by_014(f, f, &l0, &l1, &l4);
}

/* Pairs share the squarings of f; this many running points live on the stack. */
#define MILLER_CHUNK 8

static void miller_loop_chunk(fp12_t *f, const g1_aff_t *p, const g2_aff_t *q, size_t n)
{
	twist_proj_t t[MILLER_CHUNK];
	for (size_t i = 0; i < n; i++) {
		t[i].X = q[i].x;
		t[i].Y = q[i].y;
		t[i].Z = FP2_ONE;
	}
	fp12_set_one(f);
	/* the top bit of |x| is T = Q itself; walk the remaining 63 bits */
	for (int bit = 62; bit >= 0; bit--) {
		fp12_sqr(f, f);
		for (size_t i = 0; i < n; i++) {
			step_double(f, &t[i], &p[i]);
			if ((BLS_X_ABS >> bit) & 1)
				step_add(f, &t[i], &q[i], &p[i]);
		}
	}
	/* x < 0: f_{x,Q} = 1/f_{|x|,Q} up to a vertical line, and 1/f is conj(f)
	 * after the final exponentiation */
	fp12_conj(f, f);
}

void bls_miller_loop(fp12_t *f, const g1_aff_t *p, const g2_aff_t *q, size_t n)
{
	g1_aff_t pc[MILLER_CHUNK];
	g2_aff_t qc[MILLER_CHUNK];
	size_t k = 0;
	fp12_set_one(f);
	for (size_t i = 0; i < n; i++) {
		/* a pair with a point at infinity contributes 1 */
		if (g1_aff_is_infinity(&p[i]) || g2_aff_is_infinity(&q[i]))
			continue;
		pc[k] = p[i];
		qc[k] = q[i];
		if (++k == MILLER_CHUNK) {
			fp12_t fc;
			miller_loop_chunk(&fc, pc, qc, k);
			fp12_mul(f, f, &fc);
			k = 0;
		}
	}
	if (k > 0) {
		fp12_t fc;
		miller_loop_chunk(&fc, pc, qc, k);
		fp12_mul(f, f, &fc);
	}
}

/* a^x for a in the cyclotomic subgroup: |x| by cyclotomic squarings, then
 * conjugation for the sign. */
static void cyclotomic_exp_by_x(fp12_t *r, const fp12_t *a)
{
	fp12_t acc = *a;
	for (int bit = 62; bit >= 0; bit--) {
		fp12_cyclotomic_sqr(&acc, &acc);
		if ((BLS_X_ABS >> bit) & 1)
			fp12_mul(&acc, &acc, a);
	}
	fp12_conj(r, &acc);
}

/* f^((p^12 - 1)/r · 3).  Easy part f^((p^6 - 1)(p^2 + 1)), then the hard
 * part through the decomposition
 *   3(p^4 - p^2 + 1)/r = l0 + l1·p + l2·p^2 + l3·p^3,
 *   l3 = (x - 1)^2, l2 = l3·x, l1 = l2·x - l3, l0 = l1·x + 3
 * (Hayashida, Hayasaka, Teruya, ePrint 2020/875).  The cube is harmless (3 is
 * prime to r) and it is the value blst, zkcrypto and noble compute as well. */
void bls_final_exp(fp12_t *r, const fp12_t *f)
{
	fp12_t t, u, a, b, c, d;
	/* easy part */
	fp12_inv(&u, f);
	fp12_conj(&t, f);
	fp12_mul(&t, &t, &u);                   /* f^(p^6 - 1) */
	fp12_frobenius(&u, &t, 2);
	fp12_mul(&t, &u, &t);                   /* ^(p^2 + 1) */
	/* a = t^((x - 1)^2) */
	cyclotomic_exp_by_x(&a, &t);
	fp12_conj(&u, &t);
	fp12_mul(&a, &a, &u);                   /* t^(x - 1) */
	cyclotomic_exp_by_x(&u, &a);
	fp12_conj(&a, &a);
	fp12_mul(&a, &u, &a);                   /* t^((x - 1)^2) = t^l3 */
	cyclotomic_exp_by_x(&b, &a);            /* t^l2 */
	cyclotomic_exp_by_x(&c, &b);
	fp12_conj(&u, &a);
	fp12_mul(&c, &c, &u);                   /* t^l1 */
	cyclotomic_exp_by_x(&d, &c);
	fp12_cyclotomic_sqr(&u, &t);
	fp12_mul(&u, &u, &t);
	fp12_mul(&d, &d, &u);                   /* t^l0 */
	fp12_frobenius(&u, &c, 1);
	fp12_mul(&d, &d, &u);
	fp12_frobenius(&u, &b, 2);
	fp12_mul(&d, &d, &u);
	fp12_frobenius(&u, &a, 3);
	fp12_mul(r, &d, &u);
}

void bls_pairing(fp12_t *r, const g1_aff_t *p, const g2_aff_t *q)
{
	fp12_t f;
	bls_miller_loop(&f, p, q, 1);
	bls_final_exp(r, &f);
}

int bls_pairing_product_is_one(const g1_aff_t *p, const g2_aff_t *q, size_t n)
{
	fp12_t f, r;
	bls_miller_loop(&f, p, q, n);
	bls_final_exp(&r, &f);
	return fp12_is_one(&r);
}
