// SPDX-License-Identifier: Apache-2.0 OR MIT
// Where the field, curve and scalar code runs: under nvcc on both sides
// (__host__ __device__, always inlined), under a plain C++ compiler (the host
// twin test) as ordinary inline code.  Full unrolling keeps limb arrays in
// registers on the device; the host does without.
#ifndef CUZK_CUDA_FF_HD_CUH
#define CUZK_CUDA_FF_HD_CUH

#ifdef __CUDACC__
#define CUZK_HD __host__ __device__ __forceinline__
#else
#define CUZK_HD inline
#endif

#ifdef __CUDA_ARCH__
#define CUZK_UNROLL _Pragma("unroll")
#else
#define CUZK_UNROLL
#endif

#endif
