/* SPDX-License-Identifier: BSD-3-Clause */
/* The GPUDirect registration path with host memory standing in for GPU
 * memory (no GPU here): rte_extmem registration, DMA mapping per port with
 * vdevs refusing (ENOTSUP, counted), re-registration, bad ranges. */

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "../unit/check.h"
#include "gpumem.h"

int
main(int argc, char **argv)
{
	size_t page = 4096, size = 64 * page;
	uint16_t ports[1] = { 0 };
	unsigned int unmapped = 99;
	char err[256];
	void *mem;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	CHECK(rte_eth_dev_count_avail() == 1);
	mem = aligned_alloc(page, size);
	CHECK(mem != NULL);
	CHECK(gpumem_register(mem, size, page, ports, 1, &unmapped, err, sizeof(err)) == 0);
	/* the vdev bus maps nothing and says so (or not): either way no error */
	CHECK(unmapped <= 1);
	printf("net_null0: %s\n", unmapped ? "cannot DMA-map (counted)" : "DMA map is a no-op");
	/* registered twice: accepted (EEXIST) */
	CHECK(gpumem_register(mem, size, page, ports, 1, &unmapped, err, sizeof(err)) == 0);
	gpumem_unregister(mem, size, ports, 1);
	/* not page multiples: refused, with the range named */
	CHECK(gpumem_register((char *)mem + 100, size, page, ports, 1, &unmapped, err,
			      sizeof(err)) != 0);
	CHECK_HAS(err, "is not a whole number of 4096-byte pages");
	CHECK(gpumem_register(mem, size - 1, page, ports, 1, &unmapped, err, sizeof(err)) != 0);
	/* a port that does not exist */
	ports[0] = 7;
	CHECK(gpumem_register(mem, size, page, ports, 1, &unmapped, err, sizeof(err)) != 0);
	CHECK_HAS(err, "port 7");
	ports[0] = 0;
	free(mem);

	/* buffer split: capability check, pool over "GPU" memory, rx segments */
	{
		struct rte_eth_dev_info info;
		struct gpumem_pool_layout l;
		union rte_eth_rxseg seg[2];
		struct rte_mempool *pay, *hdr;
		struct rte_mbuf *mb[200];
		uint8_t *base;
		char why[256];
		unsigned int i, j, in = 0, distinct = 1;

		CHECK(rte_eth_dev_info_get(0, &info) == 0);
		CHECK(!gpumem_split_supported(&info, why, sizeof(why)));
		CHECK_HAS(why, "BUFFER_SPLIT");
		printf("net_null0: %s\n", why);
		info.rx_offload_capa |= RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT;
		info.rx_seg_capa.max_nseg = 1;
		CHECK(!gpumem_split_supported(&info, why, sizeof(why)));
		CHECK_HAS(why, "at most 1 segment,");
		info.rx_seg_capa.max_nseg = 4;
		info.rx_seg_capa.multi_pools = 0;
		CHECK(!gpumem_split_supported(&info, why, sizeof(why)));
		CHECK_HAS(why, "multi_pools 0");
		info.rx_seg_capa.multi_pools = 1;
		CHECK(gpumem_split_supported(&info, why, sizeof(why)));

		CHECK(gpumem_pool_layout(0, 8320, 8192, 65536, &l, err, sizeof(err)) != 0);
		CHECK(gpumem_pool_layout(10, 70000, 8192, 65536, &l, err, sizeof(err)) != 0);
		CHECK_HAS(err, "65535");
		/* 200 buffers of 128 + 8192 (rounded to 8320) in 64 KiB pages */
		CHECK(gpumem_pool_layout(200, RTE_PKTMBUF_HEADROOM + 8192, 8192, 65536, &l, err,
					 sizeof(err)) == 0);
		CHECK_EQ_U(l.elt_size, 8320);
		CHECK_EQ_U(l.pool_bytes, 26 * 65536); /* 1 664 000 -> 26 pages */
		CHECK_EQ_U(l.zero_off, l.pool_bytes);
		CHECK_EQ_U(l.total, 27 * 65536);

		/* host memory standing in for the GPU's, registered as it would be */
		base = aligned_alloc(65536, l.total);
		CHECK(base != NULL);
		memset(base + l.zero_off, 0, 8192);
		CHECK(gpumem_register(base, l.total, 65536, ports, 1, &unmapped, err,
				      sizeof(err)) == 0);
		pay = gpumem_pool_create("split_pay", base, &l, 0, err, sizeof(err));
		CHECK(pay != NULL);
		if (pay == NULL)
			fprintf(stderr, "%s\n", err);
		hdr = rte_pktmbuf_pool_create("split_hdr", 255, 0, 0, RTE_PKTMBUF_HEADROOM + 128, 0);
		CHECK(hdr != NULL);
		if (pay != NULL && hdr != NULL) {
			CHECK(rte_pktmbuf_data_room_size(pay) == 8320);
			/* every buffer in the region, below the zero frame, distinct */
			CHECK(rte_pktmbuf_alloc_bulk(pay, mb, 200) == 0);
			for (i = 0; i < 200; i++) {
				uint8_t *d = rte_pktmbuf_mtod(mb[i], uint8_t *);

				if (d >= base && d + 8192 <= base + l.zero_off &&
				    mb[i]->buf_iova == (rte_iova_t)(uintptr_t)mb[i]->buf_addr)
					in++;
				for (j = 0; j < i; j++)
					if (mb[j]->buf_addr == mb[i]->buf_addr)
						distinct = 0;
			}
			CHECK_EQ_U(in, 200);
			CHECK(distinct);
			/* all 200 out: the pool is empty, as the sizing must prevent */
			CHECK(rte_pktmbuf_alloc(pay) == NULL);
			rte_pktmbuf_free_bulk(mb, 200);
			CHECK_EQ_U(rte_mempool_avail_count(pay), 200);
			/* a split packet as the NIC would leave it: 106 header bytes in
			 * a host mbuf, the payload in a "GPU" one */
			{
				struct rte_mbuf *h = rte_pktmbuf_alloc(hdr);
				struct rte_mbuf *p = rte_pktmbuf_alloc(pay);
				struct rte_mbuf *p2 = rte_pktmbuf_alloc(pay);
				uint64_t off = 1;

				CHECK(h != NULL && p != NULL && p2 != NULL);
				rte_pktmbuf_append(h, 106);
				rte_pktmbuf_append(p, 8192);
				CHECK(gpumem_split_payload(h, 106, 8192, base, &off) == 0);
				CHECK_EQ_U(off, 0); /* one segment: nothing to place */
				CHECK(rte_pktmbuf_chain(h, p) == 0);
				CHECK_EQ_U(gpumem_split_payload(h, 106, 8192, base, &off), 8192);
				CHECK_EQ_U(off, (uint64_t)(rte_pktmbuf_mtod(p, uint8_t *) - base));
				CHECK(off + 8192 <= l.zero_off);
				/* a tagged frame: the payload starts 4 bytes into the
				 * segment, 4 bytes short there: counted, not placed */
				CHECK_EQ_U(gpumem_split_payload(h, 110, 8192, base, &off), 8188);
				CHECK_EQ_U(off, (uint64_t)(rte_pktmbuf_mtod(p, uint8_t *) - base) + 4);
				/* payload starting inside the head: never */
				CHECK_EQ_U(gpumem_split_payload(h, 100, 8192, base, &off), 0);
				/* a third segment: the payload is not in one place */
				rte_pktmbuf_append(p2, 64);
				CHECK(rte_pktmbuf_chain(h, p2) == 0);
				CHECK_EQ_U(gpumem_split_payload(h, 106, 8192, base, &off), 0);
				rte_pktmbuf_free(h);
			}
			CHECK_EQ_U(rte_mempool_avail_count(pay), 200);
			gpumem_split_rxseg(seg, hdr, pay, 106);
			CHECK(seg[0].split.mp == hdr && seg[0].split.length == 106 &&
			      seg[0].split.offset == 0);
			CHECK(seg[1].split.mp == pay && seg[1].split.length == 0);
		}
		rte_mempool_free(pay);
		rte_mempool_free(hdr);
		gpumem_unregister(base, l.total, ports, 1);
		free(base);
	}
	{
		/* leave no runtime files behind (EAL keeps its runtime
		 * directory after cleanup) */
		char dir[PATH_MAX];
		DIR *d;
		struct dirent *e;

		snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
		rte_eal_cleanup();
		d = opendir(dir);
		while (d != NULL && (e = readdir(d)) != NULL) {
			char f[PATH_MAX + 260];

			if (e->d_name[0] == '.')
				continue;
			snprintf(f, sizeof(f), "%s/%s", dir, e->d_name);
			unlink(f);
		}
		if (d != NULL)
			closedir(d);
		rmdir(dir);
	}
	return check_report("test_gpumem");
}
