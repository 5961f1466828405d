// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The witness file parser accepts its own layouts and rejects every kind of
 * bad header with the right code and a message naming the field. */
#include <stdlib.h>
#include <string.h>

#include "abi/witness_format.h"
#include "../../tests/check.h"

/* A buffer holding a valid layout for the given counts. */
static uint8_t *make_file(struct witness_desc *d, uint64_t nc, uint64_t ni, uint64_t na,
			  uint32_t parts)
{
	cuzk_error err;
	REQUIRE(witness_layout(d, nc, ni, na, parts, CUZK_WITNESS_MONTGOMERY, &err) == 0);
	uint8_t *buf = calloc(1, d->file_size);
	REQUIRE(buf);
	witness_write_header(buf, d);
	return buf;
}

static struct witness_header *hdr(uint8_t *buf)
{
	return (struct witness_header *)buf;
}

static struct witness_partition *part(uint8_t *buf, unsigned p)
{
	return (struct witness_partition *)(buf + 64 + 64 * p);
}

/* Parses buf and expects failure with code and a message containing needle. */
static void expect_reject(const uint8_t *buf, uint64_t size, int code, const char *needle)
{
	struct witness_desc d;
	cuzk_error err = { 0 };
	int rc = witness_parse(&d, buf, size, "w.bin", &err);
	CHECK_MSG(rc == -code, "want %s got rc %d (%s)", needle, rc, err.msg);
	CHECK_MSG(strstr(err.msg, needle) != NULL, "message '%s' lacks '%s'", err.msg, needle);
	CHECK_MSG(strncmp(err.msg, "w.bin: ", 7) == 0, "message '%s' does not name the file", err.msg);
}

static void test_valid(void)
{
	struct witness_desc d, got;
	cuzk_error err;
	uint8_t *buf = make_file(&d, 100, 3, 70, 2);
	REQUIRE(witness_parse(&got, buf, d.file_size, "w.bin", &err) == 0);
	CHECK(got.hdr.num_constraints == 100 && got.hdr.num_inputs == 3 && got.hdr.num_aux == 70);
	CHECK(got.len[CUZK_SEC_A] == 3200 && got.len[CUZK_SEC_AUX] == 2240);
	CHECK(got.len[CUZK_SEC_A_AUX_DENSITY] == 16 && got.len[CUZK_SEC_B_INPUT_DENSITY] == 8);
	for (unsigned p = 0; p < 2; p++)
		for (int s = 0; s < CUZK_SEC__COUNT; s++) {
			CHECK(got.part[p].offset[s] % 64 == 0);
			CHECK(got.part[p].offset[s] + got.len[s] <= d.file_size);
			CHECK(got.part[p].offset[s] >= 64 * 3);
		}
	/* Sections of the canonical layout do not overlap. */
	CHECK(got.part[1].offset[0] >= got.part[0].offset[CUZK_SEC_B_AUX_DENSITY] + 16);
	/* Partitions may share one section. */
	part(buf, 1)->offset[CUZK_SEC_A_AUX_DENSITY] = part(buf, 0)->offset[CUZK_SEC_A_AUX_DENSITY];
	CHECK(witness_parse(&got, buf, d.file_size, "w.bin", &err) == 0);
	/* No aux at all: empty density sections are fine. */
	free(buf);
	buf = make_file(&d, 1, 1, 0, 1);
	CHECK(witness_parse(&got, buf, d.file_size, "w.bin", &err) == 0);
	free(buf);
	CHECK(strcmp(witness_section_name(CUZK_SEC_B_AUX_DENSITY), "b_aux_density") == 0);
}

static void test_rejections(void)
{
	struct witness_desc d;
	uint8_t *buf = make_file(&d, 100, 3, 70, 2);
	uint64_t size = d.file_size;
	uint8_t *orig = malloc(size);
	REQUIRE(orig);
	memcpy(orig, buf, size);
#define RESET() memcpy(buf, orig, size)

	expect_reject(buf, 10, CUZK_E_FORMAT, "shorter than");
	hdr(buf)->magic[0] = 'X';
	expect_reject(buf, size, CUZK_E_FORMAT, "magic");
	RESET();
	hdr(buf)->version = 2;
	expect_reject(buf, size, CUZK_E_VERSION, "version");
	RESET();
	hdr(buf)->flags = 0x10;
	expect_reject(buf, size, CUZK_E_FORMAT, "flags");
	RESET();
	hdr(buf)->num_partitions = 0;
	expect_reject(buf, size, CUZK_E_FORMAT, "num_partitions");
	hdr(buf)->num_partitions = CUZK_WITNESS_MAX_PARTITIONS + 1;
	expect_reject(buf, size, CUZK_E_FORMAT, "num_partitions");
	RESET();
	hdr(buf)->header_size = 64 * 4;
	expect_reject(buf, size, CUZK_E_FORMAT, "header_size");
	RESET();
	/* A header whose partition table alone does not fit in the file. */
	hdr(buf)->num_partitions = 64;
	hdr(buf)->header_size = 64 * 65;
	expect_reject(buf, 4000, CUZK_E_FORMAT, "header_size");
	RESET();
	hdr(buf)->reserved[1] = 1;
	expect_reject(buf, size, CUZK_E_FORMAT, "reserved[1]");
	RESET();
	hdr(buf)->num_inputs = 0;
	expect_reject(buf, size, CUZK_E_FORMAT, "num_inputs");
	RESET();
	hdr(buf)->num_constraints = 2;
	expect_reject(buf, size, CUZK_E_FORMAT, "num_constraints");
	RESET();
	/* Counts so large their sections cannot fit, including ones whose
	 * byte length would overflow 64 bits. */
	hdr(buf)->num_aux = UINT64_MAX / 16;
	expect_reject(buf, size, CUZK_E_FORMAT, "num_aux");
	RESET();
	hdr(buf)->num_constraints = UINT64_MAX;
	expect_reject(buf, size, CUZK_E_FORMAT, "num_constraints");
	RESET();
	hdr(buf)->num_constraints = size / 32;  /* each section fits, three do not */
	part(buf, 0)->offset[CUZK_SEC_A] = 192;
	part(buf, 0)->offset[CUZK_SEC_B] = 192;
	expect_reject(buf, size, CUZK_E_FORMAT, "end past");
	RESET();
	part(buf, 1)->offset[CUZK_SEC_C] += 8;
	expect_reject(buf, size, CUZK_E_FORMAT, "partition 1 section c");
	expect_reject(buf, size, CUZK_E_FORMAT, "aligned");
	RESET();
	part(buf, 0)->offset[CUZK_SEC_AUX] = UINT64_MAX - 63;  /* offset + length wraps */
	expect_reject(buf, size, CUZK_E_FORMAT, "section aux");
	RESET();
	part(buf, 1)->offset[CUZK_SEC_B_AUX_DENSITY] = size;  /* starts at the end, 16 bytes long */
	expect_reject(buf, size + 8, CUZK_E_FORMAT, "end past");
	RESET();
	part(buf, 0)->offset[CUZK_SEC_INPUT] = 64;
	expect_reject(buf, size, CUZK_E_FORMAT, "overlaps");
	RESET();
	/* The last section (16 bytes, then 48 of padding) cut short. */
	expect_reject(buf, size - 49, CUZK_E_FORMAT, "b_aux_density");
#undef RESET
	free(orig);
	free(buf);
}

static void test_layout_errors(void)
{
	struct witness_desc d;
	cuzk_error err;
	CHECK(witness_layout(&d, 10, 1, 1, 0, 0, &err) == -CUZK_E_INVAL);
	CHECK(witness_layout(&d, 10, 1, 1, 65, 0, &err) == -CUZK_E_INVAL);
	CHECK(witness_layout(&d, 10, 1, 1, 1, 0x8, &err) == -CUZK_E_INVAL);
	CHECK(witness_layout(&d, 1, 2, 1, 1, 0, &err) == -CUZK_E_INVAL);
	CHECK(witness_layout(&d, UINT64_MAX / 2, 1, 1, 1, 0, &err) == -CUZK_E_NOMEM);
	CHECK(witness_layout(&d, UINT64_C(1) << 40, 1, UINT64_C(1) << 40, 64, 0, &err) == 0);
	int overflow = 0;
	witness_section_len(CUZK_SEC_A, UINT64_MAX, 1, 1, &overflow);
	CHECK(overflow);
}

int main(void)
{
	test_valid();
	test_rejections();
	test_layout_errors();
	CHECK_DONE();
}
