/* SPDX-License-Identifier: BSD-3-Clause */
/* The zero-copy mode (--zero-copy without buffer split): the ring keeps
 * the mbuf each frame arrived in, until its row is reused; one pool for
 * every port, sized for every slot of every ring. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "err.h"
#include "payload.h"

static int
mbuf_create(struct ibv_pl *pl, char *err, size_t len)
{
	return ibv_pl_zero_create(pl, "--zero-copy", err, len);
}

/* One pool for every port (an antenna's frames may come from any port):
 * made for the first port, sized for every ring slot besides what each
 * port needs in flight. */
static int
mbuf_port_rx(struct ibv_pl *pl, const struct ibv_pl_port *pp, struct ibv_pl_rx *rx, char *err,
	     size_t len)
{
	uint32_t room = pl->conf.mbuf_room;
	uint64_t slots = pl->conf.ring_slots, total;

	if (ibv_pl_whole_conf(pl, pp, rx, err, len) != 0)
		return -1;
	if (pl->zc_pool != NULL) {
		rx->mp = pl->zc_pool;
		return 0;
	}
	total = slots + (uint64_t)pp->nb * pl->nport;
	if (total > UINT32_MAX)
		return err_set(err, len, -EINVAL, "--zero-copy: %" PRIu64 " mbufs, more than a "
			       "pool holds: a smaller --ring", total);
	pl->zc_pool = rte_pktmbuf_pool_create("ibvcap_rx_zc", (uint32_t)total, 256, 0,
					      (uint16_t)room, pp->socket);
	if (pl->zc_pool == NULL)
		return err_set(err, len, -rte_errno,
			       "--zero-copy: mbuf pool of %" PRIu64 " x %u bytes (%.1f "
			       "MiB: %" PRIu64 " ring slots + %u per port): %s (hugepages "
			       "exhausted? reserve more, or a smaller --ring)", total, room,
			       (double)total * (room + 128) / 1048576.0, slots, pp->nb,
			       rte_strerror(rte_errno));
	ibv_pl_pool_keep(pl, pl->zc_pool);
	printf("dpdk-ibvcap: --zero-copy: one mbuf pool of %" PRIu64 " x %u bytes "
	       "(%.1f MiB) for every port: the rings keep up to %" PRIu64
	       " received frames\n", total, room, (double)total * (room + 128) / 1048576.0, slots);
	rx->mp = pl->zc_pool;
	return 0;
}

static int
mbuf_ring_attach(struct ibv_pl *pl, unsigned int a, struct antbuf_prod *p, char *err, size_t len)
{
	/* each slot refers to the mbuf its frame arrived in */
	return ibv_pl_refs_attach(pl, a, p, (uintptr_t)pl->zero, "mbuf", err, len);
}

/* The payload stays where the port wrote it; the ring keeps the packet.
 * Whole in one segment, or the ring counts it wrong-size (offered 0 bytes). */
enum antbuf_result
ibv_pl_mbuf_place(const struct ibv_pl *pl, struct antbuf_prod *p, const struct acct_fd *fd,
	   struct rte_mbuf **mp)
{
	struct rte_mbuf *m = *mp;
	uint32_t pay = fd->codif_len - CODIF_HDR_LEN;
	enum antbuf_result res;

	(void)pl;
	res = antbuf_place_ref(p, fd, (uintptr_t)(fd->pkt + fd->codif_off + CODIF_HDR_LEN),
			       (uintptr_t)m, m->nb_segs == 1 ? pay : 0);
	/* placed: the caller's reference is the ring's now (no refcount
	 * traffic per frame) */
	if (res == ANTBUF_PLACED)
		*mp = NULL;
	return res;
}

const struct ibv_pl_ops ibv_pl_zero_copy = {
	.name = "zero-copy",
	.where = "the received mbufs (--zero-copy; headers and references here)",
	.mem = IBV_PAYLOAD_MBUF,
	.inline_payload = false,
	.cpu_packets = true,
	.head_segs = 1,
	.create = mbuf_create,
	.port_rx = mbuf_port_rx,
	.ring_attach = mbuf_ring_attach,
	.placer = IBV_PL_PLACE_MBUF,
	.frame_payload = ibv_pl_whole_payload,
};
