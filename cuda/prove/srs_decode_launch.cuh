// SPDX-License-Identifier: Apache-2.0 OR MIT
// The parameter file's uncompressed points decoded on the device
// (prove/srs_decode.cu), for the loader: the file's bytes go up as read and
// the decoding (big-endian to Montgomery limbs, flags, canonical
// coordinates, the curve) runs where the points will stay.  Apart from
// srs_decode.cuh so that host code can call it with only the CUDA runtime's
// header.
#ifndef CUZK_CUDA_PROVE_SRS_DECODE_LAUNCH_CUH
#define CUZK_CUDA_PROVE_SRS_DECODE_LAUNCH_CUH

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace cuzk {

// n points of the file's uncompressed encoding at raw (device memory, 96 or
// 192 bytes each, point i at raw + i * 96 or 192) into out (device memory,
// the host's g1_aff_t / g2_aff_t layout), checking flags, canonical
// coordinates and, when curve, the curve equation: what g1_decode /
// g2_decode accept at BLS_CHECK_CURVE (curve) or BLS_CHECK_NONE, with their
// bytes.  *bad (device memory) is lowered (atomicMin) to the index of every
// point that fails, so it ends at the lowest; the caller sets it to ~0ull
// first.  A failed point's slot in out holds infinity (all-zero).
// raw and out must be 16-byte aligned (cudaMalloc's are); n may be 0.
// Asynchronous on stream s; a misaligned buffer or a failed launch throws
// gpu_error (util/check.cuh), as the other launchers in cuda/ do.
void srs_decode_g1(const uint8_t *raw, void *out, size_t n, bool curve, unsigned long long *bad, cudaStream_t s);
void srs_decode_g2(const uint8_t *raw, void *out, size_t n, bool curve, unsigned long long *bad, cudaStream_t s);

} // namespace cuzk

#endif
