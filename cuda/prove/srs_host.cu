// SPDX-License-Identifier: Apache-2.0 OR MIT
// The SRS on its way from host memory (srs_host.cuh).
#include "prove/srs_host.cuh"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace cuzk {

namespace {

// 64 MiB chunks amortise the per-copy latency; four host threads copy ~4x
// what one does (one core's memcpy is well below a PCIe 5 link).
constexpr size_t STAGING_CHUNK_BYTES = (size_t)64 << 20;
constexpr unsigned STAGING_THREADS = 4;

bool env_off(const char *name)
{
	const char *v = getenv(name);
	return v && strcmp(v, "0") == 0;
}

void parallel_memcpy(char *dst, const char *src, size_t n)
{
	const size_t part = (n / STAGING_THREADS + 4095) & ~(size_t)4095;
	std::vector<std::thread> th;
	for (size_t at = part; at < n; at += part)
		th.emplace_back([=] { memcpy(dst + at, src + at, std::min(part, n - at)); });
	memcpy(dst, src, std::min(part, n));
	for (auto &t : th)
		t.join();
}

} // namespace

staged_uploader::staged_uploader()
    : direct_(env_off("CUZK_GPU_SRS_STAGING")),
      buf_{pinned_mem(direct_ ? 0 : STAGING_CHUNK_BYTES), pinned_mem(direct_ ? 0 : STAGING_CHUNK_BYTES),
	   pinned_mem(direct_ ? 0 : STAGING_CHUNK_BYTES)}
{
}

void staged_uploader::copy(void *dst, const void *src, size_t bytes)
{
	if (direct_) {
		if (bytes)
			CUDA_OK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
		return;
	}
	const char *s = static_cast<const char *>(src);
	char *d = static_cast<char *>(dst);
	for (size_t off = 0; off < bytes; off += STAGING_CHUNK_BYTES, k_++) {
		const int slot = (int)(k_ % BUFFERS);
		const size_t n = std::min(STAGING_CHUNK_BYTES, bytes - off);
		done_[slot].sync();   // that buffer's last copy has landed
		parallel_memcpy(static_cast<char *>(buf_[slot].get()), s + off, n);
		CUDA_OK(cudaMemcpyAsync(d + off, buf_[slot].get(), n, cudaMemcpyHostToDevice, s_));
		done_[slot].record(s_);
	}
}

void staged_uploader::finish()
{
	s_.sync();
}

int pin_host_srs(const cuzk_gpu_srs *p, void *ret[5])
{
	if (env_off("CUZK_GPU_PIN_SRS"))
		return 0;
	const char *ptr[5] = {static_cast<const char *>(p->h), static_cast<const char *>(p->l),
			      static_cast<const char *>(p->a), static_cast<const char *>(p->b_g1),
			      static_cast<const char *>(p->b_g2)};
	const size_t len[5] = {p->n_h * 96, p->n_l * 96, p->n_a * 96, p->n_b_g1 * 96, p->n_b_g2 * 192};
	const char *lo = nullptr, *hi = nullptr;
	size_t sum = 0;
	for (int i = 0; i < 5; i++) {
		if (!len[i])
			continue;
		lo = !lo || ptr[i] < lo ? ptr[i] : lo;
		hi = !hi || ptr[i] + len[i] > hi ? ptr[i] + len[i] : hi;
		sum += len[i];
	}
	if (!lo)
		return 0;
	// Together (gaps of alignment only): one registration over the hull.
	if ((size_t)(hi - lo) <= sum + ((size_t)1 << 20)) {
		if (cudaHostRegister(const_cast<char *>(lo), (size_t)(hi - lo), cudaHostRegisterPortable) == cudaSuccess) {
			ret[0] = const_cast<char *>(lo);
			return 1;
		}
		cudaGetLastError();
		return 0;
	}
	int n = 0;
	for (int i = 0; i < 5; i++) {
		if (!len[i])
			continue;
		if (cudaHostRegister(const_cast<char *>(ptr[i]), len[i], cudaHostRegisterPortable) != cudaSuccess) {
			cudaGetLastError();   // this array streams from pageable memory
			continue;
		}
		ret[n++] = const_cast<char *>(ptr[i]);
	}
	return n;
}

void unpin_host_srs(void *const ptrs[5], int n)
{
	for (int i = 0; i < n; i++)
		if (cudaHostUnregister(ptrs[i]) != cudaSuccess)
			cudaGetLastError();
}

} // namespace cuzk
