// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A witness buffer filled from a witness file (cuzk synth's output): for the
 * cuzk command and examples.  This copies every section once; a real client
 * writes its scalars straight into cuzk_buffer_partition's pointers instead. */
#include "client/client_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int copy_sections(cuzk_buffer *b, const uint8_t *src, const struct witness_desc *d)
{
	for (uint32_t p = 0; p < d->hdr.num_partitions; p++) {
		struct cuzk_partition dst;
		int r = cuzk_buffer_partition(b, p, &dst);
		if (r < 0)
			return r;
		void *to[CUZK_SEC__COUNT] = { dst.a, dst.b, dst.c, dst.input, dst.aux,
					      dst.a_aux_density, dst.b_input_density, dst.b_aux_density };
		for (int s = 0; s < CUZK_SEC__COUNT; s++)
			memcpy(to[s], src + d->part[p].offset[s], d->len[s]);
	}
	return 0;
}

int cuzk_buffer_load_file(cuzk_client *c, cuzk_buffer **ret, const char *path, cuzk_error *err)
{
	struct stat st;
	struct witness_desc d;
	cuzk_buffer *b = NULL;
	int r;

	if (!ret || !path)
		return err_fail(err, CUZK_E_INVAL, "cuzk_buffer_load_file: NULL argument");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_fail_errno(err, errno, "%s", path);
	if (fstat(fd, &st) < 0) {
		r = err_fail_errno(err, errno, "fstat(%s)", path);
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return err_fail(err, CUZK_E_FORMAT, "%s: not a non-empty regular file", path);
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return err_fail_errno(err, errno, "mmap(%s)", path);
	if ((r = witness_parse(&d, map, (uint64_t)st.st_size, path, err)) < 0)
		goto out;
	const struct cuzk_dims dims = {
		.num_constraints = d.hdr.num_constraints,
		.num_inputs = d.hdr.num_inputs,
		.num_aux = d.hdr.num_aux,
		.num_partitions = d.hdr.num_partitions,
		.flags = d.hdr.flags,
	};
	if ((r = cuzk_buffer_alloc(c, &b, &dims, err)) < 0)
		goto out;
	if ((r = copy_sections(b, map, &d)) < 0) {
		cuzk_buffer_free(b);
		goto out;
	}
	*ret = b;
out:
	munmap(map, (size_t)st.st_size);
	return r;
}
