/* SPDX-License-Identifier: BSD-3-Clause */
/* codifgen --tx-port: the frames on a DPDK port (a vdev such as net_pcap or
 * net_memif, or a NIC), one tx queue or one per antenna. */

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "codif.h"
#include "codifgen.h"
#include "parse.h"
#include "pkt.h"
#include "tconv.h"

/* Check the port, and create the tx mbuf pool on its socket, each mbuf
 * room for g's largest frame (a VLAN tag or an IPv6 header on top). */
static int
dpdk_pool_create(struct out_dpdk *od, const struct opts *o, const struct gen *g,
		 struct rte_eth_dev_info *info, char *name)
{
	uint32_t max_frame = PKT_HDRS_LEN + PKT_VLAN_LEN + 20 + CODIF_HDR_LEN +
			     (uint32_t)codif_data_bytes(&g->cfg.tmpl);
	uint32_t room = RTE_PKTMBUF_HEADROOM + max_frame;
	int rc, sock;

	if (!rte_eth_dev_is_valid_port(od->port)) {
		fprintf(stderr,
			"codifgen: --tx-port %u: no such DPDK port (%u available; "
			"give one with --vdev or -a before '--')\n",
			od->port, rte_eth_dev_count_avail());
		return -1;
	}
	if (room > UINT16_MAX) {
		fprintf(stderr, "codifgen: --tx-port: %u-byte frames do not fit one mbuf "
			"(at most %u bytes); lower --data-bytes\n", max_frame,
			UINT16_MAX - RTE_PKTMBUF_HEADROOM);
		return -1;
	}
	rte_eth_dev_get_name_by_port(od->port, name);
	rc = rte_eth_dev_info_get(od->port, info);
	if (rc != 0) {
		fprintf(stderr, "codifgen: port %u (%s): info: %s\n", od->port, name,
			strerror(-rc));
		return -1;
	}
	sock = rte_eth_dev_socket_id(od->port);
	/* a cache may hold at most 2/3 of the pool (DPDK's rule) */
	od->mp = rte_pktmbuf_pool_create("codifgen_tx", o->nb_mbufs,
					 RTE_MIN(256u, o->nb_mbufs * 2 / 3), 0, (uint16_t)room,
					 sock < 0 ? (int)rte_socket_id() : sock);
	if (od->mp == NULL) {
		fprintf(stderr, "codifgen: tx mbuf pool of %u x %u bytes: %s "
			"(reserve more hugepages or lower --mbufs)\n",
			o->nb_mbufs, room, rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/* Configure the port: one rx queue (unused), od->nq tx queues, MTU 9000
 * where the port allows it. */
static int
dpdk_queues_setup(struct out_dpdk *od, const struct rte_eth_dev_info *info, const char *name)
{
	struct rte_eth_conf conf;
	struct rte_eth_txconf txc;
	unsigned int q;
	int rc;

	if (od->nq > info->max_tx_queues) {
		fprintf(stderr, "codifgen: --queue-per-antenna: port %u (%s) has %u tx "
			"queues, %u needed (antennas + 1)\n", od->port, name,
			info->max_tx_queues, od->nq);
		return -1;
	}
	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(od->port, 1, (uint16_t)od->nq, &conf);
	if (rc != 0) {
		fprintf(stderr, "codifgen: port %u (%s): configure: %s\n", od->port,
			name, strerror(-rc));
		return -1;
	}
	rc = rte_eth_dev_set_mtu(od->port, 9000);
	if (rc != 0 && info->max_mtu < 9000)
		fprintf(stderr,
			"codifgen: port %u (%s): MTU 9000 not settable (max %u): %s; "
			"jumbo frames may be refused\n",
			od->port, name, info->max_mtu, strerror(-rc));
	rc = rte_eth_rx_queue_setup(od->port, 0, 256, rte_eth_dev_socket_id(od->port),
				    NULL, od->mp);
	if (rc != 0) {
		fprintf(stderr, "codifgen: port %u (%s): rx queue: %s\n", od->port,
			name, strerror(-rc));
		return -1;
	}
	txc = info->default_txconf;
	for (q = 0; q < od->nq; q++) {
		rc = rte_eth_tx_queue_setup(od->port, (uint16_t)q, 1024,
					    rte_eth_dev_socket_id(od->port), &txc);
		if (rc != 0) {
			fprintf(stderr, "codifgen: port %u (%s): tx queue %u: %s\n",
				od->port, name, q, strerror(-rc));
			return -1;
		}
	}
	return 0;
}

/* Start the port and wait up to 10 s for its link (a memif client's comes
 * up when the server answers); a link still down is said, not fatal. */
static int
dpdk_start(struct out_dpdk *od, const char *name)
{
	struct rte_eth_link link;
	uint64_t end;
	int rc = rte_eth_dev_start(od->port);

	if (rc != 0) {
		fprintf(stderr, "codifgen: port %u (%s): start: %s\n", od->port,
			name, strerror(-rc));
		return -1;
	}
	od->started = true;
	end = (uint64_t)mono_ns() + 10000000000ULL;
	do {
		memset(&link, 0, sizeof(link));
		rte_eth_link_get_nowait(od->port, &link);
		if (link.link_status == RTE_ETH_LINK_UP)
			break;
		usleep(10000);
	} while ((uint64_t)mono_ns() < end && !cg_stop);
	if (link.link_status != RTE_ETH_LINK_UP)
		fprintf(stderr, "codifgen: port %u (%s): link still down after 10 s; "
			"sending anyway\n", od->port, name);
	return 0;
}

int
dpdk_open(struct out_dpdk *od, const struct opts *o, const struct gen *g)
{
	struct rte_eth_dev_info info;
	char name[RTE_ETH_NAME_MAX_LEN];

	memset(od, 0, sizeof(*od));
	od->port = o->tx_port;
	if (dpdk_pool_create(od, o, g, &info, name) != 0)
		return -1;
	od->per_antenna = o->queue_per_antenna;
	od->nq = o->queue_per_antenna ? g->cfg.nant + 1 : 1;
	if (dpdk_queues_setup(od, &info, name) != 0)
		return -1;
	return dpdk_start(od, name);
}

static int
dpdk_flush_q(struct out_dpdk *od, unsigned int q)
{
	unsigned int done = 0, n = od->n[q];
	uint64_t t0 = (uint64_t)mono_ns();

	while (done < n) {
		uint16_t k = rte_eth_tx_burst(od->port, (uint16_t)q, od->burst[q] + done,
					      (uint16_t)(n - done));

		done += k;
		if (done < n && od->drop) {
			/* a full ring drops, as a NIC's would */
			rte_pktmbuf_free_bulk(od->burst[q] + done, n - done);
			od->dropped += n - done;
			break;
		}
		if (done < n) {
			od->retries++;
			if ((uint64_t)mono_ns() - t0 > 5000000000ULL) {
				fprintf(stderr,
					"codifgen: port %u queue %u: tx stalled for 5 s with %u "
					"frames left (is the peer receiving?)\n",
					od->port, q, n - done);
				rte_pktmbuf_free_bulk(od->burst[q] + done, n - done);
				od->sent += done;
				od->n[q] = 0;
				return -1;
			}
		}
	}
	od->sent += done;
	od->n[q] = 0;
	return 0;
}

static int
dpdk_flush(struct out_dpdk *od)
{
	unsigned int q;
	int rc = 0;

	for (q = 0; q < od->nq; q++)
		if (od->n[q] && dpdk_flush_q(od, q) != 0)
			rc = -1;
	return rc;
}

int
dpdk_send(struct out_dpdk *od, const struct gen *g, const struct gen_pkt *p)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(od->mp);
	unsigned int q = od->per_antenna ? g->st[p->stream].ant : 0;
	uint8_t *d;
	uint32_t len;

	if (m == NULL) {
		if (dpdk_flush(od) != 0)
			return -1;
		m = rte_pktmbuf_alloc(od->mp);
		if (m == NULL) {
			fprintf(stderr, "codifgen: tx pool exhausted (raise --mbufs)\n");
			return -1;
		}
	}
	d = rte_pktmbuf_mtod(m, uint8_t *);
	len = gen_build(g, p, d);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	od->burst[q][od->n[q]++] = m;
	/* in order per queue; a paced run sends each packet at once */
	if (od->n[q] == RTE_DIM(od->burst[q]) || od->pace)
		return dpdk_flush_q(od, q);
	return 0;
}

void
dpdk_close(struct out_dpdk *od, uint64_t linger_ns)
{
	if (od->started) {
		dpdk_flush(od);
		if (linger_ns) {
			struct timespec ts = { (time_t)(linger_ns / 1000000000ULL),
					       (long)(linger_ns % 1000000000ULL) };

			nanosleep(&ts, NULL);
		}
		rte_eth_dev_stop(od->port);
		rte_eth_dev_close(od->port);
	}
}
