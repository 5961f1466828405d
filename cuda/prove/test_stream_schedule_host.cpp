// SPDX-License-Identifier: Apache-2.0 OR MIT
// The streamed SRS's batch order (prove/stream_schedule.cuh) on the CPU:
// for query shapes like a partition's (h, then l, a, b_g1, b_g2 spread
// between its batches; or a last, in the tail) and the edge cases (no
// secondaries, no primary batches, a lead longer than h, empty jobs), every
// batch runs exactly once and in its job's order, the lead is the primary's
// alone, before the primary's r-th batch after the lead exactly
// ceil((r + 1)·S / P) of the S secondary batches have run (P: the primary's
// batches after the lead), the secondaries come one after another in their
// order, and the tail jobs run last.  Runs in every build (no GPU needed).
#include <cstddef>
#include <vector>

#include "prove/stream_schedule.cuh"

#include "../../tests/check.h"

namespace {

void check_schedule(const std::vector<size_t> &batches, size_t lead, unsigned tail)
{
	const std::vector<cuzk::batch_step> s = cuzk::stream_schedule(batches, lead, tail);
	const unsigned jobs = unsigned(batches.size()), t = tail < jobs ? tail : jobs;
	std::vector<size_t> next(jobs, 0);
	size_t total = 0;
	for (size_t b : batches)
		total += b;
	CHECK_MSG(s.size() == total, "%zu steps for %zu batches", s.size(), total);
	size_t secondary = 0;
	for (unsigned j = 1; j < t; j++)
		secondary += batches[j];
	const size_t primary = t > 0 ? batches[0] : 0;
	const size_t lead_steps = lead < primary ? lead : primary, rest = primary - lead_steps;
	bool tail_started = false;
	unsigned last_secondary = 1;
	size_t seen_secondary = 0, seen_primary = 0;
	for (size_t i = 0; i < s.size(); i++) {
		const unsigned j = s[i].job;
		REQUIRE(j < jobs);
		CHECK_MSG(s[i].k == next[j], "step %zu: job %u batch %zu, expected %zu", i, j, s[i].k, next[j]);
		next[j] = s[i].k + 1;
		const bool is_tail = j >= t;
		CHECK_MSG(!tail_started || is_tail, "step %zu: job %u after the tail began", i, j);
		tail_started = tail_started || is_tail;
		if (is_tail)
			continue;
		if (i < lead_steps)
			CHECK_MSG(j == 0, "step %zu of the lead is job %u", i, j);
		if (j == 0) {
			if (seen_primary >= lead_steps) {
				// The r-th after the lead follows ceil((r + 1)·S / P) secondaries.
				const size_t r = seen_primary - lead_steps;
				CHECK_MSG(seen_secondary * rest >= (r + 1) * secondary &&
						  (seen_secondary == 0 || (seen_secondary - 1) * rest < (r + 1) * secondary),
					  "step %zu: primary batch %zu after the lead follows %zu of %zu secondaries (%zu "
					  "primary batches after the lead)",
					  i, r, seen_secondary, secondary, rest);
			}
			seen_primary++;
		} else {
			CHECK_MSG(j >= last_secondary, "step %zu: secondary %u after %u", i, j, last_secondary);
			CHECK_MSG(seen_primary >= lead_steps, "step %zu: secondary %u inside the lead", i, j);
			last_secondary = j;
			seen_secondary++;
		}
	}
	for (unsigned j = 0; j < jobs; j++)
		CHECK_MSG(next[j] == batches[j], "job %u ran %zu of %zu batches", j, next[j], batches[j]);
}

} // namespace

int main()
{
	// A 2^27 partition under 16 GiB: h, l, a, b_g1, b_g2 in 2^22-point batches,
	// or with a last (its scalars where h's are).
	check_schedule({32, 32, 24, 8, 8}, 4, 5);
	check_schedule({32, 32, 8, 8, 24}, 4, 4);
	check_schedule({32, 48, 0, 3, 24}, 4, 4);   // more secondaries than h; an empty job
	check_schedule({3, 10, 10}, 8, 3);           // a lead longer than h
	check_schedule({10}, 2, 1);                  // h alone
	check_schedule({0, 5, 5, 2}, 4, 3);          // no primary batches
	check_schedule({7, 1, 1, 1}, 0, 4);          // no lead
	check_schedule({5, 5}, 1, 0);                // everything a tail
	check_schedule({}, 4, 4);
	for (size_t h = 0; h < 12; h++)
		for (size_t s = 0; s < 12; s++)
			for (size_t lead = 0; lead < 6; lead++)
				check_schedule({h, s / 2, s - s / 2, 3}, lead, 3);
	// The partition's exact interleaving: 28 of h's batches after the lead
	// take 72 secondaries, 3 before the first, then 2 or 3 before each.
	const std::vector<cuzk::batch_step> p = cuzk::stream_schedule({32, 32, 24, 8, 8}, 4, 5);
	REQUIRE(p.size() == 104);
	for (size_t i = 0; i < 4; i++)
		CHECK(p[i].job == 0 && p[i].k == i);
	CHECK(p[4].job == 1 && p[5].job == 1 && p[6].job == 1 && p[7].job == 0 && p[7].k == 4);
	CHECK(p[103].job == 0 && p[103].k == 31);
	CHECK_DONE();
}
