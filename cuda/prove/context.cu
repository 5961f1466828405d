// SPDX-License-Identifier: Apache-2.0 OR MIT
// Device lifetime, VRAM accounting, SRS residency, uploads, and the NTT entry
// points of the C boundary.
#include "prove/context.cuh"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "msm/msm.cuh"
#include "prove/density.cuh"
#include "prove/srs_host.cuh"
#include "prove/workspace_pick.cuh"

using namespace cuzk;

namespace cuzk {

namespace {

// Kept free of the budget when the caller asks for "everything": the CUDA
// context, cuBLAS-free kernels' local memory and fragmentation live here.
constexpr size_t DEFAULT_HEADROOM = (size_t)1 << 30;

size_t align_up(size_t x) { return (x + 255) & ~(size_t)255; }

unsigned log2_ceil(size_t n)
{
	unsigned k = 0;
	while (((size_t)1 << k) < n)
		k++;
	return k;
}

__device__ __forceinline__ uint32_t brev_bits(uint32_t x, unsigned bits)
{
	return bits ? __brev(x) >> (32 - bits) : 0;
}

// out[p] = in[bitrev(p)] for p < n, G1 affine points (96 bytes = 6 x uint4).
__global__ void __launch_bounds__(256) permute_g1_bitrev(uint4 *out, const uint4 *in, uint32_t n, unsigned log_m)
{
	for (uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
		const uint4 *src = in + 6 * (size_t)brev_bits(p, log_m);
#pragma unroll
		for (int i = 0; i < 6; i++)
			out[6 * (size_t)p + i] = src[i];
	}
}

} // namespace

proof_layout plan_proof(size_t num_constraints, size_t num_inputs, size_t num_aux, size_t n_a, size_t n_b,
			size_t stream_batch, unsigned msm_streams, size_t room, msm_scratch scratch)
{
	proof_layout L;
	L.log_m = log2_ceil(num_constraints);
	L.m = (size_t)1 << L.log_m;
	const size_t fr = sizeof(fr_t);
	// a holds h afterwards; b and c take the compacted A and B scalars once
	// the NTTs are done with them.  b and c go last, right below the MSM
	// scratch, so that the MSMs before the compaction can use them too.
	size_t o = 0;
	L.off_a = o;
	o += align_up(L.m * fr);
	// Sharing A saves the aux values' 4 GiB at 2^27, which is what lets a
	// partition's streamed proof fit a 16 GiB card.
	L.aux_in_a = stream_batch && num_aux <= L.m;
	L.off_aux = L.aux_in_a ? L.off_a : o;
	if (!L.aux_in_a)
		o += align_up(std::max<size_t>(num_aux, 1) * fr);
	L.off_input = o;
	o += align_up(num_inputs * fr);
	const size_t aux_words = (num_aux + 63) / 64, in_words = (num_inputs + 63) / 64;
	L.off_bits = o;   // a_aux, b_aux, b_input bitmaps
	o += align_up((2 * aux_words + in_words + 1) * sizeof(uint64_t));
	L.density_bytes = align_up(density_scratch_bytes(std::max(num_aux, num_inputs)));
	L.off_density = o;
	o += L.density_bytes;
	L.off_b = o;
	o += align_up(std::max(L.m, n_a) * fr);
	L.off_c = o;
	o += align_up(std::max(L.m, n_b) * fr);
	L.ab_in_c = stream_batch && n_a + n_b <= std::max(L.m, n_b);
	const size_t n_g1 = std::max({L.m, num_aux, n_a, n_b, (size_t)1});
	const size_t msm_n = stream_batch ? std::min(n_g1, stream_batch) : n_g1;
	const size_t msm_n2 = stream_batch ? std::min(std::max<size_t>(n_b, 1), stream_batch) : std::max<size_t>(n_b, 1);
	// A streamed SRS's MSMs are batched (msm.cuh): the scratch of a batch,
	// sized for the largest query; their running sums are apart (below).
	L.msm_bytes = align_up(stream_batch ? std::max(cuzk_msm_g1_batch_scratch_bytes(msm_n, n_g1),
						       cuzk_msm_g2_batch_scratch_bytes(msm_n2, std::max<size_t>(n_b, 1)))
					    : std::max(cuzk_msm_g1_scratch_bytes(msm_n), cuzk_msm_g2_scratch_bytes(msm_n2)));
	L.off_msm = o;
	if (stream_batch) {
		L.running_bytes[0] = align_up(cuzk_msm_g1_batch_running_bytes(n_g1));
		L.running_bytes[1] = std::max(L.running_bytes[0],
					      align_up(cuzk_msm_g2_batch_running_bytes(std::max<size_t>(n_b, 1))));
	}
	// The ring: four G1 batches or two of G2's, no larger than the largest
	// query needs.
	const size_t batch_pts = std::min(stream_batch, std::max(n_g1, n_b));
	static_assert(2 * G1_AFF_BYTES == G2_AFF_BYTES, "a G2 batch takes two slots of the ring");
	L.stream_slot = stream_batch ? align_up(batch_pts * G1_AFF_BYTES) : 0;
	L.stream_bytes = 4 * L.stream_slot;
	// Everything but the MSMs' scratch; each stream adds one scratch area.
	const size_t fixed = o + L.stream_bytes + L.running_bytes[0] + L.running_bytes[1];
	auto total_for = [&](unsigned k) { return fixed + k * L.msm_bytes; };
	// The streamed path's batches go through one pair of buffers, one MSM
	// at a time (prove.cu, run_msm): its MSMs stay in a row.
	if (msm_streams == MSM_STREAMS_SMALL)
		msm_streams = L.log_m <= MSM_STREAMS_SMALL_LOG ? MSM_STREAMS_AUTO : 1;
	unsigned k = 1;
	if (!stream_batch && msm_streams != MSM_STREAMS_AUTO)
		k = std::max(1u, std::min(msm_streams, MSM_STREAMS_MAX));
	else if (!stream_batch)
		// One single-stream workspace of this shape is kept free beside
		// this one: cuzkd runs two workers a device by default, and a
		// proof's extra scratch (GBs at 2^27) must not make the other wait.
		while (k < MSM_STREAMS_MAX && total_for(k + 1) + total_for(1) <= room)
			k++;
	L.msm_streams = k;
	if (scratch != msm_scratch::least && !stream_batch) {
		const size_t fast = align_up(std::max(cuzk_msm_g1_scratch_bytes_fast(msm_n),
						      cuzk_msm_g2_scratch_bytes_fast(msm_n2)));
		// Lent: h's and l's scratch reaches down over b and c (free until
		// the compaction that follows them), the other MSMs' does not.
		const size_t bc = o - L.off_b;
		if (scratch == msm_scratch::fast)
			L.msm_bytes = std::max(L.msm_bytes, fast);
		else if (L.msm_streams == 1)
			L.msm_bytes = std::max(L.msm_bytes, fast > bc ? align_up(fast - bc) : 0);
	}
	o += L.msm_streams * L.msm_bytes;
	L.off_running = o;
	o += L.running_bytes[0] + L.running_bytes[1];
	L.off_stream = o;
	o += L.stream_bytes;
	L.total = o;
	return L;
}

unsigned max_workspaces_from_env()
{
	const char *env = getenv("CUZK_GPU_WORKSPACES");
	if (!env || !*env)
		return 0;
	char *end = nullptr;
	errno = 0;
	const unsigned long long n = strtoull(env, &end, 10);
	if (errno || *end || env[0] < '1' || env[0] > '9' || n > 1024)
		gpu_fail(CUZK_E_INVAL, "CUZK_GPU_WORKSPACES is \"%.64s\": it must be 1..1024 (or unset: no cap)", env);
	return (unsigned)n;
}

unsigned msm_streams_from_env()
{
	const char *env = getenv("CUZK_GPU_MSM_STREAMS");
	if (!env || !*env)
		return MSM_STREAMS_DEFAULT;
	if (!strcmp(env, "auto"))
		return MSM_STREAMS_AUTO;
	if (env[0] >= '1' && env[0] <= (char)('0' + MSM_STREAMS_MAX) && !env[1])
		return (unsigned)(env[0] - '0');
	gpu_fail(CUZK_E_INVAL, "CUZK_GPU_MSM_STREAMS is \"%.64s\": it must be 1..%u or auto", env, MSM_STREAMS_MAX);
}

void upload(workspace &ws, void *dst, const void *src, size_t bytes, bool pinned, cudaStream_t s)
{
	if (!bytes)
		return;
	if (!s)
		s = ws.copy;
	if (pinned) {
		CUDA_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
		return;
	}
	// The ring: chunk k goes through staging[k % 2]; before refilling a chunk
	// the host waits for that chunk's previous copy only (an event, not the
	// device).
	static_assert(STAGING_CHUNK % 256 == 0, "chunks keep the device side aligned");
	for (auto &chunk : ws.staging)
		if (!chunk)
			chunk = std::make_unique<pinned_mem>(STAGING_CHUNK);
	const char *from = static_cast<const char *>(src);
	char *to = static_cast<char *>(dst);
	for (size_t done = 0, k = 0; done < bytes; k++) {
		const size_t n = std::min(STAGING_CHUNK, bytes - done);
		const int slot = (int)(k & 1);
		ws.staged[slot].sync();
		memcpy(ws.staging[slot]->get(), from + done, n);
		CUDA_OK(cudaMemcpyAsync(to + done, ws.staging[slot]->get(), n, cudaMemcpyHostToDevice, s));
		ws.staged[slot].record(s);
		done += n;
	}
}

} // namespace cuzk

size_t cuzk::pick_stream_batch(size_t nc, size_t ni, size_t na, size_t n_a, size_t n_b, size_t room)
{
	auto total = [&](size_t b) { return plan_proof(nc, ni, na, n_a, n_b, b).total; };
	for (unsigned copies = 2; copies >= 1; copies--)
		for (size_t b = STREAM_BATCH_MAX; b >= STREAM_BATCH_MIN; b >>= 1)
			if (copies * total(b) <= room)
				return b;
	return STREAM_BATCH_MIN;
}

std::unique_ptr<workspace> cuzk_gpu_dev::take_workspace(size_t bytes, std::initializer_list<size_t> want_list,
							 workspace_claim *claim)
{
	std::vector<size_t> wants(want_list);
	std::unique_lock<std::mutex> g(mu);
	std::vector<size_t> sizes;
	for (;;) {
		// The cap (tests) makes a proof wait as on a card that holds no more.
		if (!max_workspaces || busy < max_workspaces) {
			sizes.clear();
			for (const auto &ws : idle)
				sizes.push_back(ws->mem.size());
			const size_t free = budget->budget() - std::min(budget->budget(), budget->reserved());
			const workspace_pick pick = pick_workspace(sizes.data(), sizes.size(), bytes, wants.data(), wants.size(), free, busy);
			if (pick.idle != workspace_pick::npos) {
				std::unique_ptr<workspace> ws = std::move(idle[pick.idle]);
				idle.erase(idle.begin() + (std::ptrdiff_t)pick.idle);
				busy++;
				busy_bytes += ws->mem.size();
				return ws;
			}
			const size_t fresh = pick.fresh;
			if (fresh && budget->try_reserve(fresh)) {
				busy++;
				busy_bytes += fresh;
				const unsigned id = workspaces_made++;
				g.unlock();
				try {
					return std::make_unique<workspace>(*budget, fresh, id);
				} catch (...) {
					std::lock_guard<std::mutex> g2(mu);
					busy--;
					busy_bytes -= fresh;
					throw;
				}
			}
			if (fresh > bytes) {   // reserved by someone else meanwhile (an SRS upload)
				wants.clear();
				continue;
			}
			// Too small idle arenas give their memory back for a bigger one.
			if (!idle.empty()) {
				idle.clear();
				continue;
			}
			if (!busy)
				gpu_fail(CUZK_E_VRAM,
					 "a proof needs %zu MiB of VRAM but the budget is %zu MiB with %zu MiB reserved "
					 "(resident SRS and tables)",
					 bytes >> 20, budget->budget() >> 20, budget->reserved() >> 20);
		}
		// Another proof holds an arena: claim one whose A is free (its a
		// then crosses PCIe while that proof ends, not after it), or wait
		// until one comes back or lends its A.
		if (claim) {
			*claim = claims.take(bytes, [](const workspace &w) { return w.mem.size(); });
			if (claim->ws)
				return nullptr;
		}
		const unsigned long gen = returned;
		returned_cv.wait(g, [&] { return returned != gen; });
	}
}

std::unique_ptr<workspace> cuzk_gpu_dev::receive_claimed(workspace *claimed_ws)
{
	std::unique_lock<std::mutex> g(mu);
	for (;;) {
		if (std::unique_ptr<workspace> ws = claims.receive(claimed_ws))
			return ws;
		const unsigned long gen = returned;
		returned_cv.wait(g, [&] { return returned != gen; });
	}
}

void cuzk_gpu_dev::lend_a(workspace &ws, size_t bytes)
{
	ws.lend_ready.record(ws.compute);
	{
		std::lock_guard<std::mutex> g(mu);
		if (!claims.lend(&ws, bytes))
			return;
		returned++;
	}
	returned_cv.notify_all();
}

void cuzk_gpu_dev::give_workspace(std::unique_ptr<workspace> ws)
{
	{
		std::lock_guard<std::mutex> g(mu);
		if (!claims.hand_over(ws)) {   // else still busy: its claimant's now
			busy_bytes -= ws->mem.size();
			idle.push_back(std::move(ws));
			busy--;
		}
		returned++;
	}
	returned_cv.notify_all();
}

size_t cuzk_gpu_dev::proof_room()
{
	std::lock_guard<std::mutex> g(mu);
	size_t room = budget->budget() - budget->reserved() + busy_bytes;
	for (const auto &ws : idle)
		room += ws->mem.size();
	return room;
}

size_t cuzk_gpu_dev::workspace_room()
{
	std::lock_guard<std::mutex> g(mu);
	size_t room = budget->budget() - budget->reserved();
	for (const auto &ws : idle)
		room += ws->mem.size();
	return room;
}

std::shared_ptr<const srs_resident> cuzk_gpu_dev::find_srs(const void *key)
{
	std::lock_guard<std::mutex> g(mu);
	for (auto &s : srs)
		if (s->key == key)
			return s;
	return nullptr;
}

extern "C" int cuzk_gpu_device_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError();   // no driver or no device: not an error here
		return 0;
	}
	return n;
}

extern "C" int cuzk_gpu_open(cuzk_gpu_dev **ret, int device, size_t budget_bytes, cuzk_error *err)
{
	*ret = nullptr;
	return gpu_entry(err, [&] {
		// A bad setting is reported as such, device or not.
		const unsigned msm_streams = msm_streams_from_env(), max_workspaces = max_workspaces_from_env();
		const int n = cuzk_gpu_device_count();
		if (device < 0 || device >= n)
			gpu_fail(CUZK_E_INVAL, "no such device (%d found)", n);
		device_guard dg(device);
		size_t free_b = 0, total_b = 0;
		CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
		const char *env = getenv("CUZK_GPU_VRAM_BUDGET_MB");
		if (!budget_bytes && env && *env)
			budget_bytes = (size_t)strtoull(env, nullptr, 10) << 20;
		if (!budget_bytes)
			budget_bytes = free_b > DEFAULT_HEADROOM ? free_b - DEFAULT_HEADROOM : 0;
		if (budget_bytes > free_b)
			gpu_fail(CUZK_E_VRAM, "vram_budget %zu MiB exceeds the %zu MiB free", budget_bytes >> 20,
				 free_b >> 20);
		auto dev = std::make_unique<cuzk_gpu_dev>();
		dev->device = device;
		dev->total_mem = total_b;
		dev->msm_streams = msm_streams;
		dev->max_workspaces = max_workspaces;
		if ((env = getenv("CUZK_GPU_STREAM_BATCH")) && *env) {
			dev->stream_batch = std::max<size_t>(1, strtoull(env, nullptr, 10));
			dev->never_resident = true;
		}
		dev->budget = std::make_unique<vram_budget>(budget_bytes);
		stream_t s;
		dev->ntt.build(*dev->budget, s);
		s.sync();
		*ret = dev.release();
	});
}

extern "C" void cuzk_gpu_close(cuzk_gpu_dev *dev)
{
	if (!dev)
		return;
	cudaSetDevice(dev->device);
	for (const srs_pinned &s : dev->pinned_srs)
		unpin_host_srs(s.ptr, s.n);
	delete dev;
}

namespace {

// The device's own count of its used memory (total - free) and its free
// bytes, on dev's device.
size_t read_device_use(const cuzk_gpu_dev *dev, size_t *ret_free)
{
	device_guard dg(dev->device);
	size_t free_b = 0, total_b = 0;
	CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
	*ret_free = free_b;
	return total_b - free_b;
}

} // namespace

extern "C" int cuzk_gpu_vram(cuzk_gpu_dev *dev, cuzk_gpu_vram_info *ret)
{
	return gpu_entry(nullptr, [&] {
		// This reading counts towards the device's peak too: memory the
		// runtime allocates lazily (kernels' local memory) shows up
		// between allocations from the budget.
		dev->budget->note_device_use(read_device_use(dev, &ret->free));
		ret->reserved = dev->budget->reserved();
		ret->budget = dev->budget->budget();
		ret->peak_reserved = dev->budget->peak_reserved();
		ret->peak_device_used = dev->budget->peak_device_used();
	});
}

extern "C" int cuzk_gpu_vram_reset_peaks(cuzk_gpu_dev *dev, cuzk_error *err)
{
	return gpu_entry(err, [&] {
		size_t free_b;
		dev->budget->reset_peaks(read_device_use(dev, &free_b));
	});
}

namespace {

// A streamed SRS: its host arrays are page-locked once, so that each batch
// is a true asynchronous copy that overlaps the MSM of the batch before.
void pin_streamed(cuzk_gpu_dev *dev, const cuzk_gpu_srs *p)
{
	{
		std::lock_guard<std::mutex> g(dev->mu);
		for (const srs_pinned &s : dev->pinned_srs)
			if (s.key == p->key)
				return;
	}
	srs_pinned s;
	s.key = p->key;
	s.n = pin_host_srs(p, s.ptr);
	std::lock_guard<std::mutex> g(dev->mu);
	dev->pinned_srs.push_back(s);
}

} // namespace

namespace {

// Where the five arrays of a resident SRS lie in its one allocation, and
// what making it resident needs beside them.
struct srs_layout {
	size_t off[5] = {};
	size_t count[5] = {};
	const char *host[5] = {};
	size_t bytes = 0;       // the allocation
	size_t tmp_bytes = 0;   // h in file order, before its permutation
	size_t need = 0;        // free budget to be resident: the points, and one proof's working memory or tmp
};

const char *const srs_array_names[5] = {"h", "l", "a", "b_g1", "b_g2"};

size_t point_bytes(int array) { return array == CUZK_GPU_SRS_B_G2 ? G2_AFF_BYTES : G1_AFF_BYTES; }

srs_layout layout_srs(const cuzk_gpu_srs *p)
{
	// h goes into its bit-reversed place over a domain of n_h + 1 points
	// (permute_h): any other count would send the permutation's reads past
	// the points, and no proof could use such an h anyway.
	if (p->n_h & (p->n_h + 1))
		gpu_fail(CUZK_E_MISMATCH, "SRS: h has %zu points, not 2^k - 1 (a domain of 2^k): no proof can use it",
			 p->n_h);
	srs_layout L;
	const size_t n[5] = {p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
	const void *host[5] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
	for (int i = 0; i < 5; i++) {
		L.off[i] = L.bytes;
		L.count[i] = n[i];
		L.host[i] = static_cast<const char *>(host[i]);
		L.bytes += align_up(n[i] * point_bytes(i));
	}
	// Resident only if one proof's working memory still fits beside it.
	const proof_layout P = plan_proof(p->n_h + 1, p->num_inputs, p->n_l, p->n_a, p->n_b_g1, 0);
	L.tmp_bytes = align_up(p->n_h * G1_AFF_BYTES);
	L.need = L.bytes + std::max(P.total, L.tmp_bytes);
	return L;
}

// Reserves and allocates a resident SRS and its h buffer when they fit;
// false, nothing reserved, when not.  Under dev->load_mu, on dev's device.
bool reserve_resident(cuzk_gpu_dev *dev, const cuzk_gpu_srs *p, const srs_layout &L,
		      std::shared_ptr<srs_resident> &s, budgeted_mem &tmp)
{
	const size_t room = dev->budget->budget() - dev->budget->reserved();
	if (room < L.need || !dev->budget->try_reserve(L.bytes))
		return false;
	s = std::make_shared<srs_resident>();
	s->key = p->key;
	s->mem = budgeted_mem(*dev->budget, L.bytes, "the resident SRS");
	if (!dev->budget->try_reserve(L.tmp_bytes))
		gpu_fail(CUZK_E_VRAM, "SRS load: no room for the h permutation");
	tmp = budgeted_mem(*dev->budget, L.tmp_bytes, "the SRS h permutation");
	return true;
}

// h from tmp, where its copies have landed in file order, into its
// bit-reversed place in the SRS.
void permute_h(srs_resident &s, const srs_layout &L, const budgeted_mem &tmp)
{
	const size_t n_h = L.count[CUZK_GPU_SRS_H];
	if (!n_h)
		return;
	const unsigned log_m = log2_ceil(n_h + 1);
	const unsigned blocks = (unsigned)std::min<size_t>((n_h + 255) / 256, 65535);
	stream_t st;
	permute_g1_bitrev<<<blocks, 256, 0, st>>>(reinterpret_cast<uint4 *>(s.mem.as<char>() + L.off[CUZK_GPU_SRS_H]),
						  tmp.as<const uint4>(), (uint32_t)n_h, log_m);
	CUDA_LAUNCHED("permute_g1_bitrev");
	st.sync();
}

// The SRS, every copy into it landed and h permuted, into the device's list.
void publish(cuzk_gpu_dev *dev, std::shared_ptr<srs_resident> s, const srs_layout &L)
{
	const char *base = s->mem.as<const char>();
	s->h = base + L.off[CUZK_GPU_SRS_H];
	s->l = base + L.off[CUZK_GPU_SRS_L];
	s->a = base + L.off[CUZK_GPU_SRS_A];
	s->b_g1 = base + L.off[CUZK_GPU_SRS_B_G1];
	s->b_g2 = base + L.off[CUZK_GPU_SRS_B_G2];
	s->n_h = L.count[CUZK_GPU_SRS_H];
	s->n_l = L.count[CUZK_GPU_SRS_L];
	s->n_a = L.count[CUZK_GPU_SRS_A];
	s->n_b_g1 = L.count[CUZK_GPU_SRS_B_G1];
	s->n_b_g2 = L.count[CUZK_GPU_SRS_B_G2];
	std::lock_guard<std::mutex> g(dev->mu);
	dev->srs.push_back(std::move(s));
}

} // namespace

extern "C" int cuzk_gpu_load_srs(cuzk_gpu_dev *dev, const cuzk_gpu_srs *p, int *ret_resident, cuzk_error *err)
{
	*ret_resident = 0;
	return gpu_entry(err, [&] {
		std::lock_guard<std::mutex> one_load(dev->load_mu);
		if (dev->find_srs(p->key)) {
			*ret_resident = 1;
			return;
		}
		device_guard dg(dev->device);
		if (dev->never_resident) {
			pin_streamed(dev, p);
			return;
		}
		const srs_layout L = layout_srs(p);
		std::shared_ptr<srs_resident> s;
		budgeted_mem tmp;
		if (!reserve_resident(dev, p, L, s, tmp)) {
			pin_streamed(dev, p);   // streamed instead
			return;
		}
		char *base = s->mem.as<char>();
		staged_uploader up;
		up.copy(tmp.get(), p->h, p->n_h * G1_AFF_BYTES);
		up.finish();
		permute_h(*s, L, tmp);
		tmp.reset();
		for (int i = CUZK_GPU_SRS_L; i <= CUZK_GPU_SRS_B_G2; i++)
			up.copy(base + L.off[i], L.host[i], L.count[i] * point_bytes(i));
		up.finish();
		publish(dev, std::move(s), L);
		*ret_resident = 1;
	});
}

// An upload beside the host's decoding (cuzk_gpu_srs_upload_begin).
struct cuzk_gpu_srs_upload {
	cuzk_gpu_dev *dev = nullptr;
	srs_layout L;
	std::shared_ptr<srs_resident> s;   // reserved, not yet in dev->srs
	budgeted_mem tmp;                   // h in file order, until it is whole
	std::unique_ptr<staged_uploader> up;
	size_t next[5] = {};                // points of each array copied so far

	cuzk_gpu_srs_upload() = default;
	cuzk_gpu_srs_upload(const cuzk_gpu_srs_upload &) = delete;
	cuzk_gpu_srs_upload &operator=(const cuzk_gpu_srs_upload &) = delete;
	// Whatever thread ends it: the copies in flight land first (the staging
	// buffers are their source), then the memory goes back, on its device.
	~cuzk_gpu_srs_upload()
	{
		int prev = -1;
		const bool switched = dev && cudaGetDevice(&prev) == cudaSuccess && prev != dev->device &&
				      cudaSetDevice(dev->device) == cudaSuccess;
		if (up) {
			try {
				up->finish();
			} catch (const gpu_error &) {
				cudaGetLastError();   // the upload is dropped either way
			}
		}
		up.reset();
		tmp.reset();
		s.reset();
		if (switched)
			cudaSetDevice(prev);
	}
};

extern "C" int cuzk_gpu_srs_upload_begin(cuzk_gpu_dev *dev, const cuzk_gpu_srs *p, cuzk_gpu_srs_upload **ret,
					 cuzk_error *err)
{
	*ret = nullptr;
	return gpu_entry(err, [&] {
		std::lock_guard<std::mutex> one_load(dev->load_mu);
		if (dev->never_resident || dev->find_srs(p->key))
			return;
		device_guard dg(dev->device);
		auto u = std::make_unique<cuzk_gpu_srs_upload>();
		u->dev = dev;
		u->L = layout_srs(p);
		if (!reserve_resident(dev, p, u->L, u->s, u->tmp))
			return;   // too large: cuzk_gpu_load_srs streams it later, as before
		u->up = std::make_unique<staged_uploader>();
		*ret = u.release();
	});
}

extern "C" int cuzk_gpu_srs_upload_part(cuzk_gpu_srs_upload *u, int array, size_t begin, size_t end,
					cuzk_error *err)
{
	return gpu_entry(err, [&] {
		if (array < CUZK_GPU_SRS_H || array > CUZK_GPU_SRS_B_G2)
			gpu_fail(CUZK_E_INVAL, "SRS upload: there is no array %d", array);
		const srs_layout &L = u->L;
		if (begin != u->next[array] || end < begin || end > L.count[array])
			gpu_fail(CUZK_E_INVAL, "SRS upload: points %zu..%zu of %s out of order (%zu of %zu copied)",
				 begin, end, srs_array_names[array], u->next[array], L.count[array]);
		if (begin == end)
			return;
		device_guard dg(u->dev->device);
		const size_t size = point_bytes(array);
		char *dst = array == CUZK_GPU_SRS_H ? u->tmp.as<char>() : u->s->mem.as<char>() + L.off[array];
		u->up->copy(dst + begin * size, L.host[array] + begin * size, (end - begin) * size);
		u->next[array] = end;
		if (array == CUZK_GPU_SRS_H && end == L.count[array]) {
			// h is whole: into its bit-reversed place, and its buffer
			// back to the budget before the other arrays come.
			u->up->finish();
			permute_h(*u->s, L, u->tmp);
			u->tmp.reset();
		}
	});
}

extern "C" int cuzk_gpu_srs_upload_end(cuzk_gpu_srs_upload *u, cuzk_error *err)
{
	std::unique_ptr<cuzk_gpu_srs_upload> own(u);
	return gpu_entry(err, [&] {
		for (int i = CUZK_GPU_SRS_H; i <= CUZK_GPU_SRS_B_G2; i++)
			if (u->next[i] != u->L.count[i])
				gpu_fail(CUZK_E_INVAL, "SRS upload ended with %zu of the %zu points of %s copied",
					 u->next[i], u->L.count[i], srs_array_names[i]);
		device_guard dg(u->dev->device);
		u->up->finish();
		publish(u->dev, std::move(u->s), u->L);
	});
}

extern "C" void cuzk_gpu_srs_upload_abort(cuzk_gpu_srs_upload *u)
{
	delete u;
}

extern "C" void cuzk_gpu_unload_srs(cuzk_gpu_dev *dev, const void *key)
{
	// The caller's thread may have another GPU current (cuzkd unloads
	// every device's copy from one thread): the memory goes back on dev's.
	int prev = -1;
	const bool switched = cudaGetDevice(&prev) == cudaSuccess && prev != dev->device &&
			      cudaSetDevice(dev->device) == cudaSuccess;
	std::list<std::shared_ptr<srs_resident>> gone;
	std::lock_guard<std::mutex> g(dev->mu);
	// A proof still using it holds a shared_ptr; the memory goes when it ends.
	for (auto it = dev->srs.begin(); it != dev->srs.end();)
		if ((*it)->key == key)
			gone.splice(gone.end(), dev->srs, it++);
		else
			++it;
	gone.clear();
	if (switched)
		cudaSetDevice(prev);
	// A streamed one is unloaded only when no proof uses it (the caller's
	// rule), so its host pages can be let go now.
	dev->pinned_srs.remove_if([&](const srs_pinned &s) {
		if (s.key == key)
			unpin_host_srs(s.ptr, s.n);
		return s.key == key;
	});
}

extern "C" int cuzk_gpu_host_register(void *ptr, size_t len, int read_only, cuzk_error *err)
{
	return gpu_entry(err, [&] {
		unsigned flags = cudaHostRegisterPortable | (read_only ? cudaHostRegisterReadOnly : 0);
		cudaError_t e = cudaHostRegister(ptr, len, flags);
		if (e != cudaSuccess)
			gpu_fail(CUZK_E_GPU, "cudaHostRegister of %zu bytes at %p: %s", len, ptr,
				 cudaGetErrorString(e));
	});
}

extern "C" int cuzk_gpu_host_unregister(void *ptr, cuzk_error *err)
{
	return gpu_entry(err, [&] { CUDA_OK(cudaHostUnregister(ptr)); });
}

budgeted_mem cuzk::take_budget(cuzk_gpu_dev *dev, size_t bytes, const char *what)
{
	if (!dev->budget->try_reserve(bytes))
		gpu_fail(CUZK_E_VRAM, "%s needs %zu MiB but only %zu MiB of the budget are free", what,
			 bytes >> 20, (dev->budget->budget() - dev->budget->reserved()) >> 20);
	return budgeted_mem(*dev->budget, bytes, what);
}

extern "C" int cuzk_gpu_ntt(cuzk_gpu_dev *dev, void *data, unsigned log_n, int kind, int reps, double *ret_ms,
			    cuzk_error *err)
{
	return gpu_entry(err, [&] {
		if (log_n < 1 || log_n > NTT_LOG_MAX)
			gpu_fail(CUZK_E_INVAL, "NTT size 2^%u is outside 2^1..2^%u", log_n, NTT_LOG_MAX);
		if (kind < CUZK_GPU_NTT_FORWARD || kind > CUZK_GPU_NTT_COSET_INVERSE)
			gpu_fail(CUZK_E_INVAL, "NTT kind %d is unknown", kind);
		device_guard dg(dev->device);
		const size_t bytes = sizeof(fr_t) << log_n;
		budgeted_mem in = take_budget(dev, bytes, "NTT input"), out = take_budget(dev, bytes, "NTT output");
		stream_t s;
		CUDA_OK(cudaMemcpyAsync(in.get(), data, bytes, cudaMemcpyHostToDevice, s));
		std::vector<float> times;
		event_t t0(true), t1(true);
		for (int i = 0; i < std::max(reps, 1); i++) {
			t0.record(s);
			ntt_natural(dev->ntt.view(), out.as<fr_t>(), in.as<fr_t>(), log_n, (ntt_kind)kind, s);
			t1.record(s);
			t1.sync();
			times.push_back(t1.ms_since(t0));
		}
		CUDA_OK(cudaMemcpyAsync(data, out.get(), bytes, cudaMemcpyDeviceToHost, s));
		s.sync();
		std::sort(times.begin(), times.end());
		if (ret_ms)
			*ret_ms = times[times.size() / 2];
	});
}

extern "C" int cuzk_gpu_compute_h(cuzk_gpu_dev *dev, void *h_out, const void *a, const void *b, const void *c,
				  size_t n, int montgomery, double *ret_ms, cuzk_error *err)
{
	return gpu_entry(err, [&] {
		const unsigned log_m = log2_ceil(n);
		if (n < 2 || log_m > NTT_LOG_MAX)
			gpu_fail(CUZK_E_INVAL, "h of %zu constraints: the domain must be 2^1..2^%u", n, NTT_LOG_MAX);
		device_guard dg(dev->device);
		const size_t m = (size_t)1 << log_m, bytes = m * sizeof(fr_t);
		budgeted_mem buf = take_budget(dev, 4 * bytes, "h computation");
		fr_t *da = buf.as<fr_t>(), *db = da + m, *dc = db + m, *dh = dc + m;
		stream_t s;
		const void *src[3] = {a, b, c};
		fr_t *dst[3] = {da, db, dc};
		for (int i = 0; i < 3; i++) {
			CUDA_OK(cudaMemcpyAsync(dst[i], src[i], n * sizeof(fr_t), cudaMemcpyHostToDevice, s));
			CUDA_OK(cudaMemsetAsync(dst[i] + n, 0, (m - n) * sizeof(fr_t), s));
		}
		event_t t0(true), t1(true);
		t0.record(s);
		ntt_compute_h(dev->ntt.view(), da, db, dc, log_m, !montgomery, s);
		t1.record(s);
		ntt_bit_reverse(dh, da, log_m, s);
		CUDA_OK(cudaMemcpyAsync(h_out, dh, (m - 1) * sizeof(fr_t), cudaMemcpyDeviceToHost, s));
		s.sync();
		if (ret_ms)
			*ret_ms = t1.ms_since(t0);
	});
}
