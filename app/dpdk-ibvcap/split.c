/* SPDX-License-Identifier: BSD-3-Clause */
/* Buffer split (RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT): the NIC writes each
 * packet's first bytes (Ethernet + IPv4 + UDP + CODIF header) to a small
 * host mbuf and the payload to a buffer of a pool of its own, which the
 * antenna buffer then holds (indexed mode) until the row is reused: with
 * --gpu the payload pool is in GPU memory (gpu.c), with --zero-copy in host
 * memory (here). Decided once for every port: all split or none.
 * Untested on hardware here: no port these machines can drive offers buffer
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
#include "ibvcap.h"

/* Ethernet + IPv4 (no options) + UDP + CODIF header: the NIC cuts here,
 * so the payload starts each payload buffer. An 802.1Q tag would move the
 * CODIF header past the cut: VLAN stripping is asked for where offered. */
#define SPLIT_HDR_LEN (14 + 20 + 8 + CODIF_HDR_LEN)

/* What buffer split is for, in this configuration: its option, what the
 * payload pool is, and what happens without split. */
struct split_use {
	const char *opt, *mode, *where, *without;
	enum ibv_split_mode set;
};

static struct split_use
split_use(const struct ibv_config *c)
{
	if (c->gpu >= 0)
		return (struct split_use){ "--gpu-split", "--gpu", "GPU memory",
					   "payload reaches GPU memory by CPU copy", c->gpu_split };
	return (struct split_use){ "--zero-copy-split", "--zero-copy", "host payload buffers",
				   "the rings keep whole mbufs", c->zc_split };
}

int
ibv_split_plan(struct ibv_app *app, char *err, size_t len)
{
	const struct ibv_config *c = &app->cfg;
	struct ibv_split *sp = &app->split;
	struct split_use u = split_use(c);
	unsigned int i;

	sp->on = false;
	sp->hdr_len = SPLIT_HDR_LEN;
	if (c->gpu < 0 && !c->zero_copy)
		return 0;
	if (u.set == IBV_SPLIT_OFF) {
		snprintf(sp->why, sizeof(sp->why), "%s off", u.opt);
		printf("dpdk-ibvcap: %s: buffer split off (%s off): %s\n", u.mode, u.opt, u.without);
		return 0;
	}
	for (i = 0; i < app->nport; i++) {
		struct ibv_port *p = &app->port[i];
		struct rte_eth_dev_info info;
		char why[200];
		int rc = rte_eth_dev_info_get(p->port_id, &info);

		if (rc != 0)
			return err_set(err, len, rc, "port %u (%s): cannot read device info: %s",
				    p->port_id, p->name, strerror(-rc));
		if (!gpumem_split_supported(&info, why, sizeof(why))) {
			snprintf(sp->why, sizeof(sp->why), "port %u (%s): %s", p->port_id, p->name,
				 why);
			if (u.set == IBV_SPLIT_ON)
				return err_set(err, len, -EINVAL,
					    "%s on: port %u (%s): %s; every port must split headers "
					    "from payload (mlx5 does), or use %s auto (then %s)",
					    u.opt, p->port_id, p->name, why, u.opt, u.without);
			printf("dpdk-ibvcap: %s: %s: %s\n", u.mode, sp->why,
			       u.without);
			return 0;
		}
	}
	sp->on = true;
	snprintf(sp->why, sizeof(sp->why),
		 "every port splits: first %u bytes to host mbufs, payload to %s", sp->hdr_len,
		 u.where);
	printf("dpdk-ibvcap: %s: buffer split on %u port%s: the first %u bytes of each packet "
	       "to a host mbuf, the payload straight to %s (no CPU copy)%s\n", u.mode,
	       app->nport, app->nport == 1 ? "" : "s", sp->hdr_len, u.where,
	       c->gpu >= 0 ? "; dpdk-pdump/dpdk-dumpcap taps are off (they would read GPU "
			     "memory)" : "");
	return 0;
}

void
ibv_split_counts(const struct ibv_app *app, uint64_t *held, uint64_t *inflight)
{
	const struct ibv_config *c = &app->cfg;
	uint32_t rows, win;

	ibv_buffer_rows(c, &rows, &win);
	/* every slot of every ring may hold a payload buffer; on top, what
	 * the rx rings, the lcore caches (up to 1.5 x their size) and the
	 * bursts hold */
	*held = (uint64_t)c->layout.nant * rows * ibv_slots(c);
	*inflight = (uint64_t)app->nport * ibv_queues_needed(c) * c->rx_desc +
		    (uint64_t)rte_lcore_count() * (GPUMEM_POOL_CACHE * 3 / 2 + c->burst) + 1024;
}

uint32_t
ibv_split_payload_room(const struct ibv_app *app)
{
	uint32_t frame = app->cfg.mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN + 2 * 4;

	return RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL(frame - app->split.hdr_len, 64);
}

int
ibv_split_hdr_pool(struct ibv_app *app, uint64_t inflight, char *err, size_t len)
{
	struct ibv_split *sp = &app->split;

	/* a header mbuf lives only while its packet is in flight */
	sp->hdr_mp = rte_pktmbuf_pool_create("ibvcap_split_hdr", (unsigned int)inflight,
					     GPUMEM_POOL_CACHE, 0, RTE_PKTMBUF_HEADROOM + 128,
					     (int)rte_socket_id());
	if (sp->hdr_mp == NULL)
		return err_set(err, len, -rte_errno, "%s: header mbuf pool of %" PRIu64 " x %u "
			    "bytes: %s (hugepages exhausted?)", split_use(&app->cfg).mode, inflight,
			    RTE_PKTMBUF_HEADROOM + 128, rte_strerror(rte_errno));
	return 0;
}

/* --zero-copy with split: the payload pool in host memory (hugepages, the
 * same addresses in every DPDK process, as whole mbufs are). */
static int
host_split_create(struct ibv_app *app, char *err, size_t len)
{
	struct ibv_split *sp = &app->split;
	uint64_t held, inflight, n;
	uint32_t room = ibv_split_payload_room(app);

	ibv_split_counts(app, &held, &inflight);
	n = held + inflight;
	if (n > UINT32_MAX || room > UINT16_MAX)
		return err_set(err, len, -EINVAL, "--zero-copy: %" PRIu64 " payload buffers of %u "
			    "bytes: over what a pool holds, use a smaller --ring", n, room);
	sp->pay_mp = rte_pktmbuf_pool_create("ibvcap_zc_pay", (uint32_t)n, GPUMEM_POOL_CACHE, 0,
					     (uint16_t)room, (int)rte_socket_id());
	if (sp->pay_mp == NULL)
		return err_set(err, len, -rte_errno,
			    "--zero-copy: payload pool of %" PRIu64 " x %u bytes (%.1f MiB: %" PRIu64
			    " ring slots + %" PRIu64 " in flight): %s (hugepages exhausted? reserve "
			    "more, or a smaller --ring)", n, room,
			    (double)n * (room + 128) / 1048576.0, held, inflight,
			    rte_strerror(rte_errno));
	printf("dpdk-ibvcap: --zero-copy: payload pool of %" PRIu64 " x %u bytes (%.1f MiB: %"
	       PRIu64 " ring slots + %" PRIu64 " in flight)\n", n, room,
	       (double)n * (room + 128) / 1048576.0, held, inflight);
	sp->gpu = NULL; /* references are addresses */
	sp->cpu = NULL;
	return ibv_split_hdr_pool(app, inflight, err, len);
}

int
ibv_split_create(struct ibv_app *app, char *err, size_t len)
{
	if (!app->split.on)
		return 0;
	return app->cfg.gpu >= 0 ? ibv_gpu_split_create(app, err, len) :
				   host_split_create(app, err, len);
}

void
ibv_split_free(struct ibv_app *app)
{
	struct ibv_split *sp = &app->split;

	if (app->bufs.keep_memory)
		return; /* a secondary lingers: left to the process exit */
	rte_mempool_free(sp->hdr_mp);
	sp->hdr_mp = NULL;
	rte_mempool_free(sp->pay_mp);
	sp->pay_mp = NULL;
	if (app->cfg.gpu >= 0)
		ibv_gpu_split_free(app); /* the pools' GPU region */
}
