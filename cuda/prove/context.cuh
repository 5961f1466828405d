// SPDX-License-Identifier: Apache-2.0 OR MIT
// One opened device: its VRAM budget, NTT tables, resident SRS sets and the
// pool of per-proof workspaces (arenas allocated once and reused).
#ifndef CUZK_CUDA_PROVE_CONTEXT_CUH
#define CUZK_CUDA_PROVE_CONTEXT_CUH

#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

#include "cuzk_gpu.h"
#include "ntt/ntt.cuh"
#include "util/gpu_t.cuh"
#include "util/vram.cuh"

namespace cuzk {

constexpr size_t G1_AFF_BYTES = 96, G2_AFF_BYTES = 192;

// Staging ring for witness memory the caller did not register: two pinned
// chunks; the host fills one while the copy engine drains the other.
// 64 MiB chunks keep the ring small next to a 17 GB witness and still
// amortise the per-copy latency (~10 us) to nothing.
constexpr size_t STAGING_CHUNK = (size_t)64 << 20;
// Points per batch when the SRS is streamed (not resident): at most 2^22
// (G2 points: 768 MiB per buffer, two buffers), at least 2^18, and within
// those the largest power of two whose two G2 buffers take no more than
// 1/32 of the VRAM budget (stream_batch_for): 2^20 for a 16 GB card, so
// that with the aux values in A's memory a 2^27 partition's streamed proof
// fits it (12 GiB of a, b, c, 1.2 GiB of batches and MSM scratch).
constexpr size_t STREAM_BATCH_POINTS = (size_t)1 << 22;
constexpr size_t STREAM_BATCH_MIN = (size_t)1 << 18;
size_t stream_batch_for(size_t budget_bytes);

// A resident SRS: all five point arrays in one allocation; h in bit-reversed
// order (position p holds h[bitrev(p)]), matching the order the NTT leaves
// the h scalars in.
struct srs_resident {
	const void *key = nullptr;
	budgeted_mem mem;
	const void *h = nullptr, *l = nullptr, *a = nullptr, *b_g1 = nullptr, *b_g2 = nullptr;
	size_t n_h = 0, n_l = 0, n_a = 0, n_b_g1 = 0, n_b_g2 = 0;
};

// A streamed SRS's host arrays, page-locked while the SRS is loaded.
struct srs_pinned {
	const void *key = nullptr;
	void *ptr[5] = {};
	int n = 0;
};

// Byte sizes of one proof's working memory.
struct proof_layout {
	size_t m = 0;
	unsigned log_m = 0;
	size_t off_a, off_b, off_c, off_aux, off_input, off_bits, off_density, off_msm, off_stream, total;
	size_t density_bytes, msm_bytes, stream_bytes;
	// The aux values live in A's memory (off_aux == off_a), uploaded once h
	// has left it: with the SRS streamed, h is permuted from A into B before
	// its MSM, so A is free long before the L, A and B queries read aux.
	bool aux_in_a = false;
};

// stream_batch: points per streamed batch (0 when the SRS is resident).
proof_layout plan_proof(size_t num_constraints, size_t num_inputs, size_t num_aux, size_t n_a, size_t n_b,
			size_t stream_batch);

struct workspace {
	budgeted_mem mem;
	stream_t compute, copy;
	pinned_mem staging[2];
	event_t staged[2];
	unsigned id;                  // which of the device's workspaces: names its streams on a timeline
	workspace(vram_budget &b, size_t bytes, unsigned ws_id)
	    : mem(b, bytes, "a proof's working memory"), staging{pinned_mem(STAGING_CHUNK), pinned_mem(STAGING_CHUNK)},
	      id(ws_id)
	{
	}
};

} // namespace cuzk

struct cuzk_gpu_dev {
	int device = 0;
	size_t total_mem = 0;
	size_t stream_batch = cuzk::STREAM_BATCH_POINTS;   // points per batch of a streamed SRS
	bool never_resident = false;                 // tests: stream every SRS
	std::unique_ptr<cuzk::vram_budget> budget;
	cuzk::ntt_tables ntt;
	std::mutex load_mu;                                      // one SRS upload at a time
	std::mutex mu;                                           // guards everything below
	std::list<std::shared_ptr<cuzk::srs_resident>> srs;
	std::list<cuzk::srs_pinned> pinned_srs;                  // streamed SRS sets, page-locked
	std::vector<std::unique_ptr<cuzk::workspace>> idle;      // workspaces not in use
	unsigned busy = 0;                                       // workspaces in use
	unsigned long returned = 0;                              // give_workspace calls so far
	unsigned workspaces_made = 0;                            // ids of new workspaces
	std::condition_variable returned_cv;

	// A workspace of at least `bytes`; waits while other proofs hold theirs
	// and the budget is short, fails with CUZK_E_VRAM when it can never fit.
	std::unique_ptr<cuzk::workspace> take_workspace(size_t bytes);
	void give_workspace(std::unique_ptr<cuzk::workspace> ws);
	std::shared_ptr<const cuzk::srs_resident> find_srs(const void *key);
};

namespace cuzk {

// Device memory for one call (a test, a benchmark, the setup), reserved in
// the budget; CUZK_E_VRAM naming `what` when it does not fit.
budgeted_mem take_budget(cuzk_gpu_dev *dev, size_t bytes, const char *what);

// Host -> device copy on ws.copy: straight DMA when the source is pinned,
// else through the staging ring (the host memcpy into a pinned chunk is the
// price of unregistered memory).
void upload(workspace &ws, void *dst, const void *src, size_t bytes, bool pinned);

} // namespace cuzk

#endif
