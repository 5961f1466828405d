// SPDX-License-Identifier: Apache-2.0 OR MIT
/* circom .r1cs and .wtns: writer/reader round trips and every rejection
 * (wrong prime or field size, truncation at every length, bad wires,
 * non-canonical values, bad sizes). */
#include <stdlib.h>
#include <string.h>

#include "devtools/gencircuit.h"
#include "formats/r1cs.h"
#include "tests/test_files.h"

static int matrix_eq(const r1cs_matrix *x, const r1cs_matrix *y, size_t rows)
{
	if (memcmp(x->off, y->off, (rows + 1) * sizeof(size_t)) != 0)
		return 0;
	for (size_t t = 0; t < x->off[rows]; t++)
		if (x->terms[t].var != y->terms[t].var || !fr_eq(&x->terms[t].coeff, &y->terms[t].coeff))
			return 0;
	return 1;
}

static void test_r1cs_round_trip(const char *path, uint8_t **ret_file, size_t *ret_len)
{
	gencircuit_spec spec = { 6, 3, 42, GENCIRCUIT_SHAPE_BASIC };
	r1cs cs, back;
	fr_t *z;
	cuzk_error err;
	REQUIRE(gencircuit_build(&spec, &cs, &z, &err) == 0);
	REQUIRE(r1cs_write_circom(&cs, path, &err) == 0);
	REQUIRE(r1cs_read_circom(&back, path, &err) == 0);
	CHECK(back.num_inputs == 3 && back.num_aux == cs.num_aux);
	CHECK(back.num_constraints == 64 - 3);
	CHECK(matrix_eq(&cs.a, &back.a, cs.num_constraints));
	CHECK(matrix_eq(&cs.b, &back.b, cs.num_constraints));
	CHECK(matrix_eq(&cs.c, &back.c, cs.num_constraints));
	r1cs_free(&back);
	r1cs_free(&cs);
	free(z);
	*ret_file = test_slurp(path, ret_len);
}

/* The header section starts at 12 + 12: field size, then the prime. */
#define HDR_BODY 24

static void test_r1cs_rejections(const uint8_t *file, size_t len)
{
	uint8_t *buf = malloc(len);
	REQUIRE(buf);
	r1cs cs;
	cuzk_error err;

	/* Every truncation fails cleanly with a format error. */
	for (size_t n = 0; n < len; n++) {
		err.msg[0] = '\0';
		int rc = r1cs_parse_circom_mem(&cs, file, n, "t.r1cs", &err);
		CHECK_MSG(rc == -CUZK_E_FORMAT, "truncated to %zu: rc %d (%s)", n, rc, err.msg);
		CHECK_MSG(strncmp(err.msg, "t.r1cs", 6) == 0, "'%s' does not name the file", err.msg);
		if (rc == 0)
			r1cs_free(&cs);
	}
	EXPECT_FAIL(r1cs_parse_circom_mem(&cs, file, len - 700, "t.r1cs", &err), &err, CUZK_E_FORMAT,
		    "but the file has");

	memcpy(buf, file, len);
	buf[HDR_BODY + 4] ^= 1;  /* the prime's low byte: bn128-like, not r */
	EXPECT_FAIL(r1cs_parse_circom_mem(&cs, buf, len, "t.r1cs", &err), &err, CUZK_E_UNSUPPORTED, "prime");
	memcpy(buf, file, len);
	buf[HDR_BODY] = 48;
	EXPECT_FAIL(r1cs_parse_circom_mem(&cs, buf, len, "t.r1cs", &err), &err, CUZK_E_UNSUPPORTED,
		    "field size 48");
	memcpy(buf, file, len);
	buf[0] = 'x';
	EXPECT_FAIL(r1cs_parse_circom_mem(&cs, buf, len, "t.r1cs", &err), &err, CUZK_E_FORMAT, "magic");
	memcpy(buf, file, len);
	buf[4] = 2;
	EXPECT_FAIL(r1cs_parse_circom_mem(&cs, buf, len, "t.r1cs", &err), &err, CUZK_E_VERSION, "version 2");
	/* nPubIn larger than nWires allows */
	memcpy(buf, file, len);
	buf[HDR_BODY + 36 + 8] = 200;
	EXPECT_FAIL(r1cs_parse_circom_mem(&cs, buf, len, "t.r1cs", &err), &err, CUZK_E_FORMAT, "nWires");
	/* mConstraints far past what the section holds */
	memcpy(buf, file, len);
	buf[HDR_BODY + 36 + 16 + 8 + 3] = 0x7f;
	EXPECT_FAIL(r1cs_parse_circom_mem(&cs, buf, len, "t.r1cs", &err), &err, CUZK_E_FORMAT, "mConstraints");
	/* The first term of constraint 0: wire out of range, then coefficient >= r. */
	size_t cons = HDR_BODY + 64 + 12;   /* constraints section body */
	memcpy(buf, file, len);
	memset(buf + cons + 4, 0xff, 4);
	EXPECT_FAIL(r1cs_parse_circom_mem(&cs, buf, len, "t.r1cs", &err), &err, CUZK_E_FORMAT,
		    "constraint 0 A term 0");
	memcpy(buf, file, len);
	memset(buf + cons + 8, 0xff, 32);
	EXPECT_FAIL(r1cs_parse_circom_mem(&cs, buf, len, "t.r1cs", &err), &err, CUZK_E_NONCANONICAL,
		    "coefficient");
	/* A term count past the end of the section. */
	memcpy(buf, file, len);
	memset(buf + cons, 0xff, 4);
	EXPECT_FAIL(r1cs_parse_circom_mem(&cs, buf, len, "t.r1cs", &err), &err, CUZK_E_FORMAT,
		    "constraint 0 A: 4294967295 terms");
	/* A section size that overflows the file. */
	memcpy(buf, file, len);
	memset(buf + 16, 0xff, 8);
	EXPECT_FAIL(r1cs_parse_circom_mem(&cs, buf, len, "t.r1cs", &err), &err, CUZK_E_FORMAT, "section body");
	free(buf);
}

static void test_wtns(const char *path)
{
	enum { N = 50 };
	fr_t v[N], *back;
	size_t n;
	cuzk_error err;
	for (int i = 0; i < N; i++)
		fr_from_u64(&v[i], (uint64_t)i * 0x123456789ull + 1);
	fr_neg(&v[7], &v[7]);  /* a large value */
	REQUIRE(wtns_write(v, N, path, &err) == 0);
	REQUIRE(wtns_read(&back, &n, path, &err) == 0);
	CHECK(n == N);
	for (int i = 0; i < N; i++)
		CHECK(fr_eq(&v[i], &back[i]));
	free(back);

	size_t len;
	uint8_t *file = test_slurp(path, &len);
	for (size_t cut = 0; cut < len; cut++) {
		int rc = wtns_parse_mem(&back, &n, file, cut, "t.wtns", &err);
		CHECK_MSG(rc == -CUZK_E_FORMAT, "truncated to %zu: rc %d (%s)", cut, rc, err.msg);
		if (rc == 0)
			free(back);
	}
	/* Value 3 (section body at 12 + 12 + 40 + 12) set to 2^256 − 1 */
	size_t values = 12 + 12 + 40 + 12;
	memset(file + values + 3 * 32, 0xff, 32);
	EXPECT_FAIL(wtns_parse_mem(&back, &n, file, len, "t.wtns", &err), &err, CUZK_E_NONCANONICAL,
		    "value 3 at offset");
	file[12 + 12 + 36] = 51;  /* nWitness disagrees with the section size */
	EXPECT_FAIL(wtns_parse_mem(&back, &n, file, len, "t.wtns", &err), &err, CUZK_E_FORMAT, "nWitness 51");
	file[12 + 12 + 4] ^= 1;
	EXPECT_FAIL(wtns_parse_mem(&back, &n, file, len, "t.wtns", &err), &err, CUZK_E_UNSUPPORTED, "prime");
	file[4] = 1;
	EXPECT_FAIL(wtns_parse_mem(&back, &n, file, len, "t.wtns", &err), &err, CUZK_E_VERSION, "version 1");
	free(file);
	CHECK(wtns_read(&back, &n, "/nonexistent/x.wtns", &err) == -CUZK_E_NOTFOUND);
	CHECK(strstr(err.msg, "/nonexistent/x.wtns") != NULL);
}

int main(void)
{
	char path[256];
	test_temp_file(path, sizeof(path), "r1cs");
	uint8_t *file;
	size_t len;
	test_r1cs_round_trip(path, &file, &len);
	test_r1cs_rejections(file, len);
	test_wtns(path);
	free(file);
	unlink(path);
	CHECK_DONE();
}
