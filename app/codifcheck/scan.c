/* SPDX-License-Identifier: BSD-3-Clause */
/* Scanning engine: frames in, per-stream sequence/gaps/timing and problems
 * out; the scan's life (new, problems, finish, order for reports). */

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

struct cc_stream *
cc_stream_add(struct cc_scan *s)
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
