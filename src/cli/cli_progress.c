// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Progress lines for the long steps of the CLI (cli.h). */
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"

void cli_progress_init(struct cli_progress *p, const char *what)
{
	p->what = what;
	p->last = -1;
	p->tty = isatty(STDERR_FILENO);
}

void cli_progress_update(void *ctx, uint64_t done, uint64_t total)
{
	struct cli_progress *p = ctx;
	if (total < CLI_PROGRESS_MIN)
		return;
	int pct = total ? (int)(done * 100 / total) : 100;
	/* every percent on a terminal, every tenth otherwise (logs) */
	if (pct == p->last || (!p->tty && pct / 10 == p->last / 10 && pct != 100))
		return;
	p->last = pct;
	fprintf(stderr, p->tty ? "\r%s: %3d%%" : "%s: %d%%\n", p->what, pct);
	fflush(stderr);
}

void cli_progress_end(struct cli_progress *p, double ms)
{
	if (p->last < 0)   /* too small to have shown progress */
		return;
	fprintf(stderr, "%s%s: done in %.1f s\n", p->tty ? "\r" : "", p->what, ms / 1e3);
}
