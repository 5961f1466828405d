// SPDX-License-Identifier: Apache-2.0 OR MIT
/* What a file is, from its first bytes: so that a file of one kind given
 * where another was expected (a circom .r1cs as --params) is named for what
 * it is, not reported as a bad point or a bad magic number.
 *
 * Only formats with a magic are recognised: the circom and snarkjs binary
 * files, cuzk witness files, JSON and gzip.  bellperson's parameter,
 * verifying-key and proof files have none, and none of them can start like
 * these: their first byte is the flags and top bits of a point, which every
 * magic here would make invalid (an infinity flag with other bits set, no
 * compression flag on a proof, or a coordinate above p). */
#ifndef CUZK_COMMON_FILE_KIND_H
#define CUZK_COMMON_FILE_KIND_H

#include <stddef.h>

#include "common/error.h"

/* The most leading bytes any kind needs. */
#define FILE_KIND_PEEK 8

struct file_kind {
	const char *magic;
	size_t magic_len;
	const char *what;            /* "a circom constraint system (.r1cs)" */
	const char *hint;            /* what to do with it in cuzk, or NULL */
};

/* The kind buf (len bytes, the start of a file) has, or NULL. */
const struct file_kind *file_kind_of(const void *buf, size_t len);

/* When buf starts like a known kind other than the one expected:
 * -CUZK_E_FORMAT "NAME is WHAT, not EXPECTED (HINT)".  Else 0. */
int file_kind_reject(const void *buf, size_t len, const char *name, const char *expected, cuzk_error *err);

#endif
