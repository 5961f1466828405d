// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzkd's configuration: /etc/cuzk/cuzkd.conf (INI), every key documented
 * with its default in etc/cuzkd.conf.  Command-line options override it. */
#ifndef CUZK_DAEMON_CONF_H
#define CUZK_DAEMON_CONF_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "common/error.h"

#define CUZKD_DEFAULT_CONFIG "/etc/cuzk/cuzkd.conf"
#define CUZKD_MAX_DEVICES 64
#define CUZKD_MAX_PRELOAD 16
#define CUZKD_PATH_MAX 4096
#define CUZKD_SRS_NAME_MAX 255
#define CUZKD_MAX_PRIORITY_IDS 16
#define CUZKD_MAX_SRS_DIRS 8
/* Where parameter files are looked for, in this order. */
#define CUZKD_DEFAULT_SRS_DIRS "/var/lib/cuzk/params /var/tmp/filecoin-proof-parameters"

enum cuzkd_backend { CUZKD_BACKEND_AUTO, CUZKD_BACKEND_CPU, CUZKD_BACKEND_GPU };

enum cuzkd_log_level { CUZKD_LOG_ERR = 3, CUZKD_LOG_WARNING = 4, CUZKD_LOG_NOTICE = 5,
		       CUZKD_LOG_INFO = 6, CUZKD_LOG_DEBUG = 7 };

struct cuzkd_config {
	/* [daemon] */
	char socket[CUZKD_PATH_MAX];       /* empty: socket activation only */
	char srs_dir[CUZKD_PATH_MAX];      /* 1..CUZKD_MAX_SRS_DIRS absolute paths, one space between */
	enum cuzkd_backend backend;
	uint64_t drain_timeout_ms;
	int watchdog;                      /* send WATCHDOG=1 when systemd asks for it */
	/* [limits] */
	uint32_t max_clients;
	uint32_t max_inflight_per_client;
	uint32_t max_inflight_total;
	uint64_t max_pinned_bytes_per_client;
	uint64_t max_pinned_bytes_total;
	uint64_t max_witness_bytes;
	/* [limits] per uid, whatever the number of its connections */
	uint32_t max_clients_per_uid;
	uint32_t max_inflight_per_uid;
	uint64_t max_pinned_bytes_per_uid;
	uint32_t max_buffers_per_uid;      /* witness buffers mapped (registration cache) */
	uint32_t max_buffers_total;
	/* [limits] connections that hold a slot without using it */
	uint64_t hello_timeout_ms;
	uint64_t idle_timeout_ms;          /* 0: never */
	/* [limits] who may ask for critical and high priority: these uids, and
	 * clients whose primary group is one of these gids (or cuzkd's own) */
	uint32_t n_priority_uids, n_priority_gids;
	uint32_t priority_uids[CUZKD_MAX_PRIORITY_IDS];
	uint32_t priority_gids[CUZKD_MAX_PRIORITY_IDS];
	int priority_own_group;            /* "self" in priority_groups */
	/* [engine] */
	uint32_t cpu_workers;
	uint32_t cpu_devices;
	int devices_all;                   /* devices = all */
	uint32_t n_devices;                /* otherwise the list */
	int devices[CUZKD_MAX_DEVICES];
	uint32_t workers_per_device;
	uint64_t vram_budget;              /* bytes per device; 0 = what the device has free */
	uint32_t starvation_limit;         /* partitions a waiting priority level lets pass (queue.c) */
	int verify;                        /* check every proof before its completion is posted */
	/* [srs] */
	uint64_t cache_budget;
	uint32_t n_preload;
	char preload[CUZKD_MAX_PRELOAD][CUZKD_SRS_NAME_MAX + 1];
	/* [log] */
	enum cuzkd_log_level log_level;
};

void cuzkd_config_defaults(struct cuzkd_config *cfg);

/* Reads an INI file into cfg (which holds the defaults).  Errors name the
 * file and line: "cuzkd.conf:12: unknown key 'foo' in [engine]".
 * missing_ok: a file that does not exist leaves the defaults (for the
 * default path only; an explicit --config must exist). */
int cuzkd_config_load(struct cuzkd_config *cfg, const char *path, int missing_ok, cuzk_error *err);

/* Parses "123", "64K", "3M", "2G", "1T" (powers of 1024) into bytes. */
int cuzkd_parse_size(const char *s, uint64_t *ret);
/* Parses a non-negative decimal integer no larger than max. */
int cuzkd_parse_uint(const char *s, uint64_t max, uint64_t *ret);
int cuzkd_parse_backend(const char *s, enum cuzkd_backend *ret);
/* A list of 1..CUZKD_MAX_SRS_DIRS paths separated by spaces or commas,
 * rewritten into ret (len bytes) with one space between paths.  Absolute
 * paths only, unless relative_ok (the command line: relative to the
 * directory cuzkd was started in). */
int cuzkd_parse_dirs(const char *s, int relative_ok, char *ret, size_t len);
const char *cuzkd_backend_name(enum cuzkd_backend b);

/* Sizes and durations written back as the file accepts them: a size as the
 * largest of T, G, M, K that divides it ("128G", "1536M"), else in bytes; a
 * duration in whole seconds, else milliseconds ("60s", "1500ms"). */
#define CUZKD_FORMAT_MAX 24
const char *cuzkd_format_size(char buf[CUZKD_FORMAT_MAX], uint64_t v);
const char *cuzkd_format_duration(char buf[CUZKD_FORMAT_MAX], uint64_t ms);

/* The whole configuration as INI text (for --check-config and logs), every
 * key in the order of the key table, values as the file writes them. */
void cuzkd_config_print(const struct cuzkd_config *cfg, FILE *out);

#endif
