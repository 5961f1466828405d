// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Reading verifying keys, proofs and public inputs (cli_statement.h). */
#include "cli/cli_statement.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "formats/params_io.h"
#include "formats/public_json.h"
#include "formats/witness_file.h"

int cli_inputs_from_witness(cli_inputs *ret, const char *path, cuzk_error *err)
{
	groth16_witness_map m;
	int r = groth16_witness_file_open(&m, path, err);
	if (r < 0)
		return r;
	size_t parts = m.desc.hdr.num_partitions;
	size_t n = (size_t)m.desc.hdr.num_inputs - 1;
	fr_t *v = NULL;
	if (n > 0 && !(v = calloc(parts * n, sizeof(fr_t)))) {
		r = err_fail(err, CUZK_E_NOMEM, "%s: no memory for %zu public inputs", path, parts * n);
		goto out;
	}
	for (size_t p = 0; p < parts; p++) {
		groth16_witness_view w;
		if ((r = groth16_witness_file_view(&w, &m, (unsigned)p, err)) < 0)
			goto out;
		for (size_t i = 0; i < n; i++) {
			fr_t *dst = &v[p * n + i];
			if (w.montgomery) {
				*dst = w.input[i + 1];
			} else if (fr_from_canonical(dst, w.input[i + 1].l) < 0) {
				r = err_fail(err, CUZK_E_NONCANONICAL,
					     "%s: partition %zu, public input %zu is not below r", path, p, i + 1);
				goto out;
			}
		}
	}
	*ret = (cli_inputs){ .n_parts = parts, .n = n, .v = v };
	v = NULL;
out:
	free(v);
	cuzk_error ignored;
	groth16_witness_file_close(&m, &ignored);
	return r;
}

int cli_inputs_from_json(cli_inputs *ret, const char *path, cuzk_error *err)
{
	fr_t *v;
	size_t n;
	int r = public_json_read(&v, &n, path, err);
	if (r < 0)
		return r;
	*ret = (cli_inputs){ .n_parts = 1, .n = n, .v = v };
	return 0;
}

void cli_inputs_free(cli_inputs *in)
{
	free(in->v);
	memset(in, 0, sizeof(*in));
}

const fr_t *cli_inputs_of(const cli_inputs *in, size_t p)
{
	if (!in->v)
		return NULL;
	return in->v + (in->n_parts == 1 ? 0 : p) * in->n;
}

static int pread_all(int fd, void *buf, size_t len, const char *path, cuzk_error *err)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_fail_errno(err, errno, "%s: read", path);
		if (n == 0)
			return err_fail(err, CUZK_E_FORMAT, "%s: ends at %zu bytes, inside the verifying key", path,
					done);
		done += (size_t)n;
	}
	return 0;
}

/* The VK is the first bytes of a params file: read just those, so that a
 * Filecoin-sized file (tens of GB) costs a few kilobytes to verify with. */
static int vk_from_params(groth16_vk *ret, const char *path, cuzk_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_fail_errno(err, errno, "%s: open", path);
	struct stat st;
	uint8_t head[4];
	size_t fixed = groth16_vk_encoded_size(0) - sizeof(head);
	uint8_t *buf = NULL;
	int r = fstat(fd, &st) < 0 ? err_fail_errno(err, errno, "%s: fstat", path) : 0;
	if (r == 0 && (uint64_t)st.st_size < fixed + sizeof(head))
		r = err_fail(err, CUZK_E_FORMAT, "%s: %lld bytes is too short for a verifying key", path,
			     (long long)st.st_size);
	if (r == 0 && (buf = malloc(fixed + sizeof(head))) == NULL)
		r = err_fail(err, CUZK_E_NOMEM, "%s: out of memory", path);
	if (r == 0)
		r = pread_all(fd, buf, fixed + sizeof(head), path, err);
	if (r == 0) {
		memcpy(head, buf + fixed, sizeof(head));
		uint64_t n_ic = (uint64_t)head[0] << 24 | (uint64_t)head[1] << 16 | (uint64_t)head[2] << 8 | head[3];
		size_t len = groth16_vk_encoded_size((size_t)n_ic);
		free(buf);
		buf = NULL;
		if ((uint64_t)st.st_size < len)
			r = err_fail(err, CUZK_E_FORMAT, "%s: section ic: count %llu at offset %zu does not fit the "
				     "file (%lld bytes)", path, (unsigned long long)n_ic, fixed, (long long)st.st_size);
		else if ((buf = malloc(len)) == NULL)
			r = err_fail(err, CUZK_E_NOMEM, "%s: out of memory for %llu ic points", path,
				     (unsigned long long)n_ic);
		if (r == 0)
			r = pread_all(fd, buf, len, path, err);
		if (r == 0)
			r = groth16_vk_parse_mem(ret, buf, len, path, err);
	}
	free(buf);
	close(fd);
	return r;
}

static int load_vk(groth16_vk *ret, const char *vk_path, const char *params_path, cuzk_error *err)
{
	if (!vk_path == !params_path)
		return cli_usage(err, "give exactly one of --vk and --params");
	return vk_path ? groth16_vk_read(ret, vk_path, err) : vk_from_params(ret, params_path, err);
}

int cli_statement_load(struct cli_statement *ret, const struct cli_statement_paths *paths, cuzk_error *err)
{
	if (!paths->proof)
		return cli_usage(err, "--proof is required");
	if (!paths->witness == !paths->public_json)
		return cli_usage(err, "give exactly one of --witness and --public");
	struct cli_statement st = { .inputs_path = paths->witness ? paths->witness : paths->public_json };
	int r = load_vk(&st.vk, paths->vk, paths->params, err);
	if (r < 0)
		return r;
	if ((r = groth16_proofs_read(&st.proofs, &st.n_proofs, paths->proof, err)) < 0)
		goto fail;
	r = paths->witness ? cli_inputs_from_witness(&st.in, paths->witness, err)
			   : cli_inputs_from_json(&st.in, paths->public_json, err);
	if (r < 0)
		goto fail;
	if (st.vk.n_ic == 0 || st.in.n != st.vk.n_ic - 1) {
		r = err_fail(err, CUZK_E_MISMATCH, "%s: %zu public inputs, but the verifying key has %zu",
			     st.inputs_path, st.in.n, st.vk.n_ic - 1);
		goto fail;
	}
	/* A witness file speaks for each partition; public.json for all of them. */
	if (paths->witness ? st.in.n_parts != st.n_proofs : st.in.n_parts != 1) {
		r = err_fail(err, CUZK_E_MISMATCH, "%s: %zu partitions, but %s holds %zu proofs", st.inputs_path,
			     st.in.n_parts, paths->proof, st.n_proofs);
		goto fail;
	}
	*ret = st;
	return 0;
fail:
	cli_statement_free(&st);
	return r;
}

void cli_statement_free(struct cli_statement *st)
{
	cli_inputs_free(&st->in);
	free(st->proofs);
	st->proofs = NULL;
	groth16_vk_free(&st->vk);
}
