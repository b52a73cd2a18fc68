/* SPDX-License-Identifier: BSD-3-Clause */
/* The scan ledger (ledger.c): per scan and writer, the frames its span
 * should hold, recorded, and missing by cause; kept by the main lcore
 * (ibv_rec_tick), read by telemetry and the summary. */

#ifndef IBV_LEDGER_H
#define IBV_LEDGER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_telemetry.h>

#include "json.h"

struct ibv_app;

/** CLOCK_REALTIME in ns: the host clock scans are compared with. */
int64_t ibv_scan_now_ns(void);
/** A scan's time into the dict d as UTC text ("open": no stop). */
void ibv_scan_tel_time(struct rte_tel_data *d, const char *key, int64_t t);
/** The ledgers of the scans ended, as /ibvcap/record status's ledger_*
 * arrays, and each antenna's data time against the host clock, into d. */
void ibv_ledger_tel(const struct ibv_app *app, struct rte_tel_data *d);
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

#endif /* IBV_LEDGER_H */
