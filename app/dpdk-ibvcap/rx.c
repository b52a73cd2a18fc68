/* SPDX-License-Identifier: BSD-3-Clause */
/* The rx lcores: queue assignment, and the loop that polls, checks and counts. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>

#include "err.h"
#include "plugin_run.h"
#include "ports.h"
#include "quicklook_app.h"
#include "rings.h"
#include "rx.h"
#include "writers.h"
#include "parse.h"
#include "wr_sched.h"

#define MAX_BURST 512
#define BOUNCE_LEN 65536

static struct ibv_lcore *
lcore_get(struct ibv_lcores *lcs, const struct ibv_rx_deps *d, int arrival_off,
	  unsigned int lcore, char *err, size_t len)
{
	struct ibv_lcore *lc = lcs->lc[lcore];

	if (lc != NULL)
		return lc;
	lc = rte_zmalloc_socket("ibvcap_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE,
				(int)rte_lcore_to_socket_id(lcore));
	if (lc == NULL) {
		err_set(err, len, -EINVAL, "out of memory for lcore %u", lcore);
		return NULL;
	}
	lc->lcore_id = lcore;
	lc->acct = acct_create(&d->cfg->layout);
	if (lc->acct != NULL)
		/* reasons as text only for -v's lines */
		lc->acct->quiet = !d->cfg->verbose;
	lc->bounce = malloc(BOUNCE_LEN);
	lc->scan_nr = calloc(IBV_SCAN_NR, sizeof(*lc->scan_nr));
	lc->scan_snap = calloc(1, sizeof(*lc->scan_snap));
	if (lc->acct == NULL || lc->bounce == NULL || lc->scan_nr == NULL || lc->scan_snap == NULL) {
		acct_free(lc->acct);
		free(lc->bounce);
		free(lc->scan_nr);
		free(lc->scan_snap);
		rte_free(lc);
		err_set(err, len, -EINVAL, "out of memory for lcore %u's counters", lcore);
		return NULL;
	}
	lc->verbose = d->cfg->verbose;
	lc->burst = d->cfg->burst;
	lc->arrival_off = arrival_off;
	/* the payload mode, once: the burst loop calls its place function
	 * and reads headers from the first head_segs segments, never asking
	 * which mode it is */
	lc->pl = d->pl;
	lc->head_segs = d->pl->ops->head_segs;
	/* what the loop reads of the other components, given once */
	lc->stop = d->stop;
	lc->prod = d->rings->on ? d->rings->prod : NULL;
	lc->host_clk = &d->host_clk->pub;
	lc->ts_offset = d->ports->ts_offset;
	lc->ts_flag = d->ports->ts_flag;
	lc->sched = d->sched;
	lcs->lc[lcore] = lc;
	lcs->n++;
	return lc;
}

static int
add_queue(struct ibv_lcores *lcs, const struct ibv_rx_deps *d, int arrival_off,
	  unsigned int lcore, unsigned int pi, uint16_t q, char *err, size_t len)
{
	struct ibv_lcore *lc = lcore_get(lcs, d, arrival_off, lcore, err, len);
	const struct ibv_port *p = &d->ports->port[pi];
	struct ibv_rxq *rq;

	if (lc == NULL)
		return -1;
	rq = &lc->q[lc->nq++];
	rq->port_id = p->port_id;
	rq->port_idx = (uint8_t)pi;
	rq->queue = q;
	rq->link_up = &p->link_up;
	rq->clk = &p->clk.pub;
	rq->ant = q < d->cfg->layout.nant ? (int)q : -1;
	rq->hw_steered = p->hw_steer && rq->ant >= 0;
	return 0;
}

/* Which lcores may place antenna a's frames: the one polling its steered
 * queues, and every lcore polling a queue that takes any antenna (the
 * default queue, software steering). Two or more: its buffer needs a lock. */
static void
mark_shared(const struct ibv_lcores *lcs, unsigned int nant, struct ibv_rings *rings)
{
	unsigned int a, i, k;

	for (a = 0; a < nant && rings->on; a++) {
		unsigned int n = 0;

		for (i = 0; i < RTE_MAX_LCORE; i++) {
			const struct ibv_lcore *lc = lcs->lc[i];
			bool takes = false;

			if (lc == NULL)
				continue;
			for (k = 0; k < lc->nq; k++)
				takes |= !lc->q[k].hw_steered || lc->q[k].ant == (int)a;
			n += takes;
		}
		rings->prod[a].shared = n > 1;
	}
}

int
ibv_lcores_setup(struct ibv_lcores *lcs, const struct ibv_rx_deps *d, char *err, size_t len)
{
	const struct ibv_config *c = d->cfg;
	unsigned int workers[RTE_MAX_LCORE], nw = 0, lcore, pi, k, rr = 0;
	bool mapped[IBV_MAX_PORTS][IBV_MAX_QUEUES];

	static const struct rte_mbuf_dynfield arrival_desc = {
		.name = "ibvcap_arrival_ns",
		.size = sizeof(int64_t),
		.align = __alignof__(int64_t),
	};
	int arrival_off;

	arrival_off = rte_mbuf_dynfield_register(&arrival_desc);
	if (arrival_off < 0)
		return err_set(err, len, -rte_errno, "mbuf dynamic field for held frames: %s",
			    rte_strerror(rte_errno));
	RTE_LCORE_FOREACH_WORKER(lcore)
		if (!ibv_is_writer_lcore(d->writers, lcore) &&
		    !ibv_plugin_on_lcore(d->plugins, lcore))
			workers[nw++] = lcore;
	if (nw == 0)
		return err_set(err, len, -EINVAL,
			    "no worker lcore: the main lcore reports, rx needs at least one "
			    "more (e.g. -l 0,1)");
	memset(mapped, 0, sizeof(mapped));
	for (k = 0; k < c->nmap; k++) {
		const struct ibv_map *m = &c->map[k];

		if (m->port_idx >= d->ports->n || m->queue >= d->ports->port[m->port_idx].nq)
			return err_set(err, len, -EINVAL, "--lcore-map %u.%u@%u: port %u has no queue %u",
				    m->port_idx, m->queue, m->lcore, m->port_idx, m->queue);
		if (!rte_lcore_is_enabled(m->lcore) || m->lcore == rte_get_main_lcore() ||
		    ibv_is_writer_lcore(d->writers, m->lcore))
			return err_set(err, len, -EINVAL,
				    "--lcore-map %u.%u@%u: lcore %u is not a worker lcore of "
				    "this process (-l)", m->port_idx, m->queue, m->lcore, m->lcore);
		if (add_queue(lcs, d, arrival_off, m->lcore, m->port_idx, m->queue, err, len) != 0)
			return -1;
		mapped[m->port_idx][m->queue] = true;
	}
	/* the rest: queue q of every port on the same worker (q mod workers),
	 * so one lcore places each antenna's frames (its buffer's lock stays
	 * uncontended); the default queues after, spread */
	for (pi = 0; pi < d->ports->n; pi++)
		for (k = 0; k < d->ports->port[pi].nq; k++) {
			unsigned int w = k < c->layout.nant ? k % nw : rr++ % nw;

			if (mapped[pi][k])
				continue;
			if (add_queue(lcs, d, arrival_off, workers[w], pi, (uint16_t)k, err,
				      len) != 0)
				return -1;
		}
	mark_shared(lcs, c->layout.nant, d->rings);
	return 0;
}

void
ibv_lcores_free(struct ibv_lcores *lcs)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = lcs->lc[i];

		if (lc == NULL)
			continue;
		acct_free(lc->acct);
		free(lc->bounce);
		free(lc->scan_nr);
		free(lc->scan_snap);
		rte_free(lc);
		lcs->lc[i] = NULL;
	}
	lcs->n = 0;
}

/* -v: one line per packet, the header dump of the original tool. */
static void
dump(const struct ibv_lcore *lc, const struct ibv_rxq *q, uint32_t len,
     const struct acct_result *r)
{
	char line[512], s[16], d[16], ts[CODIF_TIMESTR_LEN], st[3];
	int n;

	n = snprintf(line, sizeof(line), "lcore %u port %u queue %u len %u", lc->lcore_id,
		     q->port_id, q->queue, len);
	if (r->pi.have_ip)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %s -> %s:%u",
			      ipv4_str(r->pi.src_ip, s, sizeof(s)),
			      ipv4_str(r->pi.dst_ip, d, sizeof(d)), r->pi.dport);
	if (r->ant < 0) {
		n += snprintf(line + n, sizeof(line) - (size_t)n, " | unattributed: %s",
			      acct_cause_name(r->cause));
	} else if (r->fd.stream >= 0 || r->fd.cls != CODIF_SEQ_MALFORMED ||
		   r->mal >= ACCT_M_HEADER) {
		const struct codif_hdr *h = &r->hdr;

		codif_station_str(h->stationid, st);
		n += snprintf(line + n, sizeof(line) - (size_t)n,
			      " | ant %d %s g%u s%u t%u sec %u frame %u (%s) nchan %u nbits %u %s "
			      "period %u inv %d",
			      r->ant, st, h->groupid, h->secondaryid, h->threadid, h->seconds,
			      h->frame, codif_time_str(codif_frame_time_ns(h), ts, sizeof(ts)),
			      h->nchan, h->nbits, h->complex ? "complex" : "real", h->period,
			      h->invalid);
		if (r->fd.cls == CODIF_SEQ_MALFORMED)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " | %s: %s",
				      acct_malformed_name(r->mal), lc->acct->err);
		else if (r->fd.cls == CODIF_SEQ_SUSPECT)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " | %s",
				      lc->acct->err);
		else
			n += snprintf(line + n, sizeof(line) - (size_t)n, " | %s N=%" PRId64 "%s",
				      codif_seq_class_name((enum codif_seq_class)r->fd.cls),
				      r->fd.index, r->fd.cls == CODIF_SEQ_GAP ? " (gap)" : "");
		if (r->fd.cls == CODIF_SEQ_GAP)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " lost %" PRIu64,
				      r->fd.nlost);
	} else {
		n += snprintf(line + n, sizeof(line) - (size_t)n, " | ant %d malformed %s: %s",
			      r->ant, acct_malformed_name(r->mal), lc->acct->err);
	}
	if (n >= (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* one write per line keeps lines of several lcores whole */
	fwrite(line, 1, (size_t)n, stdout);
}

/* The readable bytes of m: its first segment, in place, when the payload
 * mode says that segment holds every byte read (a whole packet in one
 * segment; with buffer split, the head segment with the headers), else
 * the packet copied into the lcore's bounce buffer. */
static inline const uint8_t *
mbuf_bytes(struct ibv_lcore *lc, struct rte_mbuf *m, uint16_t head_segs, uint32_t *cap)
{
	if (likely(m->nb_segs <= head_segs)) {
		*cap = m->data_len;
		return rte_pktmbuf_mtod(m, const uint8_t *);
	}
	*cap = RTE_MIN(m->pkt_len, (uint32_t)BOUNCE_LEN);
	return rte_pktmbuf_read(m, 0, *cap, lc->bounce);
}

/* A frame received and not recorded: counted in each scan whose data time
 * and antennas hold it (the scan ledger's not_recorded, scans.c). The cold
 * path: the schedule is copied only when it changed. */
static __rte_noinline void
scan_nr_count(struct ibv_lcore *lc, const struct acct_fd *fd)
{
	const struct wr_sched *sched = *lc->sched;
	int64_t t;
	unsigned int i;

	if (sched == NULL || fd->clk == NULL || fd->ant < 0 || fd->ant >= ACCT_MAX_ANTENNAS)
		return;
	wr_sched_snapshot(sched, lc->scan_snap, &lc->scan_seen);
	if (lc->scan_snap->n == 0)
		return;
	t = codif_clock_time_ns(fd->clk, fd->index);
	for (i = 0; i < lc->scan_snap->n; i++) {
		const struct wr_scan *s = &lc->scan_snap->s[i];
		struct ibv_scan_nr *e;

		if (!(s->ants >> fd->ant & 1) || t < s->start_ns || t >= s->stop_ns)
			continue;
		e = &lc->scan_nr[s->id % IBV_SCAN_NR];
		if (e->id != s->id) {
			__atomic_store_n(&e->id, 0, __ATOMIC_RELAXED);
			memset(e->nr, 0, sizeof(e->nr));
			__atomic_store_n(&e->id, s->id, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&e->nr[fd->ant], e->nr[fd->ant] + 1, __ATOMIC_RELAXED);
	}
}

/* Place one frame through the lcore's payload mode; a frame the buffer
 * refuses as too late is not counted received after all (the counts stay
 * what the buffer holds). *m as the mode's place function leaves it: NULL
 * when the ring took the packet (the caller must not free it). */
static inline void
place(struct ibv_lcore *lc, ibv_pl_place_fn place_fn, struct acct_fd *fd, struct rte_mbuf **m)
{
	struct antbuf_prod *p = &lc->prod[fd->ant];
	enum antbuf_result res;

	/* the stream's first frame here: its slot, by its identity, cached
	 * in the stream (never looked up again) */
	antbuf_fd_slot(p, lc->acct, fd);
	res = place_fn(lc->pl, p, fd, m);
	if (unlikely(res != ANTBUF_PLACED)) {
		/* too late: counted lost; anything else: received, not
		 * recorded, by cause (the main lcore logs it, once a stream) */
		if (res == ANTBUF_TOO_LATE)
			acct_unplaced(lc->acct, fd);
		else {
			acct_not_recorded(lc->acct, fd, antbuf_nr_cause(res));
			scan_nr_count(lc, fd);
		}
	}
}

/* The port's verdict on a packet's IPv4 header checksum (rx offload
 * flags; ports without the offload leave them UNKNOWN: lib/pkt checks in
 * software). IP_CKSUM_NONE: the header's integrity was verified though
 * its checksum field is not set. Written against the DPDK API: no vdev
 * here sets these flags, untested on mlx5. */
static inline uint8_t
ip_csum_of(uint64_t ol)
{
	switch (ol & RTE_MBUF_F_RX_IP_CKSUM_MASK) {
	case RTE_MBUF_F_RX_IP_CKSUM_GOOD:
	case RTE_MBUF_F_RX_IP_CKSUM_NONE:
		return PKT_CSUM_GOOD;
	case RTE_MBUF_F_RX_IP_CKSUM_BAD:
		return PKT_CSUM_BAD;
	default:
		return PKT_CSUM_UNKNOWN;
	}
}

/* Held frames of antenna ant released (placed now) or dropped. */
static void
take_actions(struct ibv_lcore *lc, ibv_pl_place_fn place_fn, int ant, bool placing)
{
	struct acct_action act;

	while (acct_action(lc->acct, ant, &act)) {
		struct rte_mbuf *m = (struct rte_mbuf *)(uintptr_t)act.handle;
		uint32_t cap;

		if (m == NULL)
			continue;
		lc->held--;
		if (!act.drop && placing) {
			act.fd.pkt = mbuf_bytes(lc, m, lc->head_segs, &cap);
			act.fd.arrival_ns = *RTE_MBUF_DYNFIELD(m, lc->arrival_off, int64_t *);
			place(lc, place_fn, &act.fd, &m);
		}
		/* NULL: the hold's reference is the ring's now */
		if (m != NULL)
			rte_pktmbuf_free(m);
	}
}

/* What a burst's frames share: their arrival time where the NIC stamps
 * none, and the fits that convert the host's and the NIC's clocks. */
struct rx_burst {
	struct hwclock_conv host, nic;
	bool stamped;             /* nic holds the port's fit: stamps are read */
	int64_t t_burst;          /* the host clock when the burst was taken */
};

/* A burst's figures, stored in the lcore's counters once per burst. */
struct rx_tally {
	uint64_t bytes, misdirected, segmented;
};

/* One frame of a burst: its arrival time, accounted, offered to quick
 * look, then placed through the mode's place_fn or held while its timeline
 * decides; held frames of its antenna that were decided are taken. *pm:
 * NULL when the ring took the packet (not freed with the burst). */
static __rte_always_inline void
rx_frame(struct ibv_lcore *lc, const struct ibv_rxq *q, ibv_pl_place_fn place_fn,
	 const struct rx_burst *b, bool placing, struct rte_mbuf **pm, struct rx_tally *tally)
{
	struct rte_mbuf *m = *pm;
	struct acct_result r;
	struct acct_rx rx;
	const uint8_t *data;
	uint32_t len = m->pkt_len, cap;
	int64_t t;

	/* the first segment when it holds every byte read (with buffer
	 * split: the headers; nothing past the head is read) */
	data = mbuf_bytes(lc, m, lc->head_segs, &cap);
	tally->segmented += m->nb_segs > lc->head_segs;
	if (b->stamped && (m->ol_flags & lc->ts_flag))
		t = hwclock_conv_ns(&b->nic, *RTE_MBUF_DYNFIELD(m, lc->ts_offset,
							      rte_mbuf_timestamp_t *));
	else
		t = b->t_burst;
	rx.arrival_ns = t;
	rx.ip_csum = ip_csum_of(m->ol_flags);
	acct_frame_rx(lc->acct, q->port_idx, data, cap, len, &rx, &r);
	if (q->hw_steered && r.ant >= 0 && r.ant != q->ant)
		tally->misdirected++;
	/* quick look: before placement, which may hand the mbuf to the ring */
	if (lc->ql != NULL && acct_placeable(r.fd.cls) && r.fd.stream >= 0)
		ibv_ql_offer(lc->ql, &r, data, cap, m, lc->pl);
	if (placing && acct_placeable(r.fd.cls)) {
		r.fd.arrival_ns = t;
		/* *pm NULL: the ring's now, not freed with the burst */
		place(lc, place_fn, &r.fd, pm);
	} else if (unlikely(r.fd.cls == CODIF_SEQ_SUSPECT && r.hold != NULL)) {
		/* held until its timeline decides: ours too */
		rte_pktmbuf_refcnt_update(m, 1);
		*RTE_MBUF_DYNFIELD(m, lc->arrival_off, int64_t *) = t;
		r.hold->handle = (uintptr_t)m;
		lc->held++;
	}
	if (unlikely(lc->verbose))
		dump(lc, q, len, &r);
	if (unlikely(acct_busy(lc->acct, r.ant)))
		take_actions(lc, place_fn, r.ant, placing);
	tally->bytes += len;
}

/* One poll of queue qi: a burst taken, its frames handled, its packets
 * freed (those the ring did not take) and the lcore's counters stored. */
static __rte_always_inline void
rx_poll(struct ibv_lcore *lc, unsigned int qi, ibv_pl_place_fn place_fn, bool placing,
	bool hwts)
{
	const struct ibv_rxq *q = &lc->q[qi];
	struct rte_mbuf *pk[MAX_BURST];
	struct rx_tally tally = { 0, 0, 0 };
	struct rx_burst b;
	uint16_t n, i;
	uint64_t t0, t1;

	if (unlikely(!*q->link_up))
		return;
	t0 = rte_rdtsc();
	n = rte_eth_rx_burst(q->port_id, q->queue, pk, lc->burst);
	lc->polls++;
	if (n == 0) {
		lc->empty_polls++;
		return;
	}
	/* arrival times: the NIC's stamp where the port gives one, else the
	 * TSC when this lcore took the burst (one read per burst:
	 * docs/formats.md); both through the main lcore's latest fit
	 * (clock.c) */
	hwclock_snapshot(lc->host_clk, &b.host);
	b.t_burst = hwclock_conv_ns(&b.host, rte_rdtsc());
	b.stamped = hwts && hwclock_snapshot(q->clk, &b.nic) == 0;
	for (i = 0; i < n; i++) {
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pk[i + 1], void *));
		rx_frame(lc, q, place_fn, &b, placing, &pk[i], &tally);
	}
	rte_pktmbuf_free_bulk(pk, n);
	/* single-writer counters, stored once per burst */
	lc->pkts += n;
	lc->bytes += tally.bytes;
	lc->q_pkts[qi] += n;
	lc->q_bytes[qi] += tally.bytes;
	lc->misdirected += tally.misdirected;
	lc->segmented += tally.segmented;
	/* the cycles of a poll that brought packets: the PMD's burst and
	 * everything done with it (our path's cost) */
	t1 = rte_rdtsc();
	lc->busy_cycles += t1 - t0;
}

/* The rx loop of one lcore, place_fn its mode's place function: built
 * once for each of IBV_PL_PLACERS (below), so that the call per frame is
 * a direct one and nothing in the loop asks which mode it is. At the end
 * of input, frames still held are dropped (counted), and each stream is
 * counted to its antenna's newest frame. */
static __rte_always_inline int
rx_loop(struct ibv_lcore *lc, ibv_pl_place_fn place_fn)
{
	const volatile int *stop = lc->stop;
	bool placing = lc->prod != NULL, hwts = lc->ts_offset >= 0;
	unsigned int qi, a;

	lc->running = true;
	while (!*stop)
		for (qi = 0; qi < lc->nq; qi++)
			rx_poll(lc, qi, place_fn, placing, hwts);
	acct_flush(lc->acct);
	for (a = 0; a < ACCT_MAX_ANTENNAS; a++)
		if (acct_busy(lc->acct, (int)a))
			take_actions(lc, place_fn, (int)a, placing);
	lc->running = false;
	return 0;
}

#define RX_X(id, fn) \
	static int rx_loop_##fn(struct ibv_lcore *lc) \
	{ \
		return rx_loop(lc, fn); \
	}
IBV_PL_PLACERS(RX_X)
#undef RX_X

/* Each placer's loop (the mode's ops->placer picks one, once). */
static int (*const rx_loops[IBV_PL_PLACERS_N])(struct ibv_lcore *) = {
#define RX_X(id, fn) [id] = rx_loop_##fn,
	IBV_PL_PLACERS(RX_X)
#undef RX_X
};

int
ibv_rx_main(void *arg)
{
	struct ibv_lcore *lc = arg;

	return rx_loops[lc->pl->ops->placer](lc);
}
