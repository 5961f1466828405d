// SPDX-License-Identifier: Apache-2.0 OR MIT
// The radix-8 NTT kernels with 2^11-element tiles, 2 blocks per SM (ntt/ntt8_kernel.cuh).
#include "ntt/ntt8_kernel.cuh"

namespace cuzk {
CUZK_NTT8_SHAPE(11, 2)
}
