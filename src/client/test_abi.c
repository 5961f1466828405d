// SPDX-License-Identifier: Apache-2.0 OR MIT
/* libcuzk as an application sees it: only <cuzk.h>, linked against the
 * shared library.  The status values and struct sizes are ABI; the library
 * exports the public API and hides the internal helpers (err_fail, msg_*,
 * ring_*, ...) linked into it. */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "cuzk.h"
#include "../../tests/check.h"

/* docs/PROTOCOL.md's error table; src/common/error.h must agree (test_protocol). */
_Static_assert(CUZK_E_INVAL == 1 && CUZK_E_IO == 2 && CUZK_E_NOMEM == 3 && CUZK_E_FORMAT == 4, "codes");
_Static_assert(CUZK_E_VERSION == 5 && CUZK_E_MISMATCH == 12 && CUZK_E_GPU == 15, "codes");
_Static_assert(CUZK_E_CANCELLED == 16 && CUZK_E_BUSY == 17 && CUZK_E_NOTFOUND == 18, "codes");
_Static_assert(CUZK_E_PERM == 19 && CUZK_E_VRAM == 20 && CUZK_E_PROTOCOL == 21, "codes");
_Static_assert(CUZK_E_FD == 22 && CUZK_E_SEALS == 23 && CUZK_E_SHUTDOWN == 24, "codes");
_Static_assert(CUZK_E_INTERNAL == 25 && CUZK_E__MAX == 26, "codes");

_Static_assert(sizeof(struct cuzk_completion) == 8 + 4 + 4 + 12 * 8 + 256 + 64 * 192, "completion");
_Static_assert(sizeof(struct cuzk_dims) == 48, "dims");
_Static_assert(sizeof(struct cuzk_request) == 40, "request");
_Static_assert(sizeof(struct cuzk_partition) == 96, "partition");
_Static_assert(sizeof(struct cuzk_limits) == 40, "limits");
_Static_assert(sizeof(struct cuzk_connect_opts) == 56, "connect opts");
_Static_assert(sizeof(struct cuzk_submit_opts) == 32, "submit opts");
/* The fields of libcuzk 0.3: the bindings (bindings/rust's abi_offsets)
 * assert the same offsets. */
_Static_assert(offsetof(struct cuzk_connect_opts, flags) == 24 && offsetof(struct cuzk_connect_opts, reserved0) == 28 &&
	       offsetof(struct cuzk_connect_opts, reserved) == 32, "connect opts flags");
_Static_assert(offsetof(struct cuzk_submit_opts, flags) == 0 && offsetof(struct cuzk_submit_opts, trace_fd) == 4 &&
	       offsetof(struct cuzk_submit_opts, reserved) == 8, "submit opts fields");

int main(void)
{
	cuzk_error err;
	cuzk_client *c = NULL;

	CHECK(strcmp(cuzk_status_name(CUZK_E_SEALS), "seals") == 0);
	CHECK(strcmp(cuzk_status_name(-CUZK_E_FD), "bad-fd") == 0);
	for (int i = 0; i < CUZK_E__MAX; i++)
		CHECK_MSG(strcmp(cuzk_status_name(i), "unknown") != 0, "status %d has no name", i);

	int r = cuzk_connect(&c, "/nonexistent/cuzkd.sock", NULL, &err);
	CHECK(r == -CUZK_E_NOTFOUND && c == NULL && strstr(err.msg, "/nonexistent/cuzkd.sock"));
	struct cuzk_connect_opts opts = { .reserved = { 0, 1 } };
	CHECK(cuzk_connect(&c, "/nonexistent", &opts, &err) == -CUZK_E_INVAL);
	struct cuzk_connect_opts bad_flags = { .flags = CUZK_CONNECT_TRACE << 1 };
	CHECK(cuzk_connect(&c, "/nonexistent", &bad_flags, &err) == -CUZK_E_INVAL && strstr(err.msg, "flags"));

	const struct cuzk_dims dims = { .num_constraints = 10, .num_inputs = 2, .num_aux = 5, .num_partitions = 1 };
	cuzk_buffer *b;
	REQUIRE(cuzk_buffer_alloc(NULL, &b, &dims, &err) == 0);
	struct cuzk_partition p;
	CHECK(cuzk_buffer_partition(b, 0, &p) == 0 && p.a != NULL && cuzk_buffer_fd(b) >= 0);
	CHECK(memcmp(cuzk_buffer_data(b), "CUZKWTNS", 8) == 0);
	cuzk_buffer_free(b);

	const char *hidden[] = { "msg_parse_prove", "err_fail", "ring_pop", "witness_parse",
				 "buffer_alloc_env", "client_log" };
	for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
		CHECK_MSG(dlsym(RTLD_DEFAULT, hidden[i]) == NULL, "%s is exported", hidden[i]);
	CHECK(dlsym(RTLD_DEFAULT, "cuzk_submit") != NULL);
	CHECK(dlvsym(RTLD_DEFAULT, "cuzk_submit_ex", "CUZK_0.3") != NULL);
	CHECK_DONE();
}
