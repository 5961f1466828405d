// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Per-uid accounts (see accounts.h).  A list: there are at most as many
 * accounts as connections, and it is searched once per connection. */
#include <stdlib.h>

#include "daemon/accounts.h"

struct cuzkd_account *cuzkd_account_find(struct cuzkd_accounts *a, uint32_t uid)
{
	for (struct cuzkd_account *acct = a->list; acct; acct = acct->next)
		if (acct->uid == uid)
			return acct;
	return NULL;
}

struct cuzkd_account *cuzkd_account_join(struct cuzkd_accounts *a, uint32_t uid)
{
	struct cuzkd_account *acct = cuzkd_account_find(a, uid);

	if (!acct) {
		acct = calloc(1, sizeof(*acct));
		if (!acct)
			return NULL;
		acct->uid = uid;
		acct->next = a->list;
		a->list = acct;
		a->n++;
	}
	acct->sessions++;
	return acct;
}

void cuzkd_account_leave(struct cuzkd_accounts *a, struct cuzkd_account *acct)
{
	if (--acct->sessions)
		return;
	for (struct cuzkd_account **pp = &a->list; *pp; pp = &(*pp)->next) {
		if (*pp == acct) {
			*pp = acct->next;
			a->n--;
			free(acct);
			return;
		}
	}
}

void cuzkd_accounts_destroy(struct cuzkd_accounts *a)
{
	while (a->list) {
		struct cuzkd_account *next = a->list->next;
		free(a->list);
		a->list = next;
	}
	a->n = 0;
}
