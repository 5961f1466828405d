// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Test helper: join_witness OUT IN... writes one witness file whose
 * partition i is the (single) partition of the i-th input file, so that the
 * tests can prove and verify several partitions at once (several witnesses
 * of one circuit, as a PoRep's ten partitions are). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/witness_file.h"

static int join(const char *out, char **in, unsigned n, cuzk_error *err)
{
	groth16_witness_map m[CUZK_WITNESS_MAX_PARTITIONS];
	unsigned opened = 0;
	uint8_t *buf = NULL;
	int r = 0;
	for (; opened < n; opened++)
		if ((r = groth16_witness_file_open(&m[opened], in[opened], err)) < 0)
			goto out;
	const struct witness_header *h = &m[0].desc.hdr;
	for (unsigned i = 1; i < n; i++) {
		const struct witness_header *hi = &m[i].desc.hdr;
		if (hi->num_constraints != h->num_constraints || hi->num_inputs != h->num_inputs ||
		    hi->num_aux != h->num_aux || hi->flags != h->flags) {
			r = err_fail(err, CUZK_E_MISMATCH, "%s: not the shape of %s", in[i], in[0]);
			goto out;
		}
	}
	struct witness_desc d;
	if ((r = witness_layout(&d, h->num_constraints, h->num_inputs, h->num_aux, n, h->flags, err)) < 0)
		goto out;
	if (!(buf = calloc(1, d.file_size))) {
		r = err_fail(err, CUZK_E_NOMEM, "%s: %llu bytes", out, (unsigned long long)d.file_size);
		goto out;
	}
	witness_write_header(buf, &d);
	for (unsigned p = 0; p < n; p++)
		for (int s = 0; s < CUZK_SEC__COUNT; s++)
			memcpy(buf + d.part[p].offset[s], groth16_witness_file_section(&m[p], 0, s), d.len[s]);
	FILE *f = fopen(out, "wb");
	if (!f) {
		r = err_fail(err, CUZK_E_IO, "%s: cannot create", out);
		goto out;
	}
	int bad = fwrite(buf, 1, d.file_size, f) != d.file_size;
	if (fclose(f) != 0 || bad)
		r = err_fail(err, CUZK_E_IO, "%s: cannot write", out);
out:
	free(buf);
	for (unsigned i = 0; i < opened; i++)
		groth16_witness_file_close(&m[i], NULL);
	return r;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc - 2 > (int)CUZK_WITNESS_MAX_PARTITIONS) {
		fprintf(stderr, "usage: join_witness OUT IN... (1 to %u inputs)\n", CUZK_WITNESS_MAX_PARTITIONS);
		return 2;
	}
	cuzk_error err = { 0, "" };
	if (join(argv[1], argv + 2, (unsigned)(argc - 2), &err) < 0) {
		fprintf(stderr, "join_witness: %s\n", err.msg);
		return 1;
	}
	return 0;
}
