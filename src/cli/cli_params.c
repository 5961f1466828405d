// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A parameter file read for one device of a backend (cli_params.h). */
#include "cli/cli_params.h"

#include "cli/cli.h"
#include "common/clock.h"
#include "prover/params_upload.h"

int cli_params_read(groth16_params *ret, const char *path, const groth16_params_load_opts *o,
		    const struct groth16_backend *be, groth16_device *dev, struct cli_load_stats *st,
		    cuzk_error *err)
{
	groth16_params_uploader *up = NULL;
	int r = be->upload_begin ? groth16_params_uploader_start(&up, be, &dev, 1, ret, err) : 0;
	if (r < 0)
		return r;
	groth16_params_load_opts lo = *o;
	lo.decoded = up ? groth16_params_uploader_decoded : NULL;
	lo.decoded_ctx = up;
	double t0 = monotonic_ms(), c0 = cli_cpu_ms(), s0 = cli_sys_ms();
	r = groth16_params_read_opts(ret, path, &lo, err);
	double t1 = monotonic_ms(), c1 = cli_cpu_ms(), s1 = cli_sys_ms();
	const int loaded = r == 0;
	if (up) {
		struct groth16_upload_stats us;
		groth16_params_uploader_finish(up, loaded ? ret : NULL, &us);
		if (loaded && us.rc < 0) {
			*err = us.err;
			r = err_prefix(err, "uploading %s", path);
		}
	}
	/* Resident: found at once.  No room: page-locked for streaming now. */
	if (r == 0 && be->load_params)
		r = be->load_params(dev, ret, err);
	if (r < 0) {
		if (loaded) {
			if (be->unload_params)
				be->unload_params(dev, ret);
			groth16_params_free(ret);
		}
		return r;
	}
	if (st)
		*st = (struct cli_load_stats){ t1 - t0, c1 - c0, s1 - s0, monotonic_ms() - t1, be->upload_begin != NULL };
	return 0;
}
