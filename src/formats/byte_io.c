// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "formats/byte_io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int byte_reader_need(const byte_reader *r, uint64_t n, const char *section, const char *what,
		     cuzk_error *err)
{
	if (n <= byte_reader_left(r))
		return 0;
	return err_fail(err, CUZK_E_FORMAT,
			"%s: section %s: %s needs %llu bytes at offset %zu but the file has %zu left",
			r->name, section, what, (unsigned long long)n, r->pos, byte_reader_left(r));
}

int byte_reader_need_n(const byte_reader *r, uint64_t count, uint64_t size, const char *section,
		       const char *what, cuzk_error *err)
{
	uint64_t n;
	if (__builtin_mul_overflow(count, size, &n))
		return err_fail(err, CUZK_E_FORMAT,
				"%s: section %s: %s%scount %llu of %llu-byte items overflows, at offset %zu",
				r->name, section, what ? what : "", what ? ": " : "", (unsigned long long)count,
				(unsigned long long)size, r->pos);
	if (n <= byte_reader_left(r))
		return 0;
	return err_fail(err, CUZK_E_FORMAT,
			"%s: section %s: %s%scount %llu needs %llu bytes at offset %zu but the file has %zu left",
			r->name, section, what ? what : "", what ? ": " : "", (unsigned long long)count,
			(unsigned long long)n, r->pos, byte_reader_left(r));
}

static int take(byte_reader *r, size_t n, const uint8_t **ret, const char *section, const char *what,
		cuzk_error *err)
{
	int rc = byte_reader_need(r, n, section, what, err);
	if (rc < 0)
		return rc;
	*ret = r->buf + r->pos;
	r->pos += n;
	return 0;
}

int byte_reader_u32le(byte_reader *r, uint32_t *ret, const char *section, const char *what,
		      cuzk_error *err)
{
	const uint8_t *p;
	int rc = take(r, 4, &p, section, what, err);
	if (rc == 0)
		*ret = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return rc;
}

int byte_reader_u64le(byte_reader *r, uint64_t *ret, const char *section, const char *what,
		      cuzk_error *err)
{
	const uint8_t *p;
	int rc = take(r, 8, &p, section, what, err);
	if (rc == 0) {
		uint64_t v = 0;
		for (int i = 7; i >= 0; i--)
			v = v << 8 | p[i];
		*ret = v;
	}
	return rc;
}

int byte_reader_u32be(byte_reader *r, uint32_t *ret, const char *section, const char *what,
		      cuzk_error *err)
{
	const uint8_t *p;
	int rc = take(r, 4, &p, section, what, err);
	if (rc == 0)
		*ret = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
	return rc;
}

int file_map_open(file_map *ret, const char *path, cuzk_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_fail_errno(err, errno, "%s: open", path);
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return err_fail_errno(err, e, "%s: fstat", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return err_fail(err, CUZK_E_IO, "%s: not a regular file", path);
	}
	file_map m = { NULL, (size_t)st.st_size };
	if (m.len > 0) {
		void *p = mmap(NULL, m.len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int e = errno;
			close(fd);
			return err_fail_errno(err, e, "%s: mmap of %zu bytes", path, m.len);
		}
		/* Parsers read front to back; big files benefit from read-ahead. */
		(void)madvise(p, m.len, MADV_SEQUENTIAL);
		m.buf = p;
	}
	close(fd);
	*ret = m;
	return 0;
}

void file_map_close(file_map *m)
{
	if (m->buf)
		munmap((void *)m->buf, m->len);
	m->buf = NULL;
	m->len = 0;
}

int byte_writer_open(byte_writer *ret, const char *path, cuzk_error *err)
{
	FILE *f = fopen(path, "we");
	if (!f)
		return err_fail_errno(err, errno, "%s: open for writing", path);
	*ret = (byte_writer){ f, path, 0 };
	return 0;
}

void byte_writer_put(byte_writer *w, const void *buf, size_t len)
{
	if (w->err_no || len == 0)
		return;
	if (fwrite(buf, 1, len, w->f) != len)
		w->err_no = errno ? errno : EIO;
}

void byte_writer_u32le(byte_writer *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	byte_writer_put(w, b, 4);
}

void byte_writer_u64le(byte_writer *w, uint64_t v)
{
	byte_writer_u32le(w, (uint32_t)v);
	byte_writer_u32le(w, (uint32_t)(v >> 32));
}

void byte_writer_u32be(byte_writer *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	byte_writer_put(w, b, 4);
}

int byte_writer_close(byte_writer *w, cuzk_error *err)
{
	int e = w->err_no;
	if (fclose(w->f) != 0 && !e)
		e = errno ? errno : EIO;
	w->f = NULL;
	if (e)
		return err_fail_errno(err, e, "%s: write", w->path);
	return 0;
}
