// SPDX-License-Identifier: Apache-2.0 OR MIT
// The radix-8 NTT kernels with 2^10-element tiles, 3 blocks per SM (ntt/ntt8_kernel.cuh).
#include "ntt/ntt8_kernel.cuh"

namespace cuzk {
CUZK_NTT8_SHAPE(10, 3)
}
