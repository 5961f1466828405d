// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Checks and maps a client's witness fd (see witness.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "daemon/witness.h"

static int check_fd(int fd, uint64_t max_bytes, struct stat *st, const char *who, cuzk_error *err)
{
	struct statfs sfs;
	int seals, fl = fcntl(fd, F_GETFL);

	/* The mapping is PROT_READ: a descriptor that cannot read (reopened
	 * O_WRONLY through /proc, or O_PATH) is the client's mistake, said
	 * as such rather than as mmap's EACCES. */
	if (fl < 0)
		return err_fail_errno(err, errno, "%s: fcntl(F_GETFL) of the witness fd", who);
	if ((fl & O_PATH) || (fl & O_ACCMODE) == O_WRONLY)
		return err_fail(err, CUZK_E_FD, "%s: the witness fd is not open for reading (%s)", who,
				fl & O_PATH ? "O_PATH" : "O_WRONLY");
	if (fstat(fd, st) < 0)
		return err_fail_errno(err, errno, "%s: fstat of the witness fd", who);
	if (!S_ISREG(st->st_mode))
		return err_fail(err, CUZK_E_FD, "%s: the witness fd is not a regular file", who);
	if (fstatfs(fd, &sfs) < 0)
		return err_fail_errno(err, errno, "%s: fstatfs of the witness fd", who);
	if (sfs.f_type != TMPFS_MAGIC && sfs.f_type != HUGETLBFS_MAGIC)
		return err_fail(err, CUZK_E_FD,
				"%s: the witness is not a memfd on tmpfs or hugetlbfs (filesystem magic 0x%lx)",
				who, (unsigned long)sfs.f_type);
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0)
		return err_fail(err, CUZK_E_SEALS, "%s: the witness memfd does not support seals (%s)", who,
				strerror(errno));
	if ((seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW))
		return err_fail(err, CUZK_E_SEALS, "%s: the witness memfd lacks the %s%s%s seal", who,
				seals & F_SEAL_SHRINK ? "" : "SHRINK",
				(seals & (F_SEAL_SHRINK | F_SEAL_GROW)) == 0 ? " and " : "",
				seals & F_SEAL_GROW ? "" : "GROW");
	if (st->st_size <= 0)
		return err_fail(err, CUZK_E_FORMAT, "%s: the witness memfd is empty", who);
	if ((uint64_t)st->st_size > max_bytes)
		return err_fail(err, CUZK_E_BUSY, "%s: the witness is %llu bytes, over max_witness_bytes %llu",
				who, (unsigned long long)st->st_size, (unsigned long long)max_bytes);
	/* What the size limits charge must be what the file costs: reading a
	 * hole through the daemon's mapping, or pinning it, would allocate it
	 * at the daemon's expense (a 16 GiB sparse memfd costs its sender
	 * 64 KiB).  tmpfs and hugetlbfs count backed pages in st_blocks. */
	if ((uint64_t)st->st_blocks * 512 < (uint64_t)st->st_size)
		return err_fail(err, CUZK_E_FORMAT,
				"%s: the witness memfd is sparse: %llu of its %llu bytes are backed by memory "
				"(write or fallocate every page before submitting)",
				who, (unsigned long long)st->st_blocks * 512, (unsigned long long)st->st_size);
	return 0;
}

int cuzkd_witness_open(struct cuzkd_witness *ret, struct cuzkd_regcache *rc, int fd,
		       const struct msg_prove *req, uint64_t max_bytes, const struct cuzkd_owner *o,
		       groth16_witness_view *views, cuzk_error *err)
{
	const char *who = o->who;
	struct cuzkd_witness w = { 0 };
	struct stat st;
	const uint8_t *map;
	int r, montgomery;

	r = check_fd(fd, max_bytes, &st, who, err);
	if (r)
		return r;
	r = cuzkd_regcache_get(rc, fd, &st, o, &w.buf, err);
	if (r)
		return r;
	map = w.buf->map;
	r = witness_parse(&w.desc, map, w.buf->size, who, err);
	if (r)
		goto fail;
	montgomery = msg_prove_scalar_form(req, w.desc.hdr.flags, err);
	if (montgomery < 0) {
		r = err_prefix(err, "%s", who);
		goto fail;
	}
	for (unsigned p = 0; p < w.desc.hdr.num_partitions; p++) {
		const uint64_t *off = w.desc.part[p].offset;
		groth16_witness_view *v = &views[p];
		memset(v, 0, sizeof(*v));
		v->num_constraints = w.desc.hdr.num_constraints;
		v->num_inputs = w.desc.hdr.num_inputs;
		v->num_aux = w.desc.hdr.num_aux;
		v->montgomery = montgomery;
		v->a = (const fr_t *)(map + off[CUZK_SEC_A]);
		v->b = (const fr_t *)(map + off[CUZK_SEC_B]);
		v->c = (const fr_t *)(map + off[CUZK_SEC_C]);
		v->input = (const fr_t *)(map + off[CUZK_SEC_INPUT]);
		v->aux = (const fr_t *)(map + off[CUZK_SEC_AUX]);
		/* Not copied here, on the event loop: the worker copies them
		 * before anything reads them (prover/backend.h). */
		v->a_aux_density = (const uint64_t *)(map + off[CUZK_SEC_A_AUX_DENSITY]);
		v->b_input_density = (const uint64_t *)(map + off[CUZK_SEC_B_INPUT_DENSITY]);
		v->b_aux_density = (const uint64_t *)(map + off[CUZK_SEC_B_AUX_DENSITY]);
		v->density_shared = 1;
	}
	*ret = w;
	return 0;
fail:
	cuzkd_regcache_put(rc, w.buf);
	return r;
}

void cuzkd_witness_close(struct cuzkd_witness *w, struct cuzkd_regcache *rc)
{
	if (w->buf)
		cuzkd_regcache_put(rc, w->buf);
	w->buf = NULL;
}
