// SPDX-License-Identifier: Apache-2.0 OR MIT
// NTTs over Fr on the device.
//
// Shape.  A transform of 2^n runs as P passes of at most 10 index bits
// (2^27 = 9+9+9, 2^28 = 10+9+9).  A pass over bits [lo, lo+k) loads, for a
// few consecutive "columns" (values of the other bits, low first, so that
// global accesses are 128-byte rows), the 2^k elements that differ only in
// those bits, runs k radix-2 stages on them, and writes them back.  Between
// passes the sub-transform of size S = 2^(lo+k) is split four-step style:
// element (p, i_lo) is multiplied by ω_S^(i_lo·bitrev_k(p)).
//
// Orders: DIF (Gentleman-Sande) goes natural -> bit-reversed, DIT
// (Cooley-Tukey, the transpose of DIF) bit-reversed -> natural.  The H
// computation chains them (ntt/chain.cuh) and so never permutes.  A
// standalone natural -> natural NTT runs DIT whose first pass gathers its
// input from bit-reversed positions: each Fr is one 32-byte sector, so the
// gather costs no extra DRAM traffic.
//
// Two kernels compute the same transform (bit for bit; $CUZK_NTT_IMPL=radix2
// or radix8 picks one at open, radix8 by default):
//
// radix2 (ntt.cu), the first one: a pass's tile sits in shared memory and
// every radix-2 stage is one exchange through it and one barrier; 2^27 took
// 73 ms on the H200 against sppark's 44 ms.  Kept to measure against.
//
// radix8 (ntt8.cu, ntt/radix8.cuh).  Why it is shaped as it is:
// - The work is ~14 Fr products per element for 2^27 (12.9 in the stages
//   after the free ones are skipped, ~1 per boundary, one more for the
//   two-table twiddle of the top boundary), each ~224 IMAD: ~25 ms at the
//   H200's IMAD peak.  HBM is ~2 ms a pass.  So the kernel is bound by the
//   integer pipe and by latency, and everything else is there to keep the
//   IMADs fed: few barriers, independent products in flight, no spills.
// - Eight elements per thread, in registers: a pass's k bits run in rounds
//   of 3 (radix 8 as three radix-2 stages in registers), so a 9-bit pass has
//   two exchanges through shared memory and three barriers per tile instead
//   of nine.  Each stage gives a thread four independent butterflies, which
//   the scheduler interleaves.
// - Register budget: eight Fr are 64 registers, one product ~40 more; 256
//   threads per block and two blocks per SM cap a thread at 128, which holds
//   them (ptxas -v, see docs/BENCHMARKS.md).  Sixteen warps per SM, each
//   with four independent products per stage, cover the multiply latency;
//   more blocks would need fewer registers than the data.  Left alone ptxas
//   takes ~150 (two products in flight), so other block shapes are built
//   too (2^10-element tiles of 128 threads, three blocks per SM at up to 168
//   registers or four at 128; $CUZK_NTT8_SHAPE, ntt/radix8.cuh) to measure
//   which feeds the SM better.
// - The Fr product is the parity one (fr_mul_lazy<true>: every 32x32
//   product one multiply-add into an aligned register pair, 191 SASS
//   instructions out of line, against 416 for the two-chain form the other
//   kernels use; the radix-8 kernel went from 64.6 to 48.8 ms at 2^27 with
//   it, docs/BENCHMARKS.md).
// - Shared memory holds an element as two 16-byte chunks in two planes, so
//   a get or put is two 128-bit accesses, with an XOR swizzle
//   (ntt8_swizzle) that makes every round's accesses free of bank conflicts,
//   including those whose lanes are rows apart.  (It was word-major, eight
//   32-bit accesses an element; Nsight had the kernel issue bound with
//   shared-memory and index instructions a large part of the non-product
//   ones.)
// - Twiddles: the stage roots of a pass are ω_K^j, K = 2^k, copied once per
//   block into shared memory from the direct table; the boundary twiddles are
//   one direct-table load for S <= 2^18, two for larger S.  In the round on
//   the lowest bits the root index is a compile-time constant and the 7
//   trivial products of 12 are not made.
// - Lazy reduction: inside a transform values live in [0, 2r) (2r < 2^256);
//   a product whose second factor is a reduced table entry needs no final
//   subtraction, sums and differences reduce modulo 2r, and the last pass
//   reduces fully, so outputs are the CPU's bytes.
// - Element-wise factors (the boundary twiddle, the prologue scale, the
//   product a·b of the H computation, the epilogue scale and its
//   subtraction of C's coefficients, ntt/chain.cuh) ride on the first loads
//   and last stores of a transform; they are applied in a loop that is not
//   unrolled, through the thread's own shared-memory slots, which keeps the
//   kernel's code (and the instruction cache it needs) small.  Fusing them
//   into the last iNTT saves whole read-modify-writes of the vectors (~4 GB
//   each at 2^27).
// - The kernel is written once for both sides: ntt/radix8.cuh holds one
//   thread's work between two barriers, which the device kernel runs per
//   thread and the host test runs for every thread in turn, so CI checks the
//   index maps, the orders and the fusions against the CPU's NTT.
#ifndef CUZK_CUDA_NTT_NTT_CUH
#define CUZK_CUDA_NTT_NTT_CUH

#include <cstdint>

#include "ff/fr.cuh"
#include "ntt/radix8.cuh"
#include "ntt/tables.cuh"
#include "util/gpu_t.cuh"
#include "util/vram.cuh"

namespace cuzk {

// radix2 kernel: largest number of radix-2 stages fused into one pass.  9
// keeps 2^27 at three passes and a block's tile (NTT_TILE_ELEMS elements, 64
// KiB) small enough for three blocks per SM.
constexpr unsigned NTT_PASS_BITS = 9;
// Elements per block tile: 2^9 rows x 4 columns of 32 bytes = 128-byte rows.
constexpr unsigned NTT_TILE_LOG = 11;
constexpr unsigned NTT_THREADS = 256;
// radix2 kernel: radix-2 stages per register round inside a pass: with 3
// (radix 8) each thread holds 8 elements and a 2^9 pass exchanges through
// shared memory 3 times instead of 9.  Measured on the H200 (2026-11-29, 2^27
// forward, median of 10): 1 -> 73.3 ms, 2 -> 75.8 ms, 3 -> 123.3 ms (capped at
// 128 registers it spills and runs two blocks per SM).  $CUZK_NTT_ROUND_BITS
// (1..3) overrides it at open, to measure again; every value computes the
// same transform (tests/gpu/run.sh checks each against the CPU).
constexpr unsigned NTT_ROUND_BITS = 1;

static_assert(NTT_PASS_BITS >= 1 && NTT_PASS_BITS <= NTT_TILE_LOG, "a pass must fit a tile");
static_assert(NTT_ROUND_BITS >= 1 && NTT_ROUND_BITS <= 3, "ntt_round is instantiated for 1..3 bits");
static_assert((1u << NTT_TILE_LOG) % (2 * NTT_THREADS) == 0 || (1u << NTT_TILE_LOG) < 2 * NTT_THREADS,
	      "butterflies per stage must spread evenly over the block");

class ntt_tables {
	budgeted_mem mem_;
	ntt_tables_view view_{};

public:
	ntt_tables() = default;
	// Reserves and fills the tables (about 20 MiB) on the current device,
	// and reads $CUZK_NTT_IMPL, $CUZK_NTT_ROUND_BITS, $CUZK_NTT8_SHAPE and
	// $CUZK_NTT8_GRID.
	void build(vram_budget &budget, cudaStream_t s);
	const ntt_tables_view &view() const { return view_; }
};

// Runs one NTT of 2^log_n elements on stream s.  in == out for in-place
// orders; natural_to_natural needs in != out (in is only read).  pro applies
// to the input, epi to the output; quot, when set, replaces the input x by
// x·b first.
void ntt_run(const ntt_tables_view &t, fr_t *out, const fr_t *in, unsigned log_n, ntt_dir dir,
	     ntt_order order, const ntt_scale &pro, const ntt_scale &epi, cudaStream_t s,
	     const ntt_quotient &quot = ntt_quotient{});

// The radix-8 kernel's launcher (ntt8.cu); ntt_run picks it.
void ntt8_run(const ntt_tables_view &t, fr_t *out, const fr_t *in, unsigned log_n, ntt_dir dir,
	      ntt_order order, const ntt_scale &pro, const ntt_scale &epi, const ntt_quotient &quot,
	      cudaStream_t s);

// Raises the shared-memory limit of shape sh's radix-8 kernels on the
// current device; CUZK_E_INVAL when this build has no code for the device
// in that shape (the alternatives to the first are built for one
// architecture).
void ntt8_set_smem_limits(const ntt8_shape &sh);

// Whole transforms with the conventions of src/prover/ntt.h, natural order
// in and out (ntt/chain.cuh).
void ntt_natural(const ntt_tables_view &t, fr_t *out, const fr_t *in, unsigned log_n, ntt_kind kind,
		 cudaStream_t s);

// h for Groth16 (docs/GROTH16.md, "The math"), on a, b, c of 2^log_n elements each
// (zero-padded by the caller), in Montgomery form unless canonical.  Leaves
// h's coefficients in a, in bit-reversed order (position p holds coefficient
// bitrev(p)); b and c are clobbered.  ready, when given, holds an event
// for each of a, b and c that s waits for before it first reads that input
// (their uploads on another stream).
void ntt_compute_h(const ntt_tables_view &t, fr_t *a, fr_t *b, fr_t *c, unsigned log_n,
		   bool canonical, cudaStream_t s, const cudaEvent_t *ready = nullptr);

// out[bitrev(i)] = in[i] (out != in).
void ntt_bit_reverse(fr_t *out, const fr_t *in, unsigned log_n, cudaStream_t s);

// Multiprocessors of the current device (grid sizes).
int ntt_sm_count();

} // namespace cuzk

#endif
