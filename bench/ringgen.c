/* SPDX-License-Identifier: BSD-3-Clause */
/* Benchmark input (not a tool): fresh, valid, in-order CODIF frames, as
 * fast as one core makes them. Each mbuf's payload is written once; a frame
 * is a 42 + 64-byte header copied and its time set.
 *  --ring NAME: as a DPDK secondary of a running dpdk-ibvcap whose port is
 *    net_ring (--vdev net_ring0,nodeaction=NAME:0:CREATE), enqueue mbufs
 *    straight into that port's rx rings: pointer passing, no copy on the
 *    capture's side, so what its rx lcore spends is its own path (rx burst
 *    -> account -> place). Frames of antenna a go to ring a (rte_flow's
 *    steering) when there is a queue per antenna (--queues), else ring 0.
 *  --tx-port P: as a primary, send them on port P (e.g. a net_memif client
 *    joined to the capture or to dpdk-testpmd: the same input for both).
 *
 *   ringgen [EAL args] -- (--ring NAME | --tx-port P) --count N
 *           [--antennas A] [--data-bytes D] [--queues Q] [--pool M] [--groups G]
 *  --groups G: each antenna's streams G groups x 2 threads (default: 4 up
 *    to 8 antennas, else 1), the capture's --groups G.
 *  --pool M: mbufs in its pool; a capture in --zero-copy keeps what its
 *    rings hold, so give it more than that (rows x streams, all antennas).
 *  --garbage unknown|malformed: besides the frames, G (--garbage-ratio,
 *    default 1) 60-byte packets per frame, in bursts of their own (G
 *    after each burst of frames: an antenna's streams stay in step): from a
 *    source no antenna has (unknown), or from antenna 0's source to its
 *    first group with an 18-byte UDP payload, which cannot be CODIF
 *    (malformed); with --count 0 and --garbage-count N, N of them alone.
 *  --rate R: at most R frames per second in all (paced by the TSC before
 *    each burst of frames; 0, the default: as fast as it can), so that
 *    runs compared with each other offer the same load whatever else
 *    shares ringgen's CPU; it prints the rate it reached.
 *  --pool-of NAME: take mbufs from the primary's own ring-based mempool
 *    NAME (dpdk-testpmd's "mb_pool_0") through that pool's ring, never
 *    through mempool ops: a secondary's pool is driven by ops *index*, and
 *    dpdk-testpmd's ops table is ordered differently from ours (the
 *    mempool-ops trap, dpdk-here.md), so testpmd could not free mbufs of a
 *    pool ringgen made. Its own pool and its frees are then testpmd's.
 *  --start-ahead S: the first frame's CODIF time is the host's now + S
 *    seconds (rounded down to a frame of its period), not the generator's
 *    fixed default; each stream's data time then runs at --rate / streams
 *    frames a second, faster or slower than the host's clock. Scans are
 *    data time and start no earlier than the host's now: with data ahead
 *    of it they can be recorded (bench/consumer_rx_paired.sh WHAT=plugin).
 *  SIGINT or SIGTERM: it sends no more bursts, waits for the receiver as at
 *    its end and prints what it sent (a run whose length a caller decides:
 *    bench/consumer_rx_paired.sh).
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "gen.h"

#define BURST 32
#define POOL_DEFAULT 16383

/* n mbufs from the pool: through its ops (ours), or (--pool-of) from the
 * primary's pool's ring itself, reset as rte_pktmbuf_alloc would. */
static int
take(struct rte_mempool *mp, struct rte_ring *pr, struct rte_mbuf **m, unsigned int n)
{
	unsigned int i;

	if (pr == NULL)
		return rte_pktmbuf_alloc_bulk(mp, m, n);
	if (rte_ring_dequeue_bulk(pr, (void **)m, n, NULL) != n)
		return -ENOBUFS;
	for (i = 0; i < n; i++)
		rte_pktmbuf_reset(m[i]);
	return 0;
}

static void
give(struct rte_ring *pr, struct rte_mbuf **m, unsigned int n)
{
	if (pr == NULL)
		rte_pktmbuf_free_bulk(m, n);
	else
		rte_ring_enqueue_bulk(pr, (void **)m, n, NULL);
}

/* Sleeps until the TSC reads due (a late wake-up is made up by the next
 * bursts: the schedule is cumulative). */
static void
pace_until(uint64_t due, uint64_t hz)
{
	uint64_t now = rte_rdtsc();
	struct timespec ts;
	double s;

	if (now >= due)
		return;
	s = (double)(due - now) / (double)hz;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* SIGINT, SIGTERM: no more bursts (the loop looks before each) */
static volatile sig_atomic_t quit_signal;

static void
on_quit(int sig)
{
	quit_signal = sig;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ring", 1, NULL, 'r' }, { "count", 1, NULL, 'n' }, { "antennas", 1, NULL, 'a' },
		{ "data-bytes", 1, NULL, 'd' }, { "queues", 1, NULL, 'q' },
		{ "tx-port", 1, NULL, 't' }, { "pool", 1, NULL, 'p' }, { "pool-of", 1, NULL, 'o' },
		{ "garbage", 1, NULL, 'g' }, { "garbage-ratio", 1, NULL, 'G' },
		{ "garbage-count", 1, NULL, 'N' }, { "groups", 1, NULL, 'R' },
		{ "rate", 1, NULL, 'x' }, { "start-ahead", 1, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ring = NULL, *pool_of = NULL;
	struct rte_ring *pr = NULL; /* --pool-of: that pool's own ring */
	int txport = -1;
	unsigned int nant = 6, data = 8192, nq = 1, ngroup = 0, k, q;
	uint64_t frames = 0, sent = 0, full = 0, garbage = 0, gsent = 0, nburst = 0;
	uint64_t rate = 0, hz, tsc0, tsc1;
	double start_ahead = -1; /* --start-ahead S; -1: not given */
	const char *gkind = NULL;
	unsigned int gratio = 1;
	uint8_t gtmpl[60];
	struct rte_ring *rx[16];
	struct rte_mempool *mp;
	struct rte_mbuf **all;
	unsigned int pool = POOL_DEFAULT;
	struct gen_cfg gc;
	struct gen g;
	struct gen_pkt p;
	uint8_t **tmpl;
	uint32_t *tlen;
	uint64_t fpp, *next;
	struct codif_hdr *base;
	unsigned int cur[64] = { 0 };
	int n, c;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "ringgen: EAL initialisation failed (run it as a secondary: "
			"--proc-type secondary --file-prefix of the capture)\n");
		return 1;
	}
	argc -= n;
	argv += n;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'r': ring = optarg; break;
		case 'n': frames = strtoull(optarg, NULL, 10); break;
		case 'a': nant = (unsigned int)atoi(optarg); break;
		case 'd': data = (unsigned int)atoi(optarg); break;
		case 'q': nq = (unsigned int)atoi(optarg); break;
		case 't': txport = atoi(optarg); break;
		case 'p': pool = (unsigned int)strtoul(optarg, NULL, 10); break;
		case 'o': pool_of = optarg; break;
		case 'g': gkind = optarg; break;
		case 'G': gratio = (unsigned int)atoi(optarg); break;
		case 'N': garbage = strtoull(optarg, NULL, 10); break;
		case 'R': ngroup = (unsigned int)atoi(optarg); break;
		case 'x': rate = strtoull(optarg, NULL, 10); break;
		case 'S': {
			char *end;

			start_ahead = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || !(start_ahead >= 0 && start_ahead < 1e6)) {
				fprintf(stderr, "ringgen: --start-ahead '%s': expected seconds, 0 "
					"to 999999\n", optarg);
				return 2;
			}
			break;
		}
		default:
			fprintf(stderr, "usage: ringgen [EAL] -- --ring NAME --count N "
				"[--antennas A] [--data-bytes D] [--queues Q] [--pool M | "
				"--pool-of NAME] [--rate FRAMES_PER_S] [--start-ahead S]\n");
			return 2;
		}
	}
	if (gkind != NULL && strcmp(gkind, "unknown") != 0 && strcmp(gkind, "malformed") != 0) {
		fprintf(stderr, "ringgen: --garbage '%s': expected unknown or malformed\n", gkind);
		return 2;
	}
	if (gkind != NULL && garbage == 0)
		garbage = frames * gratio;
	if ((ring == NULL) == (txport < 0) || (frames == 0 && garbage == 0) || nq < 1 || nq > 16 ||
	    nant < 1 || nant > 64 || (gkind != NULL && gratio == 0)) {
		fprintf(stderr, "ringgen: --ring NAME or --tx-port P, and --count N, are needed "
			"(queues 1..16)\n");
		return 2;
	}
	for (q = 0; q < nq && ring != NULL; q++) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "ETH_RXTX%u_%s", q, ring);
		rx[q] = rte_ring_lookup(name);
		if (rx[q] == NULL) {
			fprintf(stderr, "ringgen: no ring %s: is dpdk-ibvcap running with "
				"--vdev net_ring0,nodeaction=%s:0:CREATE?\n", name, ring);
			return 1;
		}
	}
	/* one template frame per stream, in the capture's default layout */
	gen_cfg_defaults(&gc);
	gc.nant = nant;
	gc.ngroup = ngroup != 0 ? ngroup : nant <= 8 ? 4 : 1;
	for (k = 0; k < nant; k++) { /* the capture's --antenna-base + i */
		gc.ant_ip[k] = gc.ant_ip[0] + k;
		gc.ant_groups[k] = (1ULL << gc.ngroup) - 1;
	}
	gc.tmpl.framelength8 = data / 8;
	gc.frames = 2;
	if (start_ahead >= 0) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		gc.start_ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec +
			      (int64_t)(start_ahead * 1e9);
	}
	if (gen_init(&g, &gc) != 0) {
		fprintf(stderr, "ringgen: %s\n", g.err);
		return 1;
	}
	fpp = codif_frames_per_period(&gc.tmpl);
	tmpl = calloc(g.nstream, sizeof(*tmpl));
	tlen = calloc(g.nstream, sizeof(*tlen));
	next = calloc(g.nstream, sizeof(*next));
	base = calloc(g.nstream, sizeof(*base));
	while (gen_next(&g, &p) == 1)
		if (p.index == 0) {
			tmpl[p.stream] = malloc(GEN_MAX_FRAME);
			tlen[p.stream] = gen_build(&g, &p, tmpl[p.stream]);
			gen_frame_hdr(&g, p.stream, 0, &base[p.stream]);
		}
	if (gkind != NULL) {
		/* antenna 0's first frame's Ethernet, IPv4 and UDP headers, an
		 * 18-byte payload of 0xa5 (60 bytes in all), lengths and the IPv4
		 * checksum made right: only its source or its payload is wrong */
		uint32_t sum = 0;
		unsigned int w;

		memcpy(gtmpl, tmpl[0], 42);
		memset(gtmpl + 42, 0xa5, sizeof(gtmpl) - 42);
		gtmpl[16] = 0;
		gtmpl[17] = 46;           /* IPv4 total length: 20 + 8 + 18 */
		gtmpl[38] = 0;
		gtmpl[39] = 26;           /* UDP length: 8 + 18 */
		gtmpl[40] = gtmpl[41] = 0; /* no UDP checksum */
		if (strcmp(gkind, "unknown") == 0) {
			gtmpl[26] = 10;   /* source 10.99.0.1: no antenna's */
			gtmpl[27] = 99;
			gtmpl[28] = 0;
			gtmpl[29] = 1;
		}
		gtmpl[24] = gtmpl[25] = 0;
		for (w = 14; w < 34; w += 2)
			sum += (uint32_t)gtmpl[w] << 8 | gtmpl[w + 1];
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		gtmpl[24] = (uint8_t)(~sum >> 8);
		gtmpl[25] = (uint8_t)~sum;
	}
	if (pool_of != NULL) {
		char rn[RTE_RING_NAMESIZE];

		mp = rte_mempool_lookup(pool_of);
		snprintf(rn, sizeof(rn), "MP_%s", pool_of); /* the ring driver's name */
		pr = rte_ring_lookup(rn);
		if (mp == NULL || pr == NULL || mp->pool_data != pr ||
		    rte_ring_get_prod_sync_type(pr) != RTE_RING_SYNC_MT ||
		    rte_ring_get_cons_sync_type(pr) != RTE_RING_SYNC_MT) {
			fprintf(stderr, "ringgen: --pool-of %s: %s\n", pool_of,
				mp == NULL ? "no such mempool in the primary" :
				"not a ring_mp_mc mempool (its ring MP_NAME, multi-producer and "
				"-consumer, is what ringgen takes mbufs from)");
			return 1;
		}
		if (mp->elt_size < sizeof(struct rte_mbuf) ||
		    rte_pktmbuf_data_room_size(mp) < RTE_PKTMBUF_HEADROOM + data + 256) {
			fprintf(stderr, "ringgen: --pool-of %s: data room %u bytes, expected at "
				"least %u (headroom + %u data + headers)\n", pool_of,
				rte_pktmbuf_data_room_size(mp), RTE_PKTMBUF_HEADROOM + data + 256,
				data);
			return 1;
		}
		pool = rte_ring_count(pr);
	} else {
		mp = rte_pktmbuf_pool_create("ringgen_pool", pool, 256, 0,
					     (uint16_t)(RTE_PKTMBUF_HEADROOM + data + 256),
					     (int)rte_socket_id());
		if (mp == NULL) {
			fprintf(stderr, "ringgen: mbuf pool: %s\n", rte_strerror(rte_errno));
			return 1;
		}
	}
	if (txport >= 0) {
		struct rte_eth_conf conf;
		struct rte_eth_link link;
		int w;

		memset(&conf, 0, sizeof(conf));
		conf.rxmode.mtu = 9000;
		if (rte_eth_dev_configure((uint16_t)txport, 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup((uint16_t)txport, 0, 512, (unsigned int)rte_socket_id(),
					   NULL, mp) != 0 ||
		    rte_eth_tx_queue_setup((uint16_t)txport, 0, 1024, (unsigned int)rte_socket_id(),
					   NULL) != 0 ||
		    rte_eth_dev_start((uint16_t)txport) != 0) {
			fprintf(stderr, "ringgen: cannot set up port %d\n", txport);
			return 1;
		}
		for (w = 0; w < 300; w++) { /* a memif peer connects */
			memset(&link, 0, sizeof(link));
			rte_eth_link_get_nowait((uint16_t)txport, &link);
			if (link.link_status == RTE_ETH_LINK_UP)
				break;
			rte_delay_ms(100);
		}
	}
	/* every mbuf's payload written once, now */
	all = malloc(pool * sizeof(*all));
	if (all == NULL || take(mp, pr, all, pool) != 0) {
		fprintf(stderr, "ringgen: cannot take the pool's mbufs\n");
		return 1;
	}
	for (k = 0; k < pool; k++) {
		unsigned int s = k % g.nstream;

		memcpy(rte_pktmbuf_mtod(all[k], void *), tmpl[s], tlen[s]);
	}
	give(pr, all, pool);
	free(all);
	printf("ringgen: %" PRIu64 " frames of %u streams (%u antennas, %u data bytes)%s%s%s "
	       "into %s\n", frames, g.nstream, nant, data, gkind ? " and 60-byte packets: " : "",
	       gkind ? gkind : "", gkind ? " garbage" : "", ring != NULL ? ring : "a port");
	fflush(stdout);

	k = 0;
	hz = rte_get_tsc_hz();
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_quit;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	tsc0 = rte_rdtsc();
	while ((sent < frames || gsent < garbage) && !quit_signal) {
		struct rte_mbuf *b[BURST];
		unsigned int i, done, want = (unsigned int)RTE_MIN((uint64_t)BURST,
								   frames - sent + garbage - gsent);
		unsigned int spa = g.nstream / nant; /* streams per antenna */
		unsigned int ant = k % nant, s0 = cur[ant], good = 0;
		/* a burst of garbage: G after each burst of frames, or alone */
		bool junk = gsent < garbage && (sent >= frames || nburst % (gratio + 1) != 0);

		if (junk)
			want = (unsigned int)RTE_MIN((uint64_t)BURST, garbage - gsent);
		else
			want = (unsigned int)RTE_MIN((uint64_t)BURST, frames - sent);
		/* --rate: this burst's frames not before their time, asleep
		 * until then (not spinning: what shares the CPU gets it) */
		if (rate != 0 && !junk)
			pace_until(tsc0 + (uint64_t)((double)sent * (double)hz / (double)rate), hz);
		/* a burst of one antenna's streams in turn, as steering gives */
		if (take(mp, pr, b, want) != 0)
			continue; /* the capture still holds them: wait */
		nburst++;
		for (i = 0; i < want; i++) {
			unsigned int st = ant * spa + (s0 + i) % spa;
			uint8_t *d = rte_pktmbuf_mtod(b[i], uint8_t *);
			struct codif_hdr h = base[st];
			uint64_t idx;

			if (junk) {
				memcpy(d, gtmpl, sizeof(gtmpl));
				b[i]->data_len = sizeof(gtmpl);
				b[i]->pkt_len = sizeof(gtmpl);
				gsent++;
				continue;
			}
			good++;
			idx = next[st]++;

			memcpy(d, tmpl[st], 42 + CODIF_HDR_LEN);
			h.frame = (uint32_t)(idx % fpp);
			h.seconds += (uint32_t)(idx / fpp * h.period);
			codif_encode(&h, d + 42);
			b[i]->data_len = (uint16_t)tlen[st];
			b[i]->pkt_len = tlen[st];
		}
		/* (a garbage packet's 60 bytes lie within the 106 header bytes a
		 * frame's mbuf is given each time) */
		q = nq > nant ? ant : 0;
		done = 0;
		while (done < want) {
			unsigned int e = ring != NULL ?
				rte_ring_enqueue_burst(rx[q], (void **)b + done, want - done, NULL) :
				rte_eth_tx_burst((uint16_t)txport, 0, b + done, (uint16_t)(want - done));

			full += e == 0;
			done += e;
		}
		sent += good;
		cur[ant] = (s0 + good) % spa;
		k += !junk;
	}
	tsc1 = rte_rdtsc();
	/* the receiver has taken every frame off its rings when ringgen ends */
	for (q = 0; q < nq && ring != NULL; q++)
		while (rte_ring_count(rx[q]) != 0)
			rte_pause();
	if (quit_signal)
		printf("ringgen: stopped by %s after %" PRIu64 " of %" PRIu64 " frames\n",
		       quit_signal == SIGINT ? "SIGINT" : "SIGTERM", sent, frames);
	printf("ringgen: %" PRIu64 " frames and %" PRIu64 " garbage packets sent (%s full %"
	       PRIu64 " times: the receiver was the slower side)\n", sent, gsent,
	       ring != NULL ? "ring" : "tx queue", full);
	printf("ringgen: %.3f s, %.0f frames/s (--rate %" PRIu64 ")\n",
	       (double)(tsc1 - tsc0) / (double)hz,
	       tsc1 > tsc0 ? (double)sent * (double)hz / (double)(tsc1 - tsc0) : 0.0, rate);
	if (txport >= 0) {
		rte_delay_ms(500);
		rte_eth_dev_stop((uint16_t)txport);
	}
	gen_free(&g);
	rte_eal_cleanup();
	return 0;
}
