// SPDX-License-Identifier: Apache-2.0 OR MIT
// One pass of the radix-8 NTT kernel, written once for the device and for the
// host emulation (cuda/ntt/test_ntt_host.cpp): the pass plan, the index maps
// and one barrier-to-barrier phase of one thread.  The design and the reasons
// for it are in ntt/ntt.cuh.
//
// A pass covers index bits [lo, lo+k) of a 2^log_n transform.  Its tile is
// 2^cols_log "columns" (consecutive values of the other index bits, low bits
// first) by 2^k rows; element e = (p << cols_log) | c of the tile is row p of
// column c.  The k bits are run in rounds of 3 (the topmost round may have 1
// or 2): in a round each thread holds 8 elements in registers, the 2^R of a
// butterfly group (rows that differ only in the round's bits) times 8 >> R
// groups, and runs the round's R radix-2 stages on them.  Between rounds the
// tile goes through shared memory; the first round reads what was copied
// there from global memory during the previous tile (ntt8_prefetch) and the
// last one stores to global memory.
#ifndef CUZK_CUDA_NTT_RADIX8_CUH
#define CUZK_CUDA_NTT_RADIX8_CUH

#include <cstddef>
#include <cstdint>

#include "ntt/tables.cuh"

#ifdef __CUDA_ARCH__
#define CUZK_ROLLED _Pragma("unroll 1")
#else
#define CUZK_ROLLED
#endif

namespace cuzk {

// Block shapes ($CUZK_NTT8_SHAPE picks one at open, the first by default;
// the other two are built for the last of --with-cuda-arch alone,
// cuda/Makefile.inc):
// 11x2: 2^11 elements per tile, 64 KiB of shared memory, 256 threads of 8,
//       two blocks per SM (65536 registers / (2 x 256) = 128 a thread, which
//       holds eight Fr and one product);
// 10x3: 2^10 by 128 threads, three blocks per SM: up to 168 registers a
//       thread (two products in flight) for 12 warps instead of 16;
// 10x4: 2^10 by 128 threads, four blocks per SM at 128 registers: 16 warps
//       as 11x2, in blocks half as large (a barrier holds fewer warps).
// Measured on one H200 (2026-12-02, 2^27 forward / coset, before the
// next-tile prefetch): 11x2 46.9 / 52.4 ms, 10x3 49.3 / 55.4, 10x4 47.7 /
// 53.5; with it 11x2 42.9 / 47.7, 10x4 42.9 / 48.0 (docs/BENCHMARKS.md).
constexpr unsigned NTT8_TILE_LOG = 11;
constexpr unsigned NTT8_TILE_LOG_ALT = 10;
constexpr ntt8_shape NTT8_SHAPES[] = {{NTT8_TILE_LOG, 2, "11x2"}, {NTT8_TILE_LOG_ALT, 3, "10x3"},
				      {NTT8_TILE_LOG_ALT, 4, "10x4"}};
// Largest pass: 10 bits (2^28 = 10 + 9 + 9); its roots, ω_1024^j for
// j < 1024, are 32 KiB of shared memory beside the tile.
constexpr unsigned NTT8_PASS_MAX = 10;
// Below 8 points a thread would have nothing to hold; those sizes run on the
// radix-2 kernel.
constexpr unsigned NTT8_MIN_LOG = 3;

static_assert(NTT8_PASS_MAX <= NTT8_TILE_LOG_ALT && NTT8_PASS_MAX <= NTT_DIRECT_LOG,
	      "a pass fits a tile and takes its roots from the direct table");

struct ntt8_pass {
	fr_t *out;
	const fr_t *in;
	unsigned log_n, lo, k, cols_log;
	unsigned tile_log;         // NTT8_TILE_LOG or NTT8_TILE_LOG_ALT: the kernel's tile
	bool dit;                  // bottom-up stages (bit-reversed in, natural out)
	bool inverse;              // the roots are ω^-1
	bool gather;               // the element at position pos comes from in[bitrev(pos)]
	bool last;                 // the transform's last pass: epilogue and full reduction
	// Multiply on the way in by the boundary twiddle of the sub-transform
	// over bits [tw_lo, tw_lo + tw_k): element (i_lo, p) by ω_S^(i_lo·bitrev(p)),
	// S = 2^(tw_lo + tw_k).  tw_k = 0: none.
	unsigned tw_lo, tw_k;
	const fr_t *w_direct;      // ω_{2^18}^(±j) of the direction
	const fr_t *w_lo, *w_hi;   // ω_{2^28}^(±·) of the direction
	ntt_scale pro, epi;        // first pass / last pass only
	ntt_quotient quot;         // first pass only
};

CUZK_HD unsigned ntt8_rounds(unsigned k)
{
	return (k + 2) / 3;
}

CUZK_HD uint32_t ntt8_tiles(const ntt8_pass &a)
{
	return 1u << (a.log_n - a.k - a.cols_log);
}

CUZK_HD unsigned ntt8_threads(const ntt8_pass &a)
{
	return 1u << (a.k + a.cols_log - 3);
}

// Roots ω_K^j (j < K) first, then the tile.
inline size_t ntt8_smem_bytes(const ntt8_pass &a)
{
	return sizeof(fr_t) * (((size_t)1 << a.k) + ((size_t)1 << (a.k + a.cols_log)));
}

// Bits per pass, top pass first: as few passes of at most 10 bits as
// possible, then as few rounds (the partial ones cost an exchange each but
// do a third of the work), then the smallest largest pass; larger passes on
// top, so that the second boundary of 2^28 stays within the direct table.
// (max_pass below 10 only in the host test: three passes at small sizes;
// log_n <= 3·max_pass.)
inline unsigned ntt8_split(unsigned log_n, unsigned bits[3], unsigned max_pass = NTT8_PASS_MAX)
{
	const unsigned P = (log_n + max_pass - 1) / max_pass;
	unsigned best = ~0u;
	for (unsigned k0 = 1; k0 <= max_pass; k0++)
		for (unsigned k1 = P > 1 ? 1 : 0; k1 <= (P > 1 ? k0 : 0); k1++) {
			if (k0 + k1 > log_n)
				continue;
			const unsigned k2 = log_n - k0 - k1;
			if ((P < 3 && k2) || (P == 3 && (k2 < 1 || k2 > k1)))
				continue;
			const unsigned cost = (ntt8_rounds(k0) + ntt8_rounds(k1) + ntt8_rounds(k2)) * 16 + k0;
			if (cost < best) {
				best = cost;
				bits[0] = k0;
				bits[1] = k1;
				bits[2] = k2;
			}
		}
	return P;
}

// The passes of one transform, in execution order.  DIF (natural ->
// bit-reversed) goes top-down and applies the boundary twiddle of a pass on
// the next pass's loads; DIT (bit-reversed -> natural, its transpose) goes
// bottom-up and applies its own boundary twiddle on its loads.
inline unsigned ntt8_plan(ntt8_pass out[3], const ntt_tables_view &t, fr_t *dst, const fr_t *src, unsigned log_n,
			  ntt_dir dir, ntt_order order, const ntt_scale &pro, const ntt_scale &epi,
			  const ntt_quotient &quot, unsigned tile_log = NTT8_TILE_LOG,
			  unsigned max_pass = NTT8_PASS_MAX)
{
	unsigned bits[3], lo_of[3];
	const unsigned P = ntt8_split(log_n, bits, max_pass);
	unsigned lo = log_n;
	for (unsigned i = 0; i < P; i++) {
		lo -= bits[i];
		lo_of[i] = lo;
	}
	const bool dit = order != ntt_order::natural_to_bitrev;
	const int d = (int)dir;
	for (unsigned i = 0; i < P; i++) {
		const unsigned pi = dit ? P - 1 - i : i;
		ntt8_pass a{};
		a.k = bits[pi];
		a.lo = lo_of[pi];
		a.log_n = log_n;
		a.tile_log = tile_log;
		a.cols_log = tile_log - a.k < log_n - a.k ? tile_log - a.k : log_n - a.k;
		a.dit = dit;
		a.inverse = dir == ntt_dir::inverse;
		a.w_direct = t.w_direct[d];
		a.w_lo = t.w_lo[d];
		a.w_hi = t.w_hi[d];
		if (dit && a.lo) {
			a.tw_lo = a.lo;
			a.tw_k = a.k;
		} else if (!dit && i > 0) {
			a.tw_lo = lo_of[pi - 1];
			a.tw_k = bits[pi - 1];
		}
		a.gather = order == ntt_order::natural_to_natural && i == 0;
		a.in = i == 0 ? src : dst;
		a.out = dst;
		if (i == 0) {
			a.pro = pro;
			a.quot = quot;
		}
		if (i == P - 1) {
			a.epi = epi;
			a.last = true;
		}
		out[i] = a;
	}
	return P;
}

// Shared memory holds the tile as two planes of 16-byte chunks: words
// 4h..4h+3 of element e at 16-byte slot h·E + ntt8_swizzle(e), so that an
// element is two 128-bit accesses instead of eight 32-bit ones (each with its
// own address).  A warp's 128-bit access is served a quarter-warp (8
// consecutive lanes) at a time, free of bank conflicts when those 8 lanes'
// slots differ modulo 8.  With 1, 2 or 4 columns the 8 elements of a
// quarter-warp are rows apart, so they share bits 0..2; in every round of
// every pass they differ only in bits 0..5, and XORing bits 3..5 onto bits
// 0..2 spreads each such set over the 8 values.  That map was the first of
// the 64 found by an exhaustive search over XOR-linear maps of bits 3..5
// onto bits 0..2 against the element sets of every round, pass width and
// column count of 2^8..2^28 on both tile sizes; test_ntt_host checks it.  It
// permutes the low 3 bits only, so it is a bijection on any tile.
CUZK_HD unsigned ntt8_swizzle(unsigned e)
{
	return e ^ ((e >> 3) & 7u);
}

// sm is 16-byte aligned on the device: it follows 2^k 32-byte roots at the
// start of the (uint4) dynamic shared memory.
CUZK_HD fr_t ntt8_sm_get(const uint32_t *sm, unsigned E, unsigned e)
{
	const unsigned s = ntt8_swizzle(e);
#ifdef __CUDA_ARCH__
	const uint4 *q = reinterpret_cast<const uint4 *>(sm);
	const uint4 x = q[s], y = q[E + s];
	return fr_t{{x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w}};
#else
	fr_t v;
	for (int w = 0; w < 4; w++) {
		v.v[w] = sm[4 * s + w];
		v.v[4 + w] = sm[4 * (E + s) + w];
	}
	return v;
#endif
}

CUZK_HD void ntt8_sm_put(uint32_t *sm, unsigned E, unsigned e, const fr_t &v)
{
	const unsigned s = ntt8_swizzle(e);
#ifdef __CUDA_ARCH__
	uint4 *q = reinterpret_cast<uint4 *>(sm);
	q[s] = make_uint4(v.v[0], v.v[1], v.v[2], v.v[3]);
	q[E + s] = make_uint4(v.v[4], v.v[5], v.v[6], v.v[7]);
#else
	for (int w = 0; w < 4; w++) {
		sm[4 * s + w] = v.v[w];
		sm[4 * (E + s) + w] = v.v[4 + w];
	}
#endif
}

// Global position of tile element e.
CUZK_HD uint32_t ntt8_pos(const ntt8_pass &a, uint32_t tile, unsigned e)
{
	const uint32_t col = (tile << a.cols_log) | (e & ((1u << a.cols_log) - 1));
	const uint32_t p = e >> a.cols_log;
	return ((col >> a.lo) << (a.lo + a.k)) | (p << a.lo) | (col & ((1u << a.lo) - 1));
}

// No next tile (ntt8_phase): the last tile of a block.
constexpr uint32_t NTT8_NO_TILE = ~0u;

// 16 bytes from global to shared memory without passing through registers
// (cp.async: the copy runs while the thread computes).
#ifdef __CUDA_ARCH__
__device__ __forceinline__ void ntt8_copy16_async(uint4 *dst, const void *src)
{
	const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}
#endif

// The thread's first-round elements of `tile`, copied from global memory
// into the shared-memory slots it reads them from (asynchronously on the
// device, so that the next tile's loads run under this tile's last round
// instead of stalling its first; the round waits for them in ntt8_get).
template <bool DIT> CUZK_HD void ntt8_prefetch(const ntt8_pass &a, uint32_t tile, unsigned tid, uint32_t *sm);

// Which of the round's groups and rows slot s of thread tid holds.  Groups
// are numbered column first, so that a warp's lanes take consecutive columns
// (128-byte rows of global memory) and then consecutive groups.
struct ntt8_slot {
	unsigned e;          // tile element
	unsigned base_low;   // row bits below the round's bits (the group's twiddle index)
};

CUZK_HD ntt8_slot ntt8_slot_of(const ntt8_pass &a, unsigned R, unsigned b0, unsigned tid, unsigned s)
{
	const unsigned q = s >> R, i = s & ((1u << R) - 1);
	const unsigned v = (q << (a.k + a.cols_log - 3)) + tid;
	const unsigned c = v & ((1u << a.cols_log) - 1), w = v >> a.cols_log;
	const unsigned low = w & ((1u << b0) - 1);
	const unsigned p = ((w >> b0) << (b0 + R)) | low | (i << b0);
	return ntt8_slot{(p << a.cols_log) | c, low};
}

template <bool DIT> CUZK_HD void ntt8_prefetch(const ntt8_pass &a, uint32_t tile, unsigned tid, uint32_t *sm)
{
	const unsigned E = 1u << (a.k + a.cols_log);
	const unsigned rounds = ntt8_rounds(a.k);
	const unsigned b0 = 3 * (DIT ? 0 : rounds - 1);
	const unsigned R = a.k - b0 < 3 ? a.k - b0 : 3;
	// Not unrolled: in the last round it runs beside the eight live elements.
CUZK_ROLLED
	for (unsigned s = 0; s < 8; s++) {
		const unsigned e = ntt8_slot_of(a, R, b0, tid, s).e;
		const uint32_t pos = ntt8_pos(a, tile, e);
		const fr_t *src = a.in + (a.gather ? ntt_bitrev(pos, a.log_n) : pos);
#ifdef __CUDA_ARCH__
		uint4 *q = reinterpret_cast<uint4 *>(sm);
		const unsigned sl = ntt8_swizzle(e);
		ntt8_copy16_async(q + sl, src);
		ntt8_copy16_async(q + E + sl, reinterpret_cast<const uint4 *>(src) + 1);
#else
		ntt8_sm_put(sm, E, e, *src);
#endif
	}
#ifdef __CUDA_ARCH__
	asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// A DFT of 2^R points in place, as the radix-2 stages of the round on the
// lowest bits: DIF top-down with (x, y) -> (x + y, (x - y)·w), natural in,
// bit-reversed out; DIT bottom-up with (x, y) -> (x + w·y, x - w·y), the
// transpose.  Stage ls's roots are ω_{2^(ls+1)}^j, j < 2^ls: 1, ω_4, ω_8,
// ω_8^3, compile-time constants (5 products for R = 3).
template <bool DIT, bool INV, int R>
CUZK_HD void ntt8_dft(fr_t *x)
{
CUZK_UNROLL
	for (int s = 0; s < R; s++) {
		const int ls = DIT ? s : R - 1 - s;
CUZK_UNROLL
		for (int i = 0; i < (1 << R); i++) {
			if (i & (1 << ls))
				continue;
			const int i2 = i | (1 << ls);
			const unsigned j = (unsigned)i & ((1u << ls) - 1);   // ω_{2^(ls+1)}^j = ω_8^(j·2^(2-ls))
			const bool trivial = j == 0;
			const fr_t w = trivial ? fr_zero() : fr_root_8(j << (2 - ls), INV);
			if (DIT) {
				const fr_t y = trivial ? x[i2] : fr_mul_lazy<true>(x[i2], w);
				x[i2] = fr_sub_lazy(x[i], y);
				x[i] = fr_add_lazy(x[i], y);
			} else {
				const fr_t d = fr_sub_lazy(x[i], x[i2]);
				x[i] = fr_add_lazy(x[i], x[i2]);
				x[i2] = trivial ? d : fr_mul_lazy<true>(d, w);
			}
		}
	}
}

CUZK_HD constexpr unsigned ntt8_bitrev_c(unsigned i, int bits)
{
	return bits == 0 ? 0 : ((i & 1) << (bits - 1)) | ntt8_bitrev_c(i >> 1, bits - 1);
}

// Stages [b0, b0+R) on one group x[0..2^R) whose rows share their bits below
// b0 (beta).  The radix-2 stages there use ω_K^(j·2^(k-1-t)), j = the row mod
// 2^t; split j = beta + (j >> b0)·2^b0 and they factor into a 2^R-point DFT
// and one twiddle per element: DIF's partial transform after these stages
// holds ω_N^(beta·m) · DFT(x)[m] in slot bitrev(m), N = 2^(b0+R) (DIT, the
// transpose, multiplies slot i by the same factor before its DFT).  The same
// 12 products as the radix-2 stages for R = 3, but the DFT's roots are
// immediates and the seven twiddles are one product each at the end (or the
// start), which keeps fewer values live than twiddles inside the stages.  In
// the round on the lowest bits beta = 0 and only the DFT is left.
template <bool DIT, bool INV, int R>
CUZK_HD void ntt8_group(fr_t *x, const fr_t *roots, unsigned k, unsigned b0, unsigned beta)
{
	if (!DIT)
		ntt8_dft<false, INV, R>(x);
	if (b0) {
		const unsigned shift = k - R - b0;
CUZK_UNROLL
		for (unsigned i = 1; i < (1u << R); i++)
			x[i] = fr_mul_lazy<true>(x[i], ntt_load(roots + ((beta * ntt8_bitrev_c(i, R)) << shift)));
	}
	if (DIT)
		ntt8_dft<true, INV, R>(x);
}

// The factors on the way in: quotient, prologue, boundary twiddle.  Values
// are lazy from here on: every product's second factor is a reduced table
// entry or constant, so any 256-bit first factor gives a result below 2r.
CUZK_HD fr_t ntt8_pre(const ntt8_pass &a, uint32_t pos, fr_t x)
{
	if (a.quot.b)
		x = fr_mul_lazy<true>(x, ntt_load(a.quot.b + pos));
	if (a.pro.p_lo) {
		const uint32_t idx = a.pro.bitrev_index ? ntt_bitrev(pos, a.log_n) : pos;
		x = fr_mul_lazy<true>(x, ntt_load(a.pro.p_lo + (idx & NTT_TW_MASK)));
		x = fr_mul_lazy<true>(x, ntt_load(a.pro.p_hi + (idx >> NTT_TW_BITS)));
	}
	if (a.pro.cst)
		x = fr_mul_lazy<true>(x, ntt_load(a.pro.cst));
	if (a.tw_k) {
		const unsigned S_log = a.tw_lo + a.tw_k;
		const uint32_t i_lo = pos & ((1u << a.tw_lo) - 1);
		const uint32_t e = i_lo * ntt_bitrev((pos >> a.tw_lo) & ((1u << a.tw_k) - 1), a.tw_k);
		if (S_log <= NTT_DIRECT_LOG) {
			x = fr_mul_lazy<true>(x, ntt_load(a.w_direct + (e << (NTT_DIRECT_LOG - S_log))));
		} else {
			const uint32_t e28 = e << (NTT_LOG_MAX - S_log);
			x = fr_mul_lazy<true>(x, ntt_load(a.w_lo + (e28 & NTT_TW_MASK)));
			x = fr_mul_lazy<true>(x, ntt_load(a.w_hi + (e28 >> NTT_TW_BITS)));
		}
	}
	return x;
}

CUZK_HD bool ntt8_has_pre(const ntt8_pass &a)
{
	return a.tw_k || a.pro.p_lo || a.pro.cst || a.quot.b;
}

// The factors on the way out of the last pass, and the full reduction.
CUZK_HD fr_t ntt8_post(const ntt8_pass &a, uint32_t pos, fr_t x)
{
	if (a.epi.p_lo) {
		const uint32_t idx = a.epi.bitrev_index ? ntt_bitrev(pos, a.log_n) : pos;
		x = fr_mul_lazy<true>(x, ntt_load(a.epi.p_lo + (idx & NTT_TW_MASK)));
		x = fr_mul_lazy<true>(x, ntt_load(a.epi.p_hi + (idx >> NTT_TW_BITS)));
	}
	if (a.epi.cst)
		x = fr_mul_lazy<true>(x, ntt_load(a.epi.cst));
	if (!a.last)
		return x;
	x = fr_reduce(x);
	return a.epi.sub ? fr_sub(x, ntt_load(a.epi.sub + pos)) : x;
}

// The last pass's epilogue has work of its own (through shared memory).
CUZK_HD bool ntt8_has_post(const ntt8_pass &a)
{
	return a.epi.p_lo || a.epi.cst || a.epi.sub;
}

// The roots of a pass, ω_K^j = ω_{2^18}^(j·2^(18-k)) for j < K; thread tid
// of n fills its share.
CUZK_HD void ntt8_fill_roots(const ntt8_pass &a, fr_t *roots, unsigned tid, unsigned n)
{
	for (unsigned j = tid; j < (1u << a.k); j += n)
		roots[j] = ntt_load(a.w_direct + (j << (NTT_DIRECT_LOG - a.k)));
}

// The thread's 8 elements for round rd, from shared memory: in the first
// round the slots ntt8_prefetch filled, with the per-element factors applied
// there first in a loop that is not unrolled (to keep the code small).
CUZK_HD void ntt8_get(const ntt8_pass &a, uint32_t tile, bool first, unsigned R, unsigned b0, unsigned tid,
		      uint32_t *sm, fr_t x[8])
{
	const unsigned E = 1u << (a.k + a.cols_log);
	if (first) {
		// The slots hold this thread's prefetched elements (ntt8_prefetch);
		// only this thread wrote them, so its own wait is enough.
#ifdef __CUDA_ARCH__
		asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
		if (ntt8_has_pre(a)) {
CUZK_ROLLED
			for (unsigned s = 0; s < 8; s++) {
				const unsigned e = ntt8_slot_of(a, R, b0, tid, s).e;
				ntt8_sm_put(sm, E, e, ntt8_pre(a, ntt8_pos(a, tile, e), ntt8_sm_get(sm, E, e)));
			}
		}
	}
CUZK_UNROLL
	for (unsigned s = 0; s < 8; s++)
		x[s] = ntt8_sm_get(sm, E, ntt8_slot_of(a, R, b0, tid, s).e);
}

// The thread's 8 elements after round rd: to the same shared-memory slots
// they came from (no other thread reads those until the barrier), or in the
// last round to global memory, with the epilogue applied in a loop that is
// not unrolled when there is one.
CUZK_HD void ntt8_put(const ntt8_pass &a, uint32_t tile, bool final_round, unsigned R, unsigned b0, unsigned tid,
		      uint32_t *sm, const fr_t x[8])
{
	const unsigned E = 1u << (a.k + a.cols_log);
	if (!final_round || ntt8_has_post(a)) {
CUZK_UNROLL
		for (unsigned s = 0; s < 8; s++)
			ntt8_sm_put(sm, E, ntt8_slot_of(a, R, b0, tid, s).e, x[s]);
		if (!final_round)
			return;
CUZK_ROLLED
		for (unsigned s = 0; s < 8; s++) {
			const unsigned e = ntt8_slot_of(a, R, b0, tid, s).e;
			const uint32_t pos = ntt8_pos(a, tile, e);
			ntt_store(a.out + pos, ntt8_post(a, pos, ntt8_sm_get(sm, E, e)));
		}
		return;
	}
CUZK_UNROLL
	for (unsigned s = 0; s < 8; s++) {
		const uint32_t pos = ntt8_pos(a, tile, ntt8_slot_of(a, R, b0, tid, s).e);
		ntt_store(a.out + pos, a.last ? fr_reduce(x[s]) : x[s]);
	}
}

template <bool DIT, bool INV, int R>
CUZK_HD void ntt8_groups(const ntt8_pass &a, unsigned b0, unsigned tid, const fr_t *roots, fr_t x[8])
{
CUZK_UNROLL
	for (unsigned q = 0; q < (8u >> R); q++)
		ntt8_group<DIT, INV, R>(x + (q << R), roots, a.k, b0, ntt8_slot_of(a, R, b0, tid, q << R).base_low);
}

// Once every thread of the block is done with shared memory for this tile
// (the barrier), the next tile's first-round elements into this thread's
// slots.  Device only: the host emulation prefetches each tile itself.
template <bool DIT>
CUZK_HD void ntt8_prefetch_next(const ntt8_pass &a, uint32_t next, unsigned tid, uint32_t *sm)
{
#ifdef __CUDA_ARCH__
	__syncthreads();
	if (next != NTT8_NO_TILE)
		ntt8_prefetch<DIT>(a, next, tid, sm);
#else
	(void)a;
	(void)next;
	(void)tid;
	(void)sm;
#endif
}

// Round rd of one tile for thread tid: everything one thread does between two
// barriers of its block.  Rounds run DIF top-down (the partial round, if any,
// first) and DIT bottom-up.
//
// In the last round, once every thread of the block has read its elements
// (a barrier), the thread prefetches its first-round elements of the next
// tile (`next`, or NTT8_NO_TILE) into its slots while it computes; when the
// epilogue goes through shared memory (ntt8_put), only after the put.  The
// host emulation runs one thread's phase at a time, so it passes
// NTT8_NO_TILE and prefetches each tile itself before the first round.
template <bool DIT, bool INV>
CUZK_HD void ntt8_phase(const ntt8_pass &a, uint32_t tile, unsigned rd, unsigned tid, const fr_t *roots,
			uint32_t *sm, uint32_t next)
{
	const unsigned rounds = ntt8_rounds(a.k);
	const unsigned b0 = 3 * (DIT ? rd : rounds - 1 - rd);
	const unsigned R = a.k - b0 < 3 ? a.k - b0 : 3;
	const bool last = rd == rounds - 1;
	const bool staged_epilogue = ntt8_has_post(a);
	fr_t x[8];
	ntt8_get(a, tile, rd == 0, R, b0, tid, sm, x);
	if (last && !staged_epilogue)
		ntt8_prefetch_next<DIT>(a, next, tid, sm);
	if (R == 3)
		ntt8_groups<DIT, INV, 3>(a, b0, tid, roots, x);
	else if (R == 2)
		ntt8_groups<DIT, INV, 2>(a, b0, tid, roots, x);
	else
		ntt8_groups<DIT, INV, 1>(a, b0, tid, roots, x);
	ntt8_put(a, tile, last, R, b0, tid, sm, x);
	if (last && staged_epilogue)
		ntt8_prefetch_next<DIT>(a, next, tid, sm);
}

} // namespace cuzk

#endif
