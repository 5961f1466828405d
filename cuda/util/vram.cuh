// SPDX-License-Identifier: Apache-2.0 OR MIT
// The per-device VRAM budget.  Every device buffer of cuzk is reserved here
// before it is allocated, so a job that cannot fit is refused (or waits for
// a workspace, prove/context.cu) up front instead of meeting
// cudaErrorMemoryAllocation half-way through.
// `budget` may be far below the card's memory: vram_budget = 16 GiB makes an
// H200 behave like a 16 GB card.
#ifndef CUZK_CUDA_UTIL_VRAM_CUH
#define CUZK_CUDA_UTIL_VRAM_CUH

#include <algorithm>
#include <cstddef>
#include <mutex>

#include "util/gpu_t.cuh"

namespace cuzk {

// Besides the running total it keeps two high-water marks, so that a run
// under a small budget shows what it really held, not only that it did not
// run out: the most ever reserved at once, and the most the device itself
// reported in use (total - free, which counts the CUDA context, memory
// allocated outside the budget and other processes too).  The second is
// read right after each allocation from the budget, where use grows, and
// whenever someone asks for the figures (note_device_use).
class vram_budget {
	mutable std::mutex mu_;
	size_t budget_;
	size_t reserved_ = 0;
	size_t peak_reserved_ = 0;
	size_t peak_device_used_ = 0;

public:
	explicit vram_budget(size_t budget) : budget_(budget) {}

	size_t budget() const { return budget_; }
	size_t reserved() const
	{
		std::lock_guard<std::mutex> g(mu_);
		return reserved_;
	}
	size_t peak_reserved() const
	{
		std::lock_guard<std::mutex> g(mu_);
		return peak_reserved_;
	}
	size_t peak_device_used() const
	{
		std::lock_guard<std::mutex> g(mu_);
		return peak_device_used_;
	}

	// Reserves bytes now if they fit; false otherwise.
	bool try_reserve(size_t bytes)
	{
		std::lock_guard<std::mutex> g(mu_);
		if (bytes > budget_ - reserved_)
			return false;
		reserved_ += bytes;
		peak_reserved_ = std::max(peak_reserved_, reserved_);
		return true;
	}

	// Folds a reading of the device's used bytes into its high-water mark.
	void note_device_use(size_t used)
	{
		std::lock_guard<std::mutex> g(mu_);
		peak_device_used_ = std::max(peak_device_used_, used);
	}

	// Reads the current device's use (the caller's device must be the
	// budget's, as it is for every allocation from it).  A failed reading
	// is dropped, and its error cleared so that the next CUDA_OK does not
	// blame its own call for it: a statistic is not worth failing an
	// allocation that succeeded.
	void sample_device_use()
	{
		size_t free_b = 0, total_b = 0;
		if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
			cudaGetLastError();
			return;
		}
		note_device_use(total_b - free_b);
	}

	// Starts both marks again from now (a benchmark resets them after its
	// setup, so that they describe its proofs): what is reserved and in
	// use at this moment.
	void reset_peaks(size_t device_used_now)
	{
		std::lock_guard<std::mutex> g(mu_);
		peak_reserved_ = reserved_;
		peak_device_used_ = device_used_now;
	}

	void release(size_t bytes)
	{
		std::lock_guard<std::mutex> g(mu_);
		reserved_ -= bytes;
	}
};

// Device memory whose bytes were reserved in a budget; both go back together.
class budgeted_mem {
	vram_budget *budget_ = nullptr;
	dev_mem mem_;

public:
	budgeted_mem() = default;
	// The caller has reserved `bytes` already; on an allocation failure the
	// reservation is returned and the error names `what`.
	budgeted_mem(vram_budget &b, size_t bytes, const char *what)
	{
		try {
			mem_ = dev_mem(bytes);
		} catch (const gpu_error &e) {
			b.release(bytes);
			gpu_fail(e.code, "allocating %zu MiB for %s: %s", bytes >> 20, what, e.msg.c_str());
		}
		budget_ = &b;
		b.sample_device_use();
	}
	~budgeted_mem() { reset(); }
	budgeted_mem(budgeted_mem &&o) noexcept : budget_(o.budget_), mem_(std::move(o.mem_)) { o.budget_ = nullptr; }
	budgeted_mem &operator=(budgeted_mem &&o) noexcept
	{
		if (this != &o) {
			reset();
			budget_ = o.budget_;
			mem_ = std::move(o.mem_);
			o.budget_ = nullptr;
		}
		return *this;
	}
	void reset()
	{
		if (budget_) {
			size_t n = mem_.size();
			mem_ = dev_mem();
			budget_->release(n);
			budget_ = nullptr;
		}
	}
	void *get() const { return mem_.get(); }
	size_t size() const { return mem_.size(); }
	template <typename T> T *as() const { return mem_.as<T>(); }
};

} // namespace cuzk

#endif
