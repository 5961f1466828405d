// SPDX-License-Identifier: Apache-2.0 OR MIT
/* snarkjs public.json: strict reader and writer (public_json.h).
 * Accepted: optional white space, '[', zero or more strings of decimal
 * digits without leading zeros separated by ',', ']', white space. */
#include "formats/public_json.h"

#include <stdlib.h>
#include <string.h>

#include "formats/byte_io.h"
#include "formats/json_cursor.h"

/* r has 77 decimal digits; anything longer is out of range anyway. */
#define MAX_DIGITS 78

/* One "digits" string into *v. */
static int parse_value(struct json_cursor *c, size_t index, fr_t *v, cuzk_error *err)
{
	char where[64];
	snprintf(where, sizeof(where), "element %zu", index);
	int rc = json_expect(c, '"', where, err);
	if (rc < 0)
		return rc;
	size_t start = c->pos;
	while (c->pos < c->len && c->buf[c->pos] >= '0' && c->buf[c->pos] <= '9')
		c->pos++;
	size_t n = c->pos - start;
	if (c->pos >= c->len || c->buf[c->pos] != '"')
		return err_fail(err, CUZK_E_FORMAT,
				"%s: element %zu at offset %zu: only a string of decimal digits is allowed",
				c->name, index, start);
	if (n == 0 || n > MAX_DIGITS || (n > 1 && c->buf[start] == '0'))
		return err_fail(err, CUZK_E_FORMAT,
				"%s: element %zu at offset %zu: '%.*s' is not a canonical decimal number",
				c->name, index, start, (int)(n > MAX_DIGITS ? MAX_DIGITS : n), c->buf + start);
	char digits[MAX_DIGITS + 1];
	memcpy(digits, c->buf + start, n);
	digits[n] = '\0';
	c->pos++;
	rc = fr_from_decimal(v, digits);
	if (rc < 0)
		return err_fail(err, -rc, "%s: element %zu at offset %zu: %s is not below the field order r",
				c->name, index, start, digits);
	return 0;
}

int public_json_parse_mem(fr_t **ret, size_t *ret_n, const char *buf, size_t len, const char *name,
			  cuzk_error *err)
{
	struct json_cursor c = { buf, len, 0, name };
	int rc = json_expect(&c, '[', "the array", err);
	if (rc < 0)
		return rc;
	/* Every element takes at least 3 bytes ("0",), which bounds the count. */
	size_t cap = len / 3 + 1, n = 0;
	fr_t *values = malloc(cap * sizeof(*values));
	if (!values)
		return err_fail(err, CUZK_E_NOMEM, "%s: out of memory", name);
	json_skip_space(&c);
	if (c.pos < c.len && c.buf[c.pos] == ']') {
		c.pos++;
	} else {
		for (;;) {
			if ((rc = parse_value(&c, n, &values[n], err)) < 0)
				goto fail;
			n++;
			json_skip_space(&c);
			if (c.pos < c.len && c.buf[c.pos] == ',') {
				c.pos++;
				continue;
			}
			if ((rc = json_expect(&c, ']', "the array", err)) < 0)
				goto fail;
			break;
		}
	}
	json_skip_space(&c);
	if (c.pos != c.len) {
		rc = err_fail(err, CUZK_E_FORMAT, "%s: unexpected bytes after the array at offset %zu", name,
			      c.pos);
		goto fail;
	}
	if (n == 0) {
		free(values);
		values = NULL;
	}
	*ret = values;
	*ret_n = n;
	return 0;
fail:
	free(values);
	return rc;
}

int public_json_read(fr_t **ret, size_t *ret_n, const char *path, cuzk_error *err)
{
	file_map m;
	int rc = file_map_open(&m, path, err);
	if (rc < 0)
		return rc;
	rc = public_json_parse_mem(ret, ret_n, (const char *)m.buf, m.len, path, err);
	file_map_close(&m);
	return rc;
}

int public_json_write(const fr_t *values, size_t n, const char *path, cuzk_error *err)
{
	byte_writer w;
	int rc = byte_writer_open(&w, path, err);
	if (rc < 0)
		return rc;
	byte_writer_put(&w, "[", 1);
	for (size_t i = 0; i < n; i++) {
		char dec[96];
		fr_to_decimal(dec, sizeof(dec), &values[i]);
		byte_writer_put(&w, i ? ",\n \"" : "\n \"", i ? 4 : 3);
		byte_writer_put(&w, dec, strlen(dec));
		byte_writer_put(&w, "\"", 1);
	}
	byte_writer_put(&w, n ? "\n]\n" : "]\n", n ? 3 : 2);
	return byte_writer_close(&w, err);
}
