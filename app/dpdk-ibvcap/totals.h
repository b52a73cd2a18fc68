/* SPDX-License-Identifier: BSD-3-Clause */
/* The capture's totals (totals.c): every rx lcore's and antenna's counts
 * summed, the periodic line, and the main lcore's logs of the timeline
 * events and of the streams not recorded. */

#ifndef IBV_TOTALS_H
#define IBV_TOTALS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ethdev.h>

#include "acct.h"
#include "config.h"
#include "stats.h"

struct ibv_lcore;
struct ibv_lcores;
struct ibv_ports;
struct ibv_run;

/** Where the totals are summed from: the rx lcores' counters, and the
 * antennas and ports they count for (main.c sets it up once). */
struct ibv_counts_src {
	const struct acct_layout *layout;
	const struct ibv_lcores *lcores;
	const struct ibv_ports *ports;
};

/** Totals over every lcore and antenna. */
struct ibv_totals {
	struct stats_rx rx;  /**< all rx lcores (lib/stats stats_capture) */
	struct acct_counts ant[ACCT_MAX_ANTENNAS];
	struct acct_counts all;
	uint64_t cause[ACCT_C__COUNT];  /**< unattributed, all ports */
	uint64_t port_cause[IBV_MAX_PORTS][ACCT_C__COUNT];
};

/** The periodic line's last sample, for its rates (main lcore writes,
 * telemetry reads the rates). */
struct ibv_rates {
	uint64_t last_tsc, last_pkts, last_bytes;
	uint64_t quiet_since_tsc;  /**< no packet since (periodic line) */
	double gbps, mpps;
};

void ibv_collect(const struct ibv_counts_src *src, struct ibv_totals *t);
/** An rx lcore's figures as lib/stats' lcore table has them. */
void ibv_lcore_rx(const struct ibv_lcore *lc, struct stats_rx *r);
/** The packets no antenna claimed, every cause summed. */
uint64_t ibv_unattributed(const struct ibv_totals *t);
/** Every port's NIC figures summed. */
void ibv_nic_totals(const struct ibv_ports *ports, struct rte_eth_stats *sum);
/** Seconds since the capture started (to its end once it ended). */
double ibv_elapsed_s(const struct ibv_run *run);
/** The periodic line on f, its rates kept in r. */
void ibv_stats_line(struct ibv_rates *r, const struct ibv_counts_src *src,
		    const struct ibv_run *run, FILE *f);
/** Log the timeline resyncs not logged yet (all: every one kept). */
void ibv_events_print(const struct ibv_counts_src *src, FILE *f, bool all);
/** Streams with frames not recorded for a cause not yet logged: one line a
 * stream and cause (the main lcore's; the rx path only counts). */
void ibv_unrecorded_print(const struct ibv_counts_src *src, FILE *f);

#endif /* IBV_TOTALS_H */
