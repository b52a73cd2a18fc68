/* SPDX-License-Identifier: BSD-3-Clause */
/* External (GPU) memory made usable by the ports: rte_extmem registration
 * and per-device DMA mapping, with the error paths spelled out. */

#ifndef GPUMEM_H
#define GPUMEM_H

#include <stddef.h>
#include <stdint.h>

/**
 * Register [ptr, ptr+size) (page-aligned, page_size pages) as external
 * memory and DMA-map it for each port in ports[] (IOVA = VA), so a NIC can
 * write there (GPUDirect). A port whose bus does not map (vdevs: ENOTSUP)
 * is reported in `unmapped` and skipped: it can only be fed by CPU copies.
 *
 * @return 0, or a negative errno with the reason in err.
 */
int gpumem_register(void *ptr, size_t size, size_t page_size,
		    const uint16_t *ports, unsigned int nports,
		    unsigned int *unmapped, char *err, size_t len);

/** Undo gpumem_register (unmap each port, unregister). */
void gpumem_unregister(void *ptr, size_t size, const uint16_t *ports,
		       unsigned int nports);

#endif /* GPUMEM_H */
