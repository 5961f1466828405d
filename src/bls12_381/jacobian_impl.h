// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Short Weierstrass y^2 = x^3 + b (a = 0) in Jacobian coordinates, written
 * once for G1 (over Fp) and G2 (over Fp2).  Internal to src/bls12_381: g1.c
 * and g2.c each include it once, after defining
 *   EC(name)   the public name of a point operation (g1_##name)
 *   FE(name)   the field operation (fp_##name)
 *   FE_T, EC_AFF_T, EC_JAC_T   the field and point types
 *   FE_ZERO, FE_ONE            field constants
 *   EC_B                       the curve constant b (a FE_T)
 * Formulas from the Explicit-Formulas Database (hyperelliptic.org/EFD,
 * g1p/auto-shortw-jacobian-0): dbl-2009-l, add-2007-bl, madd-2007-bl. */
#ifndef EC
#error "define EC, FE, FE_T, EC_AFF_T, EC_JAC_T, FE_ZERO, FE_ONE and EC_B before including jacobian_impl.h"
#endif

#include <stdlib.h>
#include <string.h>

void EC(set_infinity)(EC_JAC_T *r)
{
	r->X = FE_ONE;
	r->Y = FE_ONE;
	r->Z = FE_ZERO;
}

int EC(is_infinity)(const EC_JAC_T *p)
{
	return FE(is_zero)(&p->Z);
}

int EC(aff_is_infinity)(const EC_AFF_T *p)
{
	return FE(is_zero)(&p->x) & FE(is_zero)(&p->y);
}

void EC(from_affine)(EC_JAC_T *r, const EC_AFF_T *p)
{
	if (EC(aff_is_infinity)(p)) {
		EC(set_infinity)(r);
		return;
	}
	r->X = p->x;
	r->Y = p->y;
	r->Z = FE_ONE;
}

/* (X/Z^2, Y/Z^3) given zinv = 1/Z */
static void EC(affine_with_zinv)(EC_AFF_T *r, const EC_JAC_T *p, const FE_T *zinv)
{
	FE_T z2, z3;
	FE(sqr)(&z2, zinv);
	FE(mul)(&z3, &z2, zinv);
	FE(mul)(&r->x, &p->X, &z2);
	FE(mul)(&r->y, &p->Y, &z3);
}

void EC(to_affine)(EC_AFF_T *r, const EC_JAC_T *p)
{
	if (EC(is_infinity)(p)) {
		memset(r, 0, sizeof *r);
		return;
	}
	FE_T zinv;
	FE(inv)(&zinv, &p->Z);
	EC(affine_with_zinv)(r, p, &zinv);
}

void EC(to_affine_zinv)(EC_AFF_T *r, const EC_JAC_T *p, const FE_T *zinv)
{
	if (EC(is_infinity)(p)) {
		memset(r, 0, sizeof *r);
		return;
	}
	EC(affine_with_zinv)(r, p, zinv);
}

/* Montgomery's trick over the Z coordinates: prefix products go in out[i].x
 * (out is the scratch), one inversion, then walk back.  Infinities are
 * skipped in the products and come out all-zero. */
void EC(batch_to_affine)(EC_AFF_T *out, const EC_JAC_T *in, size_t n)
{
	FE_T acc = FE_ONE;
	for (size_t i = 0; i < n; i++) {
		out[i].x = acc;
		if (!EC(is_infinity)(&in[i]))
			FE(mul)(&acc, &acc, &in[i].Z);
	}
	FE(inv)(&acc, &acc);
	for (size_t i = n; i-- > 0;) {
		if (EC(is_infinity)(&in[i])) {
			memset(&out[i], 0, sizeof out[i]);
			continue;
		}
		FE_T zinv;
		FE(mul)(&zinv, &acc, &out[i].x);
		FE(mul)(&acc, &acc, &in[i].Z);
		EC(affine_with_zinv)(&out[i], &in[i], &zinv);
	}
}

/* dbl-2009-l: 2M + 5S.  A 2-torsion point (Y = 0) gives Z3 = 0, as it should. */
void EC(dbl)(EC_JAC_T *r, const EC_JAC_T *p)
{
	FE_T A, B, C, D, E, F, t;
	FE(sqr)(&A, &p->X);                 /* A = X1^2 */
	FE(sqr)(&B, &p->Y);                 /* B = Y1^2 */
	FE(sqr)(&C, &B);                    /* C = B^2 */
	FE(add)(&D, &p->X, &B);
	FE(sqr)(&D, &D);
	FE(sub)(&D, &D, &A);
	FE(sub)(&D, &D, &C);
	FE(dbl)(&D, &D);                    /* D = 2((X1 + B)^2 - A - C) */
	FE(dbl)(&E, &A);
	FE(add)(&E, &E, &A);                /* E = 3A */
	FE(sqr)(&F, &E);                    /* F = E^2 */
	FE(mul)(&r->Z, &p->Y, &p->Z);
	FE(dbl)(&r->Z, &r->Z);              /* Z3 = 2·Y1·Z1 */
	FE(dbl)(&t, &D);
	FE(sub)(&r->X, &F, &t);             /* X3 = F - 2D */
	FE(sub)(&t, &D, &r->X);
	FE(mul)(&t, &E, &t);
	FE(dbl)(&C, &C);
	FE(dbl)(&C, &C);
	FE(dbl)(&C, &C);
	FE(sub)(&r->Y, &t, &C);             /* Y3 = E(D - X3) - 8C */
}

/* H = 0 in an addition: the inputs share x, so they are equal (double a)
 * or opposite (infinity).  Returns 1 when it has set r. */
static int EC(add_same_x)(EC_JAC_T *r, const EC_JAC_T *a, const FE_T *h, const FE_T *rr)
{
	if (!FE(is_zero)(h))
		return 0;
	if (FE(is_zero)(rr))
		EC(dbl)(r, a);
	else
		EC(set_infinity)(r);
	return 1;
}

/* The common end of add-2007-bl and madd-2007-bl:
 * X3 = r^2 - J - 2V, Y3 = r(V - X3) - 2·S·J (S = S1, or Y1 for madd).
 * s may alias r->Y; Z3 is the caller's. */
static void EC(add_finish)(EC_JAC_T *r, const FE_T *rr, const FE_T *j, const FE_T *v, const FE_T *s)
{
	FE_T sj, t;
	FE(mul)(&sj, s, j);
	FE(dbl)(&sj, &sj);
	FE(sqr)(&t, rr);
	FE(sub)(&t, &t, j);
	FE(sub)(&t, &t, v);
	FE(sub)(&r->X, &t, v);
	FE(sub)(&t, v, &r->X);
	FE(mul)(&t, rr, &t);
	FE(sub)(&r->Y, &t, &sj);
}

/* add-2007-bl: 11M + 5S, with the exceptional cases (an input at infinity,
 * P = Q, P = -Q) handled before they could produce a wrong Z = 0 result. */
void EC(add)(EC_JAC_T *r, const EC_JAC_T *a, const EC_JAC_T *b)
{
	if (EC(is_infinity)(a)) {
		*r = *b;
		return;
	}
	if (EC(is_infinity)(b)) {
		*r = *a;
		return;
	}
	FE_T z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
	FE(sqr)(&z1z1, &a->Z);
	FE(sqr)(&z2z2, &b->Z);
	FE(mul)(&u1, &a->X, &z2z2);         /* U1 = X1·Z2Z2 */
	FE(mul)(&u2, &b->X, &z1z1);         /* U2 = X2·Z1Z1 */
	FE(mul)(&s1, &a->Y, &b->Z);
	FE(mul)(&s1, &s1, &z2z2);           /* S1 = Y1·Z2·Z2Z2 */
	FE(mul)(&s2, &b->Y, &a->Z);
	FE(mul)(&s2, &s2, &z1z1);           /* S2 = Y2·Z1·Z1Z1 */
	FE(sub)(&h, &u2, &u1);              /* H = U2 - U1 */
	FE(sub)(&rr, &s2, &s1);
	FE(dbl)(&rr, &rr);                  /* r = 2(S2 - S1) */
	if (EC(add_same_x)(r, a, &h, &rr))
		return;
	FE(dbl)(&i, &h);
	FE(sqr)(&i, &i);                    /* I = (2H)^2 */
	FE(mul)(&j, &h, &i);                /* J = H·I */
	FE(mul)(&v, &u1, &i);               /* V = U1·I */
	FE(add)(&t, &a->Z, &b->Z);
	FE(sqr)(&t, &t);
	FE(sub)(&t, &t, &z1z1);
	FE(sub)(&t, &t, &z2z2);
	FE(mul)(&r->Z, &t, &h);             /* Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2)·H */
	EC(add_finish)(r, &rr, &j, &v, &s1);
}

/* madd-2007-bl: 7M + 4S, same exceptional cases as add. */
void EC(add_affine)(EC_JAC_T *r, const EC_JAC_T *a, const EC_AFF_T *b)
{
	if (EC(aff_is_infinity)(b)) {
		*r = *a;
		return;
	}
	if (EC(is_infinity)(a)) {
		EC(from_affine)(r, b);
		return;
	}
	FE_T z1z1, u2, s2, h, hh, i, j, rr, v, t;
	FE(sqr)(&z1z1, &a->Z);
	FE(mul)(&u2, &b->x, &z1z1);         /* U2 = X2·Z1Z1 */
	FE(mul)(&s2, &b->y, &a->Z);
	FE(mul)(&s2, &s2, &z1z1);           /* S2 = Y2·Z1·Z1Z1 */
	FE(sub)(&h, &u2, &a->X);            /* H = U2 - X1 */
	FE(sub)(&rr, &s2, &a->Y);
	FE(dbl)(&rr, &rr);                  /* r = 2(S2 - Y1) */
	if (EC(add_same_x)(r, a, &h, &rr))
		return;
	FE(sqr)(&hh, &h);                   /* HH = H^2 */
	FE(dbl)(&i, &hh);
	FE(dbl)(&i, &i);                    /* I = 4·HH */
	FE(mul)(&j, &h, &i);                /* J = H·I */
	FE(mul)(&v, &a->X, &i);             /* V = X1·I */
	/* Y1 is needed after Z3 is written, and r may alias a */
	FE_T y1 = a->Y;
	FE(add)(&t, &a->Z, &h);
	FE(sqr)(&t, &t);
	FE(sub)(&t, &t, &z1z1);
	FE(sub)(&r->Z, &t, &hh);            /* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
	EC(add_finish)(r, &rr, &j, &v, &y1);
}

void EC(neg)(EC_JAC_T *r, const EC_JAC_T *p)
{
	r->X = p->X;
	FE(neg)(&r->Y, &p->Y);
	r->Z = p->Z;
}

void EC(aff_neg)(EC_AFF_T *r, const EC_AFF_T *p)
{
	r->x = p->x;
	FE(neg)(&r->y, &p->y);   /* -0 = 0: infinity stays all-zero */
}

/* X1·Z2^2 = X2·Z1^2 and Y1·Z2^3 = Y2·Z1^3 */
int EC(eq)(const EC_JAC_T *a, const EC_JAC_T *b)
{
	int ia = EC(is_infinity)(a), ib = EC(is_infinity)(b);
	if (ia | ib)
		return ia & ib;
	FE_T z1z1, z2z2, l, rgt;
	FE(sqr)(&z1z1, &a->Z);
	FE(sqr)(&z2z2, &b->Z);
	FE(mul)(&l, &a->X, &z2z2);
	FE(mul)(&rgt, &b->X, &z1z1);
	if (!FE(eq)(&l, &rgt))
		return 0;
	FE(mul)(&z1z1, &z1z1, &a->Z);
	FE(mul)(&z2z2, &z2z2, &b->Z);
	FE(mul)(&l, &a->Y, &z2z2);
	FE(mul)(&rgt, &b->Y, &z1z1);
	return FE(eq)(&l, &rgt);
}

int EC(aff_eq)(const EC_AFF_T *a, const EC_AFF_T *b)
{
	return FE(eq)(&a->x, &b->x) & FE(eq)(&a->y, &b->y);
}

int EC(aff_is_on_curve)(const EC_AFF_T *p)
{
	if (EC(aff_is_infinity)(p))
		return 1;
	FE_T lhs, rhs;
	FE(sqr)(&lhs, &p->y);
	FE(sqr)(&rhs, &p->x);
	FE(mul)(&rhs, &rhs, &p->x);
	FE(add)(&rhs, &rhs, &EC_B);
	return FE(eq)(&lhs, &rhs);
}

/* sel = table[digit] of 16 entries by a masked scan of all 16, so that the
 * memory access pattern does not depend on the digit. */
static void EC(select16)(EC_JAC_T *sel, const EC_JAC_T table[16], unsigned digit)
{
	memset(sel, 0, sizeof *sel);
	for (unsigned i = 0; i < 16; i++) {
		/* mask = all-ones iff i == digit, without a branch */
		uint64_t mask = (uint64_t)0 - (uint64_t)(((i ^ digit) - 1u) >> 31 & 1u);
		const uint64_t *src = (const uint64_t *)&table[i];
		uint64_t *dst = (uint64_t *)sel;
		for (size_t l = 0; l < sizeof *sel / sizeof(uint64_t); l++)
			dst[l] |= src[l] & mask;
	}
}

/* table[i] = i·p for i < 16. */
static void EC(table16)(EC_JAC_T table[16], const EC_JAC_T *p)
{
	EC(set_infinity)(&table[0]);
	table[1] = *p;
	for (int i = 2; i < 16; i++)
		EC(add)(&table[i], &table[i - 1], p);
}

static unsigned EC(digit4)(const uint64_t k[4], int w)
{
	return (unsigned)(k[w / 16] >> (4 * (w % 16))) & 15;
}

/* Fixed 4-bit windows, MSB first: 252 doublings and 64 additions whatever
 * the scalar, and each table entry is fetched by a masked scan of all 16 so
 * the memory access pattern does not depend on the digits (r and s of a
 * proof go through here). */
void EC(mul)(EC_JAC_T *r, const EC_JAC_T *p, const uint64_t k[4])
{
	EC_JAC_T table[16], acc, sel;
	EC(table16)(table, p);
	EC(set_infinity)(&acc);
	for (int w = 63; w >= 0; w--) {
		for (int d = 0; d < 4; d++)
			EC(dbl)(&acc, &acc);
		EC(select16)(&sel, table, EC(digit4)(k, w));
		EC(add)(&acc, &acc, &sel);
	}
	*r = acc;
	/* the table and accumulator held multiples that reveal the scalar */
	explicit_bzero(table, sizeof table);
	explicit_bzero(&acc, sizeof acc);
	explicit_bzero(&sel, sizeof sel);
}

/* Straus's trick on EC(mul)'s windows: one table per point, one chain of
 * doublings for both, so 252 doublings and 128 additions instead of 504 and
 * 128 (and the final addition) for two EC(mul).  The same fixed windows and
 * masked scans: the operations and memory accesses depend on neither
 * scalar, as in EC(mul). */
void EC(mul2)(EC_JAC_T *r, const EC_JAC_T *p1, const uint64_t k1[4], const EC_JAC_T *p2, const uint64_t k2[4])
{
	EC_JAC_T t1[16], t2[16], acc, sel;
	EC(table16)(t1, p1);
	EC(table16)(t2, p2);
	EC(set_infinity)(&acc);
	for (int w = 63; w >= 0; w--) {
		for (int d = 0; d < 4; d++)
			EC(dbl)(&acc, &acc);
		EC(select16)(&sel, t1, EC(digit4)(k1, w));
		EC(add)(&acc, &acc, &sel);
		EC(select16)(&sel, t2, EC(digit4)(k2, w));
		EC(add)(&acc, &acc, &sel);
	}
	*r = acc;
	explicit_bzero(t1, sizeof t1);
	explicit_bzero(t2, sizeof t2);
	explicit_bzero(&acc, sizeof acc);
	explicit_bzero(&sel, sizeof sel);
}

void EC(mul_fr)(EC_JAC_T *r, const EC_JAC_T *p, const fr_t *k)
{
	uint64_t canon[4];
	fr_from_mont(canon, k);
	EC(mul)(r, p, canon);
	explicit_bzero(canon, sizeof canon);
}

/* k·p for a public 64-bit k (the curve parameter in the subgroup checks). */
static void EC(mul_u64_public)(EC_JAC_T *r, const EC_JAC_T *p, uint64_t k)
{
	EC_JAC_T acc;
	EC(set_infinity)(&acc);
	for (int bit = 63; bit >= 0; bit--) {
		EC(dbl)(&acc, &acc);
		if ((k >> bit) & 1)
			EC(add)(&acc, &acc, p);
	}
	*r = acc;
}
