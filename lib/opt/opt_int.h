/* SPDX-License-Identifier: BSD-3-Clause */
/* What lib/opt's files share and no caller sees: the row helpers of
 * opt.c that opt_help.c uses too. */
#ifndef OPT_INT_H
#define OPT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opt.h"

#define HELP_COL 25        /* where help text starts */
#define HELP_WIDTH 79
#define NAME_MAX_LEN 64
#define KV_MAX_KEYS 64     /* keys of a key=value table at most */

/* The rows of table t (up to its NULL name; 0 for NULL). */
unsigned int opt_rows_in(const struct opt_def *t);

/* The row an alias stands for (itself otherwise). */
const struct opt_def *opt_target(const struct opt_cmd *cmd, const struct opt_def *d);

/* Where row d's value is stored: at off in obj, or in ctx (d->in_ctx);
 * NULL where that one is NULL. */
void *opt_where(const struct opt_def *d, const void *obj, const void *ctx, size_t off);

/* How many words an OPT_ENUM row names. */
unsigned int opt_nnames(const struct opt_def *d);

/* Whether row d takes a value (not a flag, not an action). */
bool opt_has_value(const struct opt_def *d);

/* 1.5 s as "1.5s", 250 ms as "250ms": the shortest exact form. */
void opt_human_ns(uint64_t ns, char *buf, size_t len);

#endif
