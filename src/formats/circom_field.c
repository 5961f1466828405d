// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "formats/circom_field.h"

#include <string.h>

#include "bls12_381/fr.h"
#include "common/file_kind.h"

void circom_field_prime(uint8_t out[CIRCOM_FIELD_BYTES])
{
	for (unsigned i = 0; i < CIRCOM_FIELD_BYTES; i++)
		out[i] = (uint8_t)(FR_MODULUS[i / 8] >> (8 * (i % 8)));
}

int circom_read_field(byte_reader *r, const char *section, cuzk_error *err)
{
	uint32_t n8;
	size_t at = r->pos;
	int rc = byte_reader_u32le(r, &n8, section, "field size", err);
	if (rc < 0)
		return rc;
	if (n8 != CIRCOM_FIELD_BYTES)
		return err_fail(err, CUZK_E_UNSUPPORTED,
				"%s: section %s: field size %u at offset %zu: only BLS12-381's 32-byte r is "
				"supported (compile with circom --prime bls12381)",
				r->name, section, n8, at);
	rc = byte_reader_need(r, CIRCOM_FIELD_BYTES, section, "prime", err);
	if (rc < 0)
		return rc;
	uint8_t want[CIRCOM_FIELD_BYTES];
	circom_field_prime(want);
	if (memcmp(r->buf + r->pos, want, sizeof(want)) != 0)
		return err_fail(err, CUZK_E_UNSUPPORTED,
				"%s: section %s: the prime at offset %zu is not BLS12-381's r "
				"(compile with circom --prime bls12381)",
				r->name, section, r->pos);
	r->pos += CIRCOM_FIELD_BYTES;
	return 0;
}

int circom_read_sections(circom_sections *ret, byte_reader *r, const char magic[4], uint32_t version,
			 unsigned max_type, cuzk_error *err)
{
	circom_sections s;
	memset(&s, 0, sizeof(s));
	int rc = byte_reader_need(r, 4, "file header", "magic", err);
	if (rc < 0)
		return rc;
	if (memcmp(r->buf, magic, 4) != 0) {
		const struct file_kind *want = file_kind_of(magic, 4);
		if (want && (rc = file_kind_reject(r->buf, r->len, r->name, want->what, err)) < 0)
			return rc;
		return err_fail(err, CUZK_E_FORMAT, "%s: bad magic at offset 0 (not a circom .%.4s file)",
				r->name, magic);
	}
	r->pos = 4;
	uint32_t ver, nsec;
	if ((rc = byte_reader_u32le(r, &ver, "file header", "version", err)) < 0)
		return rc;
	if (ver != version)
		return err_fail(err, CUZK_E_VERSION, "%s: version %u at offset 4, expected %u", r->name, ver,
				version);
	if ((rc = byte_reader_u32le(r, &nsec, "file header", "section count", err)) < 0)
		return rc;
	for (uint32_t i = 0; i < nsec; i++) {
		uint32_t type;
		uint64_t size;
		if ((rc = byte_reader_u32le(r, &type, "section table", "section type", err)) < 0 ||
		    (rc = byte_reader_u64le(r, &size, "section table", "section size", err)) < 0)
			return rc;
		if ((rc = byte_reader_need(r, size, "section table", "section body", err)) < 0)
			return rc;
		if (type >= 1 && type <= max_type) {
			if (s.start[type])
				return err_fail(err, CUZK_E_FORMAT, "%s: section type %u repeated at offset %zu",
						r->name, type, r->pos - 12);
			s.start[type] = r->pos;
			s.end[type] = r->pos + size;
		}
		r->pos += (size_t)size;
	}
	*ret = s;
	return 0;
}
