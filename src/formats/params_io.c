// SPDX-License-Identifier: Apache-2.0 OR MIT
/* bellperson's Parameters / VerifyingKey / proof encodings (params_io.h).
 *
 * Reading is two passes: the counts are walked first and checked against
 * the bytes left (nothing allocated yet), then every point is decoded in
 * parallel into one storage block, by threads that take blocks of points in
 * file order (decode_worker), on the CPU or through the caller's decoder
 * (a GPU's). */
#include "formats/params_io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* Threads take blocks of this many points in file order, one at a time, so
 * that the work balances itself (a G2 point costs ~2.2 G1 points, a thread
 * may be descheduled) and the points decoded so far grow as one run from
 * the start, which a consumer (an upload to a GPU) can copy while the rest
 * is decoded.  2^14 G1 points are 1.5 MiB of input: one pread, and the
 * per-block bookkeeping (a lock, a callback) is noise beside ~3 ms of
 * decoding.  Subgroup checks cost ~35 us a point: blocks of 256 then.  A
 * decoder (params_io.h) says its own size. */
#define BLOCK_POINTS ((size_t)1 << 14)
#define BLOCK_POINTS_SUBGROUP ((size_t)256)

struct decode_ctx {
	const uint8_t *buf;           /* the input in memory, or NULL: pread from fd */
	int fd;
	const struct layout *l;
	groth16_params *p;
	unsigned checks;
	const groth16_params_load_opts *opts;
	const groth16_point_decoder *dec;   /* opts' decoder, NULL: the CPU decodes */
	size_t start[Q__COUNT + 1];   /* global index where each array begins */
	size_t block, n_blocks;
	atomic_size_t next_block;     /* the next block to take */
	atomic_size_t first_fail;     /* lowest failing point so far, SIZE_MAX if none */
	pthread_mutex_t mu;           /* guards what follows, and orders the callbacks */
	uint8_t *block_done;          /* per block */
	size_t prefix_blocks;         /* blocks 0..prefix_blocks-1 are all done */
	size_t done;                  /* points decoded, for progress */
	struct thread_failure *fail;
};

static size_t point_size(enum query q)
{
	return is_g2(q) ? G2U : G1U;
}

/* A decoded point's bytes in its array. */
static size_t point_mem(enum query q)
{
	return is_g2(q) ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
}

/* Reads len bytes at off, whatever the kernel's short reads; a file that
 * ends early was cut while it was being loaded (its size was checked).  The
 * caller's message names the file, the section and the offset. */
static int pread_full(int fd, uint8_t *dst, size_t len, uint64_t off, cuzk_error *err)
{
	while (len > 0) {
		ssize_t got = pread(fd, dst, len, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return err_fail_errno(err, errno, "reading %zu bytes", len);
		if (got == 0)
			return err_fail(err, CUZK_E_IO, "the file ends at offset %" PRIu64
					" (cut while it was being loaded?)", off);
		dst += got;
		len -= (size_t)got;
		off += (uint64_t)got;
	}
	return 0;
}

/* Decodes points [g, end) of array q (global indexes within q) from src, the
 * bytes of point g onwards: through the decoder when the thread has one (t),
 * on the CPU from the first point it refused on.  Returns the index of the
 * first failure (its message in *err), or SIZE_MAX. */
static size_t decode_run(struct decode_ctx *c, void *t, enum query q, size_t g, size_t end, const uint8_t *src,
			 cuzk_error *err)
{
	/* ic belongs to the VK: always fully checked, on the CPU. */
	unsigned checks = q == Q_IC ? BLS_CHECK_ALL : c->checks;
	size_t i = g - c->start[q], n = end - g;
	if (t && q != Q_IC) {
		size_t bad = SIZE_MAX;
		uint8_t *dst = (uint8_t *)query_array(c->p, q) + i * point_mem(q);
		if (c->dec->decode(c->opts->decoder_ctx, t, dst, src, n, is_g2(q), checks, &bad, err) < 0)
			return g;   /* the device's error, named by the run's first point */
		if (bad == SIZE_MAX)
			return SIZE_MAX;
		/* The CPU from the refused point on (the whole run for an
		 * index past it): its verdict and its message stand. */
		if (bad > n)
			bad = 0;
		i += bad, g += bad, n -= bad, src += bad * point_size(q);
	}
	if (is_g2(q)) {
		g2_aff_t *dst = (g2_aff_t *)query_array(c->p, q) + i;
		for (size_t k = 0; k < n; k++)
			if (g2_decode(&dst[k], src + k * G2U, G2U, checks, err) < 0)
				return g + k;
	} else {
		g1_aff_t *dst = (g1_aff_t *)query_array(c->p, q) + i;
		for (size_t k = 0; k < n; k++)
			if (g1_decode(&dst[k], src + k * G1U, G1U, checks, err) < 0)
				return g + k;
	}
	return SIZE_MAX;
}

/* Block b's points, array by array (a block may straddle two).  buf: the
 * thread's input buffer when reading from fd.  Returns the first failing
 * point or SIZE_MAX. */
static size_t decode_block(struct decode_ctx *c, size_t b, void *t, uint8_t *buf, cuzk_error *err)
{
	size_t g = b * c->block, end = g + c->block < c->start[Q__COUNT] ? g + c->block : c->start[Q__COUNT];
	enum query q = Q_IC;
	while (g < end) {
		while (g >= c->start[q + 1])
			q++;
		size_t run_end = end < c->start[q + 1] ? end : c->start[q + 1];
		uint64_t off = c->l->offset[q] + (g - c->start[q]) * point_size(q);
		const uint8_t *src = c->buf ? c->buf + off : buf;
		if (!c->buf && pread_full(c->fd, buf, (run_end - g) * point_size(q), off, err) < 0)
			return g;
		size_t bad = decode_run(c, t, q, g, run_end, src, err);
		if (bad != SIZE_MAX)
			return bad;
		g = run_end;
	}
	return SIZE_MAX;
}

/* Block b is done: extends the run decoded from the start and tells the
 * callbacks, one at a time and under the lock, so that they see the counts
 * grow in order. */
static void block_finished(struct decode_ctx *c, size_t b, size_t points)
{
	const groth16_params_load_opts *o = c->opts;
	pthread_mutex_lock(&c->mu);
	c->block_done[b] = 1;
	c->done += points;
	size_t before = c->prefix_blocks;
	while (c->prefix_blocks < c->n_blocks && c->block_done[c->prefix_blocks])
		c->prefix_blocks++;
	if (o->progress)
		o->progress(o->progress_ctx, c->done, c->start[Q__COUNT]);
	if (o->decoded && c->prefix_blocks != before && atomic_load(&c->first_fail) == SIZE_MAX) {
		size_t n = c->prefix_blocks * c->block;
		o->decoded(o->decoded_ctx, c->p, n < c->start[Q__COUNT] ? n : c->start[Q__COUNT]);
	}
	pthread_mutex_unlock(&c->mu);
}

/* One decoding thread: blocks in order until none is left or one before
 * them has failed (the blocks below a failure are all taken, so the first
 * bad point of the file is always found and reported). */
static void decode_worker(void *arg, size_t begin, size_t end, unsigned thread)
{
	(void)begin;
	(void)end;
	struct decode_ctx *c = arg;
	struct thread_failure *f = &c->fail[thread];
	uint8_t *buf = NULL;
	/* The decoder's thread state and buffer, or (no decoder, or it could
	 * not be set up) the CPU's. */
	void *t = c->dec ? c->dec->begin(c->opts->decoder_ctx, c->block * G2U, &buf) : NULL;
	if (!t)
		buf = NULL;
	if (!t && !c->buf && !(buf = malloc(c->block * G2U))) {
		/* Nothing taken: the other threads do the blocks (or, if all
		 * fail so, decode_points reports it). */
		return;
	}
	for (;;) {
		size_t b = atomic_fetch_add(&c->next_block, 1);
		if (b >= c->n_blocks || b * c->block >= atomic_load(&c->first_fail))
			break;
		size_t bad = decode_block(c, b, t, buf, &f->err);
		if (bad != SIZE_MAX) {
			f->index = bad;
			size_t cur = atomic_load(&c->first_fail);
			while (bad < cur && !atomic_compare_exchange_weak(&c->first_fail, &cur, bad))
				;
			break;
		}
		size_t g = b * c->block, n = c->start[Q__COUNT] - g < c->block ? c->start[Q__COUNT] - g : c->block;
		block_finished(c, b, n);
	}
	if (t)
		c->dec->end(c->opts->decoder_ctx, t);
	else
		free(buf);
}

static int decode_points(groth16_params *p, const uint8_t *buf, int fd, const struct layout *l,
			 const char *name, const groth16_params_load_opts *opts, cuzk_error *err)
{
	struct decode_ctx c = { .buf = buf, .fd = fd, .l = l, .p = p, .checks = opts->checks, .opts = opts };
	/* The caller's decoder does no subgroup checks: those stay here. */
	if (!(c.checks & BLS_CHECK_SUBGROUP))
		c.dec = opts->decoder;
	for (int q = 0; q < Q__COUNT; q++)
		c.start[q + 1] = c.start[q] + l->count[q];
	const size_t total = c.start[Q__COUNT];
	unsigned nthreads = parallel_nthreads();
	/* At least four blocks a thread where there are points enough. */
	c.block = c.checks & BLS_CHECK_SUBGROUP ? BLOCK_POINTS_SUBGROUP
		: c.dec && c.dec->block_points ? c.dec->block_points : BLOCK_POINTS;
	while (c.block > 64 && c.block * 4 * nthreads > total)
		c.block /= 2;
	c.n_blocks = (total + c.block - 1) / c.block;
	atomic_init(&c.next_block, 0);
	atomic_init(&c.first_fail, SIZE_MAX);
	c.fail = malloc(nthreads * sizeof(*c.fail));
	c.block_done = calloc(c.n_blocks ? c.n_blocks : 1, 1);
	if (!c.fail || !c.block_done) {
		free(c.fail);
		free(c.block_done);
		return err_fail(err, CUZK_E_NOMEM, "%s: out of memory", name);
	}
	for (unsigned t = 0; t < nthreads; t++)
		c.fail[t].index = SIZE_MAX;
	pthread_mutex_init(&c.mu, NULL);
	if (opts->decoded)
		opts->decoded(opts->decoded_ctx, p, 0);
	parallel_for(nthreads, 1, nthreads, decode_worker, &c);
	pthread_mutex_destroy(&c.mu);
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
		rc = decode_fail(err, &first->err, name, query_names[q], what, l->offset[q] + i * point_size(q));
	} else if (c.prefix_blocks != c.n_blocks) {
		/* Every thread failed to get its input buffer. */
		rc = err_fail(err, CUZK_E_NOMEM, "%s: out of memory for the decoding buffers", name);
	}
	/* A consumer of the run stops reading the arrays before they are freed. */
	if (rc < 0 && opts->decoded)
		opts->decoded(opts->decoded_ctx, NULL, 0);
	free(c.fail);
	free(c.block_done);
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
		 * without THP nothing changes.  $CUZK_PARAMS_THP=0 leaves it
		 * out, to measure what the huge pages cost on a host whose
		 * kernel compacts memory for them in the fault (THP defrag
		 * "madvise", memory fragmented by the page cache). */
		const char *thp = getenv("CUZK_PARAMS_THP");
		if (!thp || strcmp(thp, "0") != 0)
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
	groth16_params_load_opts o = { .checks = checks };
	return groth16_params_parse_mem_opts(ret, buf, len, name, &o, err);
}

/* The header (VK, counts) from buf; the points from buf too, or with pread
 * from fd when fd >= 0 (buf then maps the same file, and only its header
 * pages are touched). */
static int parse_params(groth16_params *ret, const uint8_t *buf, size_t len, int fd, const char *name,
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
	if ((rc = decode_points(&p, fd >= 0 ? NULL : buf, fd, &l, name, opts, err)) < 0) {
		groth16_params_free(&p);
		return rc;
	}
	*ret = p;
	return 0;
}

int groth16_params_parse_mem_opts(groth16_params *ret, const uint8_t *buf, size_t len, const char *name,
				  const groth16_params_load_opts *opts, cuzk_error *err)
{
	return parse_params(ret, buf, len, -1, name, opts, err);
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
	groth16_params_load_opts o = { .checks = checks };
	return groth16_params_read_opts(ret, path, &o, err);
}

int groth16_params_read_opts(groth16_params *ret, const char *path, const groth16_params_load_opts *opts,
			     cuzk_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_fail_errno(err, errno, "%s: open", path);
	int rc = groth16_params_read_fd_opts(ret, fd, path, opts, err);
	close(fd);
	return rc;
}

/* The file is mapped for its header (a few pages are touched: the VK and
 * the six counts), and its points are read by pread, each decoding thread
 * into a buffer of its own: mapping all 47 GB of a PoRep file would build
 * ~11 million page-table entries while decoding, and munmap then tears
 * them down on one thread (~27 ms per 1.4 GB measured here, ~0.9 s at
 * 47 GB, after the decoding threads are done). */
int groth16_params_read_fd_opts(groth16_params *ret, int fd, const char *name,
				const groth16_params_load_opts *opts, cuzk_error *err)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return err_fail_errno(err, errno, "%s: fstat", name);
	if (!S_ISREG(st.st_mode))
		return err_fail(err, CUZK_E_IO, "%s: not a regular file", name);
	size_t len = (size_t)st.st_size;
	void *map = NULL;
	if (len > 0 && (map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
		return err_fail_errno(err, errno, "%s: mmap of %zu bytes", name, len);
	int rc = parse_params(ret, map, len, len > 0 ? fd : -1, name, opts, err);
	if (map)
		munmap(map, len);
	return rc;
}

/* The VK's six fixed points, in file order. */
static void vk_fixed_encode(uint8_t out[VK_FIXED_BYTES], const groth16_vk *vk)
{
	g1_encode_uncompressed(out, &vk->alpha_g1);
	g1_encode_uncompressed(out + G1U, &vk->beta_g1);
	g2_encode_uncompressed(out + 2 * G1U, &vk->beta_g2);
	g2_encode_uncompressed(out + 2 * G1U + G2U, &vk->gamma_g2);
	g1_encode_uncompressed(out + 2 * G1U + 2 * G2U, &vk->delta_g1);
	g2_encode_uncompressed(out + 3 * G1U + 2 * G2U, &vk->delta_g2);
}

static void put_vk(byte_writer *w, const groth16_vk *vk)
{
	uint8_t fixed[VK_FIXED_BYTES];
	vk_fixed_encode(fixed, vk);
	byte_writer_put(w, fixed, sizeof(fixed));
	byte_writer_u32be(w, (uint32_t)vk->n_ic);
	for (size_t i = 0; i < vk->n_ic; i++) {
		uint8_t b[G1U];
		g1_encode_uncompressed(b, &vk->ic[i]);
		byte_writer_put(w, b, sizeof(b));
	}
}

/* The writer's ring: the points are encoded into one buffer while the
 * thread writes the other out.  24 MiB holds exactly 2^18 G1 points (2^17
 * G2), so most buffers are written whole.  Measured on 2
 * cores (a 1.4 GB file, bench_params_write, best of 8): 2 x 24 MiB 836 ms,
 * 3 x 24 MiB 847, 4 x 4 MiB 832, 3 x 16 MiB 1043 (its buffers end 64 bytes
 * short of full; why that costs was not found), against 982 ms for
 * encoding then writing on one thread. */
#define WRITER_BUFS 2
#define WRITER_BUF_BYTES ((size_t)24 << 20)

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

/* Points an encoding thread takes at a time (192 KiB of G1).  Threads take
 * them from a counter rather than splitting the run evenly: one of them
 * shares its core with the writing thread, and an even split would make
 * the others wait for it at the end of every buffer (measured on 2 cores:
 * ~17% slower than not overlapping at all). */
#define ENCODE_CHUNK ((size_t)2048)

struct encode_ctx {
	uint8_t *out;
	const void *points;
	size_t n;
	int g2;
	atomic_size_t next;          /* the next chunk to take */
};

static void encode_worker(void *arg, size_t begin, size_t end, unsigned thread)
{
	(void)begin;
	(void)end;
	(void)thread;
	struct encode_ctx *c = arg;
	for (;;) {
		size_t lo = atomic_fetch_add(&c->next, 1) * ENCODE_CHUNK;
		if (lo >= c->n)
			break;
		size_t hi = c->n - lo < ENCODE_CHUNK ? c->n : lo + ENCODE_CHUNK;
		for (size_t i = lo; i < hi; i++) {
			if (c->g2)
				g2_encode_uncompressed(c->out + i * G2U, (const g2_aff_t *)c->points + i);
			else
				g1_encode_uncompressed(c->out + i * G1U, (const g1_aff_t *)c->points + i);
		}
	}
}

/* len bytes (a header) into the buffers, across their boundaries. */
static int writer_bytes(groth16_params_writer *w, const uint8_t *b, size_t len, cuzk_error *err)
{
	while (len > 0) {
		size_t room;
		uint8_t *dst = async_writer_room(w->out, &room);
		if (room == 0) {
			int rc = async_writer_submit(w->out, err);
			if (rc < 0)
				return rc;
			continue;
		}
		size_t k = len < room ? len : room;
		memcpy(dst, b, k);
		async_writer_fill(w->out, k);
		b += k;
		len -= k;
	}
	return 0;
}

static int writer_u32be(groth16_params_writer *w, uint32_t v, cuzk_error *err)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	return writer_bytes(w, b, sizeof(b), err);
}

/* n points encoded in parallel straight into the buffers; a buffer is
 * handed over when the next point no longer fits (the file is the same
 * bytes wherever the buffers end). */
static int writer_points(groth16_params_writer *w, const void *points, int g2, size_t n, cuzk_error *err)
{
	const size_t size = g2 ? G2U : G1U, mem = g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
	const uint8_t *src = points;
	while (n > 0) {
		size_t room;
		uint8_t *dst = async_writer_room(w->out, &room);
		size_t k = room / size < n ? room / size : n;
		if (k == 0) {
			int rc = async_writer_submit(w->out, err);
			if (rc < 0)
				return rc;
			continue;
		}
		struct encode_ctx c = { .out = dst, .points = src, .n = k, .g2 = g2 };
		atomic_init(&c.next, 0);
		size_t chunks = (k + ENCODE_CHUNK - 1) / ENCODE_CHUNK;
		unsigned nthreads = parallel_nthreads();
		nthreads = chunks < nthreads ? (unsigned)chunks : nthreads;
		parallel_for(nthreads, 1, nthreads, encode_worker, &c);
		async_writer_fill(w->out, k * size);
		src += k * mem;
		n -= k;
	}
	return 0;
}

int groth16_params_writer_open(groth16_params_writer *ret, const char *path, const groth16_vk *vk,
			       const size_t count[GROTH16_PARAMS_SECTIONS], cuzk_error *err)
{
	enum query ic = Q_IC;
	int rc = check_counts(path, &vk->n_ic, &ic, 1, err);
	if (rc < 0 || (rc = check_counts(path, count, WRITER_QUERY, GROTH16_PARAMS_SECTIONS, err)) < 0)
		return rc;
	/* Small files get small buffers; every count fits a u32, so the
	 * total fits 64 bits. */
	uint64_t total = groth16_vk_encoded_size(vk->n_ic) + 4 * GROTH16_PARAMS_SECTIONS;
	for (int q = 0; q < GROTH16_PARAMS_SECTIONS; q++)
		total += (uint64_t)count[q] * point_size(WRITER_QUERY[q]);
	size_t cap = total < WRITER_BUF_BYTES ? (size_t)total : WRITER_BUF_BYTES;
	groth16_params_writer w;
	memset(&w, 0, sizeof(w));
	memcpy(w.count, count, sizeof(w.count));
	w.path = path;
	w.section = -1;
	/* At least a G2 point, which never straddles two buffers. */
	if ((rc = async_writer_open(&w.out, path, WRITER_BUFS, cap > G2U ? cap : G2U, err)) < 0)
		return rc;
	uint8_t fixed[VK_FIXED_BYTES];
	vk_fixed_encode(fixed, vk);
	rc = writer_bytes(&w, fixed, sizeof(fixed), err);
	if (rc == 0)
		rc = writer_u32be(&w, (uint32_t)vk->n_ic, err);
	if (rc == 0)
		rc = writer_points(&w, vk->ic, 0, vk->n_ic, err);
	if (rc < 0) {
		async_writer_close(w.out, NULL);
		return rc;
	}
	*ret = w;
	return 0;
}

/* Opens the next sections (writing their counts) until one has room; empty
 * ones are written whole on the way. */
static int writer_next_section(groth16_params_writer *w, cuzk_error *err)
{
	while (w->left == 0 && w->section + 1 < GROTH16_PARAMS_SECTIONS) {
		w->section++;
		w->left = w->count[w->section];
		int rc = writer_u32be(w, (uint32_t)w->left, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int groth16_params_writer_put(groth16_params_writer *w, const void *points, size_t n, cuzk_error *err)
{
	/* What the thread met while the caller was away. */
	int rc = async_writer_check(w->out, err);
	if (rc < 0)
		return rc;
	if (w->failed)
		return err_fail(err, CUZK_E_INVAL, "%s: more points than the sections hold", w->path);
	const uint8_t *src = points;
	while (n > 0) {
		if ((rc = writer_next_section(w, err)) < 0)
			return rc;
		if (w->left == 0) {
			w->failed = 1;
			return err_fail(err, CUZK_E_INVAL, "%s: %zu points more than the sections hold", w->path, n);
		}
		int g2 = WRITER_QUERY[w->section] == Q_B_G2;
		size_t run = n < w->left ? n : w->left;
		if ((rc = writer_points(w, src, g2, run, err)) < 0)
			return rc;
		src += run * (g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t));
		n -= run;
		w->left -= run;
	}
	return 0;
}

int groth16_params_writer_close(groth16_params_writer *w, cuzk_error *err)
{
	return groth16_params_writer_finish(w, 0, err);
}

int groth16_params_writer_finish(groth16_params_writer *w, unsigned flags, cuzk_error *err)
{
	/* A write error is the async writer's to report, below. */
	int written = writer_next_section(w, NULL) == 0;
	int missing = written && !w->failed && (w->left != 0 || w->section + 1 < GROTH16_PARAMS_SECTIONS);
	/* A file short of points is refused below: not worth an fsync. */
	if (missing || w->failed)
		flags &= ~(unsigned)ASYNC_WRITER_FSYNC;
	int rc = async_writer_finish(w->out, flags, &w->stats, err);
	w->out = NULL;
	if (rc == 0 && missing)
		rc = err_fail(err, CUZK_E_INVAL, "%s: section %s is %zu points short", w->path,
			      query_names[WRITER_QUERY[w->section]], w->left);
	if (rc == 0 && w->failed)
		rc = err_fail(err, CUZK_E_INVAL, "%s: more points than the sections hold", w->path);
	return rc;
}

void groth16_params_writer_get_stats(groth16_params_writer *w, async_writer_stats *ret)
{
	if (w->out)
		async_writer_get_stats(w->out, ret);
	else
		*ret = w->stats;
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
