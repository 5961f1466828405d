// SPDX-License-Identifier: Apache-2.0 OR MIT
// Which working memory a proof takes (context.cu, take_workspace): an idle
// arena or a new one, of the least size its plan needs or of a larger size
// with which its MSMs take a faster path.  Host code with no CUDA
// headers, so that the CPU test (cuda/prove/test_workspace_pick_host)
// checks it in every build.
#ifndef CUZK_CUDA_PROVE_WORKSPACE_PICK_CUH
#define CUZK_CUDA_PROVE_WORKSPACE_PICK_CUH

#include <cstddef>

namespace cuzk {

struct workspace_pick {
	size_t idle;    // the idle arena to take (its index), or npos
	size_t fresh;   // else the bytes of a new arena, or 0: none fits now
	static constexpr size_t npos = ~size_t(0);
};

// idle[0..n_idle): the idle arenas' sizes; bytes: the least a proof needs;
// wants[0..n_wants): faster sizes, the fastest first (any <= bytes is no
// faster plan); free: the budget not reserved; busy: arenas other proofs
// hold.  For each faster size in turn: the smallest idle arena of it; a new
// one of it where the budget has room for it and, while no other proof
// holds an arena, for one more proof of the least size beside it (the
// device's other worker must not wait for this one's extra), unless even
// two of the least size could not share the budget and its idle arenas
// (proofs then take turns whatever this one takes: a 2^27 partition on an
// 80 GB card).  Then the smallest idle arena of the least size; a new one.
inline workspace_pick pick_workspace(const size_t *idle, size_t n_idle, size_t bytes, const size_t *wants,
				     size_t n_wants, size_t free, unsigned busy)
{
	auto best_fit = [&](size_t need) {
		size_t best = workspace_pick::npos;
		for (size_t i = 0; i < n_idle; i++)
			if (idle[i] >= need && (best == workspace_pick::npos || idle[i] < idle[best]))
				best = i;
		return best;
	};
	size_t room = free;
	for (size_t i = 0; i < n_idle; i++)
		room += idle[i];
	const bool one_at_a_time = room / 2 < bytes;
	for (size_t k = 0; k < n_wants; k++) {
		const size_t want = wants[k];
		if (want <= bytes)
			continue;
		const size_t i = best_fit(want);
		if (i != workspace_pick::npos)
			return {i, 0};
		if (free >= want && (busy || one_at_a_time || free - want >= bytes))
			return {workspace_pick::npos, want};
	}
	const size_t i = best_fit(bytes);
	if (i != workspace_pick::npos)
		return {i, 0};
	return {workspace_pick::npos, free >= bytes ? bytes : 0};
}

} // namespace cuzk

#endif
