/* SPDX-License-Identifier: BSD-3-Clause */
/* INI files of an option table (DPDK's rte_cfgfile): every key is a row, the command line wins. */

#ifndef OPT_INI_H
#define OPT_INI_H

#include "opt.h"

/*
 * A file holds "[section]" lines and "key = value" lines, keys being the
 * rows' long names. A key may stand in any section (sections group keys
 * for the reader), except a row's own section where it is OPT_F_SECTION
 * ([eal] args): such a section holds only its own keys. A key given twice
 * appends (lists) or overrides. Command-line-only rows (OPT_F_CLI) are
 * refused as keys. Errors name the file, section, key and value.
 */

/**
 * Apply every key of the INI file path to obj/ctx.
 *
 * @return 0; -ENOENT (unreadable: errno's text), -EINVAL (not an INI
 *   file, an unknown or command-line-only key, a missing value, or a bad
 *   value), -ERANGE, -E2BIG or -ENOMEM, with "FILE: [SECTION] ..." in err.
 */
int opt_ini_load(const struct opt_cmd *cmd, void *obj, void *ctx, const char *path,
		 char *err, size_t errlen);

/**
 * opt_parse_argv with the INI files of the OPT_F_CONFIG row (--config
 * FILE, wherever it is) loaded first, in order; then the command line,
 * which wins: where it gives an option (or another of its .family), the
 * files' values of that option (family) are checked, against a scratch
 * configuration from cmd->defaults, and not used, so a list on the
 * command line replaces the file's.
 *
 * @return as opt_parse_argv, and opt_ini_load's errors.
 */
int opt_ini_parse_argv(const struct opt_cmd *cmd, void *obj, void *ctx, int argc, char **argv,
		       int *first_arg, char *err, size_t errlen);

#endif /* OPT_INI_H */
