/* SPDX-License-Identifier: BSD-3-Clause */
/* The scan's sequence of each stream, shared by every format: timeline
 * segments, positions, gaps, held (reordered) frames, the pattern check. */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codif_pattern.h"
#include "fmt_pcap.h"
#include "parse.h"
#include "scan.h"
#include "scan_priv.h"

/* Scratch for re-framed capture packets: the largest pcap record. */
const struct cc_seg *
cc_stream_pos_seg(const struct cc_stream *st, int64_t pos, int64_t *index)
{
	unsigned int i;

	if (st->nseg == 0)
		return NULL;
	/* segment i holds positions from its first frame's, less the window
	 * of late frames it can take before that, up to the next one's */
	for (i = st->nseg; i > 1; i--)
		if (pos >= st->seg[i - 1].first_index + st->seg[i - 1].off -
				   (int64_t)st->seq->window)
			break;
	if (index != NULL)
		*index = pos - st->seg[i - 1].off;
	return &st->seg[i - 1];
}

int64_t
cc_stream_pos_ns(const struct cc_stream *st, int64_t pos)
{
	int64_t idx;
	const struct cc_seg *g = cc_stream_pos_seg(st, pos, &idx);

	return g != NULL ? codif_clock_time_ns(&g->clk, idx) : INT64_MIN;
}

/* A new segment of st begins with the frame of index n (out o, header h).
 * Positions go on after the last one's, with room for the window of late
 * frames a segment can still take before its first. */
static int
seg_begin(struct cc_scan *s, struct cc_stream *st, const struct codif_out *o,
	  const struct codif_hdr *h)
{
	struct cc_seg *g;

	if (st->nseg > 0 && o->tail > 0) {
		/* the old segment lacked its last frames: lost */
		if (cc_gaps_add(&st->gaps, st->hi + 1, st->hi + (int64_t)o->tail,
				CC_GAP_MISSING) == -ENOMEM)
			return s->err = -ENOMEM;
		st->hi += (int64_t)o->tail;
	}
	if (st->nseg == st->capseg) {
		unsigned int nc = st->capseg ? st->capseg * 2 : 4;
		struct cc_seg *v = realloc(st->seg, nc * sizeof(*v));

		if (v == NULL)
			return s->err = -ENOMEM;
		st->seg = v;
		st->capseg = nc;
	}
	g = &st->seg[st->nseg++];
	memset(g, 0, sizeof(*g));
	g->tseg = o->seg;
	g->flags = o->flags;
	g->clk = st->tl->clk;
	g->ref = *h;
	g->first_index = o->index;
	g->skipped = (o->flags & CODIF_OUT_RESYNC) ? st->tl->last.skipped : 0;
	/* the first segment counts from the stream's first frame (codif.md's
	 * N); later ones go on after it, past its window of late frames */
	g->off = st->nseg == 1 ? -o->index :
		 st->hi + 1 + (int64_t)st->seq->window - o->index;
	return 0;
}

/* What a frame taken by its stream did to the gap list, from the tracker's
 * verdict alone: so the gap runs always add up to the stream's lost count. */
static int
track_gaps(struct cc_stream *st, const struct codif_out *o, int64_t pos)
{
	int rc = 0;

	switch (o->cls) {
	case CODIF_SEQ_GAP:
		rc = cc_gaps_add(&st->gaps, pos - (int64_t)o->nlost, pos - 1, CC_GAP_MISSING);
		break;
	case CODIF_SEQ_LATE:
		if (o->nlost > 0)
			rc = cc_gaps_add(&st->gaps, pos + 1, pos + (int64_t)o->nlost,
					 CC_GAP_MISSING);
		else
			rc = cc_gaps_fill(&st->gaps, pos);
		if (rc == -ENOENT)
			rc = 0; /* just before the old first */
		break;
	default:
		break;
	}
	if (pos > st->hi)
		st->hi = pos;
	return rc == -ENOMEM ? rc : 0;
}

bool
cc_seq_placed(enum codif_seq_class c)
{
	return c == CODIF_SEQ_FIRST || c == CODIF_SEQ_IN_ORDER ||
	       c == CODIF_SEQ_GAP || c == CODIF_SEQ_LATE;
}

void
cc_pattern_check(struct cc_scan *s, struct cc_stream *st, const struct codif_hdr *h,
		 const uint8_t *data, size_t len, uint64_t data_off, int64_t idx,
		 int64_t utc)
{
	char name[96];
	size_t bad;

	if (codif_pattern_check(h, data, len, &bad))
		return;
	st->pattern_bad++;
	cc_scan_problem(s, CC_P_PATTERN, data_off + bad, utc,
			"%s: frame index %" PRId64 ": payload differs from codifgen's "
			"pattern at data byte %zu", cc_stream_name(st, name, sizeof(name)),
			idx, bad);
}

static int
emit(struct cc_scan *s, struct cc_frame_ev *ev)
{
	if (s->cb == NULL)
		return 0;
	return s->cb(s->cb_ctx, ev) != 0 ? -ECANCELED : 0;
}

struct held *
cc_hold_copy(const struct frame_in *fi, struct cc_stream *st, const uint8_t *base, size_t n)
{
	struct held *k = malloc(sizeof(*k) + n);

	if (k == NULL)
		return NULL;
	k->fi = *fi;
	k->st = st;
	memcpy(k->bytes, base, n);
	k->fi.codif = k->bytes + (fi->codif - base);
	return k;
}

/* A frame its stream took: gaps, segments, checks, the callback. */
int
cc_take(struct cc_scan *s, struct cc_stream *st, const struct frame_in *fi,
	const struct codif_out *o)
{
	struct cc_frame_ev ev;
	int64_t t = codif_frame_time_ns(&fi->h), pos;
	int filled = fi->filled;

	if ((o->flags & CODIF_OUT_SEG_START) && seg_begin(s, st, o, &fi->h) != 0)
		return s->err;
	pos = o->index + st->seg[st->nseg - 1].off;
	if (track_gaps(st, o, pos) == -ENOMEM)
		return s->err = -ENOMEM;
	if (s->acct == NULL) {
		/* a codif or raw file: in frame order, placeholders marked */
		if (o->cls == CODIF_SEQ_LATE)
			cc_backwards(s, st, o->cls, o->index, fi->off, t);
		if (filled < 0)
			filled = fi->h.invalid &&
				 cc_all_zero(fi->codif + CODIF_HDR_LEN, fi->len - CODIF_HDR_LEN);
		if (filled) {
			st->filled++;
			if (cc_gaps_add(&st->gaps, pos, pos, CC_GAP_FILLED) == -ENOMEM)
				return s->err = -ENOMEM;
		}
	} else if (cc_timing(st, fi->ts, &fi->h) != 0) {
		return s->err = -ENOMEM;
	}
	if (s->o.pattern && !filled)
		cc_pattern_check(s, st, &fi->h, fi->codif + CODIF_HDR_LEN, fi->len - CODIF_HDR_LEN,
			      fi->data_off, o->index, s->acct != NULL ? fi->ts : t);
	s->last_good_ns = s->acct != NULL ? fi->ts : t;
	memset(&ev, 0, sizeof(ev));
	ev.st = st;
	ev.h = &fi->h;
	ev.codif = fi->codif;
	ev.len = fi->len;
	ev.cls = o->cls;
	ev.flags = o->flags;
	ev.tseg = o->seg;
	ev.index = o->index;
	ev.off = fi->off;
	ev.ts_ns = fi->ts;
	ev.filled = filled > 0;
	ev.ant = fi->ant;
	ev.stream = fi->stream;
	return emit(s, &ev);
}

/* A held frame dropped: its time (or parameters) never confirmed. Its time
 * as the stream counts time, by its seconds and frame. */
void
cc_seq_dropped(struct cc_scan *s, struct held *k, enum codif_drop why)
{
	struct cc_stream *st = k->st;
	struct codif_hdr r = st->seq->have_ref ? st->seq->ref : k->fi.h;
	char name[96], ts[CODIF_TIMESTR_LEN], what[200];

	r.seconds = k->fi.h.seconds;
	r.frame = k->fi.h.frame;
	cc_stream_name(st, name, sizeof(name));
	if (why == CODIF_DROP_PARAMS && st->seq->have_ref &&
	    !codif_params_equal(&st->seq->ref, &k->fi.h, what, sizeof(what))) {
		cc_scan_problem(s, CC_P_PARAM, k->fi.off,
				k->fi.ts != INT64_MIN ? k->fi.ts : codif_frame_time_ns(&r),
				"%s: %s; not confirmed by %u frames: dropped", name, what,
				st->tl->cfg.confirm);
		return;
	}
	cc_scan_problem(s, why == CODIF_DROP_PARAMS ? CC_P_PARAM : CC_P_IMPLAUSIBLE, k->fi.off,
			k->fi.ts != INT64_MIN ? k->fi.ts : s->last_good_ns,
			"%s: a frame at %s (seconds %u, frame %u) fits no timeline (newest %s); "
			"not confirmed by %u frames: dropped", name,
			codif_time_str(codif_frame_time_ns(&k->fi.h), ts, sizeof(ts)),
			k->fi.h.seconds, k->fi.h.frame,
			st->seq->started ? codif_time_str(st->seq->newest_time_ns, what, sizeof(what)) :
					   "none", st->tl->cfg.confirm);
}

/* The actions of a codif/raw stream's own timeline. */
int
cc_file_actions(struct cc_scan *s, struct cc_stream *st)
{
	struct codif_act a;
	int rc = 0;

	while (codif_tl_action(st->tl, &a)) {
		struct held *k = (struct held *)(uintptr_t)a.handle;

		if (k == NULL)
			continue;
		if (a.drop)
			cc_seq_dropped(s, k, a.why);
		else if (rc == 0)
			rc = cc_take(s, k->st, &k->fi, &a.out);
		free(k);
	}
	return rc;
}

/* Frames of a codif or raw file must come in each stream's frame order.
 * Frame numbers as codif.md counts them: from its segment's first frame. */
void
cc_backwards(struct cc_scan *s, struct cc_stream *st, enum codif_seq_class cls,
	     int64_t idx, uint64_t off, int64_t t)
{
	char name[96], now[CODIF_TIMESTR_LEN];
	int64_t base = st->nseg > 0 ? st->seg[st->nseg - 1].first_index : 0;

	st->backwards++;
	cc_scan_problem(s, CC_P_BACKWARDS, off, t,
			"%s: frame index %" PRId64 " (%s) after "
			"index %" PRId64 " (%s)",
			cc_stream_name(st, name, sizeof(name)), idx - base,
			cls == CODIF_SEQ_DUPLICATE ? "a repeat" :
			cls == CODIF_SEQ_TOO_LATE ? "older than the window" : "late",
			st->seq->newest - base,
			codif_time_str(st->seq->newest_time_ns, now, sizeof(now)));
}

/* Arrival minus CODIF time, and how much it moved since the last packet. */
int
cc_timing(struct cc_stream *st, int64_t ts, const struct codif_hdr *h)
{
	int64_t off = ts - codif_frame_time_ns(h), d;

	if (st->offset == NULL) {
		st->offset = malloc(sizeof(*st->offset));
		st->jitter = malloc(sizeof(*st->jitter));
		if (st->offset == NULL || st->jitter == NULL)
			return -ENOMEM;
		cc_hist_init(st->offset);
		cc_hist_init(st->jitter);
	}
	cc_hist_add(st->offset, off);
	if (st->have_offset) {
		d = off - st->last_offset;
		if (d < 0)
			d = d == INT64_MIN ? INT64_MAX : -d;
		cc_hist_add(st->jitter, d);
		/* RFC 3550 6.4.1: J += (|D| - J) / 16, kept scaled by 16; |D|
		 * capped so the sum cannot overflow */
		if (d > (1LL << 40))
			d = 1LL << 40;
		st->rfc_jitter16 = st->rfc_jitter16 + (uint64_t)d -
				   ((st->rfc_jitter16 + 8) >> 4);
	}
	st->last_offset = off;
	st->have_offset = true;
	return 0;
}
