/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_extmem registration and DMA mapping of external memory for ports. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_memory.h>

#include "gpumem.h"

int
gpumem_register(void *ptr, size_t size, size_t page_size, const uint16_t *ports,
		unsigned int nports, unsigned int *unmapped, char *err, size_t len)
{
	unsigned int i;

	*unmapped = 0;
	if (ptr == NULL || size == 0 || page_size == 0 || (uintptr_t)ptr % page_size != 0 ||
	    size % page_size != 0) {
		snprintf(err, len, "external memory %p + %zu bytes is not a whole number of "
			 "%zu-byte pages", ptr, size, page_size);
		return -EINVAL;
	}
	if (rte_extmem_register(ptr, size, NULL, 0, page_size) != 0 && rte_errno != EEXIST) {
		snprintf(err, len, "rte_extmem_register of %zu bytes: %s", size,
			 rte_strerror(rte_errno));
		return -rte_errno;
	}
	for (i = 0; i < nports; i++) {
		struct rte_eth_dev_info info;

		if (rte_eth_dev_info_get(ports[i], &info) != 0 || info.device == NULL) {
			snprintf(err, len, "port %u: no device to map for", ports[i]);
			rte_extmem_unregister(ptr, size);
			return -ENODEV;
		}
		if (rte_dev_dma_map(info.device, ptr, (uint64_t)(uintptr_t)ptr, size) != 0) {
			if (rte_errno == ENOTSUP) {
				(*unmapped)++;
				continue;
			}
			snprintf(err, len, "port %u: DMA map of %zu bytes: %s", ports[i], size,
				 rte_strerror(rte_errno));
			gpumem_unregister(ptr, size, ports, i);
			return -rte_errno;
		}
	}
	return 0;
}

void
gpumem_unregister(void *ptr, size_t size, const uint16_t *ports, unsigned int nports)
{
	unsigned int i;

	for (i = 0; i < nports; i++) {
		struct rte_eth_dev_info info;

		if (rte_eth_dev_info_get(ports[i], &info) == 0 && info.device != NULL)
			rte_dev_dma_unmap(info.device, ptr, (uint64_t)(uintptr_t)ptr, size);
	}
	rte_extmem_unregister(ptr, size);
}
