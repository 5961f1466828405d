// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The BLS12-381 curve parameter x = -0xd201000000010000: p, r, the Miller
 * loop, the final exponentiation and the subgroup tests all derive from it.
 * Internal to src/bls12_381. */
#ifndef CUZK_BLS_CURVE_PARAM_H
#define CUZK_BLS_CURVE_PARAM_H

/* |x|; x itself is negative */
#define BLS_X_ABS 0xd201000000010000ULL

#endif
