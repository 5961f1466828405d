// SPDX-License-Identifier: Apache-2.0 OR MIT
/* libFuzzer target: the witness file header parser (what cuzkd runs on
 * every client buffer). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "abi/witness_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct witness_desc d;
	cuzk_error err;
	if (witness_parse(&d, data, size, "fuzz", &err) != 0)
		return 0;
	/* Whatever passed must describe sections inside the buffer: touch the
	 * first and last byte of each so ASan sees any lie. */
	volatile uint8_t sink = 0;
	for (uint32_t p = 0; p < d.hdr.num_partitions; p++)
		for (int s = 0; s < CUZK_SEC__COUNT; s++)
			if (d.len[s]) {
				sink ^= data[d.part[p].offset[s]];
				sink ^= data[d.part[p].offset[s] + d.len[s] - 1];
			}
	(void)sink;
	return 0;
}
