/* SPDX-License-Identifier: BSD-3-Clause */
/* Antenna steering: stream config -> rte_flow item/action arrays (pure), and
 * their installation on a port with a clear fallback when it cannot. */

#ifndef STEER_H
#define STEER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_flow.h>

/** One rule: packets from src_ip to dst_ip:dport go to queue. */
struct steer_rule_spec {
	uint32_t src_ip;     /**< antenna, host order */
	uint32_t dst_ip;     /**< multicast group, host order */
	uint16_t dport;      /**< UDP destination port */
	uint16_t queue;      /**< rx queue of the antenna */
	uint32_t group;      /**< flow group (0 = the root table) */
	uint32_t priority;
	bool count;          /**< add a COUNT action */
};

#define STEER_MAX_ITEMS 4   /* ETH, IPV4, UDP, END */
#define STEER_MAX_ACTIONS 3 /* [COUNT,] QUEUE, END */

/**
 * A rule's attribute, pattern and actions. The item/action arrays point
 * into this struct's own spec/mask storage: do not copy it after building
 * (or rebuild after a copy).
 */
struct steer_flow {
	struct rte_flow_attr attr;
	struct rte_flow_item items[STEER_MAX_ITEMS];
	struct rte_flow_action actions[STEER_MAX_ACTIONS];
	struct rte_flow_item_ipv4 ip_spec, ip_mask;
	struct rte_flow_item_udp udp_spec, udp_mask;
	struct rte_flow_action_queue queue;
	struct rte_flow_action_count count;
};

/**
 * Build ETH / IPV4 (src, dst exact) / UDP (dst port exact) -> [COUNT] QUEUE.
 * Pure: touches no device.
 */
void steer_build(const struct steer_rule_spec *s, struct steer_flow *f);

/**
 * Build the catch-all rule ETH -> QUEUE (queue) at a lower priority than the
 * antenna rules: what no antenna rule matches goes to the default queue
 * rather than to queue 0 (an antenna's).
 */
void steer_build_default(uint16_t queue, uint32_t priority, struct steer_flow *f);

/** Outcome of installing a port's rules. */
enum steer_result {
	STEER_OK = 0,      /**< every rule created */
	STEER_REFUSED,     /**< the port refused (validate or create): fall back */
};

/** A port's installed rules. */
struct steer_port {
	uint16_t port_id;
	unsigned int nrules;
	struct rte_flow **flows;   /**< nrules handles (NULL where not created) */
	struct rte_flow *deflt;    /**< the catch-all rule, or NULL */
	bool counting;             /**< rules carry COUNT actions */
	char why[256];             /**< reason when refused */
};

/**
 * Validate then create every rule on port. If the port refuses any rule
 * (no flow support, validate passes but create fails, ...), every rule
 * already created is destroyed and STEER_REFUSED returned with the reason
 * in sp->why. If rules with COUNT are refused, they are retried without it.
 *
 * @return STEER_OK, STEER_REFUSED, or -ENOMEM.
 */
int steer_install(struct steer_port *sp, uint16_t port_id,
		  const struct steer_rule_spec *rules, unsigned int nrules);

/**
 * Add the catch-all rule (steer_build_default) to an installed port.
 * @return 0, or a negative errno with the reason in sp->why.
 */
int steer_install_default(struct steer_port *sp, uint16_t queue,
			  uint32_t priority);

/** Read a rule's COUNT (hits, bytes). @return 0 or a negative errno. */
int steer_query_count(const struct steer_port *sp, unsigned int rule,
		      uint64_t *hits, uint64_t *bytes);

/** Destroy every rule and free the handles. */
void steer_remove(struct steer_port *sp);

/**
 * rte_flow_isolate(port, on). Must be called before the port is
 * configured/started (mlx5). @return 0, or a negative errno with why set.
 */
int steer_isolate(uint16_t port_id, bool on, char *why, size_t len);

#endif /* STEER_H */
