/* SPDX-License-Identifier: BSD-3-Clause */
/* The writers' scans (scans.c): the schedule, /ibvcap/record and /ibvcap/scan,
 * each scan's ledger, logged and summarised. */

#ifndef IBV_SCANS_H
#define IBV_SCANS_H

#include <stdbool.h>
#include <stdio.h>

#include <rte_memzone.h>
#include <rte_telemetry.h>

#include "config.h"
#include "json.h"
#include "wr_sched.h"

struct ibv_app;

/** The writers' scans: sched_own until the rings exist, then their memzone
 * (rings.c), where the dpdk-ibvcap-dump writers read it too, then own again.
 * Telemetry changes it (/ibvcap/record). */
struct ibv_scans {
	struct wr_sched *sched;
	struct wr_sched own;
	const struct rte_memzone *mz;
};

/** A schedule from c: --record, then --schedule FILE's scans, checked
 * whole. @return 0 or a negative errno, the file, line, field, value and
 * what was expected in err. */
int ibv_rec_load(const struct ibv_config *c, struct wr_sched *sched, char *err, size_t len);
/** /ibvcap/record: on, off, cancel, status; answers what it did, or why not. */
int ibv_rec_command(struct ibv_app *app, const char *params, struct rte_tel_data *d);
/** /ibvcap/scan,NAME[,WRITER]: one scan's ledger (per writer; per antenna
 * of WRITER). */
int ibv_rec_tel_scan(struct ibv_app *app, const char *params, struct rte_tel_data *d);
/** "recording": the schedule and each writer's scans, as their indexes say. */
void ibv_rec_summary_json(const struct ibv_app *app, json_t *root);
/** The main lcore's look at the scans (every 100 ms; final: at the stop,
 * the writers done): each scan logged when added, begun and ended, with
 * its ledger; each antenna's data time against the host clock. */
void ibv_rec_tick(struct ibv_app *app, FILE *f, bool final);
/** The scans' ledgers, as text (the summary). */
void ibv_rec_summary_text(const struct ibv_app *app, FILE *f);

#endif /* IBV_SCANS_H */
