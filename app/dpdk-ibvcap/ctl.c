/* SPDX-License-Identifier: BSD-3-Clause */
/* Control side: totals, the periodic line, the final summary, JSON, telemetry. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "ibvcap.h"
#include "jsonw.h"
#include "parse.h"

struct ibv_app *ibv_g;

void
ibv_collect(const struct ibv_app *app, struct ibv_totals *t)
{
	const struct acct_layout *l = &app->cfg.layout;
	unsigned int i, a, c, p;

	memset(t, 0, sizeof(*t));
	acct_totals_init(&t->all);
	for (a = 0; a < l->nant; a++)
		acct_totals_init(&t->ant[a]);
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lc[i];

		if (lc == NULL)
			continue;
		t->pkts += lc->pkts;
		t->bytes += lc->bytes;
		t->polls += lc->polls;
		t->empty_polls += lc->empty_polls;
		t->misdirected += lc->misdirected;
		for (a = 0; a < l->nant; a++)
			acct_ant_add(lc->acct, a, &t->ant[a]);
		for (p = 0; p < app->nport; p++)
			for (c = 1; c < ACCT_C__COUNT; c++) {
				t->port_cause[p][c] += lc->acct->port[p].cause[c];
				t->cause[c] += lc->acct->port[p].cause[c];
			}
	}
	for (a = 0; a < l->nant; a++)
		acct_totals_add(&t->all, &t->ant[a]);
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

static void
nic_totals(const struct ibv_app *app, uint64_t *imissed, uint64_t *nombuf,
	   uint64_t *ierrors)
{
	unsigned int i;

	*imissed = *nombuf = *ierrors = 0;
	for (i = 0; i < app->nport; i++) {
		struct rte_eth_stats st;

		if (rte_eth_stats_get(app->port[i].port_id, &st) != 0)
			continue;
		*imissed += st.imissed;
		*nombuf += st.rx_nombuf;
		*ierrors += st.ierrors;
	}
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
			fprintf(f, "dpdk-ibvcap: %" PRIu64 " timeline resyncs not shown (more than "
				"%d at once)\n", n - ACCT_EVENTS - k, ACCT_EVENTS);
			k = n - ACCT_EVENTS;
		}
		for (; k < n; k++) {
			const struct acct_event *e = &lc->acct->ev[k % ACCT_EVENTS];
			char t1[CODIF_TIMESTR_LEN], t2[CODIF_TIMESTR_LEN];

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
ibv_stats_line(struct ibv_app *app, FILE *f)
{
	struct ibv_totals t;
	uint64_t now = rte_rdtsc(), imissed, nombuf, ierrors;
	double dt;

	ibv_collect(app, &t);
	nic_totals(app, &imissed, &nombuf, &ierrors);
	dt = (double)(now - app->last_tsc) / (double)app->tsc_hz;
	if (dt > 0) {
		app->rate_gbps = (double)(t.bytes - app->last_bytes) * 8 / dt / 1e9;
		app->rate_mpps = (double)(t.pkts - app->last_pkts) / dt / 1e6;
	}
	app->last_tsc = now;
	app->last_bytes = t.bytes;
	app->last_pkts = t.pkts;
	fprintf(f,
		"[%8.1fs] %7.3f Gb/s %7.4f Mpps | frames %" PRIu64 " lost %" PRIu64
		" late %" PRIu64 " dup %" PRIu64 " inv %" PRIu64 " malformed %" PRIu64
		" | unattributed %" PRIu64 " | nic missed %" PRIu64 " nombuf %" PRIu64
		" errors %" PRIu64 "\n",
		(double)(now - app->start_tsc) / (double)app->tsc_hz, app->rate_gbps,
		app->rate_mpps, t.all.received, t.all.lost, t.all.late, t.all.duplicate,
		t.all.invalid, t.all.malformed, unattributed(&t), imissed, nombuf, ierrors);
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
	char ip[16], t1[CODIF_TIMESTR_LEN], t2[CODIF_TIMESTR_LEN];
	unsigned int a, i, q, c;
	double el = elapsed_s(app);

	ibv_collect(app, &t);
	fprintf(f, "\n=== dpdk-ibvcap summary (%.3f s, stopped by %s) ===\n", el,
		app->stop_reason ? app->stop_reason : "?");
	/* the original tool's lines, same words */
	fprintf(f, "Total bytes:                %" PRIu64 "\n", t.bytes);
	fprintf(f, "Total packets:              %" PRIu64 "\n", t.pkts);
	fprintf(f, "Busy wait:                  %" PRIu64 "\n", t.empty_polls);
	fprintf(f, "Average bytes per packet:   %.1f\n",
		t.pkts ? (double)t.bytes / (double)t.pkts : 0.0);
	fprintf(f, "Busy wait / packet:         %.3f\n",
		t.pkts ? (double)t.empty_polls / (double)t.pkts : 0.0);
	fprintf(f, "Num mismatches:             %" PRIu64 "   (lost + late + duplicate frames)\n",
		t.all.lost + t.all.late + t.all.duplicate);
	fprintf(f, "Average rate:               %.3f Gb/s, %.4f Mpps\n",
		el > 0 ? (double)t.bytes * 8 / el / 1e9 : 0.0,
		el > 0 ? (double)t.pkts / el / 1e6 : 0.0);

	fprintf(f, "\n%-4s %-12s %-15s %4s %10s %10s %8s %8s %8s %8s %9s %14s  %-30s %-30s\n",
		"ant", "name", "source", "strm", "frames", "received", "lost", "late", "dup",
		"invalid", "malformed", "bytes", "first frame (UTC)", "last frame (UTC)");
	for (a = 0; a < l->nant; a++) {
		const struct acct_ant_totals *s = &t.ant[a];

		fprintf(f, "%-4u %-12s %-15s %4" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8" PRIu64
			" %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %14" PRIu64 "  %-30s %-30s\n",
			a, l->ant_name[a], ipv4_str(l->ant_ip[a], ip, sizeof(ip)), s->streams,
			s->expected, s->received, s->lost, s->late, s->duplicate, s->invalid,
			s->malformed, s->bytes,
			s->first_ns != INT64_MAX ? codif_time_str(s->first_ns, t1, sizeof(t1)) : "-",
			s->last_ns != INT64_MIN ? codif_time_str(s->last_ns, t2, sizeof(t2)) : "-");
	}
	fprintf(f, "%-4s %-12s %-15s %4" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8" PRIu64
		" %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %14" PRIu64 "\n",
		"all", "", "", t.all.streams, t.all.expected, t.all.received, t.all.lost,
		t.all.late, t.all.duplicate, t.all.invalid, t.all.malformed, t.all.bytes);
	if (t.all.malformed) {
		fprintf(f, "malformed by cause:");
		for (c = 0; c < ACCT_M__COUNT; c++)
			if (t.all.mal[c])
				fprintf(f, " %s %" PRIu64, acct_malformed_name((enum acct_malformed)c),
					t.all.mal[c]);
		fprintf(f, "\n");
	}
	if (t.all.resyncs || t.all.new_params || t.all.too_late)
		fprintf(f, "timeline: resyncs %" PRIu64 " (streams moved %" PRIu64 ", frames "
			"skipped %" PRIu64 "), new parameters %" PRIu64 ", too late for the "
			"buffer %" PRIu64 "\n", t.all.tl_resyncs, t.all.resyncs,
			t.all.resync_skipped, t.all.new_params, t.all.too_late);

	if (unattributed(&t)) {
		fprintf(f, "unattributed packets:");
		for (c = 1; c < ACCT_C__COUNT; c++)
			if (t.cause[c])
				fprintf(f, " %s %" PRIu64, acct_cause_name((enum acct_cause)c), t.cause[c]);
		fprintf(f, "\n");
	}
	if (t.misdirected)
		fprintf(f, "misdirected (an antenna on another antenna's queue): %" PRIu64 "\n",
			t.misdirected);

	if (app->bufs.on) {
		const struct ibv_bufs *bf = &app->bufs;
		unsigned int r;

		fprintf(f, "\nantenna buffers '%s': %u frames x %u streams x %u bytes, window %u\n",
			bf->instance, bf->geom.nrows, bf->geom.nslots, bf->geom.data_bytes,
			bf->geom.window);
		if (app->cfg.gpu >= 0)
			fprintf(f, "payload in GPU %d memory, %s\n", app->cfg.gpu,
				app->split.on ? "written there by the NIC (buffer split)" :
						"copied there by the rx lcores");
		fprintf(f, "%-4s %-12s %10s %8s %9s %8s %8s %8s %8s %10s %10s\n", "ant", "name",
			"placed", "late", "duplicate", "too-late", "no-slot",
			"size", "timing", "gap-zeroed", "gap-beyond");
		for (a = 0; a < l->nant; a++) {
			const struct antbuf *b = bf->b[a];

			if (b == NULL)
				continue;
			fprintf(f, "%-4u %-12s %10" PRIu64 " %8" PRIu64, a, l->ant_name[a],
				b->placed, b->late_placed);
			for (r = ANTBUF_DUPLICATE; r < ANTBUF__RESULTS; r++)
				fprintf(f, " %*" PRIu64, r == ANTBUF_DUPLICATE ? 9 : 8, b->result[r]);
			fprintf(f, " %10" PRIu64 " %10" PRIu64 "\n", b->zero_filled, b->gap_frames);
		}
		if (bf->ctl != NULL) {
			bool head = false;

			for (i = 0; i < IBV_SHM_MAX_WRITERS; i++) {
				const struct ibv_shm_writer *w = &bf->ctl->writer[i];

				if (w->name[0] == '\0')
					continue;
				if (!head) {
					fprintf(f, "%-24s %-6s %8s %12s %10s %14s %6s %s\n", "writer",
						"format", "pid", "frames", "gap-frames", "bytes",
						"files", "lost-to-overrun");
					head = true;
				}
				fprintf(f, "%-24s %-6s %8d %12" PRIu64 " %10" PRIu64 " %14" PRIu64
					" %6" PRIu64 " %" PRIu64 "%s\n", w->name, w->format, w->pid,
					w->frames, w->gap_frames, w->bytes, w->files, w->lost_frames,
					w->error ? " (failed)" : "");
			}
		}
	}

	fprintf(f, "\n%-5s %-20s %-9s %12s %12s %10s %10s %10s\n", "port", "device", "steering",
		"ipackets", "ibytes", "imissed", "ierrors", "rx_nombuf");
	for (i = 0; i < app->nport; i++) {
		const struct ibv_port *p = &app->port[i];
		struct rte_eth_stats st;

		memset(&st, 0, sizeof(st));
		rte_eth_stats_get(p->port_id, &st);
		fprintf(f, "%-5u %-20s %-9s %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64
			" %10" PRIu64 "\n", p->port_id, p->name, p->hw_steer ? "rte_flow" : "software",
			st.ipackets, st.ibytes, st.imissed, st.ierrors, st.rx_nombuf);
		for (q = 0; q < p->nq && q < RTE_ETHDEV_QUEUE_STAT_CNTRS; q++)
			if (st.q_ipackets[q] || st.q_errors[q])
				fprintf(f, "      queue %-3u %-10s ipackets %" PRIu64 " ibytes %" PRIu64
					" errors %" PRIu64 "\n", q,
					!p->hw_steer ? "(software)" :
					q < l->nant ? l->ant_name[q] : "default", st.q_ipackets[q],
					st.q_ibytes[q], st.q_errors[q]);
	}
	fflush(f);
}

static void
totals_json(struct jsonw *w, const struct acct_ant_totals *s)
{
	char ts[CODIF_TIMESTR_LEN];
	unsigned int c;

	jsonw_u64(w, "streams", s->streams);
	jsonw_u64(w, "frames", s->expected);
	jsonw_u64(w, "received", s->received);
	jsonw_u64(w, "lost", s->lost);
	jsonw_u64(w, "late", s->late);
	jsonw_u64(w, "duplicate", s->duplicate);
	jsonw_u64(w, "invalid", s->invalid);
	jsonw_u64(w, "malformed", s->malformed);
	jsonw_u64(w, "too_late", s->too_late);
	jsonw_u64(w, "implausible", s->implausible);
	jsonw_u64(w, "param_change", s->param_change);
	jsonw_u64(w, "resyncs", s->resyncs);
	jsonw_u64(w, "resync_skipped", s->resync_skipped);
	jsonw_u64(w, "timeline_resyncs", s->tl_resyncs);
	jsonw_u64(w, "new_params", s->new_params);
	jsonw_u64(w, "bytes", s->bytes);
	jsonw_u64(w, "packets", s->pkts);
	jsonw_u64(w, "wire_bytes", s->wire_bytes);
	if (s->first_ns != INT64_MAX) {
		jsonw_str(w, "first_frame_utc", codif_time_str(s->first_ns, ts, sizeof(ts)));
		jsonw_str(w, "last_frame_utc", codif_time_str(s->last_ns, ts, sizeof(ts)));
	} else {
		jsonw_null(w, "first_frame_utc");
		jsonw_null(w, "last_frame_utc");
	}
	jsonw_obj_begin(w, "malformed_by_cause");
	for (c = 0; c < ACCT_M__COUNT; c++)
		jsonw_u64(w, acct_malformed_name((enum acct_malformed)c), s->mal[c]);
	jsonw_obj_end(w);
}

int
ibv_summary_json(const struct ibv_app *app, const char *path)
{
	const struct acct_layout *l = &app->cfg.layout;
	struct ibv_totals t;
	struct jsonw w;
	char ip[16], st[3];
	unsigned int a, i, k, c, q;
	double el = elapsed_s(app);
	FILE *f;
	char tmp[PATH_MAX + 8];
	int rc;

	/* written whole to NAME.part, then renamed: never a half summary */
	snprintf(tmp, sizeof(tmp), "%s.part", path);
	f = fopen(tmp, "w");
	if (f == NULL) {
		fprintf(stderr, "dpdk-ibvcap: --summary-json: '%s': %s\n", tmp, strerror(errno));
		return -1;
	}
	ibv_collect(app, &t);
	jsonw_init(&w, f, true);
	jsonw_obj_begin(&w, NULL);
	jsonw_str(&w, "program", "dpdk-ibvcap");
	jsonw_dbl(&w, "duration_s", el);
	jsonw_str(&w, "stop_reason", app->stop_reason ? app->stop_reason : "");
	jsonw_obj_begin(&w, "totals");
	jsonw_u64(&w, "bytes", t.bytes);
	jsonw_u64(&w, "packets", t.pkts);
	jsonw_u64(&w, "busy_wait", t.empty_polls);
	jsonw_u64(&w, "polls", t.polls);
	jsonw_dbl(&w, "avg_bytes_per_packet", t.pkts ? (double)t.bytes / (double)t.pkts : 0);
	jsonw_dbl(&w, "busy_wait_per_packet",
		  t.pkts ? (double)t.empty_polls / (double)t.pkts : 0);
	jsonw_u64(&w, "mismatches", t.all.lost + t.all.late + t.all.duplicate);
	jsonw_u64(&w, "misdirected", t.misdirected);
	jsonw_dbl(&w, "gbps", el > 0 ? (double)t.bytes * 8 / el / 1e9 : 0);
	jsonw_dbl(&w, "mpps", el > 0 ? (double)t.pkts / el / 1e6 : 0);
	totals_json(&w, &t.all);
	jsonw_obj_end(&w);

	jsonw_arr_begin(&w, "antennas");
	for (a = 0; a < l->nant; a++) {
		jsonw_obj_begin(&w, NULL);
		jsonw_u64(&w, "antenna", a);
		jsonw_str(&w, "name", l->ant_name[a]);
		jsonw_str(&w, "src", ipv4_str(l->ant_ip[a], ip, sizeof(ip)));
		totals_json(&w, &t.ant[a]);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);

	jsonw_arr_begin(&w, "streams");
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lc[i];

		if (lc == NULL)
			continue;
		for (a = 0; a < l->nant; a++)
			for (k = 0; k < lc->acct->ant[a].nstream; k++) {
				const struct acct_stream *s = &lc->acct->ant[a].stream[k];
				struct acct_ant_totals one;

				acct_totals_init(&one);
				acct_stream_add(s, &one);
				jsonw_obj_begin(&w, NULL);
				jsonw_u64(&w, "antenna", a);
				jsonw_str(&w, "src", ipv4_str(l->ant_ip[a], ip, sizeof(ip)));
				jsonw_str(&w, "dst", ipv4_str(s->dst_ip, ip, sizeof(ip)));
				jsonw_u64(&w, "port", s->dport);
				codif_station_str(s->stationid, st);
				jsonw_str(&w, "station", st);
				jsonw_u64(&w, "groupid", s->groupid);
				jsonw_u64(&w, "secondaryid", s->secondaryid);
				jsonw_u64(&w, "threadid", s->threadid);
				jsonw_u64(&w, "lcore", lc->lcore_id);
				totals_json(&w, &one);
				jsonw_obj_end(&w);
			}
	}
	jsonw_arr_end(&w);

	jsonw_obj_begin(&w, "unattributed");
	for (c = 1; c < ACCT_C__COUNT; c++)
		jsonw_u64(&w, acct_cause_name((enum acct_cause)c), t.cause[c]);
	jsonw_obj_end(&w);

	/* timeline resyncs, as kept by each lcore (the latest ACCT_EVENTS) */
	jsonw_arr_begin(&w, "resyncs");
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lc[i];
		uint64_t e_i, n;

		if (lc == NULL)
			continue;
		n = __atomic_load_n(&lc->acct->nev, __ATOMIC_ACQUIRE);
		for (e_i = n > ACCT_EVENTS ? n - ACCT_EVENTS : 0; e_i < n; e_i++) {
			const struct acct_event *e = &lc->acct->ev[e_i % ACCT_EVENTS];
			char ts[CODIF_TIMESTR_LEN];

			jsonw_obj_begin(&w, NULL);
			jsonw_str(&w, "antenna", l->ant_name[e->ant]);
			jsonw_u64(&w, "segment", e->r.seg);
			jsonw_str(&w, "from_utc", codif_time_str(e->r.old_ns, ts, sizeof(ts)));
			jsonw_str(&w, "to_utc", codif_time_str(e->r.new_ns, ts, sizeof(ts)));
			jsonw_i64(&w, "frames_skipped", e->r.skipped);
			jsonw_bool(&w, "new_clock", e->r.new_clock);
			jsonw_obj_end(&w);
		}
	}
	jsonw_arr_end(&w);

	jsonw_arr_begin(&w, "ports");
	for (i = 0; i < app->nport; i++) {
		const struct ibv_port *p = &app->port[i];
		struct rte_eth_stats es;

		memset(&es, 0, sizeof(es));
		rte_eth_stats_get(p->port_id, &es);
		jsonw_obj_begin(&w, NULL);
		jsonw_u64(&w, "port", p->port_id);
		jsonw_str(&w, "name", p->name);
		jsonw_str(&w, "steering", p->hw_steer ? "rte_flow" : "software");
		if (!p->hw_steer)
			jsonw_str(&w, "software_steering_reason", p->steer_why);
		jsonw_u64(&w, "rx_queues", p->nq);
		jsonw_str(&w, "interface", p->iface);
		jsonw_u64(&w, "groups_joined", p->joined);
		jsonw_str(&w, "multicast_filter", p->mcast_mode ? p->mcast_mode : "");
		jsonw_bool(&w, "hw_timestamps", p->ts_offload);
		jsonw_u64(&w, "ipackets", es.ipackets);
		jsonw_u64(&w, "ibytes", es.ibytes);
		jsonw_u64(&w, "imissed", es.imissed);
		jsonw_u64(&w, "ierrors", es.ierrors);
		jsonw_u64(&w, "rx_nombuf", es.rx_nombuf);
		jsonw_arr_begin(&w, "queues");
		for (q = 0; q < p->nq; q++) {
			uint64_t pk = 0, by = 0;
			unsigned int j, qi;

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
			jsonw_obj_begin(&w, NULL);
			jsonw_u64(&w, "queue", q);
			jsonw_str(&w, "antenna", q < l->nant ? l->ant_name[q] : "default");
			jsonw_u64(&w, "packets", pk);
			jsonw_u64(&w, "bytes", by);
			if (q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
				jsonw_u64(&w, "nic_ipackets", es.q_ipackets[q]);
				jsonw_u64(&w, "nic_errors", es.q_errors[q]);
			}
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
		jsonw_obj_begin(&w, "unattributed");
		for (c = 1; c < ACCT_C__COUNT; c++)
			jsonw_u64(&w, acct_cause_name((enum acct_cause)c), t.port_cause[i][c]);
		jsonw_obj_end(&w);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);

	if (app->bufs.on) {
		const struct ibv_bufs *bf = &app->bufs;
		unsigned int r;

		jsonw_obj_begin(&w, "buffers");
		jsonw_str(&w, "instance", bf->instance);
		jsonw_u64(&w, "rows", bf->geom.nrows);
		jsonw_u64(&w, "window", bf->geom.window);
		jsonw_u64(&w, "slots", bf->geom.nslots);
		jsonw_u64(&w, "data_bytes", bf->geom.data_bytes);
		jsonw_str(&w, "memory", app->cfg.gpu >= 0 ? "gpu" : "hugepages");
		if (app->cfg.gpu >= 0) {
			/* how payload reaches the GPU: NIC (buffer split) or CPU copy */
			jsonw_str(&w, "gpu_payload", app->split.on ? "buffer-split" : "cpu-copy");
			jsonw_str(&w, "gpu_split_why", app->split.why);
		}
		jsonw_arr_begin(&w, "antennas");
		for (a = 0; a < l->nant; a++) {
			const struct antbuf *b = bf->b[a];

			if (b == NULL)
				continue;
			jsonw_obj_begin(&w, NULL);
			jsonw_str(&w, "name", l->ant_name[a]);
			jsonw_u64(&w, "placed", b->placed);
			jsonw_u64(&w, "late_placed", b->late_placed);
			for (r = ANTBUF_DUPLICATE; r < ANTBUF__RESULTS; r++)
				jsonw_u64(&w, antbuf_result_name((enum antbuf_result)r), b->result[r]);
			jsonw_u64(&w, "gap_zero_filled", b->zero_filled);
			jsonw_u64(&w, "gap_beyond_ring", b->gap_frames);
			jsonw_u64(&w, "runs", b->nruns);
			jsonw_i64(&w, "first_row", b->first_row);
			jsonw_i64(&w, "final_row", b->final_row);
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
		jsonw_arr_begin(&w, "writers");
		for (i = 0; bf->ctl != NULL && i < IBV_SHM_MAX_WRITERS; i++) {
			const struct ibv_shm_writer *wr = &bf->ctl->writer[i];

			if (wr->name[0] == '\0')
				continue;
			jsonw_obj_begin(&w, NULL);
			jsonw_str(&w, "name", wr->name);
			jsonw_str(&w, "format", wr->format);
			jsonw_i64(&w, "pid", wr->pid);
			jsonw_u64(&w, "frames", wr->frames);
			jsonw_u64(&w, "gap_frames", wr->gap_frames);
			jsonw_u64(&w, "bytes", wr->bytes);
			jsonw_u64(&w, "files", wr->files);
			jsonw_u64(&w, "lost_frames", wr->lost_frames);
			jsonw_i64(&w, "error", wr->error);
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
		jsonw_obj_end(&w);
	}

	jsonw_arr_begin(&w, "lcores");
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lc[i];

		if (lc == NULL)
			continue;
		jsonw_obj_begin(&w, NULL);
		jsonw_u64(&w, "lcore", lc->lcore_id);
		jsonw_u64(&w, "queues", lc->nq);
		jsonw_u64(&w, "packets", lc->pkts);
		jsonw_u64(&w, "bytes", lc->bytes);
		jsonw_u64(&w, "polls", lc->polls);
		jsonw_u64(&w, "empty_polls", lc->empty_polls);
		jsonw_u64(&w, "multi_segment", lc->segmented);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	rc = jsonw_finish(&w);
	if (fclose(f) != 0 || rc != 0) {
		fprintf(stderr, "dpdk-ibvcap: --summary-json: '%s': write failed: %s\n", tmp,
			strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path) != 0) {
		fprintf(stderr, "dpdk-ibvcap: --summary-json: rename to '%s': %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- telemetry: /ibvcap/stats, /ibvcap/antennas, /ibvcap/antenna,N ---- */

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ibv_app *app = ibv_g;
	struct ibv_totals t;
	uint64_t imissed, nombuf, ierrors;

	(void)cmd;
	(void)params;
	if (app == NULL)
		return -EAGAIN;
	ibv_collect(app, &t);
	nic_totals(app, &imissed, &nombuf, &ierrors);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "uptime_ms", (uint64_t)(elapsed_s(app) * 1000));
	rte_tel_data_add_dict_u64(d, "packets", t.pkts);
	rte_tel_data_add_dict_u64(d, "bytes", t.bytes);
	rte_tel_data_add_dict_u64(d, "busy_wait", t.empty_polls);
	rte_tel_data_add_dict_u64(d, "antennas", app->cfg.layout.nant);
	rte_tel_data_add_dict_u64(d, "streams", t.all.streams);
	rte_tel_data_add_dict_u64(d, "frames", t.all.expected);
	rte_tel_data_add_dict_u64(d, "received", t.all.received);
	rte_tel_data_add_dict_u64(d, "lost", t.all.lost);
	rte_tel_data_add_dict_u64(d, "late", t.all.late);
	rte_tel_data_add_dict_u64(d, "duplicate", t.all.duplicate);
	rte_tel_data_add_dict_u64(d, "invalid", t.all.invalid);
	rte_tel_data_add_dict_u64(d, "malformed", t.all.malformed);
	rte_tel_data_add_dict_u64(d, "mismatches", t.all.lost + t.all.late + t.all.duplicate);
	rte_tel_data_add_dict_u64(d, "unattributed", unattributed(&t));
	rte_tel_data_add_dict_u64(d, "misdirected", t.misdirected);
	rte_tel_data_add_dict_u64(d, "imissed", imissed);
	rte_tel_data_add_dict_u64(d, "rx_nombuf", nombuf);
	rte_tel_data_add_dict_u64(d, "ierrors", ierrors);
	rte_tel_data_add_dict_u64(d, "rate_mbps", (uint64_t)(app->rate_gbps * 1000));
	rte_tel_data_add_dict_u64(d, "rate_pps", (uint64_t)(app->rate_mpps * 1e6));
	return 0;
}

static const char *const ant_fields[] = {
	"received", "lost", "late", "duplicate", "invalid", "malformed", "bytes",
	"frames", "streams",
};

static void
ant_values(const struct acct_ant_totals *s, uint64_t v[9])
{
	v[0] = s->received;
	v[1] = s->lost;
	v[2] = s->late;
	v[3] = s->duplicate;
	v[4] = s->invalid;
	v[5] = s->malformed;
	v[6] = s->bytes;
	v[7] = s->expected;
	v[8] = s->streams;
}

static int
tel_antennas(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ibv_app *app = ibv_g;
	struct rte_tel_data *names;
	struct ibv_totals t;
	unsigned int a, k;

	(void)cmd;
	(void)params;
	if (app == NULL)
		return -EAGAIN;
	ibv_collect(app, &t);
	rte_tel_data_start_dict(d);
	names = rte_tel_data_alloc();
	if (names == NULL)
		return -ENOMEM;
	rte_tel_data_start_array(names, RTE_TEL_STRING_VAL);
	for (k = 0; k < RTE_DIM(ant_fields); k++)
		rte_tel_data_add_array_string(names, ant_fields[k]);
	rte_tel_data_add_dict_container(d, "fields", names, 0);
	for (a = 0; a < app->cfg.layout.nant; a++) {
		struct rte_tel_data *arr = rte_tel_data_alloc();
		uint64_t v[9];

		if (arr == NULL)
			return -ENOMEM;
		rte_tel_data_start_array(arr, RTE_TEL_U64_VAL);
		ant_values(&t.ant[a], v);
		for (k = 0; k < RTE_DIM(v); k++)
			rte_tel_data_add_array_u64(arr, v[k]);
		if (rte_tel_data_add_dict_container(d, app->cfg.layout.ant_name[a], arr, 0) != 0)
			rte_tel_data_free(arr);
	}
	return 0;
}

static int
tel_antenna(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ibv_app *app = ibv_g;
	struct ibv_totals t;
	unsigned int a, k;
	uint64_t v[9], idx;
	char ip[16];

	(void)cmd;
	if (app == NULL)
		return -EAGAIN;
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
	ant_values(&t.ant[a], v);
	for (k = 0; k < RTE_DIM(v); k++)
		rte_tel_data_add_dict_u64(d, ant_fields[k], v[k]);
	return 0;
}

static int
tel_buffers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ibv_app *app = ibv_g;
	unsigned int a, r;

	(void)cmd;
	(void)params;
	if (app == NULL || !app->bufs.on)
		return -ENOENT;
	rte_tel_data_start_dict(d);
	for (a = 0; a < app->cfg.layout.nant; a++) {
		const struct antbuf *b = app->bufs.b[a];
		struct rte_tel_data *arr;

		if (b == NULL || (arr = rte_tel_data_alloc()) == NULL)
			continue;
		rte_tel_data_start_array(arr, RTE_TEL_U64_VAL);
		rte_tel_data_add_array_u64(arr, b->placed);
		rte_tel_data_add_array_u64(arr, b->late_placed);
		for (r = ANTBUF_DUPLICATE; r < ANTBUF__RESULTS; r++)
			rte_tel_data_add_array_u64(arr, b->result[r]);
		rte_tel_data_add_array_u64(arr, b->zero_filled);
		rte_tel_data_add_array_u64(arr, b->gap_frames);
		rte_tel_data_add_array_u64(arr, (uint64_t)b->final_row);
		if (rte_tel_data_add_dict_container(d, app->cfg.layout.ant_name[a], arr, 0) != 0)
			rte_tel_data_free(arr);
	}
	return 0;
}

static int
tel_writers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ibv_app *app = ibv_g;
	unsigned int i;

	(void)cmd;
	(void)params;
	if (app == NULL || !app->bufs.on || app->bufs.ctl == NULL)
		return -ENOENT;
	rte_tel_data_start_dict(d);
	for (i = 0; i < IBV_SHM_MAX_WRITERS; i++) {
		const struct ibv_shm_writer *w = &app->bufs.ctl->writer[i];
		struct rte_tel_data *arr;
		char key[64];

		if (w->name[0] == '\0' || (arr = rte_tel_data_alloc()) == NULL)
			continue;
		rte_tel_data_start_array(arr, RTE_TEL_U64_VAL);
		rte_tel_data_add_array_u64(arr, w->frames);
		rte_tel_data_add_array_u64(arr, w->gap_frames);
		rte_tel_data_add_array_u64(arr, w->bytes);
		rte_tel_data_add_array_u64(arr, w->lost_frames);
		rte_tel_data_add_array_u64(arr, w->files);
		rte_tel_data_add_array_u64(arr, (uint64_t)w->pid);
		rte_tel_data_add_array_u64(arr, w->in_use);
		/* names: letters, digits, '_' and '/' only */
		snprintf(key, sizeof(key), "w%u_%s", i, w->format);
		rte_tel_data_add_dict_container(d, key, arr, 0);
	}
	return 0;
}

int
ibv_telemetry_register(void)
{
	int rc = 0;

	rc |= rte_telemetry_register_cmd("/ibvcap/buffers", tel_buffers,
					 "Per-antenna buffer placement: placed, late, duplicate, too-late, "
					 "no-slot, size, timing, gap-zeroed, gap-beyond-ring, final row.");
	rc |= rte_telemetry_register_cmd("/ibvcap/writers", tel_writers,
					 "Writers: frames, gap frames, bytes, lost to overrun, files, pid, active.");

	rc |= rte_telemetry_register_cmd("/ibvcap/stats", tel_stats,
					 "dpdk-ibvcap totals: packets, frames, lost, late, ... No parameters.");
	rc |= rte_telemetry_register_cmd("/ibvcap/antennas", tel_antennas,
					 "Per-antenna counters (array per antenna, names in 'fields'). No parameters.");
	rc |= rte_telemetry_register_cmd("/ibvcap/antenna", tel_antenna,
					 "One antenna's counters. Parameter: antenna name or index.");
	return rc;
}
