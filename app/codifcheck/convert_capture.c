/* SPDX-License-Identifier: BSD-3-Clause */
/* Converting a capture: one output per antenna and timeline segment (a
 * unit), frames placed in rows by their index on the unit's clock. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "convert.h"
#include "convert_priv.h"
#include "fmt_codif.h"
#include "fmt_name.h"
#include "fmt_pcap.h"
#include "fmt_raw.h"
#include "inspect.h"
#include "names.h"
#include "parse.h"
#include "pkt.h"
#include "report.h"

#define UNIT_PARAMS 8

/* A stream's headers in a unit: its first, and each new set of parameters
 * from the frame index where it began (placeholders take the one in force). */
struct unit_ref {
	unsigned int n;
	int64_t from[UNIT_PARAMS];
	struct codif_hdr h[UNIT_PARAMS];
};

/*
 * One output file: an antenna's rows over one segment of its timeline,
 * rows r0..r1 (frame indices on clk), each lib/acct stream k at slot
 * slot_of[k]. A gap longer than --max-gap is a resync, so a unit never
 * holds more placeholders than its data spans. Arrival order is not row
 * order: frames wait in a ring of the rows a late frame can still reach
 * (maxlag, measured in the first pass) until their row is final.
 */
struct unit {
	uint32_t tseg;
	struct codif_clock clk;
	int64_t r0, r1;
	int64_t newest, maxlag;      /* pass 1: how far behind a frame came */
	bool present[ACCT_MAX_STREAMS];
	int slot_of[ACCT_MAX_STREAMS];
	int stream_of[ACCT_MAX_STREAMS];
	struct unit_ref ref[ACCT_MAX_STREAMS];
	unsigned int nslot;
	uint64_t fb;                 /* frame bytes: 64 + data */
	/* pass 2 */
	uint8_t *ring;               /* nring rows x nslot frames */
	uint64_t *have;
	int64_t nring, next;         /* next row to write */
	struct cout out;
};

struct ant_out {
	bool used;
	uint32_t src;
	char name[CC_NAME_PART_LEN];
	struct unit *u;
	unsigned int nu, capu;
};

struct capture {
	const struct cc_conv_opts *o;
	enum fmt_kind to;
	const char *in;
	struct ant_out ant[ACCT_MAX_ANTENNAS];
	char err[ERRLEN];
};

static struct unit *
unit_of(struct ant_out *ao, uint32_t tseg)
{
	unsigned int i;

	for (i = 0; i < ao->nu; i++)
		if (ao->u[i].tseg == tseg)
			return &ao->u[i];
	return NULL;
}

/* Pass 1: each taken frame widens its unit (made on its segment's first). */
static int
plan_frame(void *ctx, const struct cc_frame_ev *ev)
{
	struct capture *c = ctx;
	struct ant_out *ao = &c->ant[ev->ant];
	struct unit *u = unit_of(ao, ev->tseg);
	struct unit_ref *r;

	if (u == NULL) {
		if (ao->nu == ao->capu) {
			unsigned int nc = ao->capu ? ao->capu * 2 : 2;
			struct unit *v = realloc(ao->u, nc * sizeof(*v));

			if (v == NULL) {
				snprintf(c->err, sizeof(c->err), "out of memory");
				return -1;
			}
			ao->u = v;
			ao->capu = nc;
		}
		u = &ao->u[ao->nu++];
		memset(u, 0, sizeof(*u));
		u->tseg = ev->tseg;
		u->clk = ev->st->tl->clk;
		u->r0 = u->r1 = u->newest = ev->index;
		u->fb = ev->len;
		ao->used = true;
		ao->src = ev->st->src;
	}
	if (ev->len != u->fb) {
		char ip[16];

		snprintf(c->err, sizeof(c->err), "antenna %s: frames of %zu and %" PRIu64
			 " bytes in one segment; one codif file holds one frame size",
			 ipv4_str(ao->src, ip, sizeof(ip)), ev->len, u->fb);
		return -1;
	}
	if (ev->index < u->r0)
		u->r0 = ev->index;
	if (ev->index > u->r1)
		u->r1 = ev->index;
	if (ev->index > u->newest)
		u->newest = ev->index;
	else if (u->newest - ev->index > u->maxlag)
		u->maxlag = u->newest - ev->index;
	r = &u->ref[ev->stream];
	if (!u->present[ev->stream] ||
	    ((ev->flags & CODIF_OUT_NEW_PARAMS) && r->n < UNIT_PARAMS)) {
		u->present[ev->stream] = true;
		r->from[r->n] = ev->index;
		r->h[r->n] = *ev->h;
		r->h[r->n].invalid = false;
		r->n++;
	}
	return 0;
}

/* A stream's header in force at frame index n of its unit. */
static const struct codif_hdr *
unit_hdr(const struct unit *u, unsigned int k, int64_t n)
{
	const struct unit_ref *r = &u->ref[k];
	unsigned int i = r->n;

	while (i > 1 && r->from[i - 1] > n)
		i--;
	return &r->h[i - 1];
}

/* Slots within one antenna (one source): by destination, port and ids. */
static int
slot_cmp(const void *a, const void *b)
{
	return cc_stream_cmp(*(const struct cc_stream *const *)a,
			     *(const struct cc_stream *const *)b);
}

/* Each unit's slots (sorted), row range and reorder ring. */
static int
plan_units(struct capture *c, const struct cc_scan *s, unsigned int a)
{
	struct ant_out *ao = &c->ant[a];
	unsigned int n = s->acct->ant[a].nstream, k, i, m;

	for (i = 0; i < ao->nu; i++) {
		struct unit *u = &ao->u[i];
		struct cc_stream *v[ACCT_MAX_STREAMS];

		/* the segment runs to the timeline's newest frame, where its
		 * streams were closed (their lost ends written too) */
		for (k = 0, m = 0; k < n; k++) {
			const struct codif_seq *q = &s->acct->ant[a].stream[k].seq;

			u->slot_of[k] = -1;
			if (!u->present[k] || s->side[a][k] == NULL)
				continue;
			v[m++] = s->side[a][k];
			if (q->seg == u->tseg && q->end > u->r1)
				u->r1 = q->end;
		}
		qsort(v, m, sizeof(v[0]), slot_cmp);
		for (k = 0; k < m; k++) {
			unsigned int ks;

			for (ks = 0; ks < n && s->side[a][ks] != v[k]; ks++)
				;
			u->slot_of[ks] = (int)k;
			u->stream_of[k] = (int)ks;
		}
		u->nslot = m;
		u->nring = u->maxlag + 1;
		u->next = u->r0;
		u->newest = u->r0 - 1;
		u->ring = malloc((size_t)u->nring * m * u->fb);
		u->have = calloc((size_t)((u->nring * m + 63) / 64), sizeof(uint64_t));
		if (u->ring == NULL || u->have == NULL) {
			snprintf(c->err, sizeof(c->err), "out of memory for %" PRId64 " rows of "
				 "%u frames (frames arrived up to %" PRId64 " behind)", u->nring, m,
				 u->maxlag);
			return -1;
		}
	}
	return 0;
}

static int
ip_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* raw: a unit's streams (slot order, their first headers) and its time. */
static int
unit_index(const struct unit *u, const struct cc_scan *s, unsigned int a, unsigned int ai,
	   const char *name, uint32_t src, struct fmt_raw_index *ri)
{
	unsigned int j;

	if (fmt_raw_index_streams(ri, u->nslot) != 0)
		return -ENOMEM;
	ri->ant_index = ai;
	str_copy(ri->ant_name, sizeof(ri->ant_name), name);
	ri->src = src;
	ri->data_bytes = (uint32_t)(u->fb - CODIF_HDR_LEN);
	fmt_raw_index_set_time(ri, &u->clk, u->r0);
	for (j = 0; j < u->nslot; j++) {
		unsigned int k = (unsigned int)u->stream_of[j];

		ri->st[j].dst = s->side[a][k]->dst;
		ri->st[j].port = s->side[a][k]->port;
		ri->st[j].hdr = u->ref[k].h[0];
		codif_encode(&ri->st[j].hdr, ri->st[j].raw_hdr);
	}
	return 0;
}

/* The name --antenna-ip gives source ip, or NULL. */
static const char *
filter_name(const struct cc_filter *f, uint32_t ip)
{
	unsigned int i;

	for (i = 0; f != NULL && i < f->nant; i++)
		if (f->ant_ip[i] == ip && f->ant_name[i][0] != '\0')
			return f->ant_name[i];
	return NULL;
}

/* Antenna names: --antenna-ip's, else ant<i>, i by source address; output
 * files opened. */
static int
plan_outputs(struct capture *c, const struct cc_scan *s)
{
	const struct acct_layout *l = acct_layout_of(s->acct);
	uint32_t ips[ACCT_MAX_ANTENNAS];
	unsigned int a, i, ai, n = 0, nfiles = 0;
	char prefix[CC_NAME_PART_LEN], ant[CC_NAME_PART_LEN], path[PATH_MAX];

	for (a = 0; a < l->nant; a++)
		if (c->ant[a].used) {
			ips[n++] = c->ant[a].src;
			nfiles += c->ant[a].nu;
		}
	if (n == 0) {
		snprintf(c->err, sizeof(c->err), "%s: no CODIF frames from any antenna", c->in);
		return -1;
	}
	if (nfiles > 1 && c->o->output != NULL) {
		snprintf(c->err, sizeof(c->err), "%s: %u antennas, %u outputs (a resync or "
			 "new parameters start a file): --output names one (use --outdir)",
			 c->in, n, nfiles);
		return -1;
	}
	if (n > 1 && c->o->antenna != NULL) {
		snprintf(c->err, sizeof(c->err), "%s: %u antennas: --antenna-name needs a "
			 "capture of one antenna (or --antenna to take one)", c->in, n);
		return -1;
	}
	qsort(ips, n, sizeof(ips[0]), ip_cmp);
	for (a = 0; a < l->nant; a++) {
		struct ant_out *ao = &c->ant[a];

		if (!ao->used)
			continue;
		for (ai = 0; ips[ai] != ao->src; ai++)
			;
		snprintf(ao->name, sizeof(ao->name), "ant%u", ai);
		/* its --antenna-ip NAME; else one antenna: the input's own name
		 * for it (formats.md), if it has one; several: each by its
		 * place among the sources */
		if (filter_name(c->o->filter, ao->src) != NULL)
			cc_names_of(c->o, c->in, filter_name(c->o->filter, ao->src), prefix, ant);
		else
			cc_names_of(c->o, c->in, n == 1 ? NULL : ao->name, prefix, ant);
		for (i = 0; i < ao->nu; i++) {
			struct unit *u = &ao->u[i];

			u->out.o = c->o;
			u->out.kind = c->to;
			str_copy(u->out.ifc.name, sizeof(u->out.ifc.name), ant);
			u->out.ifc.ipv4 = ao->src;
			if (cc_out_name(c->o, prefix, ant, codif_clock_time_ns(&u->clk, u->r0),
				     fmt_name(c->to), path, sizeof(path)) != 0) {
				snprintf(c->err, sizeof(c->err), "output name too long");
				return -1;
			}
			if (c->to == FMT_RAW &&
			    unit_index(u, s, a, ai, ant, ao->src, &u->out.ri) != 0) {
				snprintf(c->err, sizeof(c->err), "out of memory");
				return -1;
			}
			if (cc_cout_open(&u->out, path, u->nslot, u->fb,
				      c->to == FMT_RAW ? &u->out.ri : NULL, c->err,
				      sizeof(c->err)) != 0)
				return -1;
		}
	}
	return 0;
}

/* Row n of a unit to its output: each slot's frame, or (never arrived) its
 * stream's placeholder: its header in force there, that frame's time, the
 * invalid bit, zero data (formats.md). */
static int
unit_row(struct capture *c, struct unit *u, int64_t n)
{
	int64_t pos = (n - u->r0) % u->nring;
	unsigned int j;

	for (j = 0; j < u->nslot; j++) {
		uint64_t bit = (uint64_t)pos * u->nslot + j;
		uint8_t *p = u->ring + bit * u->fb;
		struct codif_hdr h;
		struct cframe fr = { .h = &h, .codif = p, .len = u->fb, .index = n };

		if (u->have[bit / 64] >> (bit % 64) & 1) {
			codif_decode(p, CODIF_HDR_LEN, &h, NULL, 0);
			u->have[bit / 64] &= ~(1ULL << (bit % 64));
		} else {
			h = *unit_hdr(u, (unsigned int)u->stream_of[j], n);
			fmt_codif_hdr_at(&h, &u->clk, n, true);
			codif_encode(&h, p);
			memset(p + CODIF_HDR_LEN, 0, u->fb - CODIF_HDR_LEN);
			fr.gap = true;
		}
		if (cc_cout_put(&u->out, &fr, c->err, sizeof(c->err)) != 0)
			return -1;
	}
	return 0;
}

/* Pass 2: every first copy of a frame to its row and slot; rows no late
 * frame can reach any more are written. */
static int
capture_frame(void *ctx, const struct cc_frame_ev *ev)
{
	struct capture *c = ctx;
	struct unit *u = unit_of(&c->ant[ev->ant], ev->tseg);
	uint64_t bit;
	int slot;

	if (u == NULL || (slot = u->slot_of[ev->stream]) < 0 || ev->index < u->next ||
	    ev->index > u->r1) {
		snprintf(c->err, sizeof(c->err), "internal: frame index %" PRId64 " of "
			 "segment %u not planned", ev->index, ev->tseg);
		return -1;
	}
	if (ev->index > u->newest) {
		while (u->next < ev->index - u->maxlag)
			if (unit_row(c, u, u->next++) != 0)
				return -1;
		u->newest = ev->index;
	}
	bit = (uint64_t)((ev->index - u->r0) % u->nring) * u->nslot + (uint64_t)slot;
	if (!(u->have[bit / 64] >> (bit % 64) & 1)) {
		memcpy(u->ring + bit * u->fb, ev->codif, u->fb);
		u->have[bit / 64] |= 1ULL << (bit % 64);
	}
	return 0;
}

/* What an output written whole adds to a window's result x (extract). */
static void
unit_result(struct cc_xres *x, const struct unit *u)
{
	int64_t first = codif_clock_time_ns(&u->clk, u->r0);
	int64_t end = codif_clock_time_ns(&u->clk, u->r1 + 1);

	if (x->nfiles < CC_XRES_FILES)
		str_copy(x->file[x->nfiles], sizeof(x->file[0]), fio_path(&u->out.s.f));
	x->nfiles++;
	x->bytes += fmt_disk(&u->out.s)->bytes;
	x->frames += u->out.frames;
	x->placeholders += u->out.gaps;
	if (u->nslot > x->nstreams)
		x->nstreams = u->nslot;
	x->frame_ns = u->clk.step_q;
	if (x->first == INT64_MIN || first < x->first)
		x->first = first;
	if (x->end == INT64_MIN || end > x->end)
		x->end = end;
}

int
cc_convert_capture(const char *in, const struct cc_conv_opts *o, const struct cc_scan_opts *so,
		   enum fmt_kind to, struct cc_xres *x)
{
	struct capture *c = calloc(1, sizeof(*c));
	struct cc_file f1, f2;
	unsigned int a, i, nant = 0;
	int rc, status = CC_EXIT_OK;
	char ip[16], what[96];

	if (c == NULL)
		return CC_EXIT_PROBLEMS;
	c->o = o;
	c->to = to;
	c->in = in;
	/* pass 1: each antenna's segments, their streams, row ranges and how
	 * late frames come */
	rc = cc_inspect(&f1, in, so, plan_frame, c);
	if (rc == 0 && f1.scan->acct == NULL) {
		snprintf(c->err, sizeof(c->err), "%s: unreadable", in);
		rc = -1;
	}
	nant = rc == 0 ? acct_layout_of(f1.scan->acct)->nant : 0;
	for (a = 0; a < nant && rc == 0; a++)
		rc = plan_units(c, f1.scan, a);
	if (rc == 0)
		rc = plan_outputs(c, f1.scan);
	/* pass 2: every frame to its row, the rows in order to the outputs */
	memset(&f2, 0, sizeof(f2));
	if (rc == 0)
		rc = cc_inspect(&f2, in, so, capture_frame, c);
	for (a = 0; a < nant && rc == 0; a++)
		for (i = 0; i < c->ant[a].nu && rc == 0; i++) {
			struct unit *u = &c->ant[a].u[i];

			while (rc == 0 && u->next <= u->r1)
				rc = unit_row(c, u, u->next++);
			if (rc == 0 && u->out.frames + u->out.gaps !=
				       (uint64_t)(u->r1 - u->r0 + 1) * u->nslot) {
				snprintf(c->err, sizeof(c->err), "internal: %" PRIu64 " frames "
					 "written + %" PRIu64 " placeholders, expected %" PRIu64
					 " rows x %u", u->out.frames, u->out.gaps,
					 (uint64_t)(u->r1 - u->r0 + 1), u->nslot);
				rc = -1;
			}
		}
	for (a = 0; a < ACCT_MAX_ANTENNAS; a++) {
		struct ant_out *ao = &c->ant[a];

		for (i = 0; i < ao->nu; i++) {
			struct unit *u = &ao->u[i];
			bool was_open = u->out.open;

			if (cc_cout_close(&u->out, rc == 0, c->err, sizeof(c->err)) != 0 && rc == 0)
				rc = -1;
			else if (rc == 0 && was_open) {
				ipv4_str(ao->src, ip, sizeof(ip));
				if (to == FMT_RAW)
					snprintf(what, sizeof(what), "antenna %s: ", ip);
				else
					snprintf(what, sizeof(what), "antenna %s: %u streams, %"
						 PRIu64 " rows, ", ip, u->nslot,
						 (uint64_t)(u->r1 - u->r0 + 1));
				cc_cout_report(&u->out, what);
				if (x != NULL)
					unit_result(x, u);
			}
			fmt_raw_index_free(&u->out.ri);
			free(u->ring);
			free(u->have);
		}
		free(ao->u);
	}
	if (rc != 0) {
		fprintf(stderr, "codifcheck: convert: %s\n", c->err[0] != '\0' ? c->err :
			strerror(-rc));
		status = CC_EXIT_PROBLEMS;
	}
	if (cc_input_problems(&f1) != CC_EXIT_OK)
		status = CC_EXIT_PROBLEMS;
	cc_file_free(&f1);
	if (f2.scan != NULL)
		cc_file_free(&f2);
	free(c);
	return status;
}
