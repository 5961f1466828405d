// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Private copies of shared witness memory (see shared_view.h). */
#include "prover/shared_view.h"

#include <stdlib.h>
#include <string.h>

size_t groth16_view_density_words(const groth16_witness_view *v)
{
	return 2 * ((v->num_aux + 63) / 64) + (v->num_inputs + 63) / 64;
}

void groth16_view_move_densities(groth16_witness_view *v, uint64_t *dst)
{
	const size_t aux_words = (v->num_aux + 63) / 64, in_words = (v->num_inputs + 63) / 64;
	memcpy(dst, v->a_aux_density, aux_words * sizeof(uint64_t));
	memcpy(dst + aux_words, v->b_aux_density, aux_words * sizeof(uint64_t));
	memcpy(dst + 2 * aux_words, v->b_input_density, in_words * sizeof(uint64_t));
	v->a_aux_density = dst;
	v->b_aux_density = dst + aux_words;
	v->b_input_density = dst + 2 * aux_words;
}

int groth16_view_copy_densities(groth16_witness_view *v, uint64_t **ret_copy, cuzk_error *err)
{
	const size_t words = groth16_view_density_words(v);
	uint64_t *copy = malloc((words ? words : 1) * sizeof(uint64_t));

	*ret_copy = NULL;
	if (!copy)
		return err_fail(err, CUZK_E_NOMEM, "out of memory copying the density bitmaps (%zu bytes)",
				words * sizeof(uint64_t));
	groth16_view_move_densities(v, copy);
	v->density_shared = 0;
	*ret_copy = copy;
	return 0;
}
