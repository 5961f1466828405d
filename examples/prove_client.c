// SPDX-License-Identifier: Apache-2.0 OR MIT
/* prove_client: proves a witness file through cuzkd with libcuzk.
 *
 *   prove_client SOCKET SRS WITNESS OUT [REPEAT]
 *
 * The witness buffer is allocated once and submitted REPEAT times (default 1),
 * as a real client keeps a pool of buffers: from the second proof on, the
 * daemon finds the buffer registered (see the REGISTER phase time).  Build:
 *   cc prove_client.c $(pkg-config --cflags --libs cuzk) */
#include <cuzk.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, const cuzk_error *err)
{
	fprintf(stderr, "prove_client: %s: %s (%s)\n", what, err->msg, cuzk_status_name(err->code));
	return 1;
}

int main(int argc, char **argv)
{
	static const char *const phase[CUZK_PHASE__COUNT] = { "check", "queue", "srs", "register", "upload",
							       "ntt", "msm", "assemble", "total" };
	cuzk_error err;
	cuzk_client *c;
	cuzk_buffer *w;

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: prove_client SOCKET SRS WITNESS OUT [REPEAT]\n");
		return 2;
	}
	/* Errors below end the program, which releases everything. */
	struct cuzk_completion *done = malloc(sizeof(*done));  /* 12 KiB of proofs */
	if (!done) {
		perror("prove_client");
		return 1;
	}
	int repeat = argc == 6 ? atoi(argv[5]) : 1;
	if (repeat < 1)
		repeat = 1;
	if (cuzk_connect(&c, argv[1], NULL, &err) < 0)
		return fail(argv[1], &err);
	if (cuzk_buffer_load_file(c, &w, argv[3], &err) < 0)
		return fail(argv[3], &err);

	const struct cuzk_request req = { .srs = argv[2], .priority = CUZK_PRIORITY_NORMAL };
	for (int i = 0; i < repeat; i++) {
		uint64_t id, job;
		if (cuzk_submit(c, w, &req, &id, &job, &err) < 0)
			return fail("submit", &err);
		/* Completions of other requests could arrive first on a shared
		 * connection; here there is only ours. */
		do {
			if (cuzk_wait(c, done, -1, &err) < 0)
				return fail("wait", &err);
		} while (done->request_id != id);
		if (done->status != 0) {
			fprintf(stderr, "prove_client: job %llu: %s\n", (unsigned long long)job, done->message);
			return 1;
		}
		printf("job %llu: %u partition(s)", (unsigned long long)job, done->num_partitions);
		for (int p = 0; p < CUZK_PHASE__COUNT; p++)
			printf(" %s=%.3fms", phase[p], done->phase_ns[p] / 1e6);
		printf("\n");
	}

	FILE *f = fopen(argv[4], "wb");
	if (!f || fwrite(done->proof, CUZK_PROOF_BYTES, done->num_partitions, f) != done->num_partitions ||
	    fclose(f) != 0) {
		perror(argv[4]);
		return 1;
	}
	cuzk_buffer_free(w);
	cuzk_disconnect(c);
	free(done);
	return 0;
}
