// SPDX-License-Identifier: Apache-2.0 OR MIT
/* bellperson params, VK and proof files: round trips, and each rejection
 * with its code and a message naming the section and offset. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/params_io.h"
#include "tests/test_files.h"

static void g1_times(g1_aff_t *r, uint64_t k)
{
	g1_jac_t j, g;
	uint64_t s[4] = { k, 0, 0, 0 };
	g1_from_affine(&g, &G1_GENERATOR);
	g1_mul(&j, &g, s);
	g1_to_affine(r, &j);
}

static void g2_times(g2_aff_t *r, uint64_t k)
{
	g2_jac_t j, g;
	uint64_t s[4] = { k, 0, 0, 0 };
	g2_from_affine(&g, &G2_GENERATOR);
	g2_mul(&j, &g, s);
	g2_to_affine(r, &j);
}

/* The VK's six fixed points: 2·G .. 7·G. */
static void make_vk_points(groth16_vk *vk)
{
	g1_times(&vk->alpha_g1, 2);
	g1_times(&vk->beta_g1, 3);
	g2_times(&vk->beta_g2, 4);
	g2_times(&vk->gamma_g2, 5);
	g1_times(&vk->delta_g1, 6);
	g2_times(&vk->delta_g2, 7);
}

static void make_params(groth16_params *p)
{
	cuzk_error err;
	REQUIRE(groth16_params_alloc(p, 2, 3, 4, 5, 2, 2, &err) == 0);
	make_vk_points(&p->vk);
	uint64_t k = 8;
	g1_aff_t *g1s[] = { p->vk.ic, p->h, p->l, p->a, p->b_g1 };
	size_t n1[] = { 2, 3, 4, 5, 2 };
	for (int s = 0; s < 5; s++)
		for (size_t i = 0; i < n1[s]; i++)
			g1_times(&g1s[s][i], k++);
	for (size_t i = 0; i < 2; i++)
		g2_times(&p->b_g2[i], k++);
	/* An identity point in a query is legal (a variable that is unused). */
	memset(&p->l[3], 0, sizeof(p->l[3]));
}

static int g1_arr_eq(const g1_aff_t *x, const g1_aff_t *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!g1_aff_eq(&x[i], &y[i]))
			return 0;
	return 1;
}

static int vk_eq(const groth16_vk *x, const groth16_vk *y)
{
	return g1_aff_eq(&x->alpha_g1, &y->alpha_g1) && g1_aff_eq(&x->beta_g1, &y->beta_g1) &&
	       g2_aff_eq(&x->beta_g2, &y->beta_g2) && g2_aff_eq(&x->gamma_g2, &y->gamma_g2) &&
	       g1_aff_eq(&x->delta_g1, &y->delta_g1) && g2_aff_eq(&x->delta_g2, &y->delta_g2) &&
	       x->n_ic == y->n_ic && g1_arr_eq(x->ic, y->ic, x->n_ic);
}

/* A point on G1's curve outside the order-r subgroup, uncompressed. */
static void off_subgroup_point(uint8_t out[96])
{
	for (uint64_t x = 1;; x++) {
		fp_t fx, y2, y, four;
		g1_aff_t p;
		fp_from_u64(&fx, x);
		fp_from_u64(&four, 4);
		fp_sqr(&y2, &fx);
		fp_mul(&y2, &y2, &fx);
		fp_add(&y2, &y2, &four);
		if (!fp_sqrt(&y, &y2))
			continue;
		p.x = fx;
		p.y = y;
		if (g1_aff_in_subgroup(&p))
			continue;
		g1_encode_uncompressed(out, &p);
		return;
	}
}

/* Byte offsets in the file of make_params. */
#define VK_FIXED 864
#define OFF_IC_COUNT VK_FIXED
#define OFF_H_COUNT (OFF_IC_COUNT + 4 + 2 * 96)
#define OFF_L_COUNT (OFF_H_COUNT + 4 + 3 * 96)
#define OFF_A_COUNT (OFF_L_COUNT + 4 + 4 * 96)
#define OFF_B1_COUNT (OFF_A_COUNT + 4 + 5 * 96)
#define OFF_B2_COUNT (OFF_B1_COUNT + 4 + 2 * 96)
#define FILE_LEN (OFF_B2_COUNT + 4 + 2 * 192)

/* The counts from the section headers alone; a file whose counts do not
 * add up to its size is refused, naming the section. */
static void test_counts(const char *path, const uint8_t *file, size_t len)
{
	groth16_params_counts n;
	cuzk_error err;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	REQUIRE(groth16_params_counts_fd(&n, fd, len, "x.params", &err) == 0);
	CHECK(n.n_ic == 2 && n.n_h == 3 && n.n_l == 4 && n.n_a == 5 && n.n_b_g1 == 2 && n.n_b_g2 == 2);
	EXPECT_FAIL(groth16_params_counts_fd(&n, fd, len - 1, "x.params", &err), &err, CUZK_E_FORMAT,
		    "x.params: section b_g2 (2 points) runs past the end");
	EXPECT_FAIL(groth16_params_counts_fd(&n, fd, OFF_H_COUNT + 2, "x.params", &err), &err, CUZK_E_FORMAT,
		    "the h count at offset");
	close(fd);
	uint8_t *buf = malloc(len + 100);
	REQUIRE(buf);
	memcpy(buf, file, len);
	memset(buf + len, 0, 100);
	fd = open(path, O_RDWR | O_TRUNC | O_CLOEXEC);
	REQUIRE(fd >= 0 && write(fd, buf, len + 100) == (ssize_t)(len + 100));
	EXPECT_FAIL(groth16_params_counts_fd(&n, fd, len + 100, "x.params", &err), &err, CUZK_E_FORMAT,
		    "100 unexpected bytes");
	close(fd);
	free(buf);
}

static void test_params(const char *path)
{
	groth16_params p, back;
	cuzk_error err;
	make_params(&p);
	REQUIRE(groth16_params_write(&p, path, &err) == 0);
	REQUIRE(groth16_params_read(&back, path, GROTH16_PARAMS_CHECK_DEFAULT, &err) == 0);
	CHECK(vk_eq(&p.vk, &back.vk));
	CHECK(back.n_h == 3 && back.n_l == 4 && back.n_a == 5 && back.n_b_g1 == 2 && back.n_b_g2 == 2);
	CHECK(g1_arr_eq(p.h, back.h, 3) && g1_arr_eq(p.l, back.l, 4) && g1_arr_eq(p.a, back.a, 5));
	CHECK(g1_arr_eq(p.b_g1, back.b_g1, 2));
	CHECK(g2_aff_eq(&p.b_g2[0], &back.b_g2[0]) && g2_aff_eq(&p.b_g2[1], &back.b_g2[1]));
	CHECK(g1_aff_is_infinity(&back.l[3]));
	groth16_params_free(&back);

	size_t len;
	uint8_t *file = test_slurp(path, &len);
	REQUIRE(len == FILE_LEN);
	uint8_t *buf = malloc(len + 8);
	REQUIRE(buf);

	/* Every truncation is a format error that names the file. */
	for (size_t n = 0; n < len; n++) {
		int rc = groth16_params_parse_mem(&back, file, n, "x.params", BLS_CHECK_ALL, &err);
		CHECK_MSG(rc == -CUZK_E_FORMAT, "truncated to %zu: rc %d (%s)", n, rc, err.msg);
		CHECK(strncmp(err.msg, "x.params: ", 10) == 0);
	}
	/* A count past the end: exactly the message the issue asks for. */
	memcpy(buf, file, len);
	buf[OFF_B2_COUNT + 2] = 0x13, buf[OFF_B2_COUNT + 3] = 0x88;  /* 5000 */
	groth16_params_parse_mem(&back, buf, len, "x.params", BLS_CHECK_ALL, &err);
	char want[200];
	snprintf(want, sizeof(want),
		 "x.params: section b_g2: count 5000 needs 960000 bytes at offset %d but the file has %d left",
		 OFF_B2_COUNT + 4, 2 * 192);
	CHECK_MSG(strcmp(err.msg, want) == 0, "'%s'", err.msg);
	memcpy(buf, file, len);
	memset(buf + OFF_H_COUNT, 0xff, 4);
	EXPECT_FAIL(groth16_params_parse_mem(&back, buf, len, "x.params", BLS_CHECK_ALL, &err), &err,
		    CUZK_E_FORMAT, "section h: count 4294967295");
	/* Trailing bytes. */
	memcpy(buf, file, len);
	EXPECT_FAIL(groth16_params_parse_mem(&back, buf, len + 8, "x.params", BLS_CHECK_ALL, &err), &err,
		    CUZK_E_FORMAT, "8 unexpected bytes");
	/* A point not on the curve in section l, point 2. */
	memcpy(buf, file, len);
	size_t at = OFF_L_COUNT + 4 + 2 * 96;
	buf[at + 95] ^= 1;
	EXPECT_FAIL(groth16_params_parse_mem(&back, buf, len, "x.params", BLS_CHECK_ALL, &err), &err,
		    CUZK_E_NOT_ON_CURVE, "section l: point 2 at offset");
	snprintf(want, sizeof(want), "offset %zu:", at);
	CHECK_MSG(strstr(err.msg, want) != NULL, "'%s'", err.msg);
	/* Bad flags in b_g2, and a non-canonical coordinate in a. */
	memcpy(buf, file, len);
	buf[OFF_B2_COUNT + 4 + 192] |= 0x80;
	EXPECT_FAIL(groth16_params_parse_mem(&back, buf, len, "x.params", BLS_CHECK_ALL, &err), &err,
		    CUZK_E_FLAGS, "section b_g2: point 1");
	memcpy(buf, file, len);
	memset(buf + OFF_A_COUNT + 4 + 96 + 1, 0xff, 47);
	buf[OFF_A_COUNT + 4 + 96] = 0x1f;
	EXPECT_FAIL(groth16_params_parse_mem(&back, buf, len, "x.params", BLS_CHECK_ALL, &err), &err,
		    CUZK_E_NONCANONICAL, "section a: point 1");
	/* Off the subgroup in h: rejected by default, accepted when trusted. */
	memcpy(buf, file, len);
	off_subgroup_point(buf + OFF_H_COUNT + 4);
	EXPECT_FAIL(groth16_params_parse_mem(&back, buf, len, "x.params", BLS_CHECK_ALL, &err), &err,
		    CUZK_E_NOT_IN_SUBGROUP, "section h: point 0");
	CHECK(groth16_params_parse_mem(&back, buf, len, "x.params", BLS_CHECK_NONE, &err) == 0);
	groth16_params_free(&back);
	/* ... but never in the VK (ic, and the fixed points). */
	memcpy(buf, file, len);
	off_subgroup_point(buf + OFF_IC_COUNT + 4 + 96);
	EXPECT_FAIL(groth16_params_parse_mem(&back, buf, len, "x.params", BLS_CHECK_NONE, &err), &err,
		    CUZK_E_NOT_IN_SUBGROUP, "section ic: point 1");
	memcpy(buf, file, len);
	off_subgroup_point(buf + 96);  /* beta_g1 */
	EXPECT_FAIL(groth16_params_parse_mem(&back, buf, len, "x.params", BLS_CHECK_NONE, &err), &err,
		    CUZK_E_NOT_IN_SUBGROUP, "section vk: beta_g1 at offset 96");
	CHECK(groth16_params_read(&back, "/nonexistent/x.params", BLS_CHECK_ALL, &err) == -CUZK_E_NOTFOUND);
	test_counts(path, file, len);

	/* The VK alone. */
	groth16_vk vk, vk2;
	REQUIRE(groth16_vk_write(&p.vk, path, &err) == 0);
	REQUIRE(groth16_vk_read(&vk, path, &err) == 0);
	CHECK(vk_eq(&vk, &p.vk));
	CHECK(groth16_vk_encoded_size(2) == VK_FIXED + 4 + 2 * 96);
	REQUIRE(groth16_vk_copy(&vk2, &vk, &err) == 0);
	CHECK(vk_eq(&vk, &vk2) && vk2.ic != vk.ic);
	groth16_vk_free(&vk);
	groth16_vk_free(&vk2);
	/* A params file is not a VK file (trailing sections). */
	EXPECT_FAIL(groth16_vk_parse_mem(&vk, file, len, "x.vk", &err), &err, CUZK_E_FORMAT, "unexpected bytes");
	EXPECT_FAIL(groth16_vk_parse_mem(&vk, file, 500, "x.vk", &err), &err, CUZK_E_FORMAT,
		    "x.vk: section vk: the verifying key needs 864 bytes at offset 0 but the file has 500 left");
	free(buf);
	free(file);
	groth16_params_free(&p);
	groth16_params_free(&p);  /* safe twice */
}

static void test_proofs(const char *path)
{
	groth16_proof pr[3], back, *many;
	size_t n;
	cuzk_error err;
	for (int i = 0; i < 3; i++) {
		g1_times(&pr[i].a, 100 + (uint64_t)i);
		g2_times(&pr[i].b, 200 + (uint64_t)i);
		g1_times(&pr[i].c, 300 + (uint64_t)i);
	}
	uint8_t enc[GROTH16_PROOF_SIZE];
	groth16_proof_encode(enc, &pr[1]);
	REQUIRE(groth16_proof_decode(&back, enc, sizeof(enc), &err) == 0);
	CHECK(g1_aff_eq(&back.a, &pr[1].a) && g2_aff_eq(&back.b, &pr[1].b) && g1_aff_eq(&back.c, &pr[1].c));
	CHECK(enc[0] & 0x80);  /* compressed */
	EXPECT_FAIL(groth16_proof_decode(&back, enc, 191, &err), &err, CUZK_E_LENGTH, "191 bytes");
	enc[48] &= 0x7f;  /* B loses its compression flag */
	EXPECT_FAIL(groth16_proof_decode(&back, enc, sizeof(enc), &err), &err, CUZK_E_FLAGS, "B at offset 48");

	REQUIRE(groth16_proofs_write(pr, 3, path, &err) == 0);
	REQUIRE(groth16_proofs_read(&many, &n, path, &err) == 0);
	CHECK(n == 3);
	for (int i = 0; i < 3; i++)
		CHECK(g1_aff_eq(&many[i].a, &pr[i].a) && g2_aff_eq(&many[i].b, &pr[i].b) &&
		      g1_aff_eq(&many[i].c, &pr[i].c));
	free(many);
	REQUIRE(truncate(path, 3 * 192 - 1) == 0);
	EXPECT_FAIL(groth16_proofs_read(&many, &n, path, &err), &err, CUZK_E_LENGTH, "575 bytes");
	FILE *f = fopen(path, "r+b");
	REQUIRE(f);
	REQUIRE(ftruncate(fileno(f), 2 * 192) == 0);
	REQUIRE(fseek(f, 192 + 144 + 47, SEEK_SET) == 0);  /* proof 1, C's last byte */
	fputc(0x55, f);
	fclose(f);
	/* The changed x has no y, or its point lies outside the subgroup. */
	int rc = groth16_proofs_read(&many, &n, path, &err);
	CHECK(rc == -CUZK_E_NOT_ON_CURVE || rc == -CUZK_E_NOT_IN_SUBGROUP);
	CHECK_MSG(strstr(err.msg, "proof 1: C at offset 336") != NULL, "'%s'", err.msg);
}

/* Points k·G for k = first, first + 1, ...: additions, cheap for thousands. */
static void g1_run(g1_aff_t *out, size_t n, uint64_t first)
{
	g1_jac_t g, acc;
	g1_aff_t a;
	g1_from_affine(&g, &G1_GENERATOR);
	g1_times(&a, first);
	g1_from_affine(&acc, &a);
	for (size_t i = 0; i < n; i++) {
		g1_to_affine(&out[i], &acc);
		g1_add(&acc, &acc, &g);
	}
}

static void g2_run(g2_aff_t *out, size_t n, uint64_t first)
{
	g2_jac_t g, acc;
	g2_aff_t a;
	g2_from_affine(&g, &G2_GENERATOR);
	g2_times(&a, first);
	g2_from_affine(&acc, &a);
	for (size_t i = 0; i < n; i++) {
		g2_to_affine(&out[i], &acc);
		g2_add(&acc, &acc, &g);
	}
}

/* The section writer over files larger than its buffers (24 MiB): points
 * put in runs of odd lengths read back as they went in, across every
 * buffer boundary (one falls in h, one in b_g2), and an empty section
 * between. */
static void test_writer_buffers(const char *path)
{
	const size_t n[6] = { 3, 300000, 3, 0, 100000, 100000 };
	const size_t period = 4099;   /* real points, tiled: prime, so no run lines up with it */
	groth16_params p, back;
	cuzk_error err;
	REQUIRE(groth16_params_alloc(&p, n[0], n[1], n[2], n[3], n[4], n[5], &err) == 0);
	make_vk_points(&p.vk);
	g1_aff_t *g1 = p.storage;
	size_t n_g1 = n[0] + n[1] + n[2] + n[3] + n[4];
	g1_run(g1, period, 10);
	for (size_t i = period; i < n_g1; i++)
		g1[i] = g1[i % period];
	g2_run(p.b_g2, period, 20000);
	for (size_t i = period; i < n[5]; i++)
		p.b_g2[i] = p.b_g2[i % period];
	memset(&p.h[200001], 0, sizeof(p.h[0]));   /* identity points */
	memset(&p.b_g2[77777], 0, sizeof(p.b_g2[0]));

	size_t counts[GROTH16_PARAMS_SECTIONS] = { n[1], n[2], n[3], n[4], n[5] };
	const size_t runs[] = { 1, 4097, 65539, 100, 262147 };
	groth16_params_writer w;
	REQUIRE(groth16_params_writer_open(&w, path, &p.vk, counts, &err) == 0);
	/* The G1 runs cross the sections' ends (h, l, a and b_g1 lie one
	 * after the other in p's storage): the writer takes any split. */
	const size_t n_g1_queries = n_g1 - n[0];
	for (size_t i = 0, r = 0; i < n_g1_queries; r++) {
		size_t k = runs[r % 5] < n_g1_queries - i ? runs[r % 5] : n_g1_queries - i;
		CHECK(groth16_params_writer_put(&w, p.h + i, k, &err) == 0);
		i += k;
	}
	async_writer_stats mid, st;
	groth16_params_writer_get_stats(&w, &mid);
	for (size_t i = 0, r = 3; i < n[5]; r++) {
		size_t k = runs[r % 5] < n[5] - i ? runs[r % 5] : n[5] - i;
		CHECK(groth16_params_writer_put(&w, p.b_g2 + i, k, &err) == 0);
		i += k;
	}
	/* fsync'd: the same file, and the writer's measures say what it wrote. */
	CHECK_MSG(groth16_params_writer_finish(&w, ASYNC_WRITER_FSYNC, &err) == 0, "%s", err.msg);
	groth16_params_writer_get_stats(&w, &st);
	struct stat sb;
	REQUIRE(stat(path, &sb) == 0);
	CHECK_MSG(st.bytes == (uint64_t)sb.st_size && mid.bytes > 0 && mid.bytes < st.bytes,
		  "%llu bytes (%llu half-way), the file %lld", (unsigned long long)st.bytes,
		  (unsigned long long)mid.bytes, (long long)sb.st_size);
	CHECK_MSG(st.buffers == 3 && st.blocked_ms >= 0 && st.write_ms >= 0 && st.sync_ms >= 0,
		  "%llu buffers of 24 MiB for 57.6 MB", (unsigned long long)st.buffers);
	CHECK(memcmp(&st, &w.stats, sizeof(st)) == 0);

	REQUIRE(groth16_params_read(&back, path, BLS_CHECK_CURVE, &err) == 0);
	CHECK(vk_eq(&back.vk, &p.vk));
	CHECK(back.n_h == n[1] && back.n_l == n[2] && back.n_a == 0 && back.n_b_g1 == n[4] && back.n_b_g2 == n[5]);
	CHECK(back.storage_len == p.storage_len && memcmp(back.storage, p.storage, p.storage_len) == 0);
	groth16_params_free(&back);
	groth16_params_free(&p);
}

/* The section writer's refusals: points past the counts, points missing,
 * and a write that fails (/dev/full), met by the next put (the ring of two
 * buffers is full, so the put waits for the failed write) and by close. */
static void test_writer_errors(const char *path)
{
	groth16_params p;
	groth16_params_writer w;
	cuzk_error err;
	make_params(&p);
	size_t counts[GROTH16_PARAMS_SECTIONS] = { p.n_h, p.n_l, p.n_a, p.n_b_g1, p.n_b_g2 };
	REQUIRE(groth16_params_writer_open(&w, path, &p.vk, counts, &err) == 0);
	CHECK(groth16_params_writer_put(&w, p.h, p.n_h + p.n_l + p.n_a, &err) == 0);
	EXPECT_FAIL(groth16_params_writer_put(&w, p.b_g1, 5, &err), &err, CUZK_E_INVAL,
		    "points more than the sections hold");
	EXPECT_FAIL(groth16_params_writer_put(&w, p.b_g1, 1, &err), &err, CUZK_E_INVAL,
		    "more points than the sections hold");
	EXPECT_FAIL(groth16_params_writer_close(&w, &err), &err, CUZK_E_INVAL, "more points than the sections hold");
	REQUIRE(groth16_params_writer_open(&w, path, &p.vk, counts, &err) == 0);
	CHECK(groth16_params_writer_put(&w, p.h, 2, &err) == 0);
	EXPECT_FAIL(groth16_params_writer_close(&w, &err), &err, CUZK_E_INVAL, "section h is 1 points short");

	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "SKIP part: /dev/full: %s\n", strerror(errno));
		groth16_params_free(&p);
		return;
	}
	close(fd);
	/* The small file goes in one buffer: close's write fails. */
	REQUIRE(groth16_params_writer_open(&w, "/dev/full", &p.vk, counts, &err) == 0);
	const void *arrays[GROTH16_PARAMS_SECTIONS] = { p.h, p.l, p.a, p.b_g1, p.b_g2 };
	for (int q = 0; q < GROTH16_PARAMS_SECTIONS; q++)
		CHECK(groth16_params_writer_put(&w, arrays[q], counts[q], &err) == 0);
	char want[100];
	snprintf(want, sizeof(want), "/dev/full: writing %d bytes at offset 0: ", FILE_LEN);
	EXPECT_FAIL(groth16_params_writer_close(&w, &err), &err, CUZK_E_IO, want);
	groth16_params_free(&p);

	/* 57.6 MB of h (identity points: cheap to encode) fill more than the
	 * two 24 MiB buffers. */
	const size_t many = 600000;
	g1_aff_t *zero = calloc(many, sizeof(*zero));
	REQUIRE(zero);
	groth16_vk vk = { .n_ic = 0 };
	make_vk_points(&vk);
	size_t big[GROTH16_PARAMS_SECTIONS] = { many, 0, 0, 0, 0 };
	REQUIRE(groth16_params_writer_open(&w, "/dev/full", &vk, big, &err) == 0);
	EXPECT_FAIL(groth16_params_writer_put(&w, zero, many, &err), &err, CUZK_E_IO, "/dev/full: writing ");
	CHECK_MSG(strstr(err.msg, "bytes at offset 0: ") != NULL, "'%s'", err.msg);
	EXPECT_FAIL(groth16_params_writer_put(&w, zero, 1, &err), &err, CUZK_E_IO, "bytes at offset 0: ");
	EXPECT_FAIL(groth16_params_writer_close(&w, &err), &err, CUZK_E_IO, "bytes at offset 0: ");
	free(zero);
}

/* What an upload beside the decoding sees: each call's run copied into a
 * shadow of the arrays, as a GPU upload would copy it. */
struct shadow {
	groth16_params copy;   /* same counts, own storage */
	uint64_t last, calls, total;
	unsigned stopped;      /* calls with p = NULL */
	int bad;               /* a call out of order, or a first call without the arrays */
};

static void shadow_decoded(void *ctx, const groth16_params *p, uint64_t done)
{
	struct shadow *s = ctx;
	if (!p) {   /* the load failed: no more reading */
		s->stopped++;
		return;
	}
	s->bad |= s->stopped != 0;
	if (s->calls++ == 0) {
		s->bad |= done != 0 || p->n_h != s->copy.n_h || p->n_b_g2 != s->copy.n_b_g2;
		return;
	}
	s->bad |= done <= s->last || done > s->total;
	const void *src[6] = { p->vk.ic, p->h, p->l, p->a, p->b_g1, p->b_g2 };
	void *dst[6] = { s->copy.vk.ic, s->copy.h, s->copy.l, s->copy.a, s->copy.b_g1, s->copy.b_g2 };
	size_t n[6] = { p->vk.n_ic, p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2 }, at = 0;
	for (int q = 0; q < 6; q++) {
		size_t size = q == 5 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
		size_t lo = s->last > at ? s->last - at : 0, hi = done - at < n[q] ? done - at : n[q];
		if (done > at && lo < hi)
			memcpy((char *)dst[q] + lo * size, (const char *)src[q] + lo * size, (hi - lo) * size);
		at += n[q];
		if (at >= done)
			break;
	}
	s->last = done;
}

/* Params large enough for many blocks on several threads (ic, h, l, a,
 * b_g1, b_g2: MANY_N), written to path. */
static const size_t MANY_N[6] = { 3, 3000, 2000, 1000, 500, 700 };

static void write_many(groth16_params *p, const char *path)
{
	const size_t *n = MANY_N;
	cuzk_error err;
	REQUIRE(groth16_params_alloc(p, n[0], n[1], n[2], n[3], n[4], n[5], &err) == 0);
	make_vk_points(&p->vk);
	g1_run(p->storage, n[0] + n[1] + n[2] + n[3] + n[4], 10);
	g2_run(p->b_g2, n[5], 20000);
	memset(&p->h[17], 0, sizeof(p->h[17]));   /* an identity point */
	REQUIRE(groth16_params_write(p, path, &err) == 0);
}

/* The decoded run grows in order and what it announced is what the load
 * returns; a bad point stops it short of that point, and the file (pread)
 * and memory paths name the same point. */
static void test_decoded_run(const char *path)
{
	const size_t *n = MANY_N;
	groth16_params p, back;
	cuzk_error err, err2;
	write_many(&p, path);
	setenv("CUZK_THREADS", "4", 1);

	struct shadow s = { .total = n[0] + n[1] + n[2] + n[3] + n[4] + n[5] };
	REQUIRE(groth16_params_alloc(&s.copy, n[0], n[1], n[2], n[3], n[4], n[5], &err) == 0);
	groth16_params_load_opts o = { .checks = BLS_CHECK_CURVE, .decoded = shadow_decoded, .decoded_ctx = &s };
	REQUIRE(groth16_params_read_opts(&back, path, &o, &err) == 0);
	CHECK_MSG(!s.bad && s.last == s.total && s.calls >= 2 && !s.stopped, "calls %llu, last %llu of %llu, bad %d",
		  (unsigned long long)s.calls, (unsigned long long)s.last, (unsigned long long)s.total, s.bad);
	CHECK(s.copy.storage_len == back.storage_len && memcmp(s.copy.storage, back.storage, back.storage_len) == 0);
	CHECK(memcmp(back.storage, p.storage, p.storage_len) == 0);
	groth16_params_free(&back);

	/* l's point 1500 off the curve: global point 3 + 3000 + 1500. */
	size_t len;
	uint8_t *file = test_slurp(path, &len);
	size_t at = VK_FIXED + 4 + n[0] * 96 + 4 + n[1] * 96 + 4 + 1500 * 96;
	file[at + 95] ^= 1;
	FILE *f = fopen(path, "wb");
	REQUIRE(f && fwrite(file, 1, len, f) == len && fclose(f) == 0);
	s.last = s.calls = 0;
	s.stopped = 0;
	EXPECT_FAIL(groth16_params_read_opts(&back, path, &o, &err), &err, CUZK_E_NOT_ON_CURVE,
		    "section l: point 1500 at offset");
	CHECK_MSG(!s.bad && s.last <= n[0] + n[1] + 1500 && s.stopped == 1,
		  "decoded up to %llu past the bad point, %u stops", (unsigned long long)s.last, s.stopped);
	EXPECT_FAIL(groth16_params_parse_mem(&back, file, len, path, BLS_CHECK_CURVE, &err2), &err2,
		    CUZK_E_NOT_ON_CURVE, "section l: point 1500 at offset");
	CHECK_MSG(strcmp(err.msg, err2.msg) == 0, "'%s' / '%s'", err.msg, err2.msg);
	/* A file cut short is caught by the walk of the counts, before any
	 * point is read: the same message on both paths. */
	REQUIRE(truncate(path, (off_t)(len - 10)) == 0);
	EXPECT_FAIL(groth16_params_read(&back, path, BLS_CHECK_CURVE, &err), &err, CUZK_E_FORMAT, "section b_g2");
	EXPECT_FAIL(groth16_params_parse_mem(&back, file, len - 10, path, BLS_CHECK_CURVE, &err2), &err2,
		    CUZK_E_FORMAT, "section b_g2");
	CHECK_MSG(strcmp(err.msg, err2.msg) == 0, "'%s' / '%s'", err.msg, err2.msg);
	unsetenv("CUZK_THREADS");
	free(file);
	groth16_params_free(&s.copy);
	groth16_params_free(&p);
}

/* A stand-in for the GPU's point decoder (the load's hook, params_io.h),
 * decoding with the CPU's g1_decode / g2_decode, that also notes what the
 * loader gave it and can misbehave on demand. */
struct mock_decoder {
	atomic_size_t points;        /* handed to decode */
	atomic_uint begun, ended, refused;
	unsigned refuse_every;       /* begin fails on every k-th thread (0: never) */
	const uint8_t *liar;         /* a valid point's bytes that decode refuses anyway (NULL: none) */
	size_t liar_len;
	int device_error;            /* decode fails as a lost device would */
	atomic_int bad;              /* a call the hook's rules forbid */
};

struct mock_thread {
	uint8_t *buf;
	size_t bytes;
};

static void *mock_begin(void *ctx, size_t bytes, uint8_t **ret_buf)
{
	struct mock_decoder *m = ctx;
	unsigned k = atomic_fetch_add(&m->begun, 1) + 1;
	struct mock_thread *t = malloc(sizeof(*t));
	if (m->refuse_every && k % m->refuse_every == 0) {
		atomic_fetch_add(&m->refused, 1);
		atomic_fetch_add(&m->ended, 1);   /* no end comes for it */
		free(t);
		return NULL;
	}
	REQUIRE(t && (t->buf = malloc(bytes)));
	t->bytes = bytes;
	*ret_buf = t->buf;
	return t;
}

/* Rejects what the CPU rejects (and the liar's point), reports the lowest,
 * and leaves rubbish in the slots from it on: the loader must not keep it. */
static int mock_decode(void *ctx, void *thread, void *dst, const uint8_t *src, size_t n, int g2, unsigned checks,
		       size_t *ret_bad, cuzk_error *err)
{
	struct mock_decoder *m = ctx;
	struct mock_thread *t = thread;
	const size_t size = g2 ? G2_UNCOMPRESSED_SIZE : G1_UNCOMPRESSED_SIZE;
	if (n == 0 || n * size > t->bytes || (checks & BLS_CHECK_SUBGROUP))
		atomic_store(&m->bad, 1);
	atomic_fetch_add(&m->points, n);
	if (m->device_error)
		return err_fail(err, CUZK_E_GPU, "mock device: lost");
	*ret_bad = SIZE_MAX;
	for (size_t k = 0; k < n && *ret_bad == SIZE_MAX; k++) {
		cuzk_error e;
		uint8_t *d = (uint8_t *)dst + k * size;
		const uint8_t *in = src + k * size;
		int rc = g2 ? g2_decode((g2_aff_t *)d, in, size, checks, &e) : g1_decode((g1_aff_t *)d, in, size, checks, &e);
		if (rc < 0 || (m->liar && m->liar_len == size && memcmp(in, m->liar, size) == 0))
			*ret_bad = k;
	}
	if (*ret_bad != SIZE_MAX)
		memset((uint8_t *)dst + *ret_bad * size, 0xa5, (n - *ret_bad) * size);
	return 0;
}

static void mock_end(void *ctx, void *thread)
{
	struct mock_decoder *m = ctx;
	struct mock_thread *t = thread;
	atomic_fetch_add(&m->ended, 1);
	free(t->buf);
	free(t);
}

static void mock_reset(struct mock_decoder *m)
{
	atomic_store(&m->points, 0);
	atomic_store(&m->begun, 0);
	atomic_store(&m->ended, 0);
	atomic_store(&m->refused, 0);
	atomic_store(&m->bad, 0);
	m->refuse_every = 0;
	m->liar = NULL;
	m->device_error = 0;
}

/* 512-point blocks: several a thread, and runs that cross the sections. */
static const groth16_point_decoder MOCK = { 512, mock_begin, mock_decode, mock_end };

/* Loads path with and without the mock at these checks; both must agree
 * (the same bytes, or the same code and message).  Returns the load's
 * code; *via holds the decoder's params when it is 0. */
static int load_both(const char *path, struct mock_decoder *m, unsigned checks, groth16_params *via,
		     cuzk_error *err)
{
	groth16_params plain;
	cuzk_error perr;
	groth16_params_load_opts o = { .checks = checks, .decoder = &MOCK, .decoder_ctx = m };
	int rc = groth16_params_read_opts(via, path, &o, err);
	int prc = groth16_params_read(&plain, path, checks, &perr);
	CHECK_MSG(rc == prc, "decoder %d (%s), plain %d (%s)", rc, rc ? err->msg : "", prc, prc ? perr.msg : "");
	if (rc == 0 && prc == 0)
		CHECK(vk_eq(&via->vk, &plain.vk) && via->storage_len == plain.storage_len &&
		      memcmp(via->storage, plain.storage, plain.storage_len) == 0);
	if (rc < 0 && prc < 0)
		CHECK_MSG(err->code == perr.code && strcmp(err->msg, perr.msg) == 0, "decoder '%s' / plain '%s'",
			  err->msg, perr.msg);
	if (prc == 0)
		groth16_params_free(&plain);
	CHECK_MSG(!atomic_load(&m->bad) && atomic_load(&m->begun) == atomic_load(&m->ended),
		  "bad call %d, %u begun, %u ended", atomic_load(&m->bad), atomic_load(&m->begun),
		  atomic_load(&m->ended));
	return rc;
}

static void rewrite(const char *path, const uint8_t *file, size_t len)
{
	FILE *f = fopen(path, "wb");
	REQUIRE(f && fwrite(file, 1, len, f) == len && fclose(f) == 0);
}

/* The load through a decoder (the mock): the params of the plain path at
 * both of its checks, from a file and from memory, every query point through
 * it and none of ic's; a point it refuses wrongly decoded again by the CPU;
 * threads without it on the CPU; subgroup checks without it; decoded
 * callbacks in order; a bad point in each section, and in ic, reported as
 * the plain path reports it; a failing decoder names the section and the
 * offset. */
static void test_decoder(const char *path)
{
	const size_t *n = MANY_N;
	const size_t total = n[0] + n[1] + n[2] + n[3] + n[4] + n[5], queries = total - n[0];
	groth16_params p, back;
	cuzk_error err;
	struct mock_decoder m = { 0 };
	write_many(&p, path);
	setenv("CUZK_THREADS", "4", 1);
	size_t len;
	uint8_t *file = test_slurp(path, &len);
	const size_t off[6] = {
		VK_FIXED + 4,
		VK_FIXED + 4 + n[0] * 96 + 4,
		VK_FIXED + 4 + (n[0] + n[1]) * 96 + 8,
		VK_FIXED + 4 + (n[0] + n[1] + n[2]) * 96 + 12,
		VK_FIXED + 4 + (n[0] + n[1] + n[2] + n[3]) * 96 + 16,
		VK_FIXED + 4 + (n[0] + n[1] + n[2] + n[3] + n[4]) * 96 + 20,
	};

	const unsigned levels[2] = { BLS_CHECK_NONE, BLS_CHECK_CURVE };
	for (int i = 0; i < 2; i++) {
		mock_reset(&m);
		REQUIRE(load_both(path, &m, levels[i], &back, &err) == 0);
		CHECK(memcmp(back.storage, p.storage, p.storage_len) == 0);
		CHECK_MSG(atomic_load(&m.points) == queries && atomic_load(&m.begun) >= 1,
			  "checks %u: %zu points through the decoder, %zu expected", levels[i],
			  atomic_load(&m.points), queries);
		groth16_params_free(&back);
		mock_reset(&m);
		groth16_params_load_opts o = { .checks = levels[i], .decoder = &MOCK, .decoder_ctx = &m };
		REQUIRE(groth16_params_parse_mem_opts(&back, file, len, path, &o, &err) == 0);
		CHECK(memcmp(back.storage, p.storage, p.storage_len) == 0 && atomic_load(&m.points) == queries);
		groth16_params_free(&back);
	}

	/* A valid point refused (h's 1234th, far into a block): the CPU
	 * decodes it and the rest of its run. */
	mock_reset(&m);
	m.liar = file + off[1] + 1234 * 96;
	m.liar_len = 96;
	REQUIRE(load_both(path, &m, BLS_CHECK_CURVE, &back, &err) == 0);
	CHECK(memcmp(back.storage, p.storage, p.storage_len) == 0);
	groth16_params_free(&back);

	/* Every other thread without the decoder: it decodes on the CPU. */
	mock_reset(&m);
	m.refuse_every = 2;
	REQUIRE(load_both(path, &m, BLS_CHECK_CURVE, &back, &err) == 0);
	CHECK(memcmp(back.storage, p.storage, p.storage_len) == 0 && atomic_load(&m.refused) >= 1);
	groth16_params_free(&back);

	/* Subgroup checks: not given to the decoder. */
	mock_reset(&m);
	REQUIRE(load_both(path, &m, BLS_CHECK_ALL, &back, &err) == 0);
	CHECK(atomic_load(&m.points) == 0 && atomic_load(&m.begun) == 0);
	groth16_params_free(&back);

	/* The decoded run, in order, through the decoder. */
	struct shadow s = { .total = total };
	REQUIRE(groth16_params_alloc(&s.copy, n[0], n[1], n[2], n[3], n[4], n[5], &err) == 0);
	mock_reset(&m);
	groth16_params_load_opts o = { .checks = BLS_CHECK_CURVE, .decoded = shadow_decoded, .decoded_ctx = &s,
				       .decoder = &MOCK, .decoder_ctx = &m };
	REQUIRE(groth16_params_read_opts(&back, path, &o, &err) == 0);
	CHECK_MSG(!s.bad && s.last == s.total && s.calls >= 2 && !s.stopped, "calls %llu, last %llu of %llu, bad %d",
		  (unsigned long long)s.calls, (unsigned long long)s.last, (unsigned long long)s.total, s.bad);
	CHECK(memcmp(s.copy.storage, back.storage, back.storage_len) == 0);
	groth16_params_free(&back);

	/* One bad point in each section (and one in ic, the VK's, which the
	 * CPU checks in full): the plain path's code and message. */
	struct {
		int q;
		size_t point;
		int kind;           /* 0 off the curve, 1 compressed flag, 2 x >= p, 3 infinity with a stray bit, 4 off the subgroup */
		unsigned checks;
		int code;
	} bad[] = {
		{ 1, 2047, 0, BLS_CHECK_CURVE, CUZK_E_NOT_ON_CURVE },
		{ 2, 1500, 1, BLS_CHECK_CURVE, CUZK_E_FLAGS },
		{ 3, 999, 2, BLS_CHECK_NONE, CUZK_E_NONCANONICAL },
		{ 4, 0, 3, BLS_CHECK_CURVE, CUZK_E_FLAGS },
		{ 5, 350, 0, BLS_CHECK_CURVE, CUZK_E_NOT_ON_CURVE },
		{ 5, 699, 1, BLS_CHECK_NONE, CUZK_E_FLAGS },
		{ 0, 2, 4, BLS_CHECK_NONE, CUZK_E_NOT_IN_SUBGROUP },
	};
	uint8_t *buf = malloc(len);
	REQUIRE(buf);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const size_t size = bad[i].q == 5 ? 192 : 96, at = off[bad[i].q] + bad[i].point * size;
		memcpy(buf, file, len);
		uint8_t *pt = buf + at;
		if (bad[i].kind == 0)
			pt[size - 1] ^= 1;
		else if (bad[i].kind == 1)
			pt[0] |= 0x80;
		else if (bad[i].kind == 2)
			pt[0] = 0x1f, memset(pt + 1, 0xff, 47);
		else if (bad[i].kind == 3)
			memset(pt, 0, size), pt[0] = 0x40, pt[5] = 1;
		else
			off_subgroup_point(pt);
		rewrite(path, buf, len);
		mock_reset(&m);
		char want[120];
		snprintf(want, sizeof(want), "section %s: point %zu at offset %zu: ",
			 (const char *[]){ "ic", "h", "l", "a", "b_g1", "b_g2" }[bad[i].q], bad[i].point, at);
		EXPECT_FAIL(load_both(path, &m, bad[i].checks, &back, &err), &err, bad[i].code, want);
	}
	/* Two: the first in the file is reported. */
	memcpy(buf, file, len);
	buf[off[5] + 10 * 192] |= 0x80;
	buf[off[2] + 1999 * 96 + 95] ^= 1;
	rewrite(path, buf, len);
	mock_reset(&m);
	EXPECT_FAIL(load_both(path, &m, BLS_CHECK_CURVE, &back, &err), &err, CUZK_E_NOT_ON_CURVE,
		    "section l: point 1999 at offset");

	/* A decoder that fails: the run's first point is named.  ic (block
	 * 0's first points) is the CPU's, so the first failure is h's point 0. */
	rewrite(path, file, len);
	mock_reset(&m);
	m.device_error = 1;
	o = (groth16_params_load_opts){ .checks = BLS_CHECK_CURVE, .decoder = &MOCK, .decoder_ctx = &m };
	char want[200];
	snprintf(want, sizeof(want), "%s: section h: point 0 at offset %zu: mock device: lost", path, off[1]);
	EXPECT_FAIL(groth16_params_read_opts(&back, path, &o, &err), &err, CUZK_E_GPU, want);
	CHECK(atomic_load(&m.begun) == atomic_load(&m.ended));
	unsetenv("CUZK_THREADS");
	free(buf);
	free(file);
	groth16_params_free(&s.copy);
	groth16_params_free(&p);
}

int main(void)
{
	char path[256];
	test_temp_file(path, sizeof(path), "params");
	test_params(path);
	test_decoded_run(path);
	test_decoder(path);
	test_writer_buffers(path);
	test_writer_errors(path);
	test_proofs(path);
	unlink(path);
	CHECK_DONE();
}
