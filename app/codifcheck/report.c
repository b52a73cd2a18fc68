/* SPDX-License-Identifier: BSD-3-Clause */
/* Formatting of scan results: info and verify, as text and as JSON. */

#include <inttypes.h>
#include <string.h>

#include "codif.h"
#include "fmt.h"
#include "parse.h"
#include "report.h"
#include "stats.h"

static const char hist_resolution[] =
	"exact below 16 ns; above, 16 log-spaced buckets per power of two: "
	"median and p99 within 3.2%, min and max exact";

/* Start time and frame index of a stream's gap-list position. */
static int64_t
pos_ns(const struct cc_stream *st, int64_t pos)
{
	return cc_stream_pos_ns(st, pos);
}

/* Frame number of a position: from its segment's first frame (in the
 * first segment, codif.md's N from the stream's first frame). */
static int64_t
pos_index(const struct cc_stream *st, int64_t pos)
{
	int64_t idx = pos;
	const struct cc_seg *g = cc_stream_pos_seg(st, pos, &idx);

	return g != NULL ? idx - g->first_index : pos;
}

/* Which segment (1-based) holds a position. */
static unsigned int
pos_segno(const struct cc_stream *st, int64_t pos)
{
	const struct cc_seg *g = cc_stream_pos_seg(st, pos, NULL);

	return g != NULL ? (unsigned int)(g - st->seg) + 1 : 1;
}

static uint64_t
stream_bytes(const struct cc_stream *st)
{
	return st->seq->st.bytes -
	       st->filled * (CODIF_HDR_LEN + codif_data_bytes(&st->seq->ref));
}

void
cc_notes_of(const struct cc_file *f, struct cc_notes *n)
{
	const struct cc_scan *s = f->scan;
	unsigned int i, c;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < s->nst; i++) {
		const struct cc_stream *st = s->st[i];

		n->lost += cc_stream_lost(st);
		n->gaps += st->gaps.n;
		n->invalid += cc_stream_invalid(st);
		if (s->acct != NULL) { /* codif/raw: already a time-backwards problem */
			n->late += st->seq->st.late;
			n->duplicate += st->seq->st.duplicate;
			n->too_late += st->seq->st.too_late;
		}
		n->resyncs += st->seq->st.resyncs;
		n->new_params += st->seq->st.new_params;
	}
	for (c = 1; c < ACCT_C__COUNT; c++)
		n->unattributed += s->unattributed[c];
}

unsigned int
cc_notes_count(const struct cc_notes *n)
{
	return (n->lost != 0) + (n->invalid != 0) + (n->late != 0) +
	       (n->duplicate != 0) + (n->too_late != 0) + (n->resyncs != 0) +
	       (n->new_params != 0) + (n->unattributed != 0);
}

/* ---- text ---------------------------------------------------------------- */

void
cc_problems_text(FILE *out, const struct cc_scan *s, const char *indent)
{
	char ts[CODIF_TIMESTR_LEN];
	unsigned int i;

	for (i = 0; i < s->npr; i++) {
		const struct cc_problem *p = &s->pr[i];

		fprintf(out, "%s", indent);
		if (p->off != UINT64_MAX)
			fprintf(out, "offset %" PRIu64 "%s", p->off,
				p->utc_ns == INT64_MIN ? ": " : " ");
		if (p->utc_ns != INT64_MIN)
			fprintf(out, "(%s): ", codif_time_str(p->utc_ns, ts, sizeof(ts)));
		fprintf(out, "%s: %s\n", cc_pkind_name(p->kind), p->msg);
	}
	if (s->problems > s->npr)
		fprintf(out, "%s... and %" PRIu64 " more (raise --max-problems)\n",
			indent, s->problems - s->npr);
}

static void
params_text(FILE *out, const struct codif_hdr *h)
{
	fprintf(out,
		"    parameters  nchan %u, nbits %u, %s, representation %u, period %u s, "
		"%" PRIu64 " frames/period, frame %" PRIu64 " ns, %" PRIu64
		" data bytes, %.6f Mb/s\n",
		h->nchan, h->nbits, h->complex ? "complex" : "real", h->representation,
		h->period, codif_frames_per_period(h), codif_frame_ns(h),
		codif_data_bytes(h), codif_data_rate_bps(h) / 1e6);
}

static void
gaps_text(FILE *out, const struct cc_stream *st, uint64_t max_gaps)
{
	char a[CODIF_TIMESTR_LEN], b[CODIF_TIMESTR_LEN];
	size_t i;

	for (i = 0; i < st->gaps.n && (max_gaps == 0 || i < max_gaps); i++) {
		const struct cc_gap *g = &st->gaps.v[i];
		uint64_t n = (uint64_t)(g->last - g->first + 1);
		char seg[32] = "";

		codif_time_str(pos_ns(st, g->first), a, sizeof(a));
		codif_time_str(pos_ns(st, g->last), b, sizeof(b));
		if (st->nseg > 1)
			snprintf(seg, sizeof(seg), "segment %u ", pos_segno(st, g->first));
		fprintf(out, "    gap         %sindex %" PRId64 "..%" PRId64 " (%" PRIu64
			" frame%s%s): %s .. %s\n", seg, pos_index(st, g->first),
			pos_index(st, g->last), n, n == 1 ? "" : "s",
			g->kind == CC_GAP_FILLED ? ", written as invalid zero frames" : "",
			a, b);
	}
	if (i < st->gaps.n)
		fprintf(out, "    gap         ... and %zu more (raise --max-gaps)\n",
			st->gaps.n - i);
}

static void
timing_text(FILE *out, const struct cc_stream *st)
{
	const struct cc_hist *o = st->offset, *j = st->jitter;

	if (o == NULL)
		return;
	fprintf(out, "    arrival     minus frame time: min %" PRId64 ", median %" PRId64
		", p99 %" PRId64 ", max %" PRId64 " ns (%" PRIu64 " packets)\n",
		o->min, cc_hist_quantile(o, 0.5), cc_hist_quantile(o, 0.99), o->max, o->n);
	if (j->n > 0)
		fprintf(out, "    jitter      |change of that between packets|: min %" PRId64
			", median %" PRId64 ", p99 %" PRId64 ", max %" PRId64
			" ns; RFC 3550 estimate %" PRIu64 " ns\n", j->min,
			cc_hist_quantile(j, 0.5), cc_hist_quantile(j, 0.99), j->max,
			st->rfc_jitter16 >> 4);
}

/* Where the stream's timeline resynced or its parameters changed. */
static void
segments_text(FILE *out, const struct cc_stream *st)
{
	char a[CODIF_TIMESTR_LEN];
	unsigned int i;

	for (i = 1; i < st->nseg; i++) {
		const struct cc_seg *g = &st->seg[i];

		fprintf(out, "    segment %u   from %s: %s%s%s", i + 1,
			codif_time_str(codif_clock_time_ns(&g->clk, g->first_index), a, sizeof(a)),
			g->flags & CODIF_OUT_RESYNC ? "timeline resync" : "",
			(g->flags & CODIF_OUT_RESYNC) && (g->flags & CODIF_OUT_NEW_PARAMS) ?
				", " : "",
			g->flags & CODIF_OUT_NEW_PARAMS ? "new parameters" : "");
		if (g->skipped > 0)
			fprintf(out, " (%" PRId64 " frames skipped)", g->skipped);
		fprintf(out, "\n");
		if (g->flags & CODIF_OUT_NEW_PARAMS)
			params_text(out, &g->ref);
	}
}

static void
stream_text(FILE *out, const struct cc_stream *st, uint64_t max_gaps)
{
	const struct codif_seq_stats *q = &st->seq->st;
	char name[96], a[CODIF_TIMESTR_LEN], b[CODIF_TIMESTR_LEN];

	fprintf(out, "  stream %s  (%sstation/groupid/secondaryid/threadid)\n",
		cc_stream_name(st, name, sizeof(name)), st->net ? "src>dst:port " : "");
	params_text(out, st->nseg > 0 ? &st->seg[0].ref : &st->seq->ref);
	fprintf(out, "    time        %s .. %s\n",
		codif_time_str(st->seq->first_time_ns, a, sizeof(a)),
		codif_time_str(st->seq->newest_time_ns, b, sizeof(b)));
	fprintf(out, "    frames      %" PRIu64 ": received %" PRIu64 ", lost %" PRIu64
		" in %zu gap%s, late %" PRIu64 ", duplicate %" PRIu64 ", invalid %" PRIu64,
		codif_seq_expected(st->seq), cc_stream_received(st), cc_stream_lost(st),
		st->gaps.n, st->gaps.n == 1 ? "" : "s", q->late, q->duplicate,
		cc_stream_invalid(st));
	if (q->too_late != 0)
		fprintf(out, ", too late %" PRIu64, q->too_late);
	if (st->filled != 0)
		fprintf(out, " (%" PRIu64 " lost written as invalid zero frames)",
			st->filled);
	fprintf(out, "\n");
	if (q->implausible != 0 || q->param_change != 0)
		fprintf(out, "    held aside  %" PRIu64 " frames of an implausible time, %" PRIu64
			" of other parameters: never confirmed, dropped\n", q->implausible,
			q->param_change);
	segments_text(out, st);
	gaps_text(out, st, max_gaps);
	timing_text(out, st);
}

static void
antennas_text(FILE *out, const struct cc_scan *s)
{
	const struct acct_layout *l = acct_layout_of(s->acct);
	unsigned int i, c;
	char ip[16];

	for (i = 0; i < l->nant; i++) {
		struct acct_counts t;
		const char *sep = " (";

		stats_zero(&stats_counts, &t);
		acct_ant_add(s->acct, i, &t);
		fprintf(out, "  antenna %s: %" PRIu64 " streams, %" PRIu64 " packets, "
			"malformed %" PRIu64, ipv4_str(l->ant_ip[i], ip, sizeof(ip)),
			t.streams, t.packets, t.malformed);
		for (c = 0; c < ACCT_M__COUNT; c++) {
			if (t.mal[c] == 0)
				continue;
			fprintf(out, "%s%s %" PRIu64, sep,
				acct_malformed_name((enum acct_malformed)c), t.mal[c]);
			sep = ", ";
		}
		fprintf(out, "%s\n", t.malformed != 0 ? ")" : "");
	}
}

static void
unattributed_text(FILE *out, const struct cc_scan *s)
{
	unsigned int c;
	uint64_t n = 0;

	for (c = 1; c < ACCT_C__COUNT; c++)
		n += s->unattributed[c];
	if (n == 0)
		return;
	fprintf(out, "  other packets (from no antenna): %" PRIu64, n);
	for (c = 1; c < ACCT_C__COUNT; c++)
		if (s->unattributed[c] != 0)
			fprintf(out, ", %s %" PRIu64, acct_cause_name((enum acct_cause)c),
				s->unattributed[c]);
	fprintf(out, "\n");
}

void
cc_info_text(FILE *out, const struct cc_file *f, uint64_t max_gaps)
{
	const struct cc_scan *s = f->scan;
	unsigned int i;

	fprintf(out, "%s\n", f->path);
	fprintf(out, "  format      %s (%s), %" PRIu64 " bytes, %" PRIu64 " %s\n",
		cc_fmt_name(f->det.fmt), f->det.desc, f->size, s->records,
		s->acct != NULL ? "records" : "frames");
	if (s->acct != NULL)
		antennas_text(out, s);
	for (i = 0; i < s->nst; i++)
		stream_text(out, s->st[i], max_gaps);
	if (s->acct != NULL)
		unattributed_text(out, s);
	if (s->problems != 0) {
		fprintf(out, "  problems    %" PRIu64 "%s\n", s->problems,
			s->damaged ? " (the file is damaged)" : "");
		cc_problems_text(out, s, "    ");
	}
}

static void
notes_text(FILE *out, const struct cc_notes *n, bool strict, const char *indent)
{
	if (cc_notes_count(n) == 0)
		return;
	fprintf(out, "%s%s: %" PRIu64 " frames lost in %" PRIu64 " gaps, %" PRIu64
		" invalid, %" PRIu64 " late, %" PRIu64 " duplicate", indent,
		strict ? "problem (--strict)" : "note", n->lost, n->gaps, n->invalid,
		n->late, n->duplicate);
	if (n->too_late != 0)
		fprintf(out, ", %" PRIu64 " too late to place", n->too_late);
	if (n->resyncs != 0)
		fprintf(out, ", %" PRIu64 " timeline resyncs", n->resyncs);
	if (n->new_params != 0)
		fprintf(out, ", %" PRIu64 " parameter changes", n->new_params);
	if (n->unattributed != 0)
		fprintf(out, ", %" PRIu64 " packets from no antenna", n->unattributed);
	fprintf(out, "%s\n", strict ? "" : " (problems only with --strict)");
}

void
cc_verify_text(FILE *out, const struct cc_file *f, bool strict)
{
	const struct cc_scan *s = f->scan;
	struct cc_notes n;
	uint64_t total;

	cc_notes_of(f, &n);
	total = s->problems + (strict ? cc_notes_count(&n) : 0);
	if (total == 0)
		fprintf(out, "%s: OK (%s, %" PRIu64 " %s, %u streams)\n", f->path,
			cc_fmt_name(f->det.fmt), s->records,
			s->acct != NULL ? "records" : "frames", s->nst);
	else
		fprintf(out, "%s: %" PRIu64 " problem%s (%s, %" PRIu64 " %s, %u streams)\n",
			f->path, total, total == 1 ? "" : "s", cc_fmt_name(f->det.fmt),
			s->records, s->acct != NULL ? "records" : "frames", s->nst);
	cc_problems_text(out, s, "  ");
	notes_text(out, &n, strict, "  ");
}

/* ---- JSON ---------------------------------------------------------------- */

void
cc_problems_json(json_t *o, const struct cc_scan *s)
{
	char ts[CODIF_TIMESTR_LEN];
	unsigned int i;
	json_t *arr;

	js_u64(o, "problems_total", s->problems);
	arr = js_arr(o, "problems");
	for (i = 0; i < s->npr; i++) {
		const struct cc_problem *p = &s->pr[i];
		json_t *x = js_obj(arr, NULL);

		js_str(x, "kind", cc_pkind_name(p->kind));
		if (p->off != UINT64_MAX)
			js_u64(x, "offset", p->off);
		else
			js_null(x, "offset");
		js_str(x, "utc", p->utc_ns != INT64_MIN ?
				 codif_time_str(p->utc_ns, ts, sizeof(ts)) : NULL);
		js_str(x, "message", p->msg);
	}
}

static void
gaps_json(json_t *o, const struct cc_stream *st, uint64_t max_gaps)
{
	char ts[CODIF_TIMESTR_LEN];
	json_t *arr;
	size_t i;

	js_u64(o, "gap_count", st->gaps.n);
	arr = js_arr(o, "gaps");
	for (i = 0; i < st->gaps.n && (max_gaps == 0 || i < max_gaps); i++) {
		const struct cc_gap *g = &st->gaps.v[i];
		json_t *x = js_obj(arr, NULL);

		js_u64(x, "segment", pos_segno(st, g->first));
		js_i64(x, "first", pos_index(st, g->first));
		js_i64(x, "last", pos_index(st, g->last));
		js_u64(x, "count", (uint64_t)(g->last - g->first + 1));
		js_str(x, "first_utc", codif_time_str(pos_ns(st, g->first), ts, sizeof(ts)));
		js_str(x, "last_utc", codif_time_str(pos_ns(st, g->last), ts, sizeof(ts)));
		js_str(x, "kind", g->kind == CC_GAP_FILLED ? "filled" : "missing");
	}
}

static void
hist_json(json_t *o, const char *key, const struct cc_hist *h)
{
	json_t *x = js_obj(o, key);

	js_u64(x, "count", h->n);
	if (h->n != 0) {
		js_i64(x, "min", h->min);
		js_i64(x, "median", cc_hist_quantile(h, 0.5));
		js_i64(x, "p99", cc_hist_quantile(h, 0.99));
		js_i64(x, "max", h->max);
	}
}

static void
timing_json(json_t *o, const struct cc_stream *st)
{
	json_t *x;

	if (st->offset == NULL)
		return;
	x = js_obj(o, "arrival");
	hist_json(x, "offset_ns", st->offset);
	hist_json(x, "jitter_ns", st->jitter);
	js_u64(x, "rfc3550_jitter_ns", st->rfc_jitter16 >> 4);
	js_str(x, "resolution", hist_resolution);
}

/* A stream's counts as the capture counts them, less the placeholders a
 * codif file holds for lost frames (they were not received). */
static void
stream_counts(const struct cc_stream *st, struct acct_counts *c)
{
	stats_zero(&stats_counts, c);
	acct_seq_add(st->seq, c);
	c->received = cc_stream_received(st);
	c->recorded = c->received; /* in a file: recorded */
	c->lost = cc_stream_lost(st);
	c->invalid = cc_stream_invalid(st);
	c->bytes = stream_bytes(st);
}

static void
stream_json(json_t *arr, const struct cc_stream *st, uint64_t max_gaps)
{
	char ip[16], sta[3], ts[CODIF_TIMESTR_LEN];
	json_t *o = js_obj(arr, NULL), *segs;
	struct acct_counts c;
	unsigned int i;

	if (st->net) {
		js_i64(o, "antenna", st->ant);
		js_str(o, "src", ipv4_str(st->src, ip, sizeof(ip)));
		js_str(o, "dst", ipv4_str(st->dst, ip, sizeof(ip)));
		js_u64(o, "port", st->port);
	}
	codif_station_str(st->stationid, sta);
	js_str(o, "station", sta);
	js_u64(o, "groupid", st->groupid);
	js_u64(o, "secondaryid", st->secondaryid);
	js_u64(o, "threadid", st->threadid);
	stream_counts(st, &c);
	stats_json(&stats_counts, &c, STATS_STREAM, o);
	js_u64(o, "filled", st->filled);
	js_u64(o, "pattern_mismatch", st->pattern_bad);
	fmt_params_json(o, "params", &st->seq->ref);
	segs = js_arr(o, "segments");
	for (i = 0; i < st->nseg; i++) {
		const struct cc_seg *g = &st->seg[i];
		json_t *x = js_obj(segs, NULL);

		js_str(x, "from_utc", codif_time_str(codif_clock_time_ns(&g->clk, g->first_index),
						     ts, sizeof(ts)));
		js_bool(x, "resync", (g->flags & CODIF_OUT_RESYNC) != 0);
		js_bool(x, "new_params", (g->flags & CODIF_OUT_NEW_PARAMS) != 0);
		js_i64(x, "frames_skipped", g->skipped);
	}
	gaps_json(o, st, max_gaps);
	timing_json(o, st);
}

/* Per antenna sums from lib/acct: the capture program's own counting. */
static void
antennas_json(json_t *o, const struct cc_scan *s)
{
	const struct acct_layout *l = acct_layout_of(s->acct);
	json_t *arr = js_arr(o, "antennas"), *u;
	char ip[16];
	unsigned int i, c;

	for (i = 0; i < l->nant; i++) {
		struct acct_counts t;
		json_t *x = js_obj(arr, NULL);

		stats_zero(&stats_counts, &t);
		acct_ant_add(s->acct, i, &t);
		js_u64(x, "antenna", i);
		js_str(x, "src", ipv4_str(l->ant_ip[i], ip, sizeof(ip)));
		stats_json(&stats_counts, &t, STATS_ANTENNA, x);
	}
	u = js_obj(o, "unattributed");
	for (c = 1; c < ACCT_C__COUNT; c++)
		js_u64(u, acct_cause_name((enum acct_cause)c), s->unattributed[c]);
}

static void
file_head_json(json_t *o, const struct cc_file *f)
{
	js_str(o, "file", f->path);
	if (f->have_ri)
		js_str(o, "index", f->index_path);
	js_str(o, "format", cc_fmt_name(f->det.fmt));
	js_str(o, "description", f->det.desc);
	js_u64(o, "size", f->size);
	js_u64(o, f->scan->acct != NULL ? "records" : "frames_read", f->scan->records);
	js_bool(o, "damaged", f->scan->damaged);
}

void
cc_info_json(json_t *arr, const struct cc_file *f, uint64_t max_gaps)
{
	const struct cc_scan *s = f->scan;
	json_t *o = js_obj(arr, NULL), *sts;
	unsigned int i;

	file_head_json(o, f);
	sts = js_arr(o, "streams");
	for (i = 0; i < s->nst; i++)
		stream_json(sts, s->st[i], max_gaps);
	if (s->acct != NULL)
		antennas_json(o, s);
	else
		js_arr(o, "antennas");
	cc_problems_json(o, s);
}

void
cc_verify_json(json_t *arr, const struct cc_file *f, bool strict)
{
	json_t *o = js_obj(arr, NULL), *x;
	struct cc_notes n;
	uint64_t total;

	cc_notes_of(f, &n);
	total = f->scan->problems + (strict ? cc_notes_count(&n) : 0);
	file_head_json(o, f);
	js_bool(o, "ok", total == 0);
	js_u64(o, "streams", f->scan->nst);
	cc_problems_json(o, f->scan);
	x = js_obj(o, "notes");
	js_bool(x, "strict", strict);
	js_u64(x, "lost", n.lost);
	js_u64(x, "gaps", n.gaps);
	js_u64(x, "invalid", n.invalid);
	js_u64(x, "late", n.late);
	js_u64(x, "duplicate", n.duplicate);
	js_u64(x, "too_late", n.too_late);
	js_u64(x, "resyncs", n.resyncs);
	js_u64(x, "new_params", n.new_params);
	js_u64(x, "unattributed", n.unattributed);
}

json_t *
cc_stream_head(bool json, json_t *arr, const char *name)
{
	json_t *so;

	if (!json) {
		printf(" stream %s\n", name);
		return NULL;
	}
	so = json_object();
	js_str(so, "stream", name);
	json_array_append_new(arr, so);
	return so;
}
