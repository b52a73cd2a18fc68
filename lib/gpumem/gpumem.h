/* SPDX-License-Identifier: BSD-3-Clause */
/* External (GPU) memory made usable by the ports: rte_extmem registration
 * and per-device DMA mapping, with the error paths spelled out. */

#ifndef GPUMEM_H
#define GPUMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_mempool.h>

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

/* ---- buffer split: headers to host memory, payload to GPU memory ---- */

/**
 * Can this port split each packet into a host segment and a segment from
 * another pool (RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT, at least 2 segments,
 * multiple pools)? If not, why (names the missing capability).
 */
bool gpumem_split_supported(const struct rte_eth_dev_info *info, char *why,
			    size_t len);

/** mbufs a payload pool keeps per lcore (count them in its size). */
#define GPUMEM_POOL_CACHE 256

/** Layout of a payload pool's external region. */
struct gpumem_pool_layout {
	uint32_t n;          /**< mbufs */
	uint16_t elt_size;   /**< bytes per mbuf buffer (data room) */
	size_t pool_bytes;   /**< n x elt_size, page aligned */
	uint64_t zero_off;   /**< a zeroed frame after the buffers (gaps) */
	size_t total;        /**< the whole region, page aligned */
};

/**
 * Lay out n buffers of data_room bytes and a zero frame of zero_bytes in
 * pages of page bytes. Returns 0, or -EINVAL (with why) when a buffer is
 * over 65535 bytes or the sizes are zero.
 */
int gpumem_pool_layout(uint32_t n, uint32_t data_room, uint32_t zero_bytes,
		       size_t page, struct gpumem_pool_layout *l, char *err,
		       size_t len);

/**
 * An mbuf pool whose data buffers are the external region [va, va+l->
 * pool_bytes) (registered beforehand with gpumem_register): mbuf headers
 * in host memory, data where the NIC writes (pinned external buffers).
 * IOVA = VA, as gpumem_register maps it. NULL with why on failure.
 */
struct rte_mempool *gpumem_pool_create(const char *name, void *va,
				       const struct gpumem_pool_layout *l,
				       int socket, char *err, size_t len);

/**
 * The two-segment rx description: the first hdr_len bytes of each packet
 * (Ethernet+IPv4+UDP+CODIF headers) into hdr_mp, the rest (the payload)
 * into pay_mp. seg[] is what rte_eth_rx_queue_setup takes as rx_seg.
 */
void gpumem_split_rxseg(union rte_eth_rxseg seg[2], struct rte_mempool *hdr_mp,
			struct rte_mempool *pay_mp, uint16_t hdr_len);

/**
 * Where a split packet's payload is: it starts at byte `start` of the
 * packet (after the CODIF header) and is `pay` bytes long. It must lie
 * whole in the second and last segment (never read across memories).
 * Sets *ext_off to its offset from base (the payload region) and returns
 * the contiguous bytes there (pay when whole; less, or 0, when not).
 */
uint32_t gpumem_split_payload(const struct rte_mbuf *m, uint32_t start, uint32_t pay,
			      const void *base, uint64_t *ext_off);

#endif /* GPUMEM_H */
