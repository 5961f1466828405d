// SPDX-License-Identifier: Apache-2.0 OR MIT
/* bellperson's Parameters / VerifyingKey / proof encodings (params_io.h).
 *
 * Reading is two passes: the counts are walked first and checked against
 * the bytes left (nothing allocated yet), then every point is decoded in
 * parallel into one storage block. */
#include "formats/params_io.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/file_kind.h"
#include "common/parallel.h"
#include "formats/byte_io.h"

#define G1U G1_UNCOMPRESSED_SIZE
#define G2U G2_UNCOMPRESSED_SIZE
#define VK_FIXED_BYTES (3 * G1U + 3 * G2U)
/* Storage blocks from this size on come from mmap, not the heap. */
#define MMAP_THRESHOLD (UINT64_C(1) << 20)

/* The point arrays in file order; vk.ic first. */
enum query { Q_IC, Q_H, Q_L, Q_A, Q_B_G1, Q_B_G2, Q__COUNT };
static const char *const query_names[Q__COUNT] = { "ic", "h", "l", "a", "b_g1", "b_g2" };

/* Where each array's points sit in the input and how many there are. */
struct layout {
	size_t count[Q__COUNT];
	size_t offset[Q__COUNT];
};

static int is_g2(enum query q)
{
	return q == Q_B_G2;
}

size_t groth16_vk_encoded_size(size_t n_ic)
{
	return VK_FIXED_BYTES + 4 + n_ic * G1U;
}

static int decode_fail(cuzk_error *err, const cuzk_error *inner, const char *name, const char *section,
		       const char *what, size_t offset)
{
	return err_fail(err, inner->code, "%s: section %s: %s at offset %zu: %s", name, section, what,
			offset, inner->msg);
}

/* The six fixed VK points, always fully checked. */
static int parse_vk_fixed(groth16_vk *vk, byte_reader *r, cuzk_error *err)
{
	int rc = byte_reader_need(r, VK_FIXED_BYTES, "vk", "the verifying key", err);
	if (rc < 0)
		return rc;
	struct {
		const char *name;
		void *dst;
		int g2;
	} fields[] = {
		{ "alpha_g1", &vk->alpha_g1, 0 }, { "beta_g1", &vk->beta_g1, 0 },
		{ "beta_g2", &vk->beta_g2, 1 },   { "gamma_g2", &vk->gamma_g2, 1 },
		{ "delta_g1", &vk->delta_g1, 0 }, { "delta_g2", &vk->delta_g2, 1 },
	};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		cuzk_error e;
		size_t len = fields[i].g2 ? G2U : G1U;
		rc = fields[i].g2 ? g2_decode(fields[i].dst, r->buf + r->pos, len, BLS_CHECK_ALL, &e)
				  : g1_decode(fields[i].dst, r->buf + r->pos, len, BLS_CHECK_ALL, &e);
		if (rc < 0)
			return decode_fail(err, &e, r->name, "vk", fields[i].name, r->pos);
		r->pos += len;
	}
	return 0;
}

/* Reads one u32 BE count and checks its points fit in what is left. */
static int walk_section(struct layout *l, enum query q, byte_reader *r, cuzk_error *err)
{
	uint32_t n;
	int rc = byte_reader_u32be(r, &n, query_names[q], "count", err);
	if (rc < 0)
		return rc;
	if ((rc = byte_reader_need_n(r, n, is_g2(q) ? G2U : G1U, query_names[q], NULL, err)) < 0)
		return rc;
	l->count[q] = n;
	l->offset[q] = r->pos;
	r->pos += (size_t)n * (is_g2(q) ? G2U : G1U);
	return 0;
}

static void *query_array(groth16_params *p, enum query q)
{
	void *arrays[Q__COUNT] = { p->vk.ic, p->h, p->l, p->a, p->b_g1, p->b_g2 };
	return arrays[q];
}

struct thread_failure {
	size_t index;            /* global point index, SIZE_MAX if none */
	cuzk_error err;
};

struct decode_ctx {
	const uint8_t *buf;
	const char *name;
	const struct layout *l;
	groth16_params *p;
	unsigned checks;
	const groth16_params_load_opts *opts;
	atomic_size_t done;           /* points decoded, for progress */
	pthread_mutex_t progress_mu;
	size_t start[Q__COUNT + 1];   /* global index where each array begins */
	size_t ustart[Q__COUNT + 1];  /* the same in work units (decode_weight) */
	struct thread_failure *fail;
};

/* A G2 point costs about three G1 points to decode (twice the coordinates,
 * each Fp2 product three Fp ones).  Threads are given equal work, not equal
 * point counts: b_g2 comes last, so the last thread would otherwise take
 * all of it. */
static size_t decode_weight(enum query q)
{
	return is_g2(q) ? 3 : 1;
}

/* The global index of the first point whose work starts at unit u or later. */
static size_t first_point_at(const struct decode_ctx *c, size_t u)
{
	enum query q = Q_IC;
	while (q + 1 < Q__COUNT && u >= c->ustart[q + 1])
		q++;
	size_t w = decode_weight(q), into = u - c->ustart[q];
	size_t i = (into + w - 1) / w;
	return c->start[q] + (i < c->l->count[q] ? i : c->l->count[q]);
}

/* Progress every this many points of a thread. */
#define PROGRESS_POINTS ((size_t)1 << 16)

static void report(struct decode_ctx *c, size_t n)
{
	size_t done = atomic_fetch_add(&c->done, n) + n;
	if (!c->opts || !c->opts->progress)
		return;
	pthread_mutex_lock(&c->progress_mu);
	c->opts->progress(c->opts->progress_ctx, done, c->start[Q__COUNT]);
	pthread_mutex_unlock(&c->progress_mu);
}

static void decode_range(void *arg, size_t ubegin, size_t uend, unsigned thread)
{
	struct decode_ctx *c = arg;
	enum query q = Q_IC;
	size_t end = first_point_at(c, uend), begin = first_point_at(c, ubegin), reported = begin;
	for (size_t g = begin; g < end; g++) {
		if (g - reported == PROGRESS_POINTS) {
			report(c, g - reported);
			reported = g;
		}
		while (g >= c->start[q + 1])
			q++;
		size_t i = g - c->start[q];
		/* ic belongs to the VK: always fully checked. */
		unsigned checks = q == Q_IC ? BLS_CHECK_ALL : c->checks;
		int rc;
		if (is_g2(q)) {
			g2_aff_t *dst = query_array(c->p, q);
			rc = g2_decode(&dst[i], c->buf + c->l->offset[q] + i * G2U, G2U, checks,
				       &c->fail[thread].err);
		} else {
			g1_aff_t *dst = query_array(c->p, q);
			rc = g1_decode(&dst[i], c->buf + c->l->offset[q] + i * G1U, G1U, checks,
				       &c->fail[thread].err);
		}
		if (rc < 0) {
			c->fail[thread].index = g;
			return;
		}
	}
	report(c, end - reported);
}

static int decode_points(groth16_params *p, const uint8_t *buf, const struct layout *l,
			 const char *name, const groth16_params_load_opts *opts, cuzk_error *err)
{
	struct decode_ctx c = { .buf = buf, .name = name, .l = l, .p = p, .checks = opts->checks, .opts = opts };
	atomic_init(&c.done, 0);
	pthread_mutex_init(&c.progress_mu, NULL);
	for (int q = 0; q < Q__COUNT; q++) {
		c.start[q + 1] = c.start[q] + l->count[q];
		c.ustart[q + 1] = c.ustart[q] + l->count[q] * decode_weight(q);
	}
	unsigned nthreads = parallel_nthreads();
	c.fail = malloc(nthreads * sizeof(*c.fail));
	if (!c.fail)
		return err_fail(err, CUZK_E_NOMEM, "%s: out of memory", name);
	for (unsigned t = 0; t < nthreads; t++)
		c.fail[t].index = SIZE_MAX;
	/* Subgroup checks cost ~100 us a point; unchecked decoding far less. */
	parallel_for(c.ustart[Q__COUNT], c.checks ? 256 : 8192, nthreads, decode_range, &c);
	pthread_mutex_destroy(&c.progress_mu);
	struct thread_failure *first = NULL;
	for (unsigned t = 0; t < nthreads; t++)
		if (c.fail[t].index != SIZE_MAX && (!first || c.fail[t].index < first->index))
			first = &c.fail[t];
	int rc = 0;
	if (first) {
		enum query q = Q_IC;
		while (first->index >= c.start[q + 1])
			q++;
		size_t i = first->index - c.start[q];
		char what[64];
		snprintf(what, sizeof(what), "point %zu", i);
		rc = decode_fail(err, &first->err, name, query_names[q], what,
				 l->offset[q] + i * (is_g2(q) ? G2U : G1U));
	}
	free(c.fail);
	return rc;
}

int groth16_params_alloc(groth16_params *ret, size_t n_ic, size_t n_h, size_t n_l, size_t n_a,
			 size_t n_b_g1, size_t n_b_g2, cuzk_error *err)
{
	groth16_params p;
	memset(&p, 0, sizeof(p));
	size_t n_g1 = 0, bytes_g1, bytes;
	if (__builtin_add_overflow(n_ic, n_h, &n_g1) || __builtin_add_overflow(n_g1, n_l, &n_g1) ||
	    __builtin_add_overflow(n_g1, n_a, &n_g1) || __builtin_add_overflow(n_g1, n_b_g1, &n_g1) ||
	    __builtin_mul_overflow(n_g1, sizeof(g1_aff_t), &bytes_g1) ||
	    __builtin_mul_overflow(n_b_g2, sizeof(g2_aff_t), &bytes) ||
	    __builtin_add_overflow(bytes, bytes_g1, &bytes))
		return err_fail(err, CUZK_E_NOMEM, "params: point counts overflow");
	if (bytes >= MMAP_THRESHOLD) {
		void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return err_fail_errno(err, errno, "params: mapping %zu bytes for the points", bytes);
		/* 2 MiB pages where the kernel allows them (THP "madvise"): a
		 * 47 GB SRS is then ~22 thousand page faults instead of 11
		 * million, and the GPU upload walks fewer pages.  Advice only:
		 * without THP nothing changes. */
		madvise(m, bytes, MADV_HUGEPAGE);
		p.storage = m;
		p.storage_mmapped = 1;
	} else {
		p.storage = calloc(1, bytes ? bytes : 1);
		if (!p.storage)
			return err_fail(err, CUZK_E_NOMEM, "params: out of memory for %zu bytes of points", bytes);
	}
	p.storage_len = bytes;
	g1_aff_t *g1 = p.storage;
	p.vk.n_ic = n_ic;
	p.vk.ic = g1;
	p.n_h = n_h;
	p.h = g1 += n_ic;
	p.n_l = n_l;
	p.l = g1 += n_h;
	p.n_a = n_a;
	p.a = g1 += n_l;
	p.n_b_g1 = n_b_g1;
	p.b_g1 = g1 += n_a;
	p.n_b_g2 = n_b_g2;
	p.b_g2 = (g2_aff_t *)(g1 + n_b_g1);
	*ret = p;
	return 0;
}

void groth16_params_free(groth16_params *p)
{
	if (!p)
		return;
	if (p->storage) {
		if (p->storage_mmapped)
			munmap(p->storage, p->storage_len);
		else
			free(p->storage);
	} else {
		free(p->vk.ic);
		free(p->h);
		free(p->l);
		free(p->a);
		free(p->b_g1);
		free(p->b_g2);
	}
	memset(p, 0, sizeof(*p));
}

static int check_trailing(const byte_reader *r, cuzk_error *err)
{
	if (byte_reader_left(r) == 0)
		return 0;
	return err_fail(err, CUZK_E_FORMAT, "%s: %zu unexpected bytes after the last section, at offset %zu",
			r->name, byte_reader_left(r), r->pos);
}

int groth16_params_parse_mem(groth16_params *ret, const uint8_t *buf, size_t len, const char *name,
			     unsigned checks, cuzk_error *err)
{
	groth16_params_load_opts o = { checks, NULL, NULL };
	return groth16_params_parse_mem_opts(ret, buf, len, name, &o, err);
}

int groth16_params_parse_mem_opts(groth16_params *ret, const uint8_t *buf, size_t len, const char *name,
				  const groth16_params_load_opts *opts, cuzk_error *err)
{
	byte_reader r = { buf, len, 0, name };
	groth16_vk vk;
	struct layout l;
	memset(&l, 0, sizeof(l));
	int rc = file_kind_reject(buf, len, name, "a parameter file", err);
	if (rc == 0)
		rc = parse_vk_fixed(&vk, &r, err);
	for (int q = 0; q < Q__COUNT && rc == 0; q++)
		rc = walk_section(&l, q, &r, err);
	if (rc == 0)
		rc = check_trailing(&r, err);
	if (rc < 0)
		return rc;
	groth16_params p;
	rc = groth16_params_alloc(&p, l.count[Q_IC], l.count[Q_H], l.count[Q_L], l.count[Q_A],
				  l.count[Q_B_G1], l.count[Q_B_G2], err);
	if (rc < 0)
		return err_prefix(err, "%s", name);
	g1_aff_t *ic = p.vk.ic;
	p.vk = vk;
	p.vk.ic = ic;
	p.vk.n_ic = l.count[Q_IC];
	if ((rc = decode_points(&p, buf, &l, name, opts, err)) < 0) {
		groth16_params_free(&p);
		return rc;
	}
	*ret = p;
	return 0;
}

int groth16_params_counts_fd(groth16_params_counts *ret, int fd, uint64_t size, const char *name,
			     cuzk_error *err)
{
	uint64_t n[Q__COUNT];
	uint64_t at = VK_FIXED_BYTES;

	for (int q = 0; q < Q__COUNT; q++) {
		uint8_t be[4];
		ssize_t got = at + 4 <= size ? pread(fd, be, 4, (off_t)at) : 0;
		if (got < 0)
			return err_fail_errno(err, errno, "%s: reading the %s count at offset %" PRIu64, name,
					      query_names[q], at);
		if (got != 4)
			return err_fail(err, CUZK_E_FORMAT, "%s: the %s count at offset %" PRIu64 " is past the end",
					name, query_names[q], at);
		n[q] = (uint64_t)be[0] << 24 | (uint64_t)be[1] << 16 | (uint64_t)be[2] << 8 | be[3];
		at += 4 + n[q] * (is_g2(q) ? G2U : G1U);   /* at most 2^32 · 192: no overflow */
		if (at > size)
			return err_fail(err, CUZK_E_FORMAT, "%s: section %s (%" PRIu64 " points) runs past the end",
					name, query_names[q], n[q]);
	}
	if (at != size)
		return err_fail(err, CUZK_E_FORMAT, "%s: %" PRIu64 " unexpected bytes after the last section", name,
				size - at);
	*ret = (groth16_params_counts){ n[Q_IC], n[Q_H], n[Q_L], n[Q_A], n[Q_B_G1], n[Q_B_G2] };
	return 0;
}

int groth16_params_read(groth16_params *ret, const char *path, unsigned checks, cuzk_error *err)
{
	groth16_params_load_opts o = { checks, NULL, NULL };
	return groth16_params_read_opts(ret, path, &o, err);
}

int groth16_params_read_opts(groth16_params *ret, const char *path, const groth16_params_load_opts *opts,
			     cuzk_error *err)
{
	file_map m;
	int rc = file_map_open(&m, path, err);
	if (rc < 0)
		return rc;
	rc = groth16_params_parse_mem_opts(ret, m.buf, m.len, path, opts, err);
	file_map_close(&m);
	return rc;
}

static void put_g1(byte_writer *w, const g1_aff_t *pt)
{
	uint8_t b[G1U];
	g1_encode_uncompressed(b, pt);
	byte_writer_put(w, b, sizeof(b));
}

static void put_g2(byte_writer *w, const g2_aff_t *pt)
{
	uint8_t b[G2U];
	g2_encode_uncompressed(b, pt);
	byte_writer_put(w, b, sizeof(b));
}

static void put_g1_section(byte_writer *w, const g1_aff_t *pts, size_t n)
{
	byte_writer_u32be(w, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		put_g1(w, &pts[i]);
}

static void put_vk(byte_writer *w, const groth16_vk *vk)
{
	put_g1(w, &vk->alpha_g1);
	put_g1(w, &vk->beta_g1);
	put_g2(w, &vk->beta_g2);
	put_g2(w, &vk->gamma_g2);
	put_g1(w, &vk->delta_g1);
	put_g2(w, &vk->delta_g2);
	put_g1_section(w, vk->ic, vk->n_ic);
}

/* Points encoded per round of the writer: 24 MiB of G1, 48 MiB of G2. */
#define WRITER_BLOCK ((size_t)1 << 18)

static int check_counts(const char *path, const size_t *counts, const enum query *qs, size_t n,
			cuzk_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (counts[i] > UINT32_MAX)
			return err_fail(err, CUZK_E_INVAL, "%s: section %s: %zu points do not fit a u32 count",
					path, query_names[qs[i]], counts[i]);
	return 0;
}

static const enum query WRITER_QUERY[GROTH16_PARAMS_SECTIONS] = { Q_H, Q_L, Q_A, Q_B_G1, Q_B_G2 };

int groth16_params_writer_open(groth16_params_writer *ret, const char *path, const groth16_vk *vk,
			       const size_t count[GROTH16_PARAMS_SECTIONS], cuzk_error *err)
{
	enum query ic = Q_IC;
	int rc = check_counts(path, &vk->n_ic, &ic, 1, err);
	if (rc < 0 || (rc = check_counts(path, count, WRITER_QUERY, GROTH16_PARAMS_SECTIONS, err)) < 0)
		return rc;
	groth16_params_writer w;
	memset(&w, 0, sizeof(w));
	memcpy(w.count, count, sizeof(w.count));
	if (!(w.buf = malloc(WRITER_BLOCK * G2U)))
		return err_fail(err, CUZK_E_NOMEM, "%s: no memory for the encoding buffer", path);
	if ((rc = byte_writer_open(&w.w, path, err)) < 0) {
		free(w.buf);
		return rc;
	}
	put_vk(&w.w, vk);
	w.section = -1;
	*ret = w;
	return 0;
}

struct encode_ctx {
	uint8_t *out;
	const void *points;
	int g2;
};

static void encode_range(void *arg, size_t begin, size_t end, unsigned thread)
{
	(void)thread;
	struct encode_ctx *c = arg;
	for (size_t i = begin; i < end; i++) {
		if (c->g2)
			g2_encode_uncompressed(c->out + i * G2U, (const g2_aff_t *)c->points + i);
		else
			g1_encode_uncompressed(c->out + i * G1U, (const g1_aff_t *)c->points + i);
	}
}

/* Opens the next sections (writing their counts) until one has room; empty
 * ones are written whole on the way. */
static void writer_next_section(groth16_params_writer *w)
{
	while (w->left == 0 && w->section + 1 < GROTH16_PARAMS_SECTIONS) {
		w->section++;
		w->left = w->count[w->section];
		byte_writer_u32be(&w->w, (uint32_t)w->left);
	}
}

int groth16_params_writer_put(groth16_params_writer *w, const void *points, size_t n, cuzk_error *err)
{
	const uint8_t *src = points;
	while (n > 0) {
		writer_next_section(w);
		if (w->left == 0) {
			w->failed = 1;
			return err_fail(err, CUZK_E_INVAL, "%s: %zu points more than the sections hold", w->w.path, n);
		}
		int g2 = WRITER_QUERY[w->section] == Q_B_G2;
		size_t size = g2 ? G2U : G1U, mem = g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
		size_t run = n < w->left ? n : w->left;
		run = run < WRITER_BLOCK ? run : WRITER_BLOCK;
		struct encode_ctx c = { w->buf, src, g2 };
		parallel_for(run, 4096, 0, encode_range, &c);
		byte_writer_put(&w->w, w->buf, run * size);
		src += run * mem;
		n -= run;
		w->left -= run;
	}
	return 0;
}

int groth16_params_writer_close(groth16_params_writer *w, cuzk_error *err)
{
	writer_next_section(w);
	int missing = !w->failed && (w->left != 0 || w->section + 1 < GROTH16_PARAMS_SECTIONS);
	int rc = byte_writer_close(&w->w, err);
	free(w->buf);
	w->buf = NULL;
	if (rc == 0 && missing)
		rc = err_fail(err, CUZK_E_INVAL, "%s: section %s is %zu points short", w->w.path,
			      query_names[WRITER_QUERY[w->section]], w->left);
	if (rc == 0 && w->failed)
		rc = err_fail(err, CUZK_E_INVAL, "%s: more points than the sections hold", w->w.path);
	return rc;
}

int groth16_params_write(const groth16_params *p, const char *path, cuzk_error *err)
{
	size_t counts[GROTH16_PARAMS_SECTIONS] = { p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2 };
	groth16_params_writer w;
	int rc = groth16_params_writer_open(&w, path, &p->vk, counts, err);
	if (rc < 0)
		return rc;
	const void *arrays[GROTH16_PARAMS_SECTIONS] = { p->h, p->l, p->a, p->b_g1, p->b_g2 };
	for (int q = 0; q < GROTH16_PARAMS_SECTIONS && rc == 0; q++)
		rc = groth16_params_writer_put(&w, arrays[q], counts[q], err);
	int rc2 = groth16_params_writer_close(&w, rc < 0 ? NULL : err);
	return rc < 0 ? rc : rc2;
}

int groth16_vk_parse_mem(groth16_vk *ret, const uint8_t *buf, size_t len, const char *name,
			 cuzk_error *err)
{
	byte_reader r = { buf, len, 0, name };
	groth16_vk vk;
	struct layout l;
	memset(&l, 0, sizeof(l));
	int rc = file_kind_reject(buf, len, name, "a verifying key", err);
	if (rc == 0)
		rc = parse_vk_fixed(&vk, &r, err);
	if (rc == 0)
		rc = walk_section(&l, Q_IC, &r, err);
	if (rc == 0)
		rc = check_trailing(&r, err);
	if (rc < 0)
		return rc;
	vk.n_ic = l.count[Q_IC];
	vk.ic = malloc((vk.n_ic ? vk.n_ic : 1) * sizeof(*vk.ic));
	if (!vk.ic)
		return err_fail(err, CUZK_E_NOMEM, "%s: out of memory for %zu ic points", name, vk.n_ic);
	for (size_t i = 0; i < vk.n_ic; i++) {
		cuzk_error e;
		size_t at = l.offset[Q_IC] + i * G1U;
		if (g1_decode(&vk.ic[i], buf + at, G1U, BLS_CHECK_ALL, &e) < 0) {
			free(vk.ic);
			char what[64];
			snprintf(what, sizeof(what), "point %zu", i);
			return decode_fail(err, &e, name, "ic", what, at);
		}
	}
	*ret = vk;
	return 0;
}

int groth16_vk_read(groth16_vk *ret, const char *path, cuzk_error *err)
{
	file_map m;
	int rc = file_map_open(&m, path, err);
	if (rc < 0)
		return rc;
	rc = groth16_vk_parse_mem(ret, m.buf, m.len, path, err);
	file_map_close(&m);
	return rc;
}

int groth16_vk_write(const groth16_vk *vk, const char *path, cuzk_error *err)
{
	if (vk->n_ic > UINT32_MAX)
		return err_fail(err, CUZK_E_INVAL, "%s: %zu ic points do not fit a u32 count", path, vk->n_ic);
	byte_writer w;
	int rc = byte_writer_open(&w, path, err);
	if (rc < 0)
		return rc;
	put_vk(&w, vk);
	return byte_writer_close(&w, err);
}

void groth16_vk_free(groth16_vk *vk)
{
	if (!vk)
		return;
	free(vk->ic);
	memset(vk, 0, sizeof(*vk));
}

int groth16_vk_copy(groth16_vk *ret, const groth16_vk *src, cuzk_error *err)
{
	groth16_vk vk = *src;
	vk.ic = malloc((src->n_ic ? src->n_ic : 1) * sizeof(*vk.ic));
	if (!vk.ic)
		return err_fail(err, CUZK_E_NOMEM, "vk: out of memory for %zu ic points", src->n_ic);
	if (src->n_ic)
		memcpy(vk.ic, src->ic, src->n_ic * sizeof(*vk.ic));
	*ret = vk;
	return 0;
}

void groth16_proof_encode(uint8_t out[GROTH16_PROOF_SIZE], const groth16_proof *p)
{
	g1_encode_compressed(out, &p->a);
	g2_encode_compressed(out + G1_COMPRESSED_SIZE, &p->b);
	g1_encode_compressed(out + G1_COMPRESSED_SIZE + G2_COMPRESSED_SIZE, &p->c);
}

/* Decodes one proof; name/offset only shape the message. */
static int proof_decode_at(groth16_proof *ret, const uint8_t *in, const char *name, size_t offset,
			   cuzk_error *err)
{
	groth16_proof p;
	cuzk_error e;
	const char *part = "A";
	size_t at = 0;
	int rc = g1_decode(&p.a, in, G1_COMPRESSED_SIZE, BLS_CHECK_ALL, &e);
	if (rc == 0) {
		part = "B";
		at = G1_COMPRESSED_SIZE;
		rc = g2_decode(&p.b, in + at, G2_COMPRESSED_SIZE, BLS_CHECK_ALL, &e);
	}
	if (rc == 0) {
		part = "C";
		at = G1_COMPRESSED_SIZE + G2_COMPRESSED_SIZE;
		rc = g1_decode(&p.c, in + at, G1_COMPRESSED_SIZE, BLS_CHECK_ALL, &e);
	}
	if (rc < 0)
		return err_fail(err, e.code, "%s: %s at offset %zu: %s", name, part, offset + at, e.msg);
	*ret = p;
	return 0;
}

int groth16_proof_decode(groth16_proof *ret, const uint8_t *in, size_t len, cuzk_error *err)
{
	if (len != GROTH16_PROOF_SIZE)
		return err_fail(err, CUZK_E_LENGTH, "proof: %zu bytes, expected %d", len, GROTH16_PROOF_SIZE);
	return proof_decode_at(ret, in, "proof", 0, err);
}

int groth16_proofs_read(groth16_proof **ret, size_t *ret_n, const char *path, cuzk_error *err)
{
	file_map m;
	int rc = file_map_open(&m, path, err);
	if (rc < 0)
		return rc;
	if ((rc = file_kind_reject(m.buf, m.len, path, "a proofs file", err)) < 0) {
		file_map_close(&m);
		return rc;
	}
	if (m.len == 0 || m.len % GROTH16_PROOF_SIZE != 0) {
		rc = err_fail(err, CUZK_E_LENGTH, "%s: %zu bytes is not a whole number of %d-byte proofs",
			      path, m.len, GROTH16_PROOF_SIZE);
		file_map_close(&m);
		return rc;
	}
	size_t n = m.len / GROTH16_PROOF_SIZE;
	groth16_proof *proofs = malloc(n * sizeof(*proofs));
	if (!proofs) {
		file_map_close(&m);
		return err_fail(err, CUZK_E_NOMEM, "%s: out of memory for %zu proofs", path, n);
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		char what[600];
		snprintf(what, sizeof(what), "%s: proof %zu", path, i);
		rc = proof_decode_at(&proofs[i], m.buf + i * GROTH16_PROOF_SIZE, what,
				     i * GROTH16_PROOF_SIZE, err);
	}
	file_map_close(&m);
	if (rc < 0) {
		free(proofs);
		return rc;
	}
	*ret = proofs;
	*ret_n = n;
	return 0;
}

int groth16_proofs_write(const groth16_proof *proofs, size_t n, const char *path, cuzk_error *err)
{
	byte_writer w;
	int rc = byte_writer_open(&w, path, err);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		uint8_t b[GROTH16_PROOF_SIZE];
		groth16_proof_encode(b, &proofs[i]);
		byte_writer_put(&w, b, sizeof(b));
	}
	return byte_writer_close(&w, err);
}
