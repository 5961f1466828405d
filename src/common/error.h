/* Error codes and messages shared by every layer of cuzk.
 *
 * Convention: a function that can fail returns 0 on success or a negative
 * cuzk status (-CUZK_E_*), and when it is given a non-NULL cuzk_error it
 * fills it with the code and a one-line message that names the thing at
 * fault (file, section, offset, field).  Never two conventions side by side. */
#ifndef CUZK_COMMON_ERROR_H
#define CUZK_COMMON_ERROR_H

#include <stddef.h>

enum cuzk_status {
	CUZK_OK = 0,
	CUZK_E_INVAL = 1,        /* bad argument or option */
	CUZK_E_IO = 2,           /* a system call failed; the message has strerror */
	CUZK_E_NOMEM = 3,        /* allocation failed or a size does not fit */
	CUZK_E_FORMAT = 4,       /* malformed file or message: count, offset, magic */
	CUZK_E_VERSION = 5,      /* unknown format or protocol version */
	CUZK_E_LENGTH = 6,       /* wrong length of an encoded value or section */
	CUZK_E_FLAGS = 7,        /* wrong flag bits in a point encoding */
	CUZK_E_NONCANONICAL = 8, /* a field element >= its modulus */
	CUZK_E_NOT_ON_CURVE = 9,
	CUZK_E_NOT_IN_SUBGROUP = 10,
	CUZK_E_UNSAT = 11,       /* a constraint is not satisfied */
	CUZK_E_MISMATCH = 12,    /* parameters and witness disagree in shape */
	CUZK_E_VERIFY = 13,      /* a proof did not verify */
	CUZK_E_UNSUPPORTED = 14, /* a feature not built in (GPU backend, ...) */
	CUZK_E_GPU = 15,         /* a CUDA call failed */
	CUZK_E_CANCELLED = 16,
	CUZK_E_BUSY = 17,        /* a limit was reached */
	CUZK_E_NOTFOUND = 18,
	CUZK_E_PERM = 19,
	CUZK_E_VRAM = 20,        /* the device budget cannot hold the job */
	/* Daemon protocol statuses (docs/PROTOCOL.md, "Errors"). */
	CUZK_E_PROTOCOL = 21,    /* malformed message: magic, type, length, reserved field */
	CUZK_E_FD = 22,          /* no fd, two fds, truncated control data, not a tmpfs/hugetlbfs file */
	CUZK_E_SEALS = 23,       /* a memfd lacks F_SEAL_SHRINK or F_SEAL_GROW */
	CUZK_E_SHUTDOWN = 24,    /* the daemon is draining and takes no new work */
	CUZK_E_INTERNAL = 25,    /* a bug or an unexpected failure inside the daemon */
	CUZK_E__MAX
};

#define CUZK_ERRMSG_MAX 512

typedef struct cuzk_error {
	int code;                   /* enum cuzk_status, positive */
	char msg[CUZK_ERRMSG_MAX];  /* one line, no trailing newline */
} cuzk_error;

/* Records code and message in err (if not NULL) and returns -code, so that
 * callers write `return cuzk_fail(err, CUZK_E_FORMAT, "%s: ...", path);`. */
int cuzk_fail(cuzk_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like cuzk_fail, with ": strerror(errnum)" appended. */
int cuzk_fail_errno(cuzk_error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefixes err->msg with "prefix: " (context added by a caller). Returns -err->code. */
int cuzk_error_prefix(cuzk_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A short stable name for a status, e.g. "format" or "not-in-subgroup". */
const char *cuzk_status_name(int code);

#endif
