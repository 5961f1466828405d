// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Parameter files served in place from several directories (srs_dir as a
 * list, as for Filecoin's /var/tmp/filecoin-proof-parameters): the first
 * directory that has a name wins; a request may name a proof kind instead of
 * a file; symlinks are followed only to files inside the directories; a FIFO
 * does not stall the loop; a missing directory is skipped; and the PARAMS
 * listing shows kind, shape, size and state of each file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats/params_io.h"
#include "ipc/kinds.h"
#include "tests/check.h"
#include "tests/daemon/harness.h"

static struct td_env env;
static struct tcircuit small, other;
static char dir2[400], outside[400];

/* path = dir/name */
static const char *at(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

/* Proves c's witness naming srs; the completion's status (and the proof
 * checked against c when it is 0), or the rejection's status. */
static int prove(const struct tcircuit *c, const char *srs, char *msg, size_t msg_len)
{
	struct msg_reply rep;
	struct ring_rec rec;
	struct tclient cl;
	uint8_t proof[64 * 192];
	int fd = tcircuit_memfd(c, 1, TD_SEALS_OK), st;

	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	st = tc_submit(&cl, 1, srs, CUZK_PRIORITY_NORMAL, fd, &rep);
	snprintf(msg, msg_len, "%s", rep.message);
	if (st == 0) {
		REQUIRE(tc_wait(&cl, &rec, proof, TD_TIMEOUT_MS) == 0);
		st = (int)rec.status;
		snprintf(msg, msg_len, "%s", rec.message);
		if (st == 0)
			CHECK_MSG(tcircuit_verify(c, proof) == 0, "%s: the proof does not verify", srs);
	}
	tc_close(&cl);
	close(fd);
	return st;
}

/* The listing line of file name (with its trailing tab-separated fields), or NULL. */
static const char *line_of(const char *text, const char *name, char *buf, size_t len)
{
	char needle[300];
	const char *p;

	snprintf(needle, sizeof(needle), "\t%s\t", name);
	if (!(p = strstr(text, needle)))
		return NULL;
	while (p > text && p[-1] != '\n')
		p--;
	size_t n = strcspn(p, "\n");
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
	return buf;
}

static void serving(void)
{
	const struct kind *porep = kind_by_name("porep-32g");
	char a[700], b[700], msg[CUZK_MESSAGE_MAX], line[1024];
	struct tclient cl;

	/* small's parameters under PoRep's Filecoin name in the second
	 * directory, reached by kind; a symlink in the first directory to
	 * them; one to a file outside; one to nothing; a FIFO. */
	REQUIRE(rename(at(a, sizeof(a), env.srs_dir, "small.params"), at(b, sizeof(b), dir2, porep->params)) == 0);
	REQUIRE(symlink(b, at(a, sizeof(a), env.srs_dir, "linked.params")) == 0);
	REQUIRE(symlink(at(b, sizeof(b), outside, "secret.params"), at(a, sizeof(a), env.srs_dir, "escape.params")) ==
		0);
	REQUIRE(symlink("/nonexistent/x.params", at(a, sizeof(a), env.srs_dir, "dangling.params")) == 0);
	REQUIRE(mkfifo(at(a, sizeof(a), env.srs_dir, "fifo.params"), 0600) == 0);
	/* other.params in both directories: the first one's wins. */
	REQUIRE(groth16_params_write(&small.params, at(b, sizeof(b), dir2, "other.params"), NULL) == 0);

	CHECK_MSG(prove(&small, "porep-32g", msg, sizeof(msg)) == 0, "by kind: %s", msg);
	CHECK_MSG(prove(&small, porep->params, msg, sizeof(msg)) == 0, "by file name: %s", msg);
	CHECK_MSG(prove(&small, "linked.params", msg, sizeof(msg)) == 0, "through a symlink: %s", msg);
	CHECK_MSG(prove(&other, "other.params", msg, sizeof(msg)) == 0, "first directory first: %s", msg);
	CHECK(prove(&small, "escape.params", msg, sizeof(msg)) == CUZK_E_PERM && strstr(msg, "outside srs_dir"));
	CHECK(prove(&small, "dangling.params", msg, sizeof(msg)) == CUZK_E_NOTFOUND &&
	      strstr(msg, "symlink to nothing"));
	CHECK(prove(&small, "fifo.params", msg, sizeof(msg)) == CUZK_E_NOTFOUND && strstr(msg, "not a regular file"));
	/* Unknown: the message names the directories looked in (and marks the
	 * missing one), then the kind's file, or what the directories hold:
	 * files and symlinks to files, a name the first directory has once. */
	CHECK_MSG(prove(&small, "porep-64g", msg, sizeof(msg)) == CUZK_E_NOTFOUND &&
			  strstr(msg, "unknown SRS 'porep-64g': none of ") && strstr(msg, env.srs_dir) &&
			  strstr(msg, "/absent (missing), ") && strstr(msg, dir2) &&
			  strstr(msg, "has its file, v28-stacked-proof-of-replication"),
		  "%s", msg);
	CHECK_MSG(prove(&small, "nope.params", msg, sizeof(msg)) == CUZK_E_NOTFOUND &&
			  strstr(msg, "unknown SRS 'nope.params': not in ") && strstr(msg, env.srs_dir) &&
			  strstr(msg, "/absent (missing), ") && strstr(msg, dir2) && strstr(msg, ", which hold ") &&
			  !strstr(msg, "fifo.params") && !strstr(msg, "dangling.params") &&
			  (!strstr(msg, "other.params") || !strstr(strstr(msg, "other.params") + 1, "other.params")),
		  "%s", msg);
	CHECK(prove(&small, "snap-32g.params", msg, sizeof(msg)) == CUZK_E_NOTFOUND);

	REQUIRE(tc_connect(&cl, &env, 0) == 0);
	char *text = tc_status(&cl, CUZK_STATUS_PARAMS);
	tc_close(&cl);
	REQUIRE(text);
	fprintf(stderr, "%s", text);
	CHECK(strncmp(text, "kind\tname\tdir\tbytes\tdomain\tinputs\taux\tstate\n", 44) == 0);
	char want[800];
	CHECK(line_of(text, porep->params, line, sizeof(line)) != NULL);
	struct stat st;
	REQUIRE(stat(at(b, sizeof(b), dir2, porep->params), &st) == 0);
	snprintf(want, sizeof(want), "porep-32g\t%s\t%s\t%lld\t%zu\t%zu\t%zu\tloaded", porep->params, dir2,
		 (long long)st.st_size, small.params.n_h + 1, small.params.vk.n_ic, small.params.n_l);
	CHECK_MSG(strcmp(line, want) == 0, "'%s' != '%s'", line, want);
	CHECK(line_of(text, "other.params", line, sizeof(line)) && strstr(line, env.srs_dir) &&
	      strstr(line, "\tloaded"));
	CHECK(line_of(text, "linked.params", line, sizeof(line)) && strstr(line, "\tloaded"));
	CHECK(line_of(text, "escape.params", line, sizeof(line)) && strstr(line, "\terror: ") &&
	      strstr(line, "outside srs_dir"));
	CHECK(line_of(text, "fifo.params", line, sizeof(line)) && strstr(line, "\terror: "));
	const struct kind *snap = kind_by_name("snap-64g");
	CHECK(line_of(text, snap->params, line, sizeof(line)) && strstr(line, "snap-64g\t") == line &&
	      strstr(line, "\tabsent"));
	free(text);
}

/* A list none of whose directories exists stops the start, naming them. */
static void no_directory(void)
{
	struct td_env e2;
	char extra[900];

	td_env_init(&e2, "params-none");
	snprintf(extra, sizeof(extra), "[daemon]\nsrs_dir = %s/a %s/b\n", e2.dir, e2.dir);
	td_write_conf(&e2, extra);
	char *const argv[] = { (char *)CUZKD_BIN, (char *)"--config", e2.conf, NULL };
	td_spawn(&e2, argv);
	int st = td_daemon_wait(&e2, TD_TIMEOUT_MS);
	CHECK_MSG(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) != 0, "status %d", st);
	CHECK(td_log_has(&e2, "none of them exists"));
	td_env_cleanup(&e2, 0);
}

int main(void)
{
	char extra[1200], path[600];

	td_env_init(&env, "params");
	snprintf(dir2, sizeof(dir2), "%s/filecoin", env.dir);
	snprintf(outside, sizeof(outside), "%s/outside", env.dir);
	REQUIRE(mkdir(dir2, 0700) == 0 && mkdir(outside, 0700) == 0);
	tcircuit_make(&small, &env, "small.params", 8, 2, 3);
	tcircuit_make(&other, &env, "other.params", 7, 3, 4);
	REQUIRE(groth16_params_write(&small.params, at(path, sizeof(path), outside, "secret.params"), NULL) == 0);
	snprintf(extra, sizeof(extra), "[daemon]\nsrs_dir = %s %s/absent %s\n", env.srs_dir, env.dir, dir2);
	td_daemon_start(&env, extra);
	CHECK(td_log_has(&env, "absent does not exist: not served"));
	serving();
	no_directory();
	td_daemon_stop(&env, SIGTERM);
	tcircuit_free(&small);
	tcircuit_free(&other);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
