/* SPDX-License-Identifier: BSD-3-Clause */
/* The rx lcores (rx.c): each polls its queues, accounts every frame and
 * places it through the payload layer; only that lcore writes its struct. */

#ifndef IBV_RX_H
#define IBV_RX_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "acct.h"
#include "antbuf.h"
#include "config.h"
#include "hwclock.h"
#include "payload.h"

struct ibv_clock;
struct ibv_ports;
struct ibv_qlc;
struct ibv_rings;
struct ibv_writers;
struct wr_sched;

/** One rx queue polled by an lcore. */
struct ibv_rxq {
	uint16_t port_id;
	uint8_t port_idx;
	uint16_t queue;
	const volatile uint8_t *link_up;
	const struct hwclock_pub *clk; /**< its port's NIC clock (clock.c) */
	int ant;          /**< antenna steered here by rules, -1 default queue */
	bool hw_steered;  /**< rules put exactly antenna `ant` here */
};

/**
 * An rx lcore's state. Only that lcore writes it; counters are stored once
 * per burst and read (approximately, while running) by the main lcore.
 */
/** Frames of the scan with this id received and not recorded, per antenna
 * (the scan ledger's not_recorded, scans.c), kept by an rx lcore; entry
 * id % IBV_SCAN_NR (64 scans live at most, ids rising: two live scans
 * share an entry only 128 ids apart). */
struct ibv_scan_nr {
	uint32_t id;
	uint64_t nr[ACCT_MAX_ANTENNAS];
};
#define IBV_SCAN_NR 128

struct ibv_lcore {
	unsigned int lcore_id;
	unsigned int nq;
	struct ibv_rxq q[IBV_MAX_MAP];
	struct acct *acct;
	bool verbose;
	uint16_t burst;
	uint8_t *bounce;          /**< linear copy of multi-segment packets */
	/* the payload-memory mode, chosen once (payload.h) */
	const struct ibv_pl *pl;
	uint16_t head_segs;       /**< frames of at most this many segments are
				       read in place (pl's head_segs) */
	struct ibv_qlc *ql;       /**< quick look, NULL when off */
	/* what the loop reads of the other components, given at setup */
	const volatile int *stop;           /**< the run's stop flag */
	struct antbuf_prod *prod;           /**< the rings' producer side of each
						 antenna (NULL: no rings) */
	const struct hwclock_pub *host_clk; /**< the host clock's fit */
	int ts_offset;                      /**< the NIC stamp's mbuf field, -1 none */
	int arrival_off;                    /**< a held frame's arrival time: an
						 mbuf dynamic field */
	uint64_t ts_flag;
	struct wr_sched *const *sched;      /**< the scans' schedule, as it moves */

	/* counters */
	uint64_t pkts, bytes, polls, empty_polls, misdirected, segmented;
	uint64_t busy_cycles;     /**< TSC cycles of the polls that brought packets */
	uint64_t held;            /**< mbufs held for suspect frames now */
	uint64_t ev_shown;        /**< resync events logged (main lcore) */
	uint64_t q_pkts[IBV_MAX_MAP], q_bytes[IBV_MAX_MAP];
	volatile bool running;
	/* frames not recorded by scan (cold path: rx.c scan_nr_count) */
	struct ibv_scan_nr *scan_nr;  /**< IBV_SCAN_NR entries */
	struct wr_sched *scan_snap;   /**< the schedule as last seen */
	uint64_t scan_seen;           /**< its generation */
} __rte_cache_aligned;

/** The rx lcores of the capture, by lcore id (NULL: not an rx lcore). */
struct ibv_lcores {
	unsigned int n;
	struct ibv_lcore *lc[RTE_MAX_LCORE];
};

/** What the rx lcores are given of the other components (main.c, once). */
struct ibv_rx_deps {
	const struct ibv_config *cfg;
	const struct ibv_pl *pl;
	const volatile int *stop;            /**< the run's stop flag */
	struct ibv_rings *rings;             /**< producer sides; shared marked */
	const struct ibv_clock *host_clk;
	const struct ibv_ports *ports;       /**< queues, link flags, NIC clocks */
	struct wr_sched *const *sched;       /**< the scans' schedule, as it moves */
	const struct ibv_writers *writers;   /**< their lcores are not rx lcores */
	const struct ibv_plugin *plugins;    /**< nor the --consumer plugins' */
};

/** The rx lcores and their queues (after the ports, rings and writers are
 * set up: each lcore is given what its loop reads of them). */
int ibv_lcores_setup(struct ibv_lcores *lcs, const struct ibv_rx_deps *d, char *err, size_t len);
void ibv_lcores_free(struct ibv_lcores *lcs);
/** An rx lcore's loop until the run's stop (rte_eal_remote_launch); arg:
 * its struct ibv_lcore. */
int ibv_rx_main(void *arg);

#endif /* IBV_RX_H */
