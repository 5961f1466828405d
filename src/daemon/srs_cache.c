// SPDX-License-Identifier: Apache-2.0 OR MIT
/* SRS cache (see srs_cache.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bls12_381/encoding.h"
#include "common/clock.h"
#include "daemon/srs_cache.h"
#include "groth16/params_io.h"

int cuzkd_srs_name_check(const char *name, size_t maxlen, cuzk_error *err)
{
	size_t n = strnlen(name, maxlen);

	if (n == 0)
		return cuzk_fail(err, CUZK_E_INVAL, "SRS name is empty");
	if (n == maxlen || n > CUZKD_SRS_NAME_MAX)
		return cuzk_fail(err, CUZK_E_INVAL, "SRS name is longer than %d bytes", CUZKD_SRS_NAME_MAX);
	if (name[0] == '.')
		return cuzk_fail(err, CUZK_E_INVAL, "SRS name '%.64s' starts with '.'", name);
	for (size_t i = 0; i < n; i++) {
		char ch = name[i];
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			 ch == '.' || ch == '_' || ch == '-';
		if (!ok)
			return cuzk_fail(err, CUZK_E_INVAL,
					 "SRS name has a character outside [A-Za-z0-9._-] at byte %zu", i);
	}
	return 0;
}

int cuzkd_srs_cache_init(struct cuzkd_srs_cache *c, const char *dir, uint64_t budget, cuzk_error *err)
{
	memset(c, 0, sizeof(*c));
	c->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dirfd < 0)
		return cuzk_fail_errno(err, errno, "SRS directory %s", dir);
	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	c->budget = budget;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->loaded, NULL);
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
	if (c->dirfd >= 0)
		close(c->dirfd);
	pthread_cond_destroy(&c->loaded);
	pthread_mutex_destroy(&c->lock);
}

/* Up to SCAN_MAX directory entries are looked at for the list an unknown
 * name's message gives: it runs on the loop thread, at a client's request. */
#define SCAN_MAX 256

/* Writes into buf the names of regular files in srs_dir that requests could
 * use, as many as fit ("a.params, b.params, and 3 more"), or "nothing". */
static void list_names(const struct cuzkd_srs_cache *c, char *buf, size_t len)
{
	int fd = openat(c->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	size_t at = 0;
	unsigned listed = 0, more = 0;
	struct dirent *e;

	buf[0] = '\0';
	if (!dir) {
		if (fd >= 0)
			close(fd);
		snprintf(buf, len, "nothing readable");
		return;
	}
	for (int seen = 0; seen < SCAN_MAX && (e = readdir(dir)); seen++) {
		struct stat st;
		if (cuzkd_srs_name_check(e->d_name, sizeof(e->d_name), NULL) < 0 ||
		    fstatat(c->dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
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
	if (!listed)
		snprintf(buf, len, "no parameter files");
	else if (more)
		snprintf(buf + at, len - at, " and %u more", more);
}

int cuzkd_srs_lookup(struct cuzkd_srs_cache *c, const char *name, cuzk_error *err)
{
	struct stat st;
	int r = cuzkd_srs_name_check(name, CUZKD_SRS_NAME_MAX + 1, err);

	if (r)
		return r;
	if (fstatat(c->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT) {
			char names[120];
			list_names(c, names, sizeof(names));
			return cuzk_fail(err, CUZK_E_NOTFOUND, "unknown SRS '%.64s': not in %s, which holds %s", name,
					 c->dir, names);
		}
		return cuzk_fail_errno(err, errno, "SRS '%s'", name);
	}
	if (!S_ISREG(st.st_mode))
		return cuzk_fail(err, CUZK_E_NOTFOUND, "SRS '%s' is not a regular file", name);
	return 0;
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

/* Opens the file without following a symlink, so nothing outside dirfd can
 * be reached, maps it and decodes it (the points are copied out, so the
 * mapping goes away after). */
static int load_params(struct cuzkd_srs_cache *c, const char *name, groth16_params *ret, cuzk_error *err)
{
	struct stat st;
	void *map;
	int fd, r;

	fd = openat(c->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return cuzk_fail_errno(err, errno, "SRS '%s'", name);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return cuzk_fail(err, CUZK_E_NOTFOUND, "SRS '%s' is not a regular file", name);
	}
	if (st.st_size == 0) {
		close(fd);
		return cuzk_fail(err, CUZK_E_FORMAT, "SRS '%s' is empty", name);
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	r = errno;
	close(fd);
	if (map == MAP_FAILED)
		return cuzk_fail_errno(err, r, "SRS '%s': mmap", name);
	/* Parameter files come from the operator; curve checks catch a corrupt
	 * file, subgroup checks would cost minutes on a 47 GB file. */
	r = groth16_params_parse_mem(ret, map, (size_t)st.st_size, name, BLS_CHECK_CURVE, err);
	munmap(map, (size_t)st.st_size);
	if (r)
		cuzk_error_prefix(err, "SRS");
	return r;
}

int cuzkd_srs_acquire(struct cuzkd_srs_cache *c, const char *name, struct cuzkd_srs **ret, cuzk_error *err)
{
	struct cuzkd_srs *s;
	groth16_params p;
	cuzk_error lerr;
	double t0;
	int r;

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
		return cuzk_fail(err, CUZK_E_NOMEM, "SRS '%s': out of memory", name);
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->state = CUZKD_SRS_LOADING;
	s->users = 1;
	s->next = c->entries;
	c->entries = s;
	c->misses++;
	pthread_mutex_unlock(&c->lock);

	t0 = monotonic_ms();
	r = load_params(c, name, &p, &lerr);

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
		ret->loading += s->state == CUZKD_SRS_LOADING;
	}
	pthread_mutex_unlock(&c->lock);
}
