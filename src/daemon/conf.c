// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The INI configuration of cuzkd (inih).  Every key is validated where it is
 * read so that the error can name its line. */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "daemon/conf.h"

void cuzkd_config_defaults(struct cuzkd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->socket, sizeof(cfg->socket), "%s", CUZK_DEFAULT_SOCKET);
	snprintf(cfg->srs_dir, sizeof(cfg->srs_dir), "%s", CUZKD_DEFAULT_SRS_DIRS);
	cfg->backend = CUZKD_BACKEND_AUTO;
	cfg->drain_timeout_ms = 60000;
	cfg->watchdog = 1;
	cfg->max_clients = 64;
	cfg->max_inflight_per_client = 16;
	cfg->max_inflight_total = 256;
	cfg->max_pinned_bytes_per_client = 192ull << 30;
	cfg->max_pinned_bytes_total = 512ull << 30;
	cfg->max_witness_bytes = 192ull << 30;
	cfg->max_clients_per_uid = 16;
	cfg->max_inflight_per_uid = 64;
	cfg->max_pinned_bytes_per_uid = 256ull << 30;
	cfg->max_buffers_per_uid = 64;
	cfg->max_buffers_total = 1024;
	cfg->hello_timeout_ms = 10000;
	cfg->idle_timeout_ms = 600000;
	cfg->n_priority_uids = 1;
	cfg->priority_uids[0] = 0;
	cfg->priority_own_group = 1;
	cfg->cpu_workers = 1;
	cfg->cpu_devices = 1;
	cfg->devices_all = 1;
	cfg->workers_per_device = 2;
	cfg->vram_budget = 0;
	cfg->starvation_limit = 8;
	cfg->verify = 1;
	cfg->cache_budget = 128ull << 30;
	cfg->log_level = CUZKD_LOG_INFO;
}

int cuzkd_parse_uint(const char *s, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*ret = v;
	return 0;
}

int cuzkd_parse_size(const char *s, uint64_t *ret)
{
	char num[32];
	size_t n = strlen(s);
	unsigned shift = 0;
	uint64_t v;

	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'K': case 'k': shift = 10; break;
	case 'M': case 'm': shift = 20; break;
	case 'G': case 'g': shift = 30; break;
	case 'T': case 't': shift = 40; break;
	default: break;
	}
	if (shift)
		num[n - 1] = '\0';
	if (cuzkd_parse_uint(num, UINT64_MAX >> shift, &v))
		return -1;
	*ret = v << shift;
	return 0;
}

/* "500ms", "30s", "30" (seconds), "5m". */
static int parse_duration_ms(const char *s, uint64_t *ret)
{
	char num[32];
	size_t n = strlen(s);
	uint64_t mul = 1000, v;

	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n + 1);
	if (n > 2 && strcmp(num + n - 2, "ms") == 0) {
		mul = 1;
		num[n - 2] = '\0';
	} else if (num[n - 1] == 's') {
		num[n - 1] = '\0';
	} else if (num[n - 1] == 'm') {
		mul = 60000;
		num[n - 1] = '\0';
	}
	if (cuzkd_parse_uint(num, UINT64_MAX / 60000, &v))
		return -1;
	*ret = v * mul;
	return 0;
}

static int parse_bool(const char *s, int *ret)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (strcmp(s, yes[i]) == 0) {
			*ret = 1;
			return 0;
		}
		if (strcmp(s, no[i]) == 0) {
			*ret = 0;
			return 0;
		}
	}
	return -1;
}

int cuzkd_parse_backend(const char *s, enum cuzkd_backend *ret)
{
	if (strcmp(s, "auto") == 0)
		*ret = CUZKD_BACKEND_AUTO;
	else if (strcmp(s, "cpu") == 0)
		*ret = CUZKD_BACKEND_CPU;
	else if (strcmp(s, "gpu") == 0)
		*ret = CUZKD_BACKEND_GPU;
	else
		return -1;
	return 0;
}

int cuzkd_parse_dirs(const char *s, int relative_ok, char *ret, size_t len)
{
	char buf[CUZKD_PATH_MAX], out[CUZKD_PATH_MAX] = "";
	char *save = NULL;
	size_t n = strlen(s), at = 0;
	unsigned count = 0;

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	for (char *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		size_t wl = strlen(w);
		if ((w[0] != '/' && !relative_ok) || ++count > CUZKD_MAX_SRS_DIRS || at + wl + 2 > sizeof(out))
			return -1;
		at += (size_t)snprintf(out + at, sizeof(out) - at, "%s%s", at ? " " : "", w);
	}
	if (count == 0 || at >= len)
		return -1;
	memcpy(ret, out, at + 1);
	return 0;
}

const char *cuzkd_backend_name(enum cuzkd_backend b)
{
	switch (b) {
	case CUZKD_BACKEND_CPU: return "cpu";
	case CUZKD_BACKEND_GPU: return "gpu";
	default: return "auto";
	}
}

static const char *const level_names[] = {
	[CUZKD_LOG_ERR] = "err", [CUZKD_LOG_WARNING] = "warning", [CUZKD_LOG_NOTICE] = "notice",
	[CUZKD_LOG_INFO] = "info", [CUZKD_LOG_DEBUG] = "debug",
};

static int parse_level(const char *s, enum cuzkd_log_level *ret)
{
	for (int l = CUZKD_LOG_ERR; l <= CUZKD_LOG_DEBUG; l++) {
		if (strcmp(s, level_names[l]) == 0) {
			*ret = (enum cuzkd_log_level)l;
			return 0;
		}
	}
	return -1;
}

/* Splits a whitespace/comma separated list in place; calls fn per word. */
typedef int (*word_fn)(struct cuzkd_config *cfg, const char *word);

static int for_each_word(struct cuzkd_config *cfg, const char *value, word_fn fn)
{
	char buf[1024];
	char *save = NULL;
	size_t n = strlen(value);

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, value, n + 1);
	for (char *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		if (fn(cfg, w))
			return -1;
	}
	return 0;
}

static int add_device(struct cuzkd_config *cfg, const char *word)
{
	uint64_t v;

	if (cfg->n_devices >= CUZKD_MAX_DEVICES || cuzkd_parse_uint(word, 1023, &v))
		return -1;
	for (uint32_t i = 0; i < cfg->n_devices; i++)
		if (cfg->devices[i] == (int)v)
			return -1;
	cfg->devices[cfg->n_devices++] = (int)v;
	return 0;
}

static int user_id(const char *name, uint32_t *ret)
{
	struct passwd pw, *found = NULL;
	char buf[4096];

	if (getpwnam_r(name, &pw, buf, sizeof(buf), &found) != 0 || !found)
		return -1;
	*ret = (uint32_t)found->pw_uid;
	return 0;
}

static int group_id(const char *name, uint32_t *ret)
{
	struct group gr, *found = NULL;
	char buf[4096];

	if (getgrnam_r(name, &gr, buf, sizeof(buf), &found) != 0 || !found)
		return -1;
	*ret = (uint32_t)found->gr_gid;
	return 0;
}

/* A user or group, by number or by name (resolved now), into list. */
static int add_id(uint32_t *list, uint32_t *n, const char *word, int (*by_name)(const char *, uint32_t *))
{
	uint64_t v;
	uint32_t id;

	if (*n >= CUZKD_MAX_PRIORITY_IDS)
		return -1;
	if (cuzkd_parse_uint(word, UINT32_MAX - 1, &v) == 0)
		id = (uint32_t)v;
	else if (by_name(word, &id))
		return -1;
	list[(*n)++] = id;
	return 0;
}

static int add_user(struct cuzkd_config *cfg, const char *word)
{
	return add_id(cfg->priority_uids, &cfg->n_priority_uids, word, user_id);
}

/* "self" is cuzkd's own group, resolved when it runs. */
static int add_group(struct cuzkd_config *cfg, const char *word)
{
	if (strcmp(word, "self") == 0) {
		cfg->priority_own_group = 1;
		return 0;
	}
	return add_id(cfg->priority_gids, &cfg->n_priority_gids, word, group_id);
}

static int add_preload(struct cuzkd_config *cfg, const char *word)
{
	if (cfg->n_preload >= CUZKD_MAX_PRELOAD || strlen(word) > CUZKD_SRS_NAME_MAX)
		return -1;
	snprintf(cfg->preload[cfg->n_preload++], CUZKD_SRS_NAME_MAX + 1, "%s", word);
	return 0;
}

struct parse_state {
	struct cuzkd_config *cfg;
	FILE *f;
	int line;                    /* of the text inih is looking at */
	int mid_line;                /* the last read stopped before a newline */
	int msg_line;                /* where msg was found */
	char msg[CUZK_ERRMSG_MAX];   /* first error, without the file:line prefix */
};

enum key_kind { K_PATH, K_DIRS, K_BACKEND, K_DURATION, K_BOOL, K_COUNT, K_SIZE, K_DEVICES, K_PRELOAD, K_LEVEL,
		K_USERS, K_GROUPS };

struct key_def {
	const char *section, *name;
	enum key_kind kind;
	size_t off;
	const char *expect;          /* for messages: what a good value looks like */
};

#define OFF(f) offsetof(struct cuzkd_config, f)
static const struct key_def keys[] = {
	{ "daemon", "socket", K_PATH, OFF(socket), "an absolute path" },
	{ "daemon", "srs_dir", K_DIRS, OFF(srs_dir), "1 to 8 absolute paths" },
	{ "daemon", "backend", K_BACKEND, OFF(backend), "cpu, gpu or auto" },
	{ "daemon", "drain_timeout", K_DURATION, OFF(drain_timeout_ms), "a duration like 60s, 500ms or 5m" },
	{ "daemon", "watchdog", K_BOOL, OFF(watchdog), "yes or no" },
	{ "limits", "max_clients", K_COUNT, OFF(max_clients), "an integer 1..65536" },
	{ "limits", "max_inflight_per_client", K_COUNT, OFF(max_inflight_per_client), "an integer 1..65536" },
	{ "limits", "max_inflight_total", K_COUNT, OFF(max_inflight_total), "an integer 1..65536" },
	{ "limits", "max_pinned_bytes_per_client", K_SIZE, OFF(max_pinned_bytes_per_client), "a size like 64G" },
	{ "limits", "max_pinned_bytes_total", K_SIZE, OFF(max_pinned_bytes_total), "a size like 512G" },
	{ "limits", "max_witness_bytes", K_SIZE, OFF(max_witness_bytes), "a size like 192G" },
	{ "limits", "max_clients_per_uid", K_COUNT, OFF(max_clients_per_uid), "an integer 1..65536" },
	{ "limits", "max_inflight_per_uid", K_COUNT, OFF(max_inflight_per_uid), "an integer 1..65536" },
	{ "limits", "max_pinned_bytes_per_uid", K_SIZE, OFF(max_pinned_bytes_per_uid), "a size like 256G" },
	{ "limits", "max_buffers_per_uid", K_COUNT, OFF(max_buffers_per_uid), "an integer 1..65536" },
	{ "limits", "max_buffers_total", K_COUNT, OFF(max_buffers_total), "an integer 1..65536" },
	{ "limits", "hello_timeout", K_DURATION, OFF(hello_timeout_ms), "a duration like 10s or 500ms" },
	{ "limits", "idle_timeout", K_DURATION, OFF(idle_timeout_ms), "a duration like 10m, or 0 for never" },
	{ "limits", "priority_users", K_USERS, 0, "a list of user names or uids" },
	{ "limits", "priority_groups", K_GROUPS, 0, "a list of group names or gids, or self" },
	{ "engine", "cpu_workers", K_COUNT, OFF(cpu_workers), "an integer 1..65536" },
	{ "engine", "cpu_devices", K_COUNT, OFF(cpu_devices), "an integer 1..65536" },
	{ "engine", "devices", K_DEVICES, 0, "all, or a list of device numbers" },
	{ "engine", "workers_per_device", K_COUNT, OFF(workers_per_device), "an integer 1..65536" },
	{ "engine", "vram_budget", K_SIZE, OFF(vram_budget), "a size like 80G, or 0 for all free memory" },
	{ "engine", "starvation_limit", K_COUNT, OFF(starvation_limit), "an integer 1..65536" },
	{ "engine", "verify", K_BOOL, OFF(verify), "yes or no" },
	{ "srs", "cache_budget", K_SIZE, OFF(cache_budget), "a size like 128G" },
	{ "srs", "preload", K_PRELOAD, 0, "a list of SRS file names" },
	{ "log", "level", K_LEVEL, OFF(log_level), "err, warning, notice, info or debug" },
};
#undef OFF

static int set_value(struct cuzkd_config *cfg, const struct key_def *k, const char *value)
{
	char *field = (char *)cfg + k->off;
	uint64_t v;

	switch (k->kind) {
	case K_PATH:
		if (value[0] != '/' || strlen(value) >= CUZKD_PATH_MAX)
			return -1;
		memcpy(field, value, strlen(value) + 1);
		return 0;
	case K_DIRS:
		return cuzkd_parse_dirs(value, 0, field, CUZKD_PATH_MAX);
	case K_BACKEND:
		return cuzkd_parse_backend(value, (enum cuzkd_backend *)field);
	case K_DURATION:
		return parse_duration_ms(value, (uint64_t *)field);
	case K_BOOL:
		return parse_bool(value, (int *)field);
	case K_COUNT:
		if (cuzkd_parse_uint(value, 65536, &v) || v == 0)
			return -1;
		*(uint32_t *)field = (uint32_t)v;
		return 0;
	case K_SIZE:
		return cuzkd_parse_size(value, (uint64_t *)field);
	case K_DEVICES:
		cfg->n_devices = 0;
		cfg->devices_all = strcmp(value, "all") == 0;
		if (cfg->devices_all)
			return 0;
		return for_each_word(cfg, value, add_device) || cfg->n_devices == 0 ? -1 : 0;
	case K_PRELOAD:
		cfg->n_preload = 0;
		return for_each_word(cfg, value, add_preload);
	case K_LEVEL:
		return parse_level(value, (enum cuzkd_log_level *)field);
	case K_USERS:
		cfg->n_priority_uids = 0;
		return for_each_word(cfg, value, add_user);
	case K_GROUPS:
		cfg->n_priority_gids = 0;
		cfg->priority_own_group = 0;
		return for_each_word(cfg, value, add_group);
	}
	return -1;
}

/* The section a key of that name belongs to, or NULL. */
static const char *home_of(const char *name)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, name) == 0)
			return keys[i].section;
	return NULL;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parse_state *st = user;
	const char *home = home_of(name);
	int known_section = 0;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(keys[i].section, section) != 0)
			continue;
		known_section = 1;
		if (strcmp(keys[i].name, name) != 0)
			continue;
		if (set_value(st->cfg, &keys[i], value) == 0)
			return 1;
		if (!st->msg[0]) {
			snprintf(st->msg, sizeof(st->msg), "bad value '%.64s' for %s in [%s]: expected %s",
				 value, name, section, keys[i].expect);
			st->msg_line = st->line;
		}
		return 0;
	}
	if (st->msg[0])
		return 0;
	st->msg_line = st->line;
	if (!section[0])
		snprintf(st->msg, sizeof(st->msg), "key '%.64s' before any [section]%s%s%s", name,
			 home ? " (it belongs in [" : "", home ? home : "", home ? "])" : "");
	else if (!known_section)
		snprintf(st->msg, sizeof(st->msg), "unknown section [%.64s] (the sections are [daemon], [limits], "
			 "[engine], [srs] and [log])", section);
	else
		snprintf(st->msg, sizeof(st->msg), "unknown key '%.64s' in [%s]%s%s%s", name, section,
			 home ? " (it belongs in [" : "", home ? home : "", home ? "])" : "");
	return 0;
}

/* inih's reader, counting lines so that the handler's errors know theirs. */
static char *read_line(char *buf, int size, void *user)
{
	struct parse_state *st = user;
	char *r = fgets(buf, size, st->f);
	if (r) {
		st->line += !st->mid_line;
		st->mid_line = r[strlen(r) - 1] != '\n';
	}
	return r;
}

/* inih found a line it cannot read before any error of ours: say what is
 * wrong with it (the line is read again, as inih read it). */
static void describe_syntax_error(struct parse_state *st, int line)
{
	char *text = NULL;
	size_t cap = 0;
	int n = 0;

	rewind(st->f);
	while (n < line && getline(&text, &cap, st->f) >= 0)
		n++;
	if (n < line) {
		free(text);
		snprintf(st->msg, sizeof(st->msg), "syntax error (expected 'key = value' or '[section]')");
		return;
	}
	text[strcspn(text, "\r\n")] = '\0';
	const char *t = text + strspn(text, " \t");
	if (*t == '[')
		snprintf(st->msg, sizeof(st->msg), "'%.64s': a section header needs its closing ']'", t);
	else
		snprintf(st->msg, sizeof(st->msg), "syntax error in '%.64s': expected 'key = value' or '[section]'",
			 t);
	free(text);
}

int cuzkd_config_load(struct cuzkd_config *cfg, const char *path, int missing_ok, cuzk_error *err)
{
	struct parse_state st = { .cfg = cfg };
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int line;

	st.f = fopen(path, "re");
	if (!st.f) {
		if (errno == ENOENT && missing_ok)
			return 0;
		return err_fail_errno(err, errno, "%s", path);
	}
	line = ini_parse_stream(read_line, &st, on_key, &st);
	/* inih goes on after its own syntax errors (a line without '=', a
	 * section without ']') and reports the first line at fault; ours may
	 * come from a later line, which the earlier error explains. */
	if (line > 0 && (!st.msg[0] || st.msg_line != line))
		describe_syntax_error(&st, line);
	fclose(st.f);
	if (line == 0)
		return 0;
	if (line < 0)
		return err_fail(err, CUZK_E_NOMEM, "%s: cannot parse (out of memory)", path);
	return err_fail(err, CUZK_E_INVAL, "%s:%d: %s", base, line, st.msg);
}

const char *cuzkd_format_size(char buf[CUZKD_FORMAT_MAX], uint64_t v)
{
	static const char units[] = "TGMK";

	for (int i = 0; i < 4; i++) {
		unsigned shift = 40 - 10 * (unsigned)i;
		if (v && v % (UINT64_C(1) << shift) == 0) {
			snprintf(buf, CUZKD_FORMAT_MAX, "%" PRIu64 "%c", v >> shift, units[i]);
			return buf;
		}
	}
	snprintf(buf, CUZKD_FORMAT_MAX, "%" PRIu64, v);
	return buf;
}

const char *cuzkd_format_duration(char buf[CUZKD_FORMAT_MAX], uint64_t ms)
{
	if (ms % 1000 == 0)
		snprintf(buf, CUZKD_FORMAT_MAX, "%" PRIu64 "s", ms / 1000);
	else
		snprintf(buf, CUZKD_FORMAT_MAX, "%" PRIu64 "ms", ms);
	return buf;
}

/* One key's value as the file would write it, each word after a space (an
 * empty list prints nothing). */
static void print_value(const struct cuzkd_config *c, const struct key_def *k, FILE *out)
{
	const char *field = (const char *)c + k->off;
	char buf[CUZKD_FORMAT_MAX];

	switch (k->kind) {
	case K_PATH:
	case K_DIRS: fprintf(out, " %s", field); break;   /* a list is held as the file writes it */
	case K_BACKEND: fprintf(out, " %s", cuzkd_backend_name(*(const enum cuzkd_backend *)field)); break;
	case K_DURATION: fprintf(out, " %s", cuzkd_format_duration(buf, *(const uint64_t *)field)); break;
	case K_BOOL: fprintf(out, " %s", *(const int *)field ? "yes" : "no"); break;
	case K_COUNT: fprintf(out, " %u", *(const uint32_t *)field); break;
	case K_SIZE: fprintf(out, " %s", cuzkd_format_size(buf, *(const uint64_t *)field)); break;
	case K_DEVICES:
		if (c->devices_all)
			fprintf(out, " all");
		for (uint32_t i = 0; i < c->n_devices; i++)
			fprintf(out, " %d", c->devices[i]);
		break;
	case K_PRELOAD:
		for (uint32_t i = 0; i < c->n_preload; i++)
			fprintf(out, " %s", c->preload[i]);
		break;
	case K_LEVEL: fprintf(out, " %s", level_names[*(const enum cuzkd_log_level *)field]); break;
	case K_USERS:
		for (uint32_t i = 0; i < c->n_priority_uids; i++)
			fprintf(out, " %u", c->priority_uids[i]);
		break;
	case K_GROUPS:
		if (c->priority_own_group)
			fprintf(out, " self");
		for (uint32_t i = 0; i < c->n_priority_gids; i++)
			fprintf(out, " %u", c->priority_gids[i]);
		break;
	}
}

void cuzkd_config_print(const struct cuzkd_config *c, FILE *out)
{
	const char *section = NULL;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!section || strcmp(section, keys[i].section) != 0) {
			section = keys[i].section;
			fprintf(out, "%s[%s]\n", i ? "\n" : "", section);
		}
		fprintf(out, "%s =", keys[i].name);
		print_value(c, &keys[i], out);
		fputc('\n', out);
	}
}
