/* SPDX-License-Identifier: BSD-3-Clause */
/* Scanning engine: frames in, per-stream sequence/gaps/timing and problems out. */

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

/* Scratch for re-framed capture packets: the largest pcap record. */
#define CC_SCRATCH (256u << 10)

static const uint8_t sync_bytes[4] = { 0xFE, 0xCA, 0xED, 0xFE };

const char *
cc_pkind_name(enum cc_pkind k)
{
	static const char *const names[CC_P__COUNT] = {
		[CC_P_FORMAT] = "format",
		[CC_P_SYNC] = "bad-sync",
		[CC_P_HEADER] = "bad-header",
		[CC_P_LENGTH] = "wrong-length",
		[CC_P_PARAM] = "parameter-change",
		[CC_P_IMPLAUSIBLE] = "implausible-time",
		[CC_P_BACKWARDS] = "time-backwards",
		[CC_P_TRUNCATED] = "truncated",
		[CC_P_PCAP] = "pcap-damage",
		[CC_P_IPUDP] = "bad-ipv4-udp",
		[CC_P_PATTERN] = "pattern",
		[CC_P_INDEX] = "raw-index",
		[CC_P_LIMIT] = "too-many-streams",
		[CC_P_IO] = "io",
	};

	return (unsigned int)k < CC_P__COUNT ? names[k] : "?";
}

bool
cc_all_zero(const uint8_t *p, size_t len)
{
	/* p[0] == 0 and every byte equals its successor */
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

uint64_t
cc_stream_received(const struct cc_stream *st)
{
	return st->seq->st.received - st->filled;
}

uint64_t
cc_stream_lost(const struct cc_stream *st)
{
	return st->seq->st.lost + st->filled;
}

uint64_t
cc_stream_invalid(const struct cc_stream *st)
{
	return st->seq->st.invalid - st->filled;
}

char *
cc_stream_name(const struct cc_stream *st, char *buf, size_t len)
{
	char s[16], d[16], sta[3];

	codif_station_str(st->stationid, sta);
	if (st->net)
		snprintf(buf, len, "%s>%s:%u %s/%u/%u/%u", ipv4_str(st->src, s, sizeof(s)),
			 ipv4_str(st->dst, d, sizeof(d)), st->port, sta, st->groupid,
			 st->secondaryid, st->threadid);
	else
		snprintf(buf, len, "%s/%u/%u/%u", sta, st->groupid, st->secondaryid,
			 st->threadid);
	return buf;
}

struct cc_scan *
cc_scan_new(const struct cc_scan_opts *o)
{
	struct cc_scan *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->o = *o;
	s->last_hit = -1;
	s->last_good_ns = INT64_MIN;
	if (s->o.max_problems > 0) {
		s->pr = calloc(s->o.max_problems, sizeof(*s->pr));
		if (s->pr == NULL) {
			free(s);
			return NULL;
		}
	}
	return s;
}

static void
stream_free(struct cc_stream *st)
{
	if (st->seq == &st->own) {
		codif_seq_free(&st->own);
		codif_tl_free(&st->own_tl);
	}
	free(st->seg);
	cc_gaps_free(&st->gaps);
	free(st->offset);
	free(st->jitter);
	free(st);
}

void
cc_scan_free(struct cc_scan *s)
{
	unsigned int i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nst; i++)
		stream_free(s->st[i]);
	free(s->st);
	acct_free(s->acct);
	free(s->scratch);
	free(s->pr);
	free(s);
}

void
cc_scan_set_cb(struct cc_scan *s, cc_frame_cb cb, void *ctx)
{
	s->cb = cb;
	s->cb_ctx = ctx;
}

void
cc_scan_problem(struct cc_scan *s, enum cc_pkind k, uint64_t off, int64_t utc_ns,
		const char *fmt, ...)
{
	struct cc_problem *p;
	va_list ap;

	s->nprob[k]++;
	s->problems++;
	if (s->npr >= s->o.max_problems)
		return;
	p = &s->pr[s->npr++];
	p->kind = k;
	p->off = off;
	p->utc_ns = utc_ns;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
}

static struct cc_stream *
stream_add(struct cc_scan *s)
{
	struct cc_stream *st;

	if (s->nst == s->capst) {
		unsigned int nc = s->capst != 0 ? s->capst * 2 : 16;
		struct cc_stream **v = realloc(s->st, nc * sizeof(*v));

		if (v == NULL)
			return NULL;
		s->st = v;
		s->capst = nc;
	}
	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return NULL;
	st->ant = -1;
	st->seq = &st->own;
	cc_gaps_init(&st->gaps);
	s->st[s->nst++] = st;
	return st;
}

/* ---- segments, positions and gaps, shared by every format -------------- */

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

static void
check_pattern(struct cc_scan *s, struct cc_stream *st, const struct codif_hdr *h,
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

static int timing(struct cc_stream *st, int64_t ts, const struct codif_hdr *h);
static void backwards(struct cc_scan *s, struct cc_stream *st, enum codif_seq_class cls,
		      int64_t idx, uint64_t off, int64_t t);

/* A frame with everything a scan needs after its stream took it (or held
 * it: then these point into a copy). */
struct frame_in {
	const uint8_t *codif;     /* header + data */
	size_t len;
	struct codif_hdr h;
	uint64_t off, data_off;   /* file offsets of the header, of the data */
	int64_t ts;               /* capture arrival time, else INT64_MIN */
	int filled;               /* codif/raw: a placeholder (1), not (0), tell (-1) */
	int ant, stream;          /* capture: lib/acct's indices */
};

/* A frame held aside: a copy of its bytes. */
struct held {
	struct frame_in fi;
	struct cc_stream *st;
	uint8_t bytes[];
};

static struct held *
hold_copy(const struct frame_in *fi, struct cc_stream *st, const uint8_t *base, size_t n)
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
static int
take(struct cc_scan *s, struct cc_stream *st, const struct frame_in *fi,
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
			backwards(s, st, o->cls, o->index, fi->off, t);
		if (filled < 0)
			filled = fi->h.invalid &&
				 cc_all_zero(fi->codif + CODIF_HDR_LEN, fi->len - CODIF_HDR_LEN);
		if (filled) {
			st->filled++;
			if (cc_gaps_add(&st->gaps, pos, pos, CC_GAP_FILLED) == -ENOMEM)
				return s->err = -ENOMEM;
		}
	} else if (timing(st, fi->ts, &fi->h) != 0) {
		return s->err = -ENOMEM;
	}
	if (s->o.pattern && !filled)
		check_pattern(s, st, &fi->h, fi->codif + CODIF_HDR_LEN, fi->len - CODIF_HDR_LEN,
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
static void
dropped(struct cc_scan *s, struct held *k, enum codif_drop why)
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
static int
file_actions(struct cc_scan *s, struct cc_stream *st)
{
	struct codif_act a;
	int rc = 0;

	while (codif_tl_action(st->tl, &a)) {
		struct held *k = (struct held *)(uintptr_t)a.handle;

		if (k == NULL)
			continue;
		if (a.drop)
			dropped(s, k, a.why);
		else if (rc == 0)
			rc = take(s, k->st, &k->fi, &a.out);
		free(k);
	}
	return rc;
}

/* ---- codif and raw: frames from a file, streams keyed by CODIF ids ----- */

static bool
stream_is(const struct cc_stream *st, const struct codif_hdr *h)
{
	return st->stationid == h->stationid && st->groupid == h->groupid &&
	       st->secondaryid == h->secondaryid && st->threadid == h->threadid;
}

static struct cc_stream *
find_stream(struct cc_scan *s, const struct codif_hdr *h)
{
	struct cc_stream *st;
	unsigned int i;

	for (i = 0; i < s->nst; i++) {
		/* rows repeat the slot order: the next stream is the likely one */
		unsigned int k = (unsigned int)(s->last_hit + 1 + (int)i) % s->nst;

		st = s->st[k];
		if (stream_is(st, h)) {
			s->last_hit = (int)k;
			return st;
		}
	}
	return NULL;
}

static struct cc_stream *
codif_stream(struct cc_scan *s, const struct codif_hdr *h, uint64_t off)
{
	struct cc_stream *st = find_stream(s, h);
	char sta[3];

	if (st != NULL)
		return st;
	if (s->nst >= CC_MAX_STREAMS) {
		codif_station_str(h->stationid, sta);
		cc_scan_problem(s, CC_P_LIMIT, off, codif_frame_time_ns(h),
				"stream %s/%u/%u/%u: more than %d streams in one file; "
				"not tracked", sta, h->groupid, h->secondaryid,
				h->threadid, CC_MAX_STREAMS);
		return NULL;
	}
	st = stream_add(s);
	if (st == NULL || codif_tl_init(&st->own_tl, &s->o.tl) != 0 ||
	    codif_seq_init(&st->own, &st->own_tl) != 0) {
		s->err = -ENOMEM;
		return NULL;
	}
	st->tl = &st->own_tl;
	st->stationid = h->stationid;
	st->groupid = h->groupid;
	st->secondaryid = h->secondaryid;
	st->threadid = h->threadid;
	s->last_hit = (int)s->nst - 1;
	return st;
}

/* Frames of a codif or raw file must come in each stream's frame order.
 * Frame numbers as codif.md counts them: from its segment's first frame. */
static void
backwards(struct cc_scan *s, struct cc_stream *st, enum codif_seq_class cls,
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

/*
 * Account one whole frame of a codif/raw file. filled: 1/0 when the
 * source knows whether it is a placeholder (raw), -1 to tell by its
 * invalid bit and all-zero data (codif).
 */
static int
file_frame(struct cc_scan *s, const uint8_t *frame, size_t len,
	   const struct codif_hdr *h, uint64_t off, uint64_t data_off, int filled)
{
	struct cc_stream *st = codif_stream(s, h, off);
	struct frame_in fi;
	struct codif_out o;
	int rc;

	if (st == NULL)
		return s->err;
	memset(&fi, 0, sizeof(fi));
	fi.codif = frame;
	fi.len = len;
	fi.h = *h;
	fi.off = off;
	fi.data_off = data_off;
	fi.ts = INT64_MIN;
	fi.filled = filled;
	fi.ant = fi.stream = -1;
	codif_seq_push(st->tl, st->seq, h, (uint32_t)len, &o);
	switch (o.cls) {
	case CODIF_SEQ_SUSPECT:
		if (o.hold != NULL) {
			struct held *k = hold_copy(&fi, st, frame, len);

			if (k == NULL)
				return s->err = -ENOMEM;
			k->fi.data_off = data_off;
			o.hold->handle = (uintptr_t)k;
		}
		rc = 0;
		break;
	case CODIF_SEQ_DUPLICATE:
	case CODIF_SEQ_TOO_LATE:
		backwards(s, st, o.cls, o.index, off, codif_frame_time_ns(h));
		rc = 0;
		break;
	case CODIF_SEQ_MALFORMED:
		cc_scan_problem(s, CC_P_HEADER, off, codif_frame_time_ns(h),
				"frame index beyond 63 bits: seconds %u, frame %u",
				h->seconds, h->frame);
		rc = 0;
		break;
	default:
		rc = take(s, st, &fi, &o);
		break;
	}
	if (rc == 0 && codif_tl_busy(st->tl))
		rc = file_actions(s, st);
	return rc;
}

/* A usable header: CODIF v3, valid fields, a data part this tool holds. */
static bool
header_ok(const uint8_t *p, struct codif_hdr *h, char *why, size_t whylen)
{
	if (codif_identify(p, CODIF_HDR_LEN, why, whylen) != 0)
		return false;
	codif_decode(p, CODIF_HDR_LEN, h, NULL, 0);
	if (codif_validate(h, SIZE_MAX, why, whylen) != 0)
		return false;
	if (codif_data_bytes(h) > CC_MAX_DATA) {
		snprintf(why, whylen, "framelength8 %" PRIu32 " (%" PRIu64
			 " data bytes), more than the %u this tool reads",
			 h->framelength8, codif_data_bytes(h), CC_MAX_DATA);
		return false;
	}
	return true;
}

/* First offset in [from, n - 64] where a usable header starts, or n. */
static size_t
find_header(const uint8_t *p, size_t from, size_t n)
{
	struct codif_hdr h;
	char why[200];
	size_t i = from;

	while (i + CODIF_HDR_LEN <= n) {
		const uint8_t *m = memmem(p + i + 40, n - i - 40, sync_bytes, 4);

		if (m == NULL)
			break;
		i = (size_t)(m - p) - 40;
		if (i + CODIF_HDR_LEN <= n && header_ok(p + i, &h, why, sizeof(why)))
			return i;
		i++;
	}
	return n;
}

/*
 * Skip from the current offset to the next usable header (at least one
 * byte on). Keeps 63 bytes across refills so that no header is missed.
 * @return bytes skipped; at the end of the file everything is skipped.
 */
static uint64_t
resync(struct cc_rd *rd)
{
	uint64_t skipped = 0;
	size_t from = 1;

	for (;;) {
		size_t n = cc_rd_fill(rd, rd->cap);
		size_t at = find_header(cc_rd_ptr(rd), from, n);

		if (at < n) {
			cc_rd_consume(rd, at);
			return skipped + at;
		}
		if (rd->eof || rd->err != 0 || n < CODIF_HDR_LEN) {
			cc_rd_consume(rd, n);
			return skipped + n;
		}
		cc_rd_consume(rd, n - (CODIF_HDR_LEN - 1));
		skipped += n - (CODIF_HDR_LEN - 1);
		from = 0;
	}
}

/* No usable header at the current offset: report, and find the next one.
 * A corrupted header followed by a good one one frame on is one bad frame. */
static void
codif_damage(struct cc_scan *s, struct cc_rd *rd, size_t last_len,
	     const char *why, bool sync_bad)
{
	uint64_t x = cc_rd_off(rd), skipped;
	enum cc_pkind k = sync_bad ? CC_P_SYNC : CC_P_HEADER;
	struct codif_hdr h;
	char w2[200];
	size_t n;

	s->damaged = true;
	if (last_len != 0) {
		n = cc_rd_fill(rd, last_len + CODIF_HDR_LEN);
		if (n == last_len ||
		    (n >= last_len + CODIF_HDR_LEN &&
		     header_ok(cc_rd_ptr(rd) + last_len, &h, w2, sizeof(w2)))) {
			cc_scan_problem(s, k, x, s->last_good_ns,
					"%s (a frame of %zu bytes skipped)", why, last_len);
			cc_rd_consume(rd, last_len);
			return;
		}
	}
	skipped = resync(rd);
	if (cc_rd_fill(rd, 1) == 0)
		cc_scan_problem(s, k, x, s->last_good_ns,
				"%s; no CODIF header in the remaining %" PRIu64 " bytes",
				why, skipped);
	else
		cc_scan_problem(s, k, x, s->last_good_ns,
				"%s; %" PRIu64 " bytes skipped to the next CODIF header "
				"at offset %" PRIu64, why, skipped, cc_rd_off(rd));
}

/*
 * The frame at the current offset has a good header and its full length
 * is buffered (n bytes available). When the bytes after it are not a
 * header, look for one inside it: finding one means the frame is shorter
 * than its header says. @return the true length if shorter, else 0.
 */
static size_t
short_frame(const uint8_t *p, size_t flen, size_t n)
{
	char why[200];
	size_t at;

	if (n < flen + CODIF_HDR_LEN ||
	    codif_identify(p + flen, CODIF_HDR_LEN, why, sizeof(why)) == 0)
		return 0;
	at = find_header(p, CODIF_HDR_LEN, flen + CODIF_HDR_LEN - 1);
	return at < flen ? at : 0;
}

int
cc_scan_codif(struct cc_scan *s, struct cc_rd *rd)
{
	size_t last_len = 0;
	char why[200];
	int rc;

	s->fmt = CC_FMT_CODIF;
	for (;;) {
		struct codif_hdr h;
		size_t n = cc_rd_fill(rd, CODIF_HDR_LEN), flen, real;
		uint64_t x = cc_rd_off(rd);
		const uint8_t *p;

		if (rd->err != 0) {
			s->damaged = true;
			cc_scan_problem(s, CC_P_IO, x, s->last_good_ns, "read error: %s",
					strerror(-rd->err));
			return -EIO;
		}
		if (n == 0)
			return 0;
		if (n < CODIF_HDR_LEN) {
			s->damaged = true;
			cc_scan_problem(s, CC_P_TRUNCATED, x, s->last_good_ns,
					"final frame: %zu bytes, a header needs %d",
					n, CODIF_HDR_LEN);
			cc_rd_consume(rd, n);
			return 0;
		}
		if (!header_ok(cc_rd_ptr(rd), &h, why, sizeof(why))) {
			codif_damage(s, rd, last_len, why,
				     codif_identify(cc_rd_ptr(rd), n, NULL, 0) != 0);
			continue;
		}
		flen = CODIF_HDR_LEN + (size_t)codif_data_bytes(&h);
		n = cc_rd_fill(rd, flen + CODIF_HDR_LEN);
		p = cc_rd_ptr(rd);
		if (n < flen) {
			s->damaged = true;
			cc_scan_problem(s, CC_P_TRUNCATED, x, codif_frame_time_ns(&h),
					"final frame: %zu of %zu bytes", n, flen);
			cc_rd_consume(rd, n);
			return 0;
		}
		real = short_frame(p, flen, n);
		if (real != 0) {
			s->damaged = true;
			cc_scan_problem(s, CC_P_LENGTH, x, codif_frame_time_ns(&h),
					"the frame is %zu bytes, its header "
					"says %zu (framelength8 %" PRIu32 "); next header at "
					"offset %" PRIu64, real, flen, h.framelength8, x + real);
			cc_rd_consume(rd, real);
			continue;
		}
		s->records++;
		rc = file_frame(s, p, flen, &h, x, x + CODIF_HDR_LEN, -1);
		if (rc != 0)
			return rc;
		last_len = flen;
		cc_rd_consume(rd, flen);
	}
}

/* ---- raw + index ------------------------------------------------------ */

/* A row of the raw file as frames: each slot's header rebuilt from the
 * index; a gap (or a row its writer lost: overrun) a placeholder. */
static int
raw_row(struct cc_scan *s, const struct fmt_raw_index *ri, struct cc_rd *rd,
	uint64_t row, size_t *gcur, size_t *icur, size_t *ocur)
{
	size_t db = (size_t)ri->data_bytes;
	uint8_t *frame = s->scratch;
	bool over = fmt_raw_in_run(&ri->overrun, 0, row, ocur);
	uint32_t k;
	int rc;

	for (k = 0; k < ri->nstream; k++) {
		bool gap = fmt_raw_in_run(&ri->gaps, k, row, &gcur[k]) || over;
		bool inv = fmt_raw_in_run(&ri->invalid, k, row, &icur[k]);
		uint64_t off = cc_rd_off(rd);
		struct codif_hdr h;

		if (cc_rd_fill(rd, db) < db)
			return rd->err != 0 ? -EIO : -ENODATA;
		fmt_raw_frame_hdr(ri, k, row, gap || inv, &h);
		codif_encode(&h, frame);
		memcpy(frame + CODIF_HDR_LEN, cc_rd_ptr(rd), db);
		if (gap && !cc_all_zero(frame + CODIF_HDR_LEN, db)) {
			s->damaged = true;
			cc_scan_problem(s, CC_P_INDEX, off, codif_frame_time_ns(&h),
					"row %" PRIu64 " slot %u is in a gap of the index "
					"but its data is not all zero", row, k);
		}
		s->records++;
		rc = file_frame(s, frame, CODIF_HDR_LEN + db, &h, off, off, gap);
		if (rc != 0)
			return rc;
		cc_rd_consume(rd, db);
	}
	return 0;
}

/* The index names each slot's addresses: give them to its stream. */
static void
raw_addresses(struct cc_scan *s, const struct fmt_raw_index *ri)
{
	unsigned int i;
	uint32_t k;

	for (i = 0; i < s->nst; i++) {
		struct cc_stream *st = s->st[i];

		for (k = 0; k < ri->nstream; k++) {
			if (stream_is(st, &ri->st[k].hdr)) {
				st->net = true;
				st->src = ri->src;
				st->dst = ri->st[k].dst;
				st->port = ri->st[k].port;
				st->ant = (int)ri->ant_index;
				break;
			}
		}
	}
}

int
cc_scan_raw(struct cc_scan *s, const struct fmt_raw_index *ri, struct cc_rd *rd,
	    uint64_t raw_size)
{
	uint64_t want = fmt_raw_data_size(ri), rows = ri->rows, row;
	size_t ocur = 0;
	uint64_t rowbytes = (uint64_t)ri->nstream * ri->data_bytes;
	size_t *gcur, *icur;
	int rc = 0;

	s->fmt = CC_FMT_RAW;
	if (ri->data_bytes > CC_MAX_DATA) {
		s->damaged = true;
		cc_scan_problem(s, CC_P_INDEX, UINT64_MAX, INT64_MIN,
				"data_bytes %" PRIu32 ": more than the %u this tool reads",
				ri->data_bytes, CC_MAX_DATA);
		return 0;
	}
	if (raw_size != want) {
		s->damaged = true;
		cc_scan_problem(s, raw_size < want ? CC_P_TRUNCATED : CC_P_INDEX,
				raw_size < want ? raw_size : want, INT64_MIN,
				"raw file is %" PRIu64 " bytes, the index says %" PRIu64
				" rows x %u streams x %" PRIu32 " bytes = %" PRIu64,
				raw_size, ri->rows, ri->nstream, ri->data_bytes, want);
		if (raw_size < want)
			rows = raw_size / rowbytes;
	}
	s->scratch = malloc(CODIF_HDR_LEN + ri->data_bytes);
	gcur = calloc(ri->nstream, sizeof(*gcur));
	icur = calloc(ri->nstream, sizeof(*icur));
	if (s->scratch == NULL || gcur == NULL || icur == NULL)
		rc = -ENOMEM;
	for (row = 0; rc == 0 && row < rows; row++)
		rc = raw_row(s, ri, rd, row, gcur, icur, &ocur);
	if (rc == -EIO || rc == -ENODATA) {
		s->damaged = true;
		cc_scan_problem(s, rc == -EIO ? CC_P_IO : CC_P_TRUNCATED, cc_rd_off(rd),
				s->last_good_ns, "raw data ends early, in row %" PRIu64 "%s%s",
				row, rc == -EIO ? ": " : "",
				rc == -EIO ? strerror(-rd->err) : "");
		rc = rc == -EIO ? -EIO : 0;
	}
	free(gcur);
	free(icur);
	raw_addresses(s, ri);
	if (rc == -ENOMEM)
		s->err = rc;
	return rc;
}

/* ---- pcap ------------------------------------------------------------- */

/* Link layers read, and how long their header is: other than Ethernet,
 * a packet is re-framed behind a 14-byte Ethernet header for lib/acct. */
static int
link_header(int dlt, uint32_t *hdrlen)
{
	switch (dlt) {
	case DLT_EN10MB:
		*hdrlen = 14;
		return 0;
	case DLT_LINUX_SLL:
		*hdrlen = 16;
		return 0;
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
		*hdrlen = 20;
		return 0;
#endif
	case DLT_RAW:
#ifdef DLT_IPV4
	case DLT_IPV4:
#endif
		*hdrlen = 0;
		return 0;
	default:
		return -EPROTONOSUPPORT;
	}
}

/* The packet as an Ethernet frame (pointer into data, or s->scratch). */
static const uint8_t *
as_ethernet(struct cc_scan *s, const uint8_t *data, uint32_t caplen,
	    uint32_t hdrlen, uint32_t *len)
{
	uint16_t proto;
	uint32_t n;

	if (s->linktype == DLT_EN10MB) {
		*len = caplen;
		return data;
	}
	if (caplen < hdrlen) {
		*len = 0;
		return s->scratch;
	}
	if (hdrlen == 16)
		proto = (uint16_t)(data[14] << 8 | data[15]);
	else if (hdrlen == 20)
		proto = (uint16_t)(data[0] << 8 | data[1]);
	else
		proto = caplen > 0 && data[0] >> 4 == 4 ? PKT_ETHERTYPE_IPV4 : 0;
	n = caplen - hdrlen;
	if (n > CC_SCRATCH - PKT_ETH_LEN)
		n = CC_SCRATCH - PKT_ETH_LEN;
	memset(s->scratch, 0, 12);
	s->scratch[12] = (uint8_t)(proto >> 8);
	s->scratch[13] = (uint8_t)proto;
	memcpy(s->scratch + PKT_ETH_LEN, data + hdrlen, n);
	*len = n + PKT_ETH_LEN;
	return s->scratch;
}

bool
cc_filter_pass(const struct cc_filter *f, const struct pkt_info *pi,
	       enum pkt_err pe, enum acct_cause *cause)
{
	bool port_seen = false;
	unsigned int i;

	if (!pi->have_ip) {
		*cause = (enum acct_cause)pe; /* not IPv4: nobody's */
		return false;
	}
	for (i = 0; i < f->nant && f->ant_ip[i] != pi->src_ip; i++)
		;
	if (f->nant != 0 && i == f->nant) {
		*cause = ACCT_C_UNKNOWN_SOURCE;
		return false;
	}
	/* an antenna's packet that is not UDP is its malformed packet */
	if (f->ngroup == 0 || pe != PKT_OK)
		return true;
	for (i = 0; i < f->ngroup; i++) {
		if (f->group[i].ip != pi->dst_ip)
			continue;
		if (f->group[i].port == pi->dport)
			return true;
		port_seen = true;
	}
	*cause = port_seen ? ACCT_C_UNKNOWN_PORT : ACCT_C_UNKNOWN_GROUP;
	return false;
}

static enum cc_pkind
malformed_kind(enum acct_malformed m)
{
	switch (m) {
	case ACCT_M_L3L4: return CC_P_IPUDP;
	case ACCT_M_NOT_CODIF: return CC_P_SYNC;
	case ACCT_M_LENGTH: return CC_P_LENGTH;
	case ACCT_M_PARAM_CHANGE: return CC_P_PARAM;
	case ACCT_M_TOO_MANY_STREAMS: return CC_P_LIMIT;
	default: return CC_P_HEADER;
	}
}

static struct cc_stream *
pcap_stream(struct cc_scan *s, int ant, int stream)
{
	struct acct_stream *as = &s->acct->ant[ant].stream[stream];
	struct cc_stream *st = s->side[ant][stream];

	if (st != NULL)
		return st;
	st = stream_add(s);
	if (st == NULL) {
		s->err = -ENOMEM;
		return NULL;
	}
	st->net = true;
	st->src = acct_layout_of(s->acct)->ant_ip[ant];
	st->dst = as->dst_ip;
	st->port = as->dport;
	st->stationid = as->stationid;
	st->groupid = as->groupid;
	st->secondaryid = as->secondaryid;
	st->threadid = as->threadid;
	st->ant = ant;
	st->seq = &as->seq;
	st->tl = &s->acct->ant[ant].tl;
	s->side[ant][stream] = st;
	return st;
}

/* Arrival minus CODIF time, and how much it moved since the last packet. */
static int
timing(struct cc_stream *st, int64_t ts, const struct codif_hdr *h)
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

struct rec {
	const uint8_t *data;
	uint32_t caplen, len;
	uint64_t off;       /* file offset of the record */
	uint64_t data_off;  /* file offset of its first captured byte */
	int64_t ts;
};

/* The tracker's verdict on a capture's frame, as lib/acct gave it. */
static void
out_of(const struct acct_fd *fd, uint64_t tail, struct codif_out *o)
{
	memset(o, 0, sizeof(*o));
	o->cls = (enum codif_seq_class)fd->cls;
	o->flags = fd->flags & (CODIF_OUT_SEG_START | CODIF_OUT_RESYNC | CODIF_OUT_NEW_PARAMS);
	o->seg = fd->tseg;
	o->index = fd->index;
	o->nlost = fd->nlost;
	o->tail = tail;
}

/* The held frames of antenna ant released or dropped. */
static int
pcap_actions(struct cc_scan *s, int ant)
{
	struct acct_action act;
	int rc = 0;

	while (acct_action(s->acct, ant, &act)) {
		struct held *k = (struct held *)(uintptr_t)act.handle;

		if (k == NULL)
			continue;
		if (act.drop) {
			dropped(s, k, act.why);
		} else if (rc == 0) {
			struct cc_stream *st = pcap_stream(s, ant, act.fd.stream);
			struct codif_out o;

			if (st == NULL) {
				rc = s->err;
			} else {
				out_of(&act.fd, act.tail, &o);
				rc = take(s, st, &k->fi, &o);
			}
		}
		free(k);
	}
	return rc;
}

static int
pcap_packet(struct cc_scan *s, const struct rec *k, uint32_t hdrlen)
{
	struct acct_result r;
	struct cc_stream *st;
	struct frame_in fi;
	struct codif_out o;
	const uint8_t *f;
	uint32_t flen;
	char ip[16];
	int rc = 0;

	f = as_ethernet(s, k->data, k->caplen, hdrlen, &flen);
	if (s->o.filter != NULL && (s->o.filter->nant != 0 || s->o.filter->ngroup != 0)) {
		struct pkt_info pi;
		enum acct_cause cause;

		if (!cc_filter_pass(s->o.filter, &pi, pkt_parse(f, flen, &pi), &cause)) {
			s->unattributed[cause]++;
			return 0;
		}
	}
	{
		/* the record's time is the arrival: an outage is told from a
		 * clock step as the capture does it live */
		struct acct_rx rx = { .arrival_ns = k->ts, .ip_csum = PKT_CSUM_UNKNOWN };

		acct_frame_rx(s->acct, 0, f, flen, flen, &rx, &r);
	}
	if (r.ant < 0) {
		s->unattributed[r.cause]++;
		return 0; /* not from an antenna */
	}
	if (r.fd.cls == CODIF_SEQ_MALFORMED) {
		char snap[64] = "";

		if (k->caplen < k->len)
			snprintf(snap, sizeof(snap), " (record cut to %u of %u bytes)",
				 k->caplen, k->len);
		cc_scan_problem(s, malformed_kind(r.mal), k->off, k->ts,
				"packet from %s: %s%s",
				ipv4_str(acct_layout_of(s->acct)->ant_ip[r.ant], ip, sizeof(ip)),
				s->acct->err, snap);
		goto actions;
	}
	st = pcap_stream(s, r.ant, r.fd.stream);
	if (st == NULL)
		return s->err;
	memset(&fi, 0, sizeof(fi));
	fi.codif = f + r.fd.codif_off;
	fi.len = r.fd.codif_len;
	fi.h = r.hdr;
	fi.off = k->data_off + r.fd.codif_off - PKT_ETH_LEN + hdrlen;
	fi.data_off = fi.off + CODIF_HDR_LEN;
	fi.ts = k->ts;
	fi.filled = 0;
	fi.ant = r.ant;
	fi.stream = r.fd.stream;
	if (r.fd.cls == CODIF_SEQ_SUSPECT) {
		if (r.hold != NULL) {
			struct held *kp = hold_copy(&fi, st, f, flen);

			if (kp == NULL)
				return s->err = -ENOMEM;
			r.hold->handle = (uintptr_t)kp;
		}
	} else if (acct_placeable(r.fd.cls)) {
		out_of(&r.fd, r.tail, &o);
		rc = take(s, st, &fi, &o);
	} else if (s->o.pattern) {
		/* late and duplicate copies still carry codifgen's pattern */
		check_pattern(s, st, &r.hdr, fi.codif + CODIF_HDR_LEN,
			      fi.len - CODIF_HDR_LEN, fi.data_off, r.fd.index, k->ts);
	}
actions:
	if (rc == 0 && acct_busy(s->acct, r.ant))
		rc = pcap_actions(s, r.ant);
	return rc;
}

int
cc_scan_pcap(struct cc_scan *s, pcap_t *p)
{
	struct acct_layout l;
	struct fmt_pcap_rec r;
	char err[PCAP_ERRBUF_SIZE + 64];
	uint32_t hdrlen;
	int rc;

	/* libpcap reports pcapng as version 2.4 too: the caller says which */
	if (s->fmt != CC_FMT_PCAPNG)
		s->fmt = CC_FMT_PCAP;
	s->linktype = pcap_datalink(p);
	if (link_header(s->linktype, &hdrlen) != 0) {
		s->damaged = true;
		cc_scan_problem(s, CC_P_FORMAT, UINT64_MAX, INT64_MIN,
				"link type %d (%s) not read: expected Ethernet, Linux "
				"cooked (SLL/SLL2) or raw IP", s->linktype,
				pcap_datalink_val_to_name(s->linktype) ?
				pcap_datalink_val_to_name(s->linktype) : "?");
		return 0;
	}
	memset(&l, 0, sizeof(l));
	l.learn = true;
	l.tl = s->o.tl;
	s->acct = acct_create(&l);
	s->scratch = malloc(CC_SCRATCH);
	if (s->acct == NULL || s->scratch == NULL)
		return s->err = -ENOMEM;
	/* lib/fmt's reader: the records, their times in ns and where they lie */
	while ((rc = fmt_pcap_next(p, &r, err, sizeof(err))) == 1) {
		struct rec k;

		k.data = r.data;
		k.caplen = r.caplen;
		k.len = r.len;
		fmt_pcap_rec_where(&r, s->fmt == CC_FMT_PCAPNG, &k.off, &k.data_off);
		k.ts = r.t_ns;
		s->records++;
		rc = pcap_packet(s, &k, hdrlen);
		if (rc != 0)
			return rc;
	}
	if (rc < 0) {
		int64_t end = fmt_pcap_tell(p);

		s->damaged = true;
		cc_scan_problem(s, strstr(err, "truncated") != NULL ? CC_P_TRUNCATED : CC_P_PCAP,
				end >= 0 ? (uint64_t)end : UINT64_MAX, s->last_good_ns,
				"pcap record damage after %" PRIu64 " records: %s",
				s->records, err);
	}
	return 0;
}

/* ---- the end -------------------------------------------------------------- */

/* A stream closed at its timeline's newest frame: the frames it lacks there
 * are a last gap. */
static int
close_tail(struct cc_stream *st)
{
	int64_t n = st->seq->end - st->seq->newest;

	if (n <= 0 || st->nseg == 0)
		return 0;
	if (cc_gaps_add(&st->gaps, st->hi + 1, st->hi + n, CC_GAP_MISSING) == -ENOMEM)
		return -ENOMEM;
	st->hi += n;
	return 0;
}

int
cc_scan_finish(struct cc_scan *s)
{
	unsigned int i, a;
	int rc = 0;

	if (s->acct != NULL) {
		acct_flush(s->acct);
		for (a = 0; a < ACCT_MAX_ANTENNAS && rc == 0; a++)
			if (acct_busy(s->acct, (int)a))
				rc = pcap_actions(s, (int)a);
	} else {
		for (i = 0; i < s->nst && rc == 0; i++) {
			struct cc_stream *st = s->st[i];

			codif_tl_flush(st->tl, &st->seq, 1);
			rc = file_actions(s, st);
		}
	}
	for (i = 0; i < s->nst && rc == 0; i++)
		rc = close_tail(s->st[i]);
	if (rc == -ENOMEM)
		s->err = rc;
	return rc;
}

/* ---- ordering for reports ---------------------------------------------- */

int
cc_stream_cmp(const struct cc_stream *x, const struct cc_stream *y)
{
	uint64_t kx[7] = { x->src, x->dst, x->port, x->stationid, x->groupid,
			   x->secondaryid, x->threadid };
	uint64_t ky[7] = { y->src, y->dst, y->port, y->stationid, y->groupid,
			   y->secondaryid, y->threadid };
	unsigned int i;

	for (i = 0; i < 7; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

static int
stream_cmp(const void *a, const void *b)
{
	return cc_stream_cmp(*(const struct cc_stream *const *)a,
			     *(const struct cc_stream *const *)b);
}

void
cc_scan_sort(struct cc_scan *s)
{
	if (s->nst > 1)
		qsort(s->st, s->nst, sizeof(s->st[0]), stream_cmp);
	s->last_hit = -1;
}
