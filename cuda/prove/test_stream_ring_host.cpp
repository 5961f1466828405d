// SPDX-License-Identifier: Apache-2.0 OR MIT
// The streamed SRS's ring (prove/stream_ring.cuh) on the CPU: every batch's
// bytes lie inside the ring, aligned; a batch waits for the latest earlier
// batch whose bytes it overlaps, and for no later one, so that no copy
// overwrites bytes a batch not yet summed still reads; and a partition's
// batches under a 16 GiB budget (2^22 G1 points, 2^22 G2 points in a ring
// of two G2 batches) run four G1 batches or two G2 batches deep.  Runs in
// every build (no GPU needed).
#include <cstddef>
#include <vector>

#include "prove/stream_ring.cuh"

#include "../../tests/check.h"

namespace {

size_t up(size_t x, size_t a) { return (x + a - 1) & ~(a - 1); }

void check_ring(const std::vector<size_t> &bytes, size_t ring, size_t align)
{
	const std::vector<cuzk::ring_place> p = cuzk::ring_places(bytes, ring, align);
	bool fits = true;
	for (size_t b : bytes)
		fits = fits && up(b, align) <= ring;
	if (!fits) {
		CHECK_MSG(p.empty(), "%zu places for batches that do not fit a ring of %zu", p.size(), ring);
		return;
	}
	REQUIRE(p.size() == bytes.size());
	for (size_t s = 0; s < p.size(); s++) {
		CHECK_MSG(p[s].off % align == 0 && p[s].off + up(bytes[s], align) <= ring,
			  "batch %zu at %zu, %zu bytes, ring %zu", s, p[s].off, bytes[s], ring);
		CHECK_MSG(p[s].after <= s, "batch %zu waits for batch %zu", s, p[s].after);
		// No batch between after and s overlaps s; batch after - 1 does.
		for (size_t q = 0; q < s; q++) {
			const bool overlap = p[q].off < p[s].off + up(bytes[s], align) &&
					     p[s].off < p[q].off + up(bytes[q], align);
			if (q + 1 > p[s].after)
				CHECK_MSG(!overlap, "batch %zu overlaps batch %zu but waits only for %zu", s, q,
					  p[s].after);
			if (q + 1 == p[s].after)
				CHECK_MSG(overlap, "batch %zu waits for batch %zu, which it does not overlap", s, q);
		}
	}
}

} // namespace

int main()
{
	const size_t g1 = (size_t(1) << 22) * 96, g2 = (size_t(1) << 22) * 192, ring = 2 * g2;
	// h and l taking turns, then b_g2's larger batches, then a partial batch.
	std::vector<size_t> part;
	for (int i = 0; i < 12; i++)
		part.push_back(g1);
	for (int i = 0; i < 5; i++)
		part.push_back(g2);
	part.push_back(1000 * 96);
	part.push_back(g1);
	check_ring(part, ring, 256);
	const std::vector<cuzk::ring_place> p = cuzk::ring_places(part, ring, 256);
	REQUIRE(p.size() == part.size());
	for (size_t s = 0; s < 12; s++)   // four G1 batches deep
		CHECK_MSG(p[s].after == (s >= 4 ? s - 3 : 0), "G1 batch %zu waits for %zu", s, p[s].after);
	// Two G2 batches deep: the first takes G1 batches 8 and 9's bytes.
	for (size_t s = 12; s < 17; s++)
		CHECK_MSG(p[s].after == (s == 12 ? 10 : s - 1), "G2 batch %zu waits for %zu", s, p[s].after);
	check_ring({ring + 1}, ring, 256);   // too large: refused
	check_ring({}, ring, 256);
	// Sizes that do not divide the ring, aligned or not, and a ring of one batch.
	for (size_t a = 1; a <= 256; a *= 16)
		for (size_t r = 1000; r <= 5000; r += 1333) {
			std::vector<size_t> b;
			for (size_t i = 0; i < 60; i++)
				b.push_back(1 + (i * 7919) % r);
			check_ring(b, up(r, a), a);
		}
	check_ring({700, 700, 700}, 700, 1);
	CHECK_DONE();
}
