/* SPDX-License-Identifier: BSD-3-Clause */
/* codifgen --socket: real UDP multicast from kernel sockets, one per antenna,
 * bound to the antenna's source address. */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "codifgen.h"
#include "parse.h"

int
sock_open(struct out_sock *os, const struct gen_cfg *c)
{
	unsigned int a;
	char ip[16];

	for (a = 0; a < GEN_MAX_ANTENNAS; a++)
		os->fd[a] = -1;
	for (a = 0; a < c->nant; a++) {
		struct sockaddr_in sin;
		struct in_addr ifa;
		int fd, v;
		unsigned char ttl = c->ttl, loop = 0;

		if (c->select != 0 && !(c->select >> a & 1))
			continue;
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0) {
			fprintf(stderr, "codifgen: socket: %s\n", strerror(errno));
			return -1;
		}
		os->fd[a] = fd;
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(c->ant_ip[a]);
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
			fprintf(stderr,
				"codifgen: antenna %u: cannot bind to source %s: %s "
				"(the address must be on an interface of this host or "
				"namespace: ip addr add, or choose --antenna-ip/--antenna)\n",
				a, ipv4_str(c->ant_ip[a], ip, sizeof(ip)), strerror(errno));
			return -1;
		}
		ifa.s_addr = htonl(c->ant_ip[a]);
		v = 4 << 20;
		if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &ifa, sizeof(ifa)) != 0 ||
		    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl)) != 0 ||
		    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof(loop)) != 0) {
			fprintf(stderr, "codifgen: antenna %u: multicast options: %s\n",
				a, strerror(errno));
			return -1;
		}
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
		v = IP_PMTUDISC_DO; /* never fragment: a CODIF frame is one datagram */
		setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v));
	}
	return 0;
}

int
sock_send(struct out_sock *os, const struct gen *g, const struct gen_pkt *p,
	  const uint8_t *payload, uint32_t len)
{
	const struct gen_stream *s = &g->st[p->stream];
	struct sockaddr_in dst;
	char ip[16];
	int tries = 0;

	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_addr.s_addr = htonl(g->cfg.group[s->group].ip);
	dst.sin_port = htons(g->cfg.group[s->group].port);
	for (;;) {
		ssize_t n = sendto(os->fd[s->ant], payload, len, 0,
				   (struct sockaddr *)&dst, sizeof(dst));

		if (n == (ssize_t)len)
			return 0;
		if (n < 0 && (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) &&
		    tries++ < 100000 && !cg_stop) {
			struct timespec ts = { 0, 20000 };

			os->retries++;
			nanosleep(&ts, NULL);
			continue;
		}
		if (n < 0 && errno == EMSGSIZE)
			fprintf(stderr,
				"codifgen: antenna %u: a %u-byte datagram does not fit the "
				"MTU of the route to %s (set MTU 9000 on the interface)\n",
				s->ant, len, ipv4_str(g->cfg.group[s->group].ip, ip, sizeof(ip)));
		else
			fprintf(stderr, "codifgen: antenna %u: sendto %s: %s\n", s->ant,
				ipv4_str(g->cfg.group[s->group].ip, ip, sizeof(ip)),
				n < 0 ? strerror(errno) : "short send");
		return -1;
	}
}

void
sock_close(struct out_sock *os)
{
	unsigned int a;

	for (a = 0; a < GEN_MAX_ANTENNAS; a++)
		if (os->fd[a] >= 0)
			close(os->fd[a]);
}
