// SPDX-License-Identifier: Apache-2.0 OR MIT
// The device decoder of the parameter file's points (cuda/prove/srs_decode.cu),
// through its launchers, against the CPU's g1_decode / g2_decode: the same
// bytes for n = 1, for a few thousand points with infinity among them (n not
// a multiple of a block) and for 2^18 points, in both modes; with bad
// points in the middle the lowest failing index is reported (an off-curve
// one only with the curve check), the others still decode, the failed
// slots hold infinity; every point bad reports 0; n = 0 touches nothing;
// a misaligned buffer is refused.
//
// Then the loader through it (the GPU backend's point decoder in
// src/formats/params_io.h's hook, as groth16_params_read_to_devices uses it
// for cuzk prove, cuzk bench and cuzkd): a PoRep-shaped 2^12 parameter file
// and a larger one (full 2^16-point blocks) load to the CPU's bytes at
// checks none and curve, every query point decoded on the device; a
// corrupted point in each section fails with the CPU's code and message,
// byte for byte; subgroup checks and $CUZK_GPU_DECODE=0 leave the device
// out.  Without a CUDA device: SKIP (77).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "prove/srs_decode_launch.cuh"
#include "util/check.cuh"

extern "C" {
#include "bls12_381/encoding.h"
#include "bls12_381/g1.h"
#include "bls12_381/g2.h"
#include "common/rand.h"
#include "devtools/gencircuit.h"
#include "devtools/setup.h"
#include "formats/params_io.h"
#include "formats/r1cs.h"
#include "prover/backend.h"
#include "prover/curve_ops.h"
#include "prover/fr_sample.h"
#include "prover/params_upload.h"
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

// ---- The loader through the device decoder.

std::string temp_path(const char *what)
{
	const char *dir = getenv("TMPDIR");
	std::string p = std::string(dir && *dir ? dir : "/tmp") + "/cuzk-test-" + what + "-XXXXXX";
	std::vector<char> b(p.begin(), p.end());
	b.push_back('\0');
	const int fd = mkstemp(b.data());
	REQUIRE(fd >= 0);
	close(fd);
	return b.data();
}

bytes slurp(const std::string &path)
{
	FILE *f = fopen(path.c_str(), "rb");
	REQUIRE(f);
	bytes b;
	uint8_t chunk[1 << 16];
	for (size_t n; (n = fread(chunk, 1, sizeof chunk, f)) > 0;)
		b.insert(b.end(), chunk, chunk + n);
	fclose(f);
	return b;
}

void spill(const std::string &path, const bytes &b)
{
	FILE *f = fopen(path.c_str(), "wb");
	REQUIRE(f && fwrite(b.data(), 1, b.size(), f) == b.size() && fclose(f) == 0);
}

uint64_t query_points(const groth16_params &p)
{
	return p.n_h + p.n_l + p.n_a + p.n_b_g1 + p.n_b_g2;
}

// Where each section's points begin in the file (ic, h, l, a, b_g1, b_g2).
std::vector<size_t> section_offsets(const groth16_params &p)
{
	const size_t n[6] = {p.vk.n_ic, p.n_h, p.n_l, p.n_a, p.n_b_g1, p.n_b_g2};
	std::vector<size_t> off(6);
	size_t at = groth16_vk_encoded_size(0);   // the fixed points and ic's count
	for (int q = 0; q < 6; q++) {
		off[q] = at;
		at += n[q] * (q == 5 ? 192 : 96) + 4;   // and the next count
	}
	return off;
}

// path loaded with the CPU alone and loaded for the GPU as cuzk prove and
// cuzkd load it (groth16_params_read_to_devices: the device decodes, the
// points go up beside it); both must agree, in bytes or in the error.
// want_device: the device decoded every query point of a load that
// succeeds, some of one that fails (those before the bad point); else
// none, when the load succeeds.  Returns the load's code; *err holds the
// GPU path's.
int same_load(groth16_device *dev, const char *what, const std::string &path, unsigned checks, bool want_device,
	      cuzk_error *err)
{
	groth16_params cpu, gpu;
	cuzk_error cerr;
	const int crc = groth16_params_read(&cpu, path.c_str(), checks, &cerr);
	const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	groth16_params_load_opts o;
	memset(&o, 0, sizeof o);
	o.checks = checks;
	groth16_upload_stats st;
	memset(&st, 0, sizeof st);
	const int grc = groth16_params_read_to_devices(&gpu, fd, path.c_str(), &o, &groth16_backend_gpu, &dev, 1, &gpu,
						       &st, err);
	close(fd);
	CHECK_MSG(crc == grc, "%s (checks %u): CPU %d (%s), GPU %d (%s)", what, checks, crc, crc ? cerr.msg : "", grc,
		  grc ? err->msg : "");
	if (crc == 0 && grc == 0) {
		CHECK_MSG(gpu.storage_len == cpu.storage_len && !memcmp(gpu.storage, cpu.storage, cpu.storage_len) &&
				  !memcmp(&gpu.vk, &cpu.vk, offsetof(groth16_vk, n_ic)),
			  "%s (checks %u): the GPU's load differs from the CPU's", what, checks);
		CHECK_MSG(st.device_decoded == (want_device ? query_points(cpu) : 0),
			  "%s (checks %u): %llu points decoded on the device, %llu expected", what, checks,
			  (unsigned long long)st.device_decoded, (unsigned long long)(want_device ? query_points(cpu) : 0));
	}
	if (crc < 0 && grc < 0) {
		CHECK_MSG(cerr.code == err->code && !strcmp(cerr.msg, err->msg), "%s (checks %u): CPU '%s', GPU '%s'",
			  what, checks, cerr.msg, err->msg);
		CHECK_MSG(!want_device || st.device_decoded > 0, "%s (checks %u): no point decoded on the device", what,
			  checks);
	}
	if (crc == 0)
		groth16_params_free(&cpu);
	if (grc == 0) {
		groth16_backend_gpu.unload_params(dev, &gpu);
		groth16_params_free(&gpu);
	}
	return grc;
}

// The hook itself, from memory (the input then pageable): the CPU's bytes.
void same_parse(groth16_device *dev, const std::string &path)
{
	const bytes file = slurp(path);
	groth16_params cpu, gpu;
	cuzk_error err;
	groth16_params_load_opts o;
	memset(&o, 0, sizeof o);
	o.checks = BLS_CHECK_CURVE;
	o.decoder = groth16_backend_gpu.point_decoder;
	o.decoder_ctx = dev;
	REQUIRE(groth16_params_parse_mem(&cpu, file.data(), file.size(), "mem", BLS_CHECK_CURVE, &err) == 0);
	CHECK_MSG(groth16_params_parse_mem_opts(&gpu, file.data(), file.size(), "mem", &o, &err) == 0, "%s", err.msg);
	CHECK(gpu.storage_len == cpu.storage_len && !memcmp(gpu.storage, cpu.storage, cpu.storage_len));
	groth16_params_free(&cpu);
	groth16_params_free(&gpu);
}

// One bad point in each section, of each kind the decoder knows (and an
// off-subgroup one in ic, the VK's, at checks none): the CPU's error.
unsigned corrupted_loads(groth16_device *dev, const char *what, const std::string &path, const groth16_params &p)
{
	const bytes file = slurp(path);
	const std::vector<size_t> off = section_offsets(p);
	const size_t n[6] = {p.vk.n_ic, p.n_h, p.n_l, p.n_a, p.n_b_g1, p.n_b_g2};
	static const char *const names[6] = {"ic", "h", "l", "a", "b_g1", "b_g2"};
	struct {
		int q;
		size_t point;
		int kind;   // 0 off the curve, 1 compressed flag, 2 x >= p, 3 infinity with a stray bit
		unsigned checks;
	} bad[] = {
		{1, 2 * n[1] / 3, 0, BLS_CHECK_CURVE}, {2, n[2] / 2, 1, BLS_CHECK_CURVE}, {3, n[3] - 1, 2, BLS_CHECK_NONE},
		{4, n[4] / 3, 3, BLS_CHECK_CURVE},     {5, n[5] / 2, 0, BLS_CHECK_CURVE}, {5, n[5] - 1, 1, BLS_CHECK_NONE},
	};
	unsigned done = 0;
	for (const auto &b : bad) {
		const size_t size = b.q == 5 ? 192 : 96, at = off[b.q] + b.point * size;
		bytes f = file;
		uint8_t *pt = f.data() + at;
		if (b.kind == 0)
			pt[size - 1] ^= 1;
		else if (b.kind == 1)
			pt[0] |= 0x80;
		else if (b.kind == 2)
			pt[0] = 0x1f, memset(pt + 1, 0xff, 47);
		else
			memset(pt, 0, size), pt[0] = 0x40, pt[5] = 1;
		spill(path, f);
		cuzk_error err;
		char want[160];
		snprintf(want, sizeof want, "section %s: point %zu at offset %zu: ", names[b.q], b.point, at);
		const int rc = same_load(dev, what, path, b.checks, true, &err);
		CHECK_MSG(rc < 0 && strstr(err.msg, want), "%s: rc %d, '%s' lacks '%s'", what, rc, err.msg, want);
		done++;
	}
	// ic, the VK's points, is the CPU's, fully checked: its errors too.
	bytes f = file;
	f[off[0] + 96] |= 0x20;
	spill(path, f);
	cuzk_error err;
	CHECK(same_load(dev, what, path, BLS_CHECK_NONE, false, &err) == -CUZK_E_FLAGS);
	spill(path, file);
	return done + 1;
}

// A file of `scale` times p's queries (p's points repeated) with p's VK:
// enough points for full blocks of the device's 2^16.
void write_tiled(const groth16_params &p, size_t scale, const std::string &path, groth16_params *ret)
{
	cuzk_error err;
	REQUIRE(groth16_params_alloc(ret, p.vk.n_ic, scale * p.n_h, scale * p.n_l, scale * p.n_a, scale * p.n_b_g1,
				     scale * p.n_b_g2, &err) == 0);
	g1_aff_t *ic = ret->vk.ic;
	ret->vk = p.vk;
	ret->vk.ic = ic;
	memcpy(ic, p.vk.ic, p.vk.n_ic * sizeof *ic);
	for (size_t i = 0; i < scale; i++) {
		memcpy(ret->h + i * p.n_h, p.h, p.n_h * sizeof *p.h);
		memcpy(ret->l + i * p.n_l, p.l, p.n_l * sizeof *p.l);
		memcpy(ret->a + i * p.n_a, p.a, p.n_a * sizeof *p.a);
		memcpy(ret->b_g1 + i * p.n_b_g1, p.b_g1, p.n_b_g1 * sizeof *p.b_g1);
		memcpy(ret->b_g2 + i * p.n_b_g2, p.b_g2, p.n_b_g2 * sizeof *p.b_g2);
	}
	REQUIRE(groth16_params_write(ret, path.c_str(), &err) == 0);
}

void check_loader()
{
	groth16_device *dev = nullptr;
	cuzk_error err;
	REQUIRE(groth16_backend_gpu.open(&dev, 0, 0, &err) == 0);
	// cuzk setup --shape porep --log-constraints 12 --seed 1, in memory
	gencircuit_spec spec;
	memset(&spec, 0, sizeof spec);
	spec.log_constraints = 12;
	spec.seed = 1;
	spec.shape = GENCIRCUIT_SHAPE_POREP;
	spec.num_inputs = gencircuit_default_inputs(GENCIRCUIT_SHAPE_POREP);
	r1cs cs;
	fr_t *z = nullptr;
	groth16_params small, tiled;
	REQUIRE(gencircuit_build(&spec, &cs, &z, &err) == 0);
	REQUIRE(groth16_dev_setup_insecure(&small, &cs, 1, &err) == 0);
	const std::string path = temp_path("gpu-decode");
	REQUIRE(groth16_params_write(&small, path.c_str(), &err) == 0);

	unsigned corrupted = 0;
	for (unsigned checks : {BLS_CHECK_NONE, BLS_CHECK_CURVE})
		same_load(dev, "porep 2^12", path, checks, true, &err);
	same_load(dev, "porep 2^12", path, BLS_CHECK_ALL, false, &err);   // subgroup checks: the CPU's
	setenv("CUZK_GPU_DECODE", "0", 1);
	same_load(dev, "porep 2^12, CUZK_GPU_DECODE=0", path, BLS_CHECK_CURVE, false, &err);
	unsetenv("CUZK_GPU_DECODE");
	same_parse(dev, path);
	corrupted += corrupted_loads(dev, "porep 2^12", path, small);

	// Full 2^16-point blocks: two threads (four blocks each at least), then
	// every core.
	const size_t scale = ((size_t)1 << 20) / (query_points(small) + 1) + 1;
	write_tiled(small, scale, path, &tiled);
	setenv("CUZK_THREADS", "2", 1);
	same_load(dev, "tiled, 2 threads", path, BLS_CHECK_CURVE, true, &err);
	corrupted += corrupted_loads(dev, "tiled, 2 threads", path, tiled);
	unsetenv("CUZK_THREADS");
	same_load(dev, "tiled", path, BLS_CHECK_CURVE, true, &err);
	printf("loader: porep 2^12 (%llu query points) and tiled (%llu) decoded on the device to the CPU's bytes; "
	       "%u corrupted files, the CPU's errors\n",
	       (unsigned long long)query_points(small), (unsigned long long)query_points(tiled), corrupted);

	unlink(path.c_str());
	groth16_params_free(&tiled);
	groth16_params_free(&small);
	r1cs_free(&cs);
	free(z);
	groth16_backend_gpu.close(dev);
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
	check_loader();
	CHECK_DONE();
}
