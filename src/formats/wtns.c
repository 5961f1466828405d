// SPDX-License-Identifier: Apache-2.0 OR MIT
/* circom's .wtns, version 2:
 *   "wtns" u32 version u32 nSections, then sections (u32 type, u64 size, body)
 *   type 1 header: u32 n8, prime (n8 bytes LE), u32 nWitness
 *   type 2 values: nWitness × n8 bytes, little-endian canonical
 * Values come back in Montgomery form. */
#include <stdlib.h>
#include <string.h>

#include "common/first_fail.h"
#include "common/parallel.h"
#include "formats/byte_io.h"
#include "formats/circom_field.h"
#include "formats/r1cs.h"

#define SEC_HEADER 1
#define SEC_VALUES 2

struct convert_ctx {
	const uint8_t *src;
	fr_t *dst;
	first_fail *bad;     /* values >= r */
};

static void convert_range(void *arg, size_t begin, size_t end, unsigned thread)
{
	struct convert_ctx *c = arg;
	for (size_t i = begin; i < end; i++)
		if (fr_from_le_bytes(&c->dst[i], c->src + i * CIRCOM_FIELD_BYTES) < 0) {
			c->bad->at[thread] = i;
			return;
		}
}

int wtns_parse_mem(fr_t **ret_values, size_t *ret_count, const uint8_t *buf, size_t len,
		   const char *name, cuzk_error *err)
{
	byte_reader r = { buf, len, 0, name };
	circom_sections secs;
	int rc = circom_read_sections(&secs, &r, "wtns", 2, SEC_VALUES, err);
	if (rc < 0)
		return rc;
	if (!secs.start[SEC_HEADER])
		return err_fail(err, CUZK_E_FORMAT, "%s: no header section (type 1)", name);
	if (!secs.start[SEC_VALUES])
		return err_fail(err, CUZK_E_FORMAT, "%s: no values section (type 2)", name);
	byte_reader hr = { buf, secs.end[SEC_HEADER], secs.start[SEC_HEADER], name };
	uint32_t n;
	if ((rc = circom_read_field(&hr, "header", err)) < 0 ||
	    (rc = byte_reader_u32le(&hr, &n, "header", "nWitness", err)) < 0)
		return rc;
	uint64_t want = (uint64_t)n * CIRCOM_FIELD_BYTES;
	uint64_t have = secs.end[SEC_VALUES] - secs.start[SEC_VALUES];
	if (want != have)
		return err_fail(err, CUZK_E_FORMAT,
				"%s: section values at offset %llu: nWitness %u needs %llu bytes, the section has %llu",
				name, (unsigned long long)secs.start[SEC_VALUES], n, (unsigned long long)want,
				(unsigned long long)have);
	if (n == 0)
		return err_fail(err, CUZK_E_FORMAT, "%s: nWitness is 0 (the constant 1 is missing)", name);

	fr_t *values = malloc((size_t)n * sizeof(*values));
	first_fail ff;
	if (!values || first_fail_init(&ff) < 0) {
		free(values);
		return err_fail(err, CUZK_E_NOMEM, "%s: out of memory for %u values", name, n);
	}
	struct convert_ctx ctx = { buf + secs.start[SEC_VALUES], values, &ff };
	parallel_for(n, 1u << 14, ff.nthreads, convert_range, &ctx);
	size_t bad = first_fail_finish(&ff);
	if (bad != FIRST_FAIL_NONE) {
		free(values);
		return err_fail(err, CUZK_E_NONCANONICAL, "%s: section values: value %zu at offset %llu is >= r",
				name, bad,
				(unsigned long long)(secs.start[SEC_VALUES] + bad * CIRCOM_FIELD_BYTES));
	}
	*ret_values = values;
	*ret_count = n;
	return 0;
}

int wtns_read(fr_t **ret_values, size_t *ret_count, const char *path, cuzk_error *err)
{
	file_map m;
	int rc = file_map_open(&m, path, err);
	if (rc < 0)
		return rc;
	rc = wtns_parse_mem(ret_values, ret_count, m.buf, m.len, path, err);
	file_map_close(&m);
	return rc;
}

int wtns_write(const fr_t *values, size_t count, const char *path, cuzk_error *err)
{
	if (count == 0 || count > UINT32_MAX)
		return err_fail(err, CUZK_E_INVAL, "%s: %zu values do not fit circom's 32-bit count", path,
				count);
	byte_writer w;
	int rc = byte_writer_open(&w, path, err);
	if (rc < 0)
		return rc;
	uint8_t prime[CIRCOM_FIELD_BYTES];
	circom_field_prime(prime);
	byte_writer_put(&w, "wtns", 4);
	byte_writer_u32le(&w, 2);
	byte_writer_u32le(&w, 2);
	byte_writer_u32le(&w, SEC_HEADER);
	byte_writer_u64le(&w, 4 + CIRCOM_FIELD_BYTES + 4);
	byte_writer_u32le(&w, CIRCOM_FIELD_BYTES);
	byte_writer_put(&w, prime, sizeof(prime));
	byte_writer_u32le(&w, (uint32_t)count);
	byte_writer_u32le(&w, SEC_VALUES);
	byte_writer_u64le(&w, (uint64_t)count * CIRCOM_FIELD_BYTES);
	for (size_t i = 0; i < count; i++) {
		uint8_t le[CIRCOM_FIELD_BYTES];
		fr_to_le_bytes(le, &values[i]);
		byte_writer_put(&w, le, sizeof(le));
	}
	return byte_writer_close(&w, err);
}
