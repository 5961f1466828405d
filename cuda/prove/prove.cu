// SPDX-License-Identifier: Apache-2.0 OR MIT
// One partition's proof on the device: uploads, H by NTTs, density
// compaction and the five MSMs, one after another on the compute stream or
// ($CUZK_GPU_MSM_STREAMS, resident SRS) side by side on streams of their own
// (run_concurrent); with the SRS streamed, the queries' batches take turns
// on the compute stream (run_streamed).  The host adds r and s (cheap,
// constant time in the circuit size).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "msm/msm.cuh"
#include "prove/context.cuh"
#include "prove/density.cuh"
#include "prove/span_log.cuh"
#include "prove/stream_ring.cuh"
#include "prove/stream_schedule.cuh"

using namespace cuzk;

namespace {

using msm_fn = int (*)(const void *, const void *, size_t, int, void *, const cuzk_gpu_host_ops *, void *, size_t,
		       cudaStream_t, cuzk_error *);
using msm_batch_fn = int (*)(const void *, const void *, size_t, const cuzk_msm_batch_shape *, int, int, void *,
			     const cuzk_gpu_host_ops *, void *, void *, size_t, cudaStream_t, cuzk_error *);

double ms_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Gives the workspace back on every path out of a proof.
struct workspace_lease {
	cuzk_gpu_dev *dev;
	std::unique_ptr<workspace> ws;
	~workspace_lease()
	{
		if (ws) {
			// Work still queued on its streams must finish before another
			// proof reuses the memory (an error path may leave some).
			ws->drain();
			dev->give_workspace(std::move(ws));
		}
	}
};

struct msm_query {
	const char *name;
	const char *span_msm, *span_srs;   // timeline names: "msm h", "srs h"
	msm_fn fn;
	msm_batch_fn batch_fn;    // the streamed SRS's: one MSM over the batches
	size_t point_bytes;
	const void *dev_bases;    // resident SRS, or nullptr: stream host_bases
	const void *host_bases;
	const fr_t *scalars;      // device
	size_t n;
	int montgomery;
	uint64_t *out;            // Jacobian, host layout
	size_t out_words;
	const cuzk_gpu_host_ops *ops;
};

// Where one MSM runs: its stream, its timeline lane and its scratch.
struct msm_lane {
	cudaStream_t stream;
	cuzk_gpu_lane lane;
	void *scratch;
	size_t scratch_bytes;
};

void msm_call(const msm_query &q, const void *bases, const fr_t *scalars, size_t n, uint64_t *out,
	      const msm_lane &ln)
{
	// The MSM is its own translation unit behind a C interface (msm.cuh);
	// its failure comes back as a cuzk_error and goes on as this unit's.
	cuzk_error e{};
	if (q.fn(bases, scalars, n, q.montgomery, out, q.ops, ln.scratch, ln.scratch_bytes, ln.stream, &e))
		gpu_fail(e.code, "MSM of query %s (%zu points): %s", q.name, n, e.msg);
}

// Batch [at, at + n) of query q's streamed MSM in batches of B points
// (bases: the batch's points; running: its sums between batches; n_dense:
// about how many of its scalars are neither 0 nor 1, the same each batch).
void msm_batch_call(const msm_query &q, const void *bases, size_t at, size_t n, size_t B, size_t n_dense,
		    int flags, void *running, const msm_lane &ln)
{
	cuzk_error e{};
	const cuzk_msm_batch_shape shape{q.n, B, n_dense};
	if (q.batch_fn(bases, q.scalars + at, n, &shape, flags, q.montgomery, q.out, q.ops, running, ln.scratch,
		       ln.scratch_bytes, ln.stream, &e))
		gpu_fail(e.code, "MSM of query %s (points %zu..%zu of %zu): %s", q.name, at, at + n, q.n, e.msg);
}

// The MSM's spans in spans: the first and the last.
struct span_range {
	size_t first, last;
};

// Query q from the resident SRS, one span (run_streamed takes the streamed).
span_range run_msm(const msm_query &q, const msm_lane &ln, span_log &spans)
{
	memset(q.out, 0, q.out_words * sizeof(uint64_t));   // infinity (Z = 0)
	if (q.n && !q.dev_bases)
		gpu_fail(CUZK_E_INTERNAL, "MSM of query %s: no resident bases", q.name);
	const size_t sp = spans.begin(q.span_msm, ln.lane, ln.stream);
	if (q.n)
		msm_call(q, q.dev_bases, q.scalars, q.n, q.out, ln);
	spans.end(sp, ln.stream);
	return {sp, sp};
}

// One query of a streamed SRS: where its running sums live, what the
// compute stream must do before its first batch (wait for its scalars,
// write them), and the spans its batches ran as.  A witness's scalars
// (sparse) are mostly 0 and 1: their dense count is estimated once they
// are written, for the MSM's windows; h's, an NTT's output, are all dense.
struct stream_job {
	const msm_query *q;
	void *running;
	std::function<void()> before;
	double *ms_out;   // where its device time goes (cuzk_gpu_timings)
	bool sparse;
	size_t n_dense = 0;   // all n where not sparse
	std::vector<size_t> spans;
	size_t batches(size_t B) const { return (q->n + B - 1) / B; }
	// Device time of its batches (they take turns with another query's,
	// so the span from its first to its last would count those too).
	double ms(const span_log &log) const
	{
		double t = 0;
		for (size_t sp : spans)
			t += log.span_ms(sp);
		return t;
	}
};

// Copies that share the copy stream with the SRS's batches: piece i is
// queued after step i + 1's batch, and every piece before the first step
// of a job other than 0 (whose scalars they may be).
struct copy_pieces {
	size_t count = 0;
	std::function<void(size_t)> queue;
};

// The streamed SRS's MSMs on the compute stream, one batch of B points at
// a time in the order of steps (stream_schedule.cuh).  The batches' points
// cross PCIe into the stream buffer as a ring (stream_ring.cuh): each
// batch's copy is queued as soon as the batch whose bytes it takes has been
// queued on the compute stream (its used event recorded), and waits on the
// device for that batch to be summed (a batch's call returns after its
// split, before its accumulation ran), so the copy engine runs as far ahead
// as the ring holds.
void run_streamed(workspace &ws, const proof_layout &L, const msm_lane &ln, size_t B, span_log &spans,
		  stream_job *jobs, const std::vector<batch_step> &steps, const copy_pieces &extra, void *d_count)
{
	size_t pieces = 0;
	auto queue_pieces = [&](size_t upto) {
		for (; pieces < upto && pieces < extra.count; pieces++)
			extra.queue(pieces);
	};
	if (L.msm_streams != 1 || ln.stream != ws.compute || !B)
		gpu_fail(CUZK_E_INTERNAL, "streamed MSMs with %u MSM streams, batch %zu", L.msm_streams, B);
	auto count = [&](const batch_step &st) { return std::min(B, jobs[st.job].q->n - st.k * B); };
	std::vector<size_t> bytes(steps.size());
	for (size_t g = 0; g < steps.size(); g++)
		bytes[g] = count(steps[g]) * jobs[steps[g].job].q->point_bytes;
	const std::vector<ring_place> place = ring_places(bytes, L.stream_bytes, L.stream_slot);
	if (place.size() != steps.size())
		gpu_fail(CUZK_E_INTERNAL, "a batch of %zu points does not fit the stream buffer of %zu bytes "
			 "(slots of %zu)", B, L.stream_bytes, L.stream_slot);
	char *ring = ws.mem.as<char>() + L.off_stream;
	std::unique_ptr<event_t[]> copied(new event_t[steps.size()]), used(new event_t[steps.size()]);
	// Step g's copy, after the batch it overwrites; piece i of the extra
	// copies follows step i + 1's copy while that is the primary's, and all
	// of them precede the first copy of any other job (whose scalars they
	// may be: its first batch waits for an event the last piece records).
	auto issue = [&](size_t g) {
		const msm_query &q = *jobs[steps[g].job].q;
		if (steps[g].job)
			queue_pieces(extra.count);
		if (place[g].after)
			used[place[g].after - 1].wait_on(ws.copy);
		const size_t sp = spans.begin(q.span_srs, CUZK_GPU_LANE_COPY, ws.copy);
		CUDA_OK(cudaMemcpyAsync(ring + place[g].off,
					static_cast<const char *>(q.host_bases) + steps[g].k * B * q.point_bytes, bytes[g],
					cudaMemcpyHostToDevice, ws.copy));
		spans.end(sp, ws.copy);
		copied[g].record(ws.copy);
		if (!steps[g].job)
			queue_pieces(g);
	};
	size_t issued = 0;
	for (size_t g = 0; g < steps.size(); g++) {
		// Steps before g are queued on the compute stream: every copy
		// whose bytes they free can be queued now.
		while (issued < steps.size() && place[issued].after <= g)
			issue(issued++);
		stream_job &j = jobs[steps[g].job];
		const size_t k = steps[g].k, last = j.batches(B) - 1;
		if (k == 0 && j.before)
			j.before();
		if (k == 0) {
			j.n_dense = j.q->n;
			// b_g1 and b_g2 take the same scalars: one estimate serves both.
			const stream_job *same = nullptr;
			for (size_t p = 0; p < g && j.sparse && !same; p++) {
				const stream_job &o = jobs[steps[p].job];
				if (steps[p].k == 0 && o.sparse && o.q->scalars == j.q->scalars && o.q->n == j.q->n &&
				    o.q->montgomery == j.q->montgomery)
					same = &o;
			}
			cuzk_error e{};
			if (same)
				j.n_dense = same->n_dense;
			else if (j.sparse && cuzk_msm_dense_estimate(j.q->scalars, j.q->n, j.q->montgomery, &j.n_dense, d_count,
								ln.stream, &e))
				gpu_fail(e.code, "scalars of query %s: %s", j.q->name, e.msg);
		}
		copied[g].wait_on(ln.stream);
		const size_t sp = spans.begin(j.q->span_msm, ln.lane, ln.stream);
		msm_batch_call(*j.q, ring + place[g].off, k * B, count(steps[g]), B, j.n_dense,
			       (k == 0 ? CUZK_MSM_FIRST : 0) | (k == last ? CUZK_MSM_LAST : 0), j.running, ln);
		spans.end(sp, ln.stream);
		used[g].record(ln.stream);
		j.spans.push_back(sp);
	}
	queue_pieces(extra.count);
}

// One query of the concurrent schedule: the event its scalars are ready at
// (recorded on the copy or compute stream), and the spans it ran as.
struct msm_job {
	const msm_query *q;
	const event_t *ready;
	span_range spans;
};

// The jobs on L.msm_streams streams at once, each stream with its own
// scratch.  An MSM call blocks its caller until its result is on the host
// (two host syncs: after its split, whose counts size the rest, and at the
// end), so each stream has its own host thread; the calling thread is lane
// 0's.  Rewriting the MSM as a state machine that never blocks would save
// those threads but touch every phase of it, to save the start of k - 1
// threads a proof (tens of microseconds).  Each lane takes the next job in
// jobs' order when its previous MSM has returned (a list schedule), so the
// jobs whose scalars are ready first come first.  The lanes' streams wait
// for the producers' events on the device, never on the host.
// The first failure of any lane is the proof's; the others finish the MSM
// they are in (a blocking call cannot be interrupted) and take no new one,
// and every thread is joined before this returns or throws.
void run_concurrent(cuzk_gpu_dev *dev, workspace &ws, const proof_layout &L, msm_job *jobs, size_t n_jobs,
		    span_log &spans)
{
	const unsigned k = L.msm_streams;
	if (L.aux_in_a || k < 2 || k > MSM_STREAMS_MAX)
		gpu_fail(CUZK_E_INTERNAL, "concurrent MSMs: %u streams, aux %s", k, L.aux_in_a ? "in A" : "apart");
	msm_lane lanes[MSM_STREAMS_MAX];
	char *scratch = ws.mem.as<char>() + L.off_msm;
	for (unsigned i = 0; i < k; i++)
		lanes[i] = msm_lane{ws.msm_stream(i), (cuzk_gpu_lane)(CUZK_GPU_LANE_COMPUTE_2 + i),
				    scratch + i * L.msm_bytes, L.msm_bytes};
	std::atomic<size_t> next{0};
	std::atomic<bool> stop{false};
	std::mutex err_mu;
	bool failed = false;
	gpu_error first{};
	auto keep = [&](int code, const char *msg) noexcept {
		std::lock_guard<std::mutex> g(err_mu);
		if (!failed) {
			first.code = code;
			try {
				first.msg = msg;
			} catch (...) {   // no memory for the message: the code still goes back
			}
		}
		failed = true;
		stop = true;
	};
	auto lane_main = [&](unsigned i) noexcept {
		try {
			device_guard dg(dev->device);   // a new thread starts on device 0
			for (size_t j; !stop && (j = next++) < n_jobs;) {
				jobs[j].ready->wait_on(lanes[i].stream);
				jobs[j].spans = run_msm(*jobs[j].q, lanes[i], spans);
			}
		} catch (const gpu_error &e) {
			keep(e.code, e.msg.c_str());
		} catch (const std::bad_alloc &) {
			keep(CUZK_E_NOMEM, "out of host memory in an MSM thread");
		} catch (...) {
			keep(CUZK_E_INTERNAL, "unexpected C++ exception in an MSM thread");
		}
	};
	std::vector<std::thread> threads;
	threads.reserve(k - 1);
	for (unsigned i = 1; i < k; i++) {
		// A thread the host cannot start leaves its lane out: the other
		// lanes take its jobs (same sums, less overlap).
		try {
			threads.emplace_back(lane_main, i);
		} catch (...) {
			break;
		}
	}
	lane_main(0);
	for (std::thread &t : threads)
		t.join();
	if (failed)
		throw first;
}

} // namespace

extern "C" int cuzk_gpu_prove_sums(cuzk_gpu_dev *dev, const cuzk_gpu_srs *srs, const cuzk_gpu_witness *w,
				   const cuzk_gpu_host_ops *ops, cuzk_gpu_sums *out, cuzk_gpu_timings *t, cuzk_error *err)
{
	return gpu_entry(err, [&] {
		const auto t_start = std::chrono::steady_clock::now();
		cuzk_gpu_timings tm{};
		device_guard dg(dev->device);
		const size_t nc = w->num_constraints, ni = w->num_inputs, na = w->num_aux;
		if (nc < 2 || nc > ((size_t)1 << NTT_LOG_MAX) || ni < 1)
			gpu_fail(CUZK_E_INVAL, "witness: %zu constraints, %zu inputs: the domain must be 2^1..2^%u",
				 nc, ni, NTT_LOG_MAX);
		// Sized by the SRS; the bitmaps' counts are checked against it on the
		// device's copy before anything is compacted (density.cuh).
		const size_t n_a = srs->n_a, n_b = srs->n_b_g1;
		std::shared_ptr<const srs_resident> res = dev->find_srs(srs->key);
		const size_t batch = res ? 0
				   : dev->stream_batch ? dev->stream_batch
						       : pick_stream_batch(nc, ni, na, n_a, n_b, dev->proof_room());
		const size_t room = dev->msm_streams == MSM_STREAMS_AUTO || dev->msm_streams == MSM_STREAMS_SMALL
					    ? dev->workspace_room() : 0;
		// The least layout, the same with every MSM's faster scratch (their
		// batch-affine rounds), and between them one whose h and l take
		// theirs over the NTT's b and c: the proof takes the fastest its
		// workspace has room for (take_workspace).
		const proof_layout least = plan_proof(nc, ni, na, n_a, n_b, batch, dev->msm_streams, room);
		const proof_layout fast =
			plan_proof(nc, ni, na, n_a, n_b, batch, dev->msm_streams, room, msm_scratch::fast);
		const proof_layout lent =
			plan_proof(nc, ni, na, n_a, n_b, batch, dev->msm_streams, room, msm_scratch::lent);
		if (srs->n_h != least.m - 1 || srs->n_l != na || n_a < ni || srs->n_b_g2 != n_b)
			gpu_fail(CUZK_E_MISMATCH, "params and witness disagree in shape (h %zu/%zu, l %zu/%zu, "
				 "a %zu, b_g1 %zu, b_g2 %zu, %zu inputs)", srs->n_h, least.m - 1, srs->n_l, na, n_a, n_b,
				 srs->n_b_g2, ni);

		const bool pinned = w->pinned != 0;
		workspace_lease lease{dev, nullptr};
		// A registered witness may claim a workspace whose proof is past
		// h's MSM, and copy its a into that proof's A before taking it (the
		// copy then runs while that proof ends, not ahead of this one's
		// NTTs); a pageable one would need the staging ring, still the
		// lender's.
		workspace_claim claim;
		try {
			lease.ws = dev->take_workspace(least.total, {fast.total, lent.total}, pinned ? &claim : nullptr);
		} catch (const gpu_error &e) {
			if (least.msm_streams > 1)
				gpu_fail(e.code, "%s (with %u MSM streams, $CUZK_GPU_MSM_STREAMS)", e.msg.c_str(),
					 least.msm_streams);
			throw;
		}
		workspace *wsp = lease.ws ? lease.ws.get() : claim.ws;
		const size_t ws_bytes = wsp->mem.size();
		const proof_layout &L = ws_bytes >= fast.total ? fast : ws_bytes >= lent.total ? lent : least;
		span_log spans(lease.ws ? wsp->copy : wsp->early);
		char *base = wsp->mem.as<char>();
		fr_t *A = reinterpret_cast<fr_t *>(base + L.off_a), *Bv = reinterpret_cast<fr_t *>(base + L.off_b),
		     *C = reinterpret_cast<fr_t *>(base + L.off_c), *aux = reinterpret_cast<fr_t *>(base + L.off_aux),
		     *input = reinterpret_cast<fr_t *>(base + L.off_input);
		uint64_t *bits = reinterpret_cast<uint64_t *>(base + L.off_bits);
		const size_t aux_words = (na + 63) / 64, in_words = (ni + 63) / 64;
		uint64_t *a_aux_bits = bits, *b_aux_bits = bits + aux_words, *b_in_bits = bits + 2 * aux_words;
		const size_t fr = sizeof(fr_t);
		// One event per input: h's first two transforms of a need a alone,
		// so they run while b and c are still crossing PCIe.
		event_t in_ready[3];
		// One of a, b, c: its nc values, then zeros to the domain's end.
		auto upload_padded = [&](cudaStream_t s, fr_t *dst, const void *src) {
			upload(*wsp, dst, src, nc * fr, pinned, s);
			CUDA_OK(cudaMemsetAsync(dst + nc, 0, (L.m - nc) * fr, s));
		};
		const bool early = claim.ws && L.off_a == 0 && L.m * fr <= claim.bytes;
		size_t sp_early = 0;
		if (claim.ws) {
			try {
				if (early) {
					std::lock_guard<std::mutex> g(dev->upload_mu);
					dev->upload_tail.wait_on(wsp->early);
					wsp->lend_ready.wait_on(wsp->early);
					sp_early = spans.begin("upload a (early)", CUZK_GPU_LANE_COPY, wsp->early);
					upload_padded(wsp->early, A, w->a);
					spans.end(sp_early, wsp->early);
					in_ready[0].record(wsp->early);
					dev->upload_tail.record(wsp->early);
				}
			} catch (...) {
				lease.ws = dev->receive_claimed(claim.ws);
				throw;
			}
			lease.ws = dev->receive_claimed(claim.ws);
		}
		workspace &ws = *lease.ws;

		// Copies on ws.copy, in the order the compute stream needs them: the
		// bitmaps first (straight from the client's registered memory when
		// pinned), counted and checked while the scalars follow.
		event_t up_start(true), bits_ready(true), abc_ready(true), rest_start(true), all_ready(true),
			ntt_start(true), ntt_done(true);
		// A registered witness crosses after the previous one's copies
		// (cuzk_gpu_dev::upload_tail), the lock held while ours are queued
		// so that the next proof's follow them.  A pageable one is copied
		// by this thread through the staging ring, which bounds it more
		// than the copy engine: two such proofs' threads copy side by side.
		std::unique_lock<std::mutex> upload_lock(dev->upload_mu, std::defer_lock);
		if (pinned) {
			upload_lock.lock();
			dev->upload_tail.wait_on(ws.copy);
		}
		up_start.record(ws.copy);
		upload(ws, a_aux_bits, w->a_aux_density, aux_words * 8, pinned);
		upload(ws, b_aux_bits, w->b_aux_density, aux_words * 8, pinned);
		upload(ws, b_in_bits, w->b_input_density, in_words * 8, pinned);
		bits_ready.record(ws.copy);
		const void *src[3] = {w->a, w->b, w->c};
		fr_t *dst[3] = {A, Bv, C};
		for (int i = early ? 1 : 0; i < 3; i++) {
			upload_padded(ws.copy, dst[i], src[i]);
			in_ready[i].record(ws.copy);
		}
		abc_ready.record(ws.copy);
		// aux and input: now, or (L.aux_in_a) once h has left A.
		auto upload_rest = [&] {
			rest_start.record(ws.copy);
			upload(ws, aux, w->aux, na * fr, pinned);
			upload(ws, input, w->input, ni * fr, pinned);
			all_ready.record(ws.copy);
		};
		if (!L.aux_in_a)
			upload_rest();
		// With aux in A, aux crosses later, behind h's NTT: the next proof's
		// a, b and c go first.
		if (pinned) {
			dev->upload_tail.record(ws.copy);
			upload_lock.unlock();
		}

		bits_ready.wait_on(ws.compute);
		const size_t sp_bits = spans.begin("density check", CUZK_GPU_LANE_COMPUTE, ws.compute);
		const density_counts dc = density_count(a_aux_bits, na, b_in_bits, ni, b_aux_bits,
							reinterpret_cast<uint64_t *>(base + L.off_density), ws.compute);
		spans.end(sp_bits, ws.compute);
		if (ni + dc.a_aux != n_a || dc.b_input + dc.b_aux != n_b)
			gpu_fail(CUZK_E_MISMATCH, "params a %zu points, b %zu points, but the witness needs %zu and %zu "
				 "(its density bitmaps)", n_a, n_b, ni + dc.a_aux, dc.b_input + dc.b_aux);
		const size_t b_in = dc.b_input;

		// h: its coefficients end in A, bit-reversed.
		in_ready[0].wait_on(ws.compute);
		ntt_start.record(ws.compute);
		const cudaEvent_t ready[3] = {in_ready[0], in_ready[1], in_ready[2]};
		ntt_compute_h(dev->ntt.view(), A, Bv, C, L.log_m, !w->montgomery, ws.compute, ready);
		ntt_done.record(ws.compute);
		spans.between("upload bitmaps", CUZK_GPU_LANE_COPY, up_start, bits_ready);
		spans.between(early ? "upload b,c" : "upload a,b,c", CUZK_GPU_LANE_COPY, bits_ready, abc_ready);
		const bool aux_pieces = L.aux_in_a && pinned;   // run_streamed's copy_pieces (below)
		if (!aux_pieces)
			spans.between("upload aux,input", CUZK_GPU_LANE_COPY, rest_start, all_ready);
		spans.between("ntt (h)", CUZK_GPU_LANE_COMPUTE, ntt_start, ntt_done);

		const fr_t *h_scalars = A;
		if (!res) {
			// Streamed bases are in natural order: permute h to match.
			const size_t sp = spans.begin("bit-reverse h", CUZK_GPU_LANE_COMPUTE, ws.compute);
			ntt_bit_reverse(Bv, A, L.log_m, ws.compute);
			spans.end(sp, ws.compute);
			h_scalars = Bv;
		}
		// With aux in A and a registered witness, aux crosses PCIe in pieces
		// between h's first SRS batches (run_streamed), which would otherwise
		// wait behind its ~4 GB at 2^27 (one copy engine takes both: a second
		// copy stream ran after it, not beside it, on the H200); a pageable
		// witness goes through copy's staging ring now, the host copying.
		event_t a_free;
		if (L.aux_in_a) {
			a_free.record(ws.compute);
			if (!aux_pieces) {
				a_free.wait_on(ws.copy);
				upload_rest();
			}
		}
		// Where the A and B queries' scalars are compacted: into the NTT's b
		// and c, or, streamed, both into c where they fit it.  c is free
		// once the NTT is done, b only once h's MSM is: with both in c, a's
		// batches take turns with h's as l's and b's do, instead of running
		// after it, bound by PCIe (a 2^27 PoRep partition's 97.8 M + 32.6 M
		// scalars fit c's 2^27).
		const bool ab_in_c = L.ab_in_c;
		fr_t *a_sc = ab_in_c ? C : Bv, *b_sc = ab_in_c ? C + n_a : C;
		const int mont = w->montgomery ? 1 : 0;
		msm_query q_h{"h", "msm h", "srs h", cuzk_msm_g1, cuzk_msm_g1_batch, G1_AFF_BYTES, res ? res->h : nullptr, srs->h, h_scalars, L.m - 1,
			      1, out->h, 18, ops};
		msm_query q_l{"l", "msm l", "srs l", cuzk_msm_g1, cuzk_msm_g1_batch, G1_AFF_BYTES, res ? res->l : nullptr, srs->l, aux, na, mont, out->l,
			      18, ops};
		msm_query q_a{"a", "msm a", "srs a", cuzk_msm_g1, cuzk_msm_g1_batch, G1_AFF_BYTES, res ? res->a : nullptr, srs->a, a_sc, n_a, mont, out->a,
			      18, ops};
		msm_query q_b1{"b_g1", "msm b_g1", "srs b_g1", cuzk_msm_g1, cuzk_msm_g1_batch, G1_AFF_BYTES, res ? res->b_g1 : nullptr, srs->b_g1, b_sc, n_b, mont,
			       out->b_g1, 18, ops};
		msm_query q_b2{"b_g2", "msm b_g2", "srs b_g2", cuzk_msm_g2, cuzk_msm_g2_batch, G2_AFF_BYTES, res ? res->b_g2 : nullptr, srs->b_g2, b_sc, n_b, mont,
			       out->b_g2, 36, ops};

		// Scalars of the A and B queries, compacted from aux and input.
		void *dscr = base + L.off_density;
		auto compact_a = [&](cudaStream_t s) {
			CUDA_OK(cudaMemcpyAsync(a_sc, input, ni * fr, cudaMemcpyDeviceToDevice, s));
			density_compact(a_sc + ni, aux, na, a_aux_bits, dscr, L.density_bytes, s);
		};
		auto compact_b = [&](cudaStream_t s) {
			density_compact(b_sc, input, ni, b_in_bits, dscr, L.density_bytes, s);
			density_compact(b_sc + b_in, aux, na, b_aux_bits, dscr, L.density_bytes, s);
		};
		auto compact_ab = [&](cudaStream_t s) {
			compact_a(s);
			compact_b(s);
		};
		auto copy_times = [&] {
			all_ready.sync();
			// The copies' own time: with aux in A, not the wait for h to leave it.
			tm.upload_ms = L.aux_in_a ? abc_ready.ms_since(up_start) + all_ready.ms_since(rest_start)
						  : all_ready.ms_since(up_start);
			tm.ntt_ms = ntt_done.ms_since(ntt_start);
			if (early)
				tm.upload_ms += spans.span_ms(sp_early);
		};
		// Each MSM's time is its spans' device time: a host clock around
		// run_msm would also count the NTTs and copies queued before it,
		// which its first synchronisation waits for.  With MSMs side by
		// side these times overlap: their sum is more than the proof's.
		if (!res) {
			// Streamed: l's batches, a's (where its scalars are in c), b_g1's
			// and b_g2's are spread between h's (stream_schedule.cuh), so
			// that their copies run under h's additions; otherwise a's run
			// last (its scalars go where h's are).  a's running sums are
			// h's when it runs last, else l's (l's last batch is before
			// a's first).  h's first batches run alone while aux arrives: one
			// for every 8·B aux values (on an H200 a batch of B of h's
			// points takes about as long to sum as 8·B scalars to cross
			// PCIe; a lead too short only makes l wait for its scalars).
			const msm_lane lane{ws.compute, CUZK_GPU_LANE_COMPUTE, base + L.off_msm, L.msm_bytes};
			char *run0 = base + L.off_running, *run1 = run0 + L.running_bytes[0];
			bool b_done = false;
			auto scalars_b = [&] {
				if (b_done)
					return;
				b_done = true;
				all_ready.wait_on(ws.compute);
				const size_t sp = spans.begin("b scalars", CUZK_GPU_LANE_COMPUTE, ws.compute);
				compact_b(ws.compute);
				spans.end(sp, ws.compute);
			};
			auto scalars_a = [&] {
				all_ready.wait_on(ws.compute);
				const size_t sp = spans.begin("a scalars", CUZK_GPU_LANE_COMPUTE, ws.compute);
				compact_a(ws.compute);
				spans.end(sp, ws.compute);
			};
			stream_job jobs[5] = {{&q_h, run0, nullptr, &tm.msm_h_ms, false},
					      {&q_l, run1, [&] { all_ready.wait_on(ws.compute); }, &tm.msm_l_ms, true},
					      {&q_b1, run1, scalars_b, &tm.msm_b_g1_ms, true},
					      {&q_b2, run1, scalars_b, &tm.msm_b_g2_ms, true},
					      {&q_a, run0, scalars_a, &tm.msm_a_ms, true}};
			if (ab_in_c) {   // a among the secondaries, right after l
				jobs[4].running = run1;
				std::rotate(jobs + 2, jobs + 4, jobs + 5);
			}
			std::vector<size_t> counts;
			for (const stream_job &j : jobs) {
				memset(j.q->out, 0, j.q->out_words * sizeof(uint64_t));   // infinity (Z = 0)
				counts.push_back(j.batches(batch));
			}
			const size_t lead = L.aux_in_a ? (na + ni + 8 * batch - 1) / (8 * batch) : 0;
			copy_pieces aux_up;
			double aux_copy_ms = 0;
			std::vector<size_t> aux_spans;
			if (aux_pieces) {
				aux_up.count = std::max<size_t>(lead, 1);
				const size_t per = (na + aux_up.count - 1) / aux_up.count;
				// per by value: the queue runs after this block has ended.
				aux_up.queue = [&, per](size_t i) {
					if (i == 0) {   // after h's first two batches' copies, queued during the NTT
						a_free.wait_on(ws.copy);
						rest_start.record(ws.copy);
					}
					const bool last = i + 1 == aux_up.count;   // input goes with the last piece
					const size_t at = std::min(na, i * per), cnt = std::min(per, na - at);
					const size_t sp = spans.begin("upload aux", CUZK_GPU_LANE_COPY, ws.copy);
					upload(ws, aux + at, static_cast<const fr_t *>(w->aux) + at, cnt * fr, true);
					if (last)
						upload(ws, input, w->input, ni * fr, true);
					spans.end(sp, ws.copy);
					aux_spans.push_back(sp);
					if (last)
						all_ready.record(ws.copy);
				};
			}
			// The dense estimates' count goes where the bitmaps' was (their
			// compaction, before each estimate on the same stream, is done).
			run_streamed(ws, L, lane, batch, spans, jobs, stream_schedule(counts, lead, ab_in_c ? 5 : 4), aux_up,
				     base + L.off_density);
			for (size_t sp : aux_spans)
				aux_copy_ms += spans.span_ms(sp);
			for (const stream_job &j : jobs)
				*j.ms_out = j.ms(spans);
			copy_times();
			if (aux_pieces)   // the pieces' own time, not h's batches between them
				tm.upload_ms = abc_ready.ms_since(up_start) + aux_copy_ms + (early ? spans.span_ms(sp_early) : 0);
		} else if (L.msm_streams == 1) {
			// One after another on the compute stream: h and l, with the
			// NTT's b and c added to their scratch (free until the A and B
			// scalars are compacted into them: the lent layout's rounds),
			// then those scalars, then a, b_g1, b_g2.
			const msm_lane lane{ws.compute, CUZK_GPU_LANE_COMPUTE, base + L.off_msm, L.msm_bytes};
			const msm_lane lane_hl{ws.compute, CUZK_GPU_LANE_COMPUTE, base + L.off_b, L.lane_hl_bytes()};
			const span_range span_h = run_msm(q_h, lane_hl, spans);
			// h's scalars were A's last use: a proof waiting for this
			// workspace may copy its a there now.
			dev->lend_a(ws, L.m * fr);
			tm.msm_h_ms = spans.range_ms(span_h.first, span_h.last);
			copy_times();
			all_ready.wait_on(ws.compute);
			const span_range span_l = run_msm(q_l, lane_hl, spans);
			tm.msm_l_ms = spans.range_ms(span_l.first, span_l.last);
			compact_ab(ws.compute);
			double *slot[3] = {&tm.msm_a_ms, &tm.msm_b_g1_ms, &tm.msm_b_g2_ms};
			const msm_query *qs[3] = {&q_a, &q_b1, &q_b2};
			for (int i = 0; i < 3; i++) {
				const span_range sp = run_msm(*qs[i], lane, spans);
				if (i == 0)   // the A and B scalars are compacted before the first of these
					spans.gap("a, b scalars", CUZK_GPU_LANE_COMPUTE, span_l.last, sp.first);
				*slot[i] = spans.range_ms(sp.first, sp.last);
			}
		} else {
			// Side by side (resident SRS only: plan_proof), each on its own
			// stream, each after what its scalars need: l after the aux
			// upload (it does not wait for the NTT), h after the NTT, a,
			// b_g1 and b_g2 after their compaction, which the compute stream
			// does right after the NTT (it writes the NTT's b and c).  The
			// longest, b_g2 (G2), goes before the two short ones.
			event_t compacted;
			all_ready.wait_on(ws.compute);
			const size_t sp_ab = spans.begin("a, b scalars", CUZK_GPU_LANE_COMPUTE, ws.compute);
			compact_ab(ws.compute);
			spans.end(sp_ab, ws.compute);
			compacted.record(ws.compute);
			msm_job jobs[5] = {{&q_l, &all_ready, {}}, {&q_h, &ntt_done, {}}, {&q_b2, &compacted, {}},
					   {&q_a, &compacted, {}}, {&q_b1, &compacted, {}}};
			double *slot[5] = {&tm.msm_l_ms, &tm.msm_h_ms, &tm.msm_b_g2_ms, &tm.msm_a_ms, &tm.msm_b_g1_ms};
			run_concurrent(dev, ws, L, jobs, 5, spans);
			for (int i = 0; i < 5; i++)
				*slot[i] = spans.range_ms(jobs[i].spans.first, jobs[i].spans.last);
			copy_times();
		}
		tm.total_ms = ms_since(t_start);
		if (t) {
			ws.copy.sync();
			ws.compute.sync();
			for (const auto &s : ws.msm)
				if (s)
					s->sync();
			spans.finish(tm);
			tm.workspace = ws.id;
			*t = tm;
		}
	});
}
