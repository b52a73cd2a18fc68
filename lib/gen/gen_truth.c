/* SPDX-License-Identifier: BSD-3-Clause */
/* Ground truth: what a receiver must count of each stream and antenna, and
 * the truth JSON (config, vouched counters, events, streams, signals). */


#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codif_pattern.h"
#include "err.h"
#include "gen.h"
#include "gen_priv.h"
#include "json.h"
#include "stats.h"
#include "parse.h"
#include "pkt.h"

/* The ground truth of the events of stream s, as receivers must count. */
static void
events_truth(const struct gen *g, const struct gen_stream *s, struct gen_truth *t)
{
	unsigned int i;

	for (i = 0; i < g->cfg.nev; i++) {
		const struct gen_event *e = &g->cfg.ev[i];

		if (!gen_ev_applies(e, s))
			continue;
		switch (e->kind) {
		case GEN_EV_STEP:
			if (e->shift > 0 && (uint64_t)e->shift <= g->max_gap) {
				/* frames lost, as a receiver sees it */
				t->c.expected += (uint64_t)e->shift;
				t->c.lost += (uint64_t)e->shift;
			} else {
				t->c.resyncs++;
				if (e->shift > 0)
					t->c.resync_skipped += (uint64_t)e->shift;
			}
			break;
		case GEN_EV_PARAM:
			t->c.new_params++;
			if (gen_param_moves_clock(g, s, e))
				t->c.resyncs++;
			break;
		case GEN_EV_BURST:
			/* an outage, however long: the packets' times (pcap,
			 * a real-time sender) go on through it, so receivers
			 * that see arrival times count its frames lost
			 * (lib/codif, "outage"); nothing to add here: the
			 * frames were never sent, so the counts above have
			 * them lost already */
			break;
		default:
			break;
		}
	}
}

/* The counts a receiver must match, under the counter table's names, then
 * what only the generator knows. */
static void
truth_fields(json_t *o, const struct gen_truth *t, unsigned int scope)
{
	stats_json(&stats_counts, &t->c, scope, o);
	js_u64(o, "sent", t->sent);
	js_u64(o, "sent_bytes", t->sent_bytes);
	js_u64(o, "non_ipv4", t->non_ipv4);
	js_u64(o, "vlan", t->vlan);
}

static void
truth_add(struct gen_truth *sum, const struct gen_truth *t)
{
	unsigned int f;

	stats_merge(&stats_counts, &sum->c, &t->c);
	sum->sent += t->sent;
	sum->sent_bytes += t->sent_bytes;
	sum->non_ipv4 += t->non_ipv4;
	sum->vlan += t->vlan;
	for (f = 0; f < GEN_F__COUNT; f++)
		sum->fault[f] += t->fault[f];
}

static void
truth_zero(struct gen_truth *t)
{
	memset(t, 0, sizeof(*t));
	stats_zero(&stats_counts, &t->c);
}

/* The pair's expected coefficient, averaged over channels and parts as
 * codifcheck fringe averages (a complex channel's is the mean of I's and Q's
 * at equal power). */
static double
pair_coef(const struct codif_signal *sa, const struct codif_signal *sb,
	  const struct codif_signal_enc *e)
{
	unsigned int ch, im;
	double c, sum = 0;

	for (ch = 0; ch < e->nchan; ch++)
		for (im = 0; im < e->ncomp; im++)
			if (codif_signal_expect_corr(sa, sb, e, ch, im, &c) == 0)
				sum += c / e->S;
	return sum;
}

/*
 * Every pair of antennas sharing a common signal (--signal A:RMS,common=RHO
 * [,delay=D]): the lag and coefficient a fringe check must find (lib/codif
 * codif_signal.h, "A common signal"). Pairs not listed correlate with 0.
 */
static void
fringe_json(const struct gen_cfg *c, json_t *arr)
{
	struct codif_signal_enc e;
	double sample_ns;
	unsigned int a, b;

	if (codif_signal_enc_init(&e, &c->tmpl, NULL, 0) != 0 || c->tmpl.totalsamples == 0)
		return;
	sample_ns = 1e9 * c->tmpl.period / (double)c->tmpl.totalsamples;
	for (a = 0; a < c->nant; a++)
		for (b = a + 1; b < c->nant; b++) {
			const struct codif_signal *sa = &c->sig[a], *sb = &c->sig[b];
			int64_t lag = sb->common_delay - sa->common_delay;
			json_t *o;

			if ((c->sig_mask >> a & 1) == 0 || (c->sig_mask >> b & 1) == 0 ||
			    sa->common_rho <= 0 || sb->common_rho <= 0 ||
			    sa->kind != CODIF_SIGNAL_NOISE || sb->kind != CODIF_SIGNAL_NOISE)
				continue;
			o = js_obj(arr, NULL);
			js_u64(o, "a", a);
			js_u64(o, "b", b);
			js_i64(o, "lag_samples", lag);
			js_dbl(o, "lag_ns", (double)lag * sample_ns);
			js_dbl(o, "coefficient_analog", sqrt(sa->common_rho * sb->common_rho));
			js_dbl(o, "coefficient", pair_coef(sa, sb, &e));
		}
}

/*
 * Each signal antenna's expected quick-look figures (lib/codif's
 * codif_signal_expect), averaged over its channels and parts as the
 * capture's per-antenna figures are; sd_*: the largest per-sample standard
 * deviation of any channel and part (a test over n samples allows k sd /
 * sqrt(n)).
 */
static void
signal_json(const struct gen_cfg *c, json_t *arr)
{
	struct codif_signal_enc e;
	unsigned int a, ch, im;

	if (codif_signal_enc_init(&e, &c->tmpl, NULL, 0) != 0)
		return;
	for (a = 0; a < c->nant; a++) {
		const struct codif_signal *sg = &c->sig[a];
		double m[2] = { 0, 0 }, pw = 0, sat = 0, zero = 0;
		double sd_m = 0, sd_p = 0, sd_s = 0, sd_z = 0;
		json_t *o, *x;

		if ((c->sig_mask >> a & 1) == 0)
			continue;
		for (ch = 0; ch < e.nchan; ch++)
			for (im = 0; im < e.ncomp; im++) {
				struct codif_signal_expect ex;

				codif_signal_expect(sg, &e, ch, im, &ex);
				m[im] += ex.mean / e.nchan;
				pw += ex.power / e.S;
				sat += ex.sat / e.S;
				zero += ex.zero / e.S;
				sd_m = fmax(sd_m, ex.sd_mean);
				sd_p = fmax(sd_p, ex.sd_power);
				sd_s = fmax(sd_s, ex.sd_sat);
				sd_z = fmax(sd_z, ex.sd_zero);
			}
		o = js_obj(arr, NULL);
		js_u64(o, "antenna", a);
		js_str(o, "kind", sg->kind == CODIF_SIGNAL_DEAD ? "dead" :
				  sg->kind == CODIF_SIGNAL_SATURATED ? "saturated" : "noise");
		js_dbl(o, "rms", sg->rms);
		if (sg->common_rho > 0) {
			js_dbl(o, "common_rho", sg->common_rho);
			js_i64(o, "common_delay", sg->common_delay);
		}
		if (sg->stuck_mask != 0) {
			/* quick look's figures do not model a stuck bit: none vouched */
			js_u64(o, "stuck_mask", sg->stuck_mask);
			js_u64(o, "stuck_value", sg->stuck_val);
			continue;
		}
		x = js_obj(o, "expected");
		js_dbl(x, "mean_re", m[0]);
		js_dbl(x, "mean_im", m[1]);
		js_dbl(x, "power", pw);
		js_dbl(x, "saturated", sat);
		js_dbl(x, "zero", zero);
		js_dbl(x, "sd_mean", sd_m);
		js_dbl(x, "sd_power", sd_p);
		js_dbl(x, "sd_saturated", sd_s);
		js_dbl(x, "sd_zero", sd_z);
		/* what lib/quicklook's verdict must say of it */
		js_str(x, "state", sg->kind == CODIF_SIGNAL_DEAD ? "dead" :
			   sg->kind == CODIF_SIGNAL_SATURATED && e.nbits != 1 ? "saturated" :
			   "ok");
	}
}

/* The counters the truth vouches for, by scope: every one of the table but
 * what depends on the receiver (its buffer: too_late) or on its words for
 * causes (malformed_by_cause); compare.py compares exactly these. */
static json_t *
vouched(unsigned int scope)
{
	json_t *a = json_array();
	unsigned int k;

	for (k = 0; k < stats_counts.n; k++) {
		const struct stats_field *f = &stats_counts.f[k];
		char key[64];

		if (!stats_in(f, scope) || strcmp(f->name, "too_late") == 0 ||
		    f->type == STATS_ARRAY)
			continue;
		if (f->type == STATS_TIME) {
			snprintf(key, sizeof(key), "%s_utc", f->name);
			js_str(a, NULL, key);
		} else {
			js_str(a, NULL, f->name);
		}
	}
	return a;
}

void
gen_truth(const struct gen *g, unsigned int si, struct gen_truth *t)
{
	const struct gen_stream *s = &g->st[si];
	struct codif_hdr h;

	*t = s->t;
	events_truth(g, s, t);
	/* a run cut short ends at the newest frame sent */
	if (s->max_valid >= 0) {
		gen_frame_hdr(g, si, s->max_valid, &h);
		t->c.last_ns = codif_frame_time_ns(&h);
	}
}

/* The run's configuration, and what the truth assumes of the receivers. */
static void
config_json(const struct gen *g, json_t *o)
{
	const struct gen_cfg *c = &g->cfg;
	unsigned int fl;
	char st[3];
	json_t *x;

	js_u64(o, "seed", c->seed);
	js_u64(o, "antennas", c->nant);
	js_u64(o, "threads", c->nthread);
	js_u64(o, "groups", c->ngroup);
	js_u64(o, "frames_per_stream", c->frames);
	js_u64(o, "data_bytes", codif_data_bytes(&c->tmpl));
	js_u64(o, "nchan", c->tmpl.nchan);
	js_u64(o, "nbits", c->tmpl.nbits);
	js_bool(o, "complex", c->tmpl.complex);
	js_u64(o, "period", c->tmpl.period);
	js_u64(o, "totalsamples", c->tmpl.totalsamples);
	js_u64(o, "frames_per_period", codif_frames_per_period(&c->tmpl));
	js_u64(o, "frame_ns", g->frame_ns);
	js_u64(o, "epoch", c->tmpl.epoch);
	codif_station_str(c->tmpl.stationid, st);
	js_str(o, "station", st);
	js_u64(o, "reorder_depth", c->depth);
	x = js_obj(o, "probabilities");
	for (fl = GEN_F_LOSS; fl < GEN_F__COUNT; fl++)
		js_dbl(x, gen_fault_name((enum gen_fault)fl), c->p[fl]);
	js_dbl(x, "reorder", c->p_reorder);
	x = js_obj(o, "receiver");
	js_u64(x, "window", g->tl.window);
	js_u64(x, "reorder_window", g->tl.ahead);
	js_u64(x, "confirm", g->tl.confirm);
	js_u64(x, "max_gap_ns", g->tl.max_gap_ns);
	js_u64(x, "max_gap_frames", g->max_gap);
}

/* The odd frames flip or stray event e sent, one per emitted stream it
 * touches: its header, so a checker can tell it from the good frames. */
static void
odd_frames_json(const struct gen *g, const struct gen_event *e, json_t *arr)
{
	unsigned int si;
	char ip[16];

	for (si = 0; si < g->nstream; si++) {
		const struct gen_stream *s = &g->st[si];
		struct codif_hdr h;
		uint8_t b[CODIF_HDR_LEN];
		char hex[2 * CODIF_HDR_LEN + 1];
		json_t *x;

		if (!gen_selected(g, s) || !gen_ev_applies(e, s))
			continue;
		gen_ev_odd_hdr(g, si, e, &h);
		codif_encode(&h, b);
		str_hex(b, CODIF_HDR_LEN, hex);
		x = js_obj(arr, NULL);
		js_str(x, "src", ipv4_str(g->cfg.ant_ip[s->ant], ip, sizeof(ip)));
		js_u64(x, "threadid", s->hdr.threadid);
		js_u64(x, "groupid", s->hdr.groupid);
		js_u64(x, "secondaryid", s->hdr.secondaryid);
		js_str(x, "header", hex);
	}
}

/* The timeline events, each with the odd frames it sent. */
static void
events_json(const struct gen *g, json_t *arr)
{
	unsigned int i;

	for (i = 0; i < g->cfg.nev; i++) {
		const struct gen_event *e = &g->cfg.ev[i];
		json_t *o = js_obj(arr, NULL), *odd;

		js_str(o, "kind", gen_event_kind_name(e->kind));
		js_i64(o, "frame", e->at);
		js_i64(o, "antenna", e->ant);
		js_i64(o, "stream", e->stream);
		js_bool(o, "extra", e->extra);
		if (e->kind == GEN_EV_STEP || e->kind == GEN_EV_STRAY)
			js_i64(o, "shift_frames", e->shift);
		if (e->kind == GEN_EV_BURST)
			js_u64(o, "frames", e->value);
		if (e->kind == GEN_EV_FLIP || e->kind == GEN_EV_PARAM)
			js_str(o, "field", e->field);
		odd = js_arr(o, "odd_frames");
		if (e->kind == GEN_EV_FLIP || e->kind == GEN_EV_STRAY)
			odd_frames_json(g, e, odd);
	}
}

/* Each emitted stream's truth and faults; adds each into its antenna's sum
 * ant[] (zeroed by the caller). */
static void
streams_json(const struct gen *g, json_t *arr, struct gen_truth *ant)
{
	const struct gen_cfg *c = &g->cfg;
	unsigned int i, fl;
	char ip[16], st[3];

	for (i = 0; i < g->nstream; i++) {
		const struct gen_stream *s = &g->st[i];
		struct gen_truth t;
		json_t *o, *x;

		if (!gen_selected(g, s))
			continue;
		gen_truth(g, i, &t);
		truth_add(&ant[s->ant], &t);
		ant[s->ant].c.streams++;
		/* a resync of the timeline moves all of the antenna's streams */
		if (t.c.resyncs > ant[s->ant].c.timeline_resyncs)
			ant[s->ant].c.timeline_resyncs = t.c.resyncs;
		o = js_obj(arr, NULL);
		js_u64(o, "antenna", s->ant);
		js_str(o, "src", ipv4_str(c->ant_ip[s->ant], ip, sizeof(ip)));
		js_str(o, "dst", ipv4_str(c->group[s->group].ip, ip, sizeof(ip)));
		js_u64(o, "port", c->group[s->group].port);
		codif_station_str(s->hdr.stationid, st);
		js_str(o, "station", st);
		js_u64(o, "groupid", s->hdr.groupid);
		js_u64(o, "secondaryid", s->hdr.secondaryid);
		js_u64(o, "threadid", s->hdr.threadid);
		truth_fields(o, &t, STATS_STREAM);
		x = js_obj(o, "faults");
		for (fl = GEN_F_LOSS; fl < GEN_F__COUNT; fl++)
			js_u64(x, gen_fault_name((enum gen_fault)fl), s->t.fault[fl]);
	}
}

int
gen_truth_json(const struct gen *g, FILE *f)
{
	const struct gen_cfg *c = &g->cfg;
	struct gen_truth tot, ant[GEN_MAX_ANTENNAS];
	json_t *root = json_object(), *o, *arr;
	unsigned int i;
	char ip[16];
	int rc;

	truth_zero(&tot);
	for (i = 0; i < GEN_MAX_ANTENNAS; i++)
		truth_zero(&ant[i]);
	js_str(root, "generator", "codifgen");
	config_json(g, js_obj(root, "config"));
	/* the counters a receiver's counts must equal (lib/stats' names) */
	o = js_obj(root, "counters");
	json_object_set_new(o, "stream", vouched(STATS_STREAM));
	json_object_set_new(o, "antenna", vouched(STATS_ANTENNA));
	events_json(g, js_arr(root, "events"));
	streams_json(g, js_arr(root, "streams"), ant);
	arr = js_arr(root, "antennas");
	for (i = 0; i < c->nant; i++) {
		if (ant[i].c.streams == 0)
			continue;
		o = js_obj(arr, NULL);
		js_u64(o, "antenna", i);
		js_str(o, "src", ipv4_str(c->ant_ip[i], ip, sizeof(ip)));
		truth_fields(o, &ant[i], STATS_ANTENNA);
		truth_add(&tot, &ant[i]);
	}
	truth_fields(js_obj(root, "totals"), &tot, STATS_ANTENNA);
	if (c->sig_mask != 0) {
		signal_json(c, js_arr(root, "signal"));
		fringe_json(c, js_arr(root, "fringe"));
	}
	rc = js_write(root, f, true);
	json_decref(root);
	return rc;
}
