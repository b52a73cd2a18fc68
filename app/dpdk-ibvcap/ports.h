/* SPDX-License-Identifier: BSD-3-Clause */
/* The ports in use (port.c) and their multicast memberships (join.c). */

#ifndef IBV_PORTS_H
#define IBV_PORTS_H

#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "clock.h"
#include "config.h"
#include "steer.h"

struct ibv_pl;

/** A port in use. */
struct ibv_port {
	uint16_t port_id;
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_mempool *mp;
	unsigned int nq;          /**< rx queues configured */
	bool configured, started;
	bool hw_steer;            /**< rte_flow rules installed */
	bool isolated;
	struct steer_port sp;
	struct steer_rule_spec *rules;
	unsigned int nrules;
	char steer_why[256];      /**< why software steering */
	bool few_queues;          /**< fewer rx queues than antennas + 1: software */
	bool fallback_said;       /**< the fallback's log line is out */
	char iface[IF_NAMESIZE];  /**< kernel interface ("" = none) */
	int join_fd;              /**< socket holding the memberships, -1 */
	uint64_t groups;          /**< bit g: this port joins group g */
	unsigned int joined;
	bool ts_offload, scatter;
	struct ibv_clock clk;     /**< its rx timestamps (clock.c) */
	const char *mcast_mode;   /**< how multicast frames are let in */
	uint32_t mtu;
	volatile uint8_t link_up; /**< polled only when up (memif maps its
				       rings at connect and drops them at
				       disconnect: rx then would crash) */
};

/** Every port of the capture, and the rx timestamp field they fill. */
struct ibv_ports {
	unsigned int n;
	struct ibv_port port[IBV_MAX_PORTS];
	int ts_offset;            /**< rx timestamp dynfield, -1 none */
	uint64_t ts_flag;
};

/** The ports of c (--port, else every DPDK port, written back into c) and
 * the groups each joins. */
int ibv_ports_resolve(struct ibv_ports *ports, struct ibv_config *c, char *err, size_t len);
/** Each port's queues, offloads and the payload layer's memory for them
 * (pl is created here, sized for the rings). */
int ibv_ports_setup(struct ibv_ports *ports, const struct ibv_config *c, struct ibv_pl *pl,
		    char *err, size_t len);
int ibv_ports_start(struct ibv_ports *ports, const struct ibv_config *c, char *err, size_t len);
/** Wait up to timeout_ns (--link-timeout) for each link, or until *stop
 * (a signal); the rx lcores already poll. */
void ibv_ports_wait_link(struct ibv_ports *ports, uint64_t timeout_ns,
			 const volatile sig_atomic_t *stop);
/** Refresh every port's link_up (main lcore, every 100 ms). */
void ibv_ports_link_refresh(struct ibv_ports *ports);
void ibv_ports_stop(struct ibv_ports *ports);
/** Close the ports, then free the payload layer's pools (keep_memory: a
 * secondary lingers, see ibv_rings_drain_external). */
void ibv_ports_close(struct ibv_ports *ports, struct ibv_pl *pl, bool keep_memory);

/* join.c */
int ibv_join_all(struct ibv_ports *ports, const struct ibv_config *c, char *err, size_t len);
void ibv_leave_all(struct ibv_ports *ports);

#endif /* IBV_PORTS_H */
