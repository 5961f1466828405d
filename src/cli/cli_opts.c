// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Option parsing shared by every subcommand: long options only, as
 * "--name ARG" or "--name=ARG", so the command lines in scripts read the same
 * everywhere. */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bls12_381/encoding.h"
#include "prover/backend.h"

static void print_help(const struct cli_command *cmd, const struct cli_option *opts, size_t n_opts)
{
	printf("usage: cuzk %s %s\n\n%s\n\noptions:\n", cmd->name, cmd->usage, cmd->summary);
	for (size_t i = 0; i < n_opts; i++) {
		char left[64];
		snprintf(left, sizeof(left), "--%s%s%s", opts[i].name, opts[i].arg ? " " : "",
			 opts[i].arg ? opts[i].arg : "");
		printf("  %-30s %s\n", left, opts[i].help);
	}
	printf("  %-30s %s\n", "--help", "show this help");
}

static const struct cli_option *find_option(const struct cli_option *opts, size_t n_opts,
					    const char *name, size_t name_len)
{
	for (size_t i = 0; i < n_opts; i++)
		if (strlen(opts[i].name) == name_len && memcmp(opts[i].name, name, name_len) == 0)
			return &opts[i];
	return NULL;
}

int cli_parse(const struct cli_command *cmd, const struct cli_option *opts, size_t n_opts,
	      int argc, char **argv, cuzk_error *err)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			print_help(cmd, opts, n_opts);
			return CLI_HELP_SHOWN;
		}
		if (strncmp(a, "--", 2) != 0 || a[2] == '\0')
			return cli_usage(err, "unexpected argument '%s' (see cuzk %s --help)",
					 a, cmd->name);
		const char *name = a + 2;
		const char *eq = strchr(name, '=');
		size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
		const struct cli_option *o = find_option(opts, n_opts, name, name_len);
		if (!o)
			return cli_usage(err, "unknown option '--%.*s' (see cuzk %s --help)",
					 (int)name_len, name, cmd->name);
		if (!o->arg) {
			if (eq)
				return cli_usage(err, "option '--%s' takes no argument", o->name);
			*o->value = "1";
		} else if (eq) {
			*o->value = eq + 1;
		} else if (i + 1 < argc) {
			*o->value = argv[++i];
		} else {
			return cli_usage(err, "option '--%s' needs an argument %s", o->name,
					 o->arg);
		}
		if (o->arg && (*o->value)[0] == '\0')
			return cli_usage(err, "option '--%s' has an empty argument", o->name);
	}
	return 0;
}

int cli_usage(cuzk_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err) {
		err->code = CUZK_E_INVAL;
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	}
	va_end(ap);
	return CLI_E_USAGE;
}

int cli_require(const char *name, const char *value, cuzk_error *err)
{
	if (!value)
		return cli_usage(err, "--%s is required", name);
	return 0;
}

int cli_parse_u64(const char *name, const char *value, uint64_t min, uint64_t max, uint64_t *ret,
		  cuzk_error *err)
{
	if (!value)
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(value, &end, 10);
	if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno == ERANGE)
		return cli_usage(err, "--%s '%s' is not a decimal number", name, value);
	if (v < min || v > max)
		return cli_usage(err, "--%s %llu is out of range [%" PRIu64 ", %" PRIu64 "]",
				 name, v, min, max);
	*ret = v;
	return 0;
}

int cli_write_file(const char *path, const void *buf, size_t len, cuzk_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return err_fail_errno(err, errno, "%s: cannot create", path);
	const unsigned char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return err_fail_errno(err, e, "%s: write", path);
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) < 0)
		return err_fail_errno(err, errno, "%s: close", path);
	return 0;
}

double cli_cpu_ms(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

double cli_sys_ms(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec / 1e3;
}

/* --params-check: how much of each query point decoding verifies.  The
 * default leaves out the subgroup checks: they cost seconds per 10^5 points
 * (4x the whole proof at 2^14) and guard nothing the prover needs, since a
 * query point outside the subgroup only yields a proof that fails to
 * verify; the VK, which verification trusts, is always checked in full. */
int cli_parse_params_check(const char *s, unsigned *ret, cuzk_error *err)
{
	if (!s || strcmp(s, "curve") == 0)
		*ret = BLS_CHECK_CURVE;
	else if (strcmp(s, "all") == 0)
		*ret = BLS_CHECK_ALL;
	else if (strcmp(s, "none") == 0)
		*ret = BLS_CHECK_NONE;
	else
		return cli_usage(err, "--params-check '%s': expected all, curve or none", s);
	return 0;
}

int cli_backend_find(const struct groth16_backend **ret, const char *name, cuzk_error *err)
{
	int r = groth16_backend_find(ret, name, err);
	if (r == -CUZK_E_INVAL)
		return cli_usage(err, "--backend '%s': expected auto, cpu or gpu", name);
	return r;
}
