/* SPDX-License-Identifier: BSD-3-Clause */
/* Between the option rows (config.c) and the checks of the whole (config_check.c): what parsing leaves. */

#ifndef IBVCAP_CONFIG_PARSE_H
#define IBVCAP_CONFIG_PARSE_H

#include "config.h"

/* Parse state across options: what was given explicitly (the context of
 * the table's rows antennas, antenna-base, groups, group-base, udp-port-base). */
struct pstate {
	bool ant_list, ant_count, ant_base, group_list, group_count, group_base,
	     udp_port_base;
	uint32_t ant_base_ip, group_base_ip;
	uint16_t udp_port_base_v;
	unsigned int ant_n, group_n;
};

/**
 * Everything about the configuration that can be checked without a device,
 * once every option is read: the layout expanded from --antennas and the
 * like (ps says what was given) and checked, the ports, the buffers'
 * geometry, the payload modes, and each --write parsed into c->wo.
 *
 * @return 0, or -EINVAL with the options, values and what was expected in err.
 */
int ibv_config_finish(struct ibv_config *c, const struct pstate *ps, char *err, size_t len);

#endif /* IBVCAP_CONFIG_PARSE_H */
