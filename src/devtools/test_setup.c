// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The development setup's two outputs agree: parameters made in memory and
 * written, and the same parameters streamed to a file as they are made, are
 * the same bytes, for a materialised R1CS and for generator rows of both
 * shapes; progress is reported to the end; the timings add up; bad rows are
 * named. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devtools/gencircuit.h"
#include "devtools/setup.h"
#include "formats/params_io.h"
#include "tests/test_files.h"

struct progress {
	uint64_t last, total;
	unsigned calls;
	int backwards;
};

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	p->backwards |= done < p->last || (p->calls && total != p->total);
	p->last = done;
	p->total = total;
	p->calls++;
}

/* Every phase measured, none longer than the whole, each query its count;
 * with a file, the writer's bytes its size, fsync'd when asked. */
static void check_timings(const groth16_setup_timings *t, const groth16_params *p, const char *file, int sync)
{
	const size_t count[GROTH16_PARAMS_SECTIONS] = { p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2 };
	double sum = t->lagrange_ms + t->rows_ms + t->prepare_ms + t->open_ms + t->close_ms + t->free_ms;
	int ok = t->lagrange_ms >= 0 && t->rows_ms >= 0 && t->prepare_ms > 0 && t->open_ms >= 0 && t->free_ms >= 0;
	for (int q = 0; q < GROTH16_PARAMS_SECTIONS; q++) {
		const groth16_setup_query_timings *qt = &t->query[q];
		CHECK_MSG(qt->points == count[q], "query %d: %llu points, not %zu", q, (unsigned long long)qt->points,
			  count[q]);
		ok &= qt->scalars_ms >= 0 && qt->put_ms >= 0 && qt->blocked_ms >= 0 && qt->blocked_ms <= qt->put_ms &&
		      qt->engine_ms >= 0 && qt->scalars_ms + qt->put_ms <= qt->total_ms;
		ok &= file || qt->put_ms == 0;
		sum += qt->total_ms;
	}
	CHECK_MSG(ok && sum <= t->total_ms + 0.01, "phases %.3f ms of %.3f", sum, t->total_ms);
	if (!file) {
		CHECK(t->writer.bytes == 0 && t->close_ms == 0 && !t->synced);
		return;
	}
	struct stat sb;
	REQUIRE(stat(file, &sb) == 0);
	CHECK_MSG(t->writer.bytes == (uint64_t)sb.st_size && t->writer.buffers >= 1, "writer: %llu bytes, file %lld",
		  (unsigned long long)t->writer.bytes, (long long)sb.st_size);
	CHECK(t->synced == sync && (sync || t->writer.sync_ms == 0));
	CHECK(t->writer.drain_ms + t->writer.sync_ms + t->writer.close_ms <= t->close_ms + 0.01);
}

static void check_streamed(unsigned k, size_t ni, enum gencircuit_shape shape)
{
	gencircuit_spec spec = { k, ni, 9, shape };
	groth16_row_source rows;
	gencircuit_rows(&spec, &rows);
	cuzk_error err;
	char mem_path[256], file_path[256];
	test_temp_file(mem_path, sizeof(mem_path), "setup-mem");
	test_temp_file(file_path, sizeof(file_path), "setup-file");

	groth16_params p;
	struct progress pr = { 0 };
	groth16_setup_timings tm;
	groth16_setup_opts opts = { .progress = on_progress, .progress_ctx = &pr, .timings = &tm };
	REQUIRE(groth16_dev_setup_rows(&p, NULL, &rows, 21, &opts, &err) == 0);
	CHECK(!pr.backwards && pr.calls >= 5 && pr.last == pr.total);
	CHECK(pr.total == p.n_h + p.n_l + p.n_a + p.n_b_g1 + p.n_b_g2);
	check_timings(&tm, &p, NULL, 0);
	REQUIRE(groth16_params_write(&p, mem_path, &err) == 0);

	groth16_vk vk;
	REQUIRE(groth16_dev_setup_rows_write(file_path, &rows, 21, NULL, &vk, &err) == 0);
	CHECK_MSG(test_same_files(mem_path, file_path), "%s 2^%u: streamed parameters differ",
		  gencircuit_shape_name(shape), k);
	/* The same file again, timed, and fsync'd every other time. */
	int sync = k % 2;
	groth16_setup_opts file_opts = { .sync = sync, .timings = &tm };
	groth16_vk_free(&vk);
	REQUIRE(groth16_dev_setup_rows_write(file_path, &rows, 21, &file_opts, &vk, &err) == 0);
	CHECK(test_same_files(mem_path, file_path));
	check_timings(&tm, &p, file_path, sync);
	CHECK(vk.n_ic == ni && memcmp(vk.ic, p.vk.ic, ni * sizeof(g1_aff_t)) == 0);
	CHECK(memcmp(&vk.delta_g2, &p.vk.delta_g2, sizeof(g2_aff_t)) == 0);
	groth16_vk_free(&vk);

	/* the R1CS path (groth16_dev_setup_insecure) gives the same parameters */
	r1cs cs;
	fr_t *z;
	groth16_params q;
	REQUIRE(gencircuit_build(&spec, &cs, &z, &err) == 0);
	REQUIRE(groth16_dev_setup_insecure(&q, &cs, 21, &err) == 0);
	CHECK(q.storage_len == p.storage_len && memcmp(q.storage, p.storage, p.storage_len) == 0);
	groth16_params_free(&q);
	r1cs_free(&cs);
	free(z);
	groth16_params_free(&p);
	unlink(mem_path);
	unlink(file_path);
}

/* A row naming a variable past the assignment: the first such row is named. */
static void bad_row(const void *ctx, size_t k, groth16_row *ret, r1cs_term *scratch)
{
	(void)ctx;
	scratch[0] = (r1cs_term){ k == 5000 || k == 7000 ? 99999 : 0, FR_ONE };
	for (int m = 0; m < 3; m++) {
		ret->terms[m] = scratch;
		ret->n[m] = m == 1;
	}
}

int main(void)
{
	check_streamed(8, 2, GENCIRCUIT_SHAPE_BASIC);
	check_streamed(11, 40, GENCIRCUIT_SHAPE_BASIC);
	check_streamed(10, GENCIRCUIT_POREP_INPUTS, GENCIRCUIT_SHAPE_POREP);

	groth16_row_source bad = { 8000, 1, 8000, bad_row, NULL };
	groth16_params p;
	cuzk_error err;
	CHECK(groth16_dev_setup_rows(&p, NULL, &bad, 1, NULL, &err) == -CUZK_E_FORMAT);
	CHECK_MSG(strstr(err.msg, "constraint 5000 of B names variable 99999") != NULL, "%s", err.msg);
	char path[256];
	test_temp_file(path, sizeof(path), "setup-bad");
	CHECK(groth16_dev_setup_rows_write(path, &bad, 1, NULL, NULL, &err) == -CUZK_E_FORMAT);
	unlink(path);
	CHECK_DONE();
}
