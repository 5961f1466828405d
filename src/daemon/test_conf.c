// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzkd's configuration: defaults, every kind of value, and errors that
 * name the line; then `cuzkd --check-config` as scripts run it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/conf.h"
#include "tests/check.h"

static char dir[] = "/tmp/cuzkd-conf-XXXXXX";

static const char *write_conf(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	REQUIRE(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int load(struct cuzkd_config *cfg, const char *text, cuzk_error *err)
{
	cuzkd_config_defaults(cfg);
	return cuzkd_config_load(cfg, write_conf("cuzkd.conf", text), 0, err);
}

static void expect_error(const char *text, const char *msg)
{
	struct cuzkd_config cfg;
	cuzk_error err = { 0 };

	CHECK_MSG(load(&cfg, text, &err) == -CUZK_E_INVAL, "accepted: %s", text);
	CHECK_MSG(strstr(err.msg, msg) != NULL, "message '%s' lacks '%s'", err.msg, msg);
}

static void values(void)
{
	struct cuzkd_config cfg;
	cuzk_error err;
	uint64_t v;

	cuzkd_config_defaults(&cfg);
	CHECK(cfg.backend == CUZKD_BACKEND_AUTO && cfg.devices_all && cfg.cpu_workers == 1);
	CHECK(cfg.drain_timeout_ms == 60000 && cfg.watchdog == 1);
	CHECK(strcmp(cfg.srs_dir, "/var/lib/cuzk/params /var/tmp/filecoin-proof-parameters") == 0);
	REQUIRE(load(&cfg,
		     "# comment\n[daemon]\nsocket = /run/x.sock\nsrs_dir = /srv/srs\nbackend = gpu\n"
		     "drain_timeout = 1500ms\nwatchdog = no\n[limits]\nmax_clients = 3\n"
		     "max_pinned_bytes_total = 3G\nmax_witness_bytes = 512K\n[engine]\ndevices = 0, 2 3\n"
		     "workers_per_device = 4\nvram_budget = 16G\n[srs]\npreload = a.params b.params\n"
		     "cache_budget = 1T\n[log]\nlevel = debug\n",
		     &err) == 0);
	CHECK(strcmp(cfg.socket, "/run/x.sock") == 0 && strcmp(cfg.srs_dir, "/srv/srs") == 0);
	CHECK(cfg.backend == CUZKD_BACKEND_GPU && cfg.drain_timeout_ms == 1500 && cfg.watchdog == 0);
	CHECK(cfg.max_clients == 3 && cfg.max_pinned_bytes_total == 3ull << 30 && cfg.max_witness_bytes == 512 << 10);
	CHECK(!cfg.devices_all && cfg.n_devices == 3 && cfg.devices[0] == 0 && cfg.devices[1] == 2 &&
	      cfg.devices[2] == 3);
	CHECK(cfg.workers_per_device == 4 && cfg.vram_budget == 16ull << 30 && cfg.cache_budget == 1ull << 40);
	CHECK(cfg.n_preload == 2 && strcmp(cfg.preload[1], "b.params") == 0);
	CHECK(cfg.log_level == CUZKD_LOG_DEBUG);
	REQUIRE(load(&cfg, "[daemon]\nsrs_dir = /a,/b/c\t /d\n", &err) == 0);
	CHECK_MSG(strcmp(cfg.srs_dir, "/a /b/c /d") == 0, "srs_dir '%s'", cfg.srs_dir);

	/* Per-uid limits, timeouts, who may use high priorities, verification. */
	cuzkd_config_defaults(&cfg);
	CHECK(cfg.verify == 1 && cfg.n_priority_uids == 1 && cfg.priority_uids[0] == 0 && cfg.priority_own_group);
	CHECK(cfg.hello_timeout_ms == 10000 && cfg.idle_timeout_ms == 600000);
	REQUIRE(load(&cfg,
		     "[limits]\nmax_clients_per_uid = 2\nmax_inflight_per_uid = 5\nmax_pinned_bytes_per_uid = 1G\n"
		     "max_buffers_per_uid = 7\nmax_buffers_total = 9\nhello_timeout = 250ms\nidle_timeout = 0\n"
		     "priority_users = root, 1000\npriority_groups = 0 self\n[engine]\nverify = no\n"
		     "starvation_limit = 3\n",
		     &err) == 0);
	CHECK(cfg.max_clients_per_uid == 2 && cfg.max_inflight_per_uid == 5 && cfg.max_pinned_bytes_per_uid == 1u << 30);
	CHECK(cfg.max_buffers_per_uid == 7 && cfg.max_buffers_total == 9);
	CHECK(cfg.hello_timeout_ms == 250 && cfg.idle_timeout_ms == 0);
	CHECK(cfg.n_priority_uids == 2 && cfg.priority_uids[0] == 0 && cfg.priority_uids[1] == 1000);
	CHECK(cfg.n_priority_gids == 1 && cfg.priority_gids[0] == 0 && cfg.priority_own_group);
	CHECK(cfg.verify == 0 && cfg.starvation_limit == 3);
	REQUIRE(load(&cfg, "[limits]\npriority_users =\npriority_groups =\n", &err) == 0);
	CHECK(cfg.n_priority_uids == 0 && cfg.n_priority_gids == 0 && !cfg.priority_own_group);

	char dirs[64];
	CHECK(cuzkd_parse_dirs("srs /abs", 1, dirs, sizeof(dirs)) == 0 && strcmp(dirs, "srs /abs") == 0);
	CHECK(cuzkd_parse_dirs("srs /abs", 0, dirs, sizeof(dirs)) != 0);
	CHECK(cuzkd_parse_dirs("/a/long/path", 1, dirs, 8) != 0);
	CHECK(cuzkd_parse_size("17", &v) == 0 && v == 17);
	CHECK(cuzkd_parse_size("2M", &v) == 0 && v == 2u << 20);
	CHECK(cuzkd_parse_size("", &v) != 0 && cuzkd_parse_size("G", &v) != 0);
	CHECK(cuzkd_parse_size("-1", &v) != 0 && cuzkd_parse_size("1X", &v) != 0);
	CHECK(cuzkd_parse_size("99999999999999999999", &v) != 0);
	CHECK(cuzkd_parse_size("17179869184G", &v) != 0);   /* 2^64 bytes */
}

/* What --check-config prints reads back as the same configuration, sizes and
 * durations in the forms the file takes. */
static void print_round_trip(void)
{
	struct cuzkd_config a, b;
	cuzk_error err;
	char buf[CUZKD_FORMAT_MAX];

	CHECK(strcmp(cuzkd_format_size(buf, 128ull << 30), "128G") == 0);
	CHECK(strcmp(cuzkd_format_size(buf, 1536ull << 20), "1536M") == 0);
	CHECK(strcmp(cuzkd_format_size(buf, 1ull << 40), "1T") == 0);
	CHECK(strcmp(cuzkd_format_size(buf, 4097), "4097") == 0);
	CHECK(strcmp(cuzkd_format_size(buf, 0), "0") == 0);
	CHECK(strcmp(cuzkd_format_duration(buf, 60000), "60s") == 0);
	CHECK(strcmp(cuzkd_format_duration(buf, 1500), "1500ms") == 0);
	CHECK(strcmp(cuzkd_format_duration(buf, 0), "0s") == 0);

	REQUIRE(load(&a, "[daemon]\ndrain_timeout = 1500ms\n[limits]\nmax_witness_bytes = 4097\nidle_timeout = 0\n"
			 "priority_users = 1000 0\npriority_groups = 5 self\n"
			 "[engine]\ndevices = 1 3\nvram_budget = 1536M\n[srs]\npreload = x.params y.params\n",
		     &err) == 0);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	REQUIRE(f);
	cuzkd_config_print(&a, f);
	REQUIRE(fclose(f) == 0);
	CHECK(strstr(text, "drain_timeout = 1500ms\n") && strstr(text, "vram_budget = 1536M\n") &&
	      strstr(text, "cache_budget = 128G\n") && strstr(text, "max_witness_bytes = 4097\n") &&
	      strstr(text, "devices = 1 3\n") && strstr(text, "preload = x.params y.params\n") &&
	      strstr(text, "priority_users = 1000 0\n") && strstr(text, "priority_groups = self 5\n"));
	REQUIRE(load(&b, text, &err) == 0);
	CHECK_MSG(memcmp(&a, &b, sizeof(a)) == 0, "--check-config's text does not read back the same:\n%s", text);
	free(text);
}

static void errors(void)
{
	struct cuzkd_config cfg;
	cuzk_error err;

	expect_error("[engine]\ncpu_workers = 2\n\nfoo = 1\n", "cuzkd.conf:4: unknown key 'foo' in [engine]");
	expect_error("[nope]\nx = 1\n", "cuzkd.conf:2: unknown section [nope]");
	expect_error("[daemon]\nbackend = tpu\n", "cuzkd.conf:2: bad value 'tpu' for backend");
	expect_error("[daemon]\nsocket = relative\n", "expected an absolute path");
	expect_error("[daemon]\nsrs_dir = /a relative\n", "bad value '/a relative' for srs_dir");
	expect_error("[daemon]\nsrs_dir = /1 /2 /3 /4 /5 /6 /7 /8 /9\n", "srs_dir");
	expect_error("[daemon]\nsrs_dir = ,\n", "srs_dir");
	expect_error("[limits]\nmax_clients = 0\n", "cuzkd.conf:2: bad value '0' for max_clients");
	expect_error("[limits]\nmax_witness_bytes = 12Q\n", "max_witness_bytes");
	expect_error("[engine]\ndevices = 0 0\n", "devices");
	expect_error("[engine]\ndevices = gpu0\n", "devices");
	expect_error("[daemon]\nwatchdog = maybe\n", "watchdog");
	expect_error("[daemon]\ndrain_timeout = 5h\n", "drain_timeout");
	expect_error("[log]\nlevel = loud\n", "level");
	expect_error("[daemon]\nno equals sign here\n", "cuzkd.conf:2: syntax error in 'no equals sign here'");
	expect_error("socket = /x\n", "cuzkd.conf:1: key 'socket' before any [section] (it belongs in [daemon])");
	/* inih reads on after a broken header, with the keys below it in no
	 * section: the message is about the header's line. */
	expect_error("# cuzkd\n[daemon\nsocket = /x\n",
		     "cuzkd.conf:2: '[daemon': a section header needs its closing ']'");
	expect_error("[engine]\ncache_budget = 1G\n", "unknown key 'cache_budget' in [engine] (it belongs in [srs])");
	expect_error("[daemon]\n\n[limits]\nmax_clients = 0\n  [broken\n", "cuzkd.conf:4: bad value '0'");
	expect_error("[limits]\npriority_users = no-such-user-cuzk\n", "cuzkd.conf:2: bad value 'no-such-user-cuzk' for priority_users");
	expect_error("[limits]\npriority_groups = no-such-group-cuzk\n", "priority_groups");
	expect_error("[limits]\nhello_timeout = soon\n", "hello_timeout");

	cuzkd_config_defaults(&cfg);
	CHECK(cuzkd_config_load(&cfg, "/nonexistent/cuzkd.conf", 1, &err) == 0);
	CHECK(cuzkd_config_load(&cfg, "/nonexistent/cuzkd.conf", 0, &err) == -CUZK_E_NOTFOUND);
}

/* Runs the daemon binary; returns its exit code and its output in out. */
static int run(const char *args, char *out, size_t cap)
{
	char cmd[1024];
	FILE *p;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", CUZKD_BIN, args);
	p = popen(cmd, "r");
	REQUIRE(p);
	n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void check_config_command(void)
{
	char args[512], out[8192], good[256];
	const char *bad;

	snprintf(good, sizeof(good), "%s", write_conf("good.conf", "[engine]\ncpu_workers = 3\n"));

	snprintf(args, sizeof(args), "--check-config --config %s", good);
	CHECK(run(args, out, sizeof(out)) == 0);
	CHECK(strstr(out, "cpu_workers = 3") != NULL && strstr(out, "[limits]") != NULL);
	CHECK(strstr(out, "drain_timeout = 60s\n") && strstr(out, "cache_budget = 128G\n") &&
	      strstr(out, "max_pinned_bytes_total = 512G\n") && strstr(out, "preload =\n"));
	bad = write_conf("bad.conf", "[engine]\nworkers = 3\n");
	snprintf(args, sizeof(args), "--check-config --config %s", bad);
	CHECK(run(args, out, sizeof(out)) == 78);   /* EX_CONFIG */
	CHECK_MSG(strstr(out, "bad.conf:2: unknown key 'workers' in [engine]") != NULL, "%s", out);
	CHECK(run("--check-config --config /nonexistent.conf", out, sizeof(out)) == 78);
	CHECK(run("--bogus", out, sizeof(out)) == 2);
	CHECK(run("--backend", out, sizeof(out)) == 2);
	snprintf(args, sizeof(args), "--check-config --config %s --backend tpu", good);
	CHECK(run(args, out, sizeof(out)) == 78 && strstr(out, "--backend") != NULL);
}

int main(void)
{
	char cmd[64];

	REQUIRE(mkdtemp(dir));
	values();
	errors();
	print_round_trip();
	check_config_command();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	CHECK_DONE();
}
