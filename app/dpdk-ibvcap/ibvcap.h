/* SPDX-License-Identifier: BSD-3-Clause */
/* The capture as main.c composes it: one struct of each component's state
 * (each declared in the component's own header), and the run's clock and
 * stop flag. */

#ifndef IBVCAP_H
#define IBVCAP_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "config.h"
#include "payload.h"
#include "ports.h"
#include "quicklook_app.h"
#include "rings.h"
#include "rx.h"
#include "scans.h"
#include "totals.h"
#include "writers.h"

/** The run: when it started and ended, and why it stops. main.c writes
 * stop (the main loop, from a signal, a limit or a failure); the rx lcores,
 * the link wait and the jobs read it. */
struct ibv_run {
	volatile int stop;
	const char *stop_reason;
	uint64_t tsc_hz;
	uint64_t start_tsc, end_tsc;
	int64_t start_unix_ns;
	uint64_t loop_tsc;        /**< the main loop's last turn (telemetry: loop_age_ms) */
	bool pdump;               /**< rte_pdump_init() succeeded */
};

struct ibv_app {
	struct ibv_config cfg;
	struct ibv_run run;
	struct ibv_ports ports;
	struct ibv_lcores lcores;
	struct ibv_clock host_clk; /**< the TSC as Unix ns (clock.c) */
	struct ibv_rings rings;
	struct ibv_pl pl;         /**< the payload-memory layer (payload.h) */
	struct ibv_ql ql;
	struct ibv_writers writers;
	struct ibv_scans scans;
	struct ibv_rates rates;   /**< the periodic line's (totals.c) */
};

#endif /* IBVCAP_H */
