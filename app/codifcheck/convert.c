/* SPDX-License-Identifier: BSD-3-Clause */
/* Conversions between capture formats, each written as NAME.part and renamed. */

#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "convert.h"
#include "inspect.h"
#include "names.h"
#include "out.h"
#include "parse.h"
#include "pkt.h"
#include "report.h"

#define ERRLEN (PATH_MAX + 512)
/** Largest Ethernet frame written to a pcap (its snaplen). */
#define CC_PCAP_SNAPLEN 65535

/* Output name: -o, or <outdir>/<prefix>_<antenna>_<UTC>.<ext>. */
static int
out_name(const struct cc_conv_opts *o, const char *prefix, const char *ant,
	 int64_t utc_ns, const char *ext, char *buf, size_t len)
{
	char u[CC_NAME_UTC_LEN];
	int n;

	if (o->output != NULL)
		n = snprintf(buf, len, "%s", o->output);
	else
		n = snprintf(buf, len, "%s/%s_%s_%s.%s", o->outdir, prefix, ant,
			     cc_name_utc(utc_ns, u, sizeof(u)), ext);
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

/* ---- codif -> pcap -------------------------------------------------------- */

struct to_pcap {
	const struct cc_conv_opts *o;
	const char *in;
	struct cc_out out;
	bool open;
	pcap_t *dead;
	pcap_dumper_t *d;
	uint8_t buf[CC_PCAP_SNAPLEN];
	uint64_t written, placeholders;
	char err[ERRLEN];
};

static int
to_pcap_open(struct to_pcap *c, const struct codif_hdr *h)
{
	char prefix[CC_NAME_PART_LEN], ant[CC_NAME_PART_LEN], path[PATH_MAX];
	FILE *f;

	names_of(c->o, c->in, NULL, prefix, ant);
	if (out_name(c->o, prefix, ant, codif_frame_time_ns(h), "pcap", path,
		     sizeof(path)) != 0) {
		snprintf(c->err, sizeof(c->err), "output name too long");
		return -1;
	}
	if (cc_out_open(&c->out, path, c->o->force, c->err, sizeof(c->err)) != 0)
		return -1;
	c->open = true;
	c->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, CC_PCAP_SNAPLEN,
						       PCAP_TSTAMP_PRECISION_NANO);
	f = cc_out_stream(&c->out);
	if (c->dead == NULL || f == NULL ||
	    (c->d = pcap_dump_fopen(c->dead, f)) == NULL) {
		snprintf(c->err, sizeof(c->err), "%s: cannot start a pcap file",
			 c->out.part);
		return -1;
	}
	return 0;
}

/* Ethernet/IPv4/UDP for a stream: the destination and port step with
 * secondaryid (codifgen's group index) so streams stay apart. */
static int
udp_spec(const struct cc_conv_opts *o, const struct codif_hdr *h, uint32_t index,
	 struct pkt_udp4_spec *sp, char *err, size_t errlen)
{
	uint32_t port = (uint32_t)o->port + h->secondaryid;

	if (port > 65535) {
		snprintf(err, errlen, "secondaryid %u: port %u + %u is beyond 65535 "
			 "(give a lower --dst port)", h->secondaryid, o->port,
			 h->secondaryid);
		return -ERANGE;
	}
	memset(sp, 0, sizeof(*sp));
	sp->src_mac[0] = 0x02;
	sp->src_mac[3] = 0x17;
	sp->src_mac[4] = (uint8_t)(o->src >> 8);
	sp->src_mac[5] = (uint8_t)o->src;
	sp->src_ip = o->src;
	sp->dst_ip = o->dst + h->secondaryid;
	if (sp->dst_ip >> 28 == 0xE) {
		pkt_mcast_mac(sp->dst_ip, sp->dst_mac);
	} else {
		sp->dst_mac[0] = 0x02;
		sp->dst_mac[5] = 0x01;
	}
	sp->sport = (uint16_t)port;
	sp->dport = (uint16_t)port;
	sp->ttl = 1;
	sp->ip_id = (uint16_t)index;
	return 0;
}

static int
to_pcap_frame(void *ctx, const struct cc_frame_ev *ev)
{
	struct to_pcap *c = ctx;
	struct pkt_udp4_spec sp;
	struct pcap_pkthdr ph;
	uint32_t hl;
	int64_t t;

	if (ev->filled) {
		c->placeholders++; /* a gap: a pcap writes nothing for it */
		return 0;
	}
	if (!cc_seq_placed(ev->cls))
		return 0;
	if (!c->open && to_pcap_open(c, ev->h) != 0)
		return -1;
	if (ev->len > CC_PCAP_SNAPLEN - PKT_HDRS_LEN) {
		snprintf(c->err, sizeof(c->err), "frame at offset %" PRIu64 ": %zu bytes "
			 "do not fit one UDP datagram", ev->off, ev->len);
		return -1;
	}
	if (udp_spec(c->o, ev->h, (uint32_t)ev->index, &sp, c->err, sizeof(c->err)) != 0)
		return -1;
	hl = pkt_build_udp4(c->buf, &sp, (uint32_t)ev->len);
	memcpy(c->buf + hl, ev->codif, ev->len);
	t = codif_frame_time_ns(ev->h);
	ph.ts.tv_sec = (time_t)(t / 1000000000LL);
	ph.ts.tv_usec = (suseconds_t)(t % 1000000000LL); /* ns: a nanosecond file */
	ph.caplen = ph.len = hl + (uint32_t)ev->len;
	pcap_dump((u_char *)c->d, &ph, c->buf);
	c->written++;
	return 0;
}

static int
to_pcap_close(struct to_pcap *c, bool ok)
{
	FILE *f;
	int rc = 0;

	if (c->d != NULL) {
		f = pcap_dump_file(c->d);
		if (pcap_dump_flush(c->d) != 0 || ferror(f)) {
			snprintf(c->err, sizeof(c->err), "%s: write: %s", c->out.part,
				 strerror(errno));
			ok = false;
		}
		pcap_dump_close(c->d); /* closes the stream */
		c->out.f = NULL;
		c->out.fd = -1;
	}
	if (c->dead != NULL)
		pcap_close(c->dead);
	if (!c->open)
		return ok ? 0 : -1;
	if (!ok)
		cc_out_abort(&c->out);
	else
		rc = cc_out_commit(&c->out, c->err, sizeof(c->err));
	return ok && rc == 0 ? 0 : -1;
}

static int
codif_to_pcap(const char *in, const struct cc_conv_opts *o,
	      const struct cc_scan_opts *so)
{
	struct to_pcap *c = calloc(1, sizeof(*c));
	struct cc_file f;
	int rc, status;

	if (c == NULL)
		return CC_EXIT_PROBLEMS;
	c->o = o;
	c->in = in;
	rc = cc_inspect(&f, in, so, to_pcap_frame, c);
	if (rc == 0 && !c->open)
		snprintf(c->err, sizeof(c->err), "%s: no frames to write", in);
	if (to_pcap_close(c, rc == 0 && c->open) != 0) {
		fprintf(stderr, "codifcheck: convert: %s\n", c->err[0] != '\0' ? c->err :
			strerror(-rc));
		status = CC_EXIT_PROBLEMS;
	} else {
		printf("codifcheck: wrote %s (%" PRIu64 " frames; %" PRIu64
		       " placeholder frames of gaps left out)\n", c->out.path,
		       c->written, c->placeholders);
		status = CC_EXIT_OK;
	}
	if (input_problems(&f) != CC_EXIT_OK)
		status = CC_EXIT_PROBLEMS;
	cc_file_free(&f);
	free(c);
	return status;
}

/* ---- codif -> raw + index ------------------------------------------------- */

struct to_raw {
	const struct cc_conv_opts *o;
	const char *in;
	struct cc_raw_index ri;     /* being built */
	uint32_t cap;               /* ri.st entries allocated */
	bool rows_known;            /* the first row ended: nstream is final */
	uint64_t nframes;
	struct cc_out raw;
	bool open;
	char err[ERRLEN];
};

static bool
same_ids(const struct codif_hdr *a, const struct codif_hdr *b)
{
	return a->stationid == b->stationid && a->groupid == b->groupid &&
	       a->secondaryid == b->secondaryid && a->threadid == b->threadid;
}

static int
to_raw_open(struct to_raw *c, const struct codif_hdr *h)
{
	char prefix[CC_NAME_PART_LEN], ant[CC_NAME_PART_LEN], path[PATH_MAX];

	names_of(c->o, c->in, NULL, prefix, ant);
	snprintf(c->ri.ant_name, sizeof(c->ri.ant_name), "%s", ant);
	c->ri.src = c->o->src;
	c->ri.data_bytes = codif_data_bytes(h);
	c->ri.fpp = codif_frames_per_period(h);
	c->ri.frame_ns = codif_frame_ns(h);
	cc_ri_set_first(&c->ri, h);
	if (out_name(c->o, prefix, ant, codif_frame_time_ns(h), "raw", path,
		     sizeof(path)) != 0) {
		snprintf(c->err, sizeof(c->err), "output name too long");
		return -1;
	}
	if (cc_out_open(&c->raw, path, c->o->force, c->err, sizeof(c->err)) != 0 ||
	    cc_out_stream(&c->raw) == NULL)
		return -1;
	c->open = true;
	return 0;
}

/* In the first row: a new slot, while the frames share the first's time. */
static int
to_raw_slot(struct to_raw *c, const struct cc_frame_ev *ev)
{
	struct cc_ri_stream *s;
	uint32_t i;
	char why[200];

	for (i = 0; i < c->ri.nstream; i++)
		if (same_ids(&c->ri.st[i].hdr, ev->h))
			return 1; /* a repeat: the second row began */
	if (ev->h->seconds != c->ri.first_seconds || ev->h->frame != c->ri.first_frame)
		return 1;
	if (c->ri.nstream == CC_RI_MAX_STREAMS) {
		snprintf(c->err, sizeof(c->err), "more than %d streams in a row",
			 CC_RI_MAX_STREAMS);
		return -1;
	}
	if (c->ri.nstream > 0 &&
	    !codif_params_equal(&c->ri.st[0].hdr, ev->h, why, sizeof(why))) {
		snprintf(c->err, sizeof(c->err), "frame at offset %" PRIu64 ": %s; "
			 "a raw file holds one frame rate", ev->off, why);
		return -1;
	}
	if (c->ri.nstream == c->cap) {
		uint32_t nc = c->cap != 0 ? c->cap * 2 : 16;
		struct cc_ri_stream *v = realloc(c->ri.st, nc * sizeof(*v));

		if (v == NULL) {
			snprintf(c->err, sizeof(c->err), "out of memory");
			return -1;
		}
		c->ri.st = v;
		c->cap = nc;
	}
	if ((uint32_t)c->o->port + ev->h->secondaryid > 65535) {
		snprintf(c->err, sizeof(c->err), "secondaryid %u: port %u + %u is beyond "
			 "65535 (give a lower --dst port)", ev->h->secondaryid,
			 c->o->port, ev->h->secondaryid);
		return -1;
	}
	s = &c->ri.st[c->ri.nstream++];
	memset(s, 0, sizeof(*s));
	s->hdr = *ev->h;
	memcpy(s->raw_hdr, ev->codif, CODIF_HDR_LEN);
	s->dst = c->o->dst + ev->h->secondaryid;
	s->port = (uint16_t)(c->o->port + ev->h->secondaryid);
	return 0;
}

/* Every frame must be what the index will rebuild: its slot's header with
 * this row's time and its own invalid bit. */
static int
to_raw_check(struct to_raw *c, const struct cc_frame_ev *ev, uint32_t slot,
	     uint64_t row)
{
	char name[32], sta[3];
	struct codif_hdr want;
	uint8_t b[CODIF_HDR_LEN];
	unsigned int k;

	if (!same_ids(&c->ri.st[slot].hdr, ev->h)) {
		codif_station_str(ev->h->stationid, sta);
		snprintf(name, sizeof(name), "%s/%u/%u/%u", sta, ev->h->groupid,
			 ev->h->secondaryid, ev->h->threadid);
		snprintf(c->err, sizeof(c->err), "frame at offset %" PRIu64 ": stream %s "
			 "where row %" PRIu64 " has slot %u; a raw file needs whole rows "
			 "in one slot order (formats.md)", ev->off, name, row, slot);
		return -1;
	}
	cc_ri_frame_hdr(&c->ri, slot, row, ev->h->invalid, &want);
	if (want.seconds != ev->h->seconds || want.frame != ev->h->frame) {
		snprintf(c->err, sizeof(c->err), "frame at offset %" PRIu64 ": seconds %"
			 PRIu32 " frame %" PRIu32 ", row %" PRIu64 " is at seconds %" PRIu32
			 " frame %" PRIu32 "; a raw file needs rows without holes",
			 ev->off, ev->h->seconds, ev->h->frame, row, want.seconds,
			 want.frame);
		return -1;
	}
	codif_encode(&want, b);
	for (k = 0; k < CODIF_HDR_LEN; k++)
		if (b[k] != ev->codif[k]) {
			snprintf(c->err, sizeof(c->err), "frame at offset %" PRIu64
				 ": header byte %u differs from its stream's first "
				 "header in more than time and the invalid bit; raw + "
				 "index cannot keep it", ev->off, k);
			return -1;
		}
	return 0;
}

static int
to_raw_frame(void *ctx, const struct cc_frame_ev *ev)
{
	struct to_raw *c = ctx;
	uint64_t row;
	uint32_t slot;
	int rc;

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
	if (c->nframes == 0 && to_raw_open(c, ev->h) != 0)
		return -1;
	if (!c->rows_known) {
		rc = to_raw_slot(c, ev);
		if (rc < 0)
			return -1;
		c->rows_known = rc == 1;
	}
	slot = (uint32_t)(c->nframes % c->ri.nstream);
	row = c->nframes / c->ri.nstream;
	if (c->rows_known && to_raw_check(c, ev, slot, row) != 0)
		return -1;
	if ((ev->filled && cc_ri_runs_add(&c->ri.gaps, CC_RI_MAX_STREAMS, slot, row) != 0) ||
	    (!ev->filled && ev->h->invalid &&
	     cc_ri_runs_add(&c->ri.invalid, CC_RI_MAX_STREAMS, slot, row) != 0)) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	if (fwrite(ev->codif + CODIF_HDR_LEN, 1, ev->len - CODIF_HDR_LEN, c->raw.f) !=
	    ev->len - CODIF_HDR_LEN) {
		snprintf(c->err, sizeof(c->err), "%s: write: %s", c->raw.part,
			 strerror(errno));
		return -1;
	}
	c->nframes++;
	return 0;
}

/* Rows are whole; the index goes beside the raw file, both renamed. */
static int
to_raw_finish(struct to_raw *c)
{
	char path[PATH_MAX + 8];
	struct cc_out idx;
	FILE *f;

	if (c->nframes % c->ri.nstream != 0) {
		snprintf(c->err, sizeof(c->err), "the file ends inside a row (%" PRIu64
			 " of %u frames); raw rows must be whole",
			 c->nframes % c->ri.nstream, c->ri.nstream);
		return -1;
	}
	c->ri.rows = c->nframes / c->ri.nstream;
	if (cc_ri_runs_index(&c->ri.gaps, c->ri.nstream) != 0 ||
	    cc_ri_runs_index(&c->ri.invalid, c->ri.nstream) != 0) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	snprintf(path, sizeof(path), "%s.json", c->raw.path);
	if (cc_out_open(&idx, path, c->o->force, c->err, sizeof(c->err)) != 0)
		return -1;
	f = cc_out_stream(&idx);
	if (f == NULL || cc_ri_write(f, &c->ri) != 0) {
		snprintf(c->err, sizeof(c->err), "%s: write failed", idx.part);
		cc_out_abort(&idx);
		return -1;
	}
	if (cc_out_commit(&c->raw, c->err, sizeof(c->err)) != 0) {
		cc_out_abort(&idx);
		return -1;
	}
	c->open = false;
	return cc_out_commit(&idx, c->err, sizeof(c->err)) == 0 ? 0 : -1;
}

static int
codif_to_raw(const char *in, const struct cc_conv_opts *o,
	     const struct cc_scan_opts *so)
{
	struct to_raw *c = calloc(1, sizeof(*c));
	struct cc_file f;
	int rc, status = CC_EXIT_OK;

	if (c == NULL)
		return CC_EXIT_PROBLEMS;
	c->o = o;
	c->in = in;
	cc_ri_init(&c->ri);
	rc = cc_inspect(&f, in, so, to_raw_frame, c);
	if (rc == 0 && c->nframes == 0)
		snprintf(c->err, sizeof(c->err), "%s: no frames to write", in);
	if (rc != 0 || c->nframes == 0 || to_raw_finish(c) != 0) {
		if (c->open)
			cc_out_abort(&c->raw);
		fprintf(stderr, "codifcheck: convert: %s\n", c->err[0] != '\0' ? c->err :
			strerror(-rc));
		status = CC_EXIT_PROBLEMS;
	} else {
		printf("codifcheck: wrote %s and %s.json (%u streams, %" PRIu64
		       " rows, %zu gap runs, %zu invalid runs)\n", c->raw.path,
		       c->raw.path, c->ri.nstream, c->ri.rows, c->ri.gaps.n,
		       c->ri.invalid.n);
	}
	if (input_problems(&f) != CC_EXIT_OK)
		status = CC_EXIT_PROBLEMS;
	cc_file_free(&f);
	cc_ri_free(&c->ri);
	free(c);
	return status;
}

/* ---- raw + index -> codif ------------------------------------------------- */

struct to_codif {
	const struct cc_conv_opts *o;
	const struct cc_file *f;    /* its index is parsed before the first frame */
	struct cc_out out;
	bool open;
	uint64_t written;
	char err[ERRLEN];
};

static int
raw_to_codif_frame(void *ctx, const struct cc_frame_ev *ev)
{
	struct to_codif *c = ctx;

	if (!c->open) {
		char prefix[CC_NAME_PART_LEN], ant[CC_NAME_PART_LEN], path[PATH_MAX];

		names_of(c->o, c->f->path, c->f->ri.ant_name, prefix, ant);
		if (out_name(c->o, prefix, ant, codif_frame_time_ns(ev->h), "codif",
			     path, sizeof(path)) != 0) {
			snprintf(c->err, sizeof(c->err), "output name too long");
			return -1;
		}
		if (cc_out_open(&c->out, path, c->o->force, c->err, sizeof(c->err)) != 0 ||
		    cc_out_stream(&c->out) == NULL)
			return -1;
		c->open = true;
	}
	if (fwrite(ev->codif, 1, ev->len, c->out.f) != ev->len) {
		snprintf(c->err, sizeof(c->err), "%s: write: %s", c->out.part,
			 strerror(errno));
		return -1;
	}
	c->written++;
	return 0;
}

static int
raw_to_codif(const char *in, const struct cc_conv_opts *o,
	     const struct cc_scan_opts *so)
{
	struct to_codif *c = calloc(1, sizeof(*c));
	struct cc_file f;
	int rc, status = CC_EXIT_OK;

	if (c == NULL)
		return CC_EXIT_PROBLEMS;
	c->o = o;
	c->f = &f;
	rc = cc_inspect(&f, in, so, raw_to_codif_frame, c);
	if (rc == 0 && !c->open)
		snprintf(c->err, sizeof(c->err), "%s: no frames to write", in);
	if (rc != 0 || !c->open || cc_out_commit(&c->out, c->err, sizeof(c->err)) != 0) {
		if (c->open && rc != 0)
			cc_out_abort(&c->out);
		fprintf(stderr, "codifcheck: convert: %s\n", c->err[0] != '\0' ? c->err :
			strerror(-rc));
		status = CC_EXIT_PROBLEMS;
	} else {
		printf("codifcheck: wrote %s (%" PRIu64 " frames)\n", c->out.path,
		       c->written);
	}
	if (input_problems(&f) != CC_EXIT_OK)
		status = CC_EXIT_PROBLEMS;
	cc_file_free(&f);
	free(c);
	return status;
}

/* ---- pcap -> codif (one file per antenna and timeline segment) ------------ */

#define UNIT_PARAMS 8

/* A stream's headers in a unit: its first, and each new set of parameters
 * from the frame index where it began (placeholders take the one in force). */
struct unit_ref {
	unsigned int n;
	int64_t from[UNIT_PARAMS];
	struct codif_hdr h[UNIT_PARAMS];
};

/* One output file: an antenna's rows over one segment of its timeline,
 * rows r0..r1 (frame indices on clk), each lib/acct stream k at slot
 * slot_of[k]. A gap longer than --max-gap is a resync, so a unit never
 * holds more placeholders than its data spans. */
struct unit {
	uint32_t tseg;
	struct codif_clock clk;
	int64_t r0, r1;
	bool present[ACCT_MAX_STREAMS];
	int slot_of[ACCT_MAX_STREAMS];
	struct unit_ref ref[ACCT_MAX_STREAMS];
	unsigned int nslot;
	uint64_t fb;                 /* frame bytes: 64 + data */
	uint64_t *have;              /* pass 2: rows x slots written */
	struct cc_out out;
	bool open;
	uint64_t written, placeholders;
};

struct ant_out {
	bool used;
	uint32_t src;
	char name[CC_NAME_PART_LEN];
	struct unit *u;
	unsigned int nu, capu;
};

struct to_codifs {
	const struct cc_conv_opts *o;
	const char *in;
	const struct cc_scan *s1;    /* pass 1's scan, while it runs */
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
	struct to_codifs *c = ctx;
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
		u->r0 = u->r1 = ev->index;
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

/* Slots within one unit: by destination, port and ids. */
static int
plan_units(struct to_codifs *c, const struct cc_scan *s, unsigned int a)
{
	struct ant_out *ao = &c->ant[a];
	unsigned int n = s->acct->ant[a].nstream, k, i, m;

	for (i = 0; i < ao->nu; i++) {
		struct unit *u = &ao->u[i];
		struct cc_stream *v[ACCT_MAX_STREAMS];
		uint64_t bits;

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
		}
		u->nslot = m;
		bits = (uint64_t)(u->r1 - u->r0 + 1) * m;
		u->have = calloc((size_t)((bits + 63) / 64), sizeof(uint64_t));
		if (u->have == NULL) {
			snprintf(c->err, sizeof(c->err), "out of memory for %" PRIu64 " rows",
				 (uint64_t)(u->r1 - u->r0 + 1));
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

/* Antenna names ant<i>, i by source address; output files opened. */
static int
plan_outputs(struct to_codifs *c, const struct cc_scan *s)
{
	const struct acct_layout *l = acct_layout_of(s->acct);
	uint32_t ips[ACCT_MAX_ANTENNAS];
	unsigned int a, i, n = 0, nfiles = 0;
	char prefix[CC_NAME_PART_LEN], ant[CC_NAME_PART_LEN], path[PATH_MAX];

	for (a = 0; a < l->nant; a++)
		if (c->ant[a].used) {
			ips[n++] = c->ant[a].src;
			nfiles += c->ant[a].nu;
		}
	if (n == 0) {
		snprintf(c->err, sizeof(c->err), "%s: no CODIF frames from any antenna",
			 c->in);
		return -1;
	}
	if (nfiles > 1 && c->o->output != NULL) {
		snprintf(c->err, sizeof(c->err), "%s: %u antennas, %u outputs (a resync or "
			 "new parameters start a file): --output names one (use --outdir)",
			 c->in, n, nfiles);
		return -1;
	}
	if (n > 1 && c->o->antenna != NULL) {
		snprintf(c->err, sizeof(c->err), "%s: %u antennas: --antenna needs a "
			 "capture of one antenna", c->in, n);
		return -1;
	}
	qsort(ips, n, sizeof(ips[0]), ip_cmp);
	for (a = 0; a < l->nant; a++) {
		struct ant_out *ao = &c->ant[a];

		if (!ao->used)
			continue;
		for (i = 0; ips[i] != ao->src; i++)
			;
		snprintf(ao->name, sizeof(ao->name), "ant%u", i);
		names_of(c->o, c->in, ao->name, prefix, ant);
		for (i = 0; i < ao->nu; i++) {
			struct unit *u = &ao->u[i];

			if (out_name(c->o, prefix, ant, codif_clock_time_ns(&u->clk, u->r0),
				     "codif", path, sizeof(path)) != 0) {
				snprintf(c->err, sizeof(c->err), "output name too long");
				return -1;
			}
			if (cc_out_open(&u->out, path, c->o->force, c->err, sizeof(c->err)) != 0)
				return -1;
			u->open = true;
		}
	}
	return 0;
}

static uint64_t
slot_offset(const struct unit *u, unsigned int k, int64_t index)
{
	uint64_t row = (uint64_t)(index - u->r0);

	return (row * u->nslot + (uint64_t)u->slot_of[k]) * u->fb;
}

/* Pass 2: every frame to its unit's slot (arrival order is not row order). */
static int
to_codifs_frame(void *ctx, const struct cc_frame_ev *ev)
{
	struct to_codifs *c = ctx;
	struct unit *u = unit_of(&c->ant[ev->ant], ev->tseg);
	uint64_t bit;

	if (u == NULL || u->slot_of[ev->stream] < 0 || ev->index < u->r0 || ev->index > u->r1) {
		snprintf(c->err, sizeof(c->err), "internal: frame index %" PRId64 " of "
			 "segment %u not planned", ev->index, ev->tseg);
		return -1;
	}
	if (cc_out_pwrite(&u->out, ev->codif, ev->len,
			  slot_offset(u, (unsigned int)ev->stream, ev->index),
			  c->err, sizeof(c->err)) != 0)
		return -1;
	bit = (uint64_t)(ev->index - u->r0) * u->nslot + (uint64_t)u->slot_of[ev->stream];
	u->have[bit / 64] |= 1ULL << (bit % 64);
	u->written++;
	return 0;
}

/* Frames that never arrived: the stream's header at their time, invalid,
 * zero data (formats.md). */
static int
fill_unit(struct to_codifs *c, struct unit *u, unsigned int nstream)
{
	uint8_t *buf = calloc(1, u->fb);
	unsigned int k;
	int64_t n;
	int rc = 0;

	if (buf == NULL)
		return -1;
	for (k = 0; k < nstream && rc == 0; k++) {
		if (u->slot_of[k] < 0)
			continue;
		for (n = u->r0; n <= u->r1 && rc == 0; n++) {
			uint64_t bit = (uint64_t)(n - u->r0) * u->nslot + (uint64_t)u->slot_of[k];
			struct codif_hdr h;

			if (u->have[bit / 64] >> (bit % 64) & 1)
				continue;
			h = *unit_hdr(u, k, n);
			codif_clock_hdr_time(&u->clk, n, &h.seconds, &h.frame);
			h.invalid = true;
			codif_encode(&h, buf);
			rc = cc_out_pwrite(&u->out, buf, u->fb, slot_offset(u, k, n), c->err,
					   sizeof(c->err));
			u->placeholders++;
		}
	}
	free(buf);
	if (rc == 0 && u->written + u->placeholders != (uint64_t)(u->r1 - u->r0 + 1) * u->nslot) {
		snprintf(c->err, sizeof(c->err), "internal: %" PRIu64 " frames written "
			 "+ %" PRIu64 " placeholders, expected %" PRIu64 " rows x %u",
			 u->written, u->placeholders, (uint64_t)(u->r1 - u->r0 + 1), u->nslot);
		rc = -1;
	}
	return rc;
}

static int
pcap_to_codif(const char *in, const struct cc_conv_opts *o,
	      const struct cc_scan_opts *so)
{
	struct to_codifs *c = calloc(1, sizeof(*c));
	struct cc_file f1, f2;
	unsigned int a, i, nant = 0;
	int rc, status = CC_EXIT_OK;
	char ip[16];

	if (c == NULL)
		return CC_EXIT_PROBLEMS;
	c->o = o;
	c->in = in;
	/* pass 1: each antenna's segments, their streams and row ranges */
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
	/* pass 2: every frame to its slot, then the gaps as placeholders */
	memset(&f2, 0, sizeof(f2));
	if (rc == 0)
		rc = cc_inspect(&f2, in, so, to_codifs_frame, c);
	for (a = 0; a < nant && rc == 0; a++)
		for (i = 0; i < c->ant[a].nu && rc == 0; i++)
			rc = fill_unit(c, &c->ant[a].u[i], f2.scan->acct->ant[a].nstream);
	for (a = 0; a < ACCT_MAX_ANTENNAS; a++) {
		struct ant_out *ao = &c->ant[a];

		for (i = 0; i < ao->nu; i++) {
			struct unit *u = &ao->u[i];

			if (u->open && rc != 0)
				cc_out_abort(&u->out);
			else if (u->open && cc_out_commit(&u->out, c->err, sizeof(c->err)) != 0)
				rc = -1;
			else if (u->open)
				printf("codifcheck: wrote %s (antenna %s: %u streams, %" PRId64
				       " rows, %" PRIu64 " frames, %" PRIu64 " lost written as "
				       "invalid)\n", u->out.path, ipv4_str(ao->src, ip, sizeof(ip)),
				       u->nslot, u->r1 - u->r0 + 1, u->written, u->placeholders);
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
		if (o->to == CC_FMT_CODIF)
			return pcap_to_codif(in, o, &so);
		break;
	case CC_FMT_CODIF:
		if (o->to == CC_FMT_PCAP)
			return codif_to_pcap(in, o, &so);
		if (o->to == CC_FMT_RAW)
			return codif_to_raw(in, o, &so);
		break;
	case CC_FMT_RAW:
	case CC_FMT_RAW_INDEX:
		if (o->to == CC_FMT_CODIF)
			return raw_to_codif(in, o, &so);
		break;
	default:
		fprintf(stderr, "codifcheck: convert: %s: %s\n", in, d.desc);
		return CC_EXIT_PROBLEMS;
	}
	fprintf(stderr, "codifcheck: convert: %s: %s to %s is not a conversion "
		"(pcap -> codif, codif -> pcap, codif -> raw, raw -> codif)\n", in,
		cc_fmt_name(d.fmt), cc_fmt_name(o->to));
	return CC_EXIT_PROBLEMS;
}
