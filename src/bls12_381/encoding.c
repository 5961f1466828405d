// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The zcash point encodings.  Decoding checks, in this order: length, flag
 * bits, canonical coordinates, the curve equation (or the existence of y),
 * then the subgroup; each failure names the group and what is wrong. */
#include "bls12_381/encoding.h"

#include <string.h>

#define FLAG_COMPRESSED 0x80
#define FLAG_INFINITY 0x40
#define FLAG_SORT 0x20
#define FLAG_MASK 0xe0


/* Writes 0xc0 (compressed) or 0x40 then zeros: the point at infinity. */
static void encode_infinity(uint8_t *out, size_t len, int compressed)
{
	memset(out, 0, len);
	out[0] = compressed ? (FLAG_COMPRESSED | FLAG_INFINITY) : FLAG_INFINITY;
}

void g1_encode_compressed(uint8_t out[48], const g1_aff_t *p)
{
	if (g1_aff_is_infinity(p)) {
		encode_infinity(out, 48, 1);
		return;
	}
	fp_to_be_bytes(out, &p->x);
	out[0] |= FLAG_COMPRESSED;
	if (fp_is_lexicographically_largest(&p->y))
		out[0] |= FLAG_SORT;
}

void g1_encode_uncompressed(uint8_t out[96], const g1_aff_t *p)
{
	if (g1_aff_is_infinity(p)) {
		encode_infinity(out, 96, 0);
		return;
	}
	fp_to_be_bytes(out, &p->x);
	fp_to_be_bytes(out + 48, &p->y);
}

/* Fp2 as c1 then c0 */
static void fp2_to_be_bytes(uint8_t out[96], const fp2_t *a)
{
	fp_to_be_bytes(out, &a->c1);
	fp_to_be_bytes(out + 48, &a->c0);
}

void g2_encode_compressed(uint8_t out[96], const g2_aff_t *p)
{
	if (g2_aff_is_infinity(p)) {
		encode_infinity(out, 96, 1);
		return;
	}
	fp2_to_be_bytes(out, &p->x);
	out[0] |= FLAG_COMPRESSED;
	if (fp2_is_lexicographically_largest(&p->y))
		out[0] |= FLAG_SORT;
}

void g2_encode_uncompressed(uint8_t out[192], const g2_aff_t *p)
{
	if (g2_aff_is_infinity(p)) {
		encode_infinity(out, 192, 0);
		return;
	}
	fp2_to_be_bytes(out, &p->x);
	fp2_to_be_bytes(out + 96, &p->y);
}

/* What the flag byte and the length say, shared by G1 and G2.  Returns 0
 * and sets *compressed / *infinity / *sort, or fails with a message that
 * starts with the group's name. */
static int decode_flags(const char *group, const uint8_t *in, size_t len, size_t compressed_len,
			int *compressed, int *infinity, int *sort, cuzk_error *err)
{
	if (len != compressed_len && len != 2 * compressed_len)
		return err_fail(err, CUZK_E_LENGTH, "%s point: length %zu, expected %zu (compressed) or %zu (uncompressed)",
				group, len, compressed_len, 2 * compressed_len);
	*compressed = (in[0] & FLAG_COMPRESSED) != 0;
	*infinity = (in[0] & FLAG_INFINITY) != 0;
	*sort = (in[0] & FLAG_SORT) != 0;
	if (*compressed && len != compressed_len)
		return err_fail(err, CUZK_E_FLAGS, "%s point: compression flag set on a %zu-byte (uncompressed) encoding",
				group, len);
	if (!*compressed && len == compressed_len)
		return err_fail(err, CUZK_E_FLAGS, "%s point: compression flag missing on a %zu-byte (compressed) encoding",
				group, len);
	if (*infinity) {
		if (*sort)
			return err_fail(err, CUZK_E_FLAGS, "%s point: sort flag set on the point at infinity", group);
		uint8_t any = in[0] & (uint8_t)~FLAG_MASK;
		for (size_t i = 1; i < len; i++)
			any |= in[i];
		if (any)
			return err_fail(err, CUZK_E_FLAGS, "%s point: infinity flag set but the coordinate bytes are not all zero",
					group);
		return 0;
	}
	if (*sort && !*compressed)
		return err_fail(err, CUZK_E_FLAGS, "%s point: sort flag set on an uncompressed encoding", group);
	return 0;
}

/* An Fp coordinate from 48 big-endian bytes; the first byte's flag bits
 * are cleared by the caller's copy. */
static int decode_fp(fp_t *r, const uint8_t in[48], const char *group, const char *name, cuzk_error *err)
{
	if (fp_from_be_bytes(r, in) < 0)
		return err_fail(err, CUZK_E_NONCANONICAL, "%s point: %s coordinate not canonical (>= p)", group, name);
	return 0;
}

/* The part's name is spelled out only for a failure: the params decode
 * 2^14 and more of these (four snprintf per G2 point cost more than the
 * point's on-curve check). */
static int decode_fp2(fp2_t *r, const uint8_t in[96], const char *group, const char *name, cuzk_error *err)
{
	if (fp_from_be_bytes(&r->c1, in) < 0)
		return err_fail(err, CUZK_E_NONCANONICAL, "%s point: %s.c1 coordinate not canonical (>= p)",
				group, name);
	if (fp_from_be_bytes(&r->c0, in + 48) < 0)
		return err_fail(err, CUZK_E_NONCANONICAL, "%s point: %s.c0 coordinate not canonical (>= p)",
				group, name);
	return 0;
}


#define EC(name) g1_##name
#define FE(name) fp_##name
#define FE_T fp_t
#define EC_AFF_T g1_aff_t
#define FE_BYTES 48
#define FE_DECODE decode_fp
#define EC_B G1_B
#define B_TEXT "4"
#define GROUP "G1"
#include "bls12_381/decode_impl.h"
#undef EC
#undef FE
#undef FE_T
#undef EC_AFF_T
#undef FE_BYTES
#undef FE_DECODE
#undef EC_B
#undef B_TEXT
#undef GROUP

#define EC(name) g2_##name
#define FE(name) fp2_##name
#define FE_T fp2_t
#define EC_AFF_T g2_aff_t
#define FE_BYTES 96
#define FE_DECODE decode_fp2
#define EC_B G2_B
#define B_TEXT "4(1+u)"
#define GROUP "G2"
#include "bls12_381/decode_impl.h"
