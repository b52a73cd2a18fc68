/* SPDX-License-Identifier: BSD-3-Clause */
/* Control side: totals, the periodic line, the final summary, JSON, telemetry:
 * every counter through the tables of lib/stats. */

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "ibvcap.h"
#include "json.h"
#include "parse.h"
#include "stats.h"
#include "stats_tel.h"

struct ibv_app *ibv_g;

/* an rx lcore's figures as the lcore table has them */
static void
rx_of(const struct ibv_lcore *lc, struct stats_rx *r)
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
ibv_collect(const struct ibv_app *app, struct ibv_totals *t)
{
	const struct acct_layout *l = &app->cfg.layout;
	unsigned int i, a, c, p;

	memset(t, 0, sizeof(*t));
	stats_zero(&stats_counts, &t->all);
	for (a = 0; a < l->nant; a++)
		stats_zero(&stats_counts, &t->ant[a]);
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lc[i];

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
		for (p = 0; p < app->nport; p++)
			for (c = 1; c < ACCT_C__COUNT; c++) {
				t->port_cause[p][c] += lc->acct->port[p].cause[c];
				t->cause[c] += lc->acct->port[p].cause[c];
			}
	}
	for (a = 0; a < l->nant; a++)
		stats_merge(&stats_counts, &t->all, &t->ant[a]);
}

static uint64_t
unattributed(const struct ibv_totals *t)
{
	uint64_t n = 0;
	unsigned int c;

	for (c = 1; c < ACCT_C__COUNT; c++)
		n += t->cause[c];
	return n;
}

/* every port's figures summed */
static void
nic_totals(const struct ibv_app *app, struct rte_eth_stats *sum)
{
	unsigned int i;

	stats_zero(&stats_port, sum);
	for (i = 0; i < app->nport; i++) {
		struct rte_eth_stats st;

		if (rte_eth_stats_get(app->port[i].port_id, &st) == 0)
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
ibv_events_print(const struct ibv_app *app, FILE *f, bool all)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = app->lc[i];
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
					app->cfg.layout.ant_name[e->ant],
					codif_time_str(e->o.old_ns, t1, sizeof(t1)),
					codif_time_str(e->o.new_ns, t2, sizeof(t2)), e->o.frames,
					(double)e->o.arrival_gap_ns / 1e9);
				continue;
			}
			fprintf(f, "dpdk-ibvcap: antenna %s: timeline resync %u: newest frame %s, "
				"next %s (%s%" PRId64 " frames skipped); files start anew\n",
				app->cfg.layout.ant_name[e->ant], e->r.seg,
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
ibv_unrecorded_print(struct ibv_app *app, FILE *f)
{
	const struct acct_layout *l = &app->cfg.layout;
	unsigned int i, a, k, c;
	bool any = false;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = app->lc[i];

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
ibv_stats_line(struct ibv_app *app, FILE *f)
{
	struct ibv_totals t;
	struct rte_eth_stats nic;
	uint64_t now = rte_rdtsc();
	double dt;

	ibv_collect(app, &t);
	nic_totals(app, &nic);
	dt = (double)(now - app->last_tsc) / (double)app->tsc_hz;
	if (dt > 0) {
		app->rate_gbps = (double)(t.rx.bytes - app->last_bytes) * 8 / dt / 1e9;
		app->rate_mpps = (double)(t.rx.pkts - app->last_pkts) / dt / 1e6;
	}
	if (app->quiet_since_tsc == 0)
		app->quiet_since_tsc = app->start_tsc;
	if (t.rx.pkts != app->last_pkts)
		app->quiet_since_tsc = now;
	app->last_tsc = now;
	app->last_bytes = t.rx.bytes;
	app->last_pkts = t.rx.pkts;
	fprintf(f, "[%8.1fs] %7.3f Gb/s %7.4f Mpps |",
		(double)(now - app->start_tsc) / (double)app->tsc_hz, app->rate_gbps,
		app->rate_mpps);
	pairs(f, &stats_counts, &t.all, STATS_ANTENNA | STATS_BRIEF);
	fprintf(f, " | unattributed %" PRIu64 " | nic", unattributed(&t));
	pairs(f, &stats_port, &nic, STATS_LIVE);
	/* silence is news: say it, and what may cause it */
	if (now - app->quiet_since_tsc >= 5 * app->tsc_hz) {
		unsigned int i, down = 0;

		for (i = 0; i < app->nport; i++)
			down += !app->port[i].link_up;
		fprintf(f, " | no packet for %.0f s%s",
			(double)(now - app->quiet_since_tsc) / (double)app->tsc_hz,
			down ? " (a port's link is down)" :
			nic.rx_nombuf ? " (rx_nombuf: no free mbufs, raise --mbufs)" :
			" (senders, joins, cabling?)");
	}
	fprintf(f, "\n");
	fflush(f);
}

static double
elapsed_s(const struct ibv_app *app)
{
	uint64_t end = app->end_tsc ? app->end_tsc : rte_rdtsc();

	return (double)(end - app->start_tsc) / (double)app->tsc_hz;
}

void
ibv_summary(const struct ibv_app *app, FILE *f)
{
	const struct acct_layout *l = &app->cfg.layout;
	struct ibv_totals t;
	char ip[16];
	unsigned int a, i, q, c;
	double el = elapsed_s(app);

	ibv_collect(app, &t);
	fprintf(f, "\n=== dpdk-ibvcap summary (%.3f s, stopped by %s) ===\n", el,
		app->stop_reason ? app->stop_reason : "?");
	/* the original tool's lines, same words */
	fprintf(f, "Total bytes:                %" PRIu64 "\n", t.rx.bytes);
	fprintf(f, "Total packets:              %" PRIu64 "\n", t.rx.pkts);
	fprintf(f, "Busy wait:                  %" PRIu64 "\n", t.rx.empty_polls);
	fprintf(f, "Average bytes per packet:   %.1f\n",
		t.rx.pkts ? (double)t.rx.bytes / (double)t.rx.pkts : 0.0);
	fprintf(f, "Busy wait / packet:         %.3f\n",
		t.rx.pkts ? (double)t.rx.empty_polls / (double)t.rx.pkts : 0.0);
	fprintf(f, "Rx cycles / packet:         %.0f   (TSC %.3f GHz; polls that brought packets)\n",
		t.rx.pkts ? (double)t.rx.busy_cycles / (double)t.rx.pkts : 0.0, (double)app->tsc_hz / 1e9);
	fprintf(f, "Num mismatches:             %" PRIu64 "   (lost + late + duplicate frames)\n",
		t.all.lost + t.all.late + t.all.duplicate);
	fprintf(f, "Average rate:               %.3f Gb/s, %.4f Mpps\n",
		el > 0 ? (double)t.rx.bytes * 8 / el / 1e9 : 0.0,
		el > 0 ? (double)t.rx.pkts / el / 1e6 : 0.0);

	fprintf(f, "\n%-4s %-12s %-15s", "ant", "name", "source");
	stats_text_head(&stats_counts, STATS_ANTENNA, f);
	fprintf(f, "\n");
	for (a = 0; a < l->nant; a++) {
		fprintf(f, "%-4u %-12s %-15s", a, l->ant_name[a],
			ipv4_str(l->ant_ip[a], ip, sizeof(ip)));
		stats_text_row(&stats_counts, &t.ant[a], STATS_ANTENNA, f);
		fprintf(f, "\n");
	}
	fprintf(f, "%-4s %-12s %-15s", "all", "", "");
	stats_text_row(&stats_counts, &t.all, STATS_ANTENNA, f);
	fprintf(f, "\n");
	stats_text_rest(&stats_counts, &t.all, STATS_ANTENNA, "all antennas: ", f);

	if (unattributed(&t)) {
		fprintf(f, "unattributed packets:");
		for (c = 1; c < ACCT_C__COUNT; c++)
			if (t.cause[c])
				fprintf(f, " %s %" PRIu64, acct_cause_name((enum acct_cause)c), t.cause[c]);
		fprintf(f, "\n");
	}
	if (t.rx.misdirected)
		fprintf(f, "misdirected (an antenna on another antenna's queue): %" PRIu64 "\n",
			t.rx.misdirected);

	if (app->bufs.on) {
		const struct ibv_bufs *bf = &app->bufs;

		fprintf(f, "\nantenna buffers '%s': %u frames x %u streams x %u bytes, window %u\n",
			bf->instance, bf->geom.nrows, bf->geom.nslots, bf->geom.data_bytes,
			bf->geom.window);
		if (app->cfg.gpu >= 0)
			fprintf(f, "payload in GPU %d memory, %s\n", app->cfg.gpu,
				app->pl.split ? "written there by the NIC (buffer split)" :
						"copied there by the rx lcores");
		fprintf(f, "%-4s %-12s", "ant", "name");
		stats_text_head(&stats_buffer, STATS_ANTENNA, f);
		fprintf(f, "\n");
		for (a = 0; a < l->nant; a++) {
			if (bf->b[a] == NULL)
				continue;
			fprintf(f, "%-4u %-12s", a, l->ant_name[a]);
			stats_text_row(&stats_buffer, bf->b[a], STATS_ANTENNA, f);
			fprintf(f, "\n");
		}
		for (a = 0; a < l->nant; a++) {
			char lead[64];

			snprintf(lead, sizeof(lead), "%s: ", l->ant_name[a]);
			if (bf->b[a] != NULL)
				stats_text_rest(&stats_buffer, bf->b[a], STATS_ANTENNA, lead, f);
		}
		if (bf->ctl != NULL) {
			bool head = false;

			for (i = 0; i < SHM_MAX_WRITERS; i++) {
				const struct shm_writer *w = &bf->ctl->writer[i];

				if (w->name[0] == '\0')
					continue;
				if (!head) {
					fprintf(f, "%-24s %-6s %8s", "writer", "format", "pid");
					stats_text_head(&stats_writer, STATS_ANTENNA, f);
					fprintf(f, "\n");
					head = true;
				}
				fprintf(f, "%-24s %-6s %8d", w->name, w->format, w->pid);
				stats_text_row(&stats_writer, w, STATS_ANTENNA, f);
				fprintf(f, "%s%s\n", w->error ? " (failed)" : "",
					w->dead ? " (dead: its process died; figures as it last "
						  "published them)" : "");
			}
		}
	}

	fprintf(f, "\n%-5s %-20s %-9s", "port", "device", "steering");
	stats_text_head(&stats_port, STATS_ANTENNA, f);
	fprintf(f, "\n");
	for (i = 0; i < app->nport; i++) {
		const struct ibv_port *p = &app->port[i];
		struct rte_eth_stats st;

		memset(&st, 0, sizeof(st));
		rte_eth_stats_get(p->port_id, &st);
		fprintf(f, "%-5u %-20s %-9s", p->port_id, p->name,
			p->hw_steer ? "rte_flow" : "software");
		stats_text_row(&stats_port, &st, STATS_ANTENNA, f);
		fprintf(f, "\n");
		for (q = 0; q < p->nq && q < RTE_ETHDEV_QUEUE_STAT_CNTRS; q++)
			if (st.q_ipackets[q] || st.q_errors[q])
				fprintf(f, "      queue %-3u %-10s ipackets %" PRIu64 " ibytes %" PRIu64
					" errors %" PRIu64 "\n", q,
					!p->hw_steer ? "(software)" :
					q < l->nant ? l->ant_name[q] : "default", st.q_ipackets[q],
					st.q_ibytes[q], st.q_errors[q]);
	}
	ibv_rec_summary_text(app, f);
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
streams_json(const struct ibv_app *app, json_t *arr)
{
	const struct acct_layout *l = &app->cfg.layout;
	unsigned int i, a, k;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lc[i];

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
resyncs_json(const struct ibv_app *app, json_t *arr)
{
	unsigned int i;

	/* timeline resyncs, as kept by each lcore (the latest ACCT_EVENTS) */
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lc[i];
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

			js_str(o, "antenna", app->cfg.layout.ant_name[e->ant]);
			js_u64(o, "segment", e->r.seg);
			js_str(o, "from_utc", codif_time_str(e->r.old_ns, ts, sizeof(ts)));
			js_str(o, "to_utc", codif_time_str(e->r.new_ns, ts, sizeof(ts)));
			js_i64(o, "frames_skipped", e->r.skipped);
			js_bool(o, "new_clock", e->r.new_clock);
		}
	}
}

static void
ports_json(const struct ibv_app *app, const struct ibv_totals *t, json_t *arr)
{
	const struct acct_layout *l = &app->cfg.layout;
	unsigned int i, q;

	for (i = 0; i < app->nport; i++) {
		const struct ibv_port *p = &app->port[i];
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
				const struct ibv_lcore *lc = app->lc[j];

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
buffers_json(const struct ibv_app *app, json_t *root)
{
	const struct ibv_bufs *bf = &app->bufs;
	const struct acct_layout *l = &app->cfg.layout;
	json_t *o = js_obj(root, "buffers"), *arr;
	unsigned int a, i;

	js_str(o, "instance", bf->instance);
	js_u64(o, "rows", bf->geom.nrows);
	js_u64(o, "window", bf->geom.window);
	js_u64(o, "slots", bf->geom.nslots);
	js_u64(o, "data_bytes", bf->geom.data_bytes);
	js_str(o, "memory", app->cfg.gpu >= 0 ? "gpu" : "hugepages");
	if (app->cfg.gpu >= 0) {
		/* how payload reaches the GPU: NIC (buffer split) or CPU copy */
		js_str(o, "gpu_payload", app->pl.split ? "buffer-split" : "cpu-copy");
		js_str(o, "gpu_split_why", app->pl.split_why);
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
ibv_summary_json(const struct ibv_app *app, const char *path)
{
	const struct acct_layout *l = &app->cfg.layout;
	struct ibv_totals t;
	struct stats_rx r;
	char ip[16], err[PATH_MAX + 128];
	unsigned int a, i;
	double el = elapsed_s(app);
	json_t *root = json_object(), *o, *arr;
	int rc;

	ibv_collect(app, &t);
	js_str(root, "program", "dpdk-ibvcap");
	js_dbl(root, "duration_s", el);
	js_str(root, "stop_reason", app->stop_reason ? app->stop_reason : "");
	o = js_obj(root, "totals");
	/* all antennas' counts, then the capture's: its packets and wire_bytes
	 * (every packet, an antenna's or not) replace the antennas' sums */
	stats_json(&stats_counts, &t.all, STATS_ANTENNA, o);
	stats_json(&stats_capture, &t.rx, STATS_ANTENNA, o);
	js_dbl(o, "avg_bytes_per_packet", t.rx.pkts ? (double)t.rx.bytes / (double)t.rx.pkts : 0);
	js_dbl(o, "busy_wait_per_packet", t.rx.pkts ? (double)t.rx.empty_polls / (double)t.rx.pkts : 0);
	js_dbl(o, "cycles_per_packet", t.rx.pkts ? (double)t.rx.busy_cycles / (double)t.rx.pkts : 0);
	js_u64(o, "tsc_hz", app->tsc_hz);
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
	streams_json(app, js_arr(root, "streams"));
	causes_json(root, "unattributed", t.cause);
	resyncs_json(app, js_arr(root, "resyncs"));
	ports_json(app, &t, js_arr(root, "ports"));
	if (app->bufs.on)
		buffers_json(app, root);
	ibv_ql_summary_json(app, root, el);
	ibv_rec_summary_json(app, root);
	arr = js_arr(root, "lcores");
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lc[i];
		json_t *x;

		if (lc == NULL)
			continue;
		x = js_obj(arr, NULL);
		js_u64(x, "lcore", lc->lcore_id);
		js_u64(x, "queues", lc->nq);
		rx_of(lc, &r);
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

/* ---- telemetry: every reply walks a table --------------------------------- */

static int
tel_stats(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	struct ibv_totals t;
	struct rte_eth_stats nic;

	(void)params;
	ibv_collect(app, &t);
	nic_totals(app, &nic);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "uptime_ms", (uint64_t)(elapsed_s(app) * 1000));
	{ /* how long ago the main loop last turned (100 times a second when
	   * well): clients call a capture whose loop stopped stale */
		uint64_t l = __atomic_load_n(&app->loop_tsc, __ATOMIC_RELAXED), now = rte_rdtsc();

		rte_tel_data_add_dict_u64(d, "loop_age_ms", l == 0 || now < l ? 0 :
					  (now - l) * 1000 / app->tsc_hz);
	}
	rte_tel_data_add_dict_u64(d, "antennas", app->cfg.layout.nant);
	stats_tel_dict(&stats_capture, &t.rx, STATS_LIVE, d);
	stats_tel_dict(&stats_counts, &t.all, STATS_ANTENNA | STATS_LIVE, d);
	rte_tel_data_add_dict_u64(d, "unattributed", unattributed(&t));
	stats_tel_dict(&stats_port, &nic, STATS_LIVE, d);
	rte_tel_data_add_dict_u64(d, "rate_mbps", (uint64_t)(app->rate_gbps * 1000));
	rte_tel_data_add_dict_u64(d, "rate_pps", (uint64_t)(app->rate_mpps * 1e6));
	return 0;
}

static int
tel_antennas(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	struct rte_tel_data *names;
	struct ibv_totals t;
	unsigned int a;

	(void)params;
	ibv_collect(app, &t);
	rte_tel_data_start_dict(d);
	names = rte_tel_data_alloc();
	if (names == NULL)
		return -ENOMEM;
	/* every figure of an antenna (counters.md: all of them exported) */
	stats_tel_names(&stats_counts, STATS_ANTENNA, names);
	rte_tel_data_add_dict_container(d, "fields", names, 0);
	for (a = 0; a < app->cfg.layout.nant; a++) {
		struct rte_tel_data *arr = rte_tel_data_alloc();

		if (arr == NULL)
			return -ENOMEM;
		stats_tel_row(&stats_counts, &t.ant[a], STATS_ANTENNA, arr);
		if (rte_tel_data_add_dict_container(d, app->cfg.layout.ant_name[a], arr, 0) != 0)
			rte_tel_data_free(arr);
	}
	return 0;
}

/* the identity of a stream's row, after its counts (tel_streams) */
static const char *const stream_id_names[] = {
	"antenna", "stationid", "groupid", "secondaryid", "threadid", "dst", "port", "slot",
};

/* /ibvcap/streams[,ANTENNA]: each stream's counts (per rx lcore that saw
 * it), its not_recorded by cause, and its identity; keyed a<ant>_s<k>_l<lcore> */
static int
tel_streams(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	const struct acct_layout *l = &app->cfg.layout;
	struct rte_tel_data *names;
	unsigned int i, a, k, c, a0 = 0, a1 = l->nant;
	char key[64];

	if (params != NULL && *params != '\0') {
		uint64_t idx;

		for (a = 0; a < l->nant; a++)
			if (strcmp(params, l->ant_name[a]) == 0)
				break;
		if (a == l->nant) {
			if (parse_u64("antenna", params, 0, l->nant - 1, &idx, NULL, 0) != 0)
				return -EINVAL;
			a = (unsigned int)idx;
		}
		a0 = a;
		a1 = a + 1;
	}
	names = rte_tel_data_alloc();
	if (names == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	stats_tel_names(&stats_counts, STATS_STREAM | STATS_LIVE, names);
	for (c = 0; c < ACCT_NR__COUNT; c++) {
		char n[48], *p;

		snprintf(n, sizeof(n), "not_recorded_%s", acct_nr_name((enum acct_nr)c));
		for (p = n; *p != '\0'; p++)
			if (*p == '-')
				*p = '_';
		rte_tel_data_add_array_string(names, n);
	}
	for (k = 0; k < RTE_DIM(stream_id_names); k++)
		rte_tel_data_add_array_string(names, stream_id_names[k]);
	if (rte_tel_data_add_dict_container(d, "fields", names, 0) != 0) {
		rte_tel_data_free(names);
		return -ENOSPC;
	}
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lc[i];

		if (lc == NULL)
			continue;
		for (a = a0; a < a1; a++) {
			const struct acct_ant *an = &lc->acct->ant[a];
			unsigned int n = __atomic_load_n(&an->nstream, __ATOMIC_ACQUIRE);

			for (k = 0; k < n; k++) {
				const struct acct_stream *s = &an->stream[k];
				struct rte_tel_data *arr = rte_tel_data_alloc();
				struct acct_counts one;

				if (arr == NULL)
					return -ENOMEM;
				stats_zero(&stats_counts, &one);
				acct_stream_add(s, &one);
				stats_tel_row(&stats_counts, &one, STATS_STREAM | STATS_LIVE, arr);
				for (c = 0; c < ACCT_NR__COUNT; c++)
					rte_tel_data_add_array_u64(arr, one.nr[c]);
				rte_tel_data_add_array_u64(arr, a);
				rte_tel_data_add_array_u64(arr, s->stationid);
				rte_tel_data_add_array_u64(arr, s->groupid);
				rte_tel_data_add_array_u64(arr, s->secondaryid);
				rte_tel_data_add_array_u64(arr, s->threadid);
				rte_tel_data_add_array_u64(arr, s->dst_ip);
				rte_tel_data_add_array_u64(arr, s->dport);
				rte_tel_data_add_array_u64(arr, s->slot);
				snprintf(key, sizeof(key), "a%u_s%u_l%u", a, k, lc->lcore_id);
				if (rte_tel_data_add_dict_container(d, key, arr, 0) != 0) {
					/* the reply is full (telemetry's limits): ask
					 * for one antenna at a time */
					rte_tel_data_free(arr);
					return 0;
				}
			}
		}
	}
	return 0;
}

static int
tel_antenna(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	struct ibv_totals t;
	unsigned int a;
	uint64_t idx;
	char ip[16];

	if (params == NULL || *params == '\0')
		return -EINVAL;
	for (a = 0; a < app->cfg.layout.nant; a++)
		if (strcmp(params, app->cfg.layout.ant_name[a]) == 0)
			break;
	if (a == app->cfg.layout.nant) {
		if (parse_u64("antenna", params, 0, app->cfg.layout.nant - 1, &idx, NULL, 0) != 0)
			return -EINVAL;
		a = (unsigned int)idx;
	}
	ibv_collect(app, &t);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", app->cfg.layout.ant_name[a]);
	rte_tel_data_add_dict_string(d, "src", ipv4_str(app->cfg.layout.ant_ip[a], ip, sizeof(ip)));
	stats_tel_dict(&stats_counts, &t.ant[a], STATS_ANTENNA, d);
	if (app->bufs.on && app->bufs.b[a] != NULL)
		stats_tel_dict(&stats_buffer, app->bufs.b[a], STATS_ANTENNA | STATS_LIVE, d);
	return 0;
}

/* a dictionary of rows, with the names of their values in "fields" */
static int
tel_rows_start(struct rte_tel_data *d, const struct stats_group *g, unsigned int scope)
{
	struct rte_tel_data *names = rte_tel_data_alloc();

	if (names == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	stats_tel_names(g, scope, names);
	if (rte_tel_data_add_dict_container(d, "fields", names, 0) != 0) {
		rte_tel_data_free(names);
		return -ENOSPC;
	}
	return 0;
}

static void
tel_row(struct rte_tel_data *d, const char *key, const struct stats_group *g,
	const void *rec, unsigned int scope)
{
	struct rte_tel_data *arr = rte_tel_data_alloc();

	if (arr == NULL)
		return;
	stats_tel_row(g, rec, scope, arr);
	if (rte_tel_data_add_dict_container(d, key, arr, 0) != 0)
		rte_tel_data_free(arr);
}

static int
tel_buffers(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	unsigned int a;
	int rc;

	(void)params;
	if (!app->bufs.on)
		return -ENOENT;
	rc = tel_rows_start(d, &stats_buffer, STATS_ANTENNA);
	for (a = 0; rc == 0 && a < app->cfg.layout.nant; a++)
		if (app->bufs.b[a] != NULL)
			tel_row(d, app->cfg.layout.ant_name[a], &stats_buffer, app->bufs.b[a],
				STATS_ANTENNA);
	return rc;
}

/* A writer's row key in /ibvcap/writers: telemetry keys take letters,
 * digits, '_' and '/' only, which the names given (--name) need not be;
 * /ibvcap/writer,KEY says the name. */
static const char *
writer_key(unsigned int slot, const struct shm_writer *w, char *key, size_t len)
{
	snprintf(key, len, "w%u_%s", slot, w->format);
	return key;
}

static int
tel_writers(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	unsigned int i;
	int rc;

	(void)params;
	if (!app->bufs.on || app->bufs.ctl == NULL)
		return -ENOENT;
	ibv_bufs_writers_check(app, stdout); /* liveness as of now */
	rc = tel_rows_start(d, &stats_writer, STATS_LIVE);
	for (i = 0; rc == 0 && i < SHM_MAX_WRITERS; i++) {
		const struct shm_writer *w = &app->bufs.ctl->writer[i];
		char key[64];

		if (w->name[0] == '\0')
			continue;
		tel_row(d, writer_key(i, w, key, sizeof(key)), &stats_writer, w, STATS_LIVE);
	}
	return rc;
}

static int
tel_writer(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	const struct shm_writer *w;
	char key[64];
	unsigned int i;
	uint64_t idx = SHM_MAX_WRITERS;

	if (!app->bufs.on || app->bufs.ctl == NULL)
		return -ENOENT;
	if (params == NULL || *params == '\0')
		return -EINVAL;
	ibv_bufs_writers_check(app, stdout);
	/* by its row's key, by the name it was given, or by slot */
	for (i = 0; i < SHM_MAX_WRITERS && idx == SHM_MAX_WRITERS; i++) {
		w = &app->bufs.ctl->writer[i];
		if (w->name[0] != '\0' && (strcmp(params, writer_key(i, w, key, sizeof(key))) == 0 ||
					    strcmp(params, w->name) == 0))
			idx = i;
	}
	if (idx == SHM_MAX_WRITERS &&
	    parse_u64("writer", params, 0, SHM_MAX_WRITERS - 1, &idx, NULL, 0) != 0)
		return -EINVAL;
	w = &app->bufs.ctl->writer[idx];
	if (w->name[0] == '\0')
		return -EINVAL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "key", writer_key((unsigned int)idx, w, key, sizeof(key)));
	rte_tel_data_add_dict_string(d, "name", w->name);
	rte_tel_data_add_dict_string(d, "format", w->format);
	rte_tel_data_add_dict_int(d, "pid", w->pid);
	rte_tel_data_add_dict_string(d, "io", w->io_uring ? "uring" : "sync");
	rte_tel_data_add_dict_string(d, "io_why", w->io_why);
	stats_tel_dict(&stats_writer, w, STATS_LIVE, d);
	return 0;
}

static int
tel_counters(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	unsigned int k;

	(void)app;
	for (k = 0; k < stats_ngroups; k++)
		if (params != NULL && strcmp(params, stats_groups[k]->name) == 0)
			return stats_tel_describe(stats_groups[k], 0, d) == 0 ? 0 : -ENOMEM;
	if (params != NULL && *params != '\0')
		return -EINVAL;
	rte_tel_data_start_dict(d);
	for (k = 0; k < stats_ngroups; k++)
		rte_tel_data_add_dict_string(d, stats_groups[k]->name, stats_groups[k]->help);
	return 0;
}

/*
 * Telemetry answers on its own thread, reading the lcores' counters, the
 * buffers and the writer registry, which start-up builds and teardown
 * frees (a status screen polls while the capture starts and stops).
 * tel_lock keeps them apart: replies read the capture only between
 * ibv_telemetry_open and ibv_telemetry_close (else -EAGAIN), and a reply
 * runs whole before teardown goes on. No reply waits: a triggered dump is
 * a job of its own (trig.c), /ibvcap/trigger answers its id at once.
 */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ibv_app *tel_app;

static const struct {
	const char *name;
	int (*fn)(struct ibv_app *app, const char *params, struct rte_tel_data *d);
	const char *help;
} tel_cmds[] = {
	{ "/ibvcap/stats", tel_stats,
	  "dpdk-ibvcap totals: packets, frames received, lost, ... (described by "
	  "/ibvcap/counters). No parameters." },
	{ "/ibvcap/antennas", tel_antennas,
	  "Per-antenna counters, every one: an array per antenna, names in 'fields'. No "
	  "parameters." },
	{ "/ibvcap/antenna", tel_antenna,
	  "One antenna's counters. Parameter: antenna name or index." },
	{ "/ibvcap/streams", tel_streams,
	  "Each stream's counts, not recorded by cause, ids and slot, as rows. Parameter: "
	  "an antenna (name or index), else all." },
	{ "/ibvcap/buffers", tel_buffers,
	  "Per-antenna buffer placement: an array per antenna, names in 'fields'." },
	{ "/ibvcap/writers", tel_writers,
	  "Writers' figures: an array per writer (key w<slot>_<format>), names in 'fields'." },
	{ "/ibvcap/writer", tel_writer,
	  "One writer: its name (--name), format, pid and figures. Parameter: its key in "
	  "/ibvcap/writers, name or slot." },
	{ "/ibvcap/trigger", ibv_trig_tel_start,
	  "A window of the rings to files, as a job (its id at once): "
	  "T0,T1,FORMAT,DIR[,ANTENNA...][,timeout=T][,prefix=P]" },
	{ "/ibvcap/trigger/status", ibv_trig_tel_status,
	  "A trigger's state and, once it ended, its result. Parameter: its id (none: every "
	  "trigger kept)." },
	{ "/ibvcap/record", ibv_rec_command,
	  "Scans of the --write writers. Parameters: on|off|cancel|status [scan=] [at=] [for=] "
	  "[until=] [writer=] [antenna=]" },
	{ "/ibvcap/scan", ibv_rec_tel_scan,
	  "One scan's ledger: its writers' rows once ended. Parameters: SCAN[,WRITER] "
	  "(WRITER: its rows per antenna)." },
	{ "/ibvcap/quicklook", ibv_ql_tel_window,
	  "Quick look of the last --quicklook-window, a row per antenna. Parameter: "
	  "antenna name or index." },
	{ "/ibvcap/quicklook/run", ibv_ql_tel_run,
	  "Quick look of the whole run so far, a row per antenna. No parameters." },
	{ "/ibvcap/fringe", ibv_fringe_tel_start,
	  "Fringe check of a baseline off the rx lcores, as a job: A,B[,SECONDS][,pairs=N]"
	  "[,max_lag=N]" },
	{ "/ibvcap/fringe/status", ibv_fringe_tel_status,
	  "The latest fringe check: its state, then per thread and channel lag and "
	  "coefficient. No parameters." },
	{ "/ibvcap/bstate", ibv_ql_tel_bstate,
	  "Sampler statistics of the last --quicklook-window, a row per antenna. Parameter: "
	  "antenna (its occupancy, groups, streams)." },
	{ "/ibvcap/spectrum", ibv_ql_tel_spectrum,
	  "Spectra of an antenna's streams over the last --quicklook-window (asking starts "
	  "them). Parameters: ANTENNA[,NFFT]" },
	{ "/ibvcap/counters", tel_counters,
	  "What each counter means. No parameter: the groups; GROUP: name -> [unit, kind, "
	  "help, merge, prometheus, scale]." },
};

static int
tel_dispatch(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int k;
	int rc = -EAGAIN;

	for (k = 0; k < RTE_DIM(tel_cmds); k++)
		if (strcmp(cmd, tel_cmds[k].name) == 0)
			break;
	if (k == RTE_DIM(tel_cmds))
		return -EINVAL;
	pthread_mutex_lock(&tel_lock);
	if (tel_app != NULL)
		rc = tel_cmds[k].fn(tel_app, params, d);
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

int
ibv_telemetry_register(void)
{
	unsigned int k;
	int rc = 0;

	for (k = 0; k < RTE_DIM(tel_cmds); k++)
		if (rte_telemetry_register_cmd(tel_cmds[k].name, tel_dispatch,
					       tel_cmds[k].help) != 0) {
			/* a name over 56 bytes, a help of 128 or more */
			printf("dpdk-ibvcap: telemetry command %s not registered\n",
			       tel_cmds[k].name);
			rc = -EINVAL;
		}
	return rc;
}

static void
tel_set(struct ibv_app *app)
{
	pthread_mutex_lock(&tel_lock);
	tel_app = app;
	pthread_mutex_unlock(&tel_lock);
}

void
ibv_telemetry_open(struct ibv_app *app)
{
	tel_set(app);
}

void
ibv_telemetry_close(void)
{
	/* triggers end (or are cancelled), their results read, while
	 * telemetry still answers */
	ibv_trig_jobs_end();
	ibv_fringe_end();
	tel_set(NULL);
}
