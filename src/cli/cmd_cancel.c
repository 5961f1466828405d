// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk cancel: cancels a cuzkd job by the id that `cuzk submit`
 * prints (the journal has it too, as CUZK_JOB).  The daemon allows it to the job owner's uid and to root. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_daemon.h"
#include "cuzk.h"

static int run(int argc, char **argv, cuzk_error *err)
{
	const char *sock = NULL, *id_s = NULL;
	const struct cli_option opts[] = {
		CLI_SOCKET_OPTION(sock),
		{ "request", "ID", &id_s, "the job id (cuzk submit prints it, and the journal has it as CUZK_JOB)" },
	};
	int r = cli_parse(&cli_cmd_cancel, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	uint64_t id = 0;
	if ((r = cli_require("request", id_s, err)) < 0 ||
	    (r = cli_parse_u64("request", id_s, 1, UINT64_MAX, &id, err)) < 0)
		return r;
	cuzk_client *c;
	if ((r = cuzk_connect(&c, cli_daemon_socket(sock), NULL, err)) < 0)
		return r;
	r = cuzk_cancel_job(c, id, err);
	cuzk_disconnect(c);
	if (r == 0)
		printf("job %llu: cancelled\n", (unsigned long long)id);
	return r;
}

const struct cli_command cli_cmd_cancel = {
	.name = "cancel",
	.summary = "cancel a cuzkd job",
	.usage = "[--socket PATH] --request ID",
	.run = run,
};
