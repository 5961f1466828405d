// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk status: cuzkd's queues, workers, devices and caches, as text or JSON. */
#include "cli/cli.h"
#include "cli/cli_daemon.h"

static int run(int argc, char **argv, cuzk_error *err)
{
	const char *sock = NULL, *json = NULL;
	const struct cli_option opts[] = {
		CLI_SOCKET_OPTION(sock),
		{ "json", NULL, &json, "print JSON instead of text" },
	};
	int r = cli_parse(&cli_cmd_status, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	return cli_daemon_print_text(cli_daemon_socket(sock), json ? CLI_TEXT_STATUS_JSON : CLI_TEXT_STATUS, err);
}

const struct cli_command cli_cmd_status = {
	.name = "status",
	.summary = "show cuzkd's queues, workers, devices and caches",
	.usage = "[--socket PATH] [--json]",
	.run = run,
};
