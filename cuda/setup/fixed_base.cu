// SPDX-License-Identifier: Apache-2.0 OR MIT
// The development setup's fixed-base products on the device (cuzk_gpu.h):
// one thread per scalar walks its signed digits through the host's table
// (setup/fixed_base.cuh), then runs of AFFINE_RUN points share one inversion
// on the way to affine coordinates.  Scalars go up and points come down in
// runs, double-buffered on two streams, so the host consumes run r (copies
// it out, or encodes it into a file) while the device computes run r + 1.
#include <algorithm>
#include <cstring>
#include <memory>

#include "ff/fr.cuh"
#include "prove/context.cuh"
#include "setup/fixed_base.cuh"

using namespace cuzk;

// The double-buffered runs: device memory for two runs of scalars, XYZZ
// sums and affine points, pinned host buffers and a stream per slot.  Made on
// the first products and kept for the next ones (a setup makes ~25 calls:
// pinning ~1 GB of host memory each time would cost seconds).
struct fixed_base_runs {
	size_t run;                       // points per run
	budgeted_mem mem;
	pinned_mem in[2], res[2];
	stream_t st[2];
	event_t done[2];
	fixed_base_runs(cuzk_gpu_dev *dev, size_t run_points, size_t scalar_bytes, size_t sum_bytes, size_t point_bytes)
	    : run(run_points),
	      mem(take_budget(dev, 2 * run_points * (scalar_bytes + sum_bytes + point_bytes), "the setup's products")),
	      in{pinned_mem(run_points * scalar_bytes), pinned_mem(run_points * scalar_bytes)},
	      res{pinned_mem(run_points * point_bytes), pinned_mem(run_points * point_bytes)}
	{
	}
};

struct cuzk_gpu_fixed_base {
	cuzk_gpu_dev *dev = nullptr;
	bool g2 = false;
	setup::digit_plan plan{};
	budgeted_mem table;
	std::unique_ptr<fixed_base_runs> runs;
};

namespace {

constexpr unsigned BLOCK = 128;
// Points per inversion: the inversion (~570 Fp products by Fermat) costs
// ~18 products a point at 32, against ~200 for the digits' additions.
constexpr size_t AFFINE_RUN = 32;
// Products per run: 2^22 G1 points are 128 MiB of scalars, 768 MiB of XYZZ
// sums and 384 MiB of affine points per buffer; G2 points are twice as large.
constexpr size_t RUN_G1 = (size_t)1 << 22, RUN_G2 = (size_t)1 << 21;
constexpr size_t MIN_RUN = (size_t)1 << 12;

unsigned grid_for(size_t threads)
{
	return (unsigned)std::max<size_t>(1, std::min<size_t>((threads + BLOCK - 1) / BLOCK, (size_t)1 << 20));
}

template <class F>
__global__ void __launch_bounds__(BLOCK) mul_kernel(xyzz_t<F> *out, const fr_t *k, size_t n,
						    const affine_t<F> *table, setup::digit_plan plan, int montgomery)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		fr_t s = k[i];
		if (montgomery)
			s = fr_from_mont(s);
		out[i] = setup::mul(table, s.v, plan);
	}
}

template <class F>
__global__ void __launch_bounds__(BLOCK) affine_kernel(affine_t<F> *out, const xyzz_t<F> *in, size_t n)
{
	const size_t runs = (n + AFFINE_RUN - 1) / AFFINE_RUN;
	for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < runs; r += (size_t)gridDim.x * blockDim.x) {
		const size_t at = r * AFFINE_RUN;
		setup::batch_to_affine(out + at, in + at, n - at < AFFINE_RUN ? n - at : AFFINE_RUN);
	}
}

template <class F>
void mul_points(cuzk_gpu_fixed_base *fb, const fr_t *k, size_t n, int montgomery, char *out,
		cuzk_gpu_points_fn emit, void *emit_ctx)
{
	if (!n)
		return;
	cuzk_gpu_dev *dev = fb->dev;
	device_guard dg(dev->device);
	const size_t fr = sizeof(fr_t), xz = sizeof(xyzz_t<F>), aff = sizeof(affine_t<F>), per = fr + xz + aff;
	if (!fb->runs) {
		// Two runs' buffers, halved until they fit what the budget has left.
		size_t want = fb->g2 ? RUN_G2 : RUN_G1;
		const size_t room = dev->budget->budget() - dev->budget->reserved();
		while (want > MIN_RUN && 2 * want * per > room)
			want /= 2;
		fb->runs = std::make_unique<fixed_base_runs>(dev, want, fr, xz, aff);
	}
	fixed_base_runs &R = *fb->runs;
	const size_t run = std::min(R.run, n);
	pinned_mem *in = R.in, *res = R.res;
	stream_t *st = R.st;
	event_t *done = R.done;
	st[0].sync();   // nothing of a failed call before may still use the buffers
	st[1].sync();
	const auto *table = fb->table.as<const affine_t<F>>();
	const size_t runs = (n + run - 1) / run;
	auto len_of = [&](size_t r) { return std::min(run, n - r * run); };
	auto deliver = [&](size_t r) {
		const int slot = (int)(r & 1);
		done[slot].sync();
		const size_t len = len_of(r);
		if (out) {
			memcpy(out + r * run * aff, res[slot].get(), len * aff);
			return;
		}
		const int rc = emit(emit_ctx, res[slot].get(), len);
		if (rc)
			gpu_fail(-rc, "the setup's points were refused after %zu of %zu", r * run, n);
	};
	for (size_t r = 0; r < runs; r++) {
		const int slot = (int)(r & 1);
		const size_t len = len_of(r);
		char *base = R.mem.as<char>() + slot * R.run * per;
		fr_t *dk = reinterpret_cast<fr_t *>(base);
		auto *dx = reinterpret_cast<xyzz_t<F> *>(base + R.run * fr);
		auto *da = reinterpret_cast<affine_t<F> *>(base + R.run * (fr + xz));
		// This slot's previous run (r - 2) was delivered in the last pass.
		memcpy(in[slot].get(), k + r * run, len * fr);
		CUDA_OK(cudaMemcpyAsync(dk, in[slot].get(), len * fr, cudaMemcpyHostToDevice, st[slot]));
		mul_kernel<F><<<grid_for(len), BLOCK, 0, st[slot]>>>(dx, dk, len, table, fb->plan, montgomery);
		CUDA_LAUNCHED("setup mul_kernel");
		affine_kernel<F><<<grid_for((len + AFFINE_RUN - 1) / AFFINE_RUN), BLOCK, 0, st[slot]>>>(da, dx, len);
		CUDA_LAUNCHED("setup affine_kernel");
		CUDA_OK(cudaMemcpyAsync(res[slot].get(), da, len * aff, cudaMemcpyDeviceToHost, st[slot]));
		done[slot].record(st[slot]);
		if (r > 0)
			deliver(r - 1);
	}
	deliver(runs - 1);
}

} // namespace

extern "C" int cuzk_gpu_fixed_base_open(cuzk_gpu_dev *dev, cuzk_gpu_fixed_base **ret, int g2, const void *table,
					unsigned c, cuzk_error *err)
{
	*ret = nullptr;
	return gpu_entry(err, [&] {
		if (c < 2 || c > setup::MAX_WINDOW_BITS)
			gpu_fail(CUZK_E_INVAL, "fixed-base window of %u bits is outside 2..%u", c,
				 setup::MAX_WINDOW_BITS);
		device_guard dg(dev->device);
		auto fb = std::make_unique<cuzk_gpu_fixed_base>();
		fb->dev = dev;
		fb->g2 = g2 != 0;
		fb->plan = setup::make_plan(c);
		const size_t bytes = (size_t)fb->plan.nwin << (c - 1);
		const size_t point = g2 ? sizeof(affine_t<fp2_t>) : sizeof(affine_t<fp_t>);
		fb->table = take_budget(dev, bytes * point, "the setup's fixed-base table");
		CUDA_OK(cudaMemcpy(fb->table.get(), table, bytes * point, cudaMemcpyHostToDevice));
		*ret = fb.release();
	});
}

extern "C" void cuzk_gpu_fixed_base_close(cuzk_gpu_fixed_base *fb)
{
	if (!fb)
		return;
	cudaSetDevice(fb->dev->device);
	delete fb;
}

extern "C" int cuzk_gpu_fixed_base_mul(cuzk_gpu_fixed_base *fb, const void *scalars, size_t n, int montgomery,
				       void *out, cuzk_gpu_points_fn emit, void *emit_ctx, cuzk_error *err)
{
	return gpu_entry(err, [&] {
		if (!out && !emit)
			gpu_fail(CUZK_E_INVAL, "fixed-base products with nowhere to go");
		const fr_t *k = static_cast<const fr_t *>(scalars);
		if (fb->g2)
			mul_points<fp2_t>(fb, k, n, montgomery, static_cast<char *>(out), emit, emit_ctx);
		else
			mul_points<fp_t>(fb, k, n, montgomery, static_cast<char *>(out), emit, emit_ctx);
	});
}
