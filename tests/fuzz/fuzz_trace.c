// SPDX-License-Identifier: Apache-2.0 OR MIT
/* libFuzzer target: a timeline read back (groth16_trace_merge_json, on the
 * JSON cursor) and, when it reads, written again with its rows: the input
 * is what cuzkd writes into a client's memfd, read by `cuzk submit`. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/trace_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	groth16_trace *t;
	cuzk_error err;
	double origin;

	if (groth16_trace_new(&t, "fuzz", &err) < 0)
		return 0;
	if (groth16_trace_merge_json(t, (const char *)data, size, "fuzz", &origin, &err) == 0) {
		FILE *f = fopen("/dev/null", "w");
		groth16_trace_set_origin(t, origin);
		if (f) {
			groth16_trace_write_stream(t, f, "/dev/null", &err);
			fclose(f);
		}
	}
	groth16_trace_free(t);
	return 0;
}
