/* SPDX-License-Identifier: BSD-3-Clause */
/* The capture's totals: every rx lcore's and antenna's counts summed, the
 * periodic line, the timeline events and the streams not recorded, as the
 * main lcore logs them; every counter through the tables of lib/stats. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "totals.h"
#include "ports.h"
#include "run.h"
#include "rx.h"
#include "parse.h"
#include "stats.h"
#include "stats_tel.h"

void
ibv_lcore_rx(const struct ibv_lcore *lc, struct stats_rx *r)
{
	r->pkts = lc->pkts;
	r->bytes = lc->bytes;
	r->polls = lc->polls;
	r->empty_polls = lc->empty_polls;
	r->misdirected = lc->misdirected;
	r->segmented = lc->segmented;
	r->held = lc->held;
	r->busy_cycles = lc->busy_cycles;
}

void
ibv_collect(const struct ibv_counts_src *src, struct ibv_totals *t)
{
	const struct acct_layout *l = src->layout;
	unsigned int i, a, c, p;

	memset(t, 0, sizeof(*t));
	stats_zero(&stats_counts, &t->all);
	for (a = 0; a < l->nant; a++)
		stats_zero(&stats_counts, &t->ant[a]);
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = src->lcores->lc[i];

		if (lc == NULL)
			continue;
		t->rx.pkts += lc->pkts;
		t->rx.bytes += lc->bytes;
		t->rx.polls += lc->polls;
		t->rx.empty_polls += lc->empty_polls;
		t->rx.misdirected += lc->misdirected;
		t->rx.busy_cycles += lc->busy_cycles;
		for (a = 0; a < l->nant; a++)
			acct_ant_add(lc->acct, a, &t->ant[a]);
		for (p = 0; p < src->ports->n; p++)
			for (c = 1; c < ACCT_C__COUNT; c++) {
				t->port_cause[p][c] += lc->acct->port[p].cause[c];
				t->cause[c] += lc->acct->port[p].cause[c];
			}
	}
	for (a = 0; a < l->nant; a++)
		stats_merge(&stats_counts, &t->all, &t->ant[a]);
}

uint64_t
ibv_unattributed(const struct ibv_totals *t)
{
	uint64_t n = 0;
	unsigned int c;

	for (c = 1; c < ACCT_C__COUNT; c++)
		n += t->cause[c];
	return n;
}

void
ibv_nic_totals(const struct ibv_ports *ports, struct rte_eth_stats *sum)
{
	unsigned int i;

	stats_zero(&stats_port, sum);
	for (i = 0; i < ports->n; i++) {
		struct rte_eth_stats st;

		if (rte_eth_stats_get(ports->port[i].port_id, &st) == 0)
			stats_merge(&stats_port, sum, &st);
	}
}

/* "name value" of the scalar fields in scope */
static void
pairs(FILE *f, const struct stats_group *g, const void *rec, unsigned int scope)
{
	unsigned int k;

	for (k = 0; k < g->n; k++)
		if (g->f[k].type == STATS_U64 && stats_in(&g->f[k], scope))
			fprintf(f, " %s %" PRIu64, g->f[k].name, stats_get(&g->f[k], rec, 0));
}

void
ibv_events_print(const struct ibv_counts_src *src, FILE *f, bool all)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = src->lcores->lc[i];
		uint64_t n, k;

		if (lc == NULL)
			continue;
		n = __atomic_load_n(&lc->acct->nev, __ATOMIC_ACQUIRE);
		k = all ? 0 : lc->ev_shown;
		if (n > ACCT_EVENTS && k < n - ACCT_EVENTS) {
			fprintf(f, "dpdk-ibvcap: %" PRIu64 " timeline events not shown (more than "
				"%d at once)\n", n - ACCT_EVENTS - k, ACCT_EVENTS);
			k = n - ACCT_EVENTS;
		}
		for (; k < n; k++) {
			const struct acct_event *e = &lc->acct->ev[k % ACCT_EVENTS];
			char t1[CODIF_TIMESTR_LEN], t2[CODIF_TIMESTR_LEN];

			if (e->outage) {
				fprintf(f, "dpdk-ibvcap: antenna %s: outage: no frames after %s "
					"until %s (%" PRId64 " frames lost; silent %.3f s by arrival "
					"times, as long as the data time: not a clock step)\n",
					src->layout->ant_name[e->ant],
					codif_time_str(e->o.old_ns, t1, sizeof(t1)),
					codif_time_str(e->o.new_ns, t2, sizeof(t2)), e->o.frames,
					(double)e->o.arrival_gap_ns / 1e9);
				continue;
			}
			fprintf(f, "dpdk-ibvcap: antenna %s: timeline resync %u: newest frame %s, "
				"next %s (%s%" PRId64 " frames skipped); files start anew\n",
				src->layout->ant_name[e->ant], e->r.seg,
				codif_time_str(e->r.old_ns, t1, sizeof(t1)),
				codif_time_str(e->r.new_ns, t2, sizeof(t2)),
				e->r.new_clock ? "another clock, " : "", e->r.skipped);
		}
		if (!all)
			lc->ev_shown = n;
	}
	fflush(f);
}

void
ibv_unrecorded_print(const struct ibv_counts_src *src, FILE *f)
{
	const struct acct_layout *l = src->layout;
	unsigned int i, a, k, c;
	bool any = false;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = src->lcores->lc[i];

		if (lc == NULL)
			continue;
		for (a = 0; a < l->nant; a++) {
			struct acct_ant *an = &lc->acct->ant[a];
			unsigned int n = __atomic_load_n(&an->nstream, __ATOMIC_ACQUIRE);

			for (k = 0; k < n; k++) {
				struct acct_stream *s = &an->stream[k];

				for (c = 0; c < ACCT_NR__COUNT; c++) {
					uint64_t v = __atomic_load_n(&s->nr[c], __ATOMIC_RELAXED);
					char st[3], ip[16];

					if (v == 0 || (s->nr_logged >> c & 1))
						continue;
					s->nr_logged |= 1u << c;
					codif_station_str(s->stationid, st);
					fprintf(f, "dpdk-ibvcap: warning: antenna %s: stream station %s "
						"groupid %u secondaryid %u threadid %u to %s:%u: frames "
						"received but not recorded (%s, %" PRIu64 " so far): %s\n",
						l->ant_name[a], st, s->groupid, s->secondaryid, s->threadid,
						ipv4_str(s->dst_ip, ip, sizeof(ip)), s->dport,
						acct_nr_name((enum acct_nr)c), v,
						c == ACCT_NR_NO_SLOT ?
						"every slot of the antenna's buffer is another stream's "
						"(raise --slots)" :
						c == ACCT_NR_WRONG_SIZE ?
						"its frames are larger than --data-bytes (with "
						"--zero-copy: or not whole in one segment)" :
						c == ACCT_NR_SLOT_HELD ?
						"its row and slot already held a frame" :
						"its frames are on another clock than its segment's");
					any = true;
				}
			}
		}
	}
	if (any)
		fflush(f);
}

void
ibv_stats_line(struct ibv_rates *r, const struct ibv_counts_src *src,
	       const struct ibv_run *run, FILE *f)
{
	struct ibv_totals t;
	struct rte_eth_stats nic;
	uint64_t now = rte_rdtsc();
	double dt;

	ibv_collect(src, &t);
	ibv_nic_totals(src->ports, &nic);
	dt = (double)(now - r->last_tsc) / (double)run->tsc_hz;
	if (dt > 0) {
		r->gbps = (double)(t.rx.bytes - r->last_bytes) * 8 / dt / 1e9;
		r->mpps = (double)(t.rx.pkts - r->last_pkts) / dt / 1e6;
	}
	if (r->quiet_since_tsc == 0)
		r->quiet_since_tsc = run->start_tsc;
	if (t.rx.pkts != r->last_pkts)
		r->quiet_since_tsc = now;
	r->last_tsc = now;
	r->last_bytes = t.rx.bytes;
	r->last_pkts = t.rx.pkts;
	fprintf(f, "[%8.1fs] %7.3f Gb/s %7.4f Mpps |",
		(double)(now - run->start_tsc) / (double)run->tsc_hz, r->gbps,
		r->mpps);
	pairs(f, &stats_counts, &t.all, STATS_ANTENNA | STATS_BRIEF);
	fprintf(f, " | unattributed %" PRIu64 " | nic", ibv_unattributed(&t));
	pairs(f, &stats_port, &nic, STATS_LIVE);
	/* silence is news: say it, and what may cause it */
	if (now - r->quiet_since_tsc >= 5 * run->tsc_hz) {
		unsigned int i, down = 0;

		for (i = 0; i < src->ports->n; i++)
			down += !src->ports->port[i].link_up;
		fprintf(f, " | no packet for %.0f s%s",
			(double)(now - r->quiet_since_tsc) / (double)run->tsc_hz,
			down ? " (a port's link is down)" :
			nic.rx_nombuf ? " (rx_nombuf: no free mbufs, raise --mbufs)" :
			" (senders, joins, cabling?)");
	}
	fprintf(f, "\n");
	fflush(f);
}

double
ibv_elapsed_s(const struct ibv_run *run)
{
	uint64_t end = run->end_tsc ? run->end_tsc : rte_rdtsc();

	return (double)(end - run->start_tsc) / (double)run->tsc_hz;
}
