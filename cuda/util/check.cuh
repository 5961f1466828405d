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
	int code;              // positive CUZK_E_* value (enum cuzk_status)
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
	gpu_fail(e == cudaErrorMemoryAllocation ? CUZK_E_VRAM : CUZK_E_GPU, "%s: %s (%s:%d)",
		 what, cudaGetErrorString(e), file, line);
}

// Fills *err (may be null) as err_fail does on the host: code and message.
inline int gpu_error_to(cuzk_error *err, int code, const char *msg) noexcept
{
	if (err) {
		err->code = code;
		snprintf(err->msg, sizeof err->msg, "%s", msg);
	}
	return -code;
}

// Runs an entry point's body and turns a gpu_error (or an allocation failure)
// into the C convention of include/cuzk.h: 0, or -code with *err filled.
template <typename F> int gpu_entry(cuzk_error *err, F &&body) noexcept
{
	try {
		body();
		return 0;
	} catch (const gpu_error &e) {
		return gpu_error_to(err, e.code, e.msg.c_str());
	} catch (const std::bad_alloc &) {
		return gpu_error_to(err, CUZK_E_NOMEM, "out of host memory");
	} catch (...) {
		return gpu_error_to(err, CUZK_E_INTERNAL, "unexpected C++ exception in the GPU backend");
	}
}

} // namespace cuzk

// Every CUDA runtime call goes through CUDA_OK; every launch is followed by
// CUDA_LAUNCHED(name) so that a bad configuration is reported where it happened.
#define CUDA_OK(call)                                                                   \
	do {                                                                            \
		cudaError_t cuda_e_ = (call);                                           \
		if (cuda_e_ != cudaSuccess)                                             \
			::cuzk::cuda_fail(cuda_e_, #call, __FILE__, __LINE__);          \
	} while (0)

#define CUDA_LAUNCHED(name)                                                             \
	do {                                                                            \
		cudaError_t cuda_e_ = cudaGetLastError();                               \
		if (cuda_e_ != cudaSuccess)                                             \
			::cuzk::cuda_fail(cuda_e_, "launch of " name, __FILE__, __LINE__); \
	} while (0)

#endif
