// SPDX-License-Identifier: Apache-2.0 OR MIT
/* What libcuzk's files share: the two opaque structs and the log helper. */
#ifndef CUZK_CLIENT_INTERNAL_H
#define CUZK_CLIENT_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "abi/witness_format.h"
#include "client/pages.h"
#include "common/error.h"
#include "cuzk.h"
#include "ipc/protocol.h"

struct cuzk_client {
	pthread_mutex_t lock;        /* one request/reply exchange or ring access at a time */
	int sock;
	int efd;                     /* the daemon's eventfd */
	int ring_fd, head_fd;
	struct ring_consumer ring;
	struct msg_hello_reply hello;
	uint32_t hello_asked;        /* CUZK_HELLO_* our hello asked for; hello.flags: what was granted */
	uint64_t next_id;            /* request ids: 1, 2, ...; 0 means "none" on the wire */
	cuzk_log_fn log;
	void *log_opaque;
	int pages_reason_level;      /* the most severe huge-page fallback logged (0: none): each level once per client */
	uint8_t *rx;                 /* CUZK_MSG_MAX bytes */
};

struct cuzk_buffer {
	int fd;
	uint8_t *map;
	uint64_t size;               /* file size (rounded up to the huge page size) */
	enum cuzk_page_kind pages;
	struct witness_desc desc;
};

void client_log(cuzk_client *c, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* buffer.c: allocation against a given host state (tests pass a fake one). */
int buffer_alloc_env(cuzk_client *c, cuzk_buffer **ret, const struct cuzk_dims *dims,
		     const struct pages_env *env, cuzk_error *err);
/* Adds F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_SEAL unless already sealed. */
int buffer_seal(cuzk_buffer *b, cuzk_error *err);

#endif
