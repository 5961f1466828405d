// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Known file kinds by their magic (file_kind.h). */
#include "common/file_kind.h"

#include <string.h>

static const struct file_kind kinds[] = {
	{ "r1cs", 4, "a circom constraint system (.r1cs)",
	  "cuzk setup --r1cs makes parameters from it, cuzk synth a witness file" },
	{ "wtns", 4, "a circom witness (.wtns)", "cuzk synth --r1cs C.r1cs --wtns makes a witness file from it" },
	{ "CUZKWTNS", 8, "a cuzk witness file", "cuzk prove and cuzk submit take it as --witness" },
	{ "zkey", 4, "a snarkjs proving key (.zkey)", "cuzk reads bellperson parameters, made by cuzk setup" },
	{ "ptau", 4, "a powers-of-tau file (.ptau)", NULL },
	{ "{", 1, "a JSON file", NULL },
	{ "[", 1, "a JSON file", NULL },
	{ "\x1f\x8b", 2, "a gzip-compressed file", "decompress it first" },
};

const struct file_kind *file_kind_of(const void *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (len >= kinds[i].magic_len && memcmp(buf, kinds[i].magic, kinds[i].magic_len) == 0)
			return &kinds[i];
	return NULL;
}

int file_kind_reject(const void *buf, size_t len, const char *name, const char *expected, cuzk_error *err)
{
	const struct file_kind *k = file_kind_of(buf, len);
	if (!k || strcmp(k->what, expected) == 0)
		return 0;
	if (k->hint)
		return err_fail(err, CUZK_E_FORMAT, "%s is %s, not %s (%s)", name, k->what, expected, k->hint);
	return err_fail(err, CUZK_E_FORMAT, "%s is %s, not %s", name, k->what, expected);
}
