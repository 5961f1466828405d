// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Validation and layout of the witness file (witness_format.h).
 *
 * The buffer may be shared memory that its owner keeps writing, so the
 * header and the partition table are copied out first and every check and
 * every later index uses the copy only. */
#include "abi/witness_format.h"

#include <string.h>

#include "common/file_kind.h"

#define SCALAR_BYTES 32u

static const char *const section_names[CUZK_SEC__COUNT] = {
	[CUZK_SEC_A] = "a",
	[CUZK_SEC_B] = "b",
	[CUZK_SEC_C] = "c",
	[CUZK_SEC_INPUT] = "input",
	[CUZK_SEC_AUX] = "aux",
	[CUZK_SEC_A_AUX_DENSITY] = "a_aux_density",
	[CUZK_SEC_B_INPUT_DENSITY] = "b_input_density",
	[CUZK_SEC_B_AUX_DENSITY] = "b_aux_density",
};

const char *witness_section_name(enum witness_section s)
{
	if ((unsigned)s >= CUZK_SEC__COUNT)
		return "unknown";
	return section_names[s];
}

/* Bytes of a bitmap with one bit per item, in whole 64-bit words. */
static uint64_t bitmap_bytes(uint64_t items)
{
	return (items / 64 + (items % 64 != 0)) * 8;
}

uint64_t witness_section_len(enum witness_section s, uint64_t num_constraints,
			     uint64_t num_inputs, uint64_t num_aux, int *overflow)
{
	uint64_t items, len;
	switch (s) {
	case CUZK_SEC_A:
	case CUZK_SEC_B:
	case CUZK_SEC_C:
		items = num_constraints;
		break;
	case CUZK_SEC_INPUT:
		items = num_inputs;
		break;
	case CUZK_SEC_AUX:
		items = num_aux;
		break;
	case CUZK_SEC_A_AUX_DENSITY:
	case CUZK_SEC_B_AUX_DENSITY:
		return bitmap_bytes(num_aux);
	case CUZK_SEC_B_INPUT_DENSITY:
		return bitmap_bytes(num_inputs);
	default:
		*overflow = 1;
		return 0;
	}
	if (__builtin_mul_overflow(items, (uint64_t)SCALAR_BYTES, &len)) {
		*overflow = 1;
		return 0;
	}
	return len;
}

static uint64_t align_up(uint64_t v)
{
	return (v + CUZK_WITNESS_ALIGN - 1) & ~(uint64_t)(CUZK_WITNESS_ALIGN - 1);
}

/* Checks the header fields that do not depend on the partition table. */
static int check_header(const struct witness_header *h, uint64_t size, const char *name,
			cuzk_error *err)
{
	if (memcmp(h->magic, CUZK_WITNESS_MAGIC, sizeof(h->magic)) != 0) {
		int r = file_kind_reject(h->magic, sizeof(h->magic), name, "a cuzk witness file", err);
		return r < 0 ? r : err_fail(err, CUZK_E_FORMAT, "%s: field magic at offset 0: not a cuzk witness file",
					    name);
	}
	if (h->version != CUZK_WITNESS_VERSION)
		return err_fail(err, CUZK_E_VERSION,
				"%s: field version at offset %zu: unknown version %u (expected %u)", name,
				offsetof(struct witness_header, version), h->version,
				CUZK_WITNESS_VERSION);
	if (h->flags & ~(uint32_t)CUZK_WITNESS_KNOWN_FLAGS)
		return err_fail(err, CUZK_E_FORMAT, "%s: field flags at offset %zu: unknown bits 0x%x", name,
				offsetof(struct witness_header, flags),
				h->flags & ~(uint32_t)CUZK_WITNESS_KNOWN_FLAGS);
	if (h->num_partitions == 0 || h->num_partitions > CUZK_WITNESS_MAX_PARTITIONS)
		return err_fail(err, CUZK_E_FORMAT,
				"%s: field num_partitions at offset %zu: %u is not in 1..%u", name,
				offsetof(struct witness_header, num_partitions), h->num_partitions,
				CUZK_WITNESS_MAX_PARTITIONS);
	uint64_t want = sizeof(*h) + (uint64_t)h->num_partitions * sizeof(struct witness_partition);
	if (h->header_size != want)
		return err_fail(err, CUZK_E_FORMAT,
				"%s: field header_size at offset %zu: %u, expected %llu for %u partitions",
				name, offsetof(struct witness_header, header_size), h->header_size,
				(unsigned long long)want, h->num_partitions);
	if (h->header_size > size)
		return err_fail(err, CUZK_E_FORMAT,
				"%s: field header_size at offset %zu: %u bytes but the file has %llu", name,
				offsetof(struct witness_header, header_size), h->header_size,
				(unsigned long long)size);
	for (size_t i = 0; i < 2; i++)
		if (h->reserved[i] != 0)
			return err_fail(err, CUZK_E_FORMAT, "%s: field reserved[%zu] at offset %zu is not zero",
					name, i, offsetof(struct witness_header, reserved) + 8 * i);
	if (h->num_inputs == 0)
		return err_fail(err, CUZK_E_FORMAT,
				"%s: field num_inputs at offset %zu: 0, but input 0 is the constant 1", name,
				offsetof(struct witness_header, num_inputs));
	if (h->num_constraints < h->num_inputs)
		return err_fail(err, CUZK_E_FORMAT,
				"%s: field num_constraints at offset %zu: %llu is less than num_inputs %llu "
				"(one constraint per input is appended)",
				name, offsetof(struct witness_header, num_constraints),
				(unsigned long long)h->num_constraints, (unsigned long long)h->num_inputs);
	/* Each count must fit in the file on its own: this rejects absurd
	 * counts early and keeps every later product far from overflow. */
	const struct {
		const char *field;
		size_t off;
		uint64_t count;
	} counts[] = {
		{ "num_constraints", offsetof(struct witness_header, num_constraints), h->num_constraints },
		{ "num_inputs", offsetof(struct witness_header, num_inputs), h->num_inputs },
		{ "num_aux", offsetof(struct witness_header, num_aux), h->num_aux },
	};
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (counts[i].count > size / SCALAR_BYTES)
			return err_fail(err, CUZK_E_FORMAT,
					"%s: field %s at offset %zu: %llu scalars cannot fit in %llu bytes",
					name, counts[i].field, counts[i].off,
					(unsigned long long)counts[i].count, (unsigned long long)size);
	return 0;
}

int witness_parse(struct witness_desc *ret, const void *buf, uint64_t size,
		  const char *name, cuzk_error *err)
{
	struct witness_desc d;
	memset(&d, 0, sizeof(d));
	if (size < sizeof(d.hdr))
		return err_fail(err, CUZK_E_FORMAT, "%s: %llu bytes is shorter than the %zu-byte header",
				name, (unsigned long long)size, sizeof(d.hdr));
	memcpy(&d.hdr, buf, sizeof(d.hdr));
	int rc = check_header(&d.hdr, size, name, err);
	if (rc < 0)
		return rc;
	memcpy(d.part, (const uint8_t *)buf + sizeof(d.hdr),
	       (size_t)d.hdr.num_partitions * sizeof(d.part[0]));
	d.file_size = size;

	for (int s = 0; s < CUZK_SEC__COUNT; s++) {
		int overflow = 0;
		d.len[s] = witness_section_len(s, d.hdr.num_constraints, d.hdr.num_inputs,
					       d.hdr.num_aux, &overflow);
		if (overflow || d.len[s] > size)
			return err_fail(err, CUZK_E_FORMAT,
					"%s: section %s: its length for the header's counts exceeds the %llu-byte file",
					name, witness_section_name(s), (unsigned long long)size);
	}
	for (uint32_t p = 0; p < d.hdr.num_partitions; p++) {
		for (int s = 0; s < CUZK_SEC__COUNT; s++) {
			uint64_t off = d.part[p].offset[s];
			uint64_t field_off = sizeof(d.hdr) + (uint64_t)p * sizeof(d.part[0]) + 8u * (unsigned)s;
			if (off % CUZK_WITNESS_ALIGN != 0)
				return err_fail(err, CUZK_E_FORMAT,
						"%s: partition %u section %s (field at offset %llu): offset %llu is not %u-byte aligned",
						name, p, witness_section_name(s),
						(unsigned long long)field_off, (unsigned long long)off,
						CUZK_WITNESS_ALIGN);
			if (off < d.hdr.header_size && d.len[s] != 0)
				return err_fail(err, CUZK_E_FORMAT,
						"%s: partition %u section %s (field at offset %llu): offset %llu overlaps the %u-byte header",
						name, p, witness_section_name(s),
						(unsigned long long)field_off, (unsigned long long)off,
						d.hdr.header_size);
			/* d.len[s] <= size was checked above, so size - len cannot wrap. */
			if (off > size - d.len[s])
				return err_fail(err, CUZK_E_FORMAT,
						"%s: partition %u section %s (field at offset %llu): %llu bytes at offset %llu end past the %llu-byte file",
						name, p, witness_section_name(s),
						(unsigned long long)field_off, (unsigned long long)d.len[s],
						(unsigned long long)off, (unsigned long long)size);
		}
	}
	*ret = d;
	return 0;
}

int witness_layout(struct witness_desc *ret, uint64_t num_constraints, uint64_t num_inputs,
		   uint64_t num_aux, uint32_t num_partitions, uint32_t flags, cuzk_error *err)
{
	if (num_partitions == 0 || num_partitions > CUZK_WITNESS_MAX_PARTITIONS)
		return err_fail(err, CUZK_E_INVAL, "witness layout: %u partitions is not in 1..%u",
				num_partitions, CUZK_WITNESS_MAX_PARTITIONS);
	if (flags & ~(uint32_t)CUZK_WITNESS_KNOWN_FLAGS)
		return err_fail(err, CUZK_E_INVAL, "witness layout: unknown flags 0x%x", flags);
	if (num_inputs == 0 || num_constraints < num_inputs)
		return err_fail(err, CUZK_E_INVAL,
				"witness layout: %llu constraints and %llu inputs (need 1 <= inputs <= constraints)",
				(unsigned long long)num_constraints, (unsigned long long)num_inputs);
	struct witness_desc d;
	memset(&d, 0, sizeof(d));
	memcpy(d.hdr.magic, CUZK_WITNESS_MAGIC, sizeof(d.hdr.magic));
	d.hdr.version = CUZK_WITNESS_VERSION;
	d.hdr.flags = flags;
	d.hdr.num_partitions = num_partitions;
	d.hdr.header_size = (uint32_t)(sizeof(d.hdr) + num_partitions * sizeof(d.part[0]));
	d.hdr.num_constraints = num_constraints;
	d.hdr.num_inputs = num_inputs;
	d.hdr.num_aux = num_aux;

	uint64_t at = d.hdr.header_size;
	for (int s = 0; s < CUZK_SEC__COUNT; s++) {
		int overflow = 0;
		d.len[s] = witness_section_len(s, num_constraints, num_inputs, num_aux, &overflow);
		/* Keeping every length below 2^56 leaves room for 64 partitions
		 * of 8 aligned sections without any sum overflowing. */
		if (overflow || d.len[s] > (UINT64_C(1) << 56))
			return err_fail(err, CUZK_E_NOMEM, "witness layout: section %s is too large",
					witness_section_name(s));
	}
	for (uint32_t p = 0; p < num_partitions; p++)
		for (int s = 0; s < CUZK_SEC__COUNT; s++) {
			d.part[p].offset[s] = at;
			at = align_up(at + d.len[s]);
		}
	d.file_size = at;
	*ret = d;
	return 0;
}

void witness_write_header(void *buf, const struct witness_desc *desc)
{
	memcpy(buf, &desc->hdr, sizeof(desc->hdr));
	memcpy((uint8_t *)buf + sizeof(desc->hdr), desc->part,
	       (size_t)desc->hdr.num_partitions * sizeof(desc->part[0]));
}
