// SPDX-License-Identifier: Apache-2.0 OR MIT
/* What the daemon commands (submit, status, metrics, cancel) share. */
#ifndef CUZK_CLI_CLI_DAEMON_H
#define CUZK_CLI_CLI_DAEMON_H

#include "common/error.h"
#include "cuzk.h"

/* The --socket option every daemon command takes, and the socket it names:
 * --socket when given, else $CUZK_SOCKET when set and not empty, else the
 * packaged socket (CUZK_DEFAULT_SOCKET). */
#define CLI_SOCKET_OPTION(var) \
	{ "socket", "PATH", &(var), "cuzkd's socket (default: $CUZK_SOCKET, else " CUZK_DEFAULT_SOCKET ")" }
const char *cli_daemon_socket(const char *option);

enum cli_daemon_text { CLI_TEXT_STATUS, CLI_TEXT_STATUS_JSON, CLI_TEXT_METRICS };

/* Connects to sock, fetches the status or metrics text and prints it on
 * stdout (with a final newline).  0 or the library's -CUZK_E_*. */
int cli_daemon_print_text(const char *sock, enum cli_daemon_text which, cuzk_error *err);

#endif
