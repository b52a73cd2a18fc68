/* SPDX-License-Identifier: BSD-3-Clause */
/* The capture's telemetry commands (telemetry.c): /ibvcap/..., answered on
 * DPDK's telemetry thread while the capture is open. */

#ifndef IBV_TELEMETRY_H
#define IBV_TELEMETRY_H

#include "config.h"

struct ibv_counts_src;
struct ibv_fringe;
struct ibv_ledger;
struct ibv_ports;
struct ibv_ql;
struct ibv_rates;
struct ibv_rings;
struct ibv_run;
struct ibv_scans;
struct ibv_trig;

/** What telemetry.c's own commands read (stats, antennas, streams,
 * buffers, writers). */
struct ibv_tel_view {
	const struct ibv_config *cfg;
	const struct ibv_run *run;
	const struct ibv_counts_src *counts; /**< the lcores' counts, the ports */
	const struct ibv_ports *ports;
	const struct ibv_rings *rings;       /**< the rings and the registry */
	const struct ibv_rates *rates;       /**< the periodic line's rates */
};

/** The contexts the commands run with: telemetry.c's view, and each
 * component that answers commands of its own (main.c sets them up). */
struct ibv_tel_ctx {
	struct ibv_tel_view view;
	struct ibv_scans *scans;     /**< /ibvcap/record */
	struct ibv_ledger *ledger;   /**< /ibvcap/scan */
	struct ibv_ql *ql;           /**< /ibvcap/quicklook, bstate, spectrum */
	struct ibv_trig *trig;       /**< /ibvcap/trigger */
	struct ibv_fringe *fringe;   /**< /ibvcap/fringe */
};

/** Register the telemetry commands (/ibvcap/...): they answer -EAGAIN
 * until ibv_telemetry_open. @return 0, or non-zero when one failed. */
int ibv_telemetry_register(void);
/** Serve the figures of ctx's components (copied): once everything they
 * read is set up. */
void ibv_telemetry_open(const struct ibv_tel_ctx *ctx);
/** Stop serving them, before anything they read is freed (waits for a
 * reply in progress): running triggers and fringe checks end first.
 * Idempotent. */
void ibv_telemetry_close(void);

#endif /* IBV_TELEMETRY_H */
