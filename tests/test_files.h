// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Scratch files for the format tests: a fresh temporary path, whole-file
 * reads, and the check that a call failed with a given code and message. */
#ifndef CUZK_TESTS_TEST_FILES_H
#define CUZK_TESTS_TEST_FILES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "tests/check.h"

/* Creates an empty file under $TMPDIR (or /tmp) and writes its name to
 * path (size bytes); the test unlinks it. */
static inline void test_temp_file(char *path, size_t size, const char *what)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, size, "%s/cuzk-test-%s-XXXXXX", dir && *dir ? dir : "/tmp", what);
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
}

static inline uint8_t *test_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	REQUIRE(f);
	REQUIRE(fseek(f, 0, SEEK_END) == 0);
	long n = ftell(f);
	REQUIRE(n >= 0);
	rewind(f);
	uint8_t *buf = malloc((size_t)n + 1);
	REQUIRE(buf);
	REQUIRE(fread(buf, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* 1 when the two files hold the same bytes. */
static inline int test_same_files(const char *a, const char *b)
{
	size_t na, nb;
	uint8_t *x = test_slurp(a, &na), *y = test_slurp(b, &nb);
	int same = na == nb && memcmp(x, y, na) == 0;
	free(x);
	free(y);
	return same;
}

/* rc must be -code and err's message must contain needle. */
#define EXPECT_FAIL(rc, err, code, needle)                                                  \
	do {                                                                                \
		int rc_ = (rc);                                                             \
		CHECK_MSG(rc_ == -(code), "rc %d, want -%d (%s)", rc_, (code), (err)->msg); \
		CHECK_MSG(strstr((err)->msg, (needle)) != NULL, "'%s' lacks '%s'", (err)->msg, \
			  (needle));                                                        \
	} while (0)

#endif
