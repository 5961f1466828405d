// SPDX-License-Identifier: Apache-2.0 OR MIT
// One partition's proof on the device: uploads, H by NTTs, density
// compaction and the five MSMs.  The host adds r and s (cheap, constant time
// in the circuit size).
#include <algorithm>
#include <chrono>
#include <cstring>

#include "msm/msm.cuh"
#include "prove/context.cuh"
#include "prove/density.cuh"
#include "prove/span_log.cuh"

using namespace cuzk;

namespace {

using msm_fn = int (*)(const void *, const void *, size_t, int, void *, const cuzk_gpu_host_ops *, void *, size_t,
		       cudaStream_t, cuzk_error *);

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
			cudaStreamSynchronize(ws->copy);
			cudaStreamSynchronize(ws->compute);
			dev->give_workspace(std::move(ws));
		}
	}
};

struct msm_query {
	const char *name;
	const char *span_msm, *span_srs;   // timeline names: "msm h", "srs h"
	msm_fn fn;
	size_t point_bytes;
	const void *dev_bases;    // resident SRS, or nullptr: stream host_bases
	const void *host_bases;
	const fr_t *scalars;      // device
	size_t n;
	int montgomery;
	uint64_t *out;            // Jacobian, host layout
	size_t out_words;
	void (*acc)(uint64_t *, const uint64_t *);
	const cuzk_gpu_host_ops *ops;
};

void msm_call(const msm_query &q, const void *bases, const fr_t *scalars, size_t n, uint64_t *out, workspace &ws,
	      const proof_layout &L)
{
	// The MSM is its own translation unit behind a C interface (msm.cuh);
	// its failure comes back as a cuzk_error and goes on as this unit's.
	cuzk_error e{};
	if (q.fn(bases, scalars, n, q.montgomery, out, q.ops, ws.mem.as<char>() + L.off_msm, L.msm_bytes,
		 ws.compute, &e))
		gpu_fail(e.code, "MSM of query %s (%zu points): %s", q.name, n, e.msg);
}

// The MSM's spans (one per streamed batch) in spans: the first and the last.
struct span_range {
	size_t first, last;
};

span_range run_msm(const msm_query &q, workspace &ws, const proof_layout &L, size_t batch, span_log &spans)
{
	memset(q.out, 0, q.out_words * sizeof(uint64_t));   // infinity (Z = 0)
	if (!q.n || q.dev_bases) {
		const size_t sp = spans.begin(q.span_msm, CUZK_GPU_LANE_COMPUTE, ws.compute);
		if (q.n)
			msm_call(q, q.dev_bases, q.scalars, q.n, q.out, ws, L);
		spans.end(sp, ws.compute);
		return {sp, sp};
	}
	// Streamed: batch k's points are copied into buffer k % 2 while the MSM
	// of batch k-1 runs; partial sums are added on the host.
	char *buf[2] = {ws.mem.as<char>() + L.off_stream, ws.mem.as<char>() + L.off_stream + L.stream_bytes / 2};
	event_t copied[2];
	uint64_t part[36];
	const size_t B = batch;
	auto issue = [&](size_t k) {
		const size_t at = k * B, cnt = std::min(B, q.n - at);
		const size_t sp = spans.begin(q.span_srs, CUZK_GPU_LANE_COPY, ws.copy);
		CUDA_OK(cudaMemcpyAsync(buf[k & 1], static_cast<const char *>(q.host_bases) + at * q.point_bytes,
					cnt * q.point_bytes, cudaMemcpyHostToDevice, ws.copy));
		spans.end(sp, ws.copy);
		copied[k & 1].record(ws.copy);
	};
	const size_t batches = (q.n + B - 1) / B;
	size_t first = 0, last = 0;
	issue(0);
	for (size_t k = 0; k < batches; k++) {
		// The MSM of batch k-1 returned (it is synchronous), so its
		// buffer, the one batch k+1 fills, is free.
		if (k + 1 < batches)
			issue(k + 1);
		copied[k & 1].wait_on(ws.compute);
		const size_t at = k * B, cnt = std::min(B, q.n - at);
		const size_t sp = spans.begin(q.span_msm, CUZK_GPU_LANE_COMPUTE, ws.compute);
		first = k ? first : sp;
		msm_call(q, buf[k & 1], q.scalars + at, cnt, k ? part : q.out, ws, L);
		spans.end(sp, ws.compute);
		last = sp;
		if (k)
			q.acc(q.out, part);
	}
	return {first, last};
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
		const size_t batch = res ? 0 : dev->stream_batch;
		const proof_layout L = plan_proof(nc, ni, na, n_a, n_b, batch);
		if (srs->n_h != L.m - 1 || srs->n_l != na || n_a < ni || srs->n_b_g2 != n_b)
			gpu_fail(CUZK_E_MISMATCH, "params and witness disagree in shape (h %zu/%zu, l %zu/%zu, "
				 "a %zu, b_g1 %zu, b_g2 %zu, %zu inputs)", srs->n_h, L.m - 1, srs->n_l, na, n_a, n_b,
				 srs->n_b_g2, ni);
		if (!res && (!ops || !ops->g1_acc || !ops->g2_acc))
			gpu_fail(CUZK_E_INVAL, "a streamed SRS needs the host's point addition");

		workspace_lease lease{dev, dev->take_workspace(L.total)};
		workspace &ws = *lease.ws;
		span_log spans(ws.copy);
		char *base = ws.mem.as<char>();
		fr_t *A = reinterpret_cast<fr_t *>(base + L.off_a), *Bv = reinterpret_cast<fr_t *>(base + L.off_b),
		     *C = reinterpret_cast<fr_t *>(base + L.off_c), *aux = reinterpret_cast<fr_t *>(base + L.off_aux),
		     *input = reinterpret_cast<fr_t *>(base + L.off_input);
		uint64_t *bits = reinterpret_cast<uint64_t *>(base + L.off_bits);
		const size_t aux_words = (na + 63) / 64, in_words = (ni + 63) / 64;
		uint64_t *a_aux_bits = bits, *b_aux_bits = bits + aux_words, *b_in_bits = bits + 2 * aux_words;
		const size_t fr = sizeof(fr_t);
		const bool pinned = w->pinned != 0;

		// Copies on ws.copy, in the order the compute stream needs them: the
		// bitmaps first (straight from the client's registered memory when
		// pinned), counted and checked while the scalars follow.
		event_t up_start(true), bits_ready(true), abc_ready(true), rest_start(true), all_ready(true),
			ntt_start(true), ntt_done(true);
		up_start.record(ws.copy);
		upload(ws, a_aux_bits, w->a_aux_density, aux_words * 8, pinned);
		upload(ws, b_aux_bits, w->b_aux_density, aux_words * 8, pinned);
		upload(ws, b_in_bits, w->b_input_density, in_words * 8, pinned);
		bits_ready.record(ws.copy);
		const void *src[3] = {w->a, w->b, w->c};
		fr_t *dst[3] = {A, Bv, C};
		for (int i = 0; i < 3; i++) {
			upload(ws, dst[i], src[i], nc * fr, pinned);
			CUDA_OK(cudaMemsetAsync(dst[i] + nc, 0, (L.m - nc) * fr, ws.copy));
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
		abc_ready.wait_on(ws.compute);
		ntt_start.record(ws.compute);
		ntt_compute_h(dev->ntt.view(), A, Bv, C, L.log_m, !w->montgomery, ws.compute);
		ntt_done.record(ws.compute);
		spans.between("upload bitmaps", CUZK_GPU_LANE_COPY, up_start, bits_ready);
		spans.between("upload a,b,c", CUZK_GPU_LANE_COPY, bits_ready, abc_ready);
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
		if (L.aux_in_a) {
			event_t a_free;
			a_free.record(ws.compute);
			a_free.wait_on(ws.copy);
			upload_rest();
		}
		const int mont = w->montgomery ? 1 : 0;
		msm_query q_h{"h", "msm h", "srs h", cuzk_msm_g1, G1_AFF_BYTES, res ? res->h : nullptr, srs->h, h_scalars, L.m - 1,
			      1, out->h, 18, ops ? ops->g1_acc : nullptr, ops};
		const span_range span_h = run_msm(q_h, ws, L, batch, spans);
		// Each MSM's time is its spans' device time: a host clock around
		// run_msm would also count the NTTs and copies queued before it,
		// which its first synchronisation waits for.
		tm.msm_h_ms = spans.range_ms(span_h.first, span_h.last);
		all_ready.sync();
		// The copies' own time: with aux in A, not the wait for h to leave it.
		tm.upload_ms = L.aux_in_a ? abc_ready.ms_since(up_start) + all_ready.ms_since(rest_start)
					  : all_ready.ms_since(up_start);
		tm.ntt_ms = ntt_done.ms_since(ntt_start);

		// Scalars of the A and B queries, compacted into the NTT's b and c.
		all_ready.wait_on(ws.compute);
		void *dscr = base + L.off_density;
		CUDA_OK(cudaMemcpyAsync(Bv, input, ni * fr, cudaMemcpyDeviceToDevice, ws.compute));
		density_compact(Bv + ni, aux, na, a_aux_bits, dscr, L.density_bytes, ws.compute);
		density_compact(C, input, ni, b_in_bits, dscr, L.density_bytes, ws.compute);
		density_compact(C + b_in, aux, na, b_aux_bits, dscr, L.density_bytes, ws.compute);

		msm_query q_l{"l", "msm l", "srs l", cuzk_msm_g1, G1_AFF_BYTES, res ? res->l : nullptr, srs->l, aux, na, mont, out->l,
			      18, ops ? ops->g1_acc : nullptr, ops};
		msm_query q_a{"a", "msm a", "srs a", cuzk_msm_g1, G1_AFF_BYTES, res ? res->a : nullptr, srs->a, Bv, n_a, mont, out->a,
			      18, ops ? ops->g1_acc : nullptr, ops};
		msm_query q_b1{"b_g1", "msm b_g1", "srs b_g1", cuzk_msm_g1, G1_AFF_BYTES, res ? res->b_g1 : nullptr, srs->b_g1, C, n_b, mont,
			       out->b_g1, 18, ops ? ops->g1_acc : nullptr, ops};
		msm_query q_b2{"b_g2", "msm b_g2", "srs b_g2", cuzk_msm_g2, G2_AFF_BYTES, res ? res->b_g2 : nullptr, srs->b_g2, C, n_b, mont,
			       out->b_g2, 36, ops ? ops->g2_acc : nullptr, ops};
		double *slot[4] = {&tm.msm_l_ms, &tm.msm_a_ms, &tm.msm_b_g1_ms, &tm.msm_b_g2_ms};
		const msm_query *qs[4] = {&q_l, &q_a, &q_b1, &q_b2};
		for (int i = 0; i < 4; i++) {
			const span_range sp = run_msm(*qs[i], ws, L, batch, spans);
			if (i == 0)   // the A and B scalars are compacted before the first of these
				spans.gap("a, b scalars", CUZK_GPU_LANE_COMPUTE, span_h.last, sp.first);
			*slot[i] = spans.range_ms(sp.first, sp.last);
		}
		tm.total_ms = ms_since(t_start);
		if (t) {
			ws.copy.sync();
			ws.compute.sync();
			spans.finish(tm);
			tm.workspace = ws.id;
			*t = tm;
		}
	});
}
