// SPDX-License-Identifier: Apache-2.0 OR MIT
// Checked CUDA calls.  Inside cuda/ failures travel as gpu_error exceptions;
// every extern "C" entry point catches them and returns -code with the
// message, so no exception crosses the C boundary.
#ifndef CUZK_CUDA_UTIL_CHECK_CUH
#define CUZK_CUDA_UTIL_CHECK_CUH

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include <cuda_runtime.h>

#include "cuzk_gpu.h"

namespace cuzk {

struct gpu_error {
	int code;              // positive CUZK_GPU_E_* value
	std::string msg;
};

[[noreturn]] inline void gpu_fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

[[noreturn]] inline void gpu_fail(int code, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	throw gpu_error{code, buf};
}

[[noreturn]] inline void cuda_fail(cudaError_t e, const char *what, const char *file, int line)
{
	gpu_fail(e == cudaErrorMemoryAllocation ? CUZK_GPU_E_VRAM : CUZK_GPU_E_GPU, "%s: %s (%s:%d)",
		 what, cudaGetErrorString(e), file, line);
}

// Runs an entry point's body and turns a gpu_error (or an allocation failure)
// into the C convention: 0 or -code, message in err.
template <typename F> int gpu_entry(char *err, size_t errlen, F &&body) noexcept
{
	try {
		body();
		return 0;
	} catch (const gpu_error &e) {
		if (err && errlen)
			snprintf(err, errlen, "%s", e.msg.c_str());
		return -e.code;
	} catch (const std::bad_alloc &) {
		if (err && errlen)
			snprintf(err, errlen, "out of host memory");
		return -CUZK_GPU_E_NOMEM;
	} catch (...) {
		if (err && errlen)
			snprintf(err, errlen, "unexpected C++ exception in the GPU backend");
		return -CUZK_GPU_E_GPU;
	}
}

} // namespace cuzk

// Every CUDA runtime call goes through CUDA_OK; every launch is followed by
// CUDA_LAUNCHED(name) so that a bad configuration is reported where it happened.
#define CUDA_OK(call)                                                                   \
	do {                                                                            \
		cudaError_t cuzk_e_ = (call);                                           \
		if (cuzk_e_ != cudaSuccess)                                             \
			::cuzk::cuda_fail(cuzk_e_, #call, __FILE__, __LINE__);          \
	} while (0)

#define CUDA_LAUNCHED(name)                                                             \
	do {                                                                            \
		cudaError_t cuzk_e_ = cudaGetLastError();                               \
		if (cuzk_e_ != cudaSuccess)                                             \
			::cuzk::cuda_fail(cuzk_e_, "launch of " name, __FILE__, __LINE__); \
	} while (0)

#endif
