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

#include "ibvcap.h"
#include "parse.h"

#define MAX_BURST 512
#define BOUNCE_LEN 65536

static int
errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static struct ibv_lcore *
lcore_get(struct ibv_app *app, unsigned int lcore, char *err, size_t len)
{
	struct ibv_lcore *lc = app->lc[lcore];

	if (lc != NULL)
		return lc;
	lc = rte_zmalloc_socket("ibvcap_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE,
				(int)rte_lcore_to_socket_id(lcore));
	if (lc == NULL) {
		errf(err, len, "out of memory for lcore %u", lcore);
		return NULL;
	}
	lc->lcore_id = lcore;
	lc->acct = acct_create(&app->cfg.layout);
	lc->bounce = malloc(BOUNCE_LEN);
	if (lc->acct == NULL || lc->bounce == NULL) {
		acct_free(lc->acct);
		free(lc->bounce);
		rte_free(lc);
		errf(err, len, "out of memory for lcore %u's counters", lcore);
		return NULL;
	}
	lc->verbose = app->cfg.verbose;
	lc->burst = app->cfg.burst;
	app->lc[lcore] = lc;
	app->nlcore++;
	return lc;
}

static int
add_queue(struct ibv_app *app, unsigned int lcore, unsigned int pi, uint16_t q,
	  char *err, size_t len)
{
	struct ibv_lcore *lc = lcore_get(app, lcore, err, len);
	struct ibv_port *p = &app->port[pi];
	struct ibv_rxq *rq;

	if (lc == NULL)
		return -1;
	rq = &lc->q[lc->nq++];
	rq->port_id = p->port_id;
	rq->port_idx = (uint8_t)pi;
	rq->queue = q;
	rq->link_up = &p->link_up;
	rq->ant = q < app->cfg.layout.nant ? (int)q : -1;
	rq->hw_steered = p->hw_steer && rq->ant >= 0;
	return 0;
}

int
ibv_lcores_setup(struct ibv_app *app, char *err, size_t len)
{
	const struct ibv_config *c = &app->cfg;
	unsigned int workers[RTE_MAX_LCORE], nw = 0, lcore, pi, k, rr = 0;
	bool mapped[IBV_MAX_PORTS][IBV_MAX_QUEUES];

	RTE_LCORE_FOREACH_WORKER(lcore)
		if (!ibv_is_writer_lcore(app, lcore))
			workers[nw++] = lcore;
	if (nw == 0)
		return errf(err, len,
			    "no worker lcore: the main lcore reports, rx needs at least one "
			    "more (e.g. -l 0,1)");
	memset(mapped, 0, sizeof(mapped));
	for (k = 0; k < c->nmap; k++) {
		const struct ibv_map *m = &c->map[k];

		if (m->port_idx >= app->nport || m->queue >= app->port[m->port_idx].nq)
			return errf(err, len, "--lcore-map %u.%u@%u: port %u has no queue %u",
				    m->port_idx, m->queue, m->lcore, m->port_idx, m->queue);
		if (!rte_lcore_is_enabled(m->lcore) || m->lcore == rte_get_main_lcore() ||
		    ibv_is_writer_lcore(app, m->lcore))
			return errf(err, len,
				    "--lcore-map %u.%u@%u: lcore %u is not a worker lcore of "
				    "this process (-l)", m->port_idx, m->queue, m->lcore, m->lcore);
		if (add_queue(app, m->lcore, m->port_idx, m->queue, err, len) != 0)
			return -1;
		mapped[m->port_idx][m->queue] = true;
	}
	/* the rest: queue q of every port on the same worker (q mod workers),
	 * so one lcore places each antenna's frames (its buffer's lock stays
	 * uncontended); the default queues after, spread */
	for (pi = 0; pi < app->nport; pi++)
		for (k = 0; k < app->port[pi].nq; k++) {
			unsigned int w = k < c->layout.nant ? k % nw : rr++ % nw;

			if (mapped[pi][k])
				continue;
			if (add_queue(app, workers[w], pi, (uint16_t)k, err, len) != 0)
				return -1;
		}
	return 0;
}

void
ibv_lcores_free(struct ibv_app *app)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = app->lc[i];

		if (lc == NULL)
			continue;
		acct_free(lc->acct);
		free(lc->bounce);
		rte_free(lc);
		app->lc[i] = NULL;
	}
	app->nlcore = 0;
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
	} else if (r->stream >= 0 || r->cls != CODIF_SEQ_MALFORMED ||
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
		if (r->cls == CODIF_SEQ_MALFORMED || r->cls == CODIF_SEQ_PARAM_CHANGE)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " | %s: %s",
				      acct_malformed_name(r->mal), lc->acct->err);
		else
			n += snprintf(line + n, sizeof(line) - (size_t)n, " | %s N=%" PRId64 "%s",
				      codif_seq_class_name(r->cls), r->index,
				      r->cls == CODIF_SEQ_GAP ? " (gap)" : "");
		if (r->cls == CODIF_SEQ_GAP)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " lost %" PRIu64, r->nlost);
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

int
ibv_rx_main(void *arg)
{
	struct ibv_app *app = arg;
	struct ibv_lcore *lc = app->lc[rte_lcore_id()];
	struct rte_mbuf *pk[MAX_BURST];
	unsigned int qi;
	bool place = app->bufs.on, hwts = app->ts_offset >= 0, split = app->split.on;

	if (lc == NULL)
		return 0;
	lc->running = true;
	while (!app->stop) {
		for (qi = 0; qi < lc->nq; qi++) {
			const struct ibv_rxq *q = &lc->q[qi];
			uint64_t bytes = 0, misdirected = 0, segmented = 0;
			int64_t now_ns;
			uint16_t n, i;

			if (unlikely(!*q->link_up))
				continue;
			n = rte_eth_rx_burst(q->port_id, q->queue, pk, lc->burst);
			lc->polls++;
			if (n == 0) {
				lc->empty_polls++;
				continue;
			}
			/* host arrival time, once per burst, from the TSC */
			now_ns = app->start_unix_ns +
				 (int64_t)((double)(rte_rdtsc() - app->start_tsc) * app->ns_per_tsc);
			for (i = 0; i < n; i++) {
				struct rte_mbuf *m = pk[i];
				struct acct_result r;
				const uint8_t *data;
				uint32_t len = m->pkt_len, cap;

				if (i + 1 < n)
					rte_prefetch0(rte_pktmbuf_mtod(pk[i + 1], void *));
				if (split) {
					/* headers in this host segment, payload in GPU
					 * memory: read nothing past the head */
					data = rte_pktmbuf_mtod(m, const uint8_t *);
					cap = m->data_len;
				} else if (m->nb_segs > 1) {
					cap = RTE_MIN(len, (uint32_t)BOUNCE_LEN);
					data = rte_pktmbuf_read(m, 0, cap, lc->bounce);
					segmented++;
				} else {
					data = rte_pktmbuf_mtod(m, const uint8_t *);
					cap = len;
				}
				acct_frame2(lc->acct, q->port_idx, data, cap, len, &r);
				if (q->hw_steered && r.ant >= 0 && r.ant != q->ant)
					misdirected++;
				if (place) {
					int64_t t = now_ns;

					if (hwts && (m->ol_flags & app->ts_flag))
						t = (int64_t)*RTE_MBUF_DYNFIELD(m, app->ts_offset,
										 rte_mbuf_timestamp_t *);
					if (split)
						ibv_place_split(app, &r, m, t);
					else
						ibv_place(app, &r, data, len, t);
				}
				if (unlikely(lc->verbose))
					dump(lc, q, len, &r);
				bytes += len;
			}
			rte_pktmbuf_free_bulk(pk, n);
			/* single-writer counters, stored once per burst */
			lc->pkts += n;
			lc->bytes += bytes;
			lc->q_pkts[qi] += n;
			lc->q_bytes[qi] += bytes;
			lc->misdirected += misdirected;
			lc->segmented += segmented;
			lc->last_rx_tsc = rte_rdtsc();
		}
	}
	lc->running = false;
	return 0;
}
