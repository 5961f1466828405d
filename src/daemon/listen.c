// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The listening socket (see listen.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "daemon/listen.h"

enum { BACKLOG = 128 };

static int from_systemd(int n, int *ret_fd, cuzk_error *err)
{
	int fd = SD_LISTEN_FDS_START;

	if (n != 1)
		return err_fail(err, CUZK_E_INVAL, "systemd passed %d sockets; cuzkd.socket must have exactly one", n);
	if (sd_is_socket_unix(fd, SOCK_SEQPACKET, 1, NULL, 0) <= 0)
		return err_fail(err, CUZK_E_INVAL,
				"the socket systemd passed is not a listening AF_UNIX SOCK_SEQPACKET socket");
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return err_fail_errno(err, errno, "fcntl on the systemd socket");
	*ret_fd = fd;
	return 0;
}

/* A socket file left by a daemon that died is replaced; one that still
 * answers belongs to a running daemon. */
static int remove_stale(const struct sockaddr_un *sa, const char *path, cuzk_error *err)
{
	struct stat st;
	int probe, r;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : err_fail_errno(err, errno, "socket path %s", path);
	if (!S_ISSOCK(st.st_mode))
		return err_fail(err, CUZK_E_INVAL, "socket path %s exists and is not a socket", path);
	probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (probe < 0)
		return err_fail_errno(err, errno, "socket");
	r = connect(probe, (const struct sockaddr *)sa, sizeof(*sa));
	close(probe);
	if (r == 0)
		return err_fail(err, CUZK_E_BUSY, "socket path %s: another cuzkd is listening there", path);
	if (unlink(path) < 0 && errno != ENOENT)
		return err_fail_errno(err, errno, "removing stale socket %s", path);
	return 0;
}

int cuzkd_listen(const char *path, int *ret_fd, int *ret_activated, cuzk_error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int n = sd_listen_fds(1), fd, r;

	if (n < 0)
		return err_fail_errno(err, -n, "sd_listen_fds");
	if (n > 0) {
		*ret_activated = 1;
		return from_systemd(n, ret_fd, err);
	}
	*ret_activated = 0;
	if (!path[0])
		return err_fail(err, CUZK_E_INVAL, "no socket: not started by systemd and no --socket given");
	if (strlen(path) >= sizeof(sa.sun_path))
		return err_fail(err, CUZK_E_INVAL, "socket path %s is longer than %zu bytes", path,
				sizeof(sa.sun_path) - 1);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	r = remove_stale(&sa, path, err);
	if (r)
		return r;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_fail_errno(err, errno, "socket");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = err_fail_errno(err, errno, "bind %s", path);
		close(fd);
		return r;
	}
	if (listen(fd, BACKLOG) < 0) {
		r = err_fail_errno(err, errno, "listen %s", path);
		close(fd);
		unlink(path);
		return r;
	}
	*ret_fd = fd;
	return 0;
}
