// SPDX-License-Identifier: Apache-2.0 OR MIT
/* snarkjs's public.json: a JSON array of decimal strings, the public inputs
 * without the constant 1 (["33", "7"]).  Parsing is strict: only that
 * shape, each value canonical (< r), errors naming the index at fault. */
#ifndef CUZK_FORMATS_PUBLIC_JSON_H
#define CUZK_FORMATS_PUBLIC_JSON_H

#include <stddef.h>

#include "bls12_381/fr.h"
#include "common/error.h"

/* Values in Montgomery form, malloc'd (NULL when the array is empty). */
int public_json_parse_mem(fr_t **ret, size_t *ret_n, const char *buf, size_t len, const char *name,
			  cuzk_error *err);
int public_json_read(fr_t **ret, size_t *ret_n, const char *path, cuzk_error *err);
int public_json_write(const fr_t *values, size_t n, const char *path, cuzk_error *err);

#endif
