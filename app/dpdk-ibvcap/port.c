/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports: resolution, queues, offloads, mbuf pools, multicast filters, rules, link. */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "err.h"
#include "payload.h"
#include "ports.h"
#include "parse.h"
#include "pkt.h"
#include "quirks.h"
#include "tconv.h"

static void
list_ports(char *buf, size_t len)
{
	uint16_t pid;
	size_t off = 0;

	buf[0] = '\0';
	RTE_ETH_FOREACH_DEV(pid) {
		char name[RTE_ETH_NAME_MAX_LEN];

		rte_eth_dev_get_name_by_port(pid, name);
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%u (%s)",
					off ? ", " : "", pid, name);
	}
	if (off == 0)
		snprintf(buf, len, "none");
}

int
ibv_ports_resolve(struct ibv_ports *ports, struct ibv_config *c, char *err, size_t len)
{
	char avail[512];
	unsigned int i, g;
	uint16_t pid;

	list_ports(avail, sizeof(avail));
	if (c->nport == 0) {
		RTE_ETH_FOREACH_DEV(pid) {
			if (c->nport == IBV_MAX_PORTS)
				break;
			rte_eth_dev_get_name_by_port(pid, c->port[c->nport].spec);
			c->port[c->nport].port_id = pid;
			c->nport++;
		}
		if (c->nport == 0)
			return err_set(err, len, -EINVAL,
				    "no DPDK port: give a device with -a PCI_ADDRESS or --vdev "
				    "(EAL options, before '--')");
		/* with --port, the configuration checked this already */
		for (i = c->nport; i < IBV_MAX_PORTS; i++)
			if (c->port[i].iface[0] != '\0')
				return err_set(err, len, -EINVAL, "--join-iface: port index %u (%s), but there "
					    "%s only %u port%s", i, c->port[i].iface,
					    c->nport == 1 ? "is" : "are", c->nport,
					    c->nport == 1 ? "" : "s");
	}
	for (i = 0; i < c->nport; i++) {
		const char *s = c->port[i].spec;
		uint64_t id;

		if (isdigit((unsigned char)s[0]) && strchr(s, ':') == NULL &&
		    parse_u64("--port", s, 0, RTE_MAX_ETHPORTS - 1, &id, NULL, 0) == 0) {
			if (!rte_eth_dev_is_valid_port((uint16_t)id))
				return err_set(err, len, -EINVAL, "--port %s: no such DPDK port (available: %s)",
					    s, avail);
			pid = (uint16_t)id;
		} else if (rte_eth_dev_get_port_by_name(s, &pid) != 0) {
			return err_set(err, len, -EINVAL, "--port %s: no such DPDK device (available: %s)",
				    s, avail);
		}
		c->port[i].port_id = pid;
	}
	for (i = 0; i < c->nport; i++) {
		unsigned int j;

		for (j = 0; j < i; j++)
			if (c->port[i].port_id == c->port[j].port_id)
				return err_set(err, len, -EINVAL, "--port: port %d given twice", c->port[i].port_id);
	}
	ports->n = c->nport;
	for (i = 0; i < ports->n; i++) {
		struct ibv_port *p = &ports->port[i];

		p->port_id = (uint16_t)c->port[i].port_id;
		rte_eth_dev_get_name_by_port(p->port_id, p->name);
		p->join_fd = -1;
	}
	for (g = 0; g < c->layout.ngroup; g++) {
		int pi = c->group_port[g] >= 0 ? c->group_port[g] : (int)(g % c->nport);
		char a[16];

		if (pi >= (int)c->nport)
			return err_set(err, len, -EINVAL,
				    "group %s:%u: joined on port index %d, but %u ports are in use",
				    ipv4_str(c->layout.group[g].ip, a, sizeof(a)),
				    c->layout.group[g].port, pi, c->nport);
		ports->port[pi].groups |= 1ULL << g;
	}
	return 0;
}

static void
set_mcast(const struct ibv_config *c, struct ibv_port *p)
{
	struct rte_ether_addr mac[ACCT_MAX_GROUPS];
	unsigned int g, n = 0;

	for (g = 0; g < c->layout.ngroup; g++)
		if (p->groups >> g & 1)
			pkt_mcast_mac(c->layout.group[g].ip, mac[n++].addr_bytes);
	if (n > 0 && rte_eth_dev_set_mc_addr_list(p->port_id, mac, n) == 0)
		p->mcast_mode = "multicast address list";
	else if (rte_eth_allmulticast_enable(p->port_id) == 0 &&
		 rte_eth_allmulticast_get(p->port_id) == 1)
		p->mcast_mode = "all-multicast";
	else if (rte_eth_promiscuous_enable(p->port_id) == 0)
		p->mcast_mode = "promiscuous";
	else
		p->mcast_mode = "none (the port filters nothing it can be told)";
}

/* Rx queues: one per antenna and the default queue; software steering
 * makes do with what the port has, and --steer auto falls back to it. */
static int
port_queues(const struct ibv_config *c, struct ibv_port *p, const struct rte_eth_dev_info *info,
	    char *err, size_t len)
{
	unsigned int need = ibv_queues_needed(c);

	p->few_queues = false;
	if (info->max_rx_queues < need) {
		if (c->steer == IBV_STEER_FLOW)
			return err_set(err, len, -EINVAL,
				    "port %u (%s) has %u rx queue%s; --steer flow needs %u (%u "
				    "antennas + 1 default): use a port with more queues, fewer "
				    "antennas, or --steer auto",
				    p->port_id, p->name, info->max_rx_queues,
				    info->max_rx_queues == 1 ? "" : "s", need, c->layout.nant);
		snprintf(p->steer_why, sizeof(p->steer_why),
			 "the port has %u rx queue%s, one per antenna and a default one "
			 "need %u", info->max_rx_queues, info->max_rx_queues == 1 ? "" : "s", need);
		p->few_queues = true;
		need = info->max_rx_queues;
	}
	p->nq = need;
	return 0;
}

/* The offloads asked for besides the payload mode's: the IPv4 header
 * checksum where the port checks it (rx.c reads the verdict; lib/pkt
 * checks in software otherwise) and the rx timestamp where it stamps. */
static void
port_offloads(struct ibv_ports *ports, struct ibv_port *p, const struct rte_eth_dev_info *info,
	      struct rte_eth_conf *conf)
{
	if (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM)
		conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	if (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP) {
		conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
		p->ts_offload = true;
		if (ports->ts_offset < 0 &&
		    rte_mbuf_dyn_rx_timestamp_register(&ports->ts_offset, &ports->ts_flag) != 0) {
			conf->rxmode.offloads &= ~RTE_ETH_RX_OFFLOAD_TIMESTAMP;
			p->ts_offload = false;
			ports->ts_offset = -1;
		}
	}
}

/* The MTU: --mtu, or the device's largest where that is less (a warning,
 * not a failure: af_packet and memif advertise 1500 yet deliver what the
 * kernel or the peer sends). */
static void
port_mtu(const struct ibv_config *c, struct ibv_port *p, const struct rte_eth_dev_info *info,
	 struct rte_eth_conf *conf)
{
	/* the device's largest MTU, as ethdev's configure checks it */
	uint32_t ovh = (info->max_mtu != UINT16_MAX && info->max_rx_pktlen > info->max_mtu) ?
			       info->max_rx_pktlen - info->max_mtu :
			       RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	uint32_t dev_max = RTE_MIN((uint32_t)info->max_mtu,
				   info->max_rx_pktlen > ovh ? info->max_rx_pktlen - ovh : 0);

	p->mtu = c->mtu;
	if (dev_max < c->mtu) {
		printf("dpdk-ibvcap: port %u (%s): cannot set MTU %u (device maximum %u); "
		       "receiving what the device delivers\n",
		       p->port_id, p->name, c->mtu, dev_max);
		p->mtu = dev_max;
	}
	conf->rxmode.mtu = p->mtu;
}

/* Software steering with several queues: spread by addresses (RSS) so
 * each stream stays on one queue. */
static void
port_rss(const struct ibv_config *c, const struct ibv_port *p,
	 const struct rte_eth_dev_info *info, struct rte_eth_conf *conf)
{
	if ((c->steer == IBV_STEER_SOFTWARE || p->few_queues) && p->nq > 1 &&
	    (info->flow_type_rss_offloads & RTE_ETH_RSS_IP)) {
		conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf->rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IP & info->flow_type_rss_offloads;
	}
}

/* The mbufs the port needs in flight (--mbufs, or its queues, the lcore
 * caches and bursts, and what the driver keeps to itself: net_pcap's
 * infinite_rx). The payload layer sizes its pool from it. */
static int
port_mbufs(const struct ibv_config *c, const struct ibv_port *p, uint32_t *nb, char *err,
	   size_t len)
{
	char why[160];
	long held;

	*nb = ibv_mbufs_auto(c, p->nq, rte_lcore_count());
	held = quirk_port_held_mbufs(p->port_id, why, sizeof(why));
	if (held > 0 && c->nb_mbufs && c->nb_mbufs < *nb + (uint64_t)held)
		return err_set(err, len, -EINVAL,
			    "port %u (%s): --mbufs %u leaves none to receive with: %s; "
			    "give at least %" PRIu64 " (or leave --mbufs auto)", p->port_id,
			    p->name, c->nb_mbufs, why, *nb + (uint64_t)held);
	if (held > 0 && !c->nb_mbufs) {
		*nb += (uint32_t)held;
		printf("dpdk-ibvcap: port %u (%s): %u mbufs, as %s\n", p->port_id, p->name, *nb,
		       why);
	}
	if (c->nb_mbufs)
		*nb = c->nb_mbufs;
	return 0;
}

/* Configure the port and set its queues up, the rx queues on the payload
 * layer's memory (a pool, or the buffer-split pair). */
static int
port_configure(const struct ibv_config *c, struct ibv_port *p, const struct rte_eth_dev_info *info,
	       const struct rte_eth_conf *conf, struct ibv_pl_rx *rx, int socket, char *err,
	       size_t len)
{
	struct rte_eth_rxconf rxc;
	uint16_t rxd = c->rx_desc, txd = 512;
	unsigned int q;
	int rc;

	if (c->isolate) {
		char why[256];

		if (steer_isolate(p->port_id, true, why, sizeof(why)) != 0)
			return err_set(err, len, -EINVAL, "port %u (%s): --isolate: %s", p->port_id,
				    p->name, why);
		p->isolated = true;
	}
	rc = rte_eth_dev_configure(p->port_id, (uint16_t)p->nq, info->max_tx_queues ? 1 : 0,
				   conf);
	if (rc != 0)
		return err_set(err, len, rc, "port %u (%s): configure with %u rx queues: %s",
			    p->port_id, p->name, p->nq, strerror(-rc));
	p->configured = true;
	rte_eth_dev_adjust_nb_rx_tx_desc(p->port_id, &rxd, &txd);
	rxc = info->default_rxconf;
	rxc.offloads = conf->rxmode.offloads;
	if (rx->nseg > 0) {
		rxc.rx_seg = rx->seg;
		rxc.rx_nseg = rx->nseg;
	}
	for (q = 0; q < p->nq; q++) {
		rc = rte_eth_rx_queue_setup(p->port_id, (uint16_t)q, rxd, (unsigned int)socket,
					    &rxc, rx->mp);
		if (rc != 0)
			return err_set(err, len, rc, "port %u (%s): rx queue %u: %s", p->port_id,
				    p->name, q, strerror(-rc));
	}
	if (info->max_tx_queues) {
		rc = rte_eth_tx_queue_setup(p->port_id, 0, txd, (unsigned int)socket, NULL);
		if (rc != 0)
			return err_set(err, len, rc, "port %u (%s): tx queue: %s", p->port_id,
				    p->name, strerror(-rc));
	}
	return 0;
}

static int
setup_one(struct ibv_ports *ports, const struct ibv_config *c, struct ibv_pl *pl,
	  struct ibv_port *p, char *err, size_t len)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	struct ibv_pl_port pp;
	struct ibv_pl_rx rx;
	int socket, rc;

	rc = rte_eth_dev_info_get(p->port_id, &info);
	if (rc != 0)
		return err_set(err, len, rc, "port %u (%s): cannot read device info: %s",
			    p->port_id, p->name, strerror(-rc));
	socket = rte_eth_dev_socket_id(p->port_id);
	if (socket < 0)
		socket = (int)rte_socket_id();
	if (port_queues(c, p, &info, err, len) != 0)
		return -1;
	memset(&conf, 0, sizeof(conf));
	port_offloads(ports, p, &info, &conf);
	port_mtu(c, p, &info, &conf);
	port_rss(c, p, &info, &conf);
	pp = (struct ibv_pl_port){ .port_id = p->port_id, .name = p->name, .socket = socket,
				   .info = &info };
	if (port_mbufs(c, p, &pp.nb, err, len) != 0)
		return -1;
	/* the payload layer's memory for the rx queues, and the offloads its
	 * mode needs (buffer split, scatter) */
	if (ibv_pl_port_rx(pl, &pp, &rx, err, len) != 0)
		return -1;
	p->mp = rx.mp;
	p->scatter = rx.scatter;
	conf.rxmode.offloads |= rx.offloads;
	return port_configure(c, p, &info, &conf, &rx, socket, err, len);
}

int
ibv_ports_setup(struct ibv_ports *ports, const struct ibv_config *c, struct ibv_pl *pl,
		char *err, size_t len)
{
	unsigned int i;

	/* the payload layer's pools and device memory first, sized for the
	 * rings */
	if (ibv_pl_create(pl, err, len) != 0)
		return -1;
	for (i = 0; i < ports->n; i++)
		if (setup_one(ports, c, pl, &ports->port[i], err, len) != 0)
			return -1;
	return 0;
}

/* The one log line of a fallback to software steering (rules are installed
 * again after every start: said once). */
static void
fallback_line(struct ibv_port *p)
{
	printf("dpdk-ibvcap: port %u (%s): rte_flow cannot steer antennas (%s): "
	       "steering in software by source address on the rx lcores\n",
	       p->port_id, p->name, p->steer_why);
	p->fallback_said = true;
}

/* Rules: antenna a from every group this port joins -> queue a; the rest
 * -> the default queue. Installed after every start (mlx5 forgets them). */
static int
install_rules(const struct ibv_config *c, struct ibv_port *p, char *err, size_t len)
{
	unsigned int a, g, n = 0;
	int rc;

	p->hw_steer = false;
	if (c->steer == IBV_STEER_SOFTWARE) {
		snprintf(p->steer_why, sizeof(p->steer_why), "--steer software");
		return 0;
	}
	if (p->few_queues) {
		if (!p->fallback_said)
			fallback_line(p);
		return 0;
	}
	free(p->rules);
	p->rules = calloc((size_t)c->layout.nant * c->layout.ngroup + 1, sizeof(*p->rules));
	if (p->rules == NULL)
		return err_set(err, len, -EINVAL, "out of memory for flow rules");
	for (a = 0; a < c->layout.nant; a++)
		for (g = 0; g < c->layout.ngroup; g++) {
			if (!(p->groups >> g & 1))
				continue;
			p->rules[n].src_ip = c->layout.ant_ip[a];
			p->rules[n].dst_ip = c->layout.group[g].ip;
			p->rules[n].dport = c->layout.group[g].port;
			p->rules[n].queue = (uint16_t)a;
			p->rules[n].priority = 0;
			n++;
		}
	p->nrules = n;
	rc = steer_install(&p->sp, p->port_id, p->rules, n);
	if (rc == -ENOMEM)
		return err_set(err, len, -EINVAL, "out of memory for flow rules");
	if (rc == STEER_REFUSED) {
		if (c->steer == IBV_STEER_FLOW)
			return err_set(err, len, -EINVAL,
				    "port %u (%s): rte_flow refused the antenna rules (%s); "
				    "--steer flow%s needs them",
				    p->port_id, p->name, p->sp.why,
				    c->isolate ? " (implied by --isolate)" : "");
		str_copy(p->steer_why, sizeof(p->steer_why), p->sp.why);
		steer_remove(&p->sp);
		if (!p->fallback_said)
			fallback_line(p);
		return 0;
	}
	p->hw_steer = true;
	if (!c->isolate && steer_install_default(&p->sp, (uint16_t)(p->nq - 1), 1) != 0)
		printf("dpdk-ibvcap: port %u (%s): no catch-all rule (%s): unmatched "
		       "packets reach queue 0 and count as misdirected\n",
		       p->port_id, p->name, p->sp.why);
	return 0;
}

static void
wait_link(struct ibv_port *p, uint64_t timeout_ns, const volatile sig_atomic_t *stop)
{
	struct rte_eth_link link;
	char s[RTE_ETH_LINK_MAX_STR_LEN];
	uint64_t end = rte_get_timer_cycles() +
		       ns_to_cycles(timeout_ns, rte_get_timer_hz());

	for (;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(p->port_id, &link) != 0)
			break;
		if (link.link_status == RTE_ETH_LINK_UP || rte_get_timer_cycles() > end ||
		    *stop != 0)
			break;
		rte_delay_ms(100);
	}
	rte_eth_link_to_str(s, sizeof(s), &link);
	p->link_up = link.link_status == RTE_ETH_LINK_UP;
	if (link.link_status != RTE_ETH_LINK_UP)
		printf("dpdk-ibvcap: port %u (%s): link down after %.1f s; capturing anyway "
		       "(check cable, switch port, or --link-timeout)\n",
		       p->port_id, p->name, (double)timeout_ns / 1e9);
	else
		printf("dpdk-ibvcap: port %u (%s): %s\n", p->port_id, p->name, s);
}

void
ibv_ports_link_refresh(struct ibv_ports *ports)
{
	unsigned int i;

	for (i = 0; i < ports->n; i++) {
		struct rte_eth_link link;

		memset(&link, 0, sizeof(link));
		/* a port that cannot say is taken as up */
		if (rte_eth_link_get_nowait(ports->port[i].port_id, &link) != 0)
			link.link_status = RTE_ETH_LINK_UP;
		ports->port[i].link_up = link.link_status == RTE_ETH_LINK_UP;
	}
}

int
ibv_ports_start(struct ibv_ports *ports, const struct ibv_config *c, char *err, size_t len)
{
	unsigned int i;
	int rc;

	for (i = 0; i < ports->n; i++) {
		struct ibv_port *p = &ports->port[i];

		rc = rte_eth_dev_start(p->port_id);
		if (rc != 0)
			return err_set(err, len, rc, "port %u (%s): start: %s", p->port_id, p->name,
				    strerror(-rc));
		p->started = true;
		set_mcast(c, p);
		if (install_rules(c, p, err, len) != 0)
			return -1;
	}
	return 0;
}

void
ibv_ports_wait_link(struct ibv_ports *ports, uint64_t timeout_ns,
		    const volatile sig_atomic_t *stop)
{
	unsigned int i;

	for (i = 0; i < ports->n; i++)
		wait_link(&ports->port[i], timeout_ns, stop);
}

void
ibv_ports_stop(struct ibv_ports *ports)
{
	unsigned int i;

	for (i = 0; i < ports->n; i++) {
		struct ibv_port *p = &ports->port[i];

		steer_remove(&p->sp);
		if (p->started)
			rte_eth_dev_stop(p->port_id);
		p->started = false;
	}
}

/* Every mbuf back in its pool once the ports are closed (net_memif's only
 * stopped: quirks.h; it keeps no mbufs in its rx queues) and the rings have
 * let go of theirs (--zero-copy holds a ring's worth): said at exit, so a
 * leak shows. */
static void
mbuf_account(const struct ibv_ports *ports)
{
	struct rte_mempool *seen[IBV_MAX_PORTS + 1];
	unsigned int i, k, n = 0;
	uint64_t size = 0, out = 0;

	for (i = 0; i < ports->n; i++) {
		struct rte_mempool *mp = ports->port[i].mp;

		if (mp == NULL)
			return;
		for (k = 0; k < n && seen[k] != mp; k++)
			;
		if (k < n)
			continue;
		seen[n++] = mp;
		size += mp->size;
		out += rte_mempool_in_use_count(mp);
	}
	if (n == 0)
		return;
	if (out == 0)
		printf("dpdk-ibvcap: mbufs at exit: all %" PRIu64 " back in their pool%s\n", size,
		       n == 1 ? "" : "s");
	else
		printf("dpdk-ibvcap: mbufs at exit: %" PRIu64 " of %" PRIu64 " not back in their "
		       "pools (a leak: please report it)\n", out, size);
}

void
ibv_ports_close(struct ibv_ports *ports, struct ibv_pl *pl, bool keep_memory)
{
	unsigned int i;

	for (i = 0; i < ports->n; i++) {
		struct ibv_port *p = &ports->port[i];

		if (p->isolated) {
			char why[256];

			steer_isolate(p->port_id, false, why, sizeof(why));
		}
		if (p->configured) {
			/* net_memif (22.11) frees interrupt handles the EAL
			 * interrupt thread still uses when closed (quirks.h):
			 * stopped only, left to process exit. Every other
			 * port closes. */
			if (quirk_is_memif(p->port_id))
				rte_eth_dev_stop(p->port_id);
			else
				rte_eth_dev_close(p->port_id);
		}
		p->configured = false;
		free(p->rules);
		p->rules = NULL;
	}
	if (!keep_memory)
		mbuf_account(ports);
	for (i = 0; i < ports->n; i++)
		ports->port[i].mp = NULL;
	/* the queues are gone: the payload layer's pools (and GPU memory)
	 * can go (keep_memory: see ibv_rings_drain_external) */
	ibv_pl_free(pl, keep_memory);
}
