// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Bounded byte cursors for the file parsers, file mapping, and a buffered
 * writer with a sticky error: the plumbing shared by params, r1cs, wtns and
 * public.json I/O. */
#ifndef CUZK_FORMATS_BYTE_IO_H
#define CUZK_FORMATS_BYTE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

/* A read cursor over len bytes; name prefixes every message. */
typedef struct byte_reader {
	const uint8_t *buf;
	size_t len, pos;
	const char *name;
} byte_reader;

static inline size_t byte_reader_left(const byte_reader *r)
{
	return r->len - r->pos;
}

/* Fails unless n bytes are left: "NAME: section SEC: WHAT needs N bytes at
 * offset O but the file has L left" (-CUZK_E_FORMAT). */
int byte_reader_need(const byte_reader *r, uint64_t n, const char *section, const char *what,
		     cuzk_error *err);
/* Like byte_reader_need for count items of size bytes each (overflow-safe);
 * what may be NULL: "NAME: section SEC: count C needs N bytes at ...". */
int byte_reader_need_n(const byte_reader *r, uint64_t count, uint64_t size, const char *section,
		       const char *what, cuzk_error *err);
/* Fixed-width integers; each checks the bytes left first. */
int byte_reader_u32le(byte_reader *r, uint32_t *ret, const char *section, const char *what,
		      cuzk_error *err);
int byte_reader_u64le(byte_reader *r, uint64_t *ret, const char *section, const char *what,
		      cuzk_error *err);
int byte_reader_u32be(byte_reader *r, uint32_t *ret, const char *section, const char *what,
		      cuzk_error *err);

/* A file mapped read-only (an empty file maps to a NULL buf, len 0). */
typedef struct file_map {
	const uint8_t *buf;
	size_t len;
} file_map;
int file_map_open(file_map *ret, const char *path, cuzk_error *err);
void file_map_close(file_map *m);

/* Buffered output to a file; the first failure is kept and reported by
 * byte_writer_close, which also fails if fclose does. */
typedef struct byte_writer {
	FILE *f;
	const char *path;
	int err_no;
} byte_writer;
int byte_writer_open(byte_writer *ret, const char *path, cuzk_error *err);
void byte_writer_put(byte_writer *w, const void *buf, size_t len);
void byte_writer_u32le(byte_writer *w, uint32_t v);
void byte_writer_u64le(byte_writer *w, uint64_t v);
void byte_writer_u32be(byte_writer *w, uint32_t v);
int byte_writer_close(byte_writer *w, cuzk_error *err);

#endif
