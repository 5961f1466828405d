// SPDX-License-Identifier: Apache-2.0 OR MIT
/* zcash encodings: known answers (from @noble/curves), round trips, and
 * every rejection case with its code and message. */
#include <stdio.h>
#include <string.h>

#include "bls12_381/encoding.h"
#include "bls12_381/test_rand.h"
#include "../../tests/check.h"

static const char G1_GEN_C[] =
	"97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char G1_GEN_U[] =
	"17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
	"08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";
static const char G1_NEG_GEN_C[] =
	"b7f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char G2_GEN_C[] =
	"93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
	"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
static const char G2_GEN_U[] =
	"13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
	"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
	"0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"
	"0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801";
static const char G2_NEG_GEN_C[] =
	"b3e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
	"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
/* k·G for k = 0x1234567890abcdef1122334455667788fedcba0987654321 */
static const uint64_t KAT_K[4] = { 0xfedcba0987654321ULL, 0x1122334455667788ULL, 0x1234567890abcdefULL, 0 };
static const char KG1_C[] =
	"a3237e6fceebff6d7baffb45bdb1a66c616f8cbcf06f9e4dd84f128f979c52463ae6340aa1e548fad72ba72ab55badf8";
static const char KG2_C[] =
	"aa6fcdac30fb05286fbd59094b8d5e5b01d4e1340428cd5dcbad0d3d7eaae239703192008efb362c4a06e338a60f07a0"
	"0d9498fc2c1526979a63b54c77266d18fe3932b6081dc0538eaf8a4a857e1e60d2c262b2864aedd7af004d7cc8733d1a";
static const char KG2_U[] =
	"0a6fcdac30fb05286fbd59094b8d5e5b01d4e1340428cd5dcbad0d3d7eaae239703192008efb362c4a06e338a60f07a0"
	"0d9498fc2c1526979a63b54c77266d18fe3932b6081dc0538eaf8a4a857e1e60d2c262b2864aedd7af004d7cc8733d1a"
	"12f2fdff4af3e72a1e3fe597ad6bc948ccae921f119ffba31b629b7848f85241618647eb03328fa1d0808ff36f88b603"
	"17cc3a12107c836135747fa85ed810bc061834719d5937cdee7406f4458c3fae28527345a265c4fd8df960d20f4a8b84";
/* p, big-endian */
static const char P_HEX[] =
	"1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";

static size_t unhex(uint8_t *out, const char *hex)
{
	size_t n = strlen(hex) / 2;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		REQUIRE(sscanf(hex + 2 * i, "%2x", &v) == 1);
		out[i] = (uint8_t)v;
	}
	return n;
}

/* The call fails with this code, a message containing this text, and leaves
 * the output alone. */
#define CHECK_REJECT(decode, type, in, len, checks, want, text)                                   \
	do {                                                                                       \
		type out_, before_;                                                                \
		cuzk_error err_ = { 0 };                                                           \
		memset(&out_, 0x5a, sizeof out_);                                                  \
		before_ = out_;                                                                    \
		int rc_ = decode(&out_, in, len, checks, &err_);                                  \
		CHECK_MSG(rc_ == -(want), "rc %d, want %d (%s)", rc_, -(want), err_.msg);          \
		CHECK_MSG(err_.code == (want) && strstr(err_.msg, text) != NULL, "message '%s', want '%s'", err_.msg, text); \
		CHECK(memcmp(&out_, &before_, sizeof out_) == 0);                                  \
	} while (0)

static void test_known_answers(void)
{
	uint8_t want[192], got[192];
	g1_aff_t p1;
	g2_aff_t p2;
	cuzk_error err;

	g1_encode_compressed(got, &G1_GENERATOR);
	CHECK(memcmp(got, want, unhex(want, G1_GEN_C)) == 0);
	g1_encode_uncompressed(got, &G1_GENERATOR);
	CHECK(memcmp(got, want, unhex(want, G1_GEN_U)) == 0);
	g2_encode_compressed(got, &G2_GENERATOR);
	CHECK(memcmp(got, want, unhex(want, G2_GEN_C)) == 0);
	g2_encode_uncompressed(got, &G2_GENERATOR);
	CHECK(memcmp(got, want, unhex(want, G2_GEN_U)) == 0);

	g1_aff_neg(&p1, &G1_GENERATOR);
	g1_encode_compressed(got, &p1);
	CHECK(memcmp(got, want, unhex(want, G1_NEG_GEN_C)) == 0);
	g2_aff_neg(&p2, &G2_GENERATOR);
	g2_encode_compressed(got, &p2);
	CHECK(memcmp(got, want, unhex(want, G2_NEG_GEN_C)) == 0);

	g1_jac_t j1;
	g2_jac_t j2;
	g1_from_affine(&j1, &G1_GENERATOR);
	g1_mul(&j1, &j1, KAT_K);
	g1_to_affine(&p1, &j1);
	g1_encode_compressed(got, &p1);
	CHECK(memcmp(got, want, unhex(want, KG1_C)) == 0);
	g2_from_affine(&j2, &G2_GENERATOR);
	g2_mul(&j2, &j2, KAT_K);
	g2_to_affine(&p2, &j2);
	g2_encode_compressed(got, &p2);
	CHECK(memcmp(got, want, unhex(want, KG2_C)) == 0);
	g2_encode_uncompressed(got, &p2);
	CHECK(memcmp(got, want, unhex(want, KG2_U)) == 0);

	/* and back */
	g2_aff_t d2;
	CHECK(g2_decode(&d2, want, unhex(want, KG2_C), BLS_CHECK_ALL, &err) == 0);
	CHECK(g2_aff_eq(&d2, &p2));
	CHECK(g2_decode(&d2, want, unhex(want, KG2_U), BLS_CHECK_ALL, &err) == 0);
	CHECK(g2_aff_eq(&d2, &p2));
	g1_aff_t d1;
	CHECK(g1_decode(&d1, want, unhex(want, KG1_C), BLS_CHECK_ALL, &err) == 0);
	CHECK(g1_aff_eq(&d1, &p1));
	CHECK(g1_decode(&d1, want, unhex(want, G1_GEN_U), BLS_CHECK_ALL, &err) == 0);
	CHECK(g1_aff_eq(&d1, &G1_GENERATOR));
}

static void test_round_trips(rng_t *rng)
{
	uint8_t buf[192];
	cuzk_error err;
	for (int i = 0; i < 16; i++) {
		fr_t k;
		rand_fr(rng, &k);
		g1_jac_t j1;
		g2_jac_t j2;
		g1_aff_t p1, d1;
		g2_aff_t p2, d2;
		g1_from_affine(&j1, &G1_GENERATOR);
		g1_mul_fr(&j1, &j1, &k);
		g1_to_affine(&p1, &j1);
		g2_from_affine(&j2, &G2_GENERATOR);
		g2_mul_fr(&j2, &j2, &k);
		g2_to_affine(&p2, &j2);
		g1_encode_compressed(buf, &p1);
		CHECK(g1_decode(&d1, buf, 48, BLS_CHECK_ALL, &err) == 0 && g1_aff_eq(&d1, &p1));
		g1_encode_uncompressed(buf, &p1);
		CHECK(g1_decode(&d1, buf, 96, BLS_CHECK_ALL, &err) == 0 && g1_aff_eq(&d1, &p1));
		g2_encode_compressed(buf, &p2);
		CHECK(g2_decode(&d2, buf, 96, BLS_CHECK_ALL, &err) == 0 && g2_aff_eq(&d2, &p2));
		g2_encode_uncompressed(buf, &p2);
		CHECK(g2_decode(&d2, buf, 192, BLS_CHECK_ALL, &err) == 0 && g2_aff_eq(&d2, &p2));
	}
	/* infinity: 0xc0 00.. compressed, 0x40 00.. uncompressed */
	g1_aff_t inf1, d1;
	g2_aff_t inf2, d2;
	memset(&inf1, 0, sizeof inf1);
	memset(&inf2, 0, sizeof inf2);
	static const uint8_t zeros[192];
	g1_encode_compressed(buf, &inf1);
	CHECK(buf[0] == 0xc0 && memcmp(buf + 1, zeros, 47) == 0);
	memset(&d1, 1, sizeof d1);
	CHECK(g1_decode(&d1, buf, 48, BLS_CHECK_ALL, &err) == 0 && g1_aff_is_infinity(&d1));
	g1_encode_uncompressed(buf, &inf1);
	CHECK(buf[0] == 0x40 && memcmp(buf + 1, zeros, 95) == 0);
	memset(&d1, 1, sizeof d1);
	CHECK(g1_decode(&d1, buf, 96, BLS_CHECK_ALL, &err) == 0 && g1_aff_is_infinity(&d1));
	g2_encode_compressed(buf, &inf2);
	CHECK(buf[0] == 0xc0 && memcmp(buf + 1, zeros, 95) == 0);
	memset(&d2, 1, sizeof d2);
	CHECK(g2_decode(&d2, buf, 96, BLS_CHECK_ALL, &err) == 0 && g2_aff_is_infinity(&d2));
	g2_encode_uncompressed(buf, &inf2);
	CHECK(buf[0] == 0x40 && memcmp(buf + 1, zeros, 191) == 0);
	memset(&d2, 1, sizeof d2);
	CHECK(g2_decode(&d2, buf, 192, BLS_CHECK_ALL, &err) == 0 && g2_aff_is_infinity(&d2));
}

static void test_reject_length_and_flags(void)
{
	uint8_t c1[48], u1[96], c2[96], u2[192], b[192];
	g1_encode_compressed(c1, &G1_GENERATOR);
	g1_encode_uncompressed(u1, &G1_GENERATOR);
	g2_encode_compressed(c2, &G2_GENERATOR);
	g2_encode_uncompressed(u2, &G2_GENERATOR);

	/* wrong length */
	CHECK_REJECT(g1_decode, g1_aff_t, c1, 47, BLS_CHECK_ALL, CUZK_E_LENGTH, "G1 point: length 47");
	CHECK_REJECT(g1_decode, g1_aff_t, u1, 95, BLS_CHECK_ALL, CUZK_E_LENGTH, "G1 point: length 95");
	CHECK_REJECT(g1_decode, g1_aff_t, u2, 192, BLS_CHECK_ALL, CUZK_E_LENGTH, "G1 point: length 192");
	CHECK_REJECT(g2_decode, g2_aff_t, c1, 48, BLS_CHECK_ALL, CUZK_E_LENGTH, "G2 point: length 48");
	CHECK_REJECT(g2_decode, g2_aff_t, u2, 191, BLS_CHECK_ALL, CUZK_E_LENGTH, "G2 point: length 191");

	/* the compression flag must agree with the length */
	memcpy(b, u1, 96);
	b[0] |= 0x80;
	CHECK_REJECT(g1_decode, g1_aff_t, b, 96, BLS_CHECK_ALL, CUZK_E_FLAGS, "compression flag set on a 96-byte");
	memcpy(b, c1, 48);
	b[0] &= 0x7f;
	CHECK_REJECT(g1_decode, g1_aff_t, b, 48, BLS_CHECK_ALL, CUZK_E_FLAGS, "compression flag missing on a 48-byte");
	memcpy(b, u2, 192);
	b[0] |= 0x80;
	CHECK_REJECT(g2_decode, g2_aff_t, b, 192, BLS_CHECK_ALL, CUZK_E_FLAGS, "compression flag set on a 192-byte");
	memcpy(b, c2, 96);
	b[0] &= 0x7f;
	CHECK_REJECT(g2_decode, g2_aff_t, b, 96, BLS_CHECK_ALL, CUZK_E_FLAGS, "compression flag missing on a 96-byte");

	/* sort flag on an uncompressed point */
	memcpy(b, u1, 96);
	b[0] |= 0x20;
	CHECK_REJECT(g1_decode, g1_aff_t, b, 96, BLS_CHECK_ALL, CUZK_E_FLAGS, "G1 point: sort flag set on an uncompressed");
	memcpy(b, u2, 192);
	b[0] |= 0x20;
	CHECK_REJECT(g2_decode, g2_aff_t, b, 192, BLS_CHECK_ALL, CUZK_E_FLAGS, "G2 point: sort flag set on an uncompressed");

	/* infinity: non-zero bytes, sort flag */
	static const size_t lens1[2] = { 48, 96 }, lens2[2] = { 96, 192 };
	for (int f = 0; f < 2; f++) {
		uint8_t flag = f == 0 ? 0xc0 : 0x40;
		memset(b, 0, sizeof b);
		b[0] = flag;
		b[lens1[f] - 1] = 1;
		CHECK_REJECT(g1_decode, g1_aff_t, b, lens1[f], BLS_CHECK_ALL, CUZK_E_FLAGS,
			     "G1 point: infinity flag set but the coordinate bytes are not all zero");
		b[lens1[f] - 1] = 0;
		b[0] = flag | 0x01;   /* payload bits in the flag byte */
		CHECK_REJECT(g1_decode, g1_aff_t, b, lens1[f], BLS_CHECK_ALL, CUZK_E_FLAGS, "not all zero");
		b[0] = flag | 0x20;
		CHECK_REJECT(g1_decode, g1_aff_t, b, lens1[f], BLS_CHECK_ALL, CUZK_E_FLAGS,
			     "G1 point: sort flag set on the point at infinity");
		memset(b, 0, sizeof b);
		b[0] = flag;
		b[50] = 7;
		CHECK_REJECT(g2_decode, g2_aff_t, b, lens2[f], BLS_CHECK_ALL, CUZK_E_FLAGS,
			     "G2 point: infinity flag set but the coordinate bytes are not all zero");
		b[50] = 0;
		b[0] = flag | 0x20;
		CHECK_REJECT(g2_decode, g2_aff_t, b, lens2[f], BLS_CHECK_ALL, CUZK_E_FLAGS,
			     "G2 point: sort flag set on the point at infinity");
	}
}

static void test_reject_noncanonical(void)
{
	uint8_t p[48], b[192];
	unhex(p, P_HEX);
	g1_encode_uncompressed(b, &G1_GENERATOR);
	/* x = p (compressed and uncompressed), y = p */
	uint8_t c[48];
	memcpy(c, p, 48);
	c[0] |= 0x80;
	CHECK_REJECT(g1_decode, g1_aff_t, c, 48, BLS_CHECK_ALL, CUZK_E_NONCANONICAL,
		     "G1 point: x coordinate not canonical (>= p)");
	memcpy(b, p, 48);
	CHECK_REJECT(g1_decode, g1_aff_t, b, 96, BLS_CHECK_NONE, CUZK_E_NONCANONICAL,
		     "G1 point: x coordinate not canonical (>= p)");
	g1_encode_uncompressed(b, &G1_GENERATOR);
	memcpy(b + 48, p, 48);
	CHECK_REJECT(g1_decode, g1_aff_t, b, 96, BLS_CHECK_NONE, CUZK_E_NONCANONICAL,
		     "G1 point: y coordinate not canonical (>= p)");
	/* all ones below the flags: 2^381 - 1 > p */
	memset(c, 0xff, 48);
	c[0] = 0x9f;
	CHECK_REJECT(g1_decode, g1_aff_t, c, 48, BLS_CHECK_ALL, CUZK_E_NONCANONICAL, "not canonical");

	/* G2: each of the four coordinates */
	static const char *const names[4] = { "x.c1", "x.c0", "y.c1", "y.c0" };
	for (int i = 0; i < 4; i++) {
		char msg[64];
		g2_encode_uncompressed(b, &G2_GENERATOR);
		memcpy(b + 48 * i, p, 48);
		snprintf(msg, sizeof msg, "G2 point: %s coordinate not canonical (>= p)", names[i]);
		CHECK_REJECT(g2_decode, g2_aff_t, b, 192, BLS_CHECK_NONE, CUZK_E_NONCANONICAL, msg);
	}
	g2_encode_compressed(b, &G2_GENERATOR);
	memcpy(b + 48, p, 48);
	CHECK_REJECT(g2_decode, g2_aff_t, b, 96, BLS_CHECK_ALL, CUZK_E_NONCANONICAL,
		     "G2 point: x.c0 coordinate not canonical (>= p)");
}

/* A curve point outside G1/G2 (cofactor not cleared), from a small x. */
static void curve_point_outside_g1(g1_aff_t *r)
{
	for (uint64_t x = 1;; x++) {
		fp_t rhs;
		fp_from_u64(&r->x, x);
		fp_sqr(&rhs, &r->x);
		fp_mul(&rhs, &rhs, &r->x);
		fp_add(&rhs, &rhs, &G1_B);
		if (fp_sqrt(&r->y, &rhs) && !g1_aff_in_subgroup(r))
			return;
	}
}

static void curve_point_outside_g2(g2_aff_t *r)
{
	for (uint64_t x = 1;; x++) {
		fp2_t rhs;
		fp_from_u64(&r->x.c0, x);
		fp_from_u64(&r->x.c1, 1);
		fp2_sqr(&rhs, &r->x);
		fp2_mul(&rhs, &rhs, &r->x);
		fp2_add(&rhs, &rhs, &G2_B);
		if (fp2_sqrt(&r->y, &rhs) && !g2_aff_in_subgroup(r))
			return;
	}
}

static void test_reject_curve_and_subgroup(void)
{
	uint8_t b[192];
	cuzk_error err;
	g1_aff_t d1;
	g2_aff_t d2;

	/* off the curve: (x, y + 1); only rejected when the curve is checked */
	g1_aff_t off1 = G1_GENERATOR;
	fp_add(&off1.y, &off1.y, &FP_ONE);
	g1_encode_uncompressed(b, &off1);
	CHECK_REJECT(g1_decode, g1_aff_t, b, 96, BLS_CHECK_CURVE, CUZK_E_NOT_ON_CURVE, "G1 point: not on the curve");
	CHECK_REJECT(g1_decode, g1_aff_t, b, 96, BLS_CHECK_SUBGROUP, CUZK_E_NOT_ON_CURVE, "G1 point: not on the curve");
	CHECK(g1_decode(&d1, b, 96, BLS_CHECK_NONE, &err) == 0 && g1_aff_eq(&d1, &off1));
	g2_aff_t off2 = G2_GENERATOR;
	fp2_add(&off2.y, &off2.y, &FP2_ONE);
	g2_encode_uncompressed(b, &off2);
	CHECK_REJECT(g2_decode, g2_aff_t, b, 192, BLS_CHECK_ALL, CUZK_E_NOT_ON_CURVE, "G2 point: not on the curve");
	CHECK(g2_decode(&d2, b, 192, BLS_CHECK_NONE, &err) == 0 && g2_aff_eq(&d2, &off2));

	/* (0, 0) without the infinity flag */
	memset(b, 0, sizeof b);
	CHECK_REJECT(g1_decode, g1_aff_t, b, 96, BLS_CHECK_NONE, CUZK_E_NOT_ON_CURVE, "G1 point: (0, 0)");
	CHECK_REJECT(g2_decode, g2_aff_t, b, 192, BLS_CHECK_NONE, CUZK_E_NOT_ON_CURVE, "G2 point: (0, 0)");

	/* compressed x with no y: the first small x where x^3 + b is a non-square */
	for (uint64_t x = 1;; x++) {
		fp_t fx, rhs, y;
		fp_from_u64(&fx, x);
		fp_sqr(&rhs, &fx);
		fp_mul(&rhs, &rhs, &fx);
		fp_add(&rhs, &rhs, &G1_B);
		if (fp_sqrt(&y, &rhs))
			continue;
		fp_to_be_bytes(b, &fx);
		b[0] |= 0x80;
		CHECK_REJECT(g1_decode, g1_aff_t, b, 48, BLS_CHECK_NONE, CUZK_E_NOT_ON_CURVE,
			     "G1 point: x is not on the curve (x^3 + 4 has no square root)");
		break;
	}
	for (uint64_t x = 1;; x++) {
		fp2_t fx, rhs, y;
		fp_from_u64(&fx.c0, x);
		fx.c1 = FP_ONE;
		fp2_sqr(&rhs, &fx);
		fp2_mul(&rhs, &rhs, &fx);
		fp2_add(&rhs, &rhs, &G2_B);
		if (fp2_sqrt(&y, &rhs))
			continue;
		fp_to_be_bytes(b, &fx.c1);
		fp_to_be_bytes(b + 48, &fx.c0);
		b[0] |= 0x80;
		CHECK_REJECT(g2_decode, g2_aff_t, b, 96, BLS_CHECK_NONE, CUZK_E_NOT_ON_CURVE,
			     "G2 point: x is not on the curve (x^3 + 4(1+u) has no square root)");
		break;
	}

	/* on the curve, outside the subgroup: rejected only with BLS_CHECK_SUBGROUP */
	g1_aff_t out1;
	curve_point_outside_g1(&out1);
	CHECK(g1_aff_is_on_curve(&out1));
	g1_encode_compressed(b, &out1);
	CHECK_REJECT(g1_decode, g1_aff_t, b, 48, BLS_CHECK_ALL, CUZK_E_NOT_IN_SUBGROUP,
		     "G1 point: on the curve but not in the order-r subgroup");
	CHECK(g1_decode(&d1, b, 48, BLS_CHECK_CURVE, &err) == 0 && g1_aff_eq(&d1, &out1));
	g1_encode_uncompressed(b, &out1);
	CHECK_REJECT(g1_decode, g1_aff_t, b, 96, BLS_CHECK_SUBGROUP, CUZK_E_NOT_IN_SUBGROUP, "not in the order-r subgroup");
	CHECK(g1_decode(&d1, b, 96, BLS_CHECK_CURVE, &err) == 0 && g1_aff_eq(&d1, &out1));

	g2_aff_t out2;
	curve_point_outside_g2(&out2);
	CHECK(g2_aff_is_on_curve(&out2));
	g2_encode_compressed(b, &out2);
	CHECK_REJECT(g2_decode, g2_aff_t, b, 96, BLS_CHECK_ALL, CUZK_E_NOT_IN_SUBGROUP,
		     "G2 point: on the curve but not in the order-r subgroup");
	CHECK(g2_decode(&d2, b, 96, BLS_CHECK_CURVE, &err) == 0 && g2_aff_eq(&d2, &out2));
	g2_encode_uncompressed(b, &out2);
	CHECK_REJECT(g2_decode, g2_aff_t, b, 192, BLS_CHECK_SUBGROUP, CUZK_E_NOT_IN_SUBGROUP, "not in the order-r subgroup");
	CHECK(g2_decode(&d2, b, 192, BLS_CHECK_CURVE, &err) == 0 && g2_aff_eq(&d2, &out2));
}

int main(void)
{
	rng_t rng;
	rng_seed(&rng, 0xe9c);
	test_known_answers();
	test_round_trips(&rng);
	test_reject_length_and_flags();
	test_reject_noncanonical();
	test_reject_curve_and_subgroup();
	CHECK_DONE();
}
