// SPDX-License-Identifier: Apache-2.0 OR MIT
// The SRS on its way from host memory: uploads through pinned staging
// buffers (a resident SRS), and page-locking of the host arrays (a streamed
// SRS, whose batches are then true asynchronous DMA that runs beside the
// MSMs instead of a staged copy that holds the host thread).
#ifndef CUZK_CUDA_PROVE_SRS_HOST_CUH
#define CUZK_CUDA_PROVE_SRS_HOST_CUH

#include <cstddef>

#include "cuzk_gpu.h"
#include "util/gpu_t.cuh"

namespace cuzk {

// Host -> device copies through STAGING_BUFFERS pinned chunks: the host
// fills chunk k (memcpy on STAGING_THREADS threads) while the copy engine
// drains the chunks before it.  $CUZK_GPU_SRS_STAGING=0 falls back to plain
// cudaMemcpy from pageable memory (to compare the two).
class staged_uploader {
public:
	staged_uploader();
	staged_uploader(const staged_uploader &) = delete;
	staged_uploader &operator=(const staged_uploader &) = delete;
	void copy(void *dst, const void *src, size_t bytes);
	void finish();   // every copy issued so far has landed

private:
	static constexpr int BUFFERS = 3;
	bool direct_;
	pinned_mem buf_[BUFFERS];
	event_t done_[BUFFERS];
	stream_t s_;
	size_t k_ = 0;
};

// Page-locks the host arrays of p: one registration over their hull when
// they lie together (parameters from groth16_params_alloc), else one per
// array.  Returns the registered ranges' count (0 when none could be
// registered: streaming then stays correct, only slower); the pointers go
// into ret[0..5).  $CUZK_GPU_PIN_SRS=0 turns it off.
int pin_host_srs(const cuzk_gpu_srs *p, void *ret[5]);
void unpin_host_srs(void *const ptrs[5], int n);

} // namespace cuzk

#endif
