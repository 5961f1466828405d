// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The parameter files the daemon serves, for `cuzk params list` (STATUS
 * format PARAMS, docs/PROTOCOL.md): one tab-separated line per *.params file
 * of the srs_dir directories (the first directory that has a name wins, as
 * for requests), then one per proof kind whose file is in none of them.
 *
 * The shape comes from six counts read with pread from the file's section
 * headers, on the event loop: microseconds per file from the page cache, a
 * few disk seeks per file when cold.  The directories are the operator's, so
 * a listing is bounded (CUZKD_SRS_LIST_MAX files per directory) rather than
 * moved off the loop. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/srs_cache.h"
#include "formats/params_io.h"
#include "ipc/kinds.h"

#define CUZKD_SRS_LIST_MAX 256
#define PARAMS_SUFFIX ".params"

struct listed {
	char name[CUZKD_SRS_NAME_MAX + 1];
	unsigned dir;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct listed *)a)->name, ((const struct listed *)b)->name);
}

static int is_params_name(const char *name)
{
	size_t n = strlen(name), k = strlen(PARAMS_SUFFIX);
	return n > k && strcmp(name + n - k, PARAMS_SUFFIX) == 0 &&
	       cuzkd_srs_name_check(name, CUZKD_SRS_NAME_MAX + 1, NULL) == 0;
}

static int seen(const struct listed *l, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(l[i].name, name) == 0)
			return 1;
	return 0;
}

/* Appends directory i's *.params names not listed yet (up to the bound). */
static size_t collect(const struct cuzkd_srs_cache *c, unsigned i, struct listed *l, size_t n, size_t cap)
{
	size_t from_here = 0;
	int fd = dup(c->dirs[i].fd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return n;
	}
	rewinddir(dir);   /* the dup shares its offset with every earlier listing */
	while ((e = readdir(dir)) && n < cap && from_here < CUZKD_SRS_LIST_MAX) {
		if (!is_params_name(e->d_name) || seen(l, n, e->d_name))
			continue;
		snprintf(l[n].name, sizeof(l[n].name), "%s", e->d_name);
		l[n++].dir = i;
		from_here++;
	}
	closedir(dir);
	return n;
}

/* One line for a file found: shape from its counts, or what is wrong. */
static void file_line(struct cuzkd_srs_cache *c, FILE *f, const struct listed *l)
{
	const struct kind *kind = kind_by_params(l->name);
	const char *dir = c->dirs[l->dir].path;
	groth16_params_counts n;
	cuzk_error err;
	struct stat st;
	int fd, r;

	fprintf(f, "%s\t%s\t%s\t", kind ? kind->name : "-", l->name, dir);
	r = cuzkd_srs_open(c, l->name, &fd, NULL, NULL, &err);
	if (r == 0) {
		r = fstat(fd, &st) < 0 ? err_fail(&err, CUZK_E_IO, "fstat failed")
				       : groth16_params_counts_fd(&n, fd, (uint64_t)st.st_size, l->name, &err);
		close(fd);
	}
	if (r < 0) {
		/* One line, one field: a tab or newline in a message would break it. */
		for (char *p = err.msg; *p; p++)
			if (*p == '\t' || *p == '\n')
				*p = ' ';
		fprintf(f, "-\t-\t-\t-\terror: %s\n", err.msg);
		return;
	}
	const char *state = cuzkd_srs_state(c, l->name);
	fprintf(f, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n", (uint64_t)st.st_size, n.n_h + 1,
		n.n_ic, n.n_l, state ? state : "available");
}

char *cuzkd_srs_list_text(struct cuzkd_srs_cache *c)
{
	size_t cap = (size_t)CUZKD_SRS_LIST_MAX * CUZKD_MAX_SRS_DIRS, n = 0, len;
	struct listed *l = calloc(cap, sizeof(*l));
	char *text = NULL;
	FILE *f;

	if (!l)
		return NULL;
	f = open_memstream(&text, &len);
	if (!f) {
		free(l);
		return NULL;
	}
	for (unsigned i = 0; i < c->n_dirs; i++)
		if (c->dirs[i].fd >= 0)
			n = collect(c, i, l, n, cap);
	qsort(l, n, sizeof(*l), by_name);
	fprintf(f, "kind\tname\tdir\tbytes\tdomain\tinputs\taux\tstate\n");
	for (size_t i = 0; i < n; i++)
		file_line(c, f, &l[i]);
	for (const struct kind *k = kind_table; k->name; k++)
		if (!seen(l, n, k->params))
			fprintf(f, "%s\t%s\t-\t-\t-\t-\t-\tabsent\n", k->name, k->params);
	free(l);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
