// SPDX-License-Identifier: Apache-2.0 OR MIT
/* libFuzzer target: bellperson params, VK and proof decoding. */
#include <stddef.h>
#include <stdint.h>

#include "formats/params_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cuzk_error err;
	groth16_params p;
	/* Full checks on the first input byte's whim, so both paths run. */
	unsigned checks = size && (data[size - 1] & 1) ? BLS_CHECK_ALL : BLS_CHECK_NONE;
	if (groth16_params_parse_mem(&p, data, size, "fuzz", checks, &err) == 0)
		groth16_params_free(&p);
	groth16_vk vk;
	if (groth16_vk_parse_mem(&vk, data, size, "fuzz", &err) == 0)
		groth16_vk_free(&vk);
	groth16_proof proof;
	if (size >= GROTH16_PROOF_SIZE)
		(void)groth16_proof_decode(&proof, data, GROTH16_PROOF_SIZE, &err);
	return 0;
}
