// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Minimal test helpers: every test is a program that exits 0 (pass),
 * 1 (fail) or 77 (skip), as automake's test driver expects. */
#ifndef CUZK_TESTS_CHECK_H
#define CUZK_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(cond)                                                                    \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failures++;                                              \
		}                                                                      \
	} while (0)

#define CHECK_MSG(cond, ...)                                                           \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                  \
			fputc('\n', stderr);                                           \
			check_failures++;                                              \
		}                                                                      \
	} while (0)

/* A check that must hold for the rest of the test to make sense. */
#define REQUIRE(cond)                                                                  \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
			exit(1);                                                       \
		}                                                                      \
	} while (0)

#define CHECK_DONE()                                                                   \
	do {                                                                           \
		if (check_failures) {                                                  \
			fprintf(stderr, "%d check(s) failed\n", check_failures);       \
			return 1;                                                      \
		}                                                                      \
		return 0;                                                              \
	} while (0)

#define CHECK_SKIP(...)                                                                \
	do {                                                                           \
		printf("SKIP: " __VA_ARGS__);                                          \
		putchar('\n');                                                         \
		return 77;                                                             \
	} while (0)

#endif
