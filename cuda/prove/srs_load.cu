// SPDX-License-Identifier: Apache-2.0 OR MIT
// The loader's point decoder on the device (cuzk_gpu_point_decoder_*,
// cuzk_gpu.h): one per decoding thread of src/formats/params_io.c, each with
// its own stream and buffers, so that the threads' round trips (up, the
// kernel of prove/srs_decode.cu, down) overlap one another on the copy
// engines and the SMs while the other threads read the file.
#include <cstring>
#include <memory>

#include "prove/context.cuh"
#include "prove/srs_decode_launch.cuh"

using namespace cuzk;

namespace {

size_t align_span(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

} // namespace

// Each side holds input | output | the lowest failing index, one span apart.
struct cuzk_gpu_point_decoder {
	int device;
	size_t bytes;         // what input and output hold
	size_t span;          // bytes, rounded up so that every part stays aligned
	stream_t stream;
	budgeted_mem dev;     // on the device, reserved in its budget
	pinned_mem host;      // page-locked: the input is read into it, the output copied out of it

	// On dev's device (the caller's guard): the stream belongs to it.
	cuzk_gpu_point_decoder(cuzk_gpu_dev *d, size_t n)
	    : device(d->device), bytes(n), span(align_span(n)),
	      dev(take_budget(d, 2 * span + 256, "the parameter file's point decoder")), host(2 * span + 256)
	{
	}
};

extern "C" int cuzk_gpu_point_decoder_open(cuzk_gpu_dev *dev, size_t bytes, cuzk_gpu_point_decoder **ret,
					   void **ret_input, cuzk_error *err)
{
	*ret = nullptr;
	*ret_input = nullptr;
	return gpu_entry(err, [&] {
		if (!bytes)
			gpu_fail(CUZK_E_INVAL, "point decoder: buffers of 0 bytes");
		device_guard dg(dev->device);
		auto d = std::make_unique<cuzk_gpu_point_decoder>(dev, bytes);
		*ret_input = d->host.get();
		*ret = d.release();
	});
}

extern "C" int cuzk_gpu_point_decoder_run(cuzk_gpu_point_decoder *d, void *dst, const void *src, size_t n, int g2,
					  int curve, size_t *ret_bad, cuzk_error *err)
{
	*ret_bad = SIZE_MAX;
	const size_t size = g2 ? G2_AFF_BYTES : G1_AFF_BYTES;
	const char *group = g2 ? "G2" : "G1";
	return gpu_entry(err, [&] {
		if (n > d->bytes / size)
			gpu_fail(CUZK_E_INVAL, "point decoder: %zu %s points do not fit its %zu-byte buffers", n, group,
				 d->bytes);
		if (!n)
			return;
		try {
			device_guard dg(d->device);
			const size_t len = n * size;
			char *in = d->dev.as<char>(), *out = in + d->span;
			char *host_out = static_cast<char *>(d->host.get()) + d->span;
			auto *bad = reinterpret_cast<unsigned long long *>(in + 2 * d->span);
			auto *host_bad = reinterpret_cast<unsigned long long *>(host_out + d->span);
			CUDA_OK(cudaMemsetAsync(bad, 0xff, sizeof *bad, d->stream));   // ~0: none failed
			CUDA_OK(cudaMemcpyAsync(in, src, len, cudaMemcpyHostToDevice, d->stream));
			if (g2)
				srs_decode_g2(reinterpret_cast<const uint8_t *>(in), out, n, curve != 0, bad, d->stream);
			else
				srs_decode_g1(reinterpret_cast<const uint8_t *>(in), out, n, curve != 0, bad, d->stream);
			CUDA_OK(cudaMemcpyAsync(host_out, out, len, cudaMemcpyDeviceToHost, d->stream));
			CUDA_OK(cudaMemcpyAsync(host_bad, bad, sizeof *bad, cudaMemcpyDeviceToHost, d->stream));
			d->stream.sync();
			std::memcpy(dst, host_out, len);
			if (*host_bad != ~0ull)
				*ret_bad = (size_t)*host_bad;
		} catch (const gpu_error &e) {
			gpu_fail(e.code, "decoding %zu %s points: %s", n, group, e.msg.c_str());
		}
	});
}

extern "C" void cuzk_gpu_point_decoder_close(cuzk_gpu_point_decoder *d)
{
	if (!d)
		return;
	// The buffers and the stream go back on their device, whichever the
	// calling thread has current.
	int prev = -1;
	const bool switched = cudaGetDevice(&prev) == cudaSuccess && prev != d->device &&
			      cudaSetDevice(d->device) == cudaSuccess;
	delete d;
	if (switched)
		cudaSetDevice(prev);
}
