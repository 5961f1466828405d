// SPDX-License-Identifier: Apache-2.0 OR MIT
/* cuzk params list: the parameter files cuzkd serves (every *.params file of
 * its srs_dir directories, and the proof kinds it has no file for), with
 * kind, shape, size and whether it is loaded.  The daemon answers STATUS
 * format PARAMS with tab-separated lines (docs/PROTOCOL.md); this prints
 * them as a table, or as they came with --tsv. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_daemon.h"
#include "cuzk.h"

#define PARAMS_FIELDS 8   /* kind name dir bytes domain inputs aux state */

/* "47.2 GiB" from a decimal byte count; "-" stays "-". */
static void human_size(const char *bytes, char *out, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = strtod(bytes, NULL);
	int u = 0;

	if (strcmp(bytes, "-") == 0) {
		snprintf(out, len, "-");
		return;
	}
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(out, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

/* "2^27" for a power of two, the number otherwise. */
static void domain_text(const char *domain, char *out, size_t len)
{
	unsigned long long m = strtoull(domain, NULL, 10);
	int log2 = 0;

	if (m == 0 || (m & (m - 1))) {
		snprintf(out, len, "%s", domain);
		return;
	}
	while ((1ull << log2) < m)
		log2++;
	snprintf(out, len, "2^%d", log2);
}

/* Splits one line at tabs into f (in place). */
static int split(char *line, char **f)
{
	int n = 0;
	for (char *save = NULL, *t = strtok_r(line, "\t", &save); t && n < PARAMS_FIELDS;
	     t = strtok_r(NULL, "\t", &save))
		f[n++] = t;
	return n;
}

static void print_table(char *text)
{
	char *save = NULL;
	int first = 1;

	printf("%-17s %-8s %-7s %-10s %-9s %-9s %s\n", "KIND", "DOMAIN", "INPUTS", "AUX", "SIZE", "STATE", "FILE");
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[PARAMS_FIELDS], size[32], domain[32], path[1024];
		if (first) {   /* the daemon's header line */
			first = 0;
			continue;
		}
		if (split(line, f) != PARAMS_FIELDS)
			continue;
		human_size(f[3], size, sizeof(size));
		domain_text(f[4], domain, sizeof(domain));
		if (strcmp(f[2], "-") == 0)
			snprintf(path, sizeof(path), "%s", f[1]);
		else
			snprintf(path, sizeof(path), "%s/%s", f[2], f[1]);
		/* An error message is the last field: the state column says
		 * "error", the line after the table row says why. */
		int bad = strncmp(f[7], "error: ", 7) == 0;
		printf("%-17s %-8s %-7s %-10s %-9s %-9s %s\n", f[0], domain, f[5], f[6], size, bad ? "error" : f[7],
		       path);
		if (bad)
			printf("    %s\n", f[7] + 7);
	}
}

static int run(int argc, char **argv, cuzk_error *err)
{
	const char *sock = NULL, *tsv = NULL;
	const struct cli_option opts[] = {
		CLI_SOCKET_OPTION(sock),
		{ "tsv", NULL, &tsv, "print the daemon's tab-separated lines as they are" },
	};
	int r;

	if (argc >= 2 && strcmp(argv[1], "list") == 0) {
		argc--;
		argv++;
	} else if (argc < 2 || (strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "-h") != 0)) {
		return cli_usage(err, "expected 'cuzk params list' (see cuzk params --help)");
	}
	r = cli_parse(&cli_cmd_params, opts, sizeof(opts) / sizeof(opts[0]), argc, argv, err);
	if (r != 0)
		return r;

	cuzk_client *c;
	char *text;
	size_t len;
	if ((r = cuzk_connect(&c, cli_daemon_socket(sock), NULL, err)) < 0)
		return r;
	r = cuzk_daemon_status(c, CUZK_STATUS_PARAMS, &text, &len, err);
	cuzk_disconnect(c);
	if (r < 0)
		return r;
	if (tsv)
		fwrite(text, 1, len, stdout);
	else
		print_table(text);
	free(text);
	return 0;
}

const struct cli_command cli_cmd_params = {
	.name = "params",
	.summary = "list the parameter files cuzkd serves: kind, shape, size, loaded",
	.usage = "list [--socket PATH] [--tsv]",
	.run = run,
};
