// SPDX-License-Identifier: Apache-2.0 OR MIT
/* libFuzzer target: circom .wtns import and snarkjs public.json. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "formats/public_json.h"
#include "formats/r1cs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cuzk_error err;
	fr_t *values;
	size_t n;
	if (wtns_parse_mem(&values, &n, data, size, "fuzz", &err) == 0)
		free(values);
	if (public_json_parse_mem(&values, &n, (const char *)data, size, "fuzz", &err) == 0)
		free(values);
	return 0;
}
