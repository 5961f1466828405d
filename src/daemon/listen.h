// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The listening socket: the one systemd passed (cuzkd.socket) or one we
 * create at a path when run by hand. */
#ifndef CUZK_DAEMON_LISTEN_H
#define CUZK_DAEMON_LISTEN_H

#include "common/error.h"

/* Returns the listening fd: systemd's when sd_listen_fds() passes one (it
 * must be an AF_UNIX SOCK_SEQPACKET listening socket), else a new socket
 * bound at path (a stale socket there is replaced; a live one is an error).
 * *ret_activated says which. */
int cuzkd_listen(const char *path, int *ret_fd, int *ret_activated, cuzk_error *err);

#endif
