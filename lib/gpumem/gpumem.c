/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_extmem registration and DMA mapping of external memory for ports. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "err.h"
#include "gpumem.h"

int
gpumem_register(void *ptr, size_t size, size_t page_size, const uint16_t *ports,
		unsigned int nports, unsigned int *unmapped, char *err, size_t len)
{
	unsigned int i;
	int rc;

	*unmapped = 0;
	if (ptr == NULL || size == 0 || page_size == 0 || (uintptr_t)ptr % page_size != 0 ||
	    size % page_size != 0) {
		return err_set(err, len, -EINVAL, "external memory %p + %zu bytes is not a whole "
			       "number of %zu-byte pages", ptr, size, page_size);
	}
	if (rte_extmem_register(ptr, size, NULL, 0, page_size) != 0 && rte_errno != EEXIST)
		return err_set(err, len, -rte_errno, "rte_extmem_register of %zu bytes: %s", size,
			       rte_strerror(rte_errno));
	for (i = 0; i < nports; i++) {
		struct rte_eth_dev_info info;

		if (rte_eth_dev_info_get(ports[i], &info) != 0 || info.device == NULL) {
			rte_extmem_unregister(ptr, size);
			return err_set(err, len, -ENODEV, "port %u: no device to map for", ports[i]);
		}
		if (rte_dev_dma_map(info.device, ptr, (uint64_t)(uintptr_t)ptr, size) != 0) {
			if (rte_errno == ENOTSUP) {
				(*unmapped)++;
				continue;
			}
			rc = err_set(err, len, -rte_errno, "port %u: DMA map of %zu bytes: %s",
				     ports[i], size, rte_strerror(rte_errno));
			gpumem_unregister(ptr, size, ports, i);
			return rc;
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

bool
gpumem_split_supported(const struct rte_eth_dev_info *info, char *why, size_t len)
{
	if (!(info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT)) {
		snprintf(why, len, "no buffer split (rx offloads lack BUFFER_SPLIT)");
		return false;
	}
	if (info->rx_seg_capa.max_nseg < 2) {
		snprintf(why, len, "buffer split into at most %u segment%s, 2 needed",
			 info->rx_seg_capa.max_nseg, info->rx_seg_capa.max_nseg == 1 ? "" : "s");
		return false;
	}
	if (!info->rx_seg_capa.multi_pools) {
		snprintf(why, len,
			 "buffer split from one pool only (rx_seg_capa.multi_pools 0): headers "
			 "and payload cannot go to different memory");
		return false;
	}
	snprintf(why, len, "buffer split: %u segments, multiple pools",
		 info->rx_seg_capa.max_nseg);
	return true;
}

int
gpumem_pool_layout(uint32_t n, uint32_t data_room, uint32_t zero_bytes, size_t page,
		   struct gpumem_pool_layout *l, char *err, size_t len)
{
	uint32_t elt = RTE_ALIGN_CEIL(data_room, RTE_CACHE_LINE_SIZE);

	memset(l, 0, sizeof(*l));
	if (n == 0 || data_room == 0 || zero_bytes == 0 || page == 0)
		return err_set(err, len, -EINVAL, "payload pool of %u buffers of %u bytes, "
			       "zero frame %u bytes, page %zu: every size must be above zero", n,
			       data_room, zero_bytes, page);
	if (elt > UINT16_MAX)
		return err_set(err, len, -EINVAL,
			       "payload buffers of %u bytes: mbufs hold at most 65535", elt);
	l->n = n;
	l->elt_size = (uint16_t)elt;
	l->pool_bytes = RTE_ALIGN_CEIL((size_t)n * elt, page);
	l->zero_off = l->pool_bytes;
	l->total = l->pool_bytes + RTE_ALIGN_CEIL((size_t)zero_bytes, page);
	return 0;
}

struct rte_mempool *
gpumem_pool_create(const char *name, void *va, const struct gpumem_pool_layout *l,
		   int socket, char *err, size_t len)
{
	struct rte_pktmbuf_extmem ext;
	struct rte_mempool *mp;

	memset(&ext, 0, sizeof(ext));
	ext.buf_ptr = va;
	ext.buf_iova = (rte_iova_t)(uintptr_t)va; /* as gpumem_register maps it */
	ext.buf_len = l->pool_bytes;
	ext.elt_size = l->elt_size;
	/* per-lcore caches (counted in the pool size); mempool wants the
	 * cache at most n / 1.5 */
	mp = rte_pktmbuf_pool_create_extbuf(name, l->n, RTE_MIN(GPUMEM_POOL_CACHE, l->n / 2), 0,
					    l->elt_size, socket, &ext, 1);
	if (mp == NULL)
		err_set(err, len, -rte_errno, "payload pool '%s' of %u x %u bytes over external "
			"memory %p: %s", name, l->n, l->elt_size, va, rte_strerror(rte_errno));
	return mp;
}

void
gpumem_split_rxseg(union rte_eth_rxseg seg[2], struct rte_mempool *hdr_mp,
		   struct rte_mempool *pay_mp, uint16_t hdr_len)
{
	memset(seg, 0, 2 * sizeof(seg[0]));
	seg[0].split.mp = hdr_mp;
	seg[0].split.length = hdr_len; /* the split point */
	seg[0].split.offset = 0;       /* after the headroom */
	seg[1].split.mp = pay_mp;
	seg[1].split.length = 0;       /* the rest, up to the buffer size */
	seg[1].split.offset = 0;
}

uint32_t
gpumem_split_payload(const struct rte_mbuf *m, uint32_t start, uint32_t pay,
		     const void *base, uint64_t *ext_off)
{
	const struct rte_mbuf *seg = m->next;
	uint32_t head = m->data_len, skip;

	*ext_off = 0;
	if (seg == NULL || seg->next != NULL || start < head)
		return 0;
	skip = start - head;
	if (skip > seg->data_len)
		return 0;
	*ext_off = (uint64_t)(rte_pktmbuf_mtod(seg, uintptr_t) + skip - (uintptr_t)base);
	return RTE_MIN((uint32_t)seg->data_len - skip, pay);
}
