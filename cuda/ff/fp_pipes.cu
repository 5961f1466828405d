// SPDX-License-Identifier: Apache-2.0 OR MIT
// Product chains x <- x·y in Fp on both multiplier pipes (cuda/ff/fp_pipes.h).
// A chain's products depend on one another, so each thread runs two and the
// grid is one full wave (occupancy x SMs): what is measured is the rate the
// SMs retire products at, not a latency.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ff/fp.cuh"
#include "ff/fp_pipes.h"
#include "ff/fpd.cuh"
#include "util/check.cuh"
#include "util/gpu_t.cuh"

namespace cuzk {
namespace {

constexpr int THREADS = 128;

// A canonical element from (thread, chain): limbs of a mixed counter, the top
// one below p's (0x1a0111ea).
CUZK_HD fp_t seed_fp(uint64_t t, uint64_t c)
{
	fp_t r;
	uint64_t z = t * 0x9e3779b97f4a7c15ull + c * 0xd1b54a32d192ed03ull + 1;
	for (int j = 0; j < 12; j++) {
		z ^= z >> 31;
		z *= 0xbf58476d1ce4e5b9ull;
		z ^= z >> 29;
		r.v[j] = (uint32_t)(z >> 16);
	}
	r.v[11] &= 0x0fffffffu;
	return r;
}

CUZK_HD fp_t imad_chain(fp_t x, const fp_t &y, unsigned steps)
{
	for (unsigned s = 0; s < steps; s++)
		x = mul_parity(x, y);
	return x;
}

// The schoolbook 768-bit product, then its reduction (mul_kara's shape).
CUZK_HD fp_t mul_wide_redc(const fp_t &a, const fp_t &b)
{
	uint32_t T[24];
	fp_detail::mul_wide(T, a.v, b.v);
	fp_t r;
	fp_detail::redc_parity(r.v, T, T + 12);
	return r;
}

template <int KIND> CUZK_HD fpd_t fpd_product(const fpd_t &a, const fpd_t &b)
{
	if constexpr (KIND == CUZK_FP_PIPES_FP64)
		return mul(a, b);
	else
		return mul_ia(a, b);
}

// Two chains in doubles with product KIND, from and to canonical fp_t.
template <int KIND> __device__ void fpd_chains(fp_t &x0, fp_t &x1, const fp_t &y, unsigned steps)
{
	const fpd_t dy = fpd_from(y);
	fpd_t d0 = fpd_from(x0), d1 = fpd_from(x1);
	for (unsigned s = 0; s < steps; s++) {
		d0 = fpd_product<KIND>(d0, dy);
		d1 = fpd_product<KIND>(d1, dy);
	}
	x0 = fpd_to(d0);
	x1 = fpd_to(d1);
}

template <int MODE> __global__ void chains_k(fp_t *out, unsigned steps)
{
	const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	const fp_t y = seed_fp(t, 2);
	fp_t x0 = seed_fp(t, 0), x1 = seed_fp(t, 1);
	const bool odd_warp = (threadIdx.x / 32) % 2;
	if (MODE == CUZK_FP_PIPES_SPLIT_THREAD) {
		// One chain of each, their products interleaved in one loop so that
		// the scheduler can issue one's DFMAs between the other's IMADs.
		const fpd_t dy = fpd_from(y);
		fpd_t d1 = fpd_from(x1);
		for (unsigned s = 0; s < steps; s++) {
			x0 = mul_parity(x0, y);
			d1 = mul_ia(d1, dy);
		}
		x1 = fpd_to(d1);
	} else if (MODE == CUZK_FP_PIPES_WIDE) {
		for (unsigned s = 0; s < steps; s++) {
			x0 = mul_wide_redc(x0, y);
			x1 = mul_wide_redc(x1, y);
		}
	} else if (MODE == CUZK_FP_PIPES_KARA) {
		for (unsigned s = 0; s < steps; s++) {
			x0 = mul_kara(x0, y);
			x1 = mul_kara(x1, y);
		}
	} else if (MODE == CUZK_FP_PIPES_FP64) {
		fpd_chains<CUZK_FP_PIPES_FP64>(x0, x1, y, steps);
	} else if (MODE == CUZK_FP_PIPES_FP64_IA || (MODE == CUZK_FP_PIPES_SPLIT_WARPS && odd_warp)) {
		fpd_chains<CUZK_FP_PIPES_FP64_IA>(x0, x1, y, steps);
	} else {
		for (unsigned s = 0; s < steps; s++) {
			x0 = mul_parity(x0, y);
			x1 = mul_parity(x1, y);
		}
	}
	out[2 * t] = x0;
	out[2 * t + 1] = x1;
}


template <int MODE> void run_mode(unsigned steps, unsigned reps, unsigned blocks, fp_t *d_out, cuzk_fp_pipes_result *r)
{
	const double products = (double)blocks * THREADS * 2 * steps;
	event_t start(true), stop(true);
	float best = 0;
	for (unsigned k = 0; k < reps + 1; k++) {   // the first launch warms up
		start.record(nullptr);
		chains_k<MODE><<<blocks, THREADS>>>(d_out, steps);
		CUDA_LAUNCHED("chains_k");
		stop.record(nullptr);
		stop.sync();
		const float ms = stop.ms_since(start);
		if (k && (best == 0 || ms < best))
			best = ms;
	}
	r->ms[MODE] = best;
	r->ns_per_product[MODE] = best * 1e6 / products;
}

template <int MODE> unsigned wave(int sms)
{
	int per_sm = 0;
	CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, chains_k<MODE>, THREADS, 0));
	return (unsigned)std::max(1, per_sm) * (unsigned)sms;
}

} // namespace
} // namespace cuzk

extern "C" const char *cuzk_fp_pipes_mode_name(int m)
{
	static const char *names[CUZK_FP_PIPES_MODES] = {"integer (mul_parity)", "FP64 (fpd.cuh mul)",
							  "FP64, integer sums (mul_ia)", "warps split",
							  "threads split", "integer, wide then redc",
							  "integer, Karatsuba (mul_kara)"};
	return m >= 0 && m < CUZK_FP_PIPES_MODES ? names[m] : "?";
}

extern "C" int cuzk_fp_pipes_bench(unsigned steps, unsigned reps, cuzk_fp_pipes_result *out, cuzk_error *err)
{
	using namespace cuzk;
	return gpu_entry(err, [&] {
		*out = cuzk_fp_pipes_result{};
		if (!steps || !reps)
			gpu_fail(CUZK_E_INVAL, "fp pipes bench: %u steps, %u runs: both must be at least 1", steps, reps);
		int dev = 0, sms = 0;
		CUDA_OK(cudaGetDevice(&dev));
		CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
		const unsigned waves[CUZK_FP_PIPES_MODES] = {wave<0>(sms), wave<1>(sms), wave<2>(sms), wave<3>(sms),
							     wave<4>(sms), wave<5>(sms), wave<6>(sms)};
		// Each mode fills the GPU at its own occupancy; the chains they
		// share (those of the smallest grid) are compared.
		const unsigned most = *std::max_element(waves, waves + CUZK_FP_PIPES_MODES);
		const size_t stride = (size_t)most * THREADS * 2;
		const size_t common = (size_t)*std::min_element(waves, waves + CUZK_FP_PIPES_MODES) * THREADS * 2;
		dev_mem d_out(stride * sizeof(fp_t) * CUZK_FP_PIPES_MODES);
		fp_t *o = d_out.as<fp_t>();
		run_mode<0>(steps, reps, waves[0], o, out);
		run_mode<1>(steps, reps, waves[1], o + stride, out);
		run_mode<2>(steps, reps, waves[2], o + 2 * stride, out);
		run_mode<3>(steps, reps, waves[3], o + 3 * stride, out);
		run_mode<4>(steps, reps, waves[4], o + 4 * stride, out);
		run_mode<5>(steps, reps, waves[5], o + 5 * stride, out);
		run_mode<6>(steps, reps, waves[6], o + 6 * stride, out);
		for (int m = 0; m < CUZK_FP_PIPES_MODES; m++)
			out->blocks[m] = waves[m];
		std::vector<fp_t> h(stride * CUZK_FP_PIPES_MODES);
		CUDA_OK(cudaMemcpy(h.data(), o, h.size() * sizeof(fp_t), cudaMemcpyDeviceToHost));
		// The integer chains against the host's run of the same code, a few.
		for (size_t c = 0; c < common; c += common / 7 + 1) {
			const fp_t want = imad_chain(seed_fp(c / 2, c % 2), seed_fp(c / 2, 2), steps);
			if (std::memcmp(&want, &h[c], sizeof want))
				gpu_fail(CUZK_E_MISMATCH, "fp pipes: integer chain %zu differs from the host's", c);
		}
		for (int m = 1; m < CUZK_FP_PIPES_MODES; m++)
			for (size_t c = 0; c < common; c++)
				if (std::memcmp(&h[c], &h[m * stride + c], sizeof(fp_t)))
					gpu_fail(CUZK_E_MISMATCH, "fp pipes: %s mode, chain %zu of %zu differs from the "
						 "integer one's", cuzk_fp_pipes_mode_name(m), c, common);
	});
}
