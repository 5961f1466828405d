// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Named proof kinds: Filecoin's circuits by name ("porep-32g"), each mapped
 * to the v28 parameter file Filecoin's tools download into
 * /var/tmp/filecoin-proof-parameters (rust-fil-proofs' parameters.json).
 * A request may name a kind wherever it names a parameter file: the daemon
 * resolves it (docs/PROTOCOL.md, PROVE). */
#ifndef CUZK_IPC_KINDS_H
#define CUZK_IPC_KINDS_H

#include <stdint.h>

struct kind {
	const char *name;            /* "porep-32g" */
	const char *params;          /* its v28-*.params file name */
	const char *title;           /* "PoRep commit phase 2, 32 GiB sectors" */
	uint64_t sector_size;        /* bytes */
};

/* The table, terminated by an entry whose name is NULL. */
extern const struct kind kind_table[];

/* The kind called name, or NULL. */
const struct kind *kind_by_name(const char *name);
/* The kind whose parameter file is params, or NULL. */
const struct kind *kind_by_params(const char *params);

#endif
