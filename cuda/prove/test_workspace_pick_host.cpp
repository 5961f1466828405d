// SPDX-License-Identifier: Apache-2.0 OR MIT
// Which working memory a proof takes (prove/workspace_pick.cuh) on the CPU:
// a faster size only where the budget keeps room for another proof of the
// least size while nobody else holds an arena (unless two of the least
// size never fit), the fastest size that can be had first, idle arenas
// before new ones and the smallest that fits, the least size when no
// faster one can be had, and nothing when none fits (the caller then gives
// the idle arenas back or waits).  The sizes are a 2^27 partition's on an
// H200 (GiB, rounded): a budget of 140, 42 of resident SRS, 23 the least
// workspace, 37 the faster.
// Runs in every build (no GPU needed).
#include <cstddef>
#include <vector>

#include "prove/workspace_pick.cuh"

#include "../../tests/check.h"

namespace {

using cuzk::pick_workspace;
using cuzk::workspace_pick;

constexpr size_t NONE = workspace_pick::npos;

void expect(const char *what, const std::vector<size_t> &idle, size_t bytes, const std::vector<size_t> &wants,
	    size_t free, unsigned busy, size_t idle_i, size_t fresh)
{
	const workspace_pick p = pick_workspace(idle.data(), idle.size(), bytes, wants.data(), wants.size(), free, busy);
	CHECK_MSG(p.idle == idle_i && p.fresh == fresh, "%s: got idle %zu fresh %zu, expected idle %zu fresh %zu",
		  what, p.idle == NONE ? (size_t)-1 : p.idle, p.fresh, idle_i == NONE ? (size_t)-1 : idle_i, fresh);
}

} // namespace

int main()
{
	const size_t least = 23, fast = 37, budget = 140, srs = 42;
	const size_t free0 = budget - srs;   // 98
	// The first proof of a sector: room for the faster size and another
	// proof's least beside it.
	expect("first proof, room for both", {}, least, {fast}, free0, 0, NONE, fast);
	// The second, beside it: the other worker already holds its arena, so
	// nothing needs keeping free.
	expect("second proof, beside the first", {}, least, {fast}, free0 - fast, 1, NONE, fast);
	// A third beside two: only the least size fits.
	expect("third proof", {}, least, {fast}, free0 - 2 * fast, 2, NONE, least);
	// Nothing fits and nothing is idle: wait (or fail, the caller's choice).
	expect("no room at all", {}, least, {fast}, 10, 2, NONE, 0);
	// Alone, and no room for the faster one at all (these sizes on an
	// 80 GB card's 78 GiB): the least.
	expect("alone, a small card", {}, least, {fast}, 78 - srs, 0, NONE, least);
	// The same card with exactly enough for both: the faster.
	expect("alone, exactly both", {}, least, {fast}, fast + least, 0, NONE, fast);
	expect("alone, one byte short", {}, least, {fast}, fast + least - 1, 0, NONE, least);
	// Idle arenas: the smallest of the faster size first, even when a
	// least-size one is idle too.
	expect("idle fast and least", {least, fast + 5, fast}, least, {fast}, 0, 0, 2, 0);
	// An idle least-size arena and room for a new faster one beside another
	// proof's least: the new one (the idle one stays for the other worker).
	expect("idle least, room for fast", {least}, least, {fast}, fast + least, 0, NONE, fast);
	// Not that room: the idle least-size one.
	expect("idle least, no room", {least}, least, {fast}, fast, 0, 0, 0);
	// Idle arenas too small for the least size, no room: none (the caller
	// gives them back and asks again).
	expect("idle too small", {least - 1, 5}, least, {fast}, 0, 0, NONE, 0);
	// No faster plan (want <= bytes, a streamed SRS or CUZK_MSM_ACC=xyzz):
	// the least size, the smallest idle arena that fits first.
	expect("no faster plan, idle", {fast, least + 1}, least, {0}, free0, 0, 1, 0);
	expect("no faster plan, new", {}, least, {least}, free0, 0, NONE, least);
	expect("no faster plan, short", {}, least, {0}, least - 1, 1, NONE, 0);
	// Zero free (a budget all reserved) must not wrap around.
	expect("budget all reserved", {}, least, {fast}, 0, 0, NONE, 0);
	// An 80 GB card (GiB, rounded: a budget of 77.6, 41.2 of resident SRS, so
	// 36.4 free; a least workspace of 25.6, 36.2 with B and C lent to h's and
	// l's MSMs, 44.2 with every MSM's fast scratch): two least ones never
	// fit, so the proofs take turns anyway and the first takes the lent size,
	// the second (sequential) the idle arena the first gave back.
	const size_t h_least = 256, h_lent = 362, h_fast = 442, h_free = 364;
	expect("80 GB, first", {}, h_least, {h_fast, h_lent}, h_free, 0, NONE, h_lent);
	expect("80 GB, next, the lent arena idle", {h_lent}, h_least, {h_fast, h_lent}, h_free - h_lent, 0, 0, 0);
	expect("80 GB, lent one byte too big", {}, h_least, {h_fast, h_free + 1}, h_free, 0, NONE, h_least);
	// Where two least ones fit, the lent size too keeps room for the other.
	expect("two least fit, lent beside one", {}, h_least, {h_fast, h_lent}, h_lent + h_least, 0, NONE, h_lent);
	expect("two least fit, lent not beside one", {}, h_least, {h_fast, h_lent}, 2 * h_least + 1, 0, NONE,
	       h_least);
	// The fastest size first, where both fit.
	expect("room for the fastest", {}, h_least, {h_fast, h_lent}, h_fast + h_least, 0, NONE, h_fast);
	// An idle lent arena is taken before a new fast one is made where the
	// fast one does not keep room for another proof.
	expect("idle lent, no room for fast beside", {h_lent}, h_least, {h_fast, h_lent}, h_fast, 0, 0, 0);
	return check_failures ? 1 : 0;
}
