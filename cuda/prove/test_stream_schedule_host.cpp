// SPDX-License-Identifier: Apache-2.0 OR MIT
// The streamed SRS's batch order (prove/stream_schedule.cuh) on the CPU:
// for query shapes like a partition's (h with l and b_g1 taking turns, then
// a with b_g2) and the edge cases (no partners, no primary batches, a lead
// longer than the primary, empty jobs, jobs in no phase), every batch runs
// exactly once and in its job's order, the phases come one after another,
// a phase's lead is its primary's alone, its partners come one after
// another in their order, and they are spread evenly over the primary's
// batches (ceil(i·S/R) of them before its i+1-th after the lead).  Runs in
// every build (no GPU needed).
#include <cstddef>
#include <vector>

#include "prove/stream_schedule.cuh"

#include "../../tests/check.h"

namespace {

using cuzk::schedule_phase;

void check_schedule(const std::vector<size_t> &batches, const std::vector<schedule_phase> &phases)
{
	const std::vector<cuzk::batch_step> s = cuzk::stream_schedule(batches, phases);
	const unsigned jobs = unsigned(batches.size());
	std::vector<size_t> next(jobs, 0);
	std::vector<bool> named(jobs, false);
	size_t at = 0;
	for (size_t q = 0; q < phases.size(); q++) {
		const schedule_phase &ph = phases[q];
		REQUIRE(ph.primary < jobs);
		named[ph.primary] = true;
		size_t partners = 0;
		for (unsigned j : ph.partners) {
			REQUIRE(j < jobs);
			named[j] = true;
			partners += batches[j];
		}
		const size_t primary = batches[ph.primary], lead = ph.lead < primary ? ph.lead : primary;
		const size_t rest = primary - lead, end = at + primary + partners;
		size_t seen_primary = 0, seen_partners = 0, last_partner = 0;
		for (; at < end; at++) {
			REQUIRE(at < s.size());
			const unsigned j = s[at].job;
			REQUIRE(j < jobs);
			CHECK_MSG(s[at].k == next[j], "step %zu: job %u batch %zu, expected %zu", at, j, s[at].k, next[j]);
			next[j] = s[at].k + 1;
			if (j == ph.primary) {
				if (seen_primary >= lead) {
					const size_t i = seen_primary - lead;   // primary batches after the lead so far
					const size_t due = rest ? (i * partners + rest - 1) / rest : 0;
					CHECK_MSG(seen_partners == due, "phase %zu step %zu: %zu partner batches before the "
						  "primary's batch %zu, expected %zu", q, at, seen_partners, seen_primary, due);
				} else {
					CHECK_MSG(seen_partners == 0, "phase %zu step %zu: a partner batch in the lead", q, at);
				}
				seen_primary++;
				continue;
			}
			size_t idx = ph.partners.size();
			for (size_t p = 0; p < ph.partners.size(); p++)
				if (ph.partners[p] == j)
					idx = p;
			CHECK_MSG(idx < ph.partners.size(), "phase %zu step %zu: job %u is not in this phase", q, at, j);
			CHECK_MSG(idx >= last_partner, "phase %zu step %zu: partner %u after a later one", q, at, j);
			last_partner = idx;
			seen_partners++;
		}
	}
	CHECK_MSG(at == s.size(), "%zu steps, the phases account for %zu", s.size(), at);
	for (unsigned j = 0; j < jobs; j++)
		CHECK_MSG(next[j] == (named[j] ? batches[j] : 0), "job %u ran %zu of %zu batches", j, next[j],
			  batches[j]);
}

} // namespace

int main()
{
	// A 2^27 partition under 16 GiB (prove.cu's phases): h, l, b_g1, b_g2,
	// a in 2^22-point batches; h with l and b_g1, then a with b_g2.
	const std::vector<schedule_phase> partition = {{0, {1, 2}, 4}, {4, {3}, 0}};
	check_schedule({32, 32, 8, 8, 24}, partition);
	check_schedule({32, 48, 0, 3, 24}, partition);   // more partners than h; an empty job
	check_schedule({3, 10, 10, 4, 2}, {{0, {1, 2}, 8}, {4, {3}, 0}});   // a lead longer than h
	check_schedule({10}, {{0, {}, 2}});                  // h alone
	check_schedule({0, 5, 5, 2, 0}, partition);          // no primary batches
	check_schedule({7, 1, 1, 1, 1}, {{0, {1, 2, 3}, 0}, {4, {}, 0}});   // no lead
	check_schedule({5, 5, 5}, {{1, {}, 0}});             // jobs in no phase
	check_schedule({}, {});
	for (size_t h = 0; h < 12; h++)
		for (size_t s = 0; s < 12; s++)
			for (size_t lead = 0; lead < 6; lead++)
				for (size_t a = 0; a < 4; a++)
					check_schedule({h, s / 2, s - s / 2, s % 3, a}, {{0, {1, 2}, lead}, {4, {3}, 0}});
	CHECK_DONE();
}
