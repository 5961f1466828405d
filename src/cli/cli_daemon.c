// SPDX-License-Identifier: Apache-2.0 OR MIT
/* What the daemon commands share: the socket they talk to, and status and
 * metrics (the same exchange, printed as the daemon wrote it). */
#include "cli/cli_daemon.h"

#include <stdio.h>
#include <stdlib.h>

const char *cli_daemon_socket(const char *option)
{
	const char *env = getenv("CUZK_SOCKET");
	if (option)
		return option;
	return env && env[0] ? env : CUZK_DEFAULT_SOCKET;
}

int cli_daemon_print_text(const char *sock, enum cli_daemon_text which, cuzk_error *err)
{
	cuzk_client *c;
	char *text;
	size_t len;
	int r = cuzk_connect(&c, sock, NULL, err);
	if (r < 0)
		return r;
	if (which == CLI_TEXT_METRICS)
		r = cuzk_daemon_metrics(c, &text, &len, err);
	else
		r = cuzk_daemon_status(c, which == CLI_TEXT_STATUS_JSON ? CUZK_STATUS_JSON : CUZK_STATUS_TEXT,
				       &text, &len, err);
	cuzk_disconnect(c);
	if (r < 0)
		return r;
	fwrite(text, 1, len, stdout);
	if (len && text[len - 1] != '\n')
		putchar('\n');
	free(text);
	return 0;
}
