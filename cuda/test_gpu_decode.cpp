// SPDX-License-Identifier: Apache-2.0 OR MIT
// The device decoder of the parameter file's points (cuda/prove/srs_decode.cu),
// through its launchers, against the CPU's g1_decode / g2_decode: the same
// bytes for n = 1, for a few thousand points with infinity among them (n not
// a multiple of a block) and for 2^18 points, in both modes; with bad
// points in the middle the lowest failing index is reported (an off-curve
// one only with the curve check), the others still decode, the failed
// slots hold infinity; every point bad reports 0; n = 0 touches nothing;
// a misaligned buffer is refused.  Without a CUDA device: SKIP (77).
#include <cstdint>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "prove/srs_decode_launch.cuh"
#include "util/check.cuh"

extern "C" {
#include "bls12_381/encoding.h"
#include "bls12_381/g1.h"
#include "bls12_381/g2.h"
#include "common/rand.h"
#include "prover/curve_ops.h"
#include "prover/fr_sample.h"
}

#include "../tests/check.h"

namespace {

using bytes = std::vector<uint8_t>;

constexpr unsigned long long NONE = ~0ull;

#define CUDA_REQUIRE(call)                                                                      \
	do {                                                                                    \
		const cudaError_t e_ = (call);                                                  \
		if (e_ != cudaSuccess) {                                                        \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			exit(1);                                                                \
		}                                                                               \
	} while (0)

// One group's host types and functions.
template <class Aff, class Jac, size_t Size, const curve_ops *Ops,
	  int (*Decode)(Aff *, const uint8_t *, size_t, unsigned, cuzk_error *), void (*Encode)(uint8_t *, const Aff *),
	  void (*Launch)(const uint8_t *, void *, size_t, bool, unsigned long long *, cudaStream_t)>
struct group {
	static constexpr size_t SIZE = Size;
	static constexpr const curve_ops *OPS = Ops;

	// n encoded points: consecutive multiples of a random one (one
	// addition each, so thousands cost little), infinity at 0 and every 997th.
	static bytes points(size_t n, rng_t *rng)
	{
		Jac gen, g, acc;
		fr_t k;
		fr_sample_rng(&k, rng);
		Ops->from_aff(&gen, Ops->generator);
		Ops->mul_fr(&g, &gen, &k);
		acc = g;
		std::vector<Jac> jac(n);
		for (size_t i = 0; i < n; i++) {
			if (i % 997 == 0) {
				Ops->set_inf(&jac[i]);
				continue;
			}
			jac[i] = acc;
			Ops->add(&acc, &jac[i], &g);
		}
		std::vector<Aff> aff(n);
		Ops->batch_to_aff(aff.data(), jac.data(), n);
		bytes b(n * SIZE);
		for (size_t i = 0; i < n; i++)
			Encode(b.data() + i * SIZE, &aff[i]);
		return b;
	}
	static int decode(void *r, const uint8_t *in, unsigned checks)
	{
		cuzk_error err;
		return Decode(static_cast<Aff *>(r), in, SIZE, checks, &err);
	}
	// on the default stream, as the test waits for the device anyway
	static void launch(const uint8_t *raw, void *out, size_t n, bool curve, unsigned long long *bad)
	{
		Launch(raw, out, n, curve, bad, 0);
	}
};

using g1 = group<g1_aff_t, g1_jac_t, G1_UNCOMPRESSED_SIZE, &CURVE_G1, g1_decode, g1_encode_uncompressed,
		 cuzk::srs_decode_g1>;
using g2 = group<g2_aff_t, g2_jac_t, G2_UNCOMPRESSED_SIZE, &CURVE_G2, g2_decode, g2_encode_uncompressed,
		 cuzk::srs_decode_g2>;

// What the kernel should write: the CPU's point, or infinity where it fails.
template <class G> bytes expected(const bytes &in, size_t n, bool curve)
{
	bytes out(n * G::SIZE, 0);
	for (size_t i = 0; i < n; i++)
		if (G::decode(out.data() + i * G::SIZE, in.data() + i * G::SIZE, curve ? BLS_CHECK_CURVE : BLS_CHECK_NONE))
			std::memset(out.data() + i * G::SIZE, 0, G::SIZE);
	return out;
}

struct result {
	bytes out;
	unsigned long long bad;
};

// One launch over a copy of in on the device (the default stream), waited for.
template <class G> result run(const bytes &in, size_t n, bool curve)
{
	uint8_t *raw = nullptr, *out = nullptr;
	unsigned long long *bad = nullptr;
	const size_t len = n * G::SIZE;
	CUDA_REQUIRE(cudaMalloc(&raw, len ? len : 16));
	CUDA_REQUIRE(cudaMalloc(&out, len ? len : 16));
	CUDA_REQUIRE(cudaMalloc(&bad, sizeof *bad));
	result r{bytes(len), NONE};
	if (len) {
		CUDA_REQUIRE(cudaMemcpy(raw, in.data(), len, cudaMemcpyHostToDevice));
		CUDA_REQUIRE(cudaMemset(out, 0xa5, len));   // so that a slot left unwritten shows
	}
	CUDA_REQUIRE(cudaMemcpy(bad, &r.bad, sizeof r.bad, cudaMemcpyHostToDevice));
	try {
		G::launch(raw, out, n, curve, bad);
	} catch (const cuzk::gpu_error &e) {
		fprintf(stderr, "%s: %s\n", G::OPS->name, e.msg.c_str());
		exit(1);
	}
	CUDA_REQUIRE(cudaDeviceSynchronize());
	if (len)
		CUDA_REQUIRE(cudaMemcpy(r.out.data(), out, len, cudaMemcpyDeviceToHost));
	CUDA_REQUIRE(cudaMemcpy(&r.bad, bad, sizeof r.bad, cudaMemcpyDeviceToHost));
	CUDA_REQUIRE(cudaFree(raw));
	CUDA_REQUIRE(cudaFree(out));
	CUDA_REQUIRE(cudaFree(bad));
	return r;
}

size_t first_diff(const bytes &a, const bytes &b, size_t size)
{
	for (size_t i = 0; i * size < a.size(); i++)
		if (std::memcmp(a.data() + i * size, b.data() + i * size, size))
			return i;
	return a.size() / size;
}

// Runs in and compares with the CPU; want_bad is the index *bad must hold.
template <class G> void check_run(const char *what, const bytes &in, size_t n, bool curve, unsigned long long want_bad)
{
	const result r = run<G>(in, n, curve);
	const bytes want = expected<G>(in, n, curve);
	const size_t at = first_diff(want, r.out, G::SIZE);
	CHECK_MSG(at == n, "%s %s (n = %zu, curve %d): point %zu differs from the CPU's", G::OPS->name, what, n, curve, at);
	CHECK_MSG(r.bad == want_bad, "%s %s (n = %zu, curve %d): bad = %llu, expected %llu", G::OPS->name, what, n, curve,
		  r.bad, want_bad);
}

template <class G> void check_group(rng_t *rng)
{
	const size_t n = 3001;   // not a multiple of the 256-thread block
	const bytes pts = G::points(n, rng);
	for (int curve = 0; curve < 2; curve++) {
		check_run<G>("one point", bytes(pts.begin() + G::SIZE, pts.begin() + 2 * G::SIZE), 1, curve, NONE);
		check_run<G>("valid points", pts, n, curve, NONE);
	}

	// bad points from the middle on: the lowest is reported, an off-curve
	// one before it only with the curve check
	bytes bad = pts;
	const size_t mid = n / 2;   // 1500: lane 28 of its warp
	bad[mid * G::SIZE] |= 0x80;                                    // compressed flag
	bad[(mid + 100) * G::SIZE + G::SIZE / 2] = 0xff;               // y >= p
	bad[(n - 1) * G::SIZE] = 0x40;                                 // infinity with ...
	bad[(n - 1) * G::SIZE + 5] = 1;                                // ... a stray bit
	bad[(mid - 3) * G::SIZE + G::SIZE - 1] ^= 1;                   // off the curve
	check_run<G>("bad points", bad, n, false, mid);
	check_run<G>("bad points", bad, n, true, mid - 3);

	// every point bad ((0, 0) without the flag fails in both modes)
	check_run<G>("all bad", bytes(64 * G::SIZE, 0), 64, false, 0);

	// many points, many blocks: the valid ones again and again
	const size_t big = (size_t)1 << 18;
	bytes many(big * G::SIZE);
	for (size_t i = 0; i < big; i++)
		std::memcpy(many.data() + i * G::SIZE, pts.data() + (i % n) * G::SIZE, G::SIZE);
	check_run<G>("2^18 points", many, big, true, NONE);
	many[(big - 2) * G::SIZE] |= 0x20;   // sort flag, in the last block
	check_run<G>("2^18 points, one bad", many, big, true, big - 2);

	// n = 0 launches nothing; a misaligned buffer is refused before launching
	check_run<G>("no points", bytes(), 0, true, NONE);
	uint8_t *raw = nullptr;
	CUDA_REQUIRE(cudaMalloc(&raw, 2 * G::SIZE + 16));
	bool refused = false;
	try {
		G::launch(raw + 1, raw + G::SIZE + 16, 1, true, nullptr);
	} catch (const cuzk::gpu_error &e) {
		refused = e.code == CUZK_E_INVAL;
	}
	CHECK_MSG(refused, "%s: a misaligned raw buffer was not refused", G::OPS->name);
	CUDA_REQUIRE(cudaDeviceSynchronize());
	CUDA_REQUIRE(cudaFree(raw));
}

} // namespace

int main()
{
	int devices = 0;
	if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
		CHECK_SKIP("no CUDA device");
	rng_t rng;
	rng_seed(&rng, 0x5dec0deu);
	check_group<g1>(&rng);
	check_group<g2>(&rng);
	CHECK_DONE();
}
