/* SPDX-License-Identifier: BSD-3-Clause */
/* Arrival-time clocks (clock.c): the host's TSC and each port's NIC clock,
 * fitted to CLOCK_REALTIME by the main lcore, read by the rx lcores. */

#ifndef IBV_CLOCK_H
#define IBV_CLOCK_H

#include <stdint.h>

#include "hwclock.h"

struct ibv_ports;

/** Where arrival times come from (clock.c). */
enum ibv_clk_mode {
	IBV_CLK_HOST = 0,   /**< the host clock: the TSC, calibrated */
	IBV_CLK_REALTIME,   /**< the NIC's stamps are Unix ns already */
	IBV_CLK_TICKS,      /**< the NIC's stamps are ticks: calibrated */
};

/** A clock fitted to CLOCK_REALTIME by the main lcore, read by rx lcores. */
struct ibv_clock {
	struct hwclock_pub pub;   /**< what rx lcores convert with */
	struct hwclock cal;       /**< main lcore only */
	enum ibv_clk_mode mode;
	uint64_t steps;           /**< steps seen (logged when they grow) */
	char what[192];           /**< for the log and the summary */
};

/** Fit the host and NIC clocks (after the ports start); says each port's source. */
void ibv_clocks_start(struct ibv_clock *host, struct ibv_ports *ports, uint64_t tsc_hz);
/** One calibration round of every clock (main lcore, about once a second). */
void ibv_clocks_tick(struct ibv_clock *host, struct ibv_ports *ports);
const char *ibv_clock_mode_name(enum ibv_clk_mode m);

#endif /* IBV_CLOCK_H */
