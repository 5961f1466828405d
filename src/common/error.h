// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Error codes and messages shared by every layer of cuzk.
 *
 * Convention: a function that can fail returns 0 on success or a negative
 * cuzk status (-CUZK_E_*), and when it is given a non-NULL cuzk_error it
 * fills it with the code and a one-line message that names the thing at
 * fault (file, section, offset, field).  Never two conventions side by side. */
#ifndef CUZK_COMMON_ERROR_H
#define CUZK_COMMON_ERROR_H

#include <stddef.h>

/* The status codes, CUZK_ERRMSG_MAX and cuzk_error are part of libcuzk's ABI
 * and of the protocol (docs/PROTOCOL.md, "Errors"): the public header is
 * their one definition. */
#include "cuzk.h"

/* Records code and message in err (if not NULL) and returns -code, so that
 * callers write `return err_fail(err, CUZK_E_FORMAT, "%s: ...", path);`. */
int err_fail(cuzk_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like err_fail, with ": strerror(errnum)" appended. */
int err_fail_errno(cuzk_error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefixes err->msg with "prefix: " (context added by a caller). Returns -err->code. */
int err_prefix(cuzk_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
