// SPDX-License-Identifier: Apache-2.0 OR MIT
// Radix-2 NTT over Fr on the device, several stages per kernel.
//
// A transform of size 2^n runs as P passes of at most NTT_PASS_BITS bits
// (2^27 = 9+9+9).  A pass over index bits [lo, lo+k) loads, for one outer
// index and a few consecutive low indices ("columns", so that global accesses
// are 128-byte rows), the 2^k elements that differ only in those bits into
// shared memory, runs k radix-2 stages there, and writes them back.  Between
// passes the size-S = 2^(lo+k) sub-transform is split four-step style: after
// the k top stages element (p, i_lo) is multiplied by ω_S^(i_lo·bitrev_k(p)).
//
// Orders: DIF (Gentleman-Sande) goes natural -> bit-reversed, DIT
// (Cooley-Tukey, the transpose of DIF) bit-reversed -> natural.  The H
// computation chains them (iNTT by DIF, coset NTT by DIT, iNTT by DIF) and so
// never permutes.  A standalone natural -> natural NTT runs DIT whose first
// pass gathers its input from bit-reversed positions: each Fr is one 32-byte
// sector, so the gather costs no extra DRAM traffic.
//
// Element-wise factors ride on the first pass's loads and the last pass's
// stores: a constant (1/m, or R^2 to enter Montgomery form) times a power of
// the coset shift g^(±i), i = the element's natural coefficient index.
#ifndef CUZK_CUDA_NTT_NTT_CUH
#define CUZK_CUDA_NTT_NTT_CUH

#include <cstdint>

#include "ff/fr.cuh"
#include "util/gpu_t.cuh"
#include "util/vram.cuh"

namespace cuzk {

// Largest number of radix-2 stages fused into one pass.  9 keeps 2^27 at
// three passes and a block's tile (NTT_TILE_ELEMS elements, 64 KiB) small
// enough for three blocks per SM.
constexpr unsigned NTT_PASS_BITS = 9;
// Elements per block tile: 2^9 rows x 4 columns of 32 bytes = 128-byte rows.
constexpr unsigned NTT_TILE_LOG = 11;
constexpr unsigned NTT_THREADS = 256;
// Radix-2 stages per register round inside a pass: with 3 (radix 8) each
// thread holds 8 elements and a 2^9 pass exchanges through shared memory 3
// times instead of 9.  Measured on the H200 (2026-11-29, 2^27 forward,
// median of 10): 1 -> 73.3 ms, 2 -> 75.8 ms, 3 -> 123.3 ms (capped at 128
// registers it spills and runs two blocks per SM).  $CUZK_NTT_ROUND_BITS
// (1..3) overrides it at open, to measure again; every value computes the
// same transform (tests/gpu/run.sh checks each against the CPU).
constexpr unsigned NTT_ROUND_BITS = 1;
// Twiddles and coset powers come from two tables of 2^NTT_TW_BITS entries
// (x^e = lo[e mod 2^14] · hi[e >> 14]); 2 x 512 KiB per base instead of a
// 4 GiB table for 2^28.
constexpr unsigned NTT_TW_BITS = 14;
constexpr unsigned NTT_LOG_MAX = CUZK_FR_LOG_MAX;
// Sub-transforms of up to 2^NTT_DIRECT_LOG points take their boundary
// twiddles from one direct table (one product per element instead of two):
// 2^18 covers the second pass of 2^26 and 2^27; 8 MiB per direction, L2-resident.
constexpr unsigned NTT_DIRECT_LOG = 18;

static_assert(NTT_PASS_BITS >= 1 && NTT_PASS_BITS <= NTT_TILE_LOG, "a pass must fit a tile");
static_assert(2 * NTT_TW_BITS >= NTT_LOG_MAX, "two twiddle tables must cover every exponent");
static_assert(NTT_ROUND_BITS >= 1 && NTT_ROUND_BITS <= 3, "ntt_round is instantiated for 1..3 bits");
static_assert((1u << NTT_TILE_LOG) % (2 * NTT_THREADS) == 0 || (1u << NTT_TILE_LOG) < 2 * NTT_THREADS,
	      "butterflies per stage must spread evenly over the block");

enum class ntt_dir { forward = 0, inverse = 1 };
enum class ntt_order { natural_to_bitrev, bitrev_to_natural, natural_to_natural };

// Device tables shared by every NTT on one device (read-only after set-up).
struct ntt_tables_view {
	const fr_t *w_lo[2], *w_hi[2];   // [dir] ω^(±j), ω^(±j·2^14), ω = ω_{2^28}
	const fr_t *w_direct[2];         // [dir] ω_{2^18}^(±j), j < 2^18
	const fr_t *g_lo[2], *g_hi[2];   // [0] g^j, g^(j·2^14); [1] the same for g^-1
	const fr_t *inv_m;               // [log_n] 1/2^log_n, log_n = 0..28
	const fr_t *z_inv;               // [log_n] 1/(g^(2^log_n) - 1)
	const fr_t *r2;                  // 2^512 mod r
	unsigned round_bits;             // stages per register round (1..3)
};

// A factor c · G^idx applied to each element; idx is the natural index of the
// element (its position, or the bit-reversal of it in a bit-reversed array).
struct ntt_scale {
	const fr_t *cst = nullptr;       // nullptr: c = 1
	const fr_t *p_lo = nullptr;      // nullptr: G = 1
	const fr_t *p_hi = nullptr;
	bool bitrev_index = false;
};

class ntt_tables {
	budgeted_mem mem_;
	ntt_tables_view view_{};

public:
	ntt_tables() = default;
	// Reserves and fills the tables (about 20 MiB) on the current device.
	void build(vram_budget &budget, cudaStream_t s);
	const ntt_tables_view &view() const { return view_; }
};

// Runs one NTT of 2^log_n elements on stream s.  in == out for in-place
// orders; natural_to_natural needs in != out (in is only read).  pro applies
// to the input, epi to the output.
void ntt_run(const ntt_tables_view &t, fr_t *out, const fr_t *in, unsigned log_n, ntt_dir dir,
	     ntt_order order, const ntt_scale &pro, const ntt_scale &epi, cudaStream_t s);

// Whole transforms with the conventions of src/groth16/ntt.h, natural order in
// and out: forward, inverse (with 1/m), coset forward (coefficient i times g^i,
// then NTT), coset inverse (iNTT, then coefficient i times g^-i).
enum class ntt_kind { forward, inverse, coset_forward, coset_inverse };
void ntt_natural(const ntt_tables_view &t, fr_t *out, const fr_t *in, unsigned log_n, ntt_kind kind,
		 cudaStream_t s);

// h for Groth16 (DESIGN.md, "The math"), on a, b, c of 2^log_n elements each
// (zero-padded by the caller), in Montgomery form unless canonical.  Leaves
// h's coefficients in a, in bit-reversed order (position p holds coefficient
// bitrev(p)); b and c are clobbered.
void ntt_compute_h(const ntt_tables_view &t, fr_t *a, fr_t *b, fr_t *c, unsigned log_n,
		   bool canonical, cudaStream_t s);

// out[bitrev(i)] = in[i] (out != in).
void ntt_bit_reverse(fr_t *out, const fr_t *in, unsigned log_n, cudaStream_t s);

} // namespace cuzk

#endif
