/* SPDX-License-Identifier: BSD-3-Clause */
/* Multicast membership: kernel sockets on each port's interface (IGMP stays
 * in the kernel, as bifurcated mlx5 needs), held for the run. */

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "ports.h"
#include "parse.h"

int
ibv_join_all(struct ibv_ports *ports, const struct ibv_config *c, char *err, size_t len)
{
	unsigned int i, g;
	char a[16];

	if (c->no_join) {
		printf("dpdk-ibvcap: not joining multicast groups (--no-join)\n");
		return 0;
	}
	for (i = 0; i < ports->n; i++) {
		struct ibv_port *p = &ports->port[i];
		struct rte_eth_dev_info info;
		unsigned int ifindex = 0;

		if (p->groups == 0)
			continue;
		if (c->port[i].iface[0] != '\0') {
			str_copy(p->iface, sizeof(p->iface), c->port[i].iface);
			ifindex = if_nametoindex(p->iface);
			if (ifindex == 0)
				return err_set(err, len, -errno, "--join-iface %u=%s: no such interface: %s",
					    i, p->iface, strerror(errno));
		} else if (rte_eth_dev_info_get(p->port_id, &info) == 0 && info.if_index != 0 &&
			   if_indextoname(info.if_index, p->iface) != NULL) {
			ifindex = info.if_index;
		}
		if (ifindex == 0) {
			char list[512];
			size_t off = 0;

			for (g = 0; g < c->layout.ngroup; g++)
				if (p->groups >> g & 1)
					off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
								off ? ", " : "",
								ipv4_str(c->layout.group[g].ip, a, sizeof(a)));
			printf("dpdk-ibvcap: port %u (%s) has no kernel interface: not joining "
			       "%s (name one with --join-iface %u=IFNAME)\n",
			       p->port_id, p->name, list, i);
			p->iface[0] = '\0';
			continue;
		}
		p->join_fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (p->join_fd < 0)
			return err_set(err, len, -errno, "socket for multicast joins: %s", strerror(errno));
		for (g = 0; g < c->layout.ngroup; g++) {
			struct ip_mreqn mr;

			if (!(p->groups >> g & 1))
				continue;
			memset(&mr, 0, sizeof(mr));
			mr.imr_multiaddr.s_addr = htonl(c->layout.group[g].ip);
			mr.imr_ifindex = (int)ifindex;
			if (setsockopt(p->join_fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr,
				       sizeof(mr)) != 0)
				return err_set(err, len, -errno,
					    "cannot join group %s on interface %s (port %u, %s): %s",
					    ipv4_str(c->layout.group[g].ip, a, sizeof(a)), p->iface,
					    p->port_id, p->name, strerror(errno));
			p->joined++;
		}
		printf("dpdk-ibvcap: port %u (%s): joined %u group%s on %s\n", p->port_id,
		       p->name, p->joined, p->joined == 1 ? "" : "s", p->iface);
	}
	return 0;
}

void
ibv_leave_all(struct ibv_ports *ports)
{
	unsigned int i;

	for (i = 0; i < ports->n; i++) {
		struct ibv_port *p = &ports->port[i];

		/* closing the socket drops every membership (IGMP leave) */
		if (p->join_fd >= 0)
			close(p->join_fd);
		p->join_fd = -1;
		p->joined = 0;
	}
}
