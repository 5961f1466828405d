// SPDX-License-Identifier: Apache-2.0 OR MIT
// The GPU setup's per-point code (cuda/setup/fixed_base.cuh), compiled for the
// CPU, against the CPU setup's fixed-base products (src/prover/fixed_base.h):
// the same affine points, byte for byte, for G1 and G2, window widths 10 and
// 14, and the scalars at the edges (0, 1, r - 1, digits at ±2^(c-1)), in
// every build (no GPU needed).
#include <cstdint>
#include <cstring>
#include <vector>

#include "setup/fixed_base.cuh"

extern "C" {
#include "bls12_381/fr.h"
#include "common/rand.h"
#include "prover/curve_ops.h"
#include "prover/fixed_base.h"
#include "prover/fr_sample.h"
#include "prover/scalar_digits.h"
}

#include "../../tests/check.h"

namespace {

// The scalars: edge cases, then uniform ones (Montgomery, as the setup has them).
std::vector<fr_t> scalars(rng_t *rng, unsigned c, size_t n_random)
{
	std::vector<fr_t> k;
	uint64_t canon[4];
	fr_t x;
	k.push_back(FR_ZERO);
	k.push_back(FR_ONE);
	fr_neg(&x, &FR_ONE);   // r - 1
	k.push_back(x);
	// each window's digit at -2^(c-1) (plain window 0) and +2^(c-1)
	// (plain window 2^c - 1): k' = k + OFF has those windows
	uint64_t off[4];
	sd_offset(off, c);
	for (int top = 0; top < 2; top++) {
		uint64_t kp[4] = {0, 0, 0, 0};
		for (unsigned w = 0; w + 1 < sd_num_windows(c) && top; w++)
			for (unsigned b = 0; b < c; b++) {
				unsigned bit = w * c + b;
				kp[bit / 64] |= (uint64_t)1 << (bit % 64);
			}
		// canon = kp - off (mod 2^256), then reduced below r
		unsigned __int128 borrow = 0;
		for (int i = 0; i < 4; i++) {
			unsigned __int128 d = (unsigned __int128)kp[i] - off[i] - borrow;
			canon[i] = (uint64_t)d;
			borrow = (d >> 64) & 1;
		}
		canon[3] &= 0x3fffffffffffffffull;
		if (!sd_below_modulus(canon))
			canon[3] >>= 1;
		fr_to_mont(&x, canon);
		k.push_back(x);
	}
	for (size_t i = 0; i < n_random; i++) {
		fr_sample_rng(&x, rng);
		k.push_back(x);
	}
	return k;
}

template <class F>
void check_group(const curve_ops *ops, const void *gen, unsigned c, rng_t *rng)
{
	fixed_base fb;
	cuzk_error err;
	REQUIRE(fixed_base_init(&fb, ops, gen, c, &err) == 0);
	REQUIRE(fb.nwin == cuzk::setup::num_windows(c));
	const cuzk::setup::digit_plan plan = cuzk::setup::make_plan(c);
	uint64_t off[4];
	sd_offset(off, c);
	CHECK(std::memcmp(off, plan.off, sizeof(off)) == 0);

	std::vector<fr_t> k = scalars(rng, c, 60);
	const size_t n = k.size(), as = ops->aff_size;
	std::vector<unsigned char> want(n * as);
	fixed_base_mul_many(&fb, want.data(), k.data(), n);

	const auto *table = reinterpret_cast<const cuzk::affine_t<F> *>(fb.table);
	std::vector<cuzk::xyzz_t<F>> acc(n);
	for (size_t i = 0; i < n; i++) {
		uint64_t canon[4];
		uint32_t k32[8];
		fr_from_mont(canon, &k[i]);
		std::memcpy(k32, canon, sizeof(k32));   // little-endian limbs either way
		acc[i] = cuzk::setup::mul(table, k32, plan);
	}
	// several runs, of lengths 1 and more, as the kernel's threads take them
	std::vector<cuzk::affine_t<F>> got(n);
	for (size_t at = 0, run = 1; at < n; at += run, run = run * 2 + 1)
		cuzk::setup::batch_to_affine(got.data() + at, acc.data() + at, std::min(run, n - at));
	for (size_t i = 0; i < n; i++)
		CHECK_MSG(std::memcmp(&got[i], want.data() + i * as, as) == 0, "%s c=%u: scalar %zu differs",
			  ops->name, c, i);
	CHECK(cuzk::is_inf(got[0]));   // 0·G
	fixed_base_free(&fb);
}

} // namespace

int main()
{
	rng_t rng;
	rng_seed(&rng, 0x5e7u);
	static_assert(sizeof(cuzk::affine_t<cuzk::fp_t>) == sizeof(g1_aff_t) &&
			      sizeof(cuzk::affine_t<cuzk::fp2_t>) == sizeof(g2_aff_t),
		      "device affine points are the host's");
	for (unsigned c : {10u, 14u}) {
		check_group<cuzk::fp_t>(&CURVE_G1, &G1_GENERATOR, c, &rng);
		check_group<cuzk::fp2_t>(&CURVE_G2, &G2_GENERATOR, c, &rng);
	}
	CHECK_DONE();
}
