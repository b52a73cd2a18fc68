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
#include "wr_sched.h"

struct ibv_ledger;
struct ibv_rings;
struct ibv_writers;

/** What /ibvcap/record reads of the other components (main.c sets it up
 * before telemetry opens). */
struct ibv_scans_deps {
	const struct ibv_config *cfg;
	const struct ibv_rings *rings;     /**< the writer registry */
	const struct ibv_writers *writers; /**< the --write writers */
	const struct ibv_ledger *ledger;   /**< the ledgers of the scans ended */
};


/** The writers' scans: sched_own until the rings exist, then their memzone
 * (rings.c), where the dpdk-ibvcap-dump writers read it too, then own again.
 * Telemetry changes it (/ibvcap/record). */
struct ibv_scans {
	struct wr_sched *sched;
	struct wr_sched own;
	const struct rte_memzone *mz;
	struct ibv_scans_deps deps;
};

/** A schedule from c: --record, then --schedule FILE's scans, checked
 * whole. @return 0 or a negative errno, the file, line, field, value and
 * what was expected in err. */
int ibv_rec_load(const struct ibv_config *c, struct wr_sched *sched, char *err, size_t len);
/** Move the schedule into the memzone name, where every writer reads it
 * (--write and dump). @return 0, or -1 with why in err. */
int ibv_scans_share(struct ibv_scans *s, const char *name, char *err, size_t len);
/** Take it back into own (the summary still reads it); the memzone is
 * freed unless keep_memory (a secondary lingers). */
void ibv_scans_unshare(struct ibv_scans *s, bool keep_memory);
/** /ibvcap/record: on, off, cancel, status; answers what it did, or why not. */
int ibv_rec_command(struct ibv_scans *scans, const char *params, struct rte_tel_data *d);
#endif /* IBV_SCANS_H */
