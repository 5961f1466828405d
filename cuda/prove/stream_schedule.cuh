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
// each query's copies run under the other's additions.  And a, whose
// scalars overwrite h's, must wait for h's last batch: the G2 query b_g2
// (19 ms of additions to 14 ms of copy a batch) is kept to take turns with
// it, so that a's copy-bound batches are not left to run alone.
#ifndef CUZK_CUDA_PROVE_STREAM_SCHEDULE_CUH
#define CUZK_CUDA_PROVE_STREAM_SCHEDULE_CUH

#include <cstddef>
#include <vector>

namespace cuzk {

struct batch_step {
	unsigned job;   // index into the batches given to stream_schedule
	size_t k;       // that job's batch
};

// One phase of the schedule: a primary job and the partners that take turns
// with it.  The primary's first `lead` batches run alone (the time the
// partners' scalars need to arrive); then its batches and its partners'
// are spread evenly, ceil(i·S/R) partner batches after the primary's i-th
// of the R left (S partner batches in all), the partners one after another
// in their order (they may share running sums); what a primary without
// batches leaves, its partners run alone.
struct schedule_phase {
	unsigned primary;
	std::vector<unsigned> partners;
	size_t lead = 0;
};

// The phases one after another (a phase's jobs never before the previous
// phase's last batch: the next primary's scalars may overwrite the
// previous one's).  batches[j]: job j's batch count; a job named in no
// phase does not run.  Every named job's batches come in order, each once.
inline std::vector<batch_step> stream_schedule(const std::vector<size_t> &batches,
					       const std::vector<schedule_phase> &phases)
{
	std::vector<batch_step> out;
	auto count = [&](unsigned j) { return j < batches.size() ? batches[j] : 0; };
	for (const schedule_phase &ph : phases) {
		const size_t primary = count(ph.primary);
		size_t partner_total = 0;
		for (unsigned j : ph.partners)
			partner_total += count(j);
		size_t kp = 0, emitted = 0, pi = 0, pk = 0;   // primary's next; partners emitted; which, its next
		auto partner_batch = [&] {
			while (pi < ph.partners.size() && pk == count(ph.partners[pi])) {
				pi++;
				pk = 0;
			}
			out.push_back(batch_step{ph.partners[pi], pk++});
			emitted++;
		};
		while (kp < primary && kp < ph.lead)
			out.push_back(batch_step{ph.primary, kp++});
		const size_t rest = primary - kp;
		for (size_t i = 1; kp < primary; i++) {
			out.push_back(batch_step{ph.primary, kp++});
			const size_t due = (i * partner_total + rest - 1) / rest;
			while (emitted < due)
				partner_batch();
		}
		while (emitted < partner_total)
			partner_batch();
	}
	return out;
}

} // namespace cuzk

#endif
