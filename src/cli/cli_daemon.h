// SPDX-License-Identifier: Apache-2.0 OR MIT
/* What the daemon commands (submit, status, metrics, cancel) share. */
#ifndef CUZK_CLI_CLI_DAEMON_H
#define CUZK_CLI_CLI_DAEMON_H

#include "common/error.h"
#include "cuzk.h"

enum cli_daemon_text { CLI_TEXT_STATUS, CLI_TEXT_STATUS_JSON, CLI_TEXT_METRICS };

/* Connects to sock, fetches the status or metrics text and prints it on
 * stdout (with a final newline).  0 or the library's -CUZK_E_*. */
int cli_daemon_print_text(const char *sock, enum cli_daemon_text which, cuzk_error *err);

#endif
