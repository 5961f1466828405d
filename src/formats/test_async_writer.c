// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The async writer: the file is the bytes filled, in order, whatever the
 * buffers' boundaries and the fills' sizes; a failed write stops the writing
 * and is reported (path, offset) by the next submit, by check and by close;
 * its measures (bytes, buffers, the caller's time blocked on a free buffer,
 * the thread's in write(2), close's parts with and without fsync) add up. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

/* Bytes and buffers as filled; fsync only when asked, and timed apart. */
static void test_stats(const char *path)
{
	enum { LEN = 1000, BUF = 64 };
	uint8_t data[LEN];
	for (size_t i = 0; i < LEN; i++)
		data[i] = (uint8_t)i;
	const size_t step = 10;
	for (unsigned flags = 0; flags <= ASYNC_WRITER_FSYNC; flags += ASYNC_WRITER_FSYNC) {
		async_writer *w;
		cuzk_error err;
		REQUIRE(async_writer_open(&w, path, 2, BUF, &err) == 0);
		CHECK(fill_all(w, data, 100, &step, 1, &err) == 0);
		async_writer_stats st;
		async_writer_get_stats(w, &st);
		CHECK_MSG(st.bytes == 100 && st.buffers == 1 && st.blocked_ms >= 0 && st.write_ms >= 0,
			  "after 100 bytes: %llu bytes, %llu buffers", (unsigned long long)st.bytes,
			  (unsigned long long)st.buffers);
		CHECK(fill_all(w, data + 100, LEN - 100, &step, 1, &err) == 0);
		CHECK(async_writer_finish(w, flags, &st, &err) == 0);
		/* 15 full buffers by submit, the last 40 bytes by close. */
		CHECK_MSG(st.bytes == LEN && st.buffers == (LEN + BUF - 1) / BUF, "%llu bytes, %llu buffers",
			  (unsigned long long)st.bytes, (unsigned long long)st.buffers);
		CHECK(st.drain_ms >= 0 && st.close_ms >= 0 && st.write_ms >= 0);
		CHECK(flags ? st.sync_ms >= 0 : st.sync_ms == 0);
		size_t len;
		uint8_t *back = test_slurp(path, &len);
		CHECK(len == LEN && memcmp(back, data, LEN) == 0);
		free(back);
	}
	async_writer_stats st = { .bytes = 1 };
	cuzk_error err;
	CHECK(async_writer_finish(NULL, ASYNC_WRITER_FSYNC, &st, &err) == 0);
	CHECK(st.bytes == 0 && st.buffers == 0);
}

/* The reader end of a FIFO that starts reading only after a pause, so that
 * the pipe (64 KiB) and the writer's buffers fill and the caller blocks. */
struct slow_reader {
	const char *path;
	size_t got;
	int ok;
};

static void *slow_reader_main(void *arg)
{
	struct slow_reader *r = arg;
	int fd = open(r->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	const struct timespec pause = { 0, 200 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	uint8_t buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		r->got += n > 0 ? (size_t)n : 0;
	r->ok = n == 0;
	close(fd);
	return NULL;
}

/* A writer whose writes are behind: submit waits, and says how long; the
 * thread's write(2)s wait as long.  fsync(2) of a FIFO fails (EINVAL), and
 * finish says so, naming the path and the bytes. */
static void test_blocked(const char *path)
{
	enum { LEN = 1 << 20 };
	unlink(path);
	if (mkfifo(path, 0600) < 0) {
		fprintf(stderr, "SKIP part: mkfifo %s: %s\n", path, strerror(errno));
		return;
	}
	uint8_t *data = calloc(1, LEN);
	REQUIRE(data);
	struct slow_reader r = { path, 0, 0 };
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, slow_reader_main, &r) == 0);
	async_writer *w;
	cuzk_error err;
	/* open(2) of the FIFO waits for the reader's. */
	REQUIRE(async_writer_open(&w, path, 2, 4096, &err) == 0);
	const size_t step = 4096;
	CHECK(fill_all(w, data, LEN, &step, 1, &err) == 0);
	async_writer_stats st;
	EXPECT_FAIL(async_writer_finish(w, ASYNC_WRITER_FSYNC, &st, &err), &err, CUZK_E_IO,
		    "fsync after writing 1048576 bytes");
	CHECK_MSG(strstr(err.msg, path) != NULL, "'%s' lacks the path", err.msg);
	REQUIRE(pthread_join(t, NULL) == 0);
	CHECK_MSG(r.ok && r.got == LEN, "the reader got %zu bytes", r.got);
	/* The reader paused 200 ms with the pipe full: most of it is the
	 * caller's, blocked in submit, and the thread's, in write(2). */
	CHECK_MSG(st.bytes == LEN && st.buffers == LEN / 4096, "%llu bytes, %llu buffers",
		  (unsigned long long)st.bytes, (unsigned long long)st.buffers);
	CHECK_MSG(st.blocked_ms >= 50 && st.write_ms >= 50, "blocked %.1f ms, write(2) %.1f ms", st.blocked_ms,
		  st.write_ms);
	free(data);
	unlink(path);
}

int main(void)
{
	char path[256];
	test_temp_file(path, sizeof(path), "async-writer");
	test_order(path);
	test_errors();
	test_stats(path);
	test_blocked(path);
	unlink(path);
	CHECK_DONE();
}
