// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The daemon commands of the cuzk CLI, in the exact forms scripts rely on
 * (issue 3), against a real cuzkd:
 *   cuzk submit [--socket PATH] --srs NAME --witness W.witness --out P.proof [--priority P] [--seed N]
 *               [--trace FILE]
 *   cuzk submit [--socket PATH] --kind KIND ...
 *   cuzk status [--socket PATH] [--json]
 *   cuzk metrics [--socket PATH]
 *   cuzk cancel [--socket PATH] --request ID
 *   cuzk params list [--socket PATH] [--tsv]
 * (without --socket: $CUZK_SOCKET, else /run/cuzk/cuzkd.sock). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/daemon/harness.h"
#include "tests/check.h"

#ifndef CUZK_BIN
#error "CUZK_BIN must name the cuzk binary under test"
#endif

static char out[8192];

/* Runs cmd through the shell with stdout and stderr in out; returns the exit code. */
static int run(const char *cmd)
{
	char full[2048];
	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	FILE *p = popen(full, "r");
	REQUIRE(p);
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	fprintf(stderr, "$ %s\n%s", cmd, out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int read_file(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, cap, f);
	fclose(f);
	return (int)n;
}

int main(void)
{
	struct td_env env;
	struct tcircuit c;
	char cmd[1600], wit[400], proof[400];
	uint8_t bytes[2 * CUZK_PROOF_BYTES];

	td_env_init(&env, "cli");
	tcircuit_make(&c, &env, "small.params", 8, 2, 5);
	td_daemon_start(&env, NULL);
	snprintf(wit, sizeof(wit), "%s/w.witness", env.dir);
	snprintf(proof, sizeof(proof), "%s/p.proof", env.dir);
	close(tcircuit_file(&c, wit));

	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs %s --witness %s --out %s --priority critical --seed 9",
		 CUZK_BIN, env.socket, c.name, wit, proof);
	CHECK(run(cmd) == 0 && strstr(out, "1 proof"));
	CHECK(read_file(proof, bytes, sizeof(bytes)) == CUZK_PROOF_BYTES && tcircuit_verify(&c, bytes) == 0);
	uint8_t again[2 * CUZK_PROOF_BYTES];
	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs %s --witness %s --out %s.2 --seed 9", CUZK_BIN,
		 env.socket, c.name, wit, proof);
	CHECK(run(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "%s.2", proof);
	CHECK_MSG(read_file(cmd, again, sizeof(again)) == CUZK_PROOF_BYTES &&
		  memcmp(again, bytes, CUZK_PROOF_BYTES) == 0, "--seed does not make the proof reproducible");

	/* The daemon's error line, and exit 1 (not a usage error), whether the
	 * name is unknown or malformed.  An unknown one says where the daemon
	 * looked and what it has there. */
	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs nope.params --witness %s --out %s.3", CUZK_BIN,
		 env.socket, wit, proof);
	CHECK(run(cmd) == 1 && strstr(out, "unknown SRS 'nope.params'") && strstr(out, env.srs_dir) &&
	      strstr(out, c.name));
	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs ../%s --witness %s --out %s.3", CUZK_BIN,
		 env.socket, c.name, wit, proof);
	CHECK(run(cmd) == 1 && strstr(out, "SRS name '../"));
	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs %s --witness %s --out %s.3 --priority urgent",
		 CUZK_BIN, env.socket, c.name, wit, proof);
	CHECK(run(cmd) == 2 && strstr(out, "--priority"));

	/* A proof kind for --srs, and the listing that shows it loaded. */
	char kind_file[800], small[600];
	snprintf(small, sizeof(small), "%s/%s", env.srs_dir, c.name);
	snprintf(kind_file, sizeof(kind_file), "%s/%s", env.srs_dir, cuzk_kind_params("winning-post-32g"));
	REQUIRE(link(small, kind_file) == 0);
	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --kind winning-post-32g --witness %s --out %s.4 --priority critical",
		 CUZK_BIN, env.socket, wit, proof);
	CHECK(run(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "%s.4", proof);
	CHECK(read_file(cmd, bytes, sizeof(bytes)) == CUZK_PROOF_BYTES && tcircuit_verify(&c, bytes) == 0);
	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --kind winning-post-16g --witness %s --out %s.5", CUZK_BIN,
		 env.socket, wit, proof);
	CHECK(run(cmd) == 2 && strstr(out, "--kind 'winning-post-16g': expected porep-32g"));
	snprintf(cmd, sizeof(cmd), "%s submit --socket %s --kind snap-32g --srs %s --witness %s --out %s.5", CUZK_BIN,
		 env.socket, c.name, wit, proof);
	CHECK(run(cmd) == 2 && strstr(out, "give one of them"));
	snprintf(cmd, sizeof(cmd), "%s params list --socket %s", CUZK_BIN, env.socket);
	CHECK(run(cmd) == 0 && strstr(out, "KIND ") && strstr(out, "winning-post-32g  2^8 ") &&
	      strstr(out, "snap-64g ") && strstr(out, " absent "));
	char *wline = strstr(out, "winning-post-32g");
	CHECK(wline && strstr(wline, " loaded ") && strstr(wline, "KiB"));
	snprintf(cmd, sizeof(cmd), "%s params list --socket %s --tsv", CUZK_BIN, env.socket);
	CHECK(run(cmd) == 0 && strncmp(out, "kind\tname\tdir\tbytes\tdomain\tinputs\taux\tstate\n", 44) == 0);
	snprintf(cmd, sizeof(cmd), "%s params --socket %s", CUZK_BIN, env.socket);
	CHECK(run(cmd) == 2 && strstr(out, "cuzk params list"));

	snprintf(cmd, sizeof(cmd), "%s status --socket %s", CUZK_BIN, env.socket);
	CHECK(run(cmd) == 0 && strstr(out, "queue:"));
	/* Sizes as cuzkd.conf writes them (the default cache_budget), not in
	 * bytes; two entries: small.params and the kind's file. */
	CHECK_MSG(strstr(out, "srs cache: 2 entries (0 loading), ") && strstr(out, "K of 128G,") &&
		  strstr(out, " in use, ") && !strstr(out, "bytes"), "status prints raw byte counts");
	snprintf(cmd, sizeof(cmd), "%s status --socket %s --json", CUZK_BIN, env.socket);
	CHECK(run(cmd) == 0 && out[0] == '{' && strstr(out, "\"proofs_ok\":3"));
	snprintf(cmd, sizeof(cmd), "%s metrics --socket %s", CUZK_BIN, env.socket);
	CHECK(run(cmd) == 0 && strstr(out, "# TYPE cuzk_proofs_total counter"));
	snprintf(cmd, sizeof(cmd), "%s cancel --socket %s --request 424242", CUZK_BIN, env.socket);
	CHECK(run(cmd) == 1 && strstr(out, "no job 424242"));
	/* Without --socket: $CUZK_SOCKET, and the cancel hint then needs none. */
	snprintf(cmd, sizeof(cmd), "CUZK_SOCKET=%s %s status", env.socket, CUZK_BIN);
	CHECK(run(cmd) == 0 && strstr(out, "queue:"));
	snprintf(cmd, sizeof(cmd), "CUZK_SOCKET=%s %s submit --srs %s --witness %s --out %s.4", env.socket, CUZK_BIN,
		 c.name, wit, proof);
	CHECK(run(cmd) == 0 && strstr(out, "cancel with: cuzk cancel --request"));
	snprintf(cmd, sizeof(cmd), "CUZK_SOCKET=%s %s params list", env.socket, CUZK_BIN);
	CHECK(run(cmd) == 0 && strstr(out, "winning-post-32g  2^8 "));
	snprintf(cmd, sizeof(cmd), "CUZK_SOCKET=%s/absent.sock %s metrics", env.dir, CUZK_BIN);
	CHECK(run(cmd) == 1 && strstr(out, "absent.sock"));
	/* No daemon there: say so, and how to start one. */
	snprintf(cmd, sizeof(cmd), "%s status --socket %s/absent.sock", CUZK_BIN, env.dir);
	CHECK(run(cmd) == 1 && strstr(out, "cuzkd is not listening on") && strstr(out, "absent.sock") &&
	      strstr(out, "start one there with 'cuzkd --socket"));
	CHECK_MSG(strchr(out, '\n') == strrchr(out, '\n'), "the error is not one line");
	if (access(CUZK_DEFAULT_SOCKET, F_OK) != 0) {
		snprintf(cmd, sizeof(cmd), "env -u CUZK_SOCKET %s status", CUZK_BIN);
		CHECK(run(cmd) == 1 && strstr(out, "not listening on " CUZK_DEFAULT_SOCKET) &&
		      strstr(out, "systemctl start cuzkd.socket"));
	}
	/* A socket file nobody listens on (a daemon killed before it could remove it). */
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	REQUIRE(snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/stale.sock", env.dir) < (int)sizeof(sa.sun_path));
	const char *stale = sa.sun_path;
	int sfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	REQUIRE(sfd >= 0 && bind(sfd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	close(sfd);
	snprintf(cmd, sizeof(cmd), "%s cancel --socket %s --request 1", CUZK_BIN, stale);
	CHECK(run(cmd) == 1 && strstr(out, "cuzkd is not listening on") && strstr(out, "Connection refused"));
	unlink(stale);

	/* --trace: the daemon's timeline of the request, both partitions. */
	{
		char wit2[280], trace[280], *q;
		unsigned long long job = 0;
		snprintf(wit2, sizeof(wit2), "%s/w2.witness", env.dir);
		snprintf(trace, sizeof(trace), "%s/t.json", env.dir);
		close(tcircuit_file_parts(&c, wit2, 2));
		snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs %s --witness %s --out %s.6 --trace %s", CUZK_BIN,
			 env.socket, c.name, wit2, proof, trace);
		CHECK(run(cmd) == 0 && strstr(out, "2 proofs") && strstr(out, "the timeline of job"));
		q = strstr(out, "job ");
		CHECK(q && sscanf(q, "job %llu queued", &job) == 1);
		if (system("node --version >/dev/null 2>&1") == 0) {
			snprintf(cmd, sizeof(cmd), "node %s/tests/daemon/check_trace.mjs %s 2 %llu 'queue wait,srs wait,"
				 "ntt (h),msm a,assemble,verify' 260", TOP_SRCDIR, trace, job);
			CHECK(run(cmd) == 0);
		} else {
			CHECK(read_file(trace, bytes, 1) == 1 && bytes[0] == '{');
		}
		/* --trace without its FILE is a usage error. */
		snprintf(cmd, sizeof(cmd), "%s submit --socket %s --srs %s --witness %s --out %s.6 --trace", CUZK_BIN,
			 env.socket, c.name, wit2, proof);
		CHECK(run(cmd) == 2);
	}

	int st = td_daemon_stop(&env, SIGTERM);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	tcircuit_free(&c);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
