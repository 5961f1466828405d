// SPDX-License-Identifier: Apache-2.0 OR MIT
// The hand-over of a busy workspace's A (prove/workspace_claims.cuh) on the
// CPU: a workspace given back unclaimed goes to the idle pool and can be
// claimed no more; a claimed one goes to its claimant whatever its lender
// did (finished or failed), and to no one else; a proof lends once; a
// claimant that cannot take yet gets nothing, never another's workspace;
// and a long run of proofs leaves nothing behind.  The GPU check
// (tests/gpu/run.sh early_a) sees the copies; this sees the paths a GPU run
// cannot force.  Runs in every build (no GPU needed).
#include <cstddef>
#include <memory>

#include "prove/workspace_claims.cuh"

#include "../../tests/check.h"

namespace {

struct fake_ws {
	size_t bytes;
};

using book = cuzk::workspace_claims<fake_ws>;

size_t size_of(const fake_ws &w) { return w.bytes; }

void check_empty(const book &b, const char *what)
{
	CHECK_MSG(b.lent() == 0 && b.claimed() == 0 && b.handed() == 0, "%s: lent %zu claimed %zu handed %zu", what,
		  b.lent(), b.claimed(), b.handed());
}

} // namespace

int main()
{
	const size_t ws_bytes = 100, a_bytes = 40;

	{   // Given back without ever lending: the caller's, to the idle pool.
		book b;
		auto ws = std::make_unique<fake_ws>(fake_ws{ws_bytes});
		CHECK(!b.hand_over(ws));
		CHECK(ws != nullptr);
		CHECK(b.take(10, size_of).ws == nullptr);
		check_empty(b, "never lent");
	}
	{   // Lent, then given back before anyone claims it: idle, and no
	    // longer claimable (a claimant must never copy into an idle arena
	    // that another proof may take).
		book b;
		auto ws = std::make_unique<fake_ws>(fake_ws{ws_bytes});
		CHECK(b.lend(ws.get(), a_bytes));
		CHECK(b.lent() == 1);
		CHECK(!b.hand_over(ws));
		CHECK(ws != nullptr);
		CHECK(b.take(10, size_of).ws == nullptr);
		check_empty(b, "lent, given back unclaimed");
	}
	{   // Lent, claimed, the lender ends (or fails: the same give-back):
	    // the claimant's, and no one else's.
		book b;
		auto ws = std::make_unique<fake_ws>(fake_ws{ws_bytes});
		fake_ws *const raw = ws.get();
		CHECK(b.lend(raw, a_bytes));
		const book::claim c = b.take(ws_bytes, size_of);
		CHECK(c.ws == raw && c.bytes == a_bytes);
		CHECK(b.lent() == 0 && b.claimed() == 1);
		// A second waiter finds nothing to claim.
		CHECK(b.take(1, size_of).ws == nullptr);
		// The claimant cannot take it while its lender still runs.
		CHECK(b.receive(raw) == nullptr);
		// A claimed workspace cannot be lent again by its lender.
		CHECK(!b.lend(raw, a_bytes));
		CHECK(b.hand_over(ws));
		CHECK(ws == nullptr);
		CHECK(b.handed() == 1);
		// Another workspace's claimant gets nothing of it.
		fake_ws other{ws_bytes};
		CHECK(b.receive(&other) == nullptr);
		std::unique_ptr<fake_ws> got = b.receive(raw);
		CHECK(got.get() == raw);
		check_empty(b, "claimed and handed over");
		// Received, it is an ordinary busy workspace: its new proof lends
		// it in turn.
		CHECK(b.lend(raw, a_bytes));
		CHECK(!b.hand_over(got));
		check_empty(b, "the claimant's own proof");
	}
	{   // A proof lends once: the second call changes nothing.
		book b;
		fake_ws ws{ws_bytes};
		CHECK(b.lend(&ws, a_bytes));
		CHECK(!b.lend(&ws, a_bytes + 1));
		CHECK(b.lent() == 1);
		CHECK(b.take(1, size_of).bytes == a_bytes);
	}
	{   // Too small for the claimant: skipped; the first that fits is taken.
		book b;
		fake_ws small{ws_bytes / 2}, big{ws_bytes}, bigger{2 * ws_bytes};
		CHECK(b.lend(&small, 10));
		CHECK(b.lend(&big, 20));
		CHECK(b.lend(&bigger, 30));
		const book::claim c = b.take(ws_bytes, size_of);
		CHECK(c.ws == &big && c.bytes == 20);
		CHECK(b.take(ws_bytes, size_of).ws == &bigger);
		CHECK(b.take(ws_bytes, size_of).ws == nullptr);
		CHECK(b.lent() == 1 && b.claimed() == 2);
	}
	{   // The claimant fails before its lender ends: it still takes the
	    // workspace once handed over (prove.cu does, on every path), and
	    // only then can the workspace go idle.
		book b;
		auto ws = std::make_unique<fake_ws>(fake_ws{ws_bytes});
		fake_ws *const raw = ws.get();
		CHECK(b.lend(raw, a_bytes));
		CHECK(b.take(ws_bytes, size_of).ws == raw);
		CHECK(b.hand_over(ws));
		std::unique_ptr<fake_ws> got = b.receive(raw);
		REQUIRE(got);
		CHECK(!b.hand_over(got));   // the claimant gives it back: idle
		CHECK(got != nullptr);
		check_empty(b, "claimant failed");
	}
	{   // Two workspaces, proofs taking turns for a sector and more: every
	    // lend claimed and handed over, the book empty between them.
		book b;
		std::unique_ptr<fake_ws> held[2] = {std::make_unique<fake_ws>(fake_ws{ws_bytes}),
						    std::make_unique<fake_ws>(fake_ws{ws_bytes})};
		for (int proof = 0; proof < 10000; proof++) {
			std::unique_ptr<fake_ws> &lender = held[proof & 1];
			fake_ws *const raw = lender.get();
			REQUIRE(b.lend(raw, a_bytes));
			const book::claim c = b.take(ws_bytes, size_of);
			REQUIRE(c.ws == raw);
			REQUIRE(b.hand_over(lender));
			lender = b.receive(raw);
			REQUIRE(lender.get() == raw);
		}
		check_empty(b, "10000 proofs");
	}
	CHECK_DONE();
}
