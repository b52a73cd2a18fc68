/* SPDX-License-Identifier: BSD-3-Clause */
/* Test tool: join multicast groups on an interface with kernel sockets, count
 * every CODIF datagram with lib/acct, print JSON counts (the truth's schema). */

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "countjson.h"
#include "parse.h"
#include "pkt.h"
#include "tconv.h"

#define MAXG 64


int
main(int argc, char **argv)
{
	struct pollfd pfd[MAXG];
	uint32_t gip[MAXG];
	uint16_t gport[MAXG];
	char *items[MAXG], *store = NULL, err[256];
	const char *iface = NULL, *groups = NULL;
	uint64_t expect = 0, pkts = 0, idle_ms = 3000, total_ms = 120000;
	static uint8_t frame[70000];
	struct acct_layout l;
	struct acct *a;
	unsigned int ifindex;
	int n, i, opt;
	double t0, last;

	while ((opt = getopt(argc, argv, "i:g:n:t:T:")) != -1) {
		switch (opt) {
		case 'i': iface = optarg; break;
		case 'g': groups = optarg; break;
		case 'n':
			if (parse_u64("-n", optarg, 1, UINT64_MAX, &expect, err, sizeof(err)))
				goto bad;
			break;
		case 't':
			if (parse_u64("-t", optarg, 1, 3600000, &idle_ms, err, sizeof(err)))
				goto bad;
			break;
		case 'T':
			if (parse_u64("-T", optarg, 1, 3600000, &total_ms, err, sizeof(err)))
				goto bad;
			break;
		default:
			fprintf(stderr, "usage: mcastrecv -i IFACE -g IP:PORT[,...] [-n EXPECT] "
				"[-t IDLE_MS] [-T TOTAL_MS]\n");
			return 2;
		}
	}
	if (iface == NULL || groups == NULL) {
		fprintf(stderr, "mcastrecv: -i and -g are required\n");
		return 2;
	}
	ifindex = if_nametoindex(iface);
	if (ifindex == 0) {
		fprintf(stderr, "mcastrecv: -i %s: %s\n", iface, strerror(errno));
		return 1;
	}
	n = parse_list("-g", groups, ',', items, MAXG, &store, err, sizeof(err));
	if (n < 0)
		goto bad;
	for (i = 0; i < n; i++) {
		struct sockaddr_in sin;
		struct ip_mreqn mr;
		int fd, one = 1, rb = 64 << 20;

		if (parse_ipv4_port("-g", items[i], &gip[i], &gport[i], err, sizeof(err)))
			goto bad;
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb)) != 0)
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
		setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(gip[i]);
		sin.sin_port = htons(gport[i]);
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
			fprintf(stderr, "mcastrecv: bind %s: %s\n", items[i], strerror(errno));
			return 1;
		}
		memset(&mr, 0, sizeof(mr));
		mr.imr_multiaddr.s_addr = htonl(gip[i]);
		mr.imr_ifindex = (int)ifindex;
		if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr)) != 0) {
			fprintf(stderr, "mcastrecv: join %s on %s: %s\n", items[i], iface,
				strerror(errno));
			return 1;
		}
		pfd[i].fd = fd;
		pfd[i].events = POLLIN;
	}
	memset(&l, 0, sizeof(l));
	l.learn = true;
	a = acct_create(&l);
	printf("ready\n");
	fflush(stdout);
	t0 = last = mono_s();
	while (expect == 0 || pkts < expect) {
		int r = poll(pfd, (nfds_t)n, 100);
		double t = mono_s();

		if (r < 0 && errno != EINTR)
			break;
		if ((pkts > 0 && (t - last) * 1000 > (double)idle_ms) ||
		    (t - t0) * 1000 > (double)total_ms)
			break;
		for (i = 0; i < n && r > 0; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			for (;;) {
				struct sockaddr_in src;
				char cbuf[256];
				struct iovec iov;
				struct msghdr mh;
				struct cmsghdr *cm;
				struct pkt_udp4_spec sp;
				struct acct_result res;
				uint32_t dst = gip[i], hl;
				ssize_t len;

				memset(&sp, 0, sizeof(sp));
				iov.iov_base = frame + PKT_HDRS_LEN;
				iov.iov_len = sizeof(frame) - PKT_HDRS_LEN;
				memset(&mh, 0, sizeof(mh));
				mh.msg_name = &src;
				mh.msg_namelen = sizeof(src);
				mh.msg_iov = &iov;
				mh.msg_iovlen = 1;
				mh.msg_control = cbuf;
				mh.msg_controllen = sizeof(cbuf);
				len = recvmsg(pfd[i].fd, &mh, MSG_DONTWAIT);
				if (len < 0)
					break;
				for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
					if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO)
						dst = ntohl(((struct in_pktinfo *)CMSG_DATA(cm))->ipi_addr.s_addr);
				/* rebuild the L2-L4 headers the kernel took off */
				sp.src_ip = ntohl(src.sin_addr.s_addr);
				sp.dst_ip = dst;
				sp.sport = ntohs(src.sin_port);
				sp.dport = gport[i];
				sp.ttl = 1;
				hl = pkt_build_udp4(frame, &sp, (uint32_t)len);
				count_frame(a, frame, hl + (uint32_t)len, &res);
				pkts++;
				last = mono_s();
			}
		}
	}
	count_finish(a);
	count_json(stdout, a, pkts, 0, 0, NULL);
	acct_free(a);
	free(store);
	return 0;
bad:
	fprintf(stderr, "mcastrecv: %s\n", err);
	return 2;
}
