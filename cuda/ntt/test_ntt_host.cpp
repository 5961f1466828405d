// SPDX-License-Identifier: Apache-2.0 OR MIT
// The radix-8 NTT kernel run on the CPU: ntt/radix8.cuh's phases for every
// thread of every tile in turn, with the table set-up of ntt/tables.cuh and
// the transform chains of ntt/chain.cuh, against src/prover/ntt.c bit for
// bit: every kind at one, two and three passes (three at small sizes through
// a smaller pass limit), the two-table boundary twiddle at 2^19, h against
// groth16_compute_h in Montgomery and canonical form, threads run in both
// orders (a phase that read another thread's slots would differ), and the
// shared-memory swizzle free of bank conflicts for 128-bit accesses.  Runs
// in every build.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "ntt/chain.cuh"
#include "ntt/radix8.cuh"

extern "C" {
#include "bls12_381/fr.h"
#include "common/rand.h"
#include "prover/fr_sample.h"
#include "prover/ntt.h"
}

#include "../../tests/check.h"

namespace {

using dfr = cuzk::fr_t;
static_assert(sizeof(dfr) == sizeof(::fr_t), "device and host Fr share one layout");

// The device tables, filled on the host by the set-up kernels' entry functions.
struct host_tables {
	std::vector<dfr> pow[8];   // w, w^-1, g, g^-1: lo and hi
	std::vector<dfr> direct[2];
	std::vector<dfr> inv_m, z_inv_m, r2_inv_m, r2_z_inv_m;
	cuzk::ntt_tables_view view{};

	host_tables()
	{
		const uint32_t T = 1u << cuzk::NTT_TW_BITS;
		const dfr bases[4] = {cuzk::fr_omega_2_28(false), cuzk::fr_omega_2_28(true), cuzk::fr_coset_gen(false),
				      cuzk::fr_coset_gen(true)};
		for (int i = 0; i < 8; i++)
			pow[i].resize(T);
		for (int i = 0; i < 4; i++) {
			// base^(j·2^14) by squaring once, not per entry as the kernel does
			dfr big = bases[i];
			for (unsigned s = 0; s < cuzk::NTT_TW_BITS; s++)
				big = cuzk::fr_sqr(big);
			dfr lo = cuzk::fr_one(), hi = cuzk::fr_one();
			for (uint32_t j = 0; j < T; j++) {
				pow[2 * i][j] = lo;
				pow[2 * i + 1][j] = hi;
				lo = cuzk::fr_mul(lo, bases[i]);
				hi = cuzk::fr_mul(hi, big);
			}
			// the set-up kernel's entry function agrees on a few entries
			std::vector<dfr> el(T), eh(T);
			for (uint32_t j : {0u, 1u, 2u, 1000u, T - 1}) {
				cuzk::pow_table_entry(el.data(), eh.data(), bases[i], j);
				CHECK_MSG(!std::memcmp(&el[j], &pow[2 * i][j], sizeof(dfr)) &&
						  !std::memcmp(&eh[j], &pow[2 * i + 1][j], sizeof(dfr)),
					  "pow_table_entry(base %d, %u)", i, j);
			}
		}
		const uint32_t D = 1u << cuzk::NTT_DIRECT_LOG;
		for (int d = 0; d < 2; d++) {
			direct[d].resize(D);
			for (uint32_t j = 0; j < D; j++)
				direct[d][j] = cuzk::pow_from_tables(pow[2 * d].data(), pow[2 * d + 1].data(),
								     j << (cuzk::NTT_LOG_MAX - cuzk::NTT_DIRECT_LOG));
		}
		for (auto *v : {&inv_m, &z_inv_m, &r2_inv_m, &r2_z_inv_m})
			v->resize(cuzk::NTT_LOG_MAX + 1);
		for (unsigned lg : {3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 16u, 19u})   // the sizes tested here
			cuzk::domain_consts_entry(inv_m.data(), z_inv_m.data(), r2_inv_m.data(), r2_z_inv_m.data(), lg);
		for (int d = 0; d < 2; d++) {
			view.w_lo[d] = pow[2 * d].data();
			view.w_hi[d] = pow[2 * d + 1].data();
			view.g_lo[d] = pow[4 + 2 * d].data();
			view.g_hi[d] = pow[4 + 2 * d + 1].data();
			view.w_direct[d] = direct[d].data();
		}
		view.inv_m = inv_m.data();
		view.z_inv_m = z_inv_m.data();
		view.r2_inv_m = r2_inv_m.data();
		view.r2_z_inv_m = r2_z_inv_m.data();
		view.impl = cuzk::ntt_impl::radix8;
	}
};

bool g_reverse_threads;

// One pass as the device runs it: every tile, every round, every thread.
template <bool DIT, bool INV> void emulate_pass(const cuzk::ntt8_pass &a)
{
	std::vector<dfr> roots(1u << a.k);
	std::vector<uint32_t> sm(8u << (a.k + a.cols_log));
	const unsigned n = cuzk::ntt8_threads(a);
	cuzk::ntt8_fill_roots(a, roots.data(), 0, 1);
	for (uint32_t tile = 0; tile < cuzk::ntt8_tiles(a); tile++) {
		for (unsigned i = 0; i < n; i++)
			cuzk::ntt8_prefetch<DIT>(a, tile, i, sm.data());
		for (unsigned rd = 0; rd < cuzk::ntt8_rounds(a.k); rd++)
			for (unsigned i = 0; i < n; i++)
				cuzk::ntt8_phase<DIT, INV>(a, tile, rd, g_reverse_threads ? n - 1 - i : i, roots.data(),
							   sm.data(), cuzk::NTT8_NO_TILE);
	}
}

struct host_run {
	const cuzk::ntt_tables_view &t;
	unsigned max_pass;
	unsigned tile_log = cuzk::NTT8_TILE_LOG;
	void operator()(dfr *out, const dfr *in, unsigned log_n, cuzk::ntt_dir dir, cuzk::ntt_order order,
			const cuzk::ntt_scale &pro, const cuzk::ntt_scale &epi, const cuzk::ntt_quotient &quot) const
	{
		cuzk::ntt8_pass p[3];
		const unsigned P = cuzk::ntt8_plan(p, t, out, in, log_n, dir, order, pro, epi, quot, tile_log, max_pass);
		for (unsigned i = 0; i < P; i++) {
			const unsigned sel = (p[i].dit ? 2 : 0) + (p[i].inverse ? 1 : 0);
			switch (sel) {
			case 0: emulate_pass<false, false>(p[i]); break;
			case 1: emulate_pass<false, true>(p[i]); break;
			case 2: emulate_pass<true, false>(p[i]); break;
			default: emulate_pass<true, true>(p[i]); break;
			}
		}
	}
};

std::vector<::fr_t> random_vec(size_t n, rng_t *rng)
{
	std::vector<::fr_t> v(n);
	for (auto &x : v)
		fr_sample_rng(&x, rng);
	return v;
}

size_t first_diff(const void *x, const void *y, size_t n)
{
	const auto *a = static_cast<const ::fr_t *>(x), *b = static_cast<const ::fr_t *>(y);
	for (size_t i = 0; i < n; i++)
		if (std::memcmp(&a[i], &b[i], sizeof(::fr_t)))
			return i;
	return n;
}

// kinds: a mask of 1 << ntt_kind
void check_ntt(const host_tables &ht, unsigned log_n, const host_run &run, rng_t *rng, unsigned kinds = 15)
{
	static const char *names[] = {"forward", "inverse", "coset forward", "coset inverse"};
	ntt_domain d;
	cuzk_error err;
	REQUIRE(ntt_domain_init(&d, log_n, &err) == 0);
	const size_t n = (size_t)1 << log_n;
	for (int kind = 0; kind < 4; kind++) {
		if (!((kinds >> kind) & 1))
			continue;
		std::vector<::fr_t> cpu = random_vec(n, rng), in = cpu, out(n);
		switch (kind) {
		case 0: ntt_forward(&d, cpu.data()); break;
		case 1: ntt_inverse(&d, cpu.data()); break;
		case 2: ntt_coset_forward(&d, cpu.data()); break;
		default: ntt_coset_inverse(&d, cpu.data()); break;
		}
		cuzk::ntt_natural_with(run, ht.view, reinterpret_cast<dfr *>(out.data()),
				       reinterpret_cast<const dfr *>(in.data()), log_n, (cuzk::ntt_kind)kind);
		const size_t at = first_diff(cpu.data(), out.data(), n);
		CHECK_MSG(at == n,
			  "radix-8 NTT 2^%u (passes <= %u bits, tile 2^%u, threads %s) %s differs from the CPU at %zu",
			  log_n, run.max_pass, run.tile_log, g_reverse_threads ? "reversed" : "in order", names[kind], at);
	}
	ntt_domain_free(&d);
}

// natural -> bit-reversed (DIF) on its own: the inverse with 1/m, in place.
void check_dif(const host_tables &ht, unsigned log_n, rng_t *rng)
{
	ntt_domain d;
	cuzk_error err;
	REQUIRE(ntt_domain_init(&d, log_n, &err) == 0);
	const size_t n = (size_t)1 << log_n;
	std::vector<::fr_t> cpu = random_vec(n, rng), dev = cpu, out(n);
	ntt_inverse(&d, cpu.data());
	cuzk::ntt_scale epi;
	epi.cst = ht.view.inv_m + log_n;
	host_run{ht.view, cuzk::NTT8_PASS_MAX}(reinterpret_cast<dfr *>(dev.data()), reinterpret_cast<dfr *>(dev.data()),
					       log_n, cuzk::ntt_dir::inverse, cuzk::ntt_order::natural_to_bitrev,
					       cuzk::ntt_scale{}, epi, cuzk::ntt_quotient{});
	for (uint32_t i = 0; i < n; i++)
		out[cuzk::ntt_bitrev(i, log_n)] = dev[i];
	const size_t at = first_diff(cpu.data(), out.data(), n);
	CHECK_MSG(at == n, "radix-8 DIF inverse 2^%u differs from the CPU at %zu", log_n, at);
	ntt_domain_free(&d);
}

void check_h(const host_tables &ht, size_t n, bool montgomery, const host_run &run, rng_t *rng)
{
	const unsigned log_m = ntt_log2_ceil(n);
	const size_t m = (size_t)1 << log_m;
	std::vector<::fr_t> abc[3];
	for (auto &v : abc) {
		v = random_vec(n, rng);
		if (!montgomery)
			for (auto &x : v) {
				::fr_t t = x;
				fr_from_mont(x.l, &t);
			}
	}
	std::vector<::fr_t> cpu(m - 1);
	cuzk_error err;
	REQUIRE(groth16_compute_h(cpu.data(), abc[0].data(), abc[1].data(), abc[2].data(), n, montgomery, &err) == 0);
	std::vector<::fr_t> dev[3];
	for (int i = 0; i < 3; i++) {
		dev[i] = abc[i];
		dev[i].resize(m, FR_ZERO);
	}
	cuzk::ntt_compute_h_with(run, ht.view, reinterpret_cast<dfr *>(dev[0].data()),
				 reinterpret_cast<dfr *>(dev[1].data()), reinterpret_cast<dfr *>(dev[2].data()), log_m,
				 !montgomery);
	std::vector<::fr_t> h(m);
	for (uint32_t i = 0; i < m; i++)
		h[cuzk::ntt_bitrev(i, log_m)] = dev[0][i];
	const size_t at = first_diff(cpu.data(), h.data(), m - 1);
	CHECK_MSG(at == m - 1,
		  "radix-8 h for n = %zu (%s, passes <= %u bits, tile 2^%u) differs from the CPU at %zu", n,
		  montgomery ? "Montgomery" : "canonical", run.max_pass, run.tile_log, at);
}

// Shared-memory accesses are 128-bit (16-byte slots, ntt/radix8.cuh): a
// warp's is served 8 lanes at a time, free of bank conflicts when the 8
// lanes' slots differ modulo 8.  Counts the quarter-warp accesses of every
// round of every pass of 2^8..2^28 that conflict under swz.
unsigned bank_conflicts(unsigned tile_log, unsigned (*swz)(unsigned), bool report)
{
	unsigned bad = 0;
	for (unsigned log_n = 8; log_n <= 28; log_n++) {
		unsigned bits[3];
		const unsigned P = cuzk::ntt8_split(log_n, bits);
		for (unsigned pi = 0; pi < P; pi++) {
			cuzk::ntt8_pass a{};   // the layout does not depend on lo
			a.k = bits[pi];
			a.log_n = log_n;
			a.cols_log = tile_log - a.k < log_n - a.k ? tile_log - a.k : log_n - a.k;
			const unsigned threads = cuzk::ntt8_threads(a);
			for (unsigned g = 0; g < cuzk::ntt8_rounds(a.k); g++) {
				const unsigned b0 = 3 * g, R = a.k - b0 < 3 ? a.k - b0 : 3;
				for (unsigned q = 0; q < threads / 8; q++)
					for (unsigned s = 0; s < 8; s++) {
						unsigned banks = 0;
						for (unsigned l = 0; l < 8; l++) {
							const unsigned e = cuzk::ntt8_slot_of(a, R, b0, 8 * q + l, s).e;
							banks |= 1u << (swz(e) & 7);
						}
						const bool free = banks == 0xff;
						bad += !free;
						if (report)
							CHECK_MSG(free,
								  "bank conflict: 2^%u, tile 2^%u, pass of %u bits, round at bit %u, quarter-warp %u, slot %u",
								  log_n, tile_log, a.k, b0, q, s);
					}
			}
		}
	}
	return bad;
}

unsigned identity_swizzle(unsigned e)
{
	return e;
}

void check_banks(unsigned tile_log)
{
	bank_conflicts(tile_log, cuzk::ntt8_swizzle, true);
	// the check can fail: unswizzled, the rounds whose lanes are rows apart conflict
	CHECK_MSG(bank_conflicts(tile_log, identity_swizzle, false) > 0,
		  "tile 2^%u: no bank conflict without the swizzle", tile_log);
	// a permutation of every tile size
	for (unsigned lg = cuzk::NTT8_MIN_LOG; lg <= tile_log; lg++) {
		std::vector<bool> seen(1u << lg);
		for (unsigned e = 0; e < (1u << lg); e++) {
			const unsigned v = cuzk::ntt8_swizzle(e);
			CHECK_MSG(v < (1u << lg) && !seen[v], "ntt8_swizzle is not a permutation of 2^%u", lg);
			if (v < (1u << lg))
				seen[v] = true;
		}
	}
}

} // namespace

int main()
{
	rng_t rng;
	rng_seed(&rng, 20261202);
	check_banks(cuzk::NTT8_TILE_LOG);
	check_banks(cuzk::NTT8_TILE_LOG_ALT);
	host_tables ht;
	const host_run run{ht.view, cuzk::NTT8_PASS_MAX}, small_tiles{ht.view, cuzk::NTT8_PASS_MAX, cuzk::NTT8_TILE_LOG_ALT};
	for (int rev = 0; rev < 2; rev++) {
		g_reverse_threads = rev;
		// one pass (3..10), two (11..16), three via smaller passes
		for (unsigned log_n : {3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 16u})
			check_ntt(ht, log_n, run, &rng);
		for (unsigned log_n : {7u, 9u, 10u, 12u})
			check_ntt(ht, log_n, host_run{ht.view, 4}, &rng);
		check_ntt(ht, 9, host_run{ht.view, 3}, &rng);
		check_ntt(ht, 13, small_tiles, &rng);
	}
	g_reverse_threads = false;
	// 10 + 9: the top boundary takes two table entries (2^19 > 2^18), in
	// DIT (natural forward) and in DIF
	check_ntt(ht, 19, run, &rng, 1u << (int)cuzk::ntt_kind::forward);
	check_dif(ht, 19, &rng);
	for (size_t n : {5u, 64u, 1000u, 4097u})
		for (int mont = 0; mont < 2; mont++)
			check_h(ht, n, mont, run, &rng);
	check_h(ht, 3000, true, host_run{ht.view, 4}, &rng);
	check_h(ht, 4000, false, small_tiles, &rng);
	CHECK_DONE();
}
