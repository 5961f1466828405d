// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The optimal ate pairing on BLS12-381 (x = -0xd201000000010000). */
#ifndef CUZK_BLS_PAIRING_H
#define CUZK_BLS_PAIRING_H

#include <stddef.h>

#include "bls12_381/fp12.h"
#include "bls12_381/g1.h"
#include "bls12_381/g2.h"

/* f = prod_i MillerLoop(p[i], q[i]); pairs with an infinity point contribute 1. */
void bls_miller_loop(fp12_t *f, const g1_aff_t *p, const g2_aff_t *q, size_t n);
void bls_final_exp(fp12_t *r, const fp12_t *f);
/* e(p, q) = final_exp(miller_loop(p, q)). */
void bls_pairing(fp12_t *r, const g1_aff_t *p, const g2_aff_t *q);
/* 1 iff prod_i e(p[i], q[i]) = 1, with a single final exponentiation. */
int bls_pairing_product_is_one(const g1_aff_t *p, const g2_aff_t *q, size_t n);

#endif
