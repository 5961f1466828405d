// SPDX-License-Identifier: Apache-2.0 OR MIT
// Batch-affine bucket accumulation (G1): the points of each bucket are summed
// two by two in affine coordinates, where an addition costs one division
// and 2M + 1S, and the divisions of a whole round share one inversion
// (Montgomery's trick: 3M each), so an addition is 5M + 1S plus its share of
// the inversion, against the 8M + 2S of a mixed XYZZ addition.
//
// Each accumulation thread owns a chunk of the sorted (bucket, point) pairs,
// as the XYZZ kernel does (msm/pippenger.cuh).  A round pairs two
// neighbours of the same bucket; a bucket's odd one out passes through.
// The round's outputs (half the list, plus one per bucket at most) go to
// the thread's own scratch list, so the next round sees the buckets still
// sorted.  Each pair's slot holds the running product of the denominators
// before it; one inversion; a walk back turns each slot into its sum
// (rounds() below says how the walks chain).  Rounds stop when one would
// pair fewer than min_batch points (the inversion would cost more than it
// saves) or its outputs would not fit the list; the list left is then
// summed as the XYZZ kernel sums its pairs.  No thread waits for another.
//
// Measured on the H200 it is slower than the XYZZ kernel (pippenger.cuh,
// accumulate_affine): its walks wait on their list loads.  The rounds of
// msm/affine_rounds.cuh ($CUZK_MSM_ACC=rounds) take the same additions
// over the whole grid with loads in step across a warp, and are faster.
//
// Equal x (a doubling or P + (-P)) and the point at infinity take the slow
// path of the pair's classification; they are rare in real data and are
// what the host test (msm/test_affine_host.cpp) feeds it most.
#ifndef CUZK_CUDA_MSM_AFFINE_ACC_CUH
#define CUZK_CUDA_MSM_AFFINE_ACC_CUH

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ec/xyzz.cuh"
#include "msm/fp_impl.cuh"

// The inversion is out of line: once a round, and its table and loop would
// crowd the registers of the walks around it.
#ifdef __CUDACC__
#define CUZK_AFFINE_COLD __host__ __device__ __noinline__
#else
#define CUZK_AFFINE_COLD inline
#endif

namespace cuzk {
namespace msm {
namespace affine {

// 16 bytes, the unit of every load and store here (a CUDA uint4 on the
// device; the host test has no CUDA headers).
#ifdef __CUDACC__
using word16_t = uint4;
#else
struct alignas(16) word16_t {
	uint32_t x, y, z, w;
};
#endif

// How a pair (p, q) adds.
enum class pair_kind : uint32_t {
	sum,     // distinct x: lambda = (yq - yp) / (xq - xp)
	twice,   // p == q: lambda = 3xp^2 / 2yp
	left,    // q is infinity: p
	right,   // p is infinity: q
	none,    // p == -q (or a point of order two doubled): infinity
};

template <class A> CUZK_HD pair_kind classify(const affine_t<A> &p, const affine_t<A> &q)
{
	if (is_inf(q))
		return pair_kind::left;
	if (is_inf(p))
		return pair_kind::right;
	if (!eq(p.x, q.x))
		return pair_kind::sum;
	return eq(p.y, q.y) && !is_zero(p.y) ? pair_kind::twice : pair_kind::none;
}

// The pair's denominator: never zero, so the batch's product has an inverse.
template <class A> CUZK_HD A denominator(pair_kind k, const affine_t<A> &p, const affine_t<A> &q, const A &one)
{
	if (k == pair_kind::sum)
		return sub(q.x, p.x);
	if (k == pair_kind::twice)
		return dbl(p.y);
	return one;
}

// p + q, given dinv = 1 / denominator(k, p, q).
template <class A> CUZK_HD affine_t<A> pair_sum(pair_kind k, const affine_t<A> &p, const affine_t<A> &q, const A &dinv)
{
	affine_t<A> r;
	if (k == pair_kind::left)
		return p;
	if (k == pair_kind::right)
		return q;
	if (k == pair_kind::none) {
		r.x = r.y = A{};
		return r;
	}
	A lambda;
	A xs;   // xp + xq
	if (k == pair_kind::sum) {
		lambda = mul(sub(q.y, p.y), dinv);
		xs = add(p.x, q.x);
	} else {
		const A x2 = sqr(p.x);
		lambda = mul(add(dbl(x2), x2), dinv);
		xs = dbl(p.x);
	}
	r.x = sub(sqr(lambda), xs);
	r.y = sub(mul(lambda, sub(p.x, r.x)), p.y);
	return r;
}

// 1/a for a != 0: a^(p-2), 4 bits at a time (380 squares, ~110 products).
template <class A> CUZK_AFFINE_COLD A inverse(A a, A one)
{
	A tbl[16];
	tbl[0] = one;
	tbl[1] = a;
	for (int i = 2; i < 16; i++)
		tbl[i] = mul(tbl[i - 1], a);
	uint32_t e[12];
	for (int j = 0; j < 12; j++)
		e[j] = fp_detail::P(j);
	e[0] -= 2;   // the low limb of p is 0xffffaaab: no borrow
	A r = one;
	bool started = false;
	for (int i = 95; i >= 0; i--) {
		const uint32_t nib = (e[i / 8] >> (4 * (i % 8))) & 15;
		if (started)
			for (int s = 0; s < 4; s++)
				r = sqr(r);
		if (nib) {
			r = started ? mul(r, tbl[nib]) : tbl[nib];
			started = true;
		}
	}
	return r;
}

// A thread's list capacities (entries) for a chunk of per pairs: round 0's
// outputs (half the chunk plus the buckets' odd ones out), round 1's and
// round 2's.  Later rounds fit in whichever list they write (a round never
// grows the list).
CUZK_HD size_t cap0(size_t per) { return per / 2 + per / 16 + 32; }
CUZK_HD size_t cap1(size_t per) { return cap0(cap0(per)); }
CUZK_HD size_t cap2(size_t per) { return cap0(cap1(per)); }
// Bounds over every chunk size, for npairs pairs cut into at most chunks
// chunks (per <= npairs / chunks + 1 for the chunks that exist).
inline size_t list_entries(size_t npairs, size_t chunks)
{
	const size_t c0 = npairs * 9 / 16 + 33 * chunks, c1 = c0 * 9 / 16 + 33 * chunks;
	return c0 + c1 + c1 * 9 / 16 + 33 * chunks;
}

// Where a thread's lists live: thread t's entries are contiguous (its
// walks stream through them; the threads of a warp drift apart as their
// buckets pair differently, so interleaving them would not coalesce
// either): entry j of list l is the 96 bytes at pts[(t·span + base(l) + j)·6],
// span = cap[0] + cap[1] + cap[2], the lists one after the other; its key
// at keys[t·span + base(l) + j].
struct lists_t {
	word16_t *pts;
	uint32_t *keys;
	size_t t;
	size_t cap[3];
};

// The round-0 input: the sorted pairs (point index·2 + sign) of one chunk.
struct pairs_t {
	const word16_t *bases;
	const uint32_t *keys, *vals;
	size_t lo;
};

// A hint that the 16 bytes at p will be read soon (into L1), so that the
// walks' loads do not each wait for a gather from HBM.
CUZK_HD void prefetch(const void *p)
{
#ifdef __CUDA_ARCH__
	asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
#else
	(void)p;
#endif
}

template <class A> struct chunk_lists {
	static_assert(sizeof(affine_t<A>) == 96, "G1 affine points: six 16-byte words");
	pairs_t in0;
	lists_t ls;

	CUZK_HD size_t slot(int list, size_t j) const
	{
		const size_t off = list == 0 ? 0 : list == 1 ? ls.cap[0] : ls.cap[0] + ls.cap[1];
		return ls.t * (ls.cap[0] + ls.cap[1] + ls.cap[2]) + off + j;
	}
	CUZK_HD const word16_t *at(int list, size_t e) const
	{
		return list < 0 ? in0.bases + size_t(in0.vals[in0.lo + e] >> 1) * 6 : ls.pts + slot(list, e) * 6;
	}
	CUZK_HD uint32_t key(int list, size_t e) const
	{
		return list < 0 ? in0.keys[in0.lo + e] : ls.keys[slot(list, e)];
	}
	CUZK_HD void set_key(int list, size_t j, uint32_t k) { ls.keys[slot(list, j)] = k; }
	// Entry e's first and last 16 bytes (its one or two cache lines).
	CUZK_HD void will_read(int list, size_t e) const
	{
		const word16_t *p = at(list, e);
		prefetch(p);
		prefetch(p + 5);
	}

	CUZK_HD void words(int list, size_t e, unsigned q1, word16_t *w) const
	{
		const word16_t *p = at(list, e);
		for (unsigned q = 0; q < q1; q++)
#ifdef __CUDA_ARCH__
			w[q] = list < 0 ? __ldg(p + q) : p[q];
#else
			w[q] = p[q];
#endif
	}
	CUZK_HD A x(int list, size_t e) const
	{
		word16_t w[3];
		words(list, e, 3, w);
		A r;
		memcpy(&r, w, sizeof r);
		return r;
	}
	CUZK_HD affine_t<A> point(int list, size_t e) const
	{
		word16_t w[6];
		words(list, e, 6, w);
		affine_t<A> r;
		memcpy(&r, w, sizeof r);
		if (list < 0 && (in0.vals[in0.lo + e] & 1))
			r.y = neg(r.y);   // infinity stays (0, 0): -0 = 0
		return r;
	}
	CUZK_HD void store(int list, size_t j, const affine_t<A> &p)
	{
		word16_t w[6];
		memcpy(w, &p, sizeof p);
		word16_t *d = ls.pts + slot(list, j) * 6;
		for (unsigned q = 0; q < 6; q++)
			d[q] = w[q];
	}
	CUZK_HD void store_x(int list, size_t j, const A &v)
	{
		word16_t w[3];
		memcpy(w, &v, sizeof v);
		word16_t *d = ls.pts + slot(list, j) * 6;
		for (unsigned q = 0; q < 3; q++)
			d[q] = w[q];
	}
};

// The rounds over one chunk of n entries (all of them real buckets, no
// sentinels), one walk each: round k's walk turns the pairs of list X_k into the sums of X_(k+1)
// (their denominators' running products were stored in X_(k+1)'s slots
// one walk earlier) and, as each sum appears, pairs it with the one before
// for round k + 1: that pair's slot in X_(k+2) gets its key and running
// product, so the next walk needs no forward pass.  The walks alternate
// direction through the data (each must undo the running product in the
// order it was made), so X_k's keys ascend with its index for odd k and
// descend for even k.  A slot's key carries SINGLE_KEY for an odd one out.
// Three lists in turn (X_k, X_(k+1), X_(k+2) are all live in round k);
// round 0 reads the chunk's pairs (X_0) and its slots are made by one
// forward pass over them.  (A form with a forward walk per round, measured
// beside this one on the H200, was 2% slower.)
constexpr uint32_t SINGLE_KEY = 0x80000000u;

// The denominator of the pair (p, q), p first in the list.
template <class A> CUZK_HD A pair_denominator(const affine_t<A> &p, const affine_t<A> &q, const A &one)
{
	if (!is_zero(p.x) && !is_zero(q.x) && !eq(p.x, q.x))
		return sub(q.x, p.x);
	return denominator(classify(p, q), p, q, one);
}

// Returns the list left (-1: the chunk's pairs) and sets n to its length
// and ascending to whether its keys ascend with the index.
template <class A>
CUZK_HD int rounds(chunk_lists<A> &c, size_t &n, size_t min_batch, const A &one, bool &ascending)
{
	ascending = true;
	size_t pairs = 0, outs = 0;
	for (size_t e = 0; e < n; outs++) {
		const uint32_t k = c.key(-1, e);
		const bool pair = e + 1 < n && c.key(-1, e + 1) == k;
		if (outs < c.ls.cap[0])
			c.set_key(0, outs, pair ? k : k | SINGLE_KEY);
		pairs += pair;
		e += pair ? 2 : 1;
	}
	if (pairs < min_batch || pairs == 0 || outs > c.ls.cap[0])
		return -1;
	A prod = one;
	for (size_t j = 0, e = 0; j < outs; j++) {
		if (c.key(0, j) & SINGLE_KEY) {
			e++;
			continue;
		}
		if (j + 1 < outs)
			c.will_read(-1, e + 2);
		const A x1 = c.x(-1, e), x2 = c.x(-1, e + 1);
		A d;
		if (!is_zero(x1) && !is_zero(x2) && !eq(x1, x2))
			d = sub(x2, x1);
		else
			d = pair_denominator(c.point(-1, e), c.point(-1, e + 1), one);
		c.store_x(0, j, prod);
		prod = mul(prod, d);
		e += 2;
	}
	int in = -1, cur = 0;
	size_t n_in = n, n_cur = outs;
	for (unsigned k = 0;; k++) {
		const int nxt = cur == 2 ? 0 : cur + 1;
		A inv = inverse(prod, one);
		A prod2 = one;
		size_t n_nxt = 0, pairs_nxt = 0;
		bool fits = true, pending = false;
		affine_t<A> pend;
		uint32_t pend_key = 0;
		// an odd one out of round k + 1: a slot with only its key
		auto single = [&](uint32_t k1) {
			if (n_nxt < c.ls.cap[nxt])
				c.set_key(nxt, n_nxt, k1 | SINGLE_KEY);
			else
				fits = false;
			n_nxt++;
		};
		// round 0 undoes a forward pass: its pairs from the top down;
		// later rounds undo the walk before: theirs from the bottom up
		size_t pos = in < 0 ? n_in : 0;
		for (size_t j = n_cur; j-- > 0;) {
			const uint32_t kf = c.key(cur, j);
			affine_t<A> r;
			if (kf & SINGLE_KEY) {
				r = c.point(in, in < 0 ? --pos : pos++);
			} else {
				size_t e;
				if (in < 0) {
					pos -= 2;
					e = pos;
				} else {
					e = pos;
					pos += 2;
				}
				if (j > 0) {   // the next slot's inputs (if a pair) and running product
					if (in < 0 ? e >= 2 : e + 3 < n_in) {
						const size_t e2 = in < 0 ? e - 2 : e + 2;
						c.will_read(in, e2);
						c.will_read(in, e2 + 1);
					}
					c.will_read(cur, j - 1);
				}
				const affine_t<A> p = c.point(in, e), q = c.point(in, e + 1);
				const pair_kind pk = classify(p, q);
				const A dinv = mul(inv, c.x(cur, j));
				inv = mul(inv, denominator(pk, p, q, one));
				r = pair_sum(pk, p, q, dinv);
			}
			c.store(cur, j, r);
			const uint32_t key = kf & ~SINGLE_KEY;
			if (pending && pend_key == key) {
				// r is below pend in X_(k+1): the pair (r, pend)
				if (n_nxt < c.ls.cap[nxt]) {
					c.set_key(nxt, n_nxt, key);
					c.store_x(nxt, n_nxt, prod2);
				} else {
					fits = false;
				}
				prod2 = mul(prod2, pair_denominator(r, pend, one));
				n_nxt++;
				pairs_nxt++;
				pending = false;
			} else {
				if (pending)
					single(pend_key);
				pend = r;
				pend_key = key;
				pending = true;
			}
		}
		if (pending)
			single(pend_key);
		if (!fits || pairs_nxt < min_batch || pairs_nxt == 0) {
			n = n_cur;
			ascending = k % 2 == 0;
			return cur;
		}
		in = cur;
		n_in = n_cur;
		cur = nxt;
		n_cur = n_nxt;
		prod = prod2;
	}
}

} // namespace affine
} // namespace msm
} // namespace cuzk

#endif
