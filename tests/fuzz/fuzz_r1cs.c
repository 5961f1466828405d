// SPDX-License-Identifier: Apache-2.0 OR MIT
/* libFuzzer target: circom .r1cs import. */
#include <stddef.h>
#include <stdint.h>

#include "formats/r1cs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cuzk_error err;
	r1cs cs;
	if (r1cs_parse_circom_mem(&cs, data, size, "fuzz", &err) != 0)
		return 0;
	/* Every term the parser accepted must index a variable that exists. */
	const r1cs_matrix *m[3] = { &cs.a, &cs.b, &cs.c };
	for (int i = 0; i < 3; i++)
		for (size_t t = 0; t < m[i]->off[cs.num_constraints]; t++)
			if (m[i]->terms[t].var >= cs.num_inputs + cs.num_aux)
				__builtin_trap();
	r1cs_free(&cs);
	return 0;
}
