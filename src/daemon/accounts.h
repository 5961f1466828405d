// SPDX-License-Identifier: Apache-2.0 OR MIT
/* What each uid holds, over all its connections: connections, requests in
 * flight and the witness bytes they hold, so that the per-uid limits of
 * [limits] bound a user however many connections it opens.  Loop thread
 * only.  An account lives while one of its connections does (a connection
 * outlives its jobs: session.h). */
#ifndef CUZK_DAEMON_ACCOUNTS_H
#define CUZK_DAEMON_ACCOUNTS_H

#include <stdint.h>

struct cuzkd_account {
	uint32_t uid;
	unsigned sessions;           /* accepted connections */
	unsigned inflight;           /* requests accepted and not completed */
	uint64_t pinned_bytes;       /* witness bytes those requests hold */
	struct cuzkd_account *next;
};

struct cuzkd_accounts {
	struct cuzkd_account *list;
	unsigned n;
};

/* The account of uid with one more connection, created when it has none;
 * NULL when out of memory. */
struct cuzkd_account *cuzkd_account_join(struct cuzkd_accounts *a, uint32_t uid);
/* One connection fewer; the account goes with its last. */
void cuzkd_account_leave(struct cuzkd_accounts *a, struct cuzkd_account *acct);
/* The account of uid, or NULL when it has no connection. */
struct cuzkd_account *cuzkd_account_find(struct cuzkd_accounts *a, uint32_t uid);
void cuzkd_accounts_destroy(struct cuzkd_accounts *a);

#endif
