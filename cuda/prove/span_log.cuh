// SPDX-License-Identifier: Apache-2.0 OR MIT
// The phases of one proof as spans on the host's clock (cuzk_gpu_span), from
// CUDA events: a base event is recorded on an idle stream right after the
// host reads CLOCK_MONOTONIC, and each span's pair of events is placed by its
// distance from the base (cudaEventElapsedTime works across the streams of
// one device).  Reading the spans needs their events complete: finish() is
// called once the proof's streams are done.  The MSMs of one proof may run
// on threads of their own (prove.cu, run_concurrent), each adding its spans:
// the list is guarded by a mutex, and a span's events live on the heap (or
// are the caller's), so they stay put while the list grows.
#ifndef CUZK_CUDA_PROVE_SPAN_LOG_CUH
#define CUZK_CUDA_PROVE_SPAN_LOG_CUH

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "cuzk_gpu.h"
#include "util/gpu_t.cuh"

namespace cuzk {

// steady_clock is CLOCK_MONOTONIC on Linux (libstdc++), the clock of
// monotonic_ms (common/clock.h) on the host side.
inline double host_now_ms()
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

class span_log {
	struct span {
		const char *name;
		int lane;
		const event_t *start, *end;   // owned below, or the caller's
		std::unique_ptr<event_t> own_start, own_end;
	};
	event_t base_{true};
	double base_ms_ = 0;
	mutable std::mutex mu_;
	std::vector<span> spans_;

public:
	// Starts the clock on stream s, which must be idle.
	explicit span_log(cudaStream_t s)
	{
		base_ms_ = host_now_ms();
		base_.record(s);
	}
	// A span from now on stream s; returns its index for end().
	size_t begin(const char *name, cuzk_gpu_lane lane, cudaStream_t s)
	{
		span sp{name, lane, nullptr, nullptr, std::make_unique<event_t>(true), std::make_unique<event_t>(true)};
		sp.start = sp.own_start.get();
		sp.end = sp.own_end.get();
		sp.own_start->record(s);
		std::lock_guard<std::mutex> g(mu_);
		spans_.push_back(std::move(sp));
		return spans_.size() - 1;
	}
	void end(size_t i, cudaStream_t s)
	{
		event_t *e;
		{
			std::lock_guard<std::mutex> g(mu_);
			e = spans_[i].own_end.get();
		}
		e->record(s);
	}
	// Device milliseconds from the start of span first to the end of span
	// last, once that end is reached (the wait is outside the lock).
	double range_ms(size_t first, size_t last) const
	{
		const event_t *start, *end;
		{
			std::lock_guard<std::mutex> g(mu_);
			start = spans_[first].start;
			end = spans_[last].end;
		}
		end->sync();
		return end->ms_since(*start);
	}
	// Device milliseconds of span i alone, once its end is reached.
	double span_ms(size_t i) const { return range_ms(i, i); }
	// A span between two timing events the caller records and keeps alive
	// until finish().
	void between(const char *name, cuzk_gpu_lane lane, const event_t &start, const event_t &end)
	{
		std::lock_guard<std::mutex> g(mu_);
		spans_.push_back(span{name, lane, &start, &end, nullptr, nullptr});
	}
	// A span from the end of span i to the start of span j (work between
	// two phases that has no events of its own).
	void gap(const char *name, cuzk_gpu_lane lane, size_t i, size_t j)
	{
		std::lock_guard<std::mutex> g(mu_);
		spans_.push_back(span{name, lane, spans_[i].end, spans_[j].start, nullptr, nullptr});
	}
	// Every event has completed: the spans go into t.
	void finish(cuzk_gpu_timings &t) const
	{
		std::lock_guard<std::mutex> g(mu_);
		t.n_spans = 0;
		t.spans_dropped = 0;
		for (const span &sp : spans_) {
			if (t.n_spans == CUZK_GPU_MAX_SPANS) {
				t.spans_dropped++;
				continue;
			}
			t.span[t.n_spans++] = cuzk_gpu_span{sp.name, sp.lane, base_ms_ + sp.start->ms_since(base_),
							    base_ms_ + sp.end->ms_since(base_)};
		}
	}
};

} // namespace cuzk

#endif
