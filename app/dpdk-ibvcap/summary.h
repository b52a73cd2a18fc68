/* SPDX-License-Identifier: BSD-3-Clause */
/* The end-of-run summary (summary.c): text on stdout, JSON for --summary-json. */

#ifndef IBV_SUMMARY_H
#define IBV_SUMMARY_H

#include <stdio.h>

struct ibv_app;

/** The summary as text (the rx lcores and writers stopped). */
void ibv_summary(const struct ibv_app *app, FILE *f);
/** The summary as JSON into path. @return 0, or -1 (said on stderr). */
int ibv_summary_json(const struct ibv_app *app, const char *path);

#endif /* IBV_SUMMARY_H */
