// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzkd: the Groth16 proving daemon.
 *
 *   cuzkd [--config FILE] [--socket PATH] [--srs-dir DIR] [--backend cpu|gpu|auto]
 *   cuzkd --check-config [--config FILE] */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <sysexits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "config.h"
#include "daemon/daemon.h"
#include "daemon/listen.h"
#include "prover/backend.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: cuzkd [--config FILE] [--socket PATH] [--srs-dir DIR] [--backend cpu|gpu|auto]\n"
		   "       cuzkd --check-config [--config FILE]\n"
		   "The default configuration is " CUZKD_DEFAULT_CONFIG " (see cuzkd.conf).\n");
}

struct options {
	const char *config, *socket, *srs_dir, *backend;
	int check;
};

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "srs-dir", required_argument, NULL, 'd' },
		{ "backend", required_argument, NULL, 'b' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; break;
		case 's': o->socket = optarg; break;
		case 'd': o->srs_dir = optarg; break;
		case 'b': o->backend = optarg; break;
		case 'C': o->check = 1; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("cuzkd %s\n", PACKAGE_VERSION); exit(0);
		default:
			fprintf(stderr, "cuzkd: unknown option or missing argument: %s\n", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cuzkd: unexpected argument: %s\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* The configuration file, then the command line on top. */
static int load_config(struct cuzkd_config *cfg, const struct options *o, cuzk_error *err)
{
	int r;

	cuzkd_config_defaults(cfg);
	r = cuzkd_config_load(cfg, o->config ? o->config : CUZKD_DEFAULT_CONFIG, !o->config, err);
	if (r)
		return r;
	if (o->socket && snprintf(cfg->socket, sizeof(cfg->socket), "%s", o->socket) >= (int)sizeof(cfg->socket))
		return err_fail(err, CUZK_E_INVAL, "--socket: path too long");
	if (o->srs_dir && cuzkd_parse_dirs(o->srs_dir, 1, cfg->srs_dir, sizeof(cfg->srs_dir)))
		return err_fail(err, CUZK_E_INVAL, "--srs-dir '%.64s': expected 1 to %d directories", o->srs_dir,
				CUZKD_MAX_SRS_DIRS);
	if (o->backend && cuzkd_parse_backend(o->backend, &cfg->backend))
		return err_fail(err, CUZK_E_INVAL, "--backend: '%s' is not cpu, gpu or auto", o->backend);
	for (uint32_t i = 0; i < cfg->n_preload; i++) {
		r = cuzkd_srs_name_check(cfg->preload[i], CUZKD_SRS_NAME_MAX + 1, err);
		if (r)
			return err_prefix(err, "[srs] preload");
	}
	return 0;
}

/* The configuration's auto/gpu/cpu as a backend; with cpu the CUDA runtime
 * is never touched. */
static int resolve_backend(const struct cuzkd_config *cfg, const struct groth16_backend **ret, cuzk_error *err)
{
	int r = groth16_backend_find(ret, cuzkd_backend_name(cfg->backend), err);

	if (r == 0 && cfg->backend == CUZKD_BACKEND_GPU && (*ret)->device_count() <= 0)
		return err_fail(err, CUZK_E_UNSUPPORTED,
				"backend gpu: no usable CUDA device (or cuzkd was built without CUDA)");
	return r;
}

/* Loads [srs] preload off the loop thread, so READY is not held up. */
static void *preload_main(void *arg)
{
	struct cuzkd *d = arg;

	for (uint32_t i = 0; i < d->cfg.n_preload; i++) {
		struct cuzkd_srs *s;
		cuzk_error err;
		if (cuzkd_srs_acquire(&d->srs, d->cfg.preload[i], &s, &err)) {
			cuzkd_log(&d->log, CUZKD_LOG_ERR, NULL, "preload: %s", err.msg);
			continue;
		}
		cuzkd_log(&d->log, CUZKD_LOG_INFO, NULL, "preload: SRS '%s' loaded (%llu bytes, %.0f ms)",
			  s->name, (unsigned long long)s->bytes, s->load_ms);
		cuzkd_srs_release(&d->srs, s);
	}
	return NULL;
}

static int run(struct cuzkd *d, cuzk_error *err)
{
	pthread_t preload;
	int r, have_preload = 0;

	d->own_gid = getegid();
	r = cuzkd_loop_init(d, err);
	if (r)
		return r;
	r = resolve_backend(&d->cfg, &d->be, err);
	if (r)
		return r;
	r = cuzkd_srs_cache_init(&d->srs, d->cfg.srs_dir, d->cfg.cache_budget, err);
	if (r)
		return r;
	for (unsigned i = 0; i < d->srs.n_dirs; i++)
		if (d->srs.dirs[i].fd < 0)
			cuzkd_log(&d->log, CUZKD_LOG_NOTICE, NULL, "srs_dir %s does not exist: not served",
				  d->srs.dirs[i].path);
	r = cuzkd_regcache_init(&d->reg, d->cfg.max_pinned_bytes_total, d->cfg.max_buffers_total,
				d->cfg.max_buffers_per_uid, err);
	if (r)
		return r;
	r = cuzkd_engine_start(&d->engine, &d->cfg, d->be, &d->srs, &d->log, err);
	d->engine_started = 1;
	if (r)
		return r;
	r = cuzkd_listen(d->cfg.socket, &d->listen_fd, &d->activated, err);
	if (r)
		return r;
	cuzkd_log(&d->log, CUZKD_LOG_INFO, NULL, "cuzkd %s: %s socket%s%s, backend %s, srs_dir %s",
		  PACKAGE_VERSION, d->activated ? "systemd" : "own", d->activated ? "" : " ",
		  d->activated ? "" : d->cfg.socket, d->be->name, d->cfg.srs_dir);
	if (d->cfg.n_preload) {
		r = pthread_create(&preload, NULL, preload_main, d);
		if (r)
			return err_fail_errno(err, r, "starting the preload thread");
		have_preload = 1;
	}
	r = cuzkd_loop_run(d, err);
	if (have_preload && !d->abandon)
		pthread_join(preload, NULL);
	if (!d->activated && d->listen_fd >= 0)
		unlink(d->cfg.socket);
	return r;
}

static void teardown(struct cuzkd *d)
{
	if (d->abandon)
		return;   /* workers still hold jobs; the process exit frees everything */
	if (d->engine_started) {
		struct cuzkd_job *job;
		cuzkd_engine_stop(&d->engine, 0);
		for (job = cuzkd_engine_take_done(&d->engine); job;) {
			struct cuzkd_job *next = job->done_next;
			cuzkd_session_complete(d, job);
			job = next;
		}
	}
	/* Exiting the ring cancels and waits for pending recvmsg, so sessions
	 * can be freed after it. */
	cuzkd_loop_destroy(d);
	while (d->sessions) {
		struct cuzkd_session *s = d->sessions;
		int closing = s->closing;
		s->recv_pending = 0;
		if (closing)   /* its recv completion never came: release it here */
			cuzkd_session_on_recv(s, 0);
		else
			cuzkd_session_close(s, "the daemon stopped");
	}
	cuzkd_accounts_destroy(&d->accounts);
	/* Registered buffers are unregistered while the backend's devices are
	 * still open. */
	cuzkd_regcache_destroy(&d->reg);
	if (d->engine_started)
		cuzkd_engine_destroy(&d->engine);
	if (d->srs.n_dirs > 0)
		cuzkd_srs_cache_destroy(&d->srs);
	cuzkd_log_destroy(&d->log);
}

int main(int argc, char **argv)
{
	struct options o;
	struct cuzkd *d;
	cuzk_error err;
	int r;

	groth16_backend_process_init();
	if (parse_args(argc, argv, &o)) {
		usage(stderr);
		return 2;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		fprintf(stderr, "cuzkd: out of memory\n");
		return 1;
	}
	if (load_config(&d->cfg, &o, &err)) {
		/* EX_CONFIG: cuzkd.service does not restart on it (RestartPreventExitStatus). */
		fprintf(stderr, "cuzkd: %s\n", err.msg);
		free(d);
		return EX_CONFIG;
	}
	if (o.check) {
		cuzkd_config_print(&d->cfg, stdout);
		free(d);
		return 0;
	}
	cuzkd_log_init(&d->log, d->cfg.log_level);
	r = run(d, &err);
	if (r) {
		cuzkd_log(&d->log, CUZKD_LOG_ERR, NULL, "%s", err.msg);
		sd_notifyf(0, "STATUS=failed: %s\nERRNO=%d", err.msg, EINVAL);
	}
	teardown(d);
	if (!d->abandon)
		free(d);
	return r ? 1 : 0;
}
