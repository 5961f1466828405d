// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Witness buffers: memfds the client writes in place and the daemon reads in
 * place.  Setting one up is expensive (page faults, and pinning on the daemon
 * side), reusing it is free, so callers keep them in a pool. */
#include "client/client_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_2M (UINT64_C(2) << 20)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14 */
#endif

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

/* Backs every page of the mapping now.  cuzkd refuses a witness memfd with
 * holes (reading a hole would allocate it at the daemon's cost), and a
 * client that writes only the non-zero scalars of a fresh buffer would
 * leave some.  The page faults are the ones the first write pays anyway;
 * with hugetlb pages, a pool that runs short fails here instead of with
 * SIGBUS in the middle of a write. */
static int populate(uint8_t *map, uint64_t size)
{
	if (madvise(map, size, MADV_POPULATE_WRITE) == 0)
		return 0;
	if (errno != EINVAL)
		return -1;
	for (uint64_t at = 0; at < size; at += 4096)   /* a kernel before 5.14 */
		((volatile uint8_t *)map)[at] = 0;
	return 0;
}

/* A mapped memfd of the given kind, every page backed; *ret_size is the
 * file size. */
static int map_memfd(const char *name, uint64_t want, enum cuzk_page_kind kind, uint64_t huge,
		     int *ret_fd, uint8_t **ret_map, uint64_t *ret_size, cuzk_error *err)
{
	unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING | (kind == CUZK_PAGES_HUGETLB ? MFD_HUGETLB : 0);
	/* Whole huge pages: hugetlb requires it, and THP can then back the
	 * tail too. */
	uint64_t size = kind == CUZK_PAGES_SMALL ? want : round_up(want, huge);
	int fd = memfd_new(name, flags, size, err);
	if (fd < 0)
		return fd;
	void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		int e = errno;
		close(fd);
		return err_fail_errno(err, e, "mmap(%s, %llu bytes)", name, (unsigned long long)size);
	}
	if (kind == CUZK_PAGES_THP && madvise(map, size, MADV_HUGEPAGE) < 0) {
		int e = errno;
		munmap(map, size);
		close(fd);
		return err_fail_errno(err, e, "madvise(%s, MADV_HUGEPAGE)", name);
	}
	if (populate(map, size) < 0) {
		int e = errno;
		munmap(map, size);
		close(fd);
		return err_fail_errno(err, e, "backing %s (%llu bytes) with memory", name, (unsigned long long)size);
	}
	*ret_fd = fd;
	*ret_map = map;
	*ret_size = size;
	return 0;
}

int buffer_alloc_env(cuzk_client *c, cuzk_buffer **ret, const struct cuzk_dims *dims,
		     const struct pages_env *env, cuzk_error *err)
{
	char name[96], reason[CUZK_ERRMSG_MAX + 128];
	int r;

	if (!ret || !dims)
		return err_fail(err, CUZK_E_INVAL, "cuzk_buffer_alloc: NULL argument");
	if (dims->reserved[0] || dims->reserved[1])
		return err_fail(err, CUZK_E_INVAL, "cuzk_buffer_alloc: reserved fields of cuzk_dims are not zero");
	cuzk_buffer *b = calloc(1, sizeof(*b));
	if (!b)
		return err_fail(err, CUZK_E_NOMEM, "cuzk_buffer_alloc: out of memory");
	b->fd = -1;
	r = witness_layout(&b->desc, dims->num_constraints, dims->num_inputs, dims->num_aux,
			   dims->num_partitions, dims->flags, err);
	if (r < 0)
		goto fail;
	/* Named for /proc/PID/fd and /proc/PID/maps: which witness this is. */
	snprintf(name, sizeof(name), "cuzk-witness-%ux%llu", dims->num_partitions,
		 (unsigned long long)dims->num_constraints);

	uint64_t huge = env->hugetlb_size ? env->hugetlb_size : HUGE_2M;
	enum cuzk_page_kind kind = pages_choose(env, b->desc.file_size, reason, sizeof(reason));
	cuzk_error tried;
	r = map_memfd(name, b->desc.file_size, kind, huge, &b->fd, &b->map, &b->size, &tried);
	/* A pool that looked big enough can still fail (another process took
	 * the pages first); madvise fails on kernels without THP.  Both fall
	 * back one step, and say why. */
	if (r < 0 && kind == CUZK_PAGES_HUGETLB) {
		kind = pages_thp_usable(env->thp_shmem) ? CUZK_PAGES_THP : CUZK_PAGES_SMALL;
		snprintf(reason, sizeof(reason), "%s (hugetlb allocation failed: %s)",
			 kind == CUZK_PAGES_THP ? "shmem transparent huge pages" : "4 KiB pages", tried.msg);
		r = map_memfd(name, b->desc.file_size, kind, huge, &b->fd, &b->map, &b->size, &tried);
	}
	if (r < 0 && kind == CUZK_PAGES_THP) {
		kind = CUZK_PAGES_SMALL;
		snprintf(reason, sizeof(reason), "4 KiB pages (transparent huge pages unavailable: %s)", tried.msg);
		r = map_memfd(name, b->desc.file_size, kind, huge, &b->fd, &b->map, &b->size, &tried);
	}
	if (r < 0) {
		if (err)
			*err = tried;
		goto fail;
	}
	b->pages = kind;
	/* A warning only where 4 KiB pages cost something; a client then hears
	 * it once, even after the info line a small buffer gave. */
	int level = kind == CUZK_PAGES_SMALL && b->size >= CUZK_PAGES_WARN_BYTES ? 4 : 6;
	if (reason[0] && c && (!c->pages_reason_level || level < c->pages_reason_level)) {
		c->pages_reason_level = level;
		client_log(c, level, "witness buffers get %s", reason);
	}
	witness_write_header(b->map, &b->desc);
	*ret = b;
	return 0;

fail:
	cuzk_buffer_free(b);
	return r;
}

int cuzk_buffer_alloc(cuzk_client *c, cuzk_buffer **ret, const struct cuzk_dims *dims, cuzk_error *err)
{
	struct pages_env env;
	pages_probe(&env, "");
	if (c)
		pthread_mutex_lock(&c->lock);
	int r = buffer_alloc_env(c, ret, dims, &env, err);
	if (c)
		pthread_mutex_unlock(&c->lock);
	return r;
}

void cuzk_buffer_free(cuzk_buffer *b)
{
	if (!b)
		return;
	if (b->map)
		munmap(b->map, b->size);
	if (b->fd >= 0)
		close(b->fd);
	free(b);
}

int cuzk_buffer_partition(cuzk_buffer *b, uint32_t index, struct cuzk_partition *ret)
{
	if (index >= b->desc.hdr.num_partitions)
		return -CUZK_E_INVAL;
	const uint64_t *off = b->desc.part[index].offset;
	memset(ret, 0, sizeof(*ret));
	ret->a = b->map + off[CUZK_SEC_A];
	ret->b = b->map + off[CUZK_SEC_B];
	ret->c = b->map + off[CUZK_SEC_C];
	ret->input = b->map + off[CUZK_SEC_INPUT];
	ret->aux = b->map + off[CUZK_SEC_AUX];
	ret->a_aux_density = (uint64_t *)(void *)(b->map + off[CUZK_SEC_A_AUX_DENSITY]);
	ret->b_input_density = (uint64_t *)(void *)(b->map + off[CUZK_SEC_B_INPUT_DENSITY]);
	ret->b_aux_density = (uint64_t *)(void *)(b->map + off[CUZK_SEC_B_AUX_DENSITY]);
	return 0;
}

void *cuzk_buffer_data(cuzk_buffer *b)
{
	return b->map;
}

uint64_t cuzk_buffer_size(const cuzk_buffer *b)
{
	return b->size;
}

int cuzk_buffer_fd(const cuzk_buffer *b)
{
	return b->fd;
}

enum cuzk_page_kind cuzk_buffer_pages(const cuzk_buffer *b)
{
	return b->pages;
}

int buffer_seal(cuzk_buffer *b, cuzk_error *err)
{
	int seals = fcntl(b->fd, F_GET_SEALS);
	if (seals < 0)
		return err_fail_errno(err, errno, "F_GET_SEALS on the witness buffer");
	if (seals & F_SEAL_SEAL)
		return 0;
	/* Not F_SEAL_WRITE: the buffer is written again for the next proof. */
	if (fcntl(b->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		return err_fail_errno(err, errno, "F_ADD_SEALS on the witness buffer");
	return 0;
}
