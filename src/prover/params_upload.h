// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Params copied to devices while they are being decoded, so that "ready to
 * prove" is the decoding plus the upload of its last piece, not the
 * decoding plus the whole upload (issue 10: a 47 GB PoRep file took ~15 s
 * to decode, then ~2.7 s to upload on its first proof).
 *
 * The caller starts an uploader for its devices, loads the params with
 * groth16_params_load_opts.decoded = groth16_params_uploader_decoded and
 * decoded_ctx = the uploader (src/formats/params_io.h; this module reads no
 * file), then finishes the uploader with the load's result.  Each device
 * has a thread that copies the decoded run as it grows, through the
 * backend's upload_begin / upload_part / upload_end (backend.h), in steps
 * of at least 2^20 points.  A device whose budget cannot hold the params
 * resident is left as it was: its first proof's load_params streams them.
 * A backend without upload_begin (the CPU) makes the uploader do nothing.
 *
 * $CUZK_SRS_UPLOAD_OVERLAP=0 makes the copies start only when the decoding
 * has ended (the order before this module, with the same code), to compare
 * the two on one machine.
 *
 * groth16_params_read_to_devices also decodes the query points on the
 * first device when its backend has a point_decoder (the GPU) and the
 * checks are none or curve (params_io.h: subgroup checks and ic stay on
 * the CPU, and so does every error message); a decoding thread that cannot
 * set it up decodes on the CPU.  $CUZK_GPU_DECODE=0 leaves it out, to
 * compare. */
#ifndef CUZK_PROVER_PARAMS_UPLOAD_H
#define CUZK_PROVER_PARAMS_UPLOAD_H

#include <stdint.h>

#include "common/error.h"
#include "formats/params_io.h"
#include "prover/backend.h"
#include "prover/types.h"

typedef struct groth16_params_uploader groth16_params_uploader;

struct groth16_upload_stats {
	unsigned devices;    /* devices the uploader was given */
	unsigned resident;   /* those that hold the params resident now */
	double tail_ms;      /* from finish (the load's end) until every device's copy had landed */
	double decode_ms;    /* groth16_params_read_to_devices: the read alone, wall */
	uint64_t device_decoded;   /* and of its points, those the device decoded (0: all on the CPU) */
	int rc;              /* the first device's failure (its params not resident), 0 if none */
	cuzk_error err;      /* its message, naming the device */
};

/* n devices of be (n may be 0); key: the params object the load will fill,
 * which proofs and load_params will be given.  Starts a thread per device
 * (they wait for the first decoded points).  0, or -CUZK_E_NOMEM, or the
 * error of a thread that could not be started (those started are stopped). */
int groth16_params_uploader_start(groth16_params_uploader **ret, const struct groth16_backend *be,
				  groth16_device *const *devs, unsigned n, const groth16_params *key,
				  cuzk_error *err);
/* groth16_params_load_opts.decoded, with the uploader as its context. */
void groth16_params_uploader_decoded(void *ctx, const groth16_params *p, uint64_t done);
/* loaded: the params the load returned (*key), or NULL when it failed (what
 * was copied is dropped).  Waits for every device's thread, fills *st (may
 * be NULL) and frees u.  A device's failure leaves its params not
 * resident: its first proof loads them as it always did. */
void groth16_params_uploader_finish(groth16_params_uploader *u, const groth16_params *loaded,
				    struct groth16_upload_stats *st);

/* All of the above in one call: fd (named name in messages) read with o
 * (its decoded callback is the uploader's, its decoder the first device's:
 * leave them NULL), its points going to n devices of be as they are
 * decoded.  key as above.  Without devices, or without upload_begin and
 * point_decoder, it is the plain read.  *st (may be NULL) as above;
 * decode_ms is the read alone, device_decoded what the first device
 * decoded of it.  Returns the read's error (the plain read's, or a failure
 * of the device decoding it, naming the section and the offset) or the
 * uploader's start's; a device's upload failure is only in *st. */
int groth16_params_read_to_devices(groth16_params *ret, int fd, const char *name, const groth16_params_load_opts *o,
				   const struct groth16_backend *be, groth16_device *const *devs, unsigned n,
				   const groth16_params *key, struct groth16_upload_stats *st, cuzk_error *err);

#endif
