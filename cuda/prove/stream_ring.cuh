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
// The buffer's bytes are one ring, each batch in the next bytes free (from
// the start again where it would not fit before the end), so that the copy
// engine runs as many batches ahead as the bytes hold: four of G1's, two of
// G2's (the buffer is sized for two of G2's, twice G1's points' bytes).
#ifndef CUZK_CUDA_PROVE_STREAM_RING_CUH
#define CUZK_CUDA_PROVE_STREAM_RING_CUH

#include <cstddef>
#include <vector>

namespace cuzk {

struct ring_place {
	size_t off;     // where the batch's bytes start
	size_t after;   // 0, or 1 + the last earlier batch whose bytes these overlap
};

// bytes[s]: batch s's size.  Each batch's place is aligned to `align` (a
// power of two) and must fit the ring (bytes rounded up to align <= ring):
// an empty result otherwise.  Batch s's copy may start once batch
// after - 1 has been summed (batches are summed in order, so every earlier
// overlapping one has been too).
inline std::vector<ring_place> ring_places(const std::vector<size_t> &bytes, size_t ring, size_t align)
{
	std::vector<ring_place> out;
	std::vector<size_t> len(bytes.size());
	for (size_t s = 0; s < bytes.size(); s++) {
		len[s] = (bytes[s] + align - 1) & ~(align - 1);
		if (len[s] > ring)
			return out;
	}
	out.reserve(bytes.size());
	size_t at = 0;
	for (size_t s = 0; s < bytes.size(); s++) {
		if (at + len[s] > ring)
			at = 0;
		ring_place p{at, 0};
		// The latest overlap is at most a ring's worth of bytes back.
		for (size_t q = s; q-- > 0;) {
			const ring_place &o = out[q];
			if (o.off < at + len[s] && at < o.off + len[q]) {
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
