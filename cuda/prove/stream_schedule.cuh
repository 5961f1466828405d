// SPDX-License-Identifier: Apache-2.0 OR MIT
// The order of a streamed SRS's MSM batches (prove.cu): which query's batch
// the compute stream takes next.  Host code with no CUDA headers, so that
// the CPU test (cuda/prove/test_stream_schedule_host) checks it in every
// build.
//
// Why interleave: the 0/1-heavy queries (l, a, b) are bound by PCIe under a
// VRAM budget (an H200's batch of 2^22 G1 points takes 7.3 ms to copy and
// 6 ms to sum), while h's dense batches are bound by their additions (29 ms
// against the same 7.3 ms of copy).  Run one after the other, the copy
// engine idles through h and the SMs wait through l, a and b; taking turns,
// each query's copies run under the other's additions.
#ifndef CUZK_CUDA_PROVE_STREAM_SCHEDULE_CUH
#define CUZK_CUDA_PROVE_STREAM_SCHEDULE_CUH

#include <cstddef>
#include <vector>

namespace cuzk {

struct batch_step {
	unsigned job;   // index into the batches given to stream_schedule
	size_t k;       // that job's batch
};

// batches[j]: job j's batch count.  Job 0 (the primary, h) runs its first
// `lead` batches alone (the time the secondaries' scalars need to arrive),
// then takes turns one for one with jobs 1 .. tail-1 (the secondaries, one
// after another in their order) while both sides have batches left, then
// whichever side is left; jobs tail .. end run after all of those, in order
// (their scalars are written once the primary is done).  Every job's batches
// come in order, each exactly once.
inline std::vector<batch_step> stream_schedule(const std::vector<size_t> &batches, size_t lead, unsigned tail)
{
	std::vector<batch_step> out;
	const unsigned jobs = unsigned(batches.size());
	if (tail > jobs)
		tail = jobs;
	size_t total = 0;
	for (size_t b : batches)
		total += b;
	out.reserve(total);
	size_t kp = 0;                // the primary's next batch
	unsigned sj = 1;              // the secondary in progress, and its next batch
	size_t sk = 0;
	auto next_secondary = [&](batch_step &st) {
		while (sj < tail && sk == batches[sj]) {
			sj++;
			sk = 0;
		}
		if (sj >= tail)
			return false;
		st = batch_step{sj, sk++};
		return true;
	};
	const size_t primary = tail > 0 ? batches[0] : 0;
	while (kp < primary && kp < lead)
		out.push_back(batch_step{0, kp++});
	for (bool turn_primary = false;;) {
		batch_step st{};
		if (turn_primary && kp < primary) {
			out.push_back(batch_step{0, kp++});
		} else if (next_secondary(st)) {
			out.push_back(st);
		} else if (kp < primary) {
			out.push_back(batch_step{0, kp++});
		} else {
			break;
		}
		turn_primary = !turn_primary;
	}
	for (unsigned j = tail; j < jobs; j++)
		for (size_t k = 0; k < batches[j]; k++)
			out.push_back(batch_step{j, k});
	return out;
}

} // namespace cuzk

#endif
