// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk metrics: cuzkd's counters in the Prometheus text exposition format. */
#include "cli/cli.h"
#include "cli/cli_daemon.h"

static int run(int argc, char **argv, cuzk_error *err)
{
	const char *sock = NULL;
	const struct cli_option opts[] = {
		CLI_SOCKET_OPTION(sock),
	};
	int r = cli_parse(&cli_cmd_metrics, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;
	return cli_daemon_print_text(cli_daemon_socket(sock), CLI_TEXT_METRICS, err);
}

const struct cli_command cli_cmd_metrics = {
	.name = "metrics",
	.summary = "print cuzkd's metrics (Prometheus text format)",
	.usage = "[--socket PATH]",
	.run = run,
};
