// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A job's timeline (trace.c) without a daemon: the bound on what a
 * partition keeps, whatever the backend hands over; the bytes the engine's
 * gauge is told of, back to 0 once freed; the daemon's tracks; a write that
 * fails is an error that names the trace fd. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "daemon/trace.h"
#include "tests/check.h"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static char *read_all(int fd)
{
	off_t len = lseek(fd, 0, SEEK_END);
	char *buf = malloc((size_t)len + 1);
	REQUIRE(len > 0 && buf && pread(fd, buf, (size_t)len, 0) == len);
	buf[len] = '\0';
	return buf;
}

int main(void)
{
	static groth16_timings tm;
	atomic_uint_fast64_t bytes = 0;
	groth16_span own[CUZKD_TRACE_OWN_SPANS + 1];
	struct cuzkd_trace *t;
	cuzk_error err;
	int fd = memfd_create("test-trace", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	char *json;

	REQUIRE(fd >= 0);
	CHECK(cuzkd_trace_check_fd(fd, "client 1", &err) == 0);
	REQUIRE(cuzkd_trace_new(&t, fd, 2, &bytes, &err) == 0);
	CHECK(atomic_load(&bytes) == cuzkd_trace_base_bytes(2));
	t->admitted_ns = 2000000;
	for (unsigned i = 0; i < CUZKD_TRACE_OWN_SPANS + 1; i++)
		own[i] = (groth16_span){ "own", i ? NULL : CUZKD_TRACE_LANE, -1, 3.0 + i, 4.0 + i };

	/* A backend that filled every slot and dropped 7 more. */
	for (unsigned i = 0; i < GROTH16_MAX_SPANS; i++)
		tm.span[i] = (groth16_span){ "msm a", i % 2 ? "cpu" : "compute", i % 2 ? -1 : 0, 10.0 + i, 10.5 + i };
	tm.n_spans = GROTH16_MAX_SPANS;
	tm.spans_dropped = 7;
	cuzkd_trace_record(t, &bytes, 0, 3, own, CUZKD_TRACE_OWN_SPANS, &tm);
	/* One own span too many, and a small backend trace. */
	tm.n_spans = 3;
	tm.spans_dropped = 0;
	cuzkd_trace_record(t, &bytes, 1, 4, own, CUZKD_TRACE_OWN_SPANS + 1, &tm);
	CHECK(t->part[0].n == GROTH16_MAX_SPANS && t->part[0].n_own == CUZKD_TRACE_OWN_SPANS &&
	      t->part[0].dropped == 7);
	CHECK(t->part[1].n == 3 && t->part[1].n_own == CUZKD_TRACE_OWN_SPANS && t->part[1].dropped == 1);
	CHECK(t->part[0].n + t->part[0].n_own <= CUZKD_TRACE_PART_SPANS);
	CHECK(atomic_load(&bytes) == cuzkd_trace_base_bytes(2) + (GROTH16_MAX_SPANS + 3) * sizeof(groth16_span));

	REQUIRE(cuzkd_trace_write(t, 17, 1000000, &err) == 0);
	json = read_all(fd);
	/* The job's check, each partition's spans, and a note where spans were cut. */
	CHECK(count(json, "\"ph\": \"X\"") == 1 + (CUZKD_TRACE_OWN_SPANS + GROTH16_MAX_SPANS + 1) +
						      (CUZKD_TRACE_OWN_SPANS + 3 + 1));
	CHECK(strstr(json, "\"7 spans not kept\"") && strstr(json, "\"1 spans not kept\""));
	CHECK(strstr(json, "\"cuzkd job 17\"") && strstr(json, "\"check request\""));
	/* The CPU's lanes per worker; the GPU's as the backend named them. */
	CHECK(strstr(json, "\"cuzkd worker 3: cpu\"") && strstr(json, "\"cuzkd worker 4: cpu\""));
	CHECK(strstr(json, "\"GPU 0 compute\"") && strstr(json, "\"cuzkd worker 3\"") && strstr(json, "\"cuzkd\""));
	/* Times from the request's arrival (1 ms): the check ends at 1000 µs. */
	CHECK(strstr(json, "\"ts\": 0.000, \"dur\": 1000.000, \"name\": \"check request\""));
	CHECK(t->fd == -1);
	free(json);
	cuzkd_trace_free(t, &bytes);
	CHECK(atomic_load(&bytes) == 0);

	/* Sealed after it was checked: the write fails, naming the trace fd. */
	REQUIRE(ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0);
	REQUIRE(cuzkd_trace_new(&t, fd, 1, &bytes, &err) == 0);
	REQUIRE(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) == 0);
	CHECK(cuzkd_trace_check_fd(fd, "client 1", &err) == -CUZK_E_SEALS && strstr(err.msg, "client 1"));
	CHECK(cuzkd_trace_write(t, 18, 1000000, &err) < 0 && strstr(err.msg, "the trace fd"));
	cuzkd_trace_free(t, &bytes);
	CHECK(atomic_load(&bytes) == 0);
	close(fd);
	CHECK_DONE();
}
