// SPDX-License-Identifier: Apache-2.0 OR MIT
// The batch-affine rounds of the G1 accumulation (msm/affine_acc.cuh),
// compiled for the CPU, against sums made with src/bls12_381: chunks of
// sorted (bucket, point) pairs whose buckets hold doublings, cancellations,
// the point at infinity and sums that cancel before more points arrive,
// under every stopping rule (a round's minimum batch, lists too small for
// a round's outputs).  Runs in every build (no GPU needed).
#include <cstdint>
#include <cstring>
#include <vector>

#include "msm/affine_acc.cuh"

extern "C" {
#include "bls12_381/g1.h"
#include "common/rand.h"
}

#include "../../tests/check.h"

namespace {

using A = cuzk::fx_t<cuzk::fp_t, cuzk::fp_form::fused>;
using cuzk::msm::affine::word16_t;

struct entry {
	uint32_t key, val;   // val: point index·2 + sign
};

// pool[0] is infinity, pool[i] = i·G.
std::vector<g1_aff_t> make_pool(size_t n)
{
	std::vector<g1_aff_t> pool(n);
	std::memset(&pool[0], 0, sizeof pool[0]);
	g1_jac_t acc, g;
	g1_from_affine(&g, &G1_GENERATOR);
	acc = g;
	for (size_t i = 1; i < n; i++) {
		g1_to_affine(&pool[i], &acc);
		g1_add(&acc, &acc, &g);
	}
	return pool;
}

// A chunk of buckets of every awkward kind, keys ascending from 0.
std::vector<entry> make_chunk(rng_t *rng, size_t pool_n, unsigned buckets)
{
	std::vector<entry> es;
	for (uint32_t b = 0; b < buckets; b++) {
		const unsigned kind = unsigned(rng_next(rng) % 8);
		const unsigned len = 1 + unsigned(rng_next(rng) % (kind == 0 ? 200 : 40));
		const uint32_t p = 1 + uint32_t(rng_next(rng) % (pool_n - 1));
		for (unsigned i = 0; i < len; i++) {
			uint32_t idx = 1 + uint32_t(rng_next(rng) % (pool_n - 1)), sign = uint32_t(rng_next(rng) & 1);
			switch (kind) {
			case 1:   // the same point again and again: doublings
				idx = p, sign = 0;
				break;
			case 2:   // P, -P, P, -P, ...: cancellations
				idx = p, sign = i & 1;
				break;
			case 3:   // infinity here and there
				if (i % 3 == 1)
					idx = 0;
				break;
			case 4:   // P, -P, then more: a sum through infinity
				if (i < 2)
					idx = p, sign = i;
				break;
			case 5:   // only infinity
				idx = 0;
				break;
			default:
				break;
			}
			es.push_back({b, idx * 2 + sign});
		}
	}
	return es;
}

void add_aff(g1_jac_t *acc, const g1_aff_t &p, bool negate)
{
	g1_aff_t q = p;
	if (negate)
		g1_aff_neg(&q, &p);
	g1_add_affine(acc, acc, &q);
}

// The bucket sums of a list of affine points with keys.
std::vector<g1_jac_t> sums(unsigned buckets, size_t n, const uint32_t *keys, const g1_aff_t *pts)
{
	std::vector<g1_jac_t> s(buckets);
	for (auto &j : s)
		g1_set_infinity(&j);
	for (size_t e = 0; e < n; e++)
		add_aff(&s[keys[e]], pts[e], false);
	return s;
}

struct run_result {
	int list;
	size_t n;
	std::vector<uint32_t> keys;
	std::vector<g1_aff_t> pts;
};

run_result run_rounds(const std::vector<entry> &es, const std::vector<g1_aff_t> &pool, size_t per_cap,
		      size_t min_batch)
{
	const size_t n0 = es.size();
	std::vector<uint32_t> keys(n0), vals(n0);
	for (size_t e = 0; e < n0; e++)
		keys[e] = es[e].key, vals[e] = es[e].val;
	const size_t c0 = cuzk::msm::affine::cap0(per_cap), c1 = cuzk::msm::affine::cap1(per_cap);
	const size_t c2 = cuzk::msm::affine::cap2(per_cap);
	std::vector<word16_t> pts((c0 + c1 + c2) * 6);
	std::vector<uint32_t> lkeys(c0 + c1 + c2);
	cuzk::msm::affine::chunk_lists<A> c;
	c.in0 = {reinterpret_cast<const word16_t *>(pool.data()), keys.data(), vals.data(), 0};
	c.ls = {pts.data(), lkeys.data(), 0, {c0, c1, c2}};
	A one{cuzk::fp_one()};
	run_result r;
	r.n = n0;
	bool ascending = true;
	r.list = cuzk::msm::affine::rounds(c, r.n, min_batch, one, ascending);
	r.keys.resize(r.n);
	r.pts.resize(r.n);
	for (size_t i = 0; i < r.n; i++) {   // in ascending key order
		const size_t e = ascending ? i : r.n - 1 - i;
		r.keys[i] = c.key(r.list, e) & ~cuzk::msm::affine::SINGLE_KEY;
		const cuzk::affine_t<A> p = c.point(r.list, e);
		std::memcpy(&r.pts[i], &p, sizeof p);
	}
	return r;
}

void check_chunk(rng_t *rng, const std::vector<g1_aff_t> &pool, unsigned buckets, int round)
{
	const std::vector<entry> es = make_chunk(rng, pool.size(), buckets);
	std::vector<uint32_t> keys(es.size());
	std::vector<g1_aff_t> pts(es.size());
	for (size_t e = 0; e < es.size(); e++) {
		keys[e] = es[e].key;
		pts[e] = pool[es[e].val >> 1];
		if (es[e].val & 1)
			g1_aff_neg(&pts[e], &pool[es[e].val >> 1]);
	}
	const std::vector<g1_jac_t> want = sums(buckets, es.size(), keys.data(), pts.data());
	struct {
		size_t per_cap, min_batch;
		const char *what;
	} rules[] = {
		{es.size(), 1, "every round"},
		{es.size(), 8, "rounds of 8 or more pairs"},
		{es.size(), es.size(), "no round"},
		{es.size() / 4, 1, "lists too small for round 0"},
		{es.size() * 3 / 4, 1, "lists that fit round 0 only"},
	};
	for (const auto &rule : rules) {
		const run_result r = run_rounds(es, pool, rule.per_cap, rule.min_batch);
		const std::vector<g1_jac_t> got = sums(buckets, r.n, r.keys.data(), r.pts.data());
		bool ok = true;
		for (unsigned b = 0; b < buckets; b++)
			ok &= g1_eq(&got[b], &want[b]) != 0;
		CHECK_MSG(ok, "chunk %d (%zu pairs, %u buckets), %s: bucket sums differ", round, es.size(), buckets,
			  rule.what);
		for (size_t e = 1; e < r.n; e++)
			CHECK_MSG(r.keys[e - 1] <= r.keys[e], "chunk %d, %s: keys out of order at %zu", round, rule.what, e);
		for (size_t e = 0; e < r.n; e++)
			CHECK_MSG(g1_aff_is_on_curve(&r.pts[e]), "chunk %d, %s: entry %zu off the curve", round,
				  rule.what, e);
		if (rule.min_batch == 1 && rule.per_cap == es.size()) {
			// rounds run until no bucket holds two entries
			for (size_t e = 1; e < r.n; e++)
				CHECK_MSG(r.keys[e - 1] != r.keys[e], "chunk %d: bucket %u left with two entries", round,
					  r.keys[e]);
			CHECK_MSG(r.list >= 0, "chunk %d: no round ran", round);
		}
		if (rule.min_batch == es.size())
			CHECK_MSG(r.list < 0 && r.n == es.size(), "chunk %d: a round ran below its minimum batch", round);
	}
}

// The inversion (Fermat, 4-bit windows) against a·(1/a) = 1.
void check_inverse(rng_t *rng, const std::vector<g1_aff_t> &pool)
{
	A one{cuzk::fp_one()};
	for (size_t i = 1; i < 40; i++) {
		A a;
		std::memcpy(&a, &pool[i].x, sizeof a);
		if (i == 1)
			a = one;
		if (i == 2)
			a = cuzk::neg(one);
		(void)rng;
		const A r = cuzk::msm::affine::inverse(a, one);
		CHECK_MSG(cuzk::eq(cuzk::mul(a, r), one), "inverse of pool x %zu", i);
	}
}

} // namespace

int main()
{
	rng_t rng;
	rng_seed(&rng, 20261202);
	const std::vector<g1_aff_t> pool = make_pool(64);
	check_inverse(&rng, pool);
	for (int round = 0; round < 40; round++)
		check_chunk(&rng, pool, 1 + unsigned(rng_next(&rng) % 24), round);
	CHECK_DONE();
}
