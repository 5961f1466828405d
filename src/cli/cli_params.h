// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A parameter file read for one device of a backend, as `cuzk prove` and
 * `cuzk bench` need it: on a backend with device memory (the GPU) the points
 * are uploaded while they are decoded (prover/params_upload.h), so that
 * the params are ready to prove there when the read returns. */
#ifndef CUZK_CLI_CLI_PARAMS_H
#define CUZK_CLI_CLI_PARAMS_H

#include "formats/params_io.h"
#include "prover/backend.h"

struct cli_load_stats {
	double decode_ms;   /* the decoding alone, wall */
	double cpu_ms;      /* its CPU time, all threads (the upload's copies beside it included) */
	double sys_ms;      /* of which the kernel's */
	double tail_ms;     /* from the decoding's end until the params were ready on the device */
	int device;         /* the backend has device memory: tail_ms means something */
	uint64_t device_decoded;   /* points the device decoded (0: all on the CPU) */
};

/* Reads path with o (its decoded callback is the upload's: leave it NULL)
 * and makes the params ready on dev: resident, or with no room in its
 * budget page-locked for the streamed path, as a first proof would have
 * left them (the caller unloads them before freeing them, as always).  *st
 * may be NULL.  The read's errors, or the device's (naming it: the params
 * are then freed). */
int cli_params_read(groth16_params *ret, const char *path, const groth16_params_load_opts *o,
		    const struct groth16_backend *be, groth16_device *dev, struct cli_load_stats *st,
		    cuzk_error *err);

#endif
