/* SPDX-License-Identifier: BSD-3-Clause */
/* Conversions: a reader's frames (codifcheck's scans) put in rows, and the
 * rows handed to the output format's sink (lib/fmt), whatever the pair. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "convert.h"
#include "convert_priv.h"
#include "err.h"
#include "fmt_codif.h"
#include "fmt_name.h"
#include "fmt_pcap.h"
#include "fmt_raw.h"
#include "inspect.h"
#include "names.h"
#include "parse.h"
#include "pkt.h"
#include "report.h"

static enum fmt_kind
kind_of(enum cc_fmt f)
{
	return f == CC_FMT_RAW ? FMT_RAW : f == CC_FMT_PCAP ? FMT_PCAP :
	       f == CC_FMT_PCAPNG ? FMT_PCAPNG : FMT_CODIF;
}


/* ---- codif, raw: frames in file order ---------------------------------------- */

/*
 * A codif or raw file is read in its order: each frame goes to the output
 * as it comes (codif, pcap: a row each). A raw output needs its streams
 * first: the first row is held until it ends (a stream repeats, or the
 * time moves on), then the file is opened and rows go through whole.
 */
struct seq {
	const struct cc_conv_opts *o;
	const struct cc_file *f;    /* the input (its index, read before the frames) */
	struct cout out;
	uint64_t nframes;
	bool layout_known;          /* raw: the first row ended */
	struct cframe *held;        /* raw: the first row, copies */
	uint8_t *held_data;
	struct codif_hdr *held_h;
	uint32_t nheld, capheld;
	size_t fb;
	char err[ERRLEN];
	struct cc_xres *x;          /* extract: a window over several inputs */
	int64_t last_t;             /* extract: the newest row written */
};

static int
seq_open(struct seq *c, const struct codif_hdr *h, size_t fb, const struct fmt_raw_index *ri)
{
	char prefix[CC_NAME_PART_LEN], ant[CC_NAME_PART_LEN], path[PATH_MAX];

	cc_names_of(c->o, c->f->path, c->f->have_ri ? c->f->ri.ant_name : NULL, prefix, ant);
	str_copy(c->out.ifc.name, sizeof(c->out.ifc.name), ant);
	c->out.ifc.ipv4 = c->f->have_ri && c->f->ri.src != 0 ? c->f->ri.src : c->o->src;
	if (cc_out_name(c->o, prefix, ant, codif_frame_time_ns(h), fmt_name(c->out.kind), path,
		     sizeof(path)) != 0) {
		snprintf(c->err, sizeof(c->err), "output name too long");
		return -1;
	}
	return cc_cout_open(&c->out, path, ri != NULL ? ri->nstream : 1, fb, ri, c->err,
			 sizeof(c->err));
}

/* raw: the streams of the held first row, and the index they make. */
static int
seq_raw_open(struct seq *c)
{
	struct fmt_raw_index *ri = &c->out.ri;
	struct codif_clock clk;
	char prefix[CC_NAME_PART_LEN], ant[CC_NAME_PART_LEN];
	int64_t idx;
	uint32_t i;

	if (fmt_raw_index_streams(ri, c->nheld) != 0) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	cc_names_of(c->o, c->f->path, NULL, prefix, ant);
	str_copy(ri->ant_name, sizeof(ri->ant_name), ant);
	ri->src = c->o->src;
	ri->data_bytes = (uint32_t)(c->fb - CODIF_HDR_LEN);
	for (i = 0; i < c->nheld; i++) {
		const struct codif_hdr *h = &c->held_h[i];

		if ((uint32_t)c->o->port + h->secondaryid > 65535) {
			snprintf(c->err, sizeof(c->err), "secondaryid %u: port %u + %u is beyond "
				 "65535 (give a lower --dst port)", h->secondaryid, c->o->port,
				 h->secondaryid);
			return -1;
		}
		ri->st[i].dst = c->o->dst + h->secondaryid;
		ri->st[i].port = (uint16_t)(c->o->port + h->secondaryid);
		ri->st[i].hdr = *h;
		memcpy(ri->st[i].raw_hdr, c->held_data + (size_t)i * c->fb, CODIF_HDR_LEN);
	}
	if (codif_clock_init(&clk, &c->held_h[0]) != 0 ||
	    !codif_clock_index(&clk, c->held_h[0].seconds, c->held_h[0].frame, &idx)) {
		snprintf(c->err, sizeof(c->err), "the first frame has no frame index");
		return -1;
	}
	fmt_raw_index_set_time(ri, &clk, idx);
	if (seq_open(c, &c->held_h[0], c->fb, ri) != 0)
		return -1;
	for (i = 0; i < c->nheld; i++) {
		c->held[i].h = &c->held_h[i];
		c->held[i].codif = c->held_data + (size_t)i * c->fb;
		if (cc_cout_put(&c->out, &c->held[i], c->err, sizeof(c->err)) != 0)
			return -1;
	}
	c->layout_known = true;
	return 0;
}

/* raw: hold a frame of the first row; 1 when it begins the second row. */
static int
seq_hold(struct seq *c, const struct cframe *fr)
{
	char why[200];
	uint32_t i;

	for (i = 0; i < c->nheld; i++)
		if (cc_same_ids(&c->held_h[i], fr->h))
			return 1; /* a repeat: the second row began */
	if (c->nheld > 0 && (fr->h->seconds != c->held_h[0].seconds ||
			     fr->h->frame != c->held_h[0].frame))
		return 1;
	if (c->nheld == FMT_RAW_MAX_STREAMS) {
		snprintf(c->err, sizeof(c->err), "more than %d streams in a row",
			 FMT_RAW_MAX_STREAMS);
		return -1;
	}
	if (c->nheld > 0 && !codif_params_equal(&c->held_h[0], fr->h, why, sizeof(why))) {
		snprintf(c->err, sizeof(c->err), "frame at offset %" PRIu64 ": %s; a raw file "
			 "holds one frame rate", fr->off, why);
		return -1;
	}
	if (c->nheld == c->capheld) {
		uint32_t nc = c->capheld ? c->capheld * 2 : 16;
		struct cframe *v = realloc(c->held, nc * sizeof(*v));
		struct codif_hdr *hv = realloc(c->held_h, nc * sizeof(*hv));
		uint8_t *d;

		if (v != NULL)
			c->held = v;
		if (hv != NULL)
			c->held_h = hv;
		d = v != NULL && hv != NULL ? realloc(c->held_data, nc * c->fb) : NULL;
		if (d == NULL) {
			snprintf(c->err, sizeof(c->err), "out of memory");
			return -1;
		}
		c->held_data = d;
		c->capheld = nc;
	}
	c->held[c->nheld] = *fr;
	c->held_h[c->nheld] = *fr->h;
	memcpy(c->held_data + (size_t)c->nheld * c->fb, fr->codif, c->fb);
	c->nheld++;
	return 0;
}

/* ---- extract: a window of data time over several inputs -------------------- */

static int seq_frame(void *ctx, const struct cc_frame_ev *ev);

/* The output so far finished (kept, counted in the result) and the next
 * frame starts another: a hole in the data time, a resync, new parameters. */
static int
seq_split(struct seq *c)
{
	struct cc_xres *x = c->x;
	int rc = 0;

	if (c->out.kind == FMT_RAW && !c->layout_known && c->nheld > 0 && seq_raw_open(c) != 0)
		rc = -1;
	if (c->out.open) {
		if (cc_cout_close(&c->out, rc == 0, c->err, sizeof(c->err)) != 0) {
			rc = -1;
		} else {
			cc_cout_report(&c->out, "");
			if (x->nfiles < CC_XRES_FILES)
				str_copy(x->file[x->nfiles], sizeof(x->file[0]),
					 fio_path(&c->out.s.f));
			x->nfiles++;
			x->bytes += fmt_disk(&c->out.s)->bytes;
		}
		x->frames += c->out.frames;
		x->placeholders += c->out.gaps;
	}
	fmt_raw_index_free(&c->out.ri);
	fmt_raw_index_init(&c->out.ri);
	c->out.open = false;
	c->out.rows = c->out.frames = c->out.gaps = c->out.invalid = 0;
	c->out.k = 0;
	c->layout_known = false;
	c->nheld = 0;
	c->nframes = 0;
	return rc;
}

/* A frame of an input: 1 in the window (written), 0 outside it (counted in
 * the recording's span only), -1 an error. */
static int
seq_window(struct seq *c, const struct cc_frame_ev *ev)
{
	struct cc_xres *x = c->x;
	int64_t t = codif_frame_time_ns(ev->h), fns = (int64_t)codif_frame_ns(ev->h);
	unsigned int i;
	bool have = c->out.open || c->nheld > 0;

	if (x->rec_first == INT64_MIN || t < x->rec_first)
		x->rec_first = t;
	if (x->rec_end == INT64_MIN || t + fns > x->rec_end)
		x->rec_end = t + fns;
	if (t < x->from || t >= x->to)
		return 0;
	if (have && (t > c->last_t + fns ||
		     (ev->flags & (CODIF_OUT_RESYNC | CODIF_OUT_NEW_PARAMS)) != 0) &&
	    seq_split(c) != 0)
		return -1;
	if (x->first == INT64_MIN || t < x->first)
		x->first = t;
	if (x->end == INT64_MIN || t + fns > x->end)
		x->end = t + fns;
	if (!have || t > c->last_t)
		c->last_t = t;
	x->frame_ns = (uint64_t)fns;
	for (i = 0; i < x->nstreams; i++)
		if (cc_same_ids(&x->ids[i], ev->h))
			break;
	if (i == x->nstreams && i < CC_XRES_STREAMS)
		x->ids[x->nstreams++] = *ev->h;
	return 1;
}

struct cc_xseq {
	struct seq c;
};

struct cc_xseq *
cc_xseq_new(const struct cc_conv_opts *o, struct cc_xres *x)
{
	struct cc_xseq *q = calloc(1, sizeof(*q));

	if (q == NULL)
		return NULL;
	q->c.o = o;
	q->c.out.o = o;
	q->c.out.kind = kind_of(o->to);
	q->c.x = x;
	fmt_raw_index_init(&q->c.out.ri);
	return q;
}

int
cc_xseq_file(struct cc_xseq *q, const char *in, const struct cc_scan_opts *so, char *err,
	     size_t errlen)
{
	struct seq *c = &q->c;
	struct cc_file f;
	int rc, status = 0;

	c->f = &f;
	rc = cc_inspect(&f, in, so, seq_frame, c);
	/* a file ends with whole rows: a raw output's first row is whole */
	if (rc == 0 && c->out.kind == FMT_RAW && !c->layout_known && c->nheld > 0)
		rc = seq_raw_open(c) != 0 ? -1 : 0;
	if (rc != 0) {
		err_set(err, errlen, rc, "%s: %s", in, c->err[0] != '\0' ? c->err : strerror(-rc));
		status = -1;
	} else if (cc_input_problems(&f) != CC_EXIT_OK) {
		status = 1;
	}
	c->x->inputs++;
	cc_file_free(&f);
	c->f = NULL;
	return status;
}

int
cc_xseq_end(struct cc_xseq *q, char *err, size_t errlen)
{
	struct seq *c = &q->c;
	int rc = seq_split(c);

	if (rc != 0)
		err_set(err, errlen, rc, "%s", c->err);
	fmt_raw_index_free(&c->out.ri);
	free(c->held);
	free(c->held_h);
	free(c->held_data);
	free(q);
	return rc;
}

static int
seq_frame(void *ctx, const struct cc_frame_ev *ev)
{
	struct seq *c = ctx;
	struct cframe fr = {
		.h = ev->h, .codif = ev->codif, .len = ev->len, .gap = ev->filled,
		.off = ev->off, .index = ev->index,
	};
	int rc;

	if (ev->st != NULL && ev->st->net) {
		/* a raw index says the stream's addresses */
		fr.src = ev->st->src;
		fr.dst = ev->st->dst;
		fr.port = ev->st->port;
	}
	if (c->x != NULL) {
		rc = seq_window(c, ev);
		if (rc <= 0)
			return rc;
	}
	if (fmt_is_packets(c->out.kind) && (ev->filled || !cc_seq_placed(ev->cls))) {
		if (ev->filled)
			c->out.gaps++; /* a pcap writes nothing for a gap */
		return 0;
	}
	if (c->out.kind == FMT_RAW) {
		if (!cc_seq_placed(ev->cls) || ev->cls == CODIF_SEQ_LATE) {
			snprintf(c->err, sizeof(c->err), "frame at offset %" PRIu64 ": out of "
				 "order; a raw file needs rows in time order", ev->off);
			return -1;
		}
		if ((ev->flags & (CODIF_OUT_RESYNC | CODIF_OUT_NEW_PARAMS)) && c->nframes > 0) {
			char ts[CODIF_TIMESTR_LEN];

			snprintf(c->err, sizeof(c->err), "frame at offset %" PRIu64 " (%s): the "
				 "stream's timeline resyncs or its parameters change there; a raw "
				 "file holds one clock and one layout (a capture's writer starts a "
				 "new file there: convert each part)", ev->off,
				 codif_time_str(codif_frame_time_ns(ev->h), ts, sizeof(ts)));
			return -1;
		}
		c->nframes++;
		if (!c->layout_known) {
			if (c->nheld == 0)
				c->fb = ev->len;
			rc = seq_hold(c, &fr);
			if (rc <= 0)
				return rc;
			if (seq_raw_open(c) != 0)
				return -1;
		}
		return cc_cout_put(&c->out, &fr, c->err, sizeof(c->err));
	}
	if (!c->out.open && seq_open(c, ev->h, ev->len, NULL) != 0)
		return -1;
	c->nframes++;
	return cc_cout_put(&c->out, &fr, c->err, sizeof(c->err));
}

static int
convert_file(const char *in, const struct cc_conv_opts *o, const struct cc_scan_opts *so,
	     enum fmt_kind to)
{
	struct seq *c = calloc(1, sizeof(*c));
	struct cc_file f;
	int rc, status = CC_EXIT_OK;

	if (c == NULL)
		return CC_EXIT_PROBLEMS;
	c->o = o;
	c->f = &f;
	c->out.o = o;
	c->out.kind = to;
	rc = cc_inspect(&f, in, so, seq_frame, c);
	/* a raw output of one row: the row is whole at the end */
	if (rc == 0 && to == FMT_RAW && !c->layout_known && c->nheld > 0)
		rc = seq_raw_open(c) != 0 ? -1 : 0;
	if (rc == 0 && !c->out.open && c->err[0] == '\0')
		snprintf(c->err, sizeof(c->err), "%s: no frames to write", in);
	if (cc_cout_close(&c->out, rc == 0 && c->out.open, c->err, sizeof(c->err)) != 0) {
		fprintf(stderr, "codifcheck: convert: %s\n", c->err[0] != '\0' ? c->err :
			strerror(-rc));
		status = CC_EXIT_PROBLEMS;
	} else {
		cc_cout_report(&c->out, "");
	}
	if (cc_input_problems(&f) != CC_EXIT_OK)
		status = CC_EXIT_PROBLEMS;
	cc_file_free(&f);
	fmt_raw_index_free(&c->out.ri);
	free(c->held);
	free(c->held_h);
	free(c->held_data);
	free(c);
	return status;
}

/* ---- dispatch --------------------------------------------------------------- */

int
cc_cmd_convert(const char *in, const struct cc_conv_opts *o)
{
	struct cc_scan_opts so;
	struct cc_detect d;
	uint8_t *head = malloc(CC_DETECT_HEAD);
	uint64_t size = 0;
	enum cc_fmt from;
	long n;

	if (head == NULL)
		return CC_EXIT_PROBLEMS;
	n = cc_read_head(in, head, CC_DETECT_HEAD, &size);
	if (n < 0) {
		fprintf(stderr, "codifcheck: convert: %s: %s\n", in,
			n == -EINVAL ? "not a regular file" : strerror((int)-n));
		free(head);
		return CC_EXIT_PROBLEMS;
	}
	cc_detect(head, (size_t)n, size, in, &d);
	free(head);
	memset(&so, 0, sizeof(so));
	so.tl = o->tl;
	so.max_problems = o->max_problems;
	so.filter = o->filter;
	switch (d.fmt) {
	case CC_FMT_PCAP:
	case CC_FMT_PCAPNG:
		from = CC_FMT_PCAP;
		break;
	case CC_FMT_CODIF:
		from = CC_FMT_CODIF;
		break;
	case CC_FMT_RAW:
	case CC_FMT_RAW_INDEX:
		from = CC_FMT_RAW;
		break;
	default:
		fprintf(stderr, "codifcheck: convert: %s: %s\n", in, d.desc);
		return CC_EXIT_PROBLEMS;
	}
	if (from == o->to || (from == CC_FMT_PCAP && o->to == CC_FMT_PCAPNG)) {
		fprintf(stderr, "codifcheck: convert: %s: %s to %s is not a conversion (pcap -> "
			"codif or raw, codif -> pcap, pcapng or raw, raw -> codif, pcap or "
			"pcapng)\n", in,
			cc_fmt_name(d.fmt), cc_fmt_name(o->to));
		return CC_EXIT_PROBLEMS;
	}
	if (from == CC_FMT_PCAP)
		return cc_convert_capture(in, o, &so, kind_of(o->to), NULL);
	return convert_file(in, o, &so, kind_of(o->to));
}
