// SPDX-License-Identifier: Apache-2.0 OR MIT
/* End-to-end harness for cuzkd tests (see harness.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "devtools/gencircuit.h"
#include "devtools/setup.h"
#include "formats/params_io.h"
#include "prover/verifier.h"
#include "tests/daemon/harness.h"

#ifndef CUZKD_BIN
#error "CUZKD_BIN must name the cuzkd binary under test"
#endif

static void notify_stop(struct td_env *env);

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "harness: %s: %s\n", what, detail);
	exit(1);
}

void td_env_init(struct td_env *env, const char *tag)
{
	const char *tmp = getenv("TMPDIR");

	memset(env, 0, sizeof(*env));
	env->pid = -1;
	env->notify_fd = env->pidfd = env->gate_fd = -1;
	snprintf(env->dir, sizeof(env->dir), "%s/cuzkd-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
	if (!mkdtemp(env->dir))
		die("mkdtemp", strerror(errno));
	snprintf(env->srs_dir, sizeof(env->srs_dir), "%s/srs", env->dir);
	snprintf(env->socket, sizeof(env->socket), "%s/s", env->dir);
	snprintf(env->conf, sizeof(env->conf), "%s/cuzkd.conf", env->dir);
	snprintf(env->log, sizeof(env->log), "%s/cuzkd.log", env->dir);
	if (mkdir(env->srs_dir, 0700) < 0)
		die("mkdir", strerror(errno));
}

static void remove_tree(const char *path)
{
	char cmd[600];

	/* Only ever our own mkdtemp directory. */
	if (strstr(path, "/cuzkd-") == NULL)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "harness: could not remove %s\n", path);
}

void td_env_cleanup(struct td_env *env, int print_log)
{
	if (env->pid > 0 && td_daemon_alive(env))
		td_daemon_stop(env, SIGKILL);
	notify_stop(env);
	if (print_log || getenv("CUZKD_TEST_VERBOSE")) {
		char line[1024];
		FILE *f = fopen(env->log, "r");
		fprintf(stderr, "---- cuzkd log ----\n");
		while (f && fgets(line, sizeof(line), f))
			fputs(line, stderr);
		if (f)
			fclose(f);
		fprintf(stderr, "-------------------\n");
	}
	if (env->notify_fd >= 0)
		close(env->notify_fd);
	if (env->pidfd >= 0)
		close(env->pidfd);
	td_gate_close(env);
	remove_tree(env->dir);
}

void tcircuit_make(struct tcircuit *c, const struct td_env *env, const char *name, unsigned log_k,
		   size_t inputs, uint64_t seed)
{
	gencircuit_spec spec = { .log_constraints = log_k, .num_inputs = inputs, .seed = seed };
	char path[600];
	cuzk_error err;

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (gencircuit_build(&spec, &c->cs, &c->z, &err))
		die("gencircuit_build", err.msg);
	if (groth16_dev_setup_insecure(&c->params, &c->cs, seed, &err))
		die("dev setup", err.msg);
	if (groth16_synthesize(&c->syn, &c->cs, c->z, c->cs.num_inputs + c->cs.num_aux, &err))
		die("synthesize", err.msg);
	snprintf(path, sizeof(path), "%s/%s", env->srs_dir, name);
	if (groth16_params_write(&c->params, path, &err))
		die("params write", err.msg);
}

void tcircuit_free(struct tcircuit *c)
{
	groth16_params_free(&c->params);
	groth16_synth_free(&c->syn);
	r1cs_free(&c->cs);
	free(c->z);
}

/* Fills a whole witness file image (header, table, sections). */
static void fill_witness(const struct tcircuit *c, uint8_t *buf, const struct witness_desc *d)
{
	const groth16_synth *s = &c->syn;
	size_t ni = s->num_inputs, na = s->num_aux;

	witness_write_header(buf, d);
	for (unsigned p = 0; p < d->hdr.num_partitions; p++) {
		const uint64_t *off = d->part[p].offset;
		memcpy(buf + off[CUZK_SEC_A], s->a, d->len[CUZK_SEC_A]);
		memcpy(buf + off[CUZK_SEC_B], s->b, d->len[CUZK_SEC_B]);
		memcpy(buf + off[CUZK_SEC_C], s->c, d->len[CUZK_SEC_C]);
		memcpy(buf + off[CUZK_SEC_INPUT], c->z, ni * sizeof(fr_t));
		memcpy(buf + off[CUZK_SEC_AUX], c->z + ni, na * sizeof(fr_t));
		memcpy(buf + off[CUZK_SEC_A_AUX_DENSITY], s->a_aux_density, d->len[CUZK_SEC_A_AUX_DENSITY]);
		memcpy(buf + off[CUZK_SEC_B_INPUT_DENSITY], s->b_input_density, d->len[CUZK_SEC_B_INPUT_DENSITY]);
		memcpy(buf + off[CUZK_SEC_B_AUX_DENSITY], s->b_aux_density, d->len[CUZK_SEC_B_AUX_DENSITY]);
	}
}

static void layout(const struct tcircuit *c, unsigned parts, struct witness_desc *d)
{
	cuzk_error err;

	if (witness_layout(d, c->syn.num_constraints, c->syn.num_inputs, c->syn.num_aux, parts,
			   CUZK_WITNESS_MONTGOMERY, &err))
		die("witness layout", err.msg);
}

static int fill_fd(const struct tcircuit *c, int fd, unsigned parts)
{
	struct witness_desc d;
	uint8_t *map;

	layout(c, parts, &d);
	if (ftruncate(fd, (off_t)d.file_size) < 0)
		die("ftruncate", strerror(errno));
	map = mmap(NULL, d.file_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap", strerror(errno));
	fill_witness(c, map, &d);
	munmap(map, d.file_size);
	return fd;
}

int tcircuit_memfd(const struct tcircuit *c, unsigned parts, unsigned seals)
{
	int fd = memfd_create("cuzk-test-witness", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		die("memfd_create", strerror(errno));
	fill_fd(c, fd, parts);
	if (seals && fcntl(fd, F_ADD_SEALS, (int)seals) < 0)
		die("F_ADD_SEALS", strerror(errno));
	return fd;
}

int tcircuit_file(const struct tcircuit *c, const char *path)
{
	return tcircuit_file_parts(c, path, 1);
}

int tcircuit_file_parts(const struct tcircuit *c, const char *path, unsigned parts)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		die(path, strerror(errno));
	return fill_fd(c, fd, parts);
}

int tcircuit_verify(const struct tcircuit *c, const uint8_t *proof)
{
	groth16_proof p;
	cuzk_error err;

	if (groth16_proof_decode(&p, proof, GROTH16_PROOF_SIZE, &err)) {
		fprintf(stderr, "proof does not decode: %s\n", err.msg);
		return -1;
	}
	if (groth16_verify(&c->params.vk, c->z + 1, c->cs.num_inputs - 1, &p, &err)) {
		fprintf(stderr, "proof does not verify: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* ---- the daemon ---- */

static void set_sun_path(struct sockaddr_un *sa, const char *path)
{
	size_t n = strlen(path);

	if (n >= sizeof(sa->sun_path))
		die(path, "socket path too long (set TMPDIR to a shorter directory)");
	memcpy(sa->sun_path, path, n + 1);
}

static int notify_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("notify socket", strerror(errno));
	set_sun_path(&sa, path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("bind notify socket", strerror(errno));
	return fd;
}

void td_write_conf(struct td_env *env, const char *extra)
{
	FILE *f = fopen(env->conf, "w");

	if (!f)
		die(env->conf, strerror(errno));
	fprintf(f, "[daemon]\nsocket = %s\nsrs_dir = %s\nbackend = %s\n%s\n", env->socket, env->srs_dir,
		td_backend(), extra ? extra : "");
	fclose(f);
}

/* Notify messages as they arrive, until the daemon exits. */
struct td_notify {
	pthread_t thread;
	int fd, pidfd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	char **msgs;
	size_t first, n, cap;
	int ended;                 /* the daemon exited; msgs holds all it sent */
};

static void notify_push(struct td_notify *t, const char *msg)
{
	pthread_mutex_lock(&t->lock);
	if (t->first + t->n == t->cap) {
		if (t->first)
			memmove(t->msgs, t->msgs + t->first, t->n * sizeof(char *));
		t->first = 0;
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 64;
			t->msgs = realloc(t->msgs, t->cap * sizeof(char *));
			if (!t->msgs)
				die("notify", "out of memory");
		}
	}
	t->msgs[t->first + t->n++] = strdup(msg);
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

static void *notify_main(void *arg)
{
	struct td_notify *t = arg;
	struct pollfd pfd[2] = { { .fd = t->fd, .events = POLLIN }, { .fd = t->pidfd, .events = POLLIN } };

	for (;;) {
		char msg[4096];
		ssize_t n;
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		/* What the daemon sent before it exited is still queued. */
		while ((n = recv(t->fd, msg, sizeof(msg) - 1, MSG_DONTWAIT)) > 0) {
			msg[n] = '\0';
			notify_push(t, msg);
		}
		if (pfd[1].revents)
			break;
	}
	pthread_mutex_lock(&t->lock);
	t->ended = 1;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* Waits for the reader of the previous daemon (which has exited). */
static void notify_stop(struct td_env *env)
{
	struct td_notify *t = env->notify;

	if (!t)
		return;
	pthread_join(t->thread, NULL);
	for (size_t i = 0; i < t->n; i++)
		free(t->msgs[t->first + i]);
	free(t->msgs);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->cond);
	free(t);
	env->notify = NULL;
}

static void notify_start(struct td_env *env)
{
	struct td_notify *t = calloc(1, sizeof(*t));

	if (!t)
		die("notify", "out of memory");
	t->fd = env->notify_fd;
	t->pidfd = env->pidfd;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	if (pthread_create(&t->thread, NULL, notify_main, t))
		die("notify", "cannot start the reader thread");
	env->notify = t;
}

static void spawn(struct td_env *env, char *const argv[], int listen_fd)
{
	char notify_path[320];

	notify_stop(env);
	snprintf(notify_path, sizeof(notify_path), "%s/notify", env->dir);
	unlink(notify_path);
	if (env->notify_fd >= 0)
		close(env->notify_fd);
	env->notify_fd = notify_socket(notify_path);
	env->pid = fork();
	if (env->pid < 0)
		die("fork", strerror(errno));
	if (env->pid == 0) {
		int logfd = open(env->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		/* A test that dies (a failed REQUIRE, a sanitizer report) takes
		 * its daemon with it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (logfd >= 0)
			dup2(logfd, STDERR_FILENO);
		setenv("NOTIFY_SOCKET", notify_path, 1);
		/* glibc makes a malloc arena (two mappings) the first time
		 * threads contend, at any moment; the tests that compare the
		 * daemon's mappings before and after would count it as held. */
		setenv("MALLOC_ARENA_MAX", "1", 0);
		if (env->watchdog_usec) {
			char v[32];
			snprintf(v, sizeof(v), "%lu", env->watchdog_usec);
			setenv("WATCHDOG_USEC", v, 1);
			snprintf(v, sizeof(v), "%d", (int)getpid());
			setenv("WATCHDOG_PID", v, 1);
		}
		unsetenv("JOURNAL_STREAM");
		unsetenv("LISTEN_FDS");
		if (listen_fd >= 0) {   /* sd_listen_fds(3): the socket is fd 3, for this pid */
			char v[32];
			if (listen_fd != 3 ? dup2(listen_fd, 3) != 3 : fcntl(3, F_SETFD, 0) != 0)
				_exit(127);
			snprintf(v, sizeof(v), "%d", (int)getpid());
			setenv("LISTEN_PID", v, 1);
			setenv("LISTEN_FDS", "1", 1);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (env->pidfd >= 0)
		close(env->pidfd);
	env->pidfd = (int)syscall(SYS_pidfd_open, env->pid, 0);
	if (env->pidfd < 0)
		die("pidfd_open", strerror(errno));
	notify_start(env);
}

void td_spawn(struct td_env *env, char *const argv[])
{
	spawn(env, argv, -1);
}

void td_spawn_listening(struct td_env *env, char *const argv[], int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("listening socket", strerror(errno));
	set_sun_path(&sa, env->socket);
	unlink(env->socket);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0)
		die(env->socket, strerror(errno));
	spawn(env, argv, fd);
	close(fd);   /* cuzkd holds it now */
}

void td_daemon_start(struct td_env *env, const char *extra)
{
	char *const argv[] = { (char *)td_cuzkd_bin(), (char *)"--config", env->conf, NULL };

	td_write_conf(env, extra);
	td_spawn(env, argv);
	if (td_notify_wait(env, "READY=1", TD_TIMEOUT_MS)) {
		td_env_cleanup(env, 1);
		die("cuzkd", "no READY=1 (see its log above)");
	}
}

int td_notify_wait(struct td_env *env, const char *needle, int timeout_ms)
{
	struct td_notify *t = env->notify;
	struct timespec deadline;
	int found = -1;

	if (!t)
		return -1;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&t->lock);
	for (;;) {
		while (t->n && found) {
			char *msg = t->msgs[t->first++];
			t->n--;
			if (strstr(msg, needle)) {
				snprintf(env->last_notify, sizeof(env->last_notify), "%s", msg);
				found = 0;
			}
			free(msg);
		}
		if (!found || t->ended || pthread_cond_timedwait(&t->cond, &t->lock, &deadline) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&t->lock);
	return found;
}

const char *td_cuzkd_bin(void)
{
	const char *b = getenv("CUZKD_TEST_BIN");

	return b && *b ? b : CUZKD_BIN;
}

void td_gate_open(struct td_env *env)
{
	char path[320];

	snprintf(path, sizeof(path), "%s/gate", env->dir);
	if (mkfifo(path, 0600) < 0 && errno != EEXIST)
		die("mkfifo", strerror(errno));
	/* Read-write: opening does not wait for the daemon, and the daemon
	 * never sees the end of the stream. */
	if (env->gate_fd < 0)
		env->gate_fd = open(path, O_RDWR | O_CLOEXEC);
	if (env->gate_fd < 0)
		die(path, strerror(errno));
	setenv("CUZKD_TEST_GATE", path, 1);
}

void td_gate_pass(struct td_env *env, unsigned n)
{
	char bytes[256];

	memset(bytes, 'g', sizeof(bytes));
	while (n) {
		unsigned k = n < sizeof(bytes) ? n : sizeof(bytes);
		if (write(env->gate_fd, bytes, k) != (ssize_t)k)
			die("gate", strerror(errno));
		n -= k;
	}
}

void td_gate_close(struct td_env *env)
{
	unsetenv("CUZKD_TEST_GATE");
	if (env->gate_fd >= 0)
		close(env->gate_fd);
	env->gate_fd = -1;
}

const char *td_one_worker_conf(void)
{
	return "[engine]\ncpu_workers = 1\ncpu_devices = 1\nworkers_per_device = 1\ndevices = 0\n";
}

const char *td_backend(void)
{
	const char *b = getenv("CUZKD_TEST_BACKEND");

	return b && *b ? b : "cpu";
}

int td_log_has(const struct td_env *env, const char *needle)
{
	char line[1024];
	FILE *f = fopen(env->log, "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, needle) != NULL;
	if (f)
		fclose(f);
	return found;
}

int td_daemon_wait(struct td_env *env, int timeout_ms)
{
	struct pollfd pfd = { .fd = env->pidfd, .events = POLLIN };
	int status;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return -1;
	if (waitpid(env->pid, &status, 0) != env->pid)
		return -1;
	env->pid = -1;
	env->exit_status = status;
	return status;
}

int td_daemon_stop(struct td_env *env, int sig)
{
	if (env->pid <= 0)
		return -1;
	kill(env->pid, sig);
	return td_daemon_wait(env, TD_TIMEOUT_MS);
}

int td_daemon_alive(struct td_env *env)
{
	struct pollfd pfd = { .fd = env->pidfd, .events = POLLIN };

	return env->pid > 0 && poll(&pfd, 1, 0) == 0;
}

/* ---- the raw client ---- */

int tc_connect_raw(struct tclient *c, const struct td_env *env)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	memset(c, 0, sizeof(*c));
	c->ring_fd = c->head_fd = c->efd = -1;
	c->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -1;
	set_sun_path(&sa, env->socket);
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	return 0;
}

int tc_connect(struct tclient *c, const struct td_env *env, uint32_t max_inflight)
{
	return tc_connect_flags(c, env, max_inflight, 0);
}

int tc_connect_flags(struct tclient *c, const struct td_env *env, uint32_t max_inflight, uint32_t hello_flags)
{
	struct msg_hello h;
	uint8_t buf[CUZK_MSG_MAX];
	int fds[3];
	unsigned nfds = 0;
	size_t len;
	struct pollfd pfd;
	cuzk_error err;

	if (tc_connect_raw(c, env))
		return -1;
	memset(&h, 0, sizeof(h));
	msg_init(&h.hdr, CUZK_MSG_HELLO, sizeof(h), 1);
	h.max_inflight = max_inflight;
	h.flags = hello_flags;
	/* A daemon that refuses the connection may have answered and closed
	 * before the hello goes out: read its answer even if the send fails. */
	tc_send(c, &h, sizeof(h), NULL, 0);
	pfd = (struct pollfd){ .fd = c->fd, .events = POLLIN };
	if (poll(&pfd, 1, TD_TIMEOUT_MS) <= 0)
		return -1;
	if (msg_recv(c->fd, buf, sizeof(buf), &len, fds, 3, &nfds, &err) || len == 0)
		return -1;
	if (msg_parse_hello_reply(&c->hello, buf, len, &err) || nfds != 3) {
		struct msg_reply r;
		for (unsigned i = 0; i < nfds; i++)
			close(fds[i]);
		if (msg_parse_reply(&r, buf, len, NULL) == 0)
			return -(int)r.status;
		return -1;
	}
	c->ring_fd = fds[0];
	c->head_fd = fds[1];
	c->efd = fds[2];
	if (ring_consumer_open(&c->ring, c->ring_fd, c->head_fd, &c->hello, &err)) {
		fprintf(stderr, "ring: %s\n", err.msg);
		return -1;
	}
	c->ring_open = 1;
	return 0;
}

void tc_close(struct tclient *c)
{
	if (c->ring_open)
		ring_consumer_close(&c->ring);
	if (c->ring_fd >= 0)
		close(c->ring_fd);
	if (c->head_fd >= 0)
		close(c->head_fd);
	if (c->efd >= 0)
		close(c->efd);
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = c->ring_fd = c->head_fd = c->efd = -1;
}

int tc_send(struct tclient *c, const void *msg, size_t len, const int *fds, unsigned nfds)
{
	struct iovec iov = { (void *)msg, len };
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(16 * sizeof(int))];
	} ctrl;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds > 16)
		return -1;
	if (nfds) {
		struct cmsghdr *cm;
		mh.msg_control = ctrl.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	return sendmsg(c->fd, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

ssize_t tc_recv(struct tclient *c, void *buf, size_t cap, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return -1;
	return recv(c->fd, buf, cap, 0);
}

int tc_reply(struct tclient *c, struct msg_reply *ret)
{
	uint8_t buf[CUZK_MSG_MAX];
	ssize_t n = tc_recv(c, buf, sizeof(buf), TD_TIMEOUT_MS);
	cuzk_error err;

	if (n <= 0)
		return -1;
	if (msg_parse_reply(ret, buf, (size_t)n, &err)) {
		fprintf(stderr, "not a reply: %s\n", err.msg);
		return -1;
	}
	return (int)ret->status;
}

void tc_prove_msg(struct msg_prove *m, uint64_t request_id, const char *srs, unsigned priority,
		  uint32_t flags, uint64_t seed)
{
	memset(m, 0, sizeof(*m));
	msg_init(&m->hdr, CUZK_MSG_PROVE, sizeof(*m), request_id);
	m->priority = priority;
	m->flags = flags;
	m->seed = seed;
	snprintf(m->srs, sizeof(m->srs), "%s", srs);
}

int tc_submit(struct tclient *c, uint64_t request_id, const char *srs, unsigned priority, int fd,
	      struct msg_reply *ret)
{
	struct msg_prove m;
	struct msg_reply r;

	tc_prove_msg(&m, request_id, srs, priority, 0, 0);
	if (tc_send(c, &m, sizeof(m), &fd, 1))
		return -1;
	return tc_reply(c, ret ? ret : &r);
}

int tc_wait(struct tclient *c, struct ring_rec *rec, uint8_t *proofs, int timeout_ms)
{
	uint8_t scratch[CUZK_MAX_PARTITIONS * CUZK_PROOF_BYTES];
	cuzk_error err;

	for (;;) {
		struct pollfd pfd[2] = { { .fd = c->efd, .events = POLLIN }, { .fd = c->fd, .events = POLLRDHUP } };
		uint64_t v;
		int r = ring_pop(&c->ring, rec, proofs ? proofs : scratch, &err);
		if (r == 1)
			return 0;
		if (r < 0) {
			fprintf(stderr, "ring pop: %s\n", err.msg);
			return -1;
		}
		if (poll(pfd, 2, timeout_ms) <= 0)
			return -1;
		if (pfd[0].revents & POLLIN) {
			if (read(c->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				return -1;
			continue;
		}
		if (pfd[1].revents)
			return ring_pop(&c->ring, rec, proofs ? proofs : scratch, &err) == 1 ? 0 : -1;
	}
}

/* The TEXT chunks answering tag 77, put together (text_add). */
static char *recv_text(struct tclient *c)
{
	uint8_t buf[CUZK_MSG_MAX];
	struct text_answer t;
	int r;

	text_init(&t, 77);
	do {
		ssize_t n = tc_recv(c, buf, sizeof(buf), TD_TIMEOUT_MS);
		r = n > 0 ? text_add(&t, buf, (size_t)n, NULL) : -1;
	} while (r == 0);
	if (r < 0) {
		text_free(&t);
		return NULL;
	}
	return t.text;
}

char *tc_status(struct tclient *c, enum cuzk_status_format format)
{
	struct msg_status m;
	memset(&m, 0, sizeof(m));
	msg_init(&m.hdr, CUZK_MSG_STATUS, sizeof(m), 77);
	m.format = (uint32_t)format;
	return tc_send(c, &m, sizeof(m), NULL, 0) ? NULL : recv_text(c);
}

char *tc_text(struct tclient *c, int metrics, int json)
{
	struct msg_metrics m;

	if (!metrics)
		return tc_status(c, json ? CUZK_STATUS_JSON : CUZK_STATUS_TEXT);
	memset(&m, 0, sizeof(m));
	msg_init(&m.hdr, CUZK_MSG_METRICS, sizeof(m), 77);
	return tc_send(c, &m, sizeof(m), NULL, 0) ? NULL : recv_text(c);
}

double tc_metric(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, name, n) == 0 && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	}
	return -1;
}

int tc_wait_status(struct tclient *c, const char *need1, const char *need2)
{
	const uint64_t t0 = monotonic_ns();

	for (;;) {
		char *text = tc_text(c, 0, 1);
		int done = text && strstr(text, need1) && (!need2 || strstr(text, need2));
		free(text);
		if (!text)
			return -1;
		if (done)
			return 0;
		if ((monotonic_ns() - t0) / 1000000 > TD_TIMEOUT_MS) {
			fprintf(stderr, "tc_wait_status: the status never showed %s%s%s\n", need1, need2 ? " and " : "",
				need2 ? need2 : "");
			return -1;
		}
	}
}

static int count_lines(const char *path, const char *prefix, long *ret_value)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		n++;
		if (prefix && ret_value && strncmp(line, prefix, strlen(prefix)) == 0)
			*ret_value = strtol(line + strlen(prefix), NULL, 10);
	}
	if (f)
		fclose(f);
	return n;
}

/* The lines of /proc/PID/maps, and in *files those naming a path (a
 * file, "/memfd:...", a device): the sixth field, after the inode. */
static int count_maps(const char *path, int *files)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int n = 0;

	*files = 0;
	if (!f)
		die(path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char name[2] = "";
		n++;
		if (sscanf(line, "%*s %*s %*s %*s %*s %1s", name) == 1 && name[0] == '/')
			(*files)++;
		/* A line longer than the buffer: skip the rest of it. */
		while (!strchr(line, '\n') && fgets(line, sizeof(line), f))
			;
	}
	fclose(f);
	return n;
}

int td_same_mappings(const struct td_usage *before, const struct td_usage *after)
{
	return after->file_maps == before->file_maps &&
	       after->maps - after->file_maps <= before->maps - before->file_maps + TD_ANON_MAPS_SLACK;
}

struct td_usage td_daemon_usage(const struct td_env *env, struct tclient *via)
{
	struct td_usage u = { 0 };
	struct tclient cl;
	char path[64];
	char *text;
	DIR *dir;

	if (!via && tc_connect(&cl, env, 0))
		die("td_daemon_usage", "cannot connect");
	text = tc_text(via ? via : &cl, 0, 0);
	if (!text)
		die("td_daemon_usage", "no status");
	free(text);
	/* A dropped pinned buffer is unmapped by the releaser thread, after
	 * the loop answered: wait until none is left to release. */
	if (tc_wait_status(via ? via : &cl, "\"releasing\":0}", NULL))
		die("td_daemon_usage", "dropped buffers still being released");
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)env->pid);
	dir = opendir(path);
	if (!dir)
		die(path, strerror(errno));
	while (readdir(dir))
		u.fds++;
	closedir(dir);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)env->pid);
	u.maps = count_maps(path, &u.file_maps);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)env->pid);
	count_lines(path, "VmRSS:", &u.rss_kb);
	if (!via)
		tc_close(&cl);
	return u;
}

static int prove_parts(const struct td_env *env, const struct tcircuit *c, unsigned parts, const char *who)
{
	struct tclient cl;
	struct msg_reply rep;
	struct ring_rec rec;
	uint8_t proofs[CUZK_MAX_PARTITIONS * CUZK_PROOF_BYTES];
	int fd, ok = -1;

	if (tc_connect(&cl, env, 0)) {
		fprintf(stderr, "%s: cannot connect\n", who);
		tc_close(&cl);
		return -1;
	}
	fd = tcircuit_memfd(c, parts, TD_SEALS_OK);
	if (tc_submit(&cl, 4242, c->name, CUZK_PRIORITY_NORMAL, fd, &rep) != 0)
		fprintf(stderr, "%s: rejected: %s\n", who, rep.message);
	else if (tc_wait(&cl, &rec, proofs, TD_TIMEOUT_MS))
		fprintf(stderr, "%s: no completion\n", who);
	else if (rec.status != 0 || rec.request_id != 4242)
		fprintf(stderr, "%s: failed: %s\n", who, rec.message);
	else {
		ok = 0;
		for (unsigned i = 0; i < parts && ok == 0; i++)
			ok = tcircuit_verify(c, proofs + (size_t)i * CUZK_PROOF_BYTES);
	}
	close(fd);
	tc_close(&cl);
	return ok;
}

int td_serves(const struct td_env *env, const struct tcircuit *c)
{
	return prove_parts(env, c, 1, "td_serves");
}

int td_warm(const struct td_env *env, const struct tcircuit *c)
{
	return prove_parts(env, c, 8, "td_warm");
}
