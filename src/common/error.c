// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "common/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const status_names[CUZK_E__MAX] = {
	[CUZK_OK] = "ok",
	[CUZK_E_INVAL] = "invalid-argument",
	[CUZK_E_IO] = "io",
	[CUZK_E_NOMEM] = "out-of-memory",
	[CUZK_E_FORMAT] = "format",
	[CUZK_E_VERSION] = "version",
	[CUZK_E_LENGTH] = "length",
	[CUZK_E_FLAGS] = "flags",
	[CUZK_E_NONCANONICAL] = "non-canonical",
	[CUZK_E_NOT_ON_CURVE] = "not-on-curve",
	[CUZK_E_NOT_IN_SUBGROUP] = "not-in-subgroup",
	[CUZK_E_UNSAT] = "unsatisfied",
	[CUZK_E_MISMATCH] = "mismatch",
	[CUZK_E_VERIFY] = "verify-failed",
	[CUZK_E_UNSUPPORTED] = "unsupported",
	[CUZK_E_GPU] = "gpu",
	[CUZK_E_CANCELLED] = "cancelled",
	[CUZK_E_BUSY] = "busy",
	[CUZK_E_NOTFOUND] = "not-found",
	[CUZK_E_PERM] = "permission",
	[CUZK_E_VRAM] = "vram-budget",
	[CUZK_E_PROTOCOL] = "protocol",
	[CUZK_E_FD] = "bad-fd",
	[CUZK_E_SEALS] = "seals",
	[CUZK_E_SHUTDOWN] = "shutting-down",
	[CUZK_E_INTERNAL] = "internal",
};

const char *cuzk_status_name(int code)
{
	if (code < 0)
		code = -code;
	if (code >= CUZK_E__MAX || !status_names[code])
		return "unknown";
	return status_names[code];
}

static int vfail(cuzk_error *err, int code, int errnum, const char *fmt, va_list ap)
{
	if (code < 0)
		code = -code;
	if (err) {
		err->code = code;
		int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		if (errnum && n >= 0 && (size_t)n < sizeof(err->msg))
			snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, ": %s", strerror(errnum));
	}
	return -code;
}

int err_fail(cuzk_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfail(err, code, 0, fmt, ap);
	va_end(ap);
	return r;
}

int err_fail_errno(cuzk_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int code = errnum == ENOMEM ? CUZK_E_NOMEM : errnum == EACCES || errnum == EPERM ? CUZK_E_PERM
		 : errnum == ENOENT ? CUZK_E_NOTFOUND : CUZK_E_IO;
	int r = vfail(err, code, errnum, fmt, ap);
	va_end(ap);
	return r;
}

int err_prefix(cuzk_error *err, const char *fmt, ...)
{
	if (!err)
		return -CUZK_E_INVAL;
	char prefix[CUZK_ERRMSG_MAX], old[CUZK_ERRMSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	old[sizeof(old) - 1] = '\0';
	size_t pl = strlen(prefix), ol = strlen(old), cap = sizeof(err->msg) - 1;
	if (pl > cap)
		pl = cap;
	memcpy(err->msg, prefix, pl);
	size_t at = pl;
	if (at + 2 <= cap) {
		memcpy(err->msg + at, ": ", 2);
		at += 2;
	}
	if (ol > cap - at)
		ol = cap - at;
	memcpy(err->msg + at, old, ol);
	err->msg[at + ol] = '\0';
	return -err->code;
}
