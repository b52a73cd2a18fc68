/* SPDX-License-Identifier: BSD-3-Clause */
/* The end-of-run summary (summary.c): text on stdout, JSON for --summary-json. */

#ifndef IBV_SUMMARY_H
#define IBV_SUMMARY_H

#include <stdio.h>

struct ibv_config;
struct ibv_counts_src;
struct ibv_ledger;
struct ibv_lcores;
struct ibv_pl;
struct ibv_ports;
struct ibv_ql;
struct ibv_rings;
struct ibv_run;

/** What the summary reads: every component, at the end (main.c). */
struct ibv_summary_src {
	const struct ibv_config *cfg;
	const struct ibv_run *run;
	const struct ibv_counts_src *counts;
	const struct ibv_lcores *lcores;
	const struct ibv_ports *ports;
	const struct ibv_rings *rings;
	const struct ibv_pl *pl;
	const struct ibv_ql *ql;
	const struct ibv_ledger *ledger;
};

/** The summary as text (the rx lcores and writers stopped). */
void ibv_summary(const struct ibv_summary_src *sm, FILE *f);
/** The summary as JSON into path. @return 0, or -1 (said on stderr). */
int ibv_summary_json(const struct ibv_summary_src *sm, const char *path);

#endif /* IBV_SUMMARY_H */
