// SPDX-License-Identifier: Apache-2.0 OR MIT
// Small RAII owners for device resources: a stream, an event, device memory,
// pinned host memory.  Destructors never throw; a failure there is ignored
// because the resource is gone either way.
#ifndef CUZK_CUDA_UTIL_GPU_T_CUH
#define CUZK_CUDA_UTIL_GPU_T_CUH

#include <cstddef>
#include <utility>

#include "util/check.cuh"

namespace cuzk {

class stream_t {
	cudaStream_t s_ = nullptr;

public:
	stream_t() { CUDA_OK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
	~stream_t()
	{
		if (s_)
			cudaStreamDestroy(s_);
	}
	stream_t(const stream_t &) = delete;
	stream_t &operator=(const stream_t &) = delete;
	operator cudaStream_t() const { return s_; }
	void sync() const { CUDA_OK(cudaStreamSynchronize(s_)); }
};

class event_t {
	cudaEvent_t e_ = nullptr;

public:
	explicit event_t(bool timing = false)
	{
		CUDA_OK(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
	}
	~event_t()
	{
		if (e_)
			cudaEventDestroy(e_);
	}
	event_t(const event_t &) = delete;
	event_t &operator=(const event_t &) = delete;
	operator cudaEvent_t() const { return e_; }
	void record(cudaStream_t s) { CUDA_OK(cudaEventRecord(e_, s)); }
	// Makes s wait for the work recorded so far (cross-stream order without
	// blocking the host).
	void wait_on(cudaStream_t s) const { CUDA_OK(cudaStreamWaitEvent(s, e_, 0)); }
	void sync() const { CUDA_OK(cudaEventSynchronize(e_)); }
	float ms_since(const event_t &start) const
	{
		float ms = 0;
		CUDA_OK(cudaEventElapsedTime(&ms, start.e_, e_));
		return ms;
	}
};

// Device memory of `bytes` bytes.  Callers reserve the bytes in the device's
// vram_budget first (see util/vram.cuh); this type only owns the pointer.
class dev_mem {
	void *p_ = nullptr;
	size_t bytes_ = 0;

public:
	dev_mem() = default;
	explicit dev_mem(size_t bytes) : bytes_(bytes)
	{
		if (bytes)
			CUDA_OK(cudaMalloc(&p_, bytes));
	}
	~dev_mem()
	{
		if (p_)
			cudaFree(p_);
	}
	dev_mem(dev_mem &&o) noexcept : p_(o.p_), bytes_(o.bytes_)
	{
		o.p_ = nullptr;
		o.bytes_ = 0;
	}
	dev_mem &operator=(dev_mem &&o) noexcept
	{
		std::swap(p_, o.p_);
		std::swap(bytes_, o.bytes_);
		return *this;
	}
	dev_mem(const dev_mem &) = delete;
	dev_mem &operator=(const dev_mem &) = delete;
	void *get() const { return p_; }
	size_t size() const { return bytes_; }
	template <typename T> T *as() const { return static_cast<T *>(p_); }
};

class pinned_mem {
	void *p_ = nullptr;
	size_t bytes_ = 0;

public:
	pinned_mem() = default;
	explicit pinned_mem(size_t bytes) : bytes_(bytes)
	{
		if (bytes)
			CUDA_OK(cudaMallocHost(&p_, bytes));
	}
	~pinned_mem()
	{
		if (p_)
			cudaFreeHost(p_);
	}
	pinned_mem(const pinned_mem &) = delete;
	pinned_mem &operator=(const pinned_mem &) = delete;
	void *get() const { return p_; }
	size_t size() const { return bytes_; }
};

// Makes `device` current for the calling thread for the lifetime of the guard.
class device_guard {
	int prev_ = -1;

public:
	explicit device_guard(int device)
	{
		CUDA_OK(cudaGetDevice(&prev_));
		if (prev_ != device)
			CUDA_OK(cudaSetDevice(device));
	}
	~device_guard()
	{
		if (prev_ >= 0)
			cudaSetDevice(prev_);
	}
	device_guard(const device_guard &) = delete;
	device_guard &operator=(const device_guard &) = delete;
};

} // namespace cuzk

#endif
