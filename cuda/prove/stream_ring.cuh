// SPDX-License-Identifier: Apache-2.0 OR MIT
// Where a streamed SRS's batches land in the workspace's stream buffer
// (prove.cu, run_streamed), and which earlier batch each copy must wait
// for.  Host code with no CUDA headers, so that the CPU test
// (cuda/prove/test_stream_ring_host) checks it in every build.
//
// Why a ring and not two buffers: with two, a batch's copy can only run
// under the one batch before it.  l's, a's and b_g1's batches sum in less
// time than their copies take (an H100's 2^22 G1 points: 5.6 ms against 7.3
// ms under a 16 GiB budget), so every one of them left the SMs waiting
// ~1.7 ms for the next copy, while h's (29.6 ms) left the copy engine idle.
// The buffer is a ring of four slots of one G1 batch each; a G2 batch takes
// two.  Each batch goes into the next free slots (from the first again
// where it would not fit before the end), so that the copy engine runs as
// many batches ahead as the slots hold.
//
// Why a batch of two slots starts at an even one: placed at slot 1, the
// next batch of two would not fit after it and would take slots 0 and 1,
// the previous batch's, so its copy could start only once that batch was
// summed, with nothing to run under.  That cost an H100 ~24 ms a 2^27
// partition under a 14 GiB budget (b_g2's batches among h's; a model of the
// two streams with the measured per-batch times gave 22 ms), more than the
// ring saved there.
#ifndef CUZK_CUDA_PROVE_STREAM_RING_CUH
#define CUZK_CUDA_PROVE_STREAM_RING_CUH

#include <cstddef>
#include <vector>

namespace cuzk {

struct ring_place {
	size_t off;     // where the batch's bytes start
	size_t after;   // 0, or 1 + the last earlier batch whose bytes these overlap
};

// bytes[s]: batch s's size.  The ring is ring / slot slots of `slot` bytes
// (a multiple of 256); batch s takes ceil(bytes[s] / slot) of them, at a
// multiple of that count where the count divides the slots, and must fit
// the ring: an empty result otherwise.  Batch s's copy may start once batch
// after - 1 has been summed (batches are summed in order, so every earlier
// overlapping one has been too).
inline std::vector<ring_place> ring_places(const std::vector<size_t> &bytes, size_t ring, size_t slot)
{
	std::vector<ring_place> out;
	if (!slot)
		return out;
	const size_t slots = ring / slot;
	std::vector<size_t> len(bytes.size());   // in slots
	for (size_t s = 0; s < bytes.size(); s++) {
		len[s] = bytes[s] ? (bytes[s] + slot - 1) / slot : 1;
		if (len[s] > slots)
			return out;
	}
	out.reserve(bytes.size());
	size_t at = 0;
	for (size_t s = 0; s < bytes.size(); s++) {
		if (slots % len[s] == 0)
			at = (at + len[s] - 1) / len[s] * len[s];
		if (at + len[s] > slots)
			at = 0;
		ring_place p{at * slot, 0};
		// The latest overlap is at most a ring's worth of slots back.
		for (size_t q = s; q-- > 0;) {
			const size_t q_at = out[q].off / slot;
			if (q_at < at + len[s] && at < q_at + len[q]) {
				p.after = q + 1;
				break;
			}
		}
		out.push_back(p);
		at += len[s];
	}
	return out;
}

} // namespace cuzk

#endif
