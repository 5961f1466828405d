// SPDX-License-Identifier: Apache-2.0 OR MIT
// The order of a streamed SRS's MSM batches (prove.cu): which query's batch
// the compute stream takes next.  Host code with no CUDA headers, so that
// the CPU test (cuda/prove/test_stream_schedule_host) checks it in every
// build.
//
// Why interleave: the 0/1-heavy queries (l, a, b) are bound by PCIe under a
// VRAM budget (an H100's batch of 2^22 G1 points takes 7.3 ms to copy and
// 5.6 ms to sum), while h's dense batches are bound by their additions (29.6
// ms against the same 7.3 ms of copy).  Run one after the other, the copy
// engine idles through h and the SMs wait through l, a and b; interleaved,
// their copies run under h's additions.  One for one was not enough: with
// l alone beside h, a's 24 batches still ran after h, bound by PCIe, and
// each l batch left the SMs ~1.7 ms short of the next copy; spread at ~2.6
// for one of h's (a 2^27 partition: 72 secondaries, 28 of h's after the
// lead), with the copy engine a few batches ahead (prove.cu's ring), their
// copies fit under h's 29.6 ms.
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
// then the rest of its P batches with the S batches of jobs 1 .. tail-1 (the
// secondaries, one after another in their order) spread evenly between them:
// before the primary's r-th batch after the lead, ceil((r + 1)·S / P)
// secondary batches in all, so that the last batch is the primary's and the
// copies of a few secondaries at a time run under each of its additions
// (prove.cu's ring lets the copy engine run that far ahead).  With no
// primary batches after the lead, the secondaries follow it.  Jobs tail ..
// end run after all of those, in order (their scalars are written once the
// primary is done).  Every job's batches come in order, each exactly once.
inline std::vector<batch_step> stream_schedule(const std::vector<size_t> &batches, size_t lead, unsigned tail)
{
	std::vector<batch_step> out;
	const unsigned jobs = unsigned(batches.size());
	if (tail > jobs)
		tail = jobs;
	size_t total = 0, secondary = 0;
	for (unsigned j = 0; j < jobs; j++) {
		total += batches[j];
		if (j >= 1 && j < tail)
			secondary += batches[j];
	}
	out.reserve(total);
	unsigned sj = 1;   // the secondary in progress, and its next batch
	size_t sk = 0;
	auto push_secondary = [&] {
		while (sk == batches[sj]) {
			sj++;
			sk = 0;
		}
		out.push_back(batch_step{sj, sk++});
	};
	const size_t primary = tail > 0 ? batches[0] : 0;
	size_t kp = 0;   // the primary's next batch
	while (kp < primary && kp < lead)
		out.push_back(batch_step{0, kp++});
	const size_t rest = primary - kp;
	size_t done = 0;   // secondary batches so far
	for (size_t r = 0; r < rest; r++) {
		const size_t upto = ((r + 1) * secondary + rest - 1) / rest;
		for (; done < upto; done++)
			push_secondary();
		out.push_back(batch_step{0, kp++});
	}
	for (; done < secondary; done++)
		push_secondary();
	for (unsigned j = tail; j < jobs; j++)
		for (size_t k = 0; k < batches[j]; k++)
			out.push_back(batch_step{j, k});
	return out;
}

} // namespace cuzk

#endif
