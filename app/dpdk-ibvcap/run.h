/* SPDX-License-Identifier: BSD-3-Clause */
/* The run (main.c): when it started and ended, and why it stops. */

#ifndef IBV_RUN_H
#define IBV_RUN_H

#include <stdbool.h>
#include <stdint.h>

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
	uint64_t idle_pkts;       /**< --idle-timeout: the packets last seen ... */
	uint64_t idle_since_tsc;  /**< ... and when this lcore saw them change */
	bool pdump;               /**< rte_pdump_init() succeeded */
};

#endif /* IBV_RUN_H */
