// SPDX-License-Identifier: Apache-2.0 OR MIT
// One opened device: its VRAM budget, NTT tables, resident SRS sets and the
// pool of per-proof workspaces (arenas allocated once and reused).
#ifndef CUZK_CUDA_PROVE_CONTEXT_CUH
#define CUZK_CUDA_PROVE_CONTEXT_CUH

#include <condition_variable>
#include <initializer_list>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

#include "cuzk_gpu.h"
#include "ntt/ntt.cuh"
#include "util/gpu_t.cuh"
#include "prove/workspace_claims.cuh"
#include "util/vram.cuh"

namespace cuzk {

constexpr size_t G1_AFF_BYTES = 96, G2_AFF_BYTES = 192;

// Staging ring for witness memory the caller did not register: two pinned
// chunks; the host fills one while the copy engine drains the other.
// 64 MiB chunks keep the ring small next to a 17 GB witness and still
// amortise the per-copy latency (~10 us) to nothing.
constexpr size_t STAGING_CHUNK = (size_t)64 << 20;
// Points per batch when the SRS is streamed (not resident): a power of two
// from 2^18 to 2^24, the largest whose proof workspace fits the budget twice
// (two proofs side by side, a daemon's two workers), else once
// (pick_stream_batch).  The batches of a query add into one set of
// buckets (msm.cuh's batched MSM: the windows are reduced once, after the
// last), so a batch's fixed cost is its sort and its launches; larger
// batches still amortise those and the copies' per-call latency (on an
// H200, 2^27 under a 16 GiB budget: 2^22-point batches, each 7.3 ms of
// copy and, for h's dense scalars, 29 ms of additions).
constexpr size_t STREAM_BATCH_MAX = (size_t)1 << 24;
constexpr size_t STREAM_BATCH_MIN = (size_t)1 << 18;

// A proof's MSMs side by side ($CUZK_GPU_MSM_STREAMS, read at open): at
// 2^16 each of the five is latency-bound (a few hundred thousand additions,
// short launches, two host syncs), so one at a time leaves the GPU mostly
// idle.  At most one stream per query; MSM_STREAMS_AUTO lets plan_proof
// pick from the budget.  The default, MSM_STREAMS_SMALL, is auto for
// domains up to 2^MSM_STREAMS_SMALL_LOG and 1 above: measured on an H200
// (2026-12-02, docs/BENCHMARKS.md), a 2^16 proof takes 10.3 ms with 5
// streams against 15.3 with 1, 2^20 54.2 against 55.2; above that each MSM
// fills the GPU alone and extra streams only cost VRAM (GBs of scratch at
// 2^27, beside a second worker's proof).
constexpr unsigned MSM_STREAMS_MAX = 5;
constexpr unsigned MSM_STREAMS_AUTO = 0;
constexpr unsigned MSM_STREAMS_SMALL = MSM_STREAMS_MAX + 1;
constexpr unsigned MSM_STREAMS_SMALL_LOG = 20;
constexpr unsigned MSM_STREAMS_DEFAULT = MSM_STREAMS_SMALL;
static_assert(CUZK_GPU_LANE_COMPUTE_2 + MSM_STREAMS_MAX - 1 == CUZK_GPU_LANE_COMPUTE_6,
	      "one timeline lane per MSM stream");
// $CUZK_GPU_MSM_STREAMS: 1..MSM_STREAMS_MAX, or "auto" (MSM_STREAMS_AUTO);
// unset or empty, MSM_STREAMS_DEFAULT.  Anything else is CUZK_E_INVAL.
// plan_proof resolves MSM_STREAMS_SMALL by the domain.
unsigned msm_streams_from_env();
// $CUZK_GPU_WORKSPACES (tests): at most that many proof workspaces, 1..1024,
// so that proofs take turns as on a card that holds one; unset or empty, 0
// (no cap).  Anything else is CUZK_E_INVAL.
unsigned max_workspaces_from_env();

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
	// A streamed SRS's batches cross into a ring of stream_bytes from
	// off_stream (prove.cu, stream_ring.cuh): four slots of stream_slot
	// bytes, one G1 batch each, two a G2 batch; 0 with the SRS resident.
	size_t stream_slot = 0;
	// Streamed, the A and B queries' scalars both go into c where they fit
	// it (prove.cu), so that a's batches need not wait for h's MSM to leave b.
	bool ab_in_c = false;
	// A streamed SRS's batched MSMs keep their running sums apart from the
	// scratch (msm.cuh): two areas from off_running, so that a second
	// query's batches can take turns with h's (prove.cu): area 0 for G1
	// (h), area 1 for either curve; 0 bytes with the SRS resident.
	size_t off_running = 0, running_bytes[2] = {0, 0};
	// MSMs run at once, each with its own msm_bytes of scratch from off_msm
	// on (lane i's at off_msm + i * msm_bytes).  1: one after another on the
	// compute stream, the order of before; a streamed SRS always has 1.
	unsigned msm_streams = 1;
	// b and c (the NTT's, then the A and B queries' compacted scalars) lie
	// right below the MSM scratch: with one MSM stream and a resident SRS,
	// h's and l's MSMs, which run before the compaction, take
	// [off_b, off_msm + msm_bytes) as theirs (prove.cu).
	size_t lane_hl_bytes() const { return off_msm + msm_bytes - off_b; }
	// The aux values live in A's memory (off_aux == off_a), uploaded once h
	// has left it: with the SRS streamed, h is permuted from A into B before
	// its MSM, so A is free long before the L, A and B queries read aux.
	bool aux_in_a = false;
};

// stream_batch: points per streamed batch (0 when the SRS is resident).
// msm_streams: 1..MSM_STREAMS_MAX scratch areas exactly (forced),
// MSM_STREAMS_SMALL (auto up to 2^MSM_STREAMS_SMALL_LOG, else 1), or
// MSM_STREAMS_AUTO: the most whose workspace, with one more single-stream
// workspace of the same proof beside it (the device's other worker),
// fits in room bytes.  A streamed SRS gets 1 either way.
// scratch: the same plan (the same MSM streams) with each MSM's scratch the
// least one, the fast one, or, with one MSM stream, one that gives h and
// l their fast scratch with the NTT's b and c lent to them (lane_hl_bytes);
// a resident SRS's only: a streamed SRS's batched MSMs have no fast path,
// and MSMs side by side each need their own, so those get the least.
enum class msm_scratch { least, lent, fast };
proof_layout plan_proof(size_t num_constraints, size_t num_inputs, size_t num_aux, size_t n_a, size_t n_b,
			size_t stream_batch, unsigned msm_streams = 1, size_t room = 0,
			msm_scratch scratch = msm_scratch::least);
// The points per batch of a streamed SRS for this shape, given room bytes
// for one proof's workspace (STREAM_BATCH_MAX above); STREAM_BATCH_MIN when
// not even that fits (take_workspace then fails with CUZK_E_VRAM).
size_t pick_stream_batch(size_t num_constraints, size_t num_inputs, size_t num_aux, size_t n_a, size_t n_b,
			 size_t room);

struct workspace {
	budgeted_mem mem;
	stream_t compute, copy;
	// The staging ring, made by the first upload from unregistered memory:
	// a client that registers its witness never pays for it (~128 MiB of
	// page-locked host memory a workspace, and its allocation before the
	// proof's first copy).
	std::unique_ptr<pinned_mem> staging[2];
	event_t staged[2];
	unsigned id;                  // which of the device's workspaces: names its streams on a timeline
	// The streams of MSMs side by side, made the first time a proof asks
	// for them (most proofs never do) and kept with the arena.
	std::unique_ptr<stream_t> msm[MSM_STREAMS_MAX];
	// A proof past h's MSM reads A no more (prove.cu): it lends A's bytes
	// to a proof that would otherwise wait for a workspace, which claims
	// this one (take_workspace) and copies its a there on `early` while the
	// lender finishes, then takes the whole workspace when the lender gives
	// it back (the device's claims, under its mu).
	stream_t early;
	event_t lend_ready;   // on compute, when A was lent
	workspace(vram_budget &b, size_t bytes, unsigned ws_id)
	    : mem(b, bytes, "a proof's working memory"), id(ws_id)
	{
	}
	// MSM stream i (< MSM_STREAMS_MAX); not thread-safe: the proof's own
	// thread makes them before its MSM threads start.
	cudaStream_t msm_stream(unsigned i)
	{
		if (!msm[i])
			msm[i] = std::make_unique<stream_t>();
		return *msm[i];
	}
	// Waits for everything queued on every stream, errors ignored: for the
	// paths out of a proof (a failed one may leave work queued), so that
	// the memory is idle before another proof takes it.
	void drain() noexcept
	{
		cudaStreamSynchronize(copy);
		cudaStreamSynchronize(early);
		cudaStreamSynchronize(compute);
		for (const auto &s : msm)
			if (s)
				cudaStreamSynchronize(*s);
	}
};

// A busy workspace that take_workspace claimed for its caller (ws null:
// none), and the bytes of A its lender left free.  A is at the start of
// every layout (plan_proof: off_a is 0).
using workspace_claim = workspace_claims<workspace>::claim;

} // namespace cuzk

struct cuzk_gpu_dev {
	int device = 0;
	size_t total_mem = 0;
	size_t stream_batch = 0;                     // tests ($CUZK_GPU_STREAM_BATCH): fixed batch points
	bool never_resident = false;                 // tests: stream every SRS
	unsigned msm_streams = cuzk::MSM_STREAMS_DEFAULT;   // $CUZK_GPU_MSM_STREAMS (AUTO, SMALL: from the budget)
	std::unique_ptr<cuzk::vram_budget> budget;
	cuzk::ntt_tables ntt;
	std::mutex load_mu;                                      // one SRS upload at a time
	std::mutex mu;                                           // guards everything below
	std::list<std::shared_ptr<cuzk::srs_resident>> srs;
	std::list<cuzk::srs_pinned> pinned_srs;                  // streamed SRS sets, page-locked
	std::vector<std::unique_ptr<cuzk::workspace>> idle;      // workspaces not in use
	unsigned busy = 0;                                       // workspaces in use
	size_t busy_bytes = 0;                                   // their sizes
	unsigned long returned = 0;                              // give_workspace and lend_a calls so far
	unsigned workspaces_made = 0;                            // ids of new workspaces
	unsigned max_workspaces = 0;                             // tests ($CUZK_GPU_WORKSPACES): a cap, 0 none
	cuzk::workspace_claims<cuzk::workspace> claims;          // A lent, claimed, handed over
	std::condition_variable returned_cv;
	// Registered witnesses cross PCIe one proof after another, in the
	// order they are queued: each proof's copy stream waits on the device
	// for the end of the previous one's (upload_tail, made with the rest
	// of this object at open, on its device).  Side by side they share the
	// copy engine and both finish late, so the GPU idles until both have
	// crossed; in order, the first computes while the second crosses.
	std::mutex upload_mu;
	cuzk::event_t upload_tail;

	// A workspace of at least `bytes`, of the first of `wants` (faster
	// plans' sizes, the fastest first) that an idle one is as large as or
	// the budget has room for (and for one more proof of `bytes` beside it
	// while no other proof holds one, where two such could ever share it:
	// workspace_pick.cuh); waits while other proofs hold theirs and the
	// budget is short, fails with CUZK_E_VRAM when `bytes` can never fit.
	// Where it would wait and `claim` is given, it claims instead a busy
	// workspace of at least `bytes` whose A is lent, and returns null: the
	// caller may write the lent bytes (after ws->lend_ready, on ws->early)
	// and must then take it with receive_claimed, on every path.
	std::unique_ptr<cuzk::workspace> take_workspace(size_t bytes, std::initializer_list<size_t> wants = {},
							cuzk::workspace_claim *claim = nullptr);
	// A claimed workspace, once its lender has given it back.
	std::unique_ptr<cuzk::workspace> receive_claimed(cuzk::workspace *ws);
	// ws's proof no longer reads its first `bytes` (its A): another proof
	// may claim the workspace and write them.  Once a proof.
	void lend_a(cuzk::workspace &ws, size_t bytes);
	// Back to the idle pool, or to its claimant.
	void give_workspace(std::unique_ptr<cuzk::workspace> ws);
	// Bytes a new workspace could have now without waiting: the budget not
	// reserved, and the idle arenas take_workspace would give back for it.
	size_t workspace_room();
	// Bytes one proof's workspace could ever have: the budget less what
	// stays reserved (resident SRS sets, the NTT tables), whatever the
	// workspaces now hold.
	size_t proof_room();
	std::shared_ptr<const cuzk::srs_resident> find_srs(const void *key);
};

namespace cuzk {

// Device memory for one call (a test, a benchmark, the setup), reserved in
// the budget; CUZK_E_VRAM naming `what` when it does not fit.
budgeted_mem take_budget(cuzk_gpu_dev *dev, size_t bytes, const char *what);

// Host -> device copy on s (ws.copy when null): straight DMA when the
// source is pinned, else through ws's staging ring (the host memcpy into a
// pinned chunk is the price of unregistered memory), which only the proof
// that holds ws may use.
void upload(workspace &ws, void *dst, const void *src, size_t bytes, bool pinned, cudaStream_t s = nullptr);

} // namespace cuzk

#endif
