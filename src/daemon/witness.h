// SPDX-License-Identifier: Apache-2.0 OR MIT
/* One request's witness, received as an fd from a client: every check of
 * docs/GROTH16.md's "What the daemon checks", in order, each with its own
 * error code:
 *   F_GETFL: open for reading                             CUZK_E_FD
 *   fstat: a regular file                                 CUZK_E_FD
 *   fstatfs: on tmpfs or hugetlbfs                        CUZK_E_FD
 *   F_GET_SEALS includes F_SEAL_SHRINK and F_SEAL_GROW    CUZK_E_SEALS
 *   size within max_witness_bytes (and non-empty)         CUZK_E_BUSY / CUZK_E_FORMAT
 *   every page backed (st_blocks): no holes               CUZK_E_FORMAT
 *   mmap PROT_READ MAP_SHARED (registration cache)        CUZK_E_IO / CUZK_E_BUSY
 *   header and partition table copied, then validated     CUZK_E_FORMAT / CUZK_E_VERSION
 *   scalar form agrees with the request                   CUZK_E_MISMATCH
 * The prover gets views whose counts come from the daemon's copy of the
 * header and whose scalar and density pointers point into the client's
 * mapping (density_shared set).  The worker copies the densities into its
 * own memory before anything reads them, off the event loop; the scalars
 * are read in place.  So a client that writes during its proof gets a wrong
 * proof or a mismatch error, nothing else. */
#ifndef CUZK_DAEMON_WITNESS_H
#define CUZK_DAEMON_WITNESS_H

#include <stdint.h>

#include "abi/witness_format.h"
#include "common/error.h"
#include "daemon/regcache.h"
#include "ipc/protocol.h"
#include "prover/types.h"

struct cuzkd_witness {
	struct cuzkd_buf *buf;           /* referenced */
	struct witness_desc desc;        /* validated copy */
};

/* Runs the checks on fd (which the caller still owns and closes) and fills
 * views[0 .. desc.hdr.num_partitions). */
int cuzkd_witness_open(struct cuzkd_witness *ret, struct cuzkd_regcache *rc, int fd,
		       const struct msg_prove *req, uint64_t max_bytes, const struct cuzkd_owner *o,
		       groth16_witness_view *views, cuzk_error *err);
void cuzkd_witness_close(struct cuzkd_witness *w, struct cuzkd_regcache *rc);

#endif
