/* SPDX-License-Identifier: BSD-3-Clause */
/* Buffer split (RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT): the port writes each
 * packet's first bytes (Ethernet + IPv4 + UDP + CODIF header) to a small
 * host mbuf and the payload to a buffer of a pool of its own, which the
 * ring then holds (indexed mode) until the row is reused. This file decides
 * it for every port (all split or none), sizes and feeds the pools both
 * split modes use, and is the zero-copy-split mode (the payload pool in
 * host memory); gpu-split (payload_gpu.c) puts that pool in GPU memory.
 * Untested on hardware here: no port these machines drive offers buffer
 * split; what runs here are the capability checks, the fallbacks and their
 * messages (tests/vdev). */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "err.h"
#include "gpumem.h"
#include "payload.h"

/* Ethernet + IPv4 (no options) + UDP + CODIF header: the port cuts here,
 * so the payload starts each payload buffer. An 802.1Q tag would move the
 * CODIF header past the cut: VLAN stripping is asked for where offered. */
#define SPLIT_HDR_LEN (14 + 20 + 8 + CODIF_HDR_LEN)

/* What buffer split is for in this configuration: its option, what the
 * payload pool is, and what happens without split. */
struct split_use {
	const char *opt, *mode, *where, *without;
	enum ibv_split_mode set;
};

static struct split_use
split_use(const struct ibv_pl_conf *c)
{
	if (c->gpu >= 0)
		return (struct split_use){ "--gpu-split", "--gpu", "GPU memory",
					   "payload reaches GPU memory by CPU copy", c->gpu_split };
	return (struct split_use){ "--zero-copy-split", "--zero-copy", "host payload buffers",
				   "the rings keep whole mbufs", c->zc_split };
}

int
ibv_pl_split_plan(struct ibv_pl *pl, const uint16_t *port_ids, const char *const *names,
		  char *err, size_t len)
{
	const struct ibv_pl_conf *c = &pl->conf;
	struct split_use u = split_use(c);
	unsigned int i;

	pl->split = false;
	pl->hdr_len = SPLIT_HDR_LEN;
	if (c->gpu < 0 && !c->zero_copy)
		return 0;
	if (u.set == IBV_SPLIT_OFF) {
		snprintf(pl->split_why, sizeof(pl->split_why), "%s off", u.opt);
		printf("dpdk-ibvcap: %s: buffer split off (%s off): %s\n", u.mode, u.opt, u.without);
		return 0;
	}
	for (i = 0; i < pl->nport; i++) {
		struct rte_eth_dev_info info;
		char why[200];
		int rc = rte_eth_dev_info_get(port_ids[i], &info);

		if (rc != 0)
			return err_set(err, len, rc, "port %u (%s): cannot read device info: %s",
				       port_ids[i], names[i], strerror(-rc));
		if (!gpumem_split_supported(&info, why, sizeof(why))) {
			snprintf(pl->split_why, sizeof(pl->split_why), "port %u (%s): %s",
				 port_ids[i], names[i], why);
			if (u.set == IBV_SPLIT_ON)
				return err_set(err, len, -EINVAL,
					       "%s on: port %u (%s): %s; every port must split "
					       "headers from payload (mlx5 does), or use %s auto "
					       "(then %s)", u.opt, port_ids[i], names[i], why, u.opt,
					       u.without);
			printf("dpdk-ibvcap: %s: %s: %s\n", u.mode, pl->split_why, u.without);
			return 0;
		}
	}
	pl->split = true;
	snprintf(pl->split_why, sizeof(pl->split_why),
		 "every port splits: first %u bytes to host mbufs, payload to %s", pl->hdr_len,
		 u.where);
	printf("dpdk-ibvcap: %s: buffer split on %u port%s: the first %u bytes of each packet "
	       "to a host mbuf, the payload straight to %s (no CPU copy)%s\n", u.mode,
	       pl->nport, pl->nport == 1 ? "" : "s", pl->hdr_len, u.where,
	       c->gpu >= 0 ? "; dpdk-pdump/dpdk-dumpcap taps are off (they would read GPU "
			     "memory)" : "");
	return 0;
}

void
ibv_pl_split_counts(const struct ibv_pl *pl, uint64_t *held, uint64_t *inflight)
{
	const struct ibv_pl_conf *c = &pl->conf;

	/* every slot of every ring may hold a payload buffer; on top, what
	 * the rx rings, the lcore caches (up to 1.5 x their size) and the
	 * bursts hold */
	*held = c->ring_slots;
	*inflight = (uint64_t)pl->nport * c->queues * c->rx_desc +
		    (uint64_t)rte_lcore_count() * (GPUMEM_POOL_CACHE * 3 / 2 + c->burst) + 1024;
}

uint32_t
ibv_pl_split_payload_room(const struct ibv_pl *pl)
{
	uint32_t frame = pl->conf.mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN + 2 * 4;

	return RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL(frame - pl->hdr_len, 64);
}

int
ibv_pl_split_hdr_pool(struct ibv_pl *pl, uint64_t inflight, char *err, size_t len)
{
	/* a header mbuf lives only while its packet is in flight */
	pl->hdr_mp = rte_pktmbuf_pool_create("ibvcap_split_hdr", (unsigned int)inflight,
					     GPUMEM_POOL_CACHE, 0, RTE_PKTMBUF_HEADROOM + 128,
					     (int)rte_socket_id());
	if (pl->hdr_mp == NULL)
		return err_set(err, len, -rte_errno, "%s: header mbuf pool of %" PRIu64 " x %u "
			       "bytes: %s (hugepages exhausted?)", split_use(&pl->conf).mode, inflight,
			       RTE_PKTMBUF_HEADROOM + 128, rte_strerror(rte_errno));
	ibv_pl_pool_keep(pl, pl->hdr_mp);
	return 0;
}

int
ibv_pl_split_rx(struct ibv_pl *pl, const struct ibv_pl_port *pp, struct ibv_pl_rx *rx,
		char *err, size_t len)
{
	const struct rte_eth_dev_info *info = pp->info;

	(void)err;
	(void)len;
	/* headers to host mbufs, payload to the payload pool */
	rx->offloads |= RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT;
	if (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER) {
		rx->offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
		rx->scatter = true;
	}
	/* a tag would move the CODIF header past the split point */
	if (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_VLAN_STRIP)
		rx->offloads |= RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
	gpumem_split_rxseg(rx->seg, pl->hdr_mp, pl->pay_mp, pl->hdr_len);
	rx->nseg = 2;
	rx->mp = NULL;
	return 0;
}

enum antbuf_result
ibv_pl_split_place(const struct ibv_pl *pl, struct antbuf_prod *p, const struct acct_fd *fd,
		   struct rte_mbuf **mp)
{
	struct rte_mbuf *m = *mp, *seg = m->next;
	uint32_t pay = fd->codif_len - CODIF_HDR_LEN, have;
	enum antbuf_result res;
	uint64_t ext_off;

	/* the payload must lie whole in the one payload segment: else the
	 * size offered is what is contiguous there and the ring counts the
	 * frame wrong-size (never read across memories). Nothing here reads
	 * the payload. */
	have = gpumem_split_payload(m, fd->codif_off + CODIF_HDR_LEN, pay, pl->gpu, &ext_off);
	res = antbuf_place_ref(p, fd, ext_off, (uintptr_t)seg, have);
	if (res != ANTBUF_PLACED)
		return res;
	/* the ring holds the payload segment now: cut it from the packet,
	 * which stays the caller's */
	m->next = NULL;
	m->nb_segs = 1;
	m->pkt_len = m->data_len;
	seg->nb_segs = 1;
	seg->pkt_len = seg->data_len;
	return res;
}

/* zero-copy-split: the payload pool in host memory (hugepages, the same
 * addresses in every DPDK process, as whole mbufs are). */
static int
host_split_create(struct ibv_pl *pl, char *err, size_t len)
{
	uint64_t held, inflight, n;
	uint32_t room = ibv_pl_split_payload_room(pl);

	if (ibv_pl_zero_create(pl, "--zero-copy", err, len) != 0)
		return -1;
	ibv_pl_split_counts(pl, &held, &inflight);
	n = held + inflight;
	if (n > UINT32_MAX || room > UINT16_MAX)
		return err_set(err, len, -EINVAL, "--zero-copy: %" PRIu64 " payload buffers of %u "
			       "bytes: over what a pool holds, use a smaller --ring", n, room);
	pl->pay_mp = rte_pktmbuf_pool_create("ibvcap_zc_pay", (uint32_t)n, GPUMEM_POOL_CACHE, 0,
					     (uint16_t)room, (int)rte_socket_id());
	if (pl->pay_mp == NULL)
		return err_set(err, len, -rte_errno,
			       "--zero-copy: payload pool of %" PRIu64 " x %u bytes (%.1f MiB: %"
			       PRIu64 " ring slots + %" PRIu64 " in flight): %s (hugepages "
			       "exhausted? reserve more, or a smaller --ring)", n, room,
			       (double)n * (room + 128) / 1048576.0, held, inflight,
			       rte_strerror(rte_errno));
	ibv_pl_pool_keep(pl, pl->pay_mp);
	printf("dpdk-ibvcap: --zero-copy: payload pool of %" PRIu64 " x %u bytes (%.1f MiB: %"
	       PRIu64 " ring slots + %" PRIu64 " in flight)\n", n, room,
	       (double)n * (room + 128) / 1048576.0, held, inflight);
	pl->gpu = NULL; /* references are addresses */
	pl->cpu = NULL;
	return ibv_pl_split_hdr_pool(pl, inflight, err, len);
}

static int
host_split_ring_attach(struct ibv_pl *pl, unsigned int a, struct antbuf_prod *p, char *err,
		       size_t len)
{
	/* frames stay where the port wrote them: the ring keeps a
	 * reference (the payload mbuf) per slot; offsets are addresses */
	return ibv_pl_refs_attach(pl, a, p, (uintptr_t)pl->zero, "payload", err, len);
}

/* A sampled frame's payload: the host segment after the head. */
static const uint8_t *
host_split_payload(const struct rte_mbuf *m, const uint8_t *data, uint32_t cap, uint32_t off,
		   uint32_t len)
{
	uint64_t addr;

	(void)data;
	(void)cap;
	if (gpumem_split_payload(m, off, len, NULL, &addr) < len)
		return NULL;
	return (const uint8_t *)(uintptr_t)addr;
}

const struct ibv_pl_ops ibv_pl_zero_copy_split = {
	.name = "zero-copy-split",
	.where = "the received mbufs (--zero-copy; headers and references here)",
	.mem = IBV_PAYLOAD_MBUF,
	.inline_payload = false,
	.cpu_packets = true,
	.head_segs = UINT16_MAX,
	.create = host_split_create,
	.port_rx = ibv_pl_split_rx,
	.ring_attach = host_split_ring_attach,
	.placer = IBV_PL_PLACE_SPLIT,
	.frame_payload = host_split_payload,
};
