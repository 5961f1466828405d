// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Decoding of one zcash-encoded point, written once for G1 and G2.
 * Internal to encoding.c, which includes it once per group after defining
 *   EC(name), FE(name), FE_T, EC_AFF_T   as for jacobian_impl.h
 *   FE_BYTES         bytes of one coordinate (48 or 96)
 *   FE_DECODE        decodes one coordinate, failing with a message
 *   EC_B, B_TEXT     the curve constant b and how messages write it
 *   GROUP            "G1" or "G2" */
#ifndef EC
#error "define EC, FE, FE_T, EC_AFF_T, FE_BYTES, FE_DECODE, EC_B, B_TEXT and GROUP before including decode_impl.h"
#endif

int EC(decode)(EC_AFF_T *r, const uint8_t *in, size_t len, unsigned checks, cuzk_error *err)
{
	int compressed, infinity, sort, rc;
	rc = decode_flags(GROUP, in, len, FE_BYTES, &compressed, &infinity, &sort, err);
	if (rc < 0)
		return rc;
	if (infinity) {
		memset(r, 0, sizeof *r);
		return 0;
	}
	uint8_t x_bytes[FE_BYTES];
	memcpy(x_bytes, in, FE_BYTES);
	x_bytes[0] &= (uint8_t)~FLAG_MASK;
	EC_AFF_T p;
	if ((rc = FE_DECODE(&p.x, x_bytes, GROUP, "x", err)) < 0)
		return rc;
	if (compressed) {
		/* y = ±sqrt(x^3 + b), the sort flag picks the sign */
		FE_T rhs;
		FE(sqr)(&rhs, &p.x);
		FE(mul)(&rhs, &rhs, &p.x);
		FE(add)(&rhs, &rhs, &EC_B);
		if (!FE(sqrt)(&p.y, &rhs))
			return err_fail(err, CUZK_E_NOT_ON_CURVE,
					GROUP " point: x is not on the curve (x^3 + " B_TEXT " has no square root)");
		if (FE(is_lexicographically_largest)(&p.y) != sort)
			FE(neg)(&p.y, &p.y);
	} else {
		if ((rc = FE_DECODE(&p.y, in + FE_BYTES, GROUP, "y", err)) < 0)
			return rc;
		/* (0, 0) is how infinity is stored: without the flag it is just off the curve */
		if (EC(aff_is_infinity)(&p))
			return err_fail(err, CUZK_E_NOT_ON_CURVE,
					GROUP " point: (0, 0) without the infinity flag is not on the curve");
		if ((checks & BLS_CHECK_ALL) && !EC(aff_is_on_curve)(&p))
			return err_fail(err, CUZK_E_NOT_ON_CURVE, GROUP " point: not on the curve y^2 = x^3 + " B_TEXT);
	}
	if ((checks & BLS_CHECK_SUBGROUP) && !EC(aff_in_subgroup)(&p))
		return err_fail(err, CUZK_E_NOT_IN_SUBGROUP, GROUP " point: on the curve but not in the order-r subgroup");
	*r = p;
	return 0;
}
