// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The JSON reader: strings and their escapes, numbers, values skipped
 * whole, and a refusal naming the offset for every kind of bad text. */
#include <string.h>

#include "formats/json_cursor.h"
#include "tests/check.h"

static struct json_cursor cur(const char *text)
{
	return (struct json_cursor){ text, strlen(text), 0, "t.json" };
}

/* The text must be one value that json_skip refuses with needle in the message. */
static void expect_skip_fails(const char *text, const char *needle)
{
	struct json_cursor c = cur(text);
	cuzk_error err = { 0 };
	int r = json_skip(&c, "v", &err);
	CHECK_MSG(r == -CUZK_E_FORMAT && strstr(err.msg, needle) && strstr(err.msg, "t.json: v: "),
		  "'%s': %d '%s', wanted '%s'", text, r, err.msg, needle);
}

static void expect_skips(const char *text)
{
	struct json_cursor c = cur(text);
	cuzk_error err = { 0 };
	CHECK_MSG(json_skip(&c, "v", &err) == 0 && json_end(&c, &err) == 0, "'%s': %s", text, err.msg);
}

int main(void)
{
	cuzk_error err = { 0 };
	char out[16];
	double v;

	/* Escapes, a surrogate pair as one 4-byte character, and the whole
	 * length told though only cap - 1 bytes are kept. */
	struct json_cursor c = cur(" \"a\\\"b\\\\\\/\\n\\u00e9\\ud83d\\ude00\" ");
	CHECK(json_string(&c, out, sizeof(out), "s", &err) == 12);
	CHECK(memcmp(out, "a\"b\\/\n\xc3\xa9\xf0\x9f\x98\x80", 13) == 0);
	c = cur("\"0123456789abcdefXYZ\"");
	CHECK(json_string(&c, out, 8, "s", &err) == 19 && strcmp(out, "0123456") == 0 && json_end(&c, &err) == 0);
	c = cur("\"\"");
	CHECK(json_string(&c, out, sizeof(out), "s", &err) == 0 && out[0] == '\0');

	/* Numbers in JSON's grammar. */
	const char *good[] = { "0", "-0", "12", "-3.25", "1e3", "2E-2", "1.5e+2", "5e-324" };
	const double want[] = { 0, 0, 12, -3.25, 1000, 0.02, 150, 5e-324 };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		c = cur(good[i]);
		CHECK_MSG(json_number(&c, &v, "n", &err) == 0 && v == want[i] && c.pos == strlen(good[i]), "%s",
			  good[i]);
	}
	const char *bad[] = { "-", "+1", ".5", "1.", "1e", "1e+", "x", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = cur(bad[i]);
		CHECK_MSG(json_number(&c, &v, "n", &err) == -CUZK_E_FORMAT, "'%s' taken", bad[i]);
	}
	c = cur("1e999");
	CHECK(json_number(&c, &v, "n", &err) == -CUZK_E_FORMAT && strstr(err.msg, "out of range"));
	/* "01" is a 0 followed by a stray 1. */
	c = cur("01");
	CHECK(json_number(&c, &v, "n", &err) == 0 && v == 0 && json_end(&c, &err) == -CUZK_E_FORMAT &&
	      strstr(err.msg, "offset 1"));

	/* Members, and the ',' between them. */
	c = cur("[1, 2 ,3]");
	int first = 1, n = 0;
	CHECK(json_expect(&c, '[', "a", &err) == 0);
	while (json_more(&c, ']', &first, "a", &err) > 0 && json_number(&c, &v, "a", &err) == 0)
		n += (int)v;
	CHECK(n == 6 && json_end(&c, &err) == 0);

	expect_skips("{\"a\": [1, {\"b\": null}, true, false, \"x\"], \"c\": {}}");
	expect_skips(" [] ");
	expect_skips("-2.5e3");
	expect_skip_fails("[1,]", "expected a number at offset 3");
	expect_skip_fails("[1 2]", "expected ',' or ']' at offset 3");
	expect_skip_fails("{\"a\" 1}", "expected ':' at offset 5");
	expect_skip_fails("{1: 2}", "expected '\"' at offset 1");
	expect_skip_fails("[1, 2", "the file ends at offset 5");
	expect_skip_fails("\"abc", "an unterminated string");
	expect_skip_fails("\"a\nb\"", "a control character inside a string at offset 2");
	expect_skip_fails("\"\\x\"", "an unknown escape at offset 2");
	expect_skip_fails("\"\\u12g4\"", "\\u needs four hex digits");
	expect_skip_fails("\"\\udc00\"", "a low surrogate without its high one");
	expect_skip_fails("\"\\ud800x\"", "a high surrogate without its low one");
	expect_skip_fails("\"\\ud800\\u0041\"", "a high surrogate without its low one");
	expect_skip_fails("tru", "expected a value");
	expect_skip_fails("nul", "expected a value");
	/* Deep nesting is refused, not recursed into without end. */
	char deep[2 * JSON_MAX_DEPTH + 8];
	memset(deep, '[', JSON_MAX_DEPTH + 1);
	memset(deep + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
	deep[2 * JSON_MAX_DEPTH + 2] = '\0';
	expect_skip_fails(deep, "nested too deep");
	deep[JSON_MAX_DEPTH] = ' ';
	deep[JSON_MAX_DEPTH + 1] = ' ';
	expect_skips(deep);
	CHECK_DONE();
}
