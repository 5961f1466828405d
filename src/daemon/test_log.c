// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The rate limit on client-triggered log records: a client that floods
 * the log silences only itself, and all clients together stay within the
 * overall budget.  The records go to stderr (not under journald), which the
 * test reads back from a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/log.h"
#include "tests/check.h"

/* Logs n records for each of the given client pids, in turns, and returns
 * how many lines of each reached stderr. */
static void run(int64_t const *pids, unsigned clients, unsigned n, unsigned *ret_lines)
{
	char path[] = "/tmp/cuzkd-log-XXXXXX", line[256];
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	struct cuzkd_log log;
	FILE *f;

	REQUIRE(fd >= 0 && saved >= 0);
	REQUIRE(dup2(fd, STDERR_FILENO) == STDERR_FILENO);
	cuzkd_log_init(&log, CUZKD_LOG_INFO);
	REQUIRE(log.journal == 0);
	for (unsigned i = 0; i < n; i++)
		for (unsigned c = 0; c < clients; c++) {
			struct cuzkd_log_fields fl = CUZKD_LOG_NO_FIELDS;
			fl.client_pid = pids[c];
			cuzkd_log_client(&log, CUZKD_LOG_WARNING, &fl, "client %lld record %u", (long long)pids[c], i);
		}
	cuzkd_log_destroy(&log);
	fflush(stderr);
	REQUIRE(dup2(saved, STDERR_FILENO) == STDERR_FILENO);
	close(saved);
	f = fopen(path, "r");
	REQUIRE(f);
	memset(ret_lines, 0, clients * sizeof(*ret_lines));
	while (fgets(line, sizeof(line), f)) {
		long long pid;
		if (sscanf(line, "cuzkd: client %lld record", &pid) != 1)
			continue;
		for (unsigned c = 0; c < clients; c++)
			if (pids[c] == pid)
				ret_lines[c]++;
	}
	fclose(f);
	close(fd);
	unlink(path);
}

int main(void)
{
	unsetenv("JOURNAL_STREAM");
	{
		/* One flooding client, one quiet one: the quiet one is heard. */
		const int64_t pids[2] = { 100, 200 };
		unsigned lines[2];
		run(pids, 1, 1000, lines);
		CHECK_MSG(lines[0] >= 1 && lines[0] <= 50, "a flood of 1000 records logged %u", lines[0]);
		/* Same window: client 100 floods first, then 200 speaks. */
		unsigned flood = lines[0];
		run(pids, 2, 1000, lines);
		CHECK_MSG(lines[0] == flood, "the flooding client logged %u, alone %u", lines[0], flood);
		CHECK_MSG(lines[1] == flood, "the other client logged %u of its records, the flooder %u", lines[1],
			  flood);
	}
	{
		/* Many clients: the overall budget holds. */
		int64_t pids[40];
		unsigned lines[40], total = 0, one[1];
		for (int i = 0; i < 40; i++)
			pids[i] = 1000 + i;
		run(pids, 1, 1000, one);
		run(pids, 40, 1000, lines);
		for (int i = 0; i < 40; i++)
			total += lines[i];
		CHECK_MSG(total < 40 * one[0], "40 flooding clients logged %u records, one alone %u", total, one[0]);
		/* Turn by turn, each of them was heard before the budget ran out. */
		for (int i = 0; i < 40; i++)
			CHECK_MSG(lines[i] >= 1, "client %d logged nothing", i);
	}
	CHECK_DONE();
}
