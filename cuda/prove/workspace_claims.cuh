// SPDX-License-Identifier: Apache-2.0 OR MIT
// Who may write a busy workspace's A before its proof ends (context.cu):
// a proof past h's MSM lends A's bytes, a proof that would otherwise wait
// for a workspace claims a lent one and copies its a there, and the lender,
// giving the workspace back, hands it to its claimant instead of the idle
// pool.  The bookkeeping alone, with no CUDA headers and no lock of its
// own (the device's mutex guards every call), so that the CPU test
// (cuda/prove/test_workspace_claims_host) checks the hand-overs a GPU
// check cannot force: a lender that fails after lending, a claimant that
// fails before taking, a workspace given back before anyone claims it.
#ifndef CUZK_CUDA_PROVE_WORKSPACE_CLAIMS_CUH
#define CUZK_CUDA_PROVE_WORKSPACE_CLAIMS_CUH

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace cuzk {

// W: the workspace type; only its address is used here, its size comes from
// the caller (take's size_of).
template <class W> class workspace_claims {
public:
	struct claim {
		W *ws = nullptr;      // null: none claimed
		size_t bytes = 0;     // A's bytes its lender left free (from the workspace's start)
	};

	// ws's proof reads A's first `bytes` no more.  False (nothing
	// changes) when ws is already lent or claimed: a proof lends once.
	bool lend(W *ws, size_t bytes)
	{
		if (find_lent(ws) != lent_.end() || is_claimed(ws))
			return false;
		lent_.push_back({ws, bytes});
		return true;
	}

	// The first lent workspace whose size_of(*ws) is at least `bytes`, now
	// claimed (no other proof can claim it); {} when none.  The claimant
	// must take it with receive once its lender has handed it over, on
	// every path, errors included.
	template <class SizeOf> claim take(size_t bytes, SizeOf size_of)
	{
		for (auto it = lent_.begin(); it != lent_.end(); ++it)
			if (size_of(*it->ws) >= bytes) {
				const claim c = *it;
				lent_.erase(it);
				claimed_.push_back(c.ws);
				return c;
			}
		return {};
	}

	// ws's proof is done with it.  A claimed workspace stays here for its
	// claimant (true: ws is now empty); an unclaimed one is no longer
	// lent, and the caller keeps it (false: back to the idle pool).
	bool hand_over(std::unique_ptr<W> &ws)
	{
		const auto lent = find_lent(ws.get());
		if (lent != lent_.end())
			lent_.erase(lent);
		if (!is_claimed(ws.get()))
			return false;
		handed_.push_back(std::move(ws));
		return true;
	}

	// The claimed ws once its lender has handed it over (no longer
	// claimed: the caller holds it now); null while the lender still runs.
	std::unique_ptr<W> receive(W *ws)
	{
		for (auto it = handed_.begin(); it != handed_.end(); ++it)
			if (it->get() == ws) {
				std::unique_ptr<W> got = std::move(*it);
				handed_.erase(it);
				claimed_.erase(std::find(claimed_.begin(), claimed_.end(), ws));
				return got;
			}
		return nullptr;
	}

	size_t lent() const { return lent_.size(); }
	size_t claimed() const { return claimed_.size(); }
	size_t handed() const { return handed_.size(); }

private:
	typename std::vector<claim>::iterator find_lent(W *ws)
	{
		return std::find_if(lent_.begin(), lent_.end(), [ws](const claim &c) { return c.ws == ws; });
	}
	bool is_claimed(W *ws) const { return std::find(claimed_.begin(), claimed_.end(), ws) != claimed_.end(); }

	std::vector<claim> lent_;                  // busy, A lent, not claimed
	std::vector<W *> claimed_;                 // busy or handed over, claimed, not yet received
	std::vector<std::unique_ptr<W>> handed_;   // given back by their lenders, not yet received
};

} // namespace cuzk

#endif
