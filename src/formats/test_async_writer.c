// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The async writer: the file is the bytes filled, in order, whatever the
 * buffers' boundaries and the fills' sizes; a failed write stops the writing
 * and is reported (path, offset) by the next submit, by check and by close. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "formats/async_writer.h"
#include "tests/test_files.h"

/* len bytes of data through w, in fills of the sizes in steps (cycled),
 * each clipped to the room, submitting whenever the buffer is full. */
static int fill_all(async_writer *w, const uint8_t *data, size_t len, const size_t *steps, size_t n_steps,
		    cuzk_error *err)
{
	for (size_t at = 0, i = 0; at < len; i++) {
		size_t room;
		uint8_t *dst = async_writer_room(w, &room);
		if (room == 0) {
			int rc = async_writer_submit(w, err);
			if (rc < 0)
				return rc;
			continue;
		}
		size_t k = steps[i % n_steps];
		k = k < room ? k : room;
		k = k < len - at ? k : len - at;
		memcpy(dst, data + at, k);
		async_writer_fill(w, k);
		at += k;
	}
	return 0;
}

static void test_order(const char *path)
{
	enum { LEN = 100003 };
	uint8_t *data = malloc(LEN);
	REQUIRE(data);
	for (size_t i = 0; i < LEN; i++)
		data[i] = (uint8_t)(i * 2654435761u >> 13);
	const size_t steps[] = { 1, 7, 4096, 333, 0, 65 };
	const size_t shapes[][2] = { { 2, 1 }, { 2, 64 }, { 3, 1000 }, { 5, 4093 }, { 2, 1 << 20 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		async_writer *w;
		cuzk_error err;
		REQUIRE(async_writer_open(&w, path, shapes[s][0], shapes[s][1], &err) == 0);
		CHECK(fill_all(w, data, LEN, steps, sizeof(steps) / sizeof(steps[0]), &err) == 0);
		/* An early submit (a part-filled buffer) and an empty one. */
		CHECK(async_writer_submit(w, &err) == 0);
		CHECK(async_writer_submit(w, &err) == 0);
		CHECK(fill_all(w, data, 10, steps, 1, &err) == 0);
		CHECK(async_writer_check(w, &err) == 0);
		CHECK(async_writer_close(w, &err) == 0);
		size_t len;
		uint8_t *back = test_slurp(path, &len);
		CHECK_MSG(len == LEN + 10 && memcmp(back, data, LEN) == 0 && memcmp(back + LEN, data, 10) == 0,
			  "%zu buffers of %zu bytes: the file differs (%zu bytes)", shapes[s][0], shapes[s][1], len);
		free(back);
	}
	/* Nothing filled: an empty file. */
	async_writer *w;
	cuzk_error err;
	REQUIRE(async_writer_open(&w, path, 2, 16, &err) == 0);
	CHECK(async_writer_close(w, &err) == 0);
	size_t len;
	free(test_slurp(path, &len));
	CHECK(len == 0);
	free(data);
}

static void test_errors(void)
{
	async_writer *w;
	cuzk_error err;
	EXPECT_FAIL(async_writer_open(&w, "/nonexistent/x.params", 2, 16, &err), &err, CUZK_E_NOTFOUND,
		    "/nonexistent/x.params: open for writing");
	EXPECT_FAIL(async_writer_open(&w, "/tmp/x", 1, 16, &err), &err, CUZK_E_INVAL, "1 buffers");
	CHECK(async_writer_close(NULL, &err) == 0);

	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "SKIP part: /dev/full: %s\n", strerror(errno));
		return;
	}
	close(fd);
	const uint8_t data[48] = { 1 };
	const size_t step = 16;
	/* Two buffers: the second submit waits for the first write, which
	 * fails; every later call says so, and nothing more is written. */
	REQUIRE(async_writer_open(&w, "/dev/full", 2, 16, &err) == 0);
	EXPECT_FAIL(fill_all(w, data, sizeof(data), &step, 1, &err), &err, CUZK_E_IO,
		    "/dev/full: writing 16 bytes at offset 0: ");
	EXPECT_FAIL(async_writer_check(w, &err), &err, CUZK_E_IO, "at offset 0");
	EXPECT_FAIL(async_writer_submit(w, &err), &err, CUZK_E_IO, "at offset 0");
	EXPECT_FAIL(async_writer_close(w, &err), &err, CUZK_E_IO, "/dev/full: writing 16 bytes at offset 0");
	/* A failure met only by close's own last write. */
	REQUIRE(async_writer_open(&w, "/dev/full", 2, 64, &err) == 0);
	CHECK(fill_all(w, data, 5, &step, 1, &err) == 0);
	EXPECT_FAIL(async_writer_close(w, &err), &err, CUZK_E_IO, "/dev/full: writing 5 bytes at offset 0");
	/* close with no message wanted still frees everything (ASan). */
	REQUIRE(async_writer_open(&w, "/dev/full", 2, 64, &err) == 0);
	CHECK(fill_all(w, data, 5, &step, 1, &err) == 0);
	CHECK(async_writer_close(w, NULL) == -CUZK_E_IO);
}

int main(void)
{
	char path[256];
	test_temp_file(path, sizeof(path), "async-writer");
	test_order(path);
	test_errors();
	unlink(path);
	CHECK_DONE();
}
