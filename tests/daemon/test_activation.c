// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Socket activation: systemd-socket-activate (systemd's own tool, the same
 * LISTEN_FDS protocol as cuzkd.socket) holds the socket and starts cuzkd on
 * the first connection; cuzkd serves on the socket it was given, not on the
 * one in its configuration.  A stream socket is refused: cuzkd exits 1 and
 * says why.  The same again with the test as the socket's holder (fd 3,
 * LISTEN_FDS=1, LISTEN_PID, as systemd passes it), which needs no tool and
 * so runs on every machine; with the tool absent only that half runs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/daemon/harness.h"

static const char *activate_tool(void)
{
	static const char *const paths[] = { "/usr/bin/systemd-socket-activate", "/bin/systemd-socket-activate",
					     "/lib/systemd/systemd-activate" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

/* Lines of the log that contain needle. */
static int log_count(const struct td_env *env, const char *needle)
{
	char line[1024];
	FILE *f = fopen(env->log, "r");
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	if (f)
		fclose(f);
	return n;
}

/* Waits (inotify on the log, no sleeping) until the activation tool has
 * said "Listening on" for the nth time: it binds before it listens, so the
 * socket file alone can exist while a connect would still be refused. */
static int wait_for_listening(const struct td_env *env, int nth)
{
	int fd = open(env->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	int in = inotify_init1(IN_CLOEXEC), r = -1;

	if (fd >= 0)
		close(fd);
	if (in < 0 || inotify_add_watch(in, env->log, IN_MODIFY) < 0)
		goto out;
	while (log_count(env, "Listening on") < nth) {
		char buf[sizeof(struct inotify_event) + NAME_MAX + 1];
		struct pollfd p = { .fd = in, .events = POLLIN };
		if (poll(&p, 1, TD_TIMEOUT_MS) <= 0 || read(in, buf, sizeof(buf)) <= 0)
			goto out;
	}
	r = 0;
out:
	if (in >= 0)
		close(in);
	return r;
}

/* A configuration whose socket is elsewhere: it must not be the one used. */
static void conf_elsewhere(struct td_env *env)
{
	FILE *f;

	td_write_conf(env, NULL);
	f = fopen(env->conf, "a");
	REQUIRE(f);
	fprintf(f, "[daemon]\nsocket = %s/unused.sock\n", env->dir);
	fclose(f);
}

/* cuzkd served on the socket it was given, then stopped cleanly. */
static void served_and_stopped(struct td_env *env, const struct tcircuit *c, int said_before)
{
	char unused[400];
	int status;

	CHECK(td_serves(env, c) == 0);
	CHECK(log_count(env, "systemd socket") > said_before);
	snprintf(unused, sizeof(unused), "%s/unused.sock", env->dir);
	CHECK(access(unused, F_OK) != 0);
	status = td_daemon_stop(env, SIGTERM);
	CHECK_MSG(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status %d", status);
	unlink(env->socket);
}

static void seqpacket(struct td_env *env, const struct tcircuit *c, const char *tool)
{
	char *argv[] = { (char *)tool, (char *)"--seqpacket", (char *)"-l", env->socket, (char *)"-E",
			 (char *)"NOTIFY_SOCKET", (char *)td_cuzkd_bin(), (char *)"--config", env->conf, NULL };
	const int said = log_count(env, "systemd socket");
	struct tclient cl;

	conf_elsewhere(env);
	td_spawn(env, argv);
	REQUIRE(wait_for_listening(env, 1) == 0);
	/* The first connection starts cuzkd; the hello waits in the backlog. */
	REQUIRE(tc_connect(&cl, env, 0) == 0);
	CHECK(td_notify_wait(env, "READY=1", TD_TIMEOUT_MS) == 0);
	tc_close(&cl);
	served_and_stopped(env, c, said);
}

static void stream(struct td_env *env, const char *tool)
{
	char *argv[] = { (char *)tool, (char *)"-l", env->socket, (char *)td_cuzkd_bin(), (char *)"--config", env->conf,
			 NULL };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, status;

	td_write_conf(env, NULL);
	td_spawn(env, argv);
	REQUIRE(wait_for_listening(env, 2) == 0);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	REQUIRE(fd >= 0 && strlen(env->socket) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, env->socket, strlen(env->socket) + 1);
	REQUIRE(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	status = td_daemon_wait(env, TD_TIMEOUT_MS);
	CHECK_MSG(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 1, "exit status %d", status);
	CHECK(td_log_has(env, "not a listening AF_UNIX SOCK_SEQPACKET socket"));
	close(fd);
	unlink(env->socket);
}

/* The test holds the socket and passes it as systemd does. */
static void held_here(struct td_env *env, const struct tcircuit *c)
{
	char *argv[] = { (char *)td_cuzkd_bin(), (char *)"--config", env->conf, NULL };
	const int said = log_count(env, "systemd socket");
	const int refused = log_count(env, "not a listening AF_UNIX SOCK_SEQPACKET socket");
	int status;

	conf_elsewhere(env);
	td_spawn_listening(env, argv, SOCK_SEQPACKET);
	CHECK(td_notify_wait(env, "READY=1", TD_TIMEOUT_MS) == 0);
	served_and_stopped(env, c, said);

	td_write_conf(env, NULL);
	td_spawn_listening(env, argv, SOCK_STREAM);
	status = td_daemon_wait(env, TD_TIMEOUT_MS);
	CHECK_MSG(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 1, "stream socket: exit status %d", status);
	CHECK(log_count(env, "not a listening AF_UNIX SOCK_SEQPACKET socket") > refused);
	unlink(env->socket);
}

int main(void)
{
	const char *tool = activate_tool();
	struct tcircuit c;
	struct td_env env;

	td_env_init(&env, "activation");
	tcircuit_make(&c, &env, "small.params", 7, 2, 61);
	if (tool) {
		seqpacket(&env, &c, tool);
		stream(&env, tool);
	} else {
		printf("# systemd-socket-activate is not installed: the socket held by the test only\n");
	}
	held_here(&env, &c);
	tcircuit_free(&c);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
