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

#include "config.h"
#include "json.h"
#include "shm.h"
#include "wr_sched.h"

struct ibv_counts_src;
struct ibv_lcores;
struct ibv_rings;
struct ibv_scans;
struct ibv_writers;

/** What the ledger reads of the other components (main.c sets it up once). */
struct ibv_ledger_deps {
	const struct ibv_config *cfg;
	const struct ibv_lcores *lcores;     /**< frames not recorded, by scan */
	const struct ibv_rings *rings;       /**< data clocks, the registry */
	const struct ibv_scans *scans;       /**< the schedule */
	const struct ibv_writers *writers;   /**< the --write writers' figures */
	const struct ibv_counts_src *counts; /**< the totals */
};

/** One antenna's part of a writer's ledger (/ibvcap/scan,NAME,WRITER, and
 * through it the array's scan ledger). known: the writer keeps its figures
 * per antenna (a --write writer's own antenna); a dpdk-ibvcap-dump
 * publishes its scan's sums only, and an all=yes pcap holds its antennas
 * together: their recorded and missing are the writer's row, not here. */
struct ibv_ant_ledger {
	uint64_t expected, recorded, lost, overrun, cut, not_recorded, not_arrived;
	uint32_t streams;
	bool on, known;
};

/** A scan's ledger for one writer. */
struct ibv_scan_ledger {
	unsigned int spec;          /**< schedule bit: --write index, or
				         WR_SCHED_DUMP_BASE + registry slot */
	char writer[SHM_NAMELEN + 16];
	uint64_t expected, recorded, lost, overrun, cut, not_recorded, not_arrived;
	char reason[160];
	struct ibv_ant_ledger *ant; /**< [layout nant] once filled (calloc), or NULL */
};

/** A scan as the ledger follows it. */
struct ibv_scan_watch {
	struct wr_scan sc;          /**< as last seen */
	int state;
	bool gone;                  /**< no longer in the schedule */
	int64_t past_ns;            /**< host time the data first passed its stop */
	unsigned int quiet;         /**< ticks in a row with no writer busy with it */
	unsigned int nl;
	struct ibv_scan_ledger l[IBV_MAX_WRITERS + WR_SCHED_DUMP_SLOTS];
};

/** The scan ledger (ledger.c): written by the main lcore (ibv_rec_tick),
 * read by telemetry (under its lock) and the summary. */
struct ibv_ledger {
	struct ibv_ledger_deps deps;
	uint64_t seen;
	struct wr_sched snap;
	unsigned int n;
	struct ibv_scan_watch w[WR_MAX_SCANS * 2];
	/* per antenna: newest data time seen, its offset from the host clock */
	int64_t last_ns[ACCT_MAX_ANTENNAS];
	int64_t offset_ns[ACCT_MAX_ANTENNAS];
	bool offset_known[ACCT_MAX_ANTENNAS], warned[ACCT_MAX_ANTENNAS];
};

/** No scan yet, reading deps' components (before the main loop). */
void ibv_ledger_init(struct ibv_ledger *lg, const struct ibv_ledger_deps *deps);

/** CLOCK_REALTIME in ns: the host clock scans are compared with. */
int64_t ibv_scan_now_ns(void);
/** A scan's time into the dict d as UTC text ("open": no stop). */
void ibv_scan_tel_time(struct rte_tel_data *d, const char *key, int64_t t);
/** The ledgers of the scans ended, as /ibvcap/record status's ledger_*
 * arrays, and each antenna's data time against the host clock, into d. */
void ibv_ledger_tel(const struct ibv_ledger *lg, struct rte_tel_data *d);
/** /ibvcap/scan,NAME[,WRITER]: one scan's ledger (per writer; per antenna
 * of WRITER). */
int ibv_rec_tel_scan(struct ibv_ledger *lg, const char *params, struct rte_tel_data *d);
/** "recording": the schedule and each writer's scans, as their indexes say. */
void ibv_rec_summary_json(const struct ibv_ledger *lg, json_t *root);
/** The main lcore's look at the scans (every 100 ms; final: at the stop,
 * the writers done): each scan logged when added, begun and ended, with
 * its ledger; each antenna's data time against the host clock. */
void ibv_rec_tick(struct ibv_ledger *lg, FILE *f, bool final);
/** The scans' ledgers, as text (the summary). */
void ibv_rec_summary_text(const struct ibv_ledger *lg, FILE *f);

#endif /* IBV_LEDGER_H */
