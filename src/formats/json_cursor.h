// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A strict reader of JSON text in memory (RFC 8259), a token at a time: the
 * readers of snarkjs's public.json and of trace-event timelines walk their
 * own shapes with it and skip what they do not know.  Every error is
 * CUZK_E_FORMAT with the source's name, what was being read and the byte
 * offset. */
#ifndef CUZK_FORMATS_JSON_CURSOR_H
#define CUZK_FORMATS_JSON_CURSOR_H

#include <stddef.h>

#include "common/error.h"

/* A value nested deeper than this is refused (json_skip recurses). */
#define JSON_MAX_DEPTH 32

struct json_cursor {
	const char *buf;
	size_t len, pos;
	const char *name;      /* the file, "the trace fd": what errors name */
};

void json_skip_space(struct json_cursor *c);
/* The next byte after white space, or -1 at the end of the text. */
int json_peek(struct json_cursor *c);
/* The byte ch after white space; where says what was being read. */
int json_expect(struct json_cursor *c, char ch, const char *where, cuzk_error *err);
/* Inside an object or array that closes with close (} or ]): 1 when another
 * member follows (the ',' between them read), 0 when close was read.
 * *first is 1 before the first member and is cleared. */
int json_more(struct json_cursor *c, char close, int *first, const char *where, cuzk_error *err);
/* A string, unescaped into out (UTF-8, NUL-terminated), of which at most
 * cap - 1 bytes are kept; returns its whole length, which may be more. */
long json_string(struct json_cursor *c, char *out, size_t cap, const char *where, cuzk_error *err);
/* A number into *v. */
int json_number(struct json_cursor *c, double *v, const char *where, cuzk_error *err);
/* Any value, read and dropped. */
int json_skip(struct json_cursor *c, const char *where, cuzk_error *err);
/* Only white space left. */
int json_end(struct json_cursor *c, cuzk_error *err);

#endif
