// SPDX-License-Identifier: Apache-2.0 OR MIT
/* libcuzk end to end against a real cuzkd (CPU backend): a three-partition
 * witness written in place through the buffer's pointers, proofs that verify,
 * the same buffer submitted again (a registration-cache hit), a witness file
 * loaded by cuzk_buffer_load_file, rejections with the daemon's message,
 * cancel (own request, and another connection's job by its job id; refused
 * to another uid when the test runs as root), status and metrics, a
 * request's timeline (only on a connection that asked for traces), and a
 * client that leaves with work in flight. */
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/daemon/harness.h"
#include "cuzk.h"
#include "tests/check.h"

static cuzk_error err;
static struct cuzk_completion done;

/* Writes c's witness into every partition of b, in place. */
static void write_in_place(cuzk_buffer *b, const struct tcircuit *c, uint32_t parts)
{
	const groth16_synth *s = &c->syn;
	size_t nc = s->num_constraints, ni = s->num_inputs, na = s->num_aux;
	size_t words_in = (ni + 63) / 64, words_aux = (na + 63) / 64;
	for (uint32_t i = 0; i < parts; i++) {
		struct cuzk_partition p;
		REQUIRE(cuzk_buffer_partition(b, i, &p) == 0);
		memcpy(p.a, s->a, nc * sizeof(fr_t));
		memcpy(p.b, s->b, nc * sizeof(fr_t));
		memcpy(p.c, s->c, nc * sizeof(fr_t));
		memcpy(p.input, c->z, ni * sizeof(fr_t));
		memcpy(p.aux, c->z + ni, na * sizeof(fr_t));
		memcpy(p.a_aux_density, s->a_aux_density, words_aux * 8);
		memcpy(p.b_input_density, s->b_input_density, words_in * 8);
		memcpy(p.b_aux_density, s->b_aux_density, words_aux * 8);
	}
}

/* The next completion, whichever it is. */
static int wait_any(cuzk_client *cl)
{
	int r = cuzk_wait(cl, &done, TD_TIMEOUT_MS, &err);
	if (r != 1) {
		fprintf(stderr, "wait: %d %s\n", r, err.msg);
		return -1;
	}
	return 0;
}

/* Waits for the completion of id (others are not expected here). */
static int wait_for(cuzk_client *cl, uint64_t id)
{
	if (wait_any(cl) < 0)
		return -1;
	CHECK_MSG(done.request_id == id, "completion of %llu, expected %llu", (unsigned long long)done.request_id,
		  (unsigned long long)id);
	return 0;
}

/* Another uid may not cancel job: a child that became nobody tries.
 * 0: refused with CUZK_E_PERM; 1: anything else; 77: not root, not tried. */
static int cancel_as_nobody(const struct td_env *env, uint64_t job)
{
	if (geteuid() != 0)
		return 77;
	/* nobody must be able to reach the socket in our private directory */
	if (chmod(env->dir, 0711) < 0 || chmod(env->socket, 0777) < 0)
		return 1;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		cuzk_client *c;
		cuzk_error e;
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(1);
		if (cuzk_connect(&c, env->socket, NULL, &e) < 0) {
			fprintf(stderr, "nobody: %s\n", e.msg);
			_exit(1);
		}
		int r = cuzk_cancel_job(c, job, &e);
		fprintf(stderr, "nobody cancels job %llu: %d %s\n", (unsigned long long)job, r, e.msg);
		_exit(r == -CUZK_E_PERM && strstr(e.msg, "belongs to uid 0") ? 0 : 1);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static void prove_and_verify(cuzk_client *cl, cuzk_buffer *b, const struct tcircuit *c, uint32_t parts)
{
	const struct cuzk_request req = { .srs = c->name, .priority = CUZK_PRIORITY_HIGH,
					  .flags = CUZK_REQ_FIXED_RS | CUZK_REQ_MONTGOMERY, .seed = 11 };
	uint64_t id, job = 0;
	REQUIRE(cuzk_submit(cl, b, &req, &id, &job, &err) == 0);
	REQUIRE(wait_for(cl, id) == 0);
	CHECK_MSG(done.status == 0, "status %d: %s", done.status, done.message);
	CHECK(done.num_partitions == parts && done.phase_ns[CUZK_PHASE_TOTAL] > 0);
	for (uint32_t i = 0; i < done.num_partitions; i++)
		CHECK_MSG(tcircuit_verify(c, done.proof[i]) == 0, "partition %u does not verify", i);
}

int main(void)
{
	struct td_env env;
	struct tcircuit c;
	cuzk_client *cl;
	cuzk_buffer *b, *f;
	char path[400], *text;
	size_t len;

	td_env_init(&env, "libcuzk");
	tcircuit_make(&c, &env, "small.params", 9, 2, 7);
	td_daemon_start(&env, "[engine]\ncpu_workers = 1\n");
	REQUIRE(cuzk_connect(&cl, env.socket, NULL, &err) == 0);

	/* In place, three partitions, then the same buffer again. */
	const struct cuzk_dims dims = { .num_constraints = c.syn.num_constraints, .num_inputs = c.syn.num_inputs,
					.num_aux = c.syn.num_aux, .num_partitions = 3,
					.flags = CUZK_WITNESS_FLAG_MONTGOMERY };
	REQUIRE(cuzk_buffer_alloc(cl, &b, &dims, &err) == 0);
	write_in_place(b, &c, 3);
	prove_and_verify(cl, b, &c, 3);
	prove_and_verify(cl, b, &c, 3);
	REQUIRE(cuzk_daemon_metrics(cl, &text, &len, &err) == 0);
	CHECK_MSG(tc_metric(text, "cuzk_registration_cache_hits_total") >= 1, "no registration cache hit");
	free(text);

	/* A witness file loaded into a buffer. */
	snprintf(path, sizeof(path), "%s/w.witness", env.dir);
	close(tcircuit_file(&c, path));
	REQUIRE(cuzk_buffer_load_file(cl, &f, path, &err) == 0);
	prove_and_verify(cl, f, &c, 1);

	/* Rejections come back from submit with the daemon's message. */
	struct cuzk_request req = { .srs = "nope.params", .priority = CUZK_PRIORITY_LOW };
	uint64_t id;
	CHECK(cuzk_submit(cl, f, &req, &id, NULL, &err) == -CUZK_E_NOTFOUND && strstr(err.msg, "nope.params"));
	req.srs = "../small.params";
	CHECK(cuzk_submit(cl, f, &req, &id, NULL, &err) == -CUZK_E_INVAL);
	req.srs = c.name;
	req.flags = CUZK_REQ_CANONICAL;
	CHECK(cuzk_submit(cl, f, &req, &id, NULL, &err) == -CUZK_E_MISMATCH);
	CHECK(cuzk_cancel(cl, 987654, &err) == -CUZK_E_NOTFOUND);

	/* A timeline, into a memfd of the caller's: refused on a connection that
	 * did not ask for traces, in the memfd when the completion arrives on
	 * one that did; a bad trace fd comes back with the daemon's message. */
	{
		const struct cuzk_connect_opts co = { .flags = CUZK_CONNECT_TRACE };
		const struct cuzk_request treq = { .srs = c.name, .priority = CUZK_PRIORITY_NORMAL };
		int tfd = memfd_create("cuzk-trace", MFD_CLOEXEC);
		struct cuzk_submit_opts so = { .flags = CUZK_SUBMIT_TRACE, .trace_fd = tfd };
		char trace[16384], name[64];
		uint64_t tjob = 0;
		cuzk_client *tr;
		ssize_t n;

		REQUIRE(tfd >= 0);
		CHECK(cuzk_submit_ex(cl, b, &treq, &so, &id, NULL, &err) == -CUZK_E_UNSUPPORTED &&
		      strstr(err.msg, "CUZK_CONNECT_TRACE"));
		REQUIRE(cuzk_connect(&tr, env.socket, &co, &err) == 0);
		REQUIRE(cuzk_submit_ex(tr, b, &treq, &so, &id, &tjob, &err) == 0);
		REQUIRE(wait_for(tr, id) == 0);
		CHECK_MSG(done.status == 0 && done.num_partitions == 3 && done.message[0] == '\0', "traced: %d %s",
			  done.status, done.message);
		n = pread(tfd, trace, sizeof(trace) - 1, 0);
		REQUIRE(n > 0);
		trace[n] = '\0';
		snprintf(name, sizeof(name), "\"cuzkd job %llu\"", (unsigned long long)tjob);
		CHECK_MSG(strstr(trace, name) && strstr(trace, "\"partition\": 2") && strstr(trace, "\"verify\"") &&
				  strstr(trace, "\n]}\n"),
			  "the timeline: %s", trace);
		so.trace_fd = open(env.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		REQUIRE(so.trace_fd >= 0);
		CHECK_MSG(cuzk_submit_ex(tr, b, &treq, &so, &id, NULL, &err) == -CUZK_E_FD &&
				  strstr(err.msg, "the trace fd is a directory"),
			  "a directory as trace fd: %s", err.msg);
		close(so.trace_fd);
		cuzk_disconnect(tr);
		close(tfd);
	}

	/* Cancel right after submit: one completion, cancelled or done. */
	req.flags = 0;
	REQUIRE(cuzk_submit(cl, b, &req, &id, NULL, &err) == 0);
	int cr = cuzk_cancel(cl, id, &err);
	CHECK(cr == 0 || cr == -CUZK_E_NOTFOUND);
	REQUIRE(wait_for(cl, id) == 0);
	CHECK_MSG(done.status == 0 || done.status == CUZK_E_CANCELLED, "status %d", done.status);
	CHECK(cuzk_poll(cl, &done, &err) == 0);

	/* Another connection (an operator's `cuzk cancel`) cancels by job id: the
	 * third job waits behind two three-partition proofs on the one worker. */
	cuzk_client *op;
	uint64_t ids[3], jobs[3];
	REQUIRE(cuzk_connect(&op, env.socket, NULL, &err) == 0);
	for (int i = 0; i < 3; i++) {
		REQUIRE(cuzk_submit(cl, b, &req, &ids[i], &jobs[i], &err) == 0);
		CHECK(jobs[i] != 0 && (i == 0 || jobs[i] > jobs[i - 1]));
	}
	int nobody = cancel_as_nobody(&env, jobs[2]);
	CHECK_MSG(nobody == 0 || nobody == 77, "another uid's cancel was not refused");
	CHECK_MSG(cuzk_cancel_job(op, jobs[2], &err) == 0, "cancel job %llu: %s", (unsigned long long)jobs[2], err.msg);
	CHECK(cuzk_cancel_job(op, jobs[2] + 1000, &err) == -CUZK_E_NOTFOUND && strstr(err.msg, "job"));
	cuzk_disconnect(op);
	for (int i = 0; i < 3; i++) {
		REQUIRE(wait_any(cl) == 0);
		int k = done.request_id == ids[0] ? 0 : done.request_id == ids[1] ? 1 : 2;
		CHECK_MSG(done.status == (k == 2 ? CUZK_E_CANCELLED : 0), "job %d: status %d", k, done.status);
	}

	REQUIRE(cuzk_daemon_status(cl, CUZK_STATUS_JSON, &text, &len, &err) == 0);
	CHECK(strlen(text) == len && strstr(text, "\"backend\":\"cpu\""));
	free(text);
	REQUIRE(cuzk_daemon_status(cl, CUZK_STATUS_PARAMS, &text, &len, &err) == 0);
	CHECK(strncmp(text, "kind\tname\t", 10) == 0 && strstr(text, "\tsmall.params\t") &&
	      strstr(text, "porep-32g\tv28-stacked-proof-of-replication-"));
	free(text);
	CHECK(cuzk_daemon_status(cl, (enum cuzk_status_format)3, &text, &len, &err) == -CUZK_E_INVAL);

	/* Kinds, and a wait that another fd interrupts. */
	CHECK(strcmp(cuzk_kind_params("winning-post-32g"),
		     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
		     "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.params") == 0);
	CHECK(cuzk_kind_params("porep-16g") == NULL && cuzk_kind_params(NULL) == NULL);
	int wake[2];
	REQUIRE(pipe(wake) == 0);
	CHECK(cuzk_wait_fd(cl, &done, 0, wake[0], &err) == 0);
	CHECK(write(wake[1], "x", 1) == 1);
	CHECK(cuzk_wait_fd(cl, &done, -1, wake[0], &err) == -CUZK_E_CANCELLED && strstr(err.msg, "interrupted"));
	close(wake[0]);
	close(wake[1]);
	CHECK(cuzk_wait_fd(cl, &done, -1, wake[0], &err) == -CUZK_E_INVAL);
	/* A completion that is there wins over the wake-up. */
	REQUIRE(pipe(wake) == 0);
	REQUIRE(cuzk_submit(cl, b, &req, &id, NULL, &err) == 0);
	CHECK(cuzk_wait_fd(cl, &done, TD_TIMEOUT_MS, -1, &err) == 1 && done.request_id == id && done.status == 0);
	close(wake[0]);
	close(wake[1]);

	/* Leaving with a proof in flight disturbs nobody. */
	req.srs = c.name;
	REQUIRE(cuzk_submit(cl, b, &req, &id, NULL, &err) == 0);
	cuzk_disconnect(cl);
	CHECK(td_serves(&env, &c) == 0);

	cuzk_buffer_free(b);
	cuzk_buffer_free(f);
	int st = td_daemon_stop(&env, SIGTERM);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	tcircuit_free(&c);
	td_env_cleanup(&env, check_failures != 0);
	CHECK_DONE();
}
