/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/opt: a command line read through getopt_long from the table's rows,
 * with the built-in --version and --dump-options (the table checked, then
 * printed by opt_help.c). */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "opt.h"
#include "opt_int.h"

#define VAL_BASE 256       /* getopt_long's val of row i: VAL_BASE + i */
#define VAL_DUMP 255       /* the built-in --dump-options */
#define VAL_VERSION 254    /* the built-in --version */

void
opt_version(const struct opt_cmd *cmd, FILE *f)
{
	char prog[64];

	/* "codifcheck info" is codifcheck's */
	snprintf(prog, sizeof(prog), "%.*s", (int)strcspn(cmd->prog, " "), cmd->prog);
	fprintf(f, "%s (dpdk-ibvcap) %s, built with DPDK %s\n", prog, IBVCAP_VERSION,
		IBVCAP_DPDK_VERSION);
}

/* getopt_long's tables from the rows (and --dump-options, --version). */
static int
getopt_tables(const struct opt_cmd *cmd, struct option **lo, char **shorts)
{
	unsigned int n = opt_count(cmd), i, k = 0, s = 0;
	const struct opt_def *d;

	*lo = calloc(n + 3, sizeof(**lo));
	*shorts = calloc(2 * n + 2, 1);
	if (*lo == NULL || *shorts == NULL) {
		free(*lo);
		free(*shorts);
		return -ENOMEM;
	}
	(*shorts)[s++] = ':';
	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++) {
		const struct opt_def *t = opt_target(cmd, d);

		if (d->flags & OPT_F_INI)
			continue;
		(*lo)[k].name = d->name;
		(*lo)[k].has_arg = opt_has_value(t) ? required_argument : no_argument;
		(*lo)[k].val = VAL_BASE + (int)i;
		k++;
		if (d->letter != 0) {
			(*shorts)[s++] = (char)d->letter;
			if (opt_has_value(t))
				(*shorts)[s++] = ':';
		}
	}
	(*lo)[k].name = "dump-options";
	(*lo)[k].has_arg = no_argument;
	(*lo)[k].val = VAL_DUMP;
	k++;
	(*lo)[k].name = "version";
	(*lo)[k].has_arg = no_argument;
	(*lo)[k].val = VAL_VERSION;
	return 0;
}

static const struct opt_def *
row_of_val(const struct opt_cmd *cmd, int c)
{
	const struct opt_def *d;
	unsigned int i;

	if (c >= VAL_BASE)
		return opt_row(cmd, (unsigned int)(c - VAL_BASE));
	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++)
		if (d->letter == c && !(d->flags & OPT_F_INI))
			return d;
	return NULL;
}

void
opt_scan_argv(const struct opt_cmd *cmd, int argc, char **argv,
	      void (*fn)(const struct opt_def *d, const char *val, void *arg), void *arg)
{
	struct option *lo;
	char *shorts;
	int c;

	if (getopt_tables(cmd, &lo, &shorts) != 0)
		return;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct opt_def *d = c == '?' || c == ':' ? NULL : row_of_val(cmd, c);

		if (d != NULL)
			fn(d, optarg, arg);
	}
	free(lo);
	free(shorts);
}

int
opt_parse_argv(const struct opt_cmd *cmd, void *obj, void *ctx, int argc, char **argv,
	       int *first_arg, char *err, size_t errlen)
{
	struct option *lo;
	char *shorts;
	int c, rc = 0;

	if (getopt_tables(cmd, &lo, &shorts) != 0)
		return err_set(err, errlen, -ENOMEM, "%s: out of memory", cmd->prog);
	optind = 0;
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct opt_def *d;
		char shortopt[3] = { '-', (char)optopt, '\0' };
		/* getopt_long names no unknown long option; a short one is optopt */
		const char *arg = c == '?' && optopt > 0 && optopt < VAL_VERSION ? shortopt :
				  argv[optind - 1];

		if (c == '?') {
			rc = err_set(err, errlen, -ENOENT, "%s option '%s' (try %s --help)",
				  cmd->unknown ? cmd->unknown : "unknown", arg, cmd->prog);
		} else if (c == ':') {
			rc = err_set(err, errlen, -EINVAL, "option '%s' needs a value (try %s --help)",
				  argv[optind - 1], cmd->prog);
		} else if (c == VAL_VERSION) {
			opt_version(cmd, stdout);
			rc = 1;
		} else if (c == VAL_DUMP) {
			/* the table is checked first: a test that reads it fails */
			rc = opt_cmd_check(cmd, err, errlen);
			if (rc == 0) {
				opt_dump(cmd, stdout);
				rc = 1;
			}
		} else if ((d = row_of_val(cmd, c)) != NULL) {
			rc = opt_set(cmd, d, obj, ctx, optarg, err, errlen);
		}
	}
	free(lo);
	free(shorts);
	if (first_arg != NULL)
		*first_arg = optind;
	if (rc == 0 && !(cmd->flags & OPT_CMD_ARGS) && optind < argc)
		rc = err_set(err, errlen, -EINVAL, "unexpected argument '%s' (options start with --; "
			  "try %s --help)", argv[optind], cmd->prog);
	return rc;
}
