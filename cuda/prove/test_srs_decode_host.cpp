// SPDX-License-Identifier: Apache-2.0 OR MIT
// The device's per-point decoder of the parameter file
// (cuda/prove/srs_decode.cuh), compiled for the CPU, against src/bls12_381's
// g1_decode / g2_decode at BLS_CHECK_NONE and BLS_CHECK_CURVE: the same
// verdict and the same output bytes (including none written on failure) for
//   valid points: random multiples of the generators, points of the curve
//     outside the subgroup, (0, ±2) on G1, infinity;
//   coordinates anywhere below p, on the curve or not (0, 1, p - 1, random);
//   each flag combination on a point, on infinity and on (0, 0); infinity
//     with each single stray bit; each coordinate at p, p + 1, far above p,
//     with its top bits set; every coordinate's top bits at once; points
//     off the curve; random bit flips and random bytes.
// Every verdict the decoder can give must turn up in both modes, and the
// comparison must catch a wrong byte or verdict fed to it on purpose.
// Runs in every build (no GPU needed).
#include <cstdint>
#include <cstring>
#include <vector>

#include "prove/srs_decode.cuh"

extern "C" {
#include "bls12_381/encoding.h"
#include "bls12_381/fp.h"
#include "bls12_381/g1.h"
#include "bls12_381/g2.h"
#include "common/error.h"
#include "common/rand.h"
#include "prover/curve_ops.h"
#include "prover/fr_sample.h"
}

#include "../../tests/check.h"

namespace {

using bytes = std::vector<uint8_t>;

// What either decoder said about one input: its status and the output's
// bytes (pre-filled, so that a write on failure shows).
struct verdict {
	int rc;
	uint8_t out[sizeof(g2_aff_t)];
};

constexpr uint8_t FILL = 0xa5;

bool same(const verdict &a, const verdict &b, size_t out_len)
{
	return a.rc == b.rc && std::memcmp(a.out, b.out, out_len) == 0;
}

int rc_of(cuzk::decode_status s)
{
	switch (s) {
	case cuzk::decode_status::ok: return 0;
	case cuzk::decode_status::flags: return -CUZK_E_FLAGS;
	case cuzk::decode_status::noncanonical: return -CUZK_E_NONCANONICAL;
	case cuzk::decode_status::not_on_curve: return -CUZK_E_NOT_ON_CURVE;
	}
	return 1;   // no such status: differs from every CPU verdict
}

// The group's host types and functions, by the device field's type.
template <class Aff, class Jac, size_t Size, const curve_ops *Ops,
	  int (*Decode)(Aff *, const uint8_t *, size_t, unsigned, cuzk_error *), void (*Encode)(uint8_t *, const Aff *),
	  class F, cuzk::decode_status (*Device)(cuzk::affine_t<F> &, const uint8_t *, bool)>
struct group_table {
	using aff = Aff;
	using jac = Jac;
	static constexpr size_t SIZE = Size;
	static constexpr const curve_ops *OPS = Ops;
	static int decode(void *r, const uint8_t *in, size_t len, unsigned checks, cuzk_error *err)
	{
		return Decode(static_cast<Aff *>(r), in, len, checks, err);
	}
	static void encode(uint8_t *out, const Aff *p) { Encode(out, p); }
	static cuzk::decode_status device(cuzk::affine_t<F> &r, const uint8_t *in, bool curve)
	{
		return Device(r, in, curve);
	}
};

template <class F> struct group;
template <>
struct group<cuzk::fp_t> : group_table<g1_aff_t, g1_jac_t, G1_UNCOMPRESSED_SIZE, &CURVE_G1, g1_decode,
				       g1_encode_uncompressed, cuzk::fp_t, cuzk::decode_g1> {};
template <>
struct group<cuzk::fp2_t> : group_table<g2_aff_t, g2_jac_t, G2_UNCOMPRESSED_SIZE, &CURVE_G2, g2_decode,
					g2_encode_uncompressed, cuzk::fp2_t, cuzk::decode_g2> {};

// n random multiples of the generator, affine.
template <class F> std::vector<typename group<F>::aff> multiples(size_t n, rng_t *rng)
{
	const curve_ops &ops = *group<F>::OPS;
	std::vector<typename group<F>::jac> jac(n);
	typename group<F>::jac g;
	ops.from_aff(&g, ops.generator);
	for (size_t i = 0; i < n; i++) {
		fr_t k;
		fr_sample_rng(&k, rng);
		ops.mul_fr(&jac[i], &g, &k);
	}
	std::vector<typename group<F>::aff> out(n);
	ops.batch_to_aff(out.data(), jac.data(), n);
	return out;
}

template <class F> verdict cpu_verdict(const bytes &in, bool curve)
{
	using G = group<F>;
	verdict v;
	std::memset(v.out, FILL, sizeof v.out);
	typename G::aff r;
	std::memset(&r, FILL, sizeof r);
	cuzk_error err;
	v.rc = G::decode(&r, in.data(), G::SIZE, curve ? BLS_CHECK_CURVE : BLS_CHECK_NONE, &err);
	std::memcpy(v.out, &r, sizeof r);
	return v;
}

template <class F> verdict device_verdict(const bytes &in, bool curve)
{
	verdict v;
	std::memset(v.out, FILL, sizeof v.out);
	cuzk::affine_t<F> r;
	static_assert(sizeof r == sizeof(typename group<F>::aff), "device points are the host's");
	std::memset(&r, FILL, sizeof r);
	v.rc = rc_of(group<F>::device(r, in.data(), curve));
	std::memcpy(v.out, &r, sizeof r);
	return v;
}

// 48 big-endian bytes of l + d, l as 6 little-endian u64 limbs.
void put_be(uint8_t *out, const uint64_t l[6], int64_t d)
{
	uint64_t v[6], carry = 0;
	const uint64_t ext = d < 0 ? ~0ull : 0;   // d sign-extended to 384 bits
	for (int i = 0; i < 6; i++) {
		const unsigned __int128 t = (unsigned __int128)l[i] + (i ? ext : (uint64_t)d) + carry;
		v[i] = (uint64_t)t;
		carry = (uint64_t)(t >> 64);
	}
	for (int i = 0; i < 48; i++)
		out[i] = (uint8_t)(v[5 - i / 8] >> (56 - 8 * (i % 8)));
}

// The inputs of one group, each to be decoded in both modes.
template <class F> std::vector<bytes> inputs(rng_t *rng)
{
	using G = group<F>;
	constexpr size_t S = G::SIZE, SLOTS = S / 48;   // Fp coordinates in the file
	std::vector<bytes> in;
	auto encoded = [&](const typename G::aff &p) {
		bytes b(S);
		G::encode(b.data(), &p);
		return b;
	};

	// valid: random multiples of the generator (thousands), the generator,
	// infinity (kept last)
	std::vector<bytes> valid;
	for (const auto &p : multiples<F>(2000, rng))
		valid.push_back(encoded(p));
	valid.push_back(encoded(*static_cast<const typename G::aff *>(G::OPS->generator)));
	{
		typename G::aff inf;
		std::memset(&inf, 0, sizeof inf);
		valid.push_back(encoded(inf));   // 0x40 then zeros
	}
	in.insert(in.end(), valid.begin(), valid.end());
	// on the curve, mostly outside the subgroup: random x, y by the CPU's
	// compressed decoding (about half the x have one)
	for (int i = 0; i < 400; i++) {
		bytes c(S / 2);
		rng_bytes(rng, c.data(), c.size());
		for (size_t s = 0; s < c.size(); s += 48)
			c[s] %= 0x1a;   // below p's top byte 0x1a
		if (i < 2)          // x = 0: (0, ±2) on G1, and whatever G2 has there
			std::memset(c.data(), 0, c.size());
		c[0] |= (uint8_t)(0x80 | (i & 1 ? 0x20 : 0));   // compressed, either root
		typename G::aff p;
		cuzk_error err;
		if (G::decode(&p, c.data(), c.size(), BLS_CHECK_CURVE, &err) == 0)
			in.push_back(encoded(p));
	}
	// coordinates below p off the curve (accepted without the curve check):
	// random, and each slot at 0, 1 and p - 1
	for (int i = 0; i < 1000; i++) {
		bytes b(S);
		rng_bytes(rng, b.data(), S);
		for (size_t s = 0; s < SLOTS; s++)
			b[48 * s] %= 0x1a;   // below p's top byte 0x1a
		in.push_back(b);
	}
	const uint64_t zero[6] = {0, 0, 0, 0, 0, 0};
	for (int v : {0, 1, -1})   // -1 for p - 1
		for (size_t s = 0; s < SLOTS; s++)
			for (int rest : {0, 1, -1}) {
				bytes b(S);
				for (size_t t = 0; t < SLOTS; t++) {
					const int pick = t == s ? v : rest;
					put_be(b.data() + 48 * t, pick < 0 ? FP_MODULUS : zero, pick);
				}
				in.push_back(b);   // includes (0, 0) without the infinity flag
			}
	// every flag combination on a point, on infinity's bytes, on (0, 0)
	for (const bytes &base : {valid[0], valid.back(), bytes(S, 0)})
		for (unsigned f = 0; f < 8; f++) {
			bytes b = base;
			b[0] = (uint8_t)((b[0] & 0x1f) | f << 5);
			in.push_back(b);
		}
	// infinity with each single stray bit (byte 0's three flag bits above)
	for (size_t k = 0; k < S; k++)
		for (int bit = 0; bit < (k ? 8 : 5); bit++) {
			bytes b = valid.back();
			b[k] |= (uint8_t)(1u << bit);
			in.push_back(b);
		}
	// each coordinate of a point at p, p + 1, 2^381 - 1 (far above p with
	// no flag bit) and with its top bits set
	for (size_t s = 0; s < SLOTS; s++) {
		for (int d : {0, 1}) {
			bytes b = valid[1];
			put_be(b.data() + 48 * s, FP_MODULUS, d);
			in.push_back(b);
		}
		bytes far = valid[2];
		far[48 * s] = 0x1f;
		std::memset(far.data() + 48 * s + 1, 0xff, 47);
		in.push_back(far);
		for (uint8_t top : {0x20, 0x40, 0x80, 0xe0}) {
			bytes b = valid[3];
			b[48 * s] |= top;
			in.push_back(b);
		}
	}
	{
		bytes b = valid[4];
		for (size_t s = 0; s < SLOTS; s++)
			b[48 * s] |= 0xe0;
		in.push_back(b);
	}
	// off the curve by a little: y's last bit (or x's) flipped
	for (size_t i = 0; i < 200; i++) {
		bytes b = valid[i];
		b[i & 1 ? S - 1 : S / 2 - 1] ^= 1;
		in.push_back(b);
	}
	// random bit flips of valid points, and random bytes
	for (int i = 0; i < 3000; i++) {
		bytes b = valid[rng_next(rng) % valid.size()];
		const size_t bit = rng_next(rng) % (8 * S);
		b[bit / 8] ^= (uint8_t)(1u << bit % 8);
		in.push_back(b);
	}
	for (int i = 0; i < 300; i++) {
		bytes b(S);
		rng_bytes(rng, b.data(), S);
		in.push_back(b);
	}
	return in;
}

// Which verdicts turned up, per mode: 0 ok, then FLAGS, NONCANONICAL, NOT_ON_CURVE.
int kind_of(int rc)
{
	return rc == 0 ? 0 : rc == -CUZK_E_FLAGS ? 1 : rc == -CUZK_E_NONCANONICAL ? 2 : rc == -CUZK_E_NOT_ON_CURVE ? 3 : 4;
}

template <class F> void check_group(rng_t *rng)
{
	using G = group<F>;
	const std::vector<bytes> in = inputs<F>(rng);
	size_t seen[2][5] = {};
	for (int curve = 0; curve < 2; curve++)
		for (size_t i = 0; i < in.size(); i++) {
			const verdict want = cpu_verdict<F>(in[i], curve);
			const verdict got = device_verdict<F>(in[i], curve);
			CHECK_MSG(same(want, got, sizeof(typename G::aff)),
				  "%s input %zu (byte 0 0x%02x), curve %d: CPU %d, device %d%s", G::OPS->name, i, in[i][0],
				  curve, want.rc, got.rc, want.rc == got.rc ? ", bytes differ" : "");
			seen[curve][kind_of(want.rc)]++;
		}
	for (int curve = 0; curve < 2; curve++) {
		for (int k = 0; k < 4; k++)
			CHECK_MSG(seen[curve][k] > 0, "%s curve %d: no input got verdict kind %d", G::OPS->name, curve, k);
		CHECK_MSG(seen[curve][4] == 0, "%s curve %d: a verdict outside the four kinds", G::OPS->name, curve);
	}
	// the curve check rejects more than the (0, 0) rule alone
	CHECK(seen[1][3] > seen[0][3] + 1000);

	// The comparison itself: a wrong byte or a wrong verdict must not pass.
	const verdict good = device_verdict<F>(in[0], true);
	CHECK(good.rc == 0 && same(good, cpu_verdict<F>(in[0], true), sizeof(typename G::aff)));
	for (size_t at : {(size_t)0, sizeof(typename G::aff) / 2, sizeof(typename G::aff) - 1}) {
		verdict bad = good;
		bad.out[at] ^= 0x01;
		CHECK(!same(good, bad, sizeof(typename G::aff)));
	}
	verdict wrong_rc = good;
	wrong_rc.rc = -CUZK_E_NOT_ON_CURVE;
	CHECK(!same(good, wrong_rc, sizeof(typename G::aff)));
	CHECK(rc_of(static_cast<cuzk::decode_status>(99)) != 0);
	printf("%s: %zu inputs, without / with the curve check: %zu / %zu ok, %zu / %zu flags, "
	       "%zu / %zu non-canonical, %zu / %zu off the curve\n",
	       G::OPS->name, in.size(), seen[0][0], seen[1][0], seen[0][1], seen[1][1], seen[0][2], seen[1][2],
	       seen[0][3], seen[1][3]);
}

// The word form the kernel fills from 16-byte loads gives what the byte form does.
void check_word_form(rng_t *rng)
{
	const std::vector<g1_aff_t> p = multiples<cuzk::fp_t>(8, rng);
	for (const g1_aff_t &q : p) {
		uint8_t b[96];
		g1_encode_uncompressed(b, &q);
		cuzk::raw_point_t<cuzk::fp_t> raw;
		std::memcpy(&raw, b, sizeof raw);
		cuzk::affine_t<cuzk::fp_t> x{}, y{};
		CHECK(cuzk::decode_point(x, raw, true) == cuzk::decode_status::ok);
		CHECK(cuzk::decode_g1(y, b, true) == cuzk::decode_status::ok);
		CHECK(std::memcmp(&x, &q, sizeof q) == 0 && std::memcmp(&y, &q, sizeof q) == 0);
	}
}

} // namespace

int main()
{
	rng_t rng;
	rng_seed(&rng, 0xdec0deu);
	check_group<cuzk::fp_t>(&rng);
	check_group<cuzk::fp2_t>(&rng);
	check_word_form(&rng);
	CHECK_DONE();
}
