// SPDX-License-Identifier: Apache-2.0 OR MIT
/* A parameter file read for one device of a backend (cli_params.h). */
#include "cli/cli_params.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/clock.h"
#include "prover/params_upload.h"

int cli_params_read(groth16_params *ret, const char *path, const groth16_params_load_opts *o,
		    const struct groth16_backend *be, groth16_device *dev, struct cli_load_stats *st,
		    cuzk_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_fail_errno(err, errno, "%s: open", path);
	struct groth16_upload_stats us;
	double c0 = cli_cpu_ms(), s0 = cli_sys_ms();
	int r = groth16_params_read_to_devices(ret, fd, path, o, be, &dev, 1, ret, &us, err);
	double t1 = monotonic_ms(), c1 = cli_cpu_ms(), s1 = cli_sys_ms();
	close(fd);
	const int loaded = r == 0;
	if (loaded && us.rc < 0) {
		*err = us.err;
		r = err_prefix(err, "uploading %s", path);
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
	/* The tail: the uploader's wait for the last copies, then whatever
	 * load_params still had to do. */
	if (st)
		*st = (struct cli_load_stats){ us.decode_ms, c1 - c0, s1 - s0, monotonic_ms() - t1 + us.tail_ms,
					       be->upload_begin != NULL, us.device_decoded };
	return 0;
}
