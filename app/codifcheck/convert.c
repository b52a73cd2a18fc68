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
#include "fmt_codif.h"
#include "fmt_name.h"
#include "fmt_pcap.h"
#include "fmt_raw.h"
#include "inspect.h"
#include "names.h"
#include "parse.h"
#include "pkt.h"
#include "report.h"

#define ERRLEN (PATH_MAX + 512)
/** Largest Ethernet frame written to a pcap (its snaplen). */
#define CC_PCAP_SNAPLEN 65535
/** Staging of an output file (more when a row needs it). */
#define CC_OUT_BUF (4u << 20)

/* Output name: -o, or <outdir>/<prefix>_<antenna>_<UTC>.<ext>. */
static int
out_name(const struct cc_conv_opts *o, const char *prefix, const char *ant,
	 int64_t utc_ns, const char *ext, char *buf, size_t len)
{
	int n;

	if (o->output == NULL)
		return fmt_file_name(buf, len, o->outdir, prefix, ant, utc_ns, ext);
	n = snprintf(buf, len, "%s", o->output);
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/* Prefix and antenna for outputs of one input: options, else the input's
 * formats.md name, else the defaults. */
static void
names_of(const struct cc_conv_opts *o, const char *in, const char *ant_default,
	 char *prefix, char *ant)
{
	struct cc_name nm;
	bool named = cc_parse_name(in, &nm) == 0;

	snprintf(prefix, CC_NAME_PART_LEN, "%s", o->prefix != NULL ? o->prefix :
		 named ? nm.prefix : CC_DEFAULT_PREFIX);
	snprintf(ant, CC_NAME_PART_LEN, "%s", o->antenna != NULL ? o->antenna :
		 ant_default != NULL ? ant_default : named ? nm.antenna : "ant0");
}

/* Input problems are reported; the outputs hold every good frame. */
static int
input_problems(const struct cc_file *f)
{
	if (f->scan == NULL || f->scan->problems == 0)
		return CC_EXIT_OK;
	fprintf(stderr, "codifcheck: convert: %s: %" PRIu64 " problem%s in the input "
		"(frames that could not be read are not in the output):\n", f->path,
		f->scan->problems, f->scan->problems == 1 ? "" : "s");
	cc_problems_text(stderr, f->scan, "  ");
	return CC_EXIT_PROBLEMS;
}

static enum fmt_kind
kind_of(enum cc_fmt f)
{
	return f == CC_FMT_RAW ? FMT_RAW : f == CC_FMT_PCAP ? FMT_PCAP :
	       f == CC_FMT_PCAPNG ? FMT_PCAPNG : FMT_CODIF;
}

static bool
same_ids(const struct codif_hdr *a, const struct codif_hdr *b)
{
	return a->stationid == b->stationid && a->groupid == b->groupid &&
	       a->secondaryid == b->secondaryid && a->threadid == b->threadid;
}

/* ---- one output file: rows of frames to a format sink ---------------------- */

/* A frame on its way to an output. */
struct cframe {
	const struct codif_hdr *h;
	const uint8_t *codif;       /* header + data */
	size_t len;
	bool gap;                   /* never arrived: a placeholder */
	uint64_t off;               /* where the input has it (messages) */
	int64_t index;              /* pcap: the IPv4 id */
	uint32_t src, dst;          /* pcap: the packet's addresses */
	uint16_t port;
};

struct cout {
	const struct cc_conv_opts *o;
	enum fmt_kind kind;
	struct fmt_sink s;
	bool open;
	uint32_t nslot;             /* frames in a row (raw: its streams) */
	uint32_t k;                 /* frames of the row in progress */
	struct fmt_raw_index ri;    /* raw: what the index says (streams, time) */
	struct fmt_iface ifc;       /* pcapng: the antenna (its name, address) */
	uint64_t rows, frames, gaps, invalid;
};

/*
 * Open the output: kind at path, rows of nslot frames of fb bytes each;
 * raw: ri (streams, time) says what its index will.
 */
static int
cout_open(struct cout *c, const char *path, uint32_t nslot, size_t fb,
	  const struct fmt_raw_index *ri, char *err, size_t errlen)
{
	size_t row = fmt_row_bytes_max(nslot, (uint32_t)(fb - CODIF_HDR_LEN));
	struct fmt_opts fo = {
		.bufsize = CC_OUT_BUF > 2 * row + 2 * FIO_ALIGN ? CC_OUT_BUF : 2 * row + 2 * FIO_ALIGN,
		.fio_flags = c->o->force ? FIO_REPLACE : 0,
		.snaplen = CC_PCAP_SNAPLEN,
		.ifaces = &c->ifc,
		.nifaces = 1,
		.app = "codifcheck " IBVCAP_VERSION,
	};
	int rc;

	rc = fmt_open(&c->s, c->kind, path, &fo, ri, err, errlen);
	if (rc == -EEXIST) {
		size_t n = strlen(err);

		snprintf(err + n, errlen - n, " (give --force to replace it)");
	}
	if (rc != 0)
		return -1;
	c->open = true;
	c->nslot = nslot;
	return 0;
}

/* Ethernet/IPv4/UDP for a stream: the input's addresses where it has them
 * (a raw index), else --src and --dst, whose destination and port step with
 * secondaryid (codifgen's group index) so streams stay apart. */
static int
udp_spec(const struct cc_conv_opts *o, const struct cframe *fr, struct pkt_udp4_spec *sp,
	 char *err, size_t errlen)
{
	const struct codif_hdr *h = fr->h;
	uint32_t port = fr->port != 0 ? fr->port : (uint32_t)o->port + h->secondaryid;

	if (port > 65535) {
		snprintf(err, errlen, "secondaryid %u: port %u + %u is beyond 65535 "
			 "(give a lower --dst port)", h->secondaryid, o->port,
			 h->secondaryid);
		return -ERANGE;
	}
	memset(sp, 0, sizeof(*sp));
	sp->src_ip = fr->src != 0 ? fr->src : o->src;
	sp->src_mac[0] = 0x02;
	sp->src_mac[3] = 0x17;
	sp->src_mac[4] = (uint8_t)(sp->src_ip >> 8);
	sp->src_mac[5] = (uint8_t)sp->src_ip;
	sp->dst_ip = fr->dst != 0 ? fr->dst : o->dst + h->secondaryid;
	if (sp->dst_ip >> 28 == 0xE) {
		pkt_mcast_mac(sp->dst_ip, sp->dst_mac);
	} else {
		sp->dst_mac[0] = 0x02;
		sp->dst_mac[5] = 0x01;
	}
	sp->sport = (uint16_t)port;
	sp->dport = (uint16_t)port;
	sp->ttl = 1;
	sp->ip_id = (uint16_t)fr->index;
	return 0;
}

/* Raw keeps data only: a frame must be what its index rebuilds (its slot's
 * stream, its row's time, its own invalid bit). */
static int
raw_check(const struct cout *c, const struct cframe *fr, uint32_t slot, char *err,
	  size_t errlen)
{
	char name[32], sta[3];
	struct codif_hdr want;
	uint8_t b[CODIF_HDR_LEN];
	unsigned int i;

	if (!same_ids(&c->ri.st[slot].hdr, fr->h)) {
		codif_station_str(fr->h->stationid, sta);
		snprintf(name, sizeof(name), "%s/%u/%u/%u", sta, fr->h->groupid,
			 fr->h->secondaryid, fr->h->threadid);
		snprintf(err, errlen, "frame at offset %" PRIu64 ": stream %s where row %" PRIu64
			 " has slot %u; a raw file needs whole rows in one slot order "
			 "(formats.md)", fr->off, name, c->rows, slot);
		return -1;
	}
	fmt_raw_frame_hdr(&c->ri, slot, c->rows, fr->h->invalid, &want);
	if (want.seconds != fr->h->seconds || want.frame != fr->h->frame) {
		snprintf(err, errlen, "frame at offset %" PRIu64 ": seconds %" PRIu32 " frame %"
			 PRIu32 ", row %" PRIu64 " is at seconds %" PRIu32 " frame %" PRIu32
			 "; a raw file needs rows without holes", fr->off, fr->h->seconds,
			 fr->h->frame, c->rows, want.seconds, want.frame);
		return -1;
	}
	codif_encode(&want, b);
	for (i = 0; i < CODIF_HDR_LEN; i++)
		if (b[i] != fr->codif[i]) {
			snprintf(err, errlen, "frame at offset %" PRIu64 ": header byte %u differs "
				 "from its stream's first header in more than time and the "
				 "invalid bit; raw + index cannot keep it", fr->off, i);
			return -1;
		}
	return 0;
}

/* One frame into the row in progress (begun and ended here). */
static int
cout_put(struct cout *c, const struct cframe *fr, char *err, size_t errlen)
{
	uint8_t l2[PKT_HDRS_LEN + 8];
	struct pkt_udp4_spec sp;
	struct fmt_frame ff;
	int rc;

	memset(&ff, 0, sizeof(ff));
	ff.hdr = fr->codif;
	ff.data = fr->codif + CODIF_HDR_LEN;
	ff.data_bytes = (uint32_t)(fr->len - CODIF_HDR_LEN);
	ff.flags = fr->gap ? FMT_F_GAP : fr->h->invalid ? FMT_F_INVALID : 0;
	if (c->kind == FMT_RAW && raw_check(c, fr, c->k, err, errlen) != 0)
		return -1;
	if (fmt_is_packets(c->kind) && !fr->gap) {
		if (fr->len > CC_PCAP_SNAPLEN - PKT_HDRS_LEN) {
			snprintf(err, errlen, "frame at offset %" PRIu64 ": %zu bytes do not fit "
				 "one UDP datagram", fr->off, fr->len);
			return -1;
		}
		if (udp_spec(c->o, fr, &sp, err, errlen) != 0)
			return -1;
		ff.l2 = l2;
		ff.l2len = pkt_build_udp4(l2, &sp, (uint32_t)fr->len);
		ff.t_ns = codif_frame_time_ns(fr->h);
	}
	rc = c->k == 0 ? fmt_row_begin(&c->s, fmt_row_bytes_max(c->nslot, ff.data_bytes)) : 0;
	if (rc == 0)
		rc = fmt_put(&c->s, &ff);
	if (rc >= 0 && ++c->k == c->nslot) {
		rc = fmt_row_end(&c->s);
		c->k = 0;
		c->rows++;
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", fio_part(&c->s.f), strerror(-rc));
		return -1;
	}
	if (fr->gap)
		c->gaps++;
	else
		c->frames++;
	if (!fr->gap && fr->h->invalid)
		c->invalid++;
	return 0;
}

/* Finish the output: kept (renamed, with its index) when ok. */
static int
cout_close(struct cout *c, bool ok, char *err, size_t errlen)
{
	char e2[ERRLEN];
	int rc;

	if (!c->open)
		return ok ? 0 : -1;
	c->open = false;
	if (ok && c->k != 0) {
		snprintf(err, errlen, "the file ends inside a row (%u of %u frames); raw rows "
			 "must be whole", c->k, c->nslot);
		ok = false;
	}
	rc = fmt_close(&c->s, ok, NULL, ok ? err : e2, ok ? errlen : sizeof(e2));
	return ok && rc == 0 ? 0 : -1;
}

static void
cout_report(const struct cout *c, const char *what)
{
	const char *path = fio_path(&c->s.f);

	if (c->kind == FMT_RAW)
		printf("codifcheck: wrote %s and %s.json (%s%u streams, %" PRIu64 " rows, %" PRIu64
		       " lost written as zeros, %" PRIu64 " invalid)\n", path, path, what,
		       c->nslot, c->rows, c->gaps, c->invalid);
	else if (c->kind == FMT_CODIF)
		printf("codifcheck: wrote %s (%s%" PRIu64 " frames, %" PRIu64 " lost written as "
		       "invalid)\n", path, what, c->frames, c->gaps);
	else
		printf("codifcheck: wrote %s (%s%" PRIu64 " frames; %" PRIu64 " placeholder "
		       "frames of gaps left out)\n", path, what, c->frames, c->gaps);
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

	names_of(c->o, c->f->path, c->f->have_ri ? c->f->ri.ant_name : NULL, prefix, ant);
	str_copy(c->out.ifc.name, sizeof(c->out.ifc.name), ant);
	c->out.ifc.ipv4 = c->f->have_ri && c->f->ri.src != 0 ? c->f->ri.src : c->o->src;
	if (out_name(c->o, prefix, ant, codif_frame_time_ns(h), fmt_name(c->out.kind), path,
		     sizeof(path)) != 0) {
		snprintf(c->err, sizeof(c->err), "output name too long");
		return -1;
	}
	return cout_open(&c->out, path, ri != NULL ? ri->nstream : 1, fb, ri, c->err,
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
	names_of(c->o, c->f->path, NULL, prefix, ant);
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
		if (cout_put(&c->out, &c->held[i], c->err, sizeof(c->err)) != 0)
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
		if (same_ids(&c->held_h[i], fr->h))
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
		if (cout_close(&c->out, rc == 0, c->err, sizeof(c->err)) != 0) {
			rc = -1;
		} else {
			cout_report(&c->out, "");
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
		if (same_ids(&x->ids[i], ev->h))
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
		snprintf(err, errlen, "%s: %s", in, c->err[0] != '\0' ? c->err : strerror(-rc));
		status = -1;
	} else if (input_problems(&f) != CC_EXIT_OK) {
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
		snprintf(err, errlen, "%s", c->err);
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
		return cout_put(&c->out, &fr, c->err, sizeof(c->err));
	}
	if (!c->out.open && seq_open(c, ev->h, ev->len, NULL) != 0)
		return -1;
	c->nframes++;
	return cout_put(&c->out, &fr, c->err, sizeof(c->err));
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
	if (cout_close(&c->out, rc == 0 && c->out.open, c->err, sizeof(c->err)) != 0) {
		fprintf(stderr, "codifcheck: convert: %s\n", c->err[0] != '\0' ? c->err :
			strerror(-rc));
		status = CC_EXIT_PROBLEMS;
	} else {
		cout_report(&c->out, "");
	}
	if (input_problems(&f) != CC_EXIT_OK)
		status = CC_EXIT_PROBLEMS;
	cc_file_free(&f);
	fmt_raw_index_free(&c->out.ri);
	free(c->held);
	free(c->held_h);
	free(c->held_data);
	free(c);
	return status;
}

/* ---- captures: one output per antenna and timeline segment ------------------ */

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
			names_of(c->o, c->in, filter_name(c->o->filter, ao->src), prefix, ant);
		else
			names_of(c->o, c->in, n == 1 ? NULL : ao->name, prefix, ant);
		for (i = 0; i < ao->nu; i++) {
			struct unit *u = &ao->u[i];

			u->out.o = c->o;
			u->out.kind = c->to;
			str_copy(u->out.ifc.name, sizeof(u->out.ifc.name), ant);
			u->out.ifc.ipv4 = ao->src;
			if (out_name(c->o, prefix, ant, codif_clock_time_ns(&u->clk, u->r0),
				     fmt_name(c->to), path, sizeof(path)) != 0) {
				snprintf(c->err, sizeof(c->err), "output name too long");
				return -1;
			}
			if (c->to == FMT_RAW &&
			    unit_index(u, s, a, ai, ant, ao->src, &u->out.ri) != 0) {
				snprintf(c->err, sizeof(c->err), "out of memory");
				return -1;
			}
			if (cout_open(&u->out, path, u->nslot, u->fb,
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
		if (cout_put(&u->out, &fr, c->err, sizeof(c->err)) != 0)
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

static int
convert_capture(const char *in, const struct cc_conv_opts *o, const struct cc_scan_opts *so,
		enum fmt_kind to)
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

			if (cout_close(&u->out, rc == 0, c->err, sizeof(c->err)) != 0 && rc == 0)
				rc = -1;
			else if (rc == 0 && was_open) {
				ipv4_str(ao->src, ip, sizeof(ip));
				if (to == FMT_RAW)
					snprintf(what, sizeof(what), "antenna %s: ", ip);
				else
					snprintf(what, sizeof(what), "antenna %s: %u streams, %"
						 PRIu64 " rows, ", ip, u->nslot,
						 (uint64_t)(u->r1 - u->r0 + 1));
				cout_report(&u->out, what);
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
	if (input_problems(&f1) != CC_EXIT_OK)
		status = CC_EXIT_PROBLEMS;
	cc_file_free(&f1);
	if (f2.scan != NULL)
		cc_file_free(&f2);
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
		return convert_capture(in, o, &so, kind_of(o->to));
	return convert_file(in, o, &so, kind_of(o->to));
}
