/* SPDX-License-Identifier: BSD-3-Clause */
/* The end-of-run summary, as text (stdout) and JSON (--summary-json): every
 * counter through the tables of lib/stats. */

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <limits.h>

#include "summary.h"
#include "payload.h"
#include "ports.h"
#include "rings.h"
#include "run.h"
#include "rx.h"
#include "ledger.h"
#include "totals.h"
#include "scans.h"
#include "quicklook_app.h"
#include "json.h"
#include "parse.h"
#include "stats.h"
#include "stats_tel.h"

/* The original tool's lines, same words: the run's totals and rates. */
static void
summary_totals(const struct ibv_summary_src *sm, const struct ibv_totals *t, double el, FILE *f)
{
	fprintf(f, "\n=== dpdk-ibvcap summary (%.3f s, stopped by %s) ===\n", el,
		sm->run->stop_reason ? sm->run->stop_reason : "?");
	fprintf(f, "Total bytes:                %" PRIu64 "\n", t->rx.bytes);
	fprintf(f, "Total packets:              %" PRIu64 "\n", t->rx.pkts);
	fprintf(f, "Busy wait:                  %" PRIu64 "\n", t->rx.empty_polls);
	fprintf(f, "Average bytes per packet:   %.1f\n",
		t->rx.pkts ? (double)t->rx.bytes / (double)t->rx.pkts : 0.0);
	fprintf(f, "Busy wait / packet:         %.3f\n",
		t->rx.pkts ? (double)t->rx.empty_polls / (double)t->rx.pkts : 0.0);
	fprintf(f, "Rx cycles / packet:         %.0f   (TSC %.3f GHz; polls that brought packets)\n",
		t->rx.pkts ? (double)t->rx.busy_cycles / (double)t->rx.pkts : 0.0,
		(double)sm->run->tsc_hz / 1e9);
	fprintf(f, "Num mismatches:             %" PRIu64 "   (lost + late + duplicate frames)\n",
		t->all.lost + t->all.late + t->all.duplicate);
	fprintf(f, "Average rate:               %.3f Gb/s, %.4f Mpps\n",
		el > 0 ? (double)t->rx.bytes * 8 / el / 1e9 : 0.0,
		el > 0 ? (double)t->rx.pkts / el / 1e6 : 0.0);
}

/* The leads of a summary table: a row's own columns, text before lib/stats'
 * columns (stats_text_table). */
#define LEAD_LEN 64
#define MAX_ROWS (ACCT_MAX_ANTENNAS + 1 > SHM_MAX_WRITERS ? ACCT_MAX_ANTENNAS + 1 : \
		  SHM_MAX_WRITERS)

struct rows {
	char lead[MAX_ROWS][LEAD_LEN];
	const char *leadp[MAX_ROWS];
	const void *rec[MAX_ROWS];
	const char *tail[MAX_ROWS];
	unsigned int n;
};

/* Add a row: its record, tail and lead (printf-like). */
static void __attribute__((format(printf, 4, 5)))
row_add(struct rows *r, const void *rec, const char *tail, const char *fmt, ...)
{
	va_list ap;

	if (r->n >= MAX_ROWS)
		return;
	va_start(ap, fmt);
	vsnprintf(r->lead[r->n], LEAD_LEN, fmt, ap);
	va_end(ap);
	r->leadp[r->n] = r->lead[r->n];
	r->rec[r->n] = rec;
	r->tail[r->n] = tail;
	r->n++;
}

/* Print rows r of group g under the lead heading head, as wide as f takes. */
static void
rows_print(const struct rows *r, const struct stats_group *g, const char *head,
	   void (*after)(const void *, unsigned int, FILE *), const void *ctx, FILE *f)
{
	struct stats_table t = {
		.g = g, .scope = STATS_ANTENNA, .width = stats_text_columns(f),
		.lead_head = head, .n = r->n, .lead = r->leadp, .rec = r->rec, .tail = r->tail,
		.after = after, .ctx = ctx,
	};

	stats_text_table(&t, f);
}

/* A row per antenna and one of all of them, then the packets no antenna
 * claimed (by cause) and those on another antenna's queue. */
static void
summary_antennas(const struct acct_layout *l, const struct ibv_totals *t, FILE *f)
{
	static struct rows r;
	unsigned int a, c;
	char ip[16], head[LEAD_LEN];

	r.n = 0;
	for (a = 0; a < l->nant; a++)
		row_add(&r, &t->ant[a], NULL, "%-4u %-12s %-15s", a, l->ant_name[a],
			ipv4_str(l->ant_ip[a], ip, sizeof(ip)));
	row_add(&r, &t->all, NULL, "%-4s %-12s %-15s", "all", "", "");
	snprintf(head, sizeof(head), "%-4s %-12s %-15s", "ant", "name", "source");
	fputc('\n', f);
	rows_print(&r, &stats_counts, head, NULL, NULL, f);
	stats_text_rest(&stats_counts, &t->all, STATS_ANTENNA, "all antennas: ", f);

	if (ibv_unattributed(t)) {
		fprintf(f, "unattributed packets:");
		for (c = 1; c < ACCT_C__COUNT; c++)
			if (t->cause[c])
				fprintf(f, " %s %" PRIu64, acct_cause_name((enum acct_cause)c), t->cause[c]);
		fprintf(f, "\n");
	}
	if (t->rx.misdirected)
		fprintf(f, "misdirected (an antenna on another antenna's queue): %" PRIu64 "\n",
			t->rx.misdirected);
}

/* A row per writer of the registry (the primary's and other processes'). */
static void
summary_writers(const struct shm_ctl *ctl, FILE *f)
{
	/* after a row: nothing, failed, dead, or both (error | dead << 1) */
	static const char *const tails[4] = {
		NULL, " (failed)",
		" (dead: its process died; figures as it last published them)",
		" (failed) (dead: its process died; figures as it last published them)",
	};
	static struct rows r;
	static char lc_tail[SHM_MAX_WRITERS][160]; /* a plugin's: its lcore first */
	char head[LEAD_LEN];
	const char *tail;
	unsigned int i;

	r.n = 0;
	for (i = 0; i < SHM_MAX_WRITERS; i++) {
		const struct shm_writer *w = &ctl->writer[i];

		if (w->name[0] == '\0')
			continue;
		tail = tails[(w->error ? 1 : 0) | (w->dead ? 2 : 0)];
		if (w->lcore >= 0) {
			snprintf(lc_tail[i], sizeof(lc_tail[i]), " (lcore %d)%s", w->lcore,
				 tail ? tail : "");
			tail = lc_tail[i];
		}
		row_add(&r, w, tail, "%-24s %-6s %8d", w->name, w->format, w->pid);
	}
	snprintf(head, sizeof(head), "%-24s %-6s %8s", "writer", "format", "pid");
	if (r.n > 0)
		rows_print(&r, &stats_writer, head, NULL, NULL, f);
}

/* The rings: their geometry, where the payload is, a row per antenna, then
 * the writers. */
static void
summary_rings(const struct ibv_summary_src *sm, FILE *f)
{
	const struct acct_layout *l = &sm->cfg->layout;
	const struct ibv_rings *bf = sm->rings;
	static struct rows r;
	char head[LEAD_LEN];
	unsigned int a;

	fprintf(f, "\nantenna buffers '%s': %u frames x %u streams x %u bytes, window %u\n",
		bf->instance, bf->geom.nrows, bf->geom.nslots, bf->geom.data_bytes,
		bf->geom.window);
	if (sm->cfg->gpu >= 0)
		fprintf(f, "payload in GPU %d memory, %s\n", sm->cfg->gpu,
			sm->pl->split ? "written there by the NIC (buffer split)" :
					"copied there by the rx lcores");
	r.n = 0;
	for (a = 0; a < l->nant; a++)
		if (bf->b[a] != NULL)
			row_add(&r, bf->b[a], NULL, "%-4u %-12s", a, l->ant_name[a]);
	snprintf(head, sizeof(head), "%-4s %-12s", "ant", "name");
	rows_print(&r, &stats_buffer, head, NULL, NULL, f);
	for (a = 0; a < l->nant; a++) {
		char lead[64];

		snprintf(lead, sizeof(lead), "%s: ", l->ant_name[a]);
		if (bf->b[a] != NULL)
			stats_text_rest(&stats_buffer, bf->b[a], STATS_ANTENNA, lead, f);
	}
	if (bf->ctl != NULL)
		summary_writers(bf->ctl, f);
}

/* What the port table's rows follow with: a port's queues that saw packets. */
struct port_rows {
	const struct ibv_ports *ports;
	const struct acct_layout *l;
	struct rte_eth_stats st[RTE_MAX_ETHPORTS];
};

static void
port_queues(const void *ctx, unsigned int i, FILE *f)
{
	const struct port_rows *pr = ctx;
	const struct ibv_port *p = &pr->ports->port[i];
	const struct rte_eth_stats *st = &pr->st[i];
	unsigned int q;

	for (q = 0; q < p->nq && q < RTE_ETHDEV_QUEUE_STAT_CNTRS; q++)
		if (st->q_ipackets[q] || st->q_errors[q])
			fprintf(f, "      queue %-3u %-10s ipackets %" PRIu64 " ibytes %" PRIu64
				" errors %" PRIu64 "\n", q,
				!p->hw_steer ? "(software)" :
				q < pr->l->nant ? pr->l->ant_name[q] : "default", st->q_ipackets[q],
				st->q_ibytes[q], st->q_errors[q]);
}

/* A row per port (the NIC's figures), and its queues that saw packets. */
static void
summary_ports(const struct ibv_ports *ports, const struct acct_layout *l, FILE *f)
{
	static struct port_rows pr;
	static struct rows r;
	char head[LEAD_LEN];
	unsigned int i;

	pr.ports = ports;
	pr.l = l;
	r.n = 0;
	for (i = 0; i < ports->n && i < RTE_MAX_ETHPORTS; i++) {
		const struct ibv_port *p = &ports->port[i];

		memset(&pr.st[i], 0, sizeof(pr.st[i]));
		rte_eth_stats_get(p->port_id, &pr.st[i]);
		row_add(&r, &pr.st[i], NULL, "%-5u %-20s %-9s", p->port_id, p->name,
			p->hw_steer ? "rte_flow" : "software");
	}
	snprintf(head, sizeof(head), "%-5s %-20s %-9s", "port", "device", "steering");
	fputc('\n', f);
	rows_print(&r, &stats_port, head, port_queues, &pr, f);
}

void
ibv_summary(const struct ibv_summary_src *sm, FILE *f)
{
	struct ibv_totals t;

	ibv_collect(sm->counts, &t);
	summary_totals(sm, &t, ibv_elapsed_s(sm->run), f);
	summary_antennas(&sm->cfg->layout, &t, f);
	if (sm->rings->on)
		summary_rings(sm, f);
	summary_ports(sm->ports, &sm->cfg->layout, f);
	ibv_rec_summary_text(sm->ledger, f);
	fflush(f);
}

/* a JSON object of the unattributed packets by cause */
static void
causes_json(json_t *o, const char *key, const uint64_t *cause)
{
	json_t *u = js_obj(o, key);
	unsigned int c;

	for (c = 1; c < ACCT_C__COUNT; c++)
		js_u64(u, acct_cause_name((enum acct_cause)c), cause[c]);
}

static void
streams_json(const struct ibv_summary_src *sm, json_t *arr)
{
	const struct acct_layout *l = &sm->cfg->layout;
	unsigned int i, a, k;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = sm->lcores->lc[i];

		if (lc == NULL)
			continue;
		for (a = 0; a < l->nant; a++)
			for (k = 0; k < lc->acct->ant[a].nstream; k++) {
				json_t *o = js_obj(arr, NULL);

				stats_stream_json(l, a, &lc->acct->ant[a].stream[k], o);
				js_u64(o, "lcore", lc->lcore_id);
			}
	}
}

static void
resyncs_json(const struct ibv_summary_src *sm, json_t *arr)
{
	unsigned int i;

	/* timeline resyncs, as kept by each lcore (the latest ACCT_EVENTS) */
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = sm->lcores->lc[i];
		uint64_t e_i, n;

		if (lc == NULL)
			continue;
		n = __atomic_load_n(&lc->acct->nev, __ATOMIC_ACQUIRE);
		for (e_i = n > ACCT_EVENTS ? n - ACCT_EVENTS : 0; e_i < n; e_i++) {
			const struct acct_event *e = &lc->acct->ev[e_i % ACCT_EVENTS];
			char ts[CODIF_TIMESTR_LEN];
			json_t *o;

			if (e->outage)
				continue; /* lost frames, not a resync */
			o = js_obj(arr, NULL);

			js_str(o, "antenna", sm->cfg->layout.ant_name[e->ant]);
			js_u64(o, "segment", e->r.seg);
			js_str(o, "from_utc", codif_time_str(e->r.old_ns, ts, sizeof(ts)));
			js_str(o, "to_utc", codif_time_str(e->r.new_ns, ts, sizeof(ts)));
			js_i64(o, "frames_skipped", e->r.skipped);
			js_bool(o, "new_clock", e->r.new_clock);
		}
	}
}

static void
ports_json(const struct ibv_summary_src *sm, const struct ibv_totals *t, json_t *arr)
{
	const struct acct_layout *l = &sm->cfg->layout;
	unsigned int i, q;

	for (i = 0; i < sm->ports->n; i++) {
		const struct ibv_port *p = &sm->ports->port[i];
		struct rte_eth_stats es;
		json_t *o = js_obj(arr, NULL), *qs;

		memset(&es, 0, sizeof(es));
		rte_eth_stats_get(p->port_id, &es);
		js_u64(o, "port", p->port_id);
		js_str(o, "name", p->name);
		js_str(o, "steering", p->hw_steer ? "rte_flow" : "software");
		if (!p->hw_steer)
			js_str(o, "software_steering_reason", p->steer_why);
		js_u64(o, "rx_queues", p->nq);
		js_str(o, "interface", p->iface);
		js_u64(o, "groups_joined", p->joined);
		js_str(o, "multicast_filter", p->mcast_mode ? p->mcast_mode : "");
		js_bool(o, "hw_timestamps", p->ts_offload);
		js_str(o, "time_source", ibv_clock_mode_name(p->clk.mode));
		js_str(o, "time_source_detail", p->clk.what);
		stats_json(&stats_port, &es, STATS_ANTENNA, o);
		qs = js_arr(o, "queues");
		for (q = 0; q < p->nq; q++) {
			uint64_t pk = 0, by = 0;
			unsigned int j, qi;
			json_t *qo = js_obj(qs, NULL);

			for (j = 0; j < RTE_MAX_LCORE; j++) {
				const struct ibv_lcore *lc = sm->lcores->lc[j];

				if (lc == NULL)
					continue;
				for (qi = 0; qi < lc->nq; qi++)
					if (lc->q[qi].port_idx == i && lc->q[qi].queue == q) {
						pk += lc->q_pkts[qi];
						by += lc->q_bytes[qi];
					}
			}
			js_u64(qo, "queue", q);
			js_str(qo, "antenna", q < l->nant ? l->ant_name[q] : "default");
			js_u64(qo, "packets", pk);
			js_u64(qo, "bytes", by);
			if (q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
				js_u64(qo, "nic_ipackets", es.q_ipackets[q]);
				js_u64(qo, "nic_errors", es.q_errors[q]);
			}
		}
		causes_json(o, "unattributed", t->port_cause[i]);
	}
}

static void
buffers_json(const struct ibv_summary_src *sm, json_t *root)
{
	const struct ibv_rings *bf = sm->rings;
	const struct acct_layout *l = &sm->cfg->layout;
	json_t *o = js_obj(root, "buffers"), *arr;
	unsigned int a, i;

	js_str(o, "instance", bf->instance);
	js_u64(o, "rows", bf->geom.nrows);
	js_u64(o, "window", bf->geom.window);
	js_u64(o, "slots", bf->geom.nslots);
	js_u64(o, "data_bytes", bf->geom.data_bytes);
	js_str(o, "memory", sm->cfg->gpu >= 0 ? "gpu" : "hugepages");
	if (sm->cfg->gpu >= 0) {
		/* how payload reaches the GPU: NIC (buffer split) or CPU copy */
		js_str(o, "gpu_payload", sm->pl->split ? "buffer-split" : "cpu-copy");
		js_str(o, "gpu_split_why", sm->pl->split_why);
	}
	arr = js_arr(o, "antennas");
	for (a = 0; a < l->nant; a++) {
		json_t *b;

		if (bf->b[a] == NULL)
			continue;
		b = js_obj(arr, NULL);
		js_str(b, "name", l->ant_name[a]);
		stats_json(&stats_buffer, bf->b[a], STATS_ANTENNA, b);
	}
	arr = js_arr(o, "writers");
	for (i = 0; bf->ctl != NULL && i < SHM_MAX_WRITERS; i++) {
		const struct shm_writer *wr = &bf->ctl->writer[i];
		json_t *w;

		if (wr->name[0] == '\0')
			continue;
		w = js_obj(arr, NULL);
		stats_writer_json(wr, w);
	}
}

int
ibv_summary_json(const struct ibv_summary_src *sm, const char *path)
{
	const struct acct_layout *l = &sm->cfg->layout;
	struct ibv_totals t;
	struct stats_rx r;
	char ip[16], err[PATH_MAX + 128];
	unsigned int a, i;
	double el = ibv_elapsed_s(sm->run);
	json_t *root = json_object(), *o, *arr;
	int rc;

	ibv_collect(sm->counts, &t);
	js_str(root, "program", "dpdk-ibvcap");
	js_dbl(root, "duration_s", el);
	js_str(root, "stop_reason", sm->run->stop_reason ? sm->run->stop_reason : "");
	o = js_obj(root, "totals");
	/* all antennas' counts, then the capture's: its packets and wire_bytes
	 * (every packet, an antenna's or not) replace the antennas' sums */
	stats_json(&stats_counts, &t.all, STATS_ANTENNA, o);
	stats_json(&stats_capture, &t.rx, STATS_ANTENNA, o);
	js_dbl(o, "avg_bytes_per_packet", t.rx.pkts ? (double)t.rx.bytes / (double)t.rx.pkts : 0);
	js_dbl(o, "busy_wait_per_packet", t.rx.pkts ? (double)t.rx.empty_polls / (double)t.rx.pkts : 0);
	js_dbl(o, "cycles_per_packet", t.rx.pkts ? (double)t.rx.busy_cycles / (double)t.rx.pkts : 0);
	js_u64(o, "tsc_hz", sm->run->tsc_hz);
	js_u64(o, "mismatches", t.all.lost + t.all.late + t.all.duplicate);
	js_dbl(o, "gbps", el > 0 ? (double)t.rx.bytes * 8 / el / 1e9 : 0);
	js_dbl(o, "mpps", el > 0 ? (double)t.rx.pkts / el / 1e6 : 0);

	arr = js_arr(root, "antennas");
	for (a = 0; a < l->nant; a++) {
		json_t *x = js_obj(arr, NULL);

		js_u64(x, "antenna", a);
		js_str(x, "name", l->ant_name[a]);
		js_str(x, "src", ipv4_str(l->ant_ip[a], ip, sizeof(ip)));
		stats_json(&stats_counts, &t.ant[a], STATS_ANTENNA, x);
	}
	streams_json(sm, js_arr(root, "streams"));
	causes_json(root, "unattributed", t.cause);
	resyncs_json(sm, js_arr(root, "resyncs"));
	ports_json(sm, &t, js_arr(root, "ports"));
	if (sm->rings->on)
		buffers_json(sm, root);
	ibv_ql_summary_json(sm->ql, root, el);
	ibv_rec_summary_json(sm->ledger, root);
	arr = js_arr(root, "lcores");
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = sm->lcores->lc[i];
		json_t *x;

		if (lc == NULL)
			continue;
		x = js_obj(arr, NULL);
		js_u64(x, "lcore", lc->lcore_id);
		js_u64(x, "queues", lc->nq);
		ibv_lcore_rx(lc, &r);
		stats_json(&stats_lcore, &r, STATS_ANTENNA, x);
		js_dbl(x, "cycles_per_packet",
		       lc->pkts ? (double)lc->busy_cycles / (double)lc->pkts : 0);
	}
	rc = js_write_file(root, path, err, sizeof(err));
	json_decref(root);
	if (rc != 0) {
		fprintf(stderr, "dpdk-ibvcap: --summary-json: %s\n", err);
		return -1;
	}
	return 0;
}
