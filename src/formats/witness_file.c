// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "formats/witness_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/byte_io.h"

/* Reserves the file's blocks up front so that a full disk is an error
 * here, not a SIGBUS when a page of the mapping is first written. */
static int reserve(int fd, uint64_t size, const char *path, cuzk_error *err)
{
	int rc = posix_fallocate(fd, 0, (off_t)size);
	if (rc == 0)
		return 0;
	if (rc != EOPNOTSUPP && rc != EINVAL)
		return err_fail_errno(err, rc, "%s: allocating %llu bytes", path, (unsigned long long)size);
	if (ftruncate(fd, (off_t)size) < 0)
		return err_fail_errno(err, errno, "%s: ftruncate to %llu bytes", path,
				      (unsigned long long)size);
	return 0;
}

int groth16_witness_file_create(groth16_witness_map *ret, const char *path, uint64_t num_constraints,
				uint64_t num_inputs, uint64_t num_aux, uint32_t flags, cuzk_error *err)
{
	groth16_witness_map m;
	memset(&m, 0, sizeof(m));
	int rc = witness_layout(&m.desc, num_constraints, num_inputs, num_aux, 1, flags, err);
	if (rc < 0)
		return err_prefix(err, "%s", path);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return err_fail_errno(err, errno, "%s: create", path);
	rc = reserve(fd, m.desc.file_size, path, err);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	m.size = (size_t)m.desc.file_size;
	void *p = mmap(NULL, m.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int e = errno;
	close(fd);
	if (p == MAP_FAILED)
		return err_fail_errno(err, e, "%s: mmap of %zu bytes", path, m.size);
	m.base = p;
	m.writable = 1;
	witness_write_header(m.base, &m.desc);
	*ret = m;
	return 0;
}

void *groth16_witness_file_section(const groth16_witness_map *m, unsigned p,
				  enum witness_section s)
{
	return m->base + m->desc.part[p].offset[s];
}

int groth16_witness_file_open(groth16_witness_map *ret, const char *path, cuzk_error *err)
{
	groth16_witness_map m;
	file_map f;
	memset(&m, 0, sizeof(m));
	int rc = file_map_open(&f, path, err);
	if (rc < 0)
		return rc;
	m.base = (uint8_t *)f.buf;
	m.size = f.len;
	rc = witness_parse(&m.desc, m.base, m.size, path, err);
	if (rc < 0) {
		file_map_close(&f);
		return rc;
	}
	*ret = m;
	return 0;
}

int groth16_witness_file_view(groth16_witness_view *ret, const groth16_witness_map *m, unsigned p,
			      cuzk_error *err)
{
	const struct witness_desc *d = &m->desc;
	if (p >= d->hdr.num_partitions)
		return err_fail(err, CUZK_E_INVAL, "witness: partition %u requested, the file has %u", p,
				d->hdr.num_partitions);
	*ret = (groth16_witness_view){
		.num_constraints = (size_t)d->hdr.num_constraints,
		.num_inputs = (size_t)d->hdr.num_inputs,
		.num_aux = (size_t)d->hdr.num_aux,
		.montgomery = (d->hdr.flags & CUZK_WITNESS_MONTGOMERY) != 0,
		.a = groth16_witness_file_section(m, p, CUZK_SEC_A),
		.b = groth16_witness_file_section(m, p, CUZK_SEC_B),
		.c = groth16_witness_file_section(m, p, CUZK_SEC_C),
		.input = groth16_witness_file_section(m, p, CUZK_SEC_INPUT),
		.aux = groth16_witness_file_section(m, p, CUZK_SEC_AUX),
		.a_aux_density = groth16_witness_file_section(m, p, CUZK_SEC_A_AUX_DENSITY),
		.b_input_density = groth16_witness_file_section(m, p, CUZK_SEC_B_INPUT_DENSITY),
		.b_aux_density = groth16_witness_file_section(m, p, CUZK_SEC_B_AUX_DENSITY),
	};
	return 0;
}

int groth16_witness_file_close(groth16_witness_map *m, cuzk_error *err)
{
	int rc = 0;
	if (!m->base)
		return 0;
	if (munmap(m->base, m->size) < 0)
		rc = err_fail_errno(err, errno, "witness file: munmap");
	memset(m, 0, sizeof(*m));
	return rc;
}
