// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Witness views over memory another process may still write (a client's
 * memfd, groth16_witness_view.density_shared): what a backend reads more
 * than once, it first copies where nobody else can write. */
#ifndef CUZK_PROVER_SHARED_VIEW_H
#define CUZK_PROVER_SHARED_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "prover/types.h"

/* Words the three density bitmaps of v take, one after another. */
size_t groth16_view_density_words(const groth16_witness_view *v);

/* Copies the three density bitmaps of v to dst (groth16_view_density_words
 * words: a_aux, b_aux, b_input) and points v at them there. */
void groth16_view_move_densities(groth16_witness_view *v, uint64_t *dst);

/* Copies the three density bitmaps of v into one allocation and points v at
 * it (density_shared becomes 0).  *ret_copy: free() it after the proof.
 * -CUZK_E_NOMEM. */
int groth16_view_copy_densities(groth16_witness_view *v, uint64_t **ret_copy, cuzk_error *err);

#endif
