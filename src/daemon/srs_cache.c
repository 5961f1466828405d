// SPDX-License-Identifier: Apache-2.0 OR MIT
/* SRS cache (see srs_cache.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bls12_381/encoding.h"
#include "common/clock.h"
#include "daemon/srs_cache.h"
#include "formats/params_io.h"
#include "ipc/kinds.h"

int cuzkd_srs_name_check(const char *name, size_t maxlen, cuzk_error *err)
{
	size_t n = strnlen(name, maxlen);

	if (n == 0)
		return err_fail(err, CUZK_E_INVAL, "SRS name is empty");
	if (n == maxlen || n > CUZKD_SRS_NAME_MAX)
		return err_fail(err, CUZK_E_INVAL, "SRS name is longer than %d bytes", CUZKD_SRS_NAME_MAX);
	if (name[0] == '.')
		return err_fail(err, CUZK_E_INVAL, "SRS name '%.64s' starts with '.'", name);
	for (size_t i = 0; i < n; i++) {
		char ch = name[i];
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			 ch == '.' || ch == '_' || ch == '-';
		if (!ok)
			return err_fail(err, CUZK_E_INVAL,
					"SRS name has a character outside [A-Za-z0-9._-] at byte %zu", i);
	}
	return 0;
}

int cuzkd_srs_cache_init(struct cuzkd_srs_cache *c, const char *dirs, uint64_t budget, cuzk_error *err)
{
	char list[CUZKD_PATH_MAX];
	char *save = NULL;
	unsigned present = 0;

	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->loaded, NULL);
	c->budget = budget;
	if (snprintf(list, sizeof(list), "%s", dirs) >= (int)sizeof(list))
		return err_fail(err, CUZK_E_INVAL, "srs_dir: list too long");
	for (char *w = strtok_r(list, " ", &save); w && c->n_dirs < CUZKD_MAX_SRS_DIRS;
	     w = strtok_r(NULL, " ", &save)) {
		struct cuzkd_srs_dir *d = &c->dirs[c->n_dirs++];
		snprintf(d->path, sizeof(d->path), "%s", w);
		d->fd = open(w, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (d->fd < 0 && errno == ENOENT)
			continue;
		if (d->fd < 0)
			return err_fail_errno(err, errno, "SRS directory %s", w);
		/* Symlink targets are compared with the real path, which the
		 * directory's own name need not be (a symlinked /var/tmp). */
		if (!realpath(w, d->real))
			return err_fail_errno(err, errno, "SRS directory %s: realpath", w);
		present++;
	}
	if (present == 0)
		return err_fail(err, CUZK_E_NOTFOUND, "SRS directory %s: No such file or directory%s", dirs,
				c->n_dirs > 1 ? " (none of them exists)" : "");
	return 0;
}

static void free_entry(struct cuzkd_srs_cache *c, struct cuzkd_srs *s)
{
	if (s->state == CUZKD_SRS_READY) {
		if (c->on_evict)
			c->on_evict(c->evict_ctx, &s->params);
		groth16_params_free(&s->params);
		c->bytes -= s->bytes;
	}
	free(s);
}

void cuzkd_srs_cache_destroy(struct cuzkd_srs_cache *c)
{
	while (c->entries) {
		struct cuzkd_srs *s = c->entries;
		c->entries = s->next;
		free_entry(c, s);
	}
	for (unsigned i = 0; i < c->n_dirs; i++)
		if (c->dirs[i].fd >= 0)
			close(c->dirs[i].fd);
	c->n_dirs = 0;
	pthread_cond_destroy(&c->loaded);
	pthread_mutex_destroy(&c->lock);
}

/* Whether path lies inside one of the directories. */
static int confined(const struct cuzkd_srs_cache *c, const char *path)
{
	for (unsigned i = 0; i < c->n_dirs; i++) {
		const char *dir = c->dirs[i].real;
		size_t n = strlen(dir);
		if (c->dirs[i].fd >= 0 && strncmp(path, dir, n) == 0 && (path[n] == '/' || n == 1))
			return 1;
	}
	return 0;
}

/* A symlink's target, held as an O_PATH fd: where it really is, from the
 * kernel (/proc/self/fd), so that no later rename can change the answer. */
static int check_target(const struct cuzkd_srs_cache *c, int fd, const char *file, const char *dir,
			cuzk_error *err)
{
	char proc[64], real[CUZKD_PATH_MAX];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, real, sizeof(real) - 1);
	if (n < 0)
		return err_fail_errno(err, errno, "SRS '%s' in %s is a symlink, and %s cannot be read", file, dir,
				      proc);
	real[n] = '\0';
	if (!confined(c, real))
		return err_fail(err, CUZK_E_PERM, "SRS '%s' in %s is a symlink to %.200s, outside srs_dir", file,
				dir, real);
	return 0;
}

/* Opens file in directory i: O_PATH, or for reading when read is set.
 * 1 when the directory has no such entry. */
static int open_in_dir(const struct cuzkd_srs_cache *c, unsigned i, const char *file, int read, int *ret_fd,
		       cuzk_error *err)
{
	const struct cuzkd_srs_dir *d = &c->dirs[i];
	struct stat st, st2;
	int fd, rfd, r;

	if (fstatat(d->fd, file, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 1 : err_fail_errno(err, errno, "SRS '%s' in %s", file, d->path);
	if (S_ISREG(st.st_mode)) {
		/* O_NOFOLLOW: a symlink swapped in since is refused, and
		 * O_NONBLOCK: a FIFO swapped in cannot stall the open. */
		fd = openat(d->fd, file, (read ? O_RDONLY | O_NONBLOCK : O_PATH) | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return err_fail_errno(err, errno, "SRS '%s' in %s", file, d->path);
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			return err_fail(err, CUZK_E_NOTFOUND, "SRS '%s' in %s is not a regular file", file, d->path);
		}
		*ret_fd = fd;
		return 0;
	}
	if (!S_ISLNK(st.st_mode))
		return err_fail(err, CUZK_E_NOTFOUND, "SRS '%s' in %s is not a regular file", file, d->path);
	fd = openat(d->fd, file, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return err_fail_errno(err, errno, "SRS '%s' in %s is a symlink to nothing usable", file, d->path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_fail(err, CUZK_E_NOTFOUND, "SRS '%s' in %s is a symlink to something not a regular file",
				file, d->path);
	}
	if ((r = check_target(c, fd, file, d->path, err)) < 0 || !read) {
		if (r < 0)
			close(fd);
		else
			*ret_fd = fd;
		return r;
	}
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	rfd = open(proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	r = errno;
	close(fd);
	if (rfd < 0)
		return err_fail_errno(err, r, "SRS '%s' in %s", file, d->path);
	if (fstat(rfd, &st2) < 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
		close(rfd);
		return err_fail(err, CUZK_E_IO, "SRS '%s' in %s changed while it was opened", file, d->path);
	}
	*ret_fd = rfd;
	return 0;
}

/* The directories, for messages: "/a, /b (missing)". */
static void dir_list(const struct cuzkd_srs_cache *c, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < c->n_dirs && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s%s", i ? ", " : "", c->dirs[i].path,
				       c->dirs[i].fd < 0 ? " (missing)" : "");
}

/* Up to SCAN_MAX directory entries, over all the directories, are looked at
 * for the list an unknown name's message gives: it runs on the loop thread,
 * at a client's request. */
#define SCAN_MAX 256

/* Whether a directory before i has name (which then wins over i's). */
static int shadowed(const struct cuzkd_srs_cache *c, unsigned i, const char *name)
{
	struct stat st;
	for (unsigned j = 0; j < i; j++)
		if (c->dirs[j].fd >= 0 && fstatat(c->dirs[j].fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return 1;
	return 0;
}

/* Writes into buf the names of the files (or symlinks to files) in the
 * directories that requests could name, as many as fit ("a.params,
 * b.params and 3 more"), or "no parameter files". */
static void list_names(const struct cuzkd_srs_cache *c, char *buf, size_t len)
{
	size_t at = 0;
	unsigned listed = 0, more = 0;
	int seen = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->n_dirs && seen < SCAN_MAX; i++) {
		int fd = c->dirs[i].fd >= 0 ? openat(c->dirs[i].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *e;

		if (!dir) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		for (; seen < SCAN_MAX && (e = readdir(dir)); seen++) {
			struct stat st;
			if (cuzkd_srs_name_check(e->d_name, sizeof(e->d_name), NULL) < 0 ||
			    fstatat(c->dirs[i].fd, e->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode) ||
			    shadowed(c, i, e->d_name))
				continue;
			size_t n = strlen(e->d_name);
			if (!more && at + n + 2 + 16 < len) {
				at += (size_t)snprintf(buf + at, len - at, "%s%s", listed ? ", " : "", e->d_name);
				listed++;
			} else {
				more++;
			}
		}
		closedir(dir);
	}
	if (!listed)
		snprintf(buf, len, "no parameter files");
	else if (more)
		snprintf(buf + at, len - at, " and %u more", more);
}

static int srs_find(struct cuzkd_srs_cache *c, const char *name, int read, int *ret_fd, const char **ret_file,
		    unsigned *ret_dir, cuzk_error *err)
{
	const struct kind *kind;
	const char *file;
	char dirs[256], names[120];
	int r = cuzkd_srs_name_check(name, CUZKD_SRS_NAME_MAX + 1, err);

	if (r)
		return r;
	kind = kind_by_name(name);
	file = kind ? kind->params : name;
	for (unsigned i = 0; i < c->n_dirs; i++) {
		if (c->dirs[i].fd < 0)
			continue;
		r = open_in_dir(c, i, file, read, ret_fd, err);
		if (r == 1)
			continue;
		if (r == 0) {
			if (ret_file)
				*ret_file = file;
			if (ret_dir)
				*ret_dir = i;
		}
		return r;
	}
	/* Replies carry CUZK_MESSAGE_MAX bytes: the directories come before
	 * a kind's long file name (which `cuzk params list` shows whole). */
	dir_list(c, dirs, sizeof(dirs));
	if (kind)
		return err_fail(err, CUZK_E_NOTFOUND, "unknown SRS '%s': none of %s has its file, %s", name, dirs,
				file);
	list_names(c, names, sizeof(names));
	return err_fail(err, CUZK_E_NOTFOUND, "unknown SRS '%.64s': not in %s, which %s %s", name, dirs,
			c->n_dirs > 1 ? "hold" : "holds", names);
}

int cuzkd_srs_lookup(struct cuzkd_srs_cache *c, const char *name, cuzk_error *err)
{
	int fd, r = srs_find(c, name, 0, &fd, NULL, NULL, err);
	if (r == 0)
		close(fd);
	return r;
}

int cuzkd_srs_open(struct cuzkd_srs_cache *c, const char *name, int *ret_fd, const char **ret_file,
		   unsigned *ret_dir, cuzk_error *err)
{
	return srs_find(c, name, 1, ret_fd, ret_file, ret_dir, err);
}

/* Unlinks unused READY entries, least recently used first, while the cache
 * is over its budget.  Called with the lock held. */
static void evict_over_budget(struct cuzkd_srs_cache *c)
{
	while (c->bytes > c->budget) {
		struct cuzkd_srs **victim = NULL;
		for (struct cuzkd_srs **pp = &c->entries; *pp; pp = &(*pp)->next) {
			struct cuzkd_srs *s = *pp;
			if (s->state == CUZKD_SRS_READY && s->users == 0 &&
			    (!victim || s->last_use < (*victim)->last_use))
				victim = pp;
		}
		if (!victim)
			return;
		struct cuzkd_srs *s = *victim;
		*victim = s->next;
		c->evictions++;
		free_entry(c, s);
	}
}

struct load_progress {
	struct cuzkd_srs_cache *c;
	struct cuzkd_srs *s;
};

/* From the decoding threads (one at a time): the status line reads it. */
static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct load_progress *lp = ctx;
	pthread_mutex_lock(&lp->c->lock);
	lp->s->load_done = done;
	lp->s->load_total = total;
	pthread_mutex_unlock(&lp->c->lock);
}

/* Opens the entry's file (srs_find) and decodes it (groth16_params_read_fd_opts:
 * the points are read into the storage, nothing of the file stays mapped),
 * through the engine's read_params when it has devices to fill. */
static int load_params(struct cuzkd_srs_cache *c, struct cuzkd_srs *s, groth16_params *ret, cuzk_error *err)
{
	const char *file = s->name;
	struct stat st;
	int fd, r;

	if ((r = cuzkd_srs_open(c, file, &fd, NULL, NULL, err)) < 0)
		return r;
	if (fstat(fd, &st) < 0) {
		r = errno;
		close(fd);
		return err_fail_errno(err, r, "SRS '%s': fstat", file);
	}
	if (st.st_size == 0) {
		close(fd);
		return err_fail(err, CUZK_E_FORMAT, "SRS '%s' is empty", file);
	}
	/* Parameter files come from the operator; curve checks catch a corrupt
	 * file, subgroup checks would cost minutes on a 47 GB file. */
	struct load_progress lp = { c, s };
	groth16_params_load_opts o = { .checks = BLS_CHECK_CURVE, .progress = on_progress, .progress_ctx = &lp };
	r = c->read_params ? c->read_params(c->read_ctx, ret, fd, file, &o, &s->params, err)
			   : groth16_params_read_fd_opts(ret, fd, file, &o, err);
	close(fd);
	if (r)
		err_prefix(err, "SRS");
	return r;
}

int cuzkd_srs_acquire(struct cuzkd_srs_cache *c, const char *request_name, struct cuzkd_srs **ret,
		      cuzk_error *err)
{
	const struct kind *kind = kind_by_name(request_name);
	const char *name = kind ? kind->params : request_name;
	struct cuzkd_srs *s;
	groth16_params p;
	cuzk_error lerr;
	double t0;
	int r;

	/* Entries are named by file, so that a kind and its file name share one. */
	pthread_mutex_lock(&c->lock);
	for (s = c->entries; s; s = s->next)
		if (strcmp(s->name, name) == 0 && s->state != CUZKD_SRS_FAILED)
			break;
	if (s) {
		s->users++;
		if (s->state == CUZKD_SRS_READY)
			c->hits++;
		while (s->state == CUZKD_SRS_LOADING)
			pthread_cond_wait(&c->loaded, &c->lock);
		goto done;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		pthread_mutex_unlock(&c->lock);
		return err_fail(err, CUZK_E_NOMEM, "SRS '%s': out of memory", name);
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->state = CUZKD_SRS_LOADING;
	s->users = 1;
	s->next = c->entries;
	c->entries = s;
	c->misses++;
	pthread_mutex_unlock(&c->lock);

	t0 = monotonic_ms();
	r = load_params(c, s, &p, &lerr);

	pthread_mutex_lock(&c->lock);
	s->load_ms = monotonic_ms() - t0;
	if (r) {
		s->state = CUZKD_SRS_FAILED;
		s->err = lerr;
		c->loads_failed++;
	} else {
		s->params = p;
		s->bytes = p.storage_len;
		s->state = CUZKD_SRS_READY;
		c->bytes += s->bytes;
		evict_over_budget(c);
	}
	pthread_cond_broadcast(&c->loaded);
done:
	s->last_use = ++c->tick;
	if (s->state == CUZKD_SRS_FAILED) {
		if (err)
			*err = s->err;
		r = -s->err.code;
		pthread_mutex_unlock(&c->lock);
		cuzkd_srs_release(c, s);
		return r;
	}
	pthread_mutex_unlock(&c->lock);
	*ret = s;
	return 0;
}

void cuzkd_srs_release(struct cuzkd_srs_cache *c, struct cuzkd_srs *s)
{
	pthread_mutex_lock(&c->lock);
	if (--s->users == 0 && s->state == CUZKD_SRS_FAILED) {
		for (struct cuzkd_srs **pp = &c->entries; *pp; pp = &(*pp)->next) {
			if (*pp == s) {
				*pp = s->next;
				break;
			}
		}
		free_entry(c, s);
	} else {
		evict_over_budget(c);
	}
	pthread_mutex_unlock(&c->lock);
}

void cuzkd_srs_cache_stats(struct cuzkd_srs_cache *c, struct cuzkd_srs_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	pthread_mutex_lock(&c->lock);
	ret->bytes = c->bytes;
	ret->budget = c->budget;
	ret->hits = c->hits;
	ret->misses = c->misses;
	ret->loads_failed = c->loads_failed;
	ret->evictions = c->evictions;
	for (struct cuzkd_srs *s = c->entries; s; s = s->next) {
		ret->entries++;
		if (s->state != CUZKD_SRS_LOADING)
			continue;
		if (!ret->loading++) {
			snprintf(ret->loading_name, sizeof(ret->loading_name), "%s", s->name);
			ret->loading_percent = s->load_total ? (unsigned)(s->load_done * 100 / s->load_total) : 0;
		}
	}
	pthread_mutex_unlock(&c->lock);
}

const char *cuzkd_srs_state(struct cuzkd_srs_cache *c, const char *file)
{
	const char *state = NULL;

	pthread_mutex_lock(&c->lock);
	for (struct cuzkd_srs *s = c->entries; s && !state; s = s->next)
		if (strcmp(s->name, file) == 0 && s->state != CUZKD_SRS_FAILED)
			state = s->state == CUZKD_SRS_READY ? "loaded" : "loading";
	pthread_mutex_unlock(&c->lock);
	return state;
}
