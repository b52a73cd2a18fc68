/* SPDX-License-Identifier: BSD-3-Clause */
/* The capture as main.c composes it: one struct of each component's state
 * (each declared in the component's own header), and the run's clock and
 * stop flag. */

#ifndef IBVCAP_APP_H
#define IBVCAP_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "config.h"
#include "fringe.h"
#include "ledger.h"
#include "payload.h"
#include "plugin.h"
#include "ports.h"
#include "quicklook_app.h"
#include "rings.h"
#include "run.h"
#include "rx.h"
#include "scans.h"
#include "totals.h"
#include "trigger.h"
#include "writers.h"

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
	struct ibv_plugin *plugin; /**< --consumer (plugin.h; NULL: none) */
	struct ibv_scans scans;
	struct ibv_ledger ledger;
	struct ibv_trig trig;
	struct ibv_fringe fringe;
	struct ibv_rates rates;   /**< the periodic line's (totals.c) */
	struct ibv_counts_src counts; /**< where the totals are summed from */
};

#endif /* IBVCAP_APP_H */
