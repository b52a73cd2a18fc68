/* SPDX-License-Identifier: BSD-3-Clause */
/* Work-arounds for DPDK 22.11 defects: see quirks.h. */

#include <string.h>

#include <rte_ethdev.h>

#include "quirks.h"

bool
quirk_is_memif(uint16_t port_id)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(port_id, &info) == 0 && info.driver_name != NULL &&
	       strcmp(info.driver_name, "net_memif") == 0;
}

bool
quirk_eal_cleanup_safe(void)
{
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid)
		if (quirk_is_memif(pid))
			return false;
	return true;
}
