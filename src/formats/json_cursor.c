// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A strict JSON reader, a token at a time (json_cursor.h).  Bytes of 0x80
 * and above inside strings are taken as they are: the readers compare
 * names, they do not render them. */
#include "formats/json_cursor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "-12.5e-3" and the like: anything longer is no number we write or read. */
#define JSON_NUMBER_MAX 64

static int fail_at(struct json_cursor *c, const char *where, const char *what, cuzk_error *err)
{
	if (c->pos >= c->len)
		return err_fail(err, CUZK_E_FORMAT, "%s: %s: %s, but the file ends at offset %zu", c->name, where,
				what, c->pos);
	return err_fail(err, CUZK_E_FORMAT, "%s: %s: %s at offset %zu", c->name, where, what, c->pos);
}

void json_skip_space(struct json_cursor *c)
{
	while (c->pos < c->len && (c->buf[c->pos] == ' ' || c->buf[c->pos] == '\t' || c->buf[c->pos] == '\n' ||
				   c->buf[c->pos] == '\r'))
		c->pos++;
}

int json_peek(struct json_cursor *c)
{
	json_skip_space(c);
	return c->pos < c->len ? (unsigned char)c->buf[c->pos] : -1;
}

int json_expect(struct json_cursor *c, char ch, const char *where, cuzk_error *err)
{
	char what[24];

	if (json_peek(c) == (unsigned char)ch) {
		c->pos++;
		return 0;
	}
	snprintf(what, sizeof(what), "expected '%c'", ch);
	return fail_at(c, where, what, err);
}

int json_more(struct json_cursor *c, char close, int *first, const char *where, cuzk_error *err)
{
	char what[32];
	int ch = json_peek(c);

	if (ch == (unsigned char)close) {
		c->pos++;
		return 0;
	}
	if (*first && ch >= 0) {
		*first = 0;
		return 1;
	}
	if (ch == ',') {
		c->pos++;
		return 1;
	}
	snprintf(what, sizeof(what), "expected ',' or '%c'", close);
	return fail_at(c, where, what, err);
}

static int hex4(struct json_cursor *c, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++, c->pos++) {
		int ch = c->pos < c->len ? (unsigned char)c->buf[c->pos] : -1;
		int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
			: ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		*v = *v << 4 | (unsigned)d;
	}
	return 0;
}

/* \uXXXX (the 'u' read), a surrogate pair as one code point. */
static int unicode_escape(struct json_cursor *c, unsigned *cp, const char *where, cuzk_error *err)
{
	unsigned lo;

	if (hex4(c, cp) < 0)
		return fail_at(c, where, "\\u needs four hex digits", err);
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return fail_at(c, where, "a low surrogate without its high one", err);
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (c->pos + 2 > c->len || c->buf[c->pos] != '\\' || c->buf[c->pos + 1] != 'u')
		return fail_at(c, where, "a high surrogate without its low one", err);
	c->pos += 2;
	if (hex4(c, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
		return fail_at(c, where, "a high surrogate without its low one", err);
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

struct string_out {
	char *out;
	size_t cap;
	long n;
};

static void put(struct string_out *o, unsigned char b)
{
	if (o->cap && (size_t)o->n < o->cap - 1)
		o->out[o->n] = (char)b;
	o->n++;
}

static void put_utf8(struct string_out *o, unsigned cp)
{
	if (cp < 0x80) {
		put(o, (unsigned char)cp);
	} else if (cp < 0x800) {
		put(o, (unsigned char)(0xc0 | cp >> 6));
		put(o, (unsigned char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		put(o, (unsigned char)(0xe0 | cp >> 12));
		put(o, (unsigned char)(0x80 | (cp >> 6 & 0x3f)));
		put(o, (unsigned char)(0x80 | (cp & 0x3f)));
	} else {
		put(o, (unsigned char)(0xf0 | cp >> 18));
		put(o, (unsigned char)(0x80 | (cp >> 12 & 0x3f)));
		put(o, (unsigned char)(0x80 | (cp >> 6 & 0x3f)));
		put(o, (unsigned char)(0x80 | (cp & 0x3f)));
	}
}

long json_string(struct json_cursor *c, char *out, size_t cap, const char *where, cuzk_error *err)
{
	struct string_out o = { out, cap, 0 };
	int r;

	if ((r = json_expect(c, '"', where, err)) < 0)
		return r;
	for (;;) {
		if (c->pos >= c->len)
			return fail_at(c, where, "an unterminated string", err);
		unsigned char ch = (unsigned char)c->buf[c->pos];
		if (ch == '"')
			break;
		if (ch < 0x20)
			return fail_at(c, where, "a control character inside a string", err);
		c->pos++;
		if (ch != '\\') {
			put(&o, ch);
			continue;
		}
		const char *p = c->pos < c->len ? strchr("\"\\/bfnrtu", c->buf[c->pos]) : NULL;
		if (!p || !*p)
			return fail_at(c, where, "an unknown escape", err);
		c->pos++;
		if (*p == 'u') {
			unsigned cp;
			if ((r = unicode_escape(c, &cp, where, err)) < 0)
				return r;
			put_utf8(&o, cp);
		} else {
			put(&o, (unsigned char)"\"\\/\b\f\n\r\t"[p - "\"\\/bfnrtu"]);
		}
	}
	c->pos++;
	if (cap)
		out[(size_t)o.n < cap ? (size_t)o.n : cap - 1] = '\0';
	return o.n;
}

static size_t digits(struct json_cursor *c)
{
	size_t n = 0;
	while (c->pos < c->len && c->buf[c->pos] >= '0' && c->buf[c->pos] <= '9')
		c->pos++, n++;
	return n;
}

static int at(const struct json_cursor *c, char ch)
{
	return c->pos < c->len && c->buf[c->pos] == ch;
}

int json_number(struct json_cursor *c, double *v, const char *where, cuzk_error *err)
{
	char text[JSON_NUMBER_MAX + 1];
	size_t start;

	json_skip_space(c);
	start = c->pos;
	if (at(c, '-'))
		c->pos++;
	if (at(c, '0'))
		c->pos++;
	else if (digits(c) == 0)
		return fail_at(c, where, "expected a number", err);
	if (at(c, '.')) {
		c->pos++;
		if (digits(c) == 0)
			return fail_at(c, where, "expected digits after '.'", err);
	}
	if (at(c, 'e') || at(c, 'E')) {
		c->pos++;
		if (at(c, '+') || at(c, '-'))
			c->pos++;
		if (digits(c) == 0)
			return fail_at(c, where, "expected an exponent's digits", err);
	}
	if (c->pos - start > JSON_NUMBER_MAX)
		return err_fail(err, CUZK_E_FORMAT, "%s: %s: a number of %zu characters at offset %zu", c->name,
				where, c->pos - start, start);
	memcpy(text, c->buf + start, c->pos - start);
	text[c->pos - start] = '\0';
	*v = strtod(text, NULL);
	if (!isfinite(*v))
		return err_fail(err, CUZK_E_FORMAT, "%s: %s: %s at offset %zu is out of range", c->name, where, text,
				start);
	return 0;
}

static int literal(struct json_cursor *c, const char *word, const char *where, cuzk_error *err)
{
	size_t n = strlen(word);
	if (c->len - c->pos < n || memcmp(c->buf + c->pos, word, n) != 0)
		return fail_at(c, where, "expected a value", err);
	c->pos += n;
	return 0;
}

static int skip_string(struct json_cursor *c, const char *where, cuzk_error *err)
{
	long n = json_string(c, NULL, 0, where, err);
	return n < 0 ? (int)n : 0;
}

static int skip_value(struct json_cursor *c, unsigned depth, const char *where, cuzk_error *err)
{
	int ch = json_peek(c), first = 1, r;
	double ignored;

	if ((ch == '{' || ch == '[') && depth >= JSON_MAX_DEPTH)
		return fail_at(c, where, "a value nested too deep", err);
	switch (ch) {
	case '{':
		c->pos++;
		while ((r = json_more(c, '}', &first, where, err)) > 0)
			if ((r = skip_string(c, where, err)) < 0 || (r = json_expect(c, ':', where, err)) < 0 ||
			    (r = skip_value(c, depth + 1, where, err)) < 0)
				return r;
		return r;
	case '[':
		c->pos++;
		while ((r = json_more(c, ']', &first, where, err)) > 0)
			if ((r = skip_value(c, depth + 1, where, err)) < 0)
				return r;
		return r;
	case '"':
		return skip_string(c, where, err);
	case 't':
		return literal(c, "true", where, err);
	case 'f':
		return literal(c, "false", where, err);
	case 'n':
		return literal(c, "null", where, err);
	default:
		return json_number(c, &ignored, where, err);
	}
}

int json_skip(struct json_cursor *c, const char *where, cuzk_error *err)
{
	return skip_value(c, 0, where, err);
}

int json_end(struct json_cursor *c, cuzk_error *err)
{
	if (json_peek(c) < 0)
		return 0;
	return err_fail(err, CUZK_E_FORMAT, "%s: unexpected bytes after the JSON value at offset %zu", c->name,
			c->pos);
}
