// SPDX-License-Identifier: Apache-2.0 OR MIT
// The per-device VRAM budget.  Every device buffer of cuzk is reserved here
// before it is allocated, so a job that cannot fit is refused (or waits for
// a workspace, prove/context.cu) up front instead of meeting
// cudaErrorMemoryAllocation half-way through.
// `budget` may be far below the card's memory: vram_budget = 16 GiB makes an
// H200 behave like a 16 GB card.
#ifndef CUZK_CUDA_UTIL_VRAM_CUH
#define CUZK_CUDA_UTIL_VRAM_CUH

#include <cstddef>
#include <mutex>

#include "util/gpu_t.cuh"

namespace cuzk {

class vram_budget {
	mutable std::mutex mu_;
	size_t budget_;
	size_t reserved_ = 0;

public:
	explicit vram_budget(size_t budget) : budget_(budget) {}

	size_t budget() const { return budget_; }
	size_t reserved() const
	{
		std::lock_guard<std::mutex> g(mu_);
		return reserved_;
	}

	// Reserves bytes now if they fit; false otherwise.
	bool try_reserve(size_t bytes)
	{
		std::lock_guard<std::mutex> g(mu_);
		if (bytes > budget_ - reserved_)
			return false;
		reserved_ += bytes;
		return true;
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
