/* SPDX-License-Identifier: BSD-3-Clause */
/* The copy mode: each frame's payload copied once into its antenna's ring
 * in the memzone; whole packets in a pool of each port's own. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include "err.h"
#include "payload.h"

int
ibv_pl_whole_conf(const struct ibv_pl *pl, const struct ibv_pl_port *pp, struct ibv_pl_rx *rx,
		  char *err, size_t len)
{
	const struct rte_eth_dev_info *info = pp->info;
	uint32_t frame = pl->conf.frame_bytes, room = pl->conf.mbuf_room;

	/* one jumbo frame per mbuf unless the port can scatter */
	if (room > UINT16_MAX)
		return err_set(err, len, -EINVAL, "mbuf data room %u bytes is over 65535", room);
	if (room - RTE_PKTMBUF_HEADROOM < frame) {
		if (!(info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER))
			return err_set(err, len, -EINVAL,
				       "port %u (%s): %u-byte frames (MTU %u) do not fit "
				       "%u-byte mbufs and the port cannot scatter: raise "
				       "--mbuf-size", pp->port_id, pp->name, frame, pl->conf.mtu,
				       room - RTE_PKTMBUF_HEADROOM);
		rx->offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
		rx->scatter = true;
	}
	if (info->min_rx_bufsize > room - RTE_PKTMBUF_HEADROOM)
		return err_set(err, len, -EINVAL,
			       "port %u (%s): needs rx buffers of %u bytes, mbufs hold %u",
			       pp->port_id, pp->name, info->min_rx_bufsize,
			       room - RTE_PKTMBUF_HEADROOM);
	return 0;
}

int
ibv_pl_whole_rx(struct ibv_pl *pl, const struct ibv_pl_port *pp, struct ibv_pl_rx *rx,
		char *err, size_t len)
{
	uint32_t room = pl->conf.mbuf_room;
	char pool[RTE_MEMPOOL_NAMESIZE];

	if (ibv_pl_whole_conf(pl, pp, rx, err, len) != 0)
		return -1;
	snprintf(pool, sizeof(pool), "ibvcap_rx_%u", pp->port_id);
	rx->mp = rte_pktmbuf_pool_create(pool, pp->nb, 256, 0, (uint16_t)room, pp->socket);
	if (rx->mp == NULL)
		return err_set(err, len, -rte_errno,
			       "port %u (%s): mbuf pool of %u x %u bytes: %s (hugepages "
			       "exhausted? reserve more, or lower --mbufs/--rx-desc)",
			       pp->port_id, pp->name, pp->nb, room, rte_strerror(rte_errno));
	ibv_pl_pool_keep(pl, rx->mp);
	return 0;
}

const uint8_t *
ibv_pl_whole_payload(const struct rte_mbuf *m, const uint8_t *data, uint32_t cap, uint32_t off,
		     uint32_t len)
{
	(void)m;
	return off + len <= cap ? data + off : NULL;
}

const struct ibv_pl_ops ibv_pl_copy = {
	.name = "copy",
	.where = NULL,
	.mem = IBV_PAYLOAD_HOST,
	.inline_payload = true,
	.cpu_packets = true,
	.head_segs = 1,
	.port_rx = ibv_pl_whole_rx,
	.placer = IBV_PL_PLACE_COPY,
	.frame_payload = ibv_pl_whole_payload,
};
