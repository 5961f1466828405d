// SPDX-License-Identifier: Apache-2.0 OR MIT
// The streamed SRS's ring (prove/stream_ring.cuh) on the CPU: every batch
// lies inside the ring on slot boundaries; a batch waits for the latest
// earlier batch whose slots it overlaps, and for no later one, so that no
// copy overwrites bytes a batch not yet summed still reads; a partition's
// batches under a 16 GiB budget run four G1 batches or two G2 batches deep;
// and with G1 batches of one slot and G2 batches of two (full or partial)
// in any order, no batch takes the slots of the batch just before it (its
// copy could not run under anything).  Runs in every build (no GPU needed).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "prove/stream_ring.cuh"

#include "../../tests/check.h"

namespace {

size_t slots_of(size_t b, size_t slot) { return b ? (b + slot - 1) / slot : 1; }

std::vector<cuzk::ring_place> check_ring(const std::vector<size_t> &bytes, size_t ring, size_t slot)
{
	const std::vector<cuzk::ring_place> p = cuzk::ring_places(bytes, ring, slot);
	bool fits = slot != 0;
	for (size_t b : bytes)
		fits = fits && slots_of(b, slot) * slot <= ring;
	if (!fits) {
		CHECK_MSG(p.empty(), "%zu places for batches that do not fit a ring of %zu", p.size(), ring);
		return p;
	}
	REQUIRE(p.size() == bytes.size());
	for (size_t s = 0; s < p.size(); s++) {
		const size_t end = p[s].off + slots_of(bytes[s], slot) * slot;
		CHECK_MSG(p[s].off % slot == 0 && end <= ring, "batch %zu at %zu, %zu bytes, ring %zu", s, p[s].off,
			  bytes[s], ring);
		CHECK_MSG(p[s].after <= s, "batch %zu waits for batch %zu", s, p[s].after);
		// No batch between after and s overlaps s; batch after - 1 does.
		for (size_t q = 0; q < s; q++) {
			const bool overlap = p[q].off < end && p[s].off < p[q].off + slots_of(bytes[q], slot) * slot;
			if (q + 1 > p[s].after)
				CHECK_MSG(!overlap, "batch %zu overlaps batch %zu but waits only for %zu", s, q,
					  p[s].after);
			if (q + 1 == p[s].after)
				CHECK_MSG(overlap, "batch %zu waits for batch %zu, which it does not overlap", s, q);
		}
	}
	return p;
}

} // namespace

int main()
{
	const size_t slot = (size_t(1) << 22) * 96, ring = 4 * slot, g2 = (size_t(1) << 22) * 192;
	// h and l taking turns, then b_g2's larger batches, then a partial batch.
	std::vector<size_t> part;
	for (int i = 0; i < 12; i++)
		part.push_back(slot);
	for (int i = 0; i < 5; i++)
		part.push_back(g2);
	part.push_back(1000 * 96);
	part.push_back(slot);
	const std::vector<cuzk::ring_place> p = check_ring(part, ring, slot);
	REQUIRE(p.size() == part.size());
	for (size_t s = 0; s < 12; s++)   // four G1 batches deep
		CHECK_MSG(p[s].after == (s >= 4 ? s - 3 : 0), "G1 batch %zu waits for %zu", s, p[s].after);
	// Two G2 batches deep: the first takes G1 batches 8 and 9's slots.
	for (size_t s = 12; s < 17; s++)
		CHECK_MSG(p[s].after == (s == 12 ? 10 : s - 1), "G2 batch %zu waits for %zu", s, p[s].after);
	// One G1 batch, then G2's: the first G2 goes to slots 2-3, not 1-2.
	const std::vector<cuzk::ring_place> q = check_ring({slot, g2, g2, g2}, ring, slot);
	REQUIRE(q.size() == 4);
	CHECK_MSG(q[1].off == 2 * slot && q[2].off == 0 && q[3].off == 2 * slot, "G2 batches at slots %zu, %zu, %zu",
		  q[1].off / slot, q[2].off / slot, q[3].off / slot);
	// G1 and G2 batches, full and partial, in pseudo-random orders: never
	// the slots of the batch just before.
	uint64_t x = 88172645463325252ull;
	const size_t sizes[5] = {slot, g2, slot / 3, slot + slot / 2, 96};
	for (int round = 0; round < 200; round++) {
		std::vector<size_t> b;
		for (int i = 0; i < 64; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			b.push_back(sizes[x % 5]);
		}
		const std::vector<cuzk::ring_place> r = check_ring(b, ring, slot);
		REQUIRE(r.size() == b.size());
		for (size_t s = 1; s < r.size(); s++)
			CHECK_MSG(r[s].after != s, "round %d: batch %zu takes the slots of batch %zu", round, s, s - 1);
	}
	check_ring({ring + 1}, ring, slot);   // too large: refused
	check_ring({slot}, ring, 0);           // no slots: refused
	check_ring({}, ring, slot);
	// Rings that are not a multiple of the slot, and a ring of one slot.
	for (size_t sl = 256; sl <= 4096; sl *= 4)
		for (size_t r = sl; r <= 7 * sl + 100; r += sl + 37) {
			std::vector<size_t> b;
			for (size_t i = 0; i < 60; i++)
				b.push_back(1 + (i * 7919) % (r / sl * sl));
			check_ring(b, r, sl);
		}
	check_ring({700, 700, 700}, 768, 768);
	CHECK_DONE();
}
