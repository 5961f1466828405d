// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The SRS cache: parameter files named by requests, resolved only inside
 * the srs_dir directories, loaded once however many requests want them at
 * the same time, kept under a byte budget with LRU eviction of unused
 * entries.
 *
 * A request names a file (looked for in each directory in order, the first
 * one that has it wins) or a proof kind ("porep-32g", ipc/kinds.h), which
 * stands for its Filecoin file name.  A symlink is followed only when its
 * target's real path lies inside one of the directories: an operator's
 * /var/tmp/filecoin-proof-parameters may link files between the directories
 * the daemon serves, never to anything else.
 *
 * Loading runs on the thread that asks first (a worker, never the event
 * loop); others that ask for the same name meanwhile wait for it, and a
 * failed load answers all of them with its error.  The failed entry is
 * dropped when its last waiter lets go, so a later request tries again. */
#ifndef CUZK_DAEMON_SRS_CACHE_H
#define CUZK_DAEMON_SRS_CACHE_H

#include <pthread.h>
#include <stdint.h>

#include "common/error.h"
#include "daemon/conf.h"
#include "formats/params_io.h"
#include "prover/types.h"

enum cuzkd_srs_state { CUZKD_SRS_LOADING, CUZKD_SRS_READY, CUZKD_SRS_FAILED };

struct cuzkd_srs {
	char name[CUZKD_SRS_NAME_MAX + 1];   /* the file name (a kind resolved) */
	enum cuzkd_srs_state state;
	groth16_params params;       /* valid when READY */
	uint64_t bytes;
	unsigned users;              /* acquired and not released */
	uint64_t last_use;           /* cache tick, for LRU */
	double load_ms;
	uint64_t load_done, load_total;   /* points decoded so far, while LOADING */
	cuzk_error err;              /* when FAILED */
	struct cuzkd_srs *next;
};

/* Called with the cache lock held before an entry's params are freed (the
 * GPU pool drops its device copies). */
typedef void (*cuzkd_srs_evict_fn)(void *ctx, const groth16_params *p);

struct cuzkd_srs_dir {
	int fd;                      /* -1: the directory did not exist at start */
	char path[CUZKD_PATH_MAX];   /* as configured */
	char real[CUZKD_PATH_MAX];   /* its real path, against which symlink targets are checked */
};

struct cuzkd_srs_cache {
	struct cuzkd_srs_dir dirs[CUZKD_MAX_SRS_DIRS];
	unsigned n_dirs;
	uint64_t budget, bytes;
	pthread_mutex_t lock;
	pthread_cond_t loaded;
	struct cuzkd_srs *entries;
	uint64_t tick;
	uint64_t hits, misses, loads_failed, evictions;
	cuzkd_srs_evict_fn on_evict;
	void *evict_ctx;
	/* Set by the engine on a backend with device memory, before any load:
	 * reads an entry's file in place of groth16_params_read_fd_opts and
	 * uploads the params to the devices while they are decoded, keyed by
	 * `key` (the entry's params, where they will live), so that a loaded
	 * entry is resident wherever it fits.  Called without the lock. */
	int (*read_params)(void *ctx, groth16_params *ret, int fd, const char *name,
			   const groth16_params_load_opts *o, const groth16_params *key, cuzk_error *err);
	void *read_ctx;
};

/* Accepts only 1..255 characters of [A-Za-z0-9._-], not starting with '.':
 * no '/', no "..", no hidden files, no NUL inside. */
int cuzkd_srs_name_check(const char *name, size_t maxlen, cuzk_error *err);

/* dirs: the configured list (absolute paths, one space between).  A
 * directory that does not exist is kept as absent (fd -1: the caller logs
 * it); none existing is -CUZK_E_NOTFOUND, one that cannot be opened
 * otherwise -CUZK_E_IO / -CUZK_E_PERM. */
int cuzkd_srs_cache_init(struct cuzkd_srs_cache *c, const char *dirs, uint64_t budget, cuzk_error *err);
void cuzkd_srs_cache_destroy(struct cuzkd_srs_cache *c);

/* Cheap check on the loop thread: the name is valid and names a regular file
 * in one of the directories (a symlink only when confined, see above).
 * -CUZK_E_INVAL / -CUZK_E_NOTFOUND / -CUZK_E_PERM (a symlink out); an
 * unknown name's message names the directories the daemon looked in and
 * some of the files it has there. */
int cuzkd_srs_lookup(struct cuzkd_srs_cache *c, const char *name, cuzk_error *err);

/* Opens name (a file name or a kind) for reading: the file found as
 * cuzkd_srs_lookup finds it.  *ret_file: the file name, *ret_dir: the index
 * of the directory it came from.  Errors as cuzkd_srs_lookup, and -CUZK_E_IO. */
int cuzkd_srs_open(struct cuzkd_srs_cache *c, const char *name, int *ret_fd, const char **ret_file,
		   unsigned *ret_dir, cuzk_error *err);

/* Returns a READY entry (loading it if needed; blocks while another thread
 * loads it).  Pair with cuzkd_srs_release. */
int cuzkd_srs_acquire(struct cuzkd_srs_cache *c, const char *name, struct cuzkd_srs **ret,
		      cuzk_error *err);
void cuzkd_srs_release(struct cuzkd_srs_cache *c, struct cuzkd_srs *s);

/* Status and metrics text. */
struct cuzkd_srs_stats {
	uint64_t bytes, budget, hits, misses, loads_failed, evictions;
	unsigned entries, loading;
	/* The first entry being loaded ("" if none), and how far: the STATUS=
	 * line says "loading porep-32g: 37%" while a 47 GB file decodes. */
	char loading_name[CUZKD_SRS_NAME_MAX + 1];
	unsigned loading_percent;
};
void cuzkd_srs_cache_stats(struct cuzkd_srs_cache *c, struct cuzkd_srs_stats *ret);

/* The state of the entry for a file name: "loaded", "loading", or NULL
 * when it has none. */
const char *cuzkd_srs_state(struct cuzkd_srs_cache *c, const char *file);

/* srs_list.c: the parameter files the directories offer, as the TSV that
 * answers STATUS format PARAMS (docs/PROTOCOL.md); malloc'd, NULL when out
 * of memory. */
char *cuzkd_srs_list_text(struct cuzkd_srs_cache *c);

#endif
