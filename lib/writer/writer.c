/* SPDX-License-Identifier: BSD-3-Clause */
/* Writers over antenna buffers: rows (frames, gaps, placeholders) handed to
 * a format sink, files opened, rotated and named, counts. */

#define _GNU_SOURCE /* O_DIRECT, O_TMPFILE */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "err.h"
#include "fmt_codif.h"
#include "fmt_name.h"
#include "fmt_raw.h"
#include "parse.h"
#include "writer.h"

int
wr_file_name(char *out, size_t len, const struct wr_opts *o, const char *antenna,
	     int64_t t_ns, const char *ext)
{
	return fmt_file_name(out, len, o->dir, o->prefix, antenna, t_ns, ext);
}

/* Bytes a row of b can take in any format (fmt_row_bytes_max). */
static size_t
row_bytes_max(const struct antbuf *b)
{
	return fmt_row_bytes_max(b->g.nslots, b->g.data_bytes);
}

/* Why the rows of antenna s cannot be written straight from its ring (raw,
 * O_DIRECT, io_uring: fmt_by_ref), as far as is known before a file:
 * NULL when they can. */
static const char *
copy_why_static(const struct wr_writer *w, const struct wr_src *s)
{
	const struct antbuf *b = s->b;

	if (w->o.format != WR_RAW)
		return "not raw";
	if (!w->o.direct)
		return "direct=no";
	if (w->o.sync)
		return "io=sync";
	if (b->payload_indexed)
		return "payload by reference (--zero-copy)";
	if (b->payload_external || s->payload != NULL)
		return "payload outside the ring's memory (GPU)";
	if (b->g.data_bytes % FIO_ALIGN != 0)
		return "frame data not a multiple of 4096 bytes";
	if ((uintptr_t)antbuf_payload(b, NULL, 0, 0) % FIO_ALIGN != 0)
		return "the ring's payload not 4096-byte aligned";
	return NULL;
}

/* Whether dir's filesystem takes O_DIRECT: a nameless file (O_TMPFILE),
 * nothing left behind; NULL yes or cannot tell, else why not. */
static const char *
dir_direct_why(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);

	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	return errno == EINVAL ? "the directory's filesystem refuses O_DIRECT (tmpfs?)" : NULL;
}

const char *
wr_ring_direct(const struct wr_writer *w, char *buf, size_t len)
{
	const char *why = w->copy_why;
	unsigned int i;

	if (w->o.format != WR_RAW)
		return NULL;
	if (w->ring_files + w->copy_files == 0) /* no file yet: what the antennas allow */
		for (i = 0; i < w->n && why == NULL; i++)
			if (w->src[i].on)
				why = w->src[i].copy_why;
	if (why == NULL)
		snprintf(buf, len, "raw: rows written from the ring (no copy)");
	else if (w->ring_files == 0)
		snprintf(buf, len, "raw: rows copied through staging: %s", why);
	else
		snprintf(buf, len, "raw: rows written from the ring (no copy) in %" PRIu64 " files, "
			 "copied through staging in %" PRIu64 ": %s", w->ring_files, w->copy_files, why);
	return buf;
}

int
wr_init(struct wr_writer *w, const struct wr_opts *o, const struct antbuf *const *bufs,
	uint8_t *const *payloads, unsigned int n, uint64_t ant_mask, char *err, size_t errlen)
{
	unsigned int i;
	int e;

	memset(w, 0, sizeof(*w));
	w->all_max_t = INT64_MIN;
	w->o = *o;
	if (n > WR_MAX_ANT) {
		return err_set(err, errlen, -EINVAL, "%u antennas, at most %d", n, WR_MAX_ANT);
	}
	if (access(o->dir, W_OK) != 0) {
		e = errno;
		return err_set(err, errlen, -e, "output directory '%s': %s", o->dir, strerror(e));
	}
	e = wr_budget_check(o, err, errlen);
	if (e != 0)
		return e;
	w->n = n;
	for (i = 0; i < n; i++) {
		/* staging holds at least two whole rows (plus O_DIRECT slack) */
		size_t need = 2 * row_bytes_max(bufs[i]) + 2 * FIO_ALIGN;

		need = (need + FIO_ALIGN - 1) / FIO_ALIGN * FIO_ALIGN;
		if (((ant_mask >> i) & 1) && w->o.bufsize < need)
			w->o.bufsize = need;
	}
	for (i = 0; i < n; i++) {
		w->src[i].b = bufs[i];
		w->src[i].payload = payloads != NULL ? payloads[i] : NULL;
		w->src[i].on = (ant_mask >> i) & 1;
		w->src[i].win.first_ns = INT64_MIN;
		w->src[i].win.begin_ns = INT64_MIN;
		w->src[i].win.end_ns = INT64_MIN;
		antbuf_cursor_init(bufs[i], &w->src[i].cur, o->from_oldest);
		w->src[i].copy_why = copy_why_static(w, &w->src[i]);
	}
	if (o->format == WR_RAW && o->direct && !o->sync) {
		const char *why = dir_direct_why(o->dir);

		for (i = 0; why != NULL && i < n; i++)
			if (w->src[i].copy_why == NULL)
				w->src[i].copy_why = why;
	}
	return 0;
}

static void
fail(struct wr_writer *w, int rc, const char *what)
{
	if (w->error == 0) {
		w->error = rc < 0 ? -rc : rc;
		str_copy(w->err, sizeof(w->err), what);
	}
}

/* ---- files -------------------------------------------------------------- */

/* Slots whose stream has started, in v's run, at v's frame. */
static uint64_t
started_mask(const struct antbuf *b, const struct antbuf_view *v)
{
	uint64_t m = 0;
	unsigned int k;

	for (k = 0; k < b->g.nslots; k++)
		if (antbuf_slot_started(v->run, k, v->index))
			m |= 1ULL << k;
	return m;
}

/* Keep the headers of the slots in mask (from run) that out lacks: its
 * placeholders are made from them. */
static void
keep_refs(struct wr_out *out, const struct antbuf_run *run, uint64_t mask)
{
	uint64_t add = mask & ~out->ref_mask;

	while (add != 0) {
		unsigned int k = (unsigned int)__builtin_ctzll(add);

		memcpy(out->ref[k], run->ref[k], CODIF_HDR_LEN);
		add &= add - 1;
	}
	out->ref_mask |= mask;
}

/* The data bytes of out's frames: its first stream's, as its run's first
 * header says (a slot may hold frames smaller than the ring's; new sizes
 * start new runs, hence new files). */
static uint32_t
out_data_bytes(const struct antbuf *b, const struct wr_out *out)
{
	if (out->mask == 0)
		return b->g.data_bytes;
	return antbuf_hdr_data_bytes(out->ref[__builtin_ctzll(out->mask)]);
}

/* What a raw file's index says of its antenna and streams (slots: out's
 * mask, in order, with their headers), and of its rows' time. */
static int
raw_index_of(struct fmt_raw_index *ri, const struct antbuf *b, const struct wr_out *out)
{
	unsigned int k, i = 0;

	fmt_raw_index_init(ri);
	if (fmt_raw_index_streams(ri, (uint32_t)__builtin_popcountll(out->mask)) != 0)
		return -ENOMEM;
	ri->ant_index = b->index;
	str_copy(ri->ant_name, sizeof(ri->ant_name), b->name);
	ri->src = b->src_ip;
	ri->data_bytes = out_data_bytes(b, out);
	fmt_raw_index_set_time(ri, &out->clk, out->first_index);
	for (k = 0; k < b->g.nslots; k++) {
		if (!(out->mask >> k & 1))
			continue;
		ri->st[i].dst = b->slot[k].dst_ip;
		ri->st[i].port = b->slot[k].dport;
		memcpy(ri->st[i].raw_hdr, out->ref[k], CODIF_HDR_LEN);
		i++;
	}
	return 0;
}

/* The file of out (its fields set) at data time t: named and opened. */
static int
open_file(struct wr_writer *w, const struct antbuf *b, struct wr_out *out, int64_t t)
{
	struct fmt_opts fo = {
		.bufsize = w->o.bufsize,
		.fio_flags = (w->o.direct ? FIO_DIRECT : 0) | (w->o.sync ? FIO_SYNC : 0),
		.snaplen = w->o.snaplen,
	};
	struct fmt_raw_index ri;
	struct fmt_iface ifs[WR_MAX_ANT];
	char path[PATH_MAX], err[PATH_MAX + 128], dir[PATH_MAX], note[128];
	const char *scan;
	unsigned int i;
	int rc;

	/* a scan's files go to its own directory */
	rc = wr_gate_dir(w, dir, sizeof(dir), &out->scan);
	if (rc != 0) {
		fail(w, rc, "a scan's directory");
		return rc;
	}
	if (w->o.format == WR_PCAPNG) {
		/* an interface per antenna: its own, or (all=yes) the writer's,
		 * in source order (put_row's iface) */
		memset(ifs, 0, sizeof(ifs));
		fo.ifaces = ifs;
		fo.nifaces = b != NULL ? 1 : w->n;
		for (i = 0; i < fo.nifaces; i++) {
			const struct antbuf *a = b != NULL ? b : w->src[i].b;

			str_copy(ifs[i].name, sizeof(ifs[i].name), a->name);
			ifs[i].ipv4 = a->src_ip;
		}
		fo.app = "dpdk-ibvcap " IBVCAP_VERSION;
		scan = wr_gate_scan(w);
		if (scan != NULL) {
			snprintf(note, sizeof(note), "scan %s", scan);
			fo.comment = note;
		}
	}
	rc = fmt_file_name(path, sizeof(path), dir, w->o.prefix, b != NULL ? b->name : "all", t,
			   wr_format_name(w->o.format));
	if (rc != 0) {
		fail(w, rc, "output file name too long");
		return rc;
	}
	fmt_raw_index_init(&ri);
	if (w->o.format == WR_RAW && b != NULL) {
		rc = raw_index_of(&ri, b, out);
		if (rc != 0) {
			fail(w, rc, "out of memory for a raw index");
			return rc;
		}
	}
	rc = fmt_open(&out->s, (enum fmt_kind)w->o.format, path, &fo,
		      w->o.format == WR_RAW ? &ri : NULL, err, sizeof(err));
	fmt_raw_index_free(&ri);
	if (rc != 0) {
		fail(w, rc, err);
		return rc;
	}
	fio_track(&out->s.f, &w->depth);
	out->open = true;
	out->t0_ns = t;
	return 0;
}

/* A raw file of antenna s written from its ring where it can be (no
 * copy: fmt_by_ref), else through staging; each file counted either way. */
static void
start_ref(struct wr_writer *w, struct wr_src *s, struct wr_out *out)
{
	const char *why = s->copy_why;

	if (w->o.format != WR_RAW)
		return;
	if (why == NULL && out_data_bytes(s->b, out) % FIO_ALIGN != 0)
		why = "frame data not a multiple of 4096 bytes";
	if (why == NULL) {
		/* writes of half the staging buffer, as staged ones, but never
		 * more than an eighth of the ring: rows must stay put until
		 * their write is over */
		size_t batch = w->o.bufsize / 2, ring = antbuf_payload_size(&s->b->g) / 8;

		if (fmt_by_ref(&out->s, batch < ring ? batch : ring, &why) == 0) {
			w->ring_files++;
			return;
		}
	}
	w->copy_files++;
	w->copy_why = why;
}

/* One open file into wr_io's tally. */
static void
io_file(const struct fio_file *f, unsigned int *uring, unsigned int *sync, const char **why)
{
	const char *y = fio_sync_why(f);

	if (y == NULL) {
		(*uring)++;
	} else {
		(*sync)++;
		if (*why == NULL)
			*why = y;
	}
}

void
wr_io(struct wr_writer *w, struct wr_io *io)
{
	unsigned int i, uring = 0, sync = 0;
	const char *why = NULL;

	for (i = 0; i < w->n; i++)
		if (w->src[i].on && w->src[i].out.open)
			io_file(&w->src[i].out.s.f, &uring, &sync, &why);
	if (w->all.open)
		io_file(&w->all.s.f, &uring, &sync, &why);
	if (uring + sync > 0) {
		w->io_seen = true;
		w->io_uring = uring > 0;
		w->io_limit = uring * FIO_INFLIGHT;
		snprintf(w->io_why, sizeof(w->io_why), "%s", uring > 0 ? "" : why);
	} else if (!w->io_seen) {
		/* no file yet: what its options and this process say */
		why = w->o.sync ? "io=sync" : !w->o.direct ? "direct=no" : fio_sync_reason();
		w->io_uring = why == NULL;
		w->io_limit = 0;
		snprintf(w->io_why, sizeof(w->io_why), "%s", why != NULL ? why : "");
	}
	io->inflight = w->depth.now;
	io->peak = w->depth.peak;
	io->limit = w->io_limit;
	io->uring = w->io_uring;
	io->why = w->io_uring ? NULL : w->io_why;
}

/* A new file for antenna s from view v, or (s NULL: all=yes) for the
 * merged rows from data time t_all. */
static int
open_out(struct wr_writer *w, struct wr_src *s, struct wr_out *out, const struct antbuf_view *v,
	 int64_t t_all)
{
	const struct antbuf *b = s != NULL ? s->b : NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (b == NULL)
		return open_file(w, NULL, out, t_all);
	out->first_index = v->index;
	out->last_index = v->index - 1;
	out->last_row = v->row - 1;
	out->clk = v->run->clk;
	out->runno = v->runno;
	out->row_mask = started_mask(b, v);
	if (w->o.format == WR_RAW)
		out->mask = out->row_mask;
	keep_refs(out, v->run, out->row_mask);
	rc = open_file(w, b, out, antbuf_index_time_ns(v->run, v->index));
	if (rc == 0)
		start_ref(w, s, out);
	return rc;
}

/* What the files hold now: the closed ones' and the open ones' (written
 * out; what is staged is not counted until it is in the file). */
static void
tally(struct wr_writer *w)
{
	struct fmt_tally t = w->closed;
	unsigned int i;

	for (i = 0; i <= w->n; i++) {
		const struct wr_out *out = i < w->n ? &w->src[i].out : &w->all;
		const struct fmt_tally *d = fmt_disk(&out->s);

		if (!out->open)
			continue;
		t.frames += d->frames;
		t.gaps += d->gaps;
		t.overrun += d->overrun;
		t.bytes += d->bytes;
	}
	w->st.written = t.frames;
	w->st.placeholders = t.gaps;
	w->st.overrun_placeholders = t.overrun;
	w->st.bytes = t.bytes;
	w->st.cut = w->closed_cut;
}

/* The antenna out belongs to (NULL: all=yes). */
static struct wr_src *
src_of(struct wr_writer *w, struct wr_out *out)
{
	unsigned int i;

	for (i = 0; i < w->n; i++)
		if (out == &w->src[i].out)
			return &w->src[i];
	return NULL;
}

/* A ring row written from the ring: checked when its write is over. */
static int
inflight_push(struct wr_out *out, const struct antbuf_view *v, uint32_t valid)
{
	if (out->qh > 0 && out->qh == out->qn)
		out->qh = out->qn = 0;
	if (out->qn == out->qcap) {
		size_t nc = out->qcap ? out->qcap * 2 : 64;
		struct wr_inflight *q;

		if (out->qh > 0) {
			memmove(out->q, out->q + out->qh, (out->qn - out->qh) * sizeof(*q));
			out->qn -= out->qh;
			out->qh = 0;
		} else {
			q = realloc(out->q, nc * sizeof(*q));
			if (q == NULL)
				return -ENOMEM;
			out->q = q;
			out->qcap = nc;
		}
	}
	out->q[out->qn++] = (struct wr_inflight){ .v = *v, .frow = out->s.rows, .valid = valid };
	return 0;
}

/* Rows of out written from the ring whose writes are over (all: after
 * waiting for every write): each checked as antbuf_commit checks a copied
 * row. One the producer overwrote while it was written becomes what the
 * copy path writes for a torn row: zeros, an overrun row, its frames
 * counted lost. Only then do its frames count as written. */
static int
confirm_rows(struct wr_writer *w, struct wr_src *s, struct wr_out *out, bool all)
{
	uint64_t row;
	bool written;
	int rc = 0, r;

	if (!out->open || !out->s.ref)
		return 0;
	if (all)
		fmt_wait(&out->s);
	else
		fio_settle(&out->s.f);
	while (fmt_ref_oldest(&out->s, &row, &written) && (written || all)) {
		bool intact = true;

		/* rows that never reached the file's queue (a failed row) */
		while (out->qh < out->qn && out->q[out->qh].frow < row)
			out->qh++;
		if (out->qh < out->qn && out->q[out->qh].frow == row) {
			const struct wr_inflight *e = &out->q[out->qh++];

			if (w->test_before_check != NULL)
				w->test_before_check(w->test_ctx, e->v.row);
			intact = antbuf_intact(s->b, &e->v);
			if (!intact) {
				antbuf_lose(&s->cur, &e->v);
				w->st.torn_rows++;
				w->st.rows--;
				w->st.taken -= e->valid;
				w->done = w->o.count && w->st.taken >= w->o.count;
			}
		}
		r = fmt_row_confirm(&out->s, intact);
		if (r != 0 && rc == 0)
			rc = r;
	}
	/* a write that failed (a full disk) ends the file now, as a failed
	 * staged write does at its flush, not at the next row */
	if (rc == 0 && !all && fio_error(&out->s.f) != 0)
		rc = -fio_error(&out->s.f);
	return rc;
}

static int
close_out(struct wr_writer *w, struct wr_out *out)
{
	char err[PATH_MAX + 200];
	const struct fmt_tally *d, *c;
	bool kept;
	int rc;

	if (!out->open)
		return 0;
	if (out->s.ref)
		confirm_rows(w, src_of(w, out), out, true);
	free(out->q);
	out->q = NULL;
	out->qh = out->qn = out->qcap = 0;
	out->open = false;
	/* a file that got no row (its first torn while copied: the writer
	 * behind the ring) is not kept: a file holds what it names */
	rc = fmt_close(&out->s, out->s.rows > 0, &kept, err, sizeof(err));
	if (rc != 0)
		fail(w, rc, err);
	d = fmt_disk(&out->s);
	c = fmt_cut(&out->s);
	w->closed.frames += d->frames;
	w->closed.gaps += d->gaps;
	w->closed.overrun += d->overrun;
	w->closed.bytes += d->bytes;
	w->closed_cut += c->frames;
	if (kept) {
		w->st.files++;
		str_copy(w->last_file, sizeof(w->last_file), fio_path(&out->s.f));
		wr_budget_file_done(w, fio_path(&out->s.f));
		if (w->o.file_done != NULL)
			w->o.file_done(w->o.file_ctx, w->last_file, out == &w->all ? -1 :
				       (int)(((const char *)out - (const char *)w->src) /
					     (ptrdiff_t)sizeof(w->src[0])), d);
	}
	tally(w);
	if (out->scan != WR_ROW_FREE) {
		unsigned int a = WR_MAX_ANT, i;
		int r;

		for (i = 0; i < w->n; i++)
			if (out == &w->src[i].out)
				a = i;
		r = wr_gate_closed(w, a, out->scan, d->frames, d->gaps, d->overrun, c->frames,
				   kept);
		if (r != 0 && rc == 0) {
			fail(w, r, "a scan's index");
			rc = r;
		}
	}
	return rc;
}

/* ---- rows --------------------------------------------------------------- */

/* Which slots a row of out holds: a raw file's fixed ones, else every
 * stream started by then (its frame, or a gap). */
static inline bool
in_row(const struct wr_out *out, unsigned int k, uint8_t flags)
{
	return out->mask != 0 ? (out->mask >> k & 1) != 0 :
				(flags & (ANTBUF_F_VALID | ANTBUF_F_GAP)) != 0;
}

/* A ring row's frames to the sink: as received, or (never arrived) its
 * stream's placeholder. *mask: the slots written, *valid: frames as
 * received. */
static int
put_row(struct wr_src *s, struct wr_out *out, const struct antbuf_view *v, uint32_t iface,
	uint64_t *mask, unsigned int *valid)
{
	const struct antbuf *b = s->b;
	uint8_t ph[CODIF_HDR_LEN];
	struct fmt_frame fr;
	unsigned int k;
	int rc;

	*mask = 0;
	*valid = 0;
	memset(&fr, 0, sizeof(fr));
	fr.data_bytes = b->g.data_bytes;
	fr.iface = iface;
	for (k = 0; k < b->g.nslots; k++) {
		const struct antbuf_meta *m = antbuf_metap(b, v->pos, k);

		if (!in_row(out, k, m->flags))
			continue; /* the stream had not started yet */
		if (m->flags & ANTBUF_F_VALID) {
			fr.hdr = antbuf_meta_codif(m);
			fr.data = antbuf_payload_of(b, s->payload, v->pos, k);
			fr.l2 = antbuf_meta_l2(m);
			fr.l2len = m->l2len;
			if (fr.l2 == NULL) { /* too long to keep: its stream's first's */
				fr.l2 = b->slot[k].l2;
				fr.l2len = b->slot[k].l2len;
			}
			fr.t_ns = m->arrival_ns;
			fr.flags = m->flags & ANTBUF_F_INVALID ? FMT_F_INVALID : 0;
			/* its own size: a slot holds frames up to the ring's */
			fr.data_bytes = antbuf_hdr_data_bytes(fr.hdr);
			(*valid)++;
		} else {
			fmt_codif_placeholder(v->run->ref[k], &v->run->clk, v->index, ph);
			fr.hdr = ph;
			fr.data_bytes = antbuf_hdr_data_bytes(ph);
			fr.data = NULL;
			fr.l2len = 0;
			fr.flags = FMT_F_GAP;
		}
		rc = fmt_put(&out->s, &fr);
		if (rc < 0)
			return rc;
		*mask |= 1ULL << k;
	}
	return 0;
}

/* The frames of a row the capture lost (a GAP run's virtual row), at
 * frame index idx of run: codif invalid zero frames, raw zeros listed as
 * gaps, pcap nothing; every stream started in run (raw: the file's). A row
 * this writer lost is never written so: it ends the file (name_overrun). */
static int
put_placeholders(struct wr_writer *w, struct wr_src *s, struct wr_out *out,
		 const struct antbuf_run *run, int64_t idx)
{
	const struct antbuf *b = s->b;
	uint8_t ph[CODIF_HDR_LEN];
	struct fmt_frame fr;
	unsigned int k;
	int rc;

	if (fmt_is_packets(w->o.format))
		return 0; /* a pcap holds packets that arrived, nothing else */
	memset(&fr, 0, sizeof(fr));
	fr.data_bytes = b->g.data_bytes;
	fr.hdr = ph;
	fr.flags = FMT_F_GAP;
	for (k = 0; k < b->g.nslots; k++) {
		if (out->mask != 0 ? !(out->mask >> k & 1) : !antbuf_slot_started(run, k, idx))
			continue;
		fmt_codif_placeholder(run->ref[k], &run->clk, idx, ph);
		fr.data_bytes = antbuf_hdr_data_bytes(ph);
		rc = fmt_put(&out->s, &fr);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Write one row of s into out; returns 1 written, 0 torn (lost), <0 error. */
static int
do_row(struct wr_writer *w, struct wr_src *s, struct wr_out *out, const struct antbuf_view *v)
{
	unsigned int valid;
	uint64_t mask;
	int rc;

	/* the whole row fits the staging buffer from here: no flush inside
	 * it, so a torn row can always be taken back */
	rc = fmt_row_begin(&out->s, row_bytes_max(s->b));
	if (rc != 0)
		return rc;

	if (v->virt) {
		rc = put_placeholders(w, s, out, v->run, v->index);
		if (rc == 0)
			rc = fmt_row_end(&out->s);
		if (rc < 0)
			return rc;
		if (!antbuf_commit(s->b, &s->cur, v))
			return 0;
		out->last_index = v->index;
		return 1;
	}
	/* pcapng all=yes: the antenna's interface is its place among the
	 * writer's (open_file) */
	rc = put_row(s, out, v, out == &w->all ? (uint32_t)(s - w->src) : 0, &mask, &valid);
	if (rc != 0)
		return rc;
	if (!antbuf_commit(s->b, &s->cur, v)) {
		/* the producer lapped us while we copied: the row taken back,
		 * its frames counted lost (the cursor); the file ends before
		 * it at the next row (name_overrun) */
		fmt_row_abort(&out->s);
		w->st.torn_rows++;
		s->ovr_rows++;
		s->ovr_frames += v->nvalid;
		return 0;
	}
	/* written from the ring: checked again when its write is over */
	if (out->s.ref && (rc = inflight_push(out, v, valid)) != 0)
		return rc;
	keep_refs(out, v->run, mask);
	out->row_mask = mask;
	out->last_row = v->row;
	out->last_index = v->index;
	w->st.rows++;
	w->st.taken += valid;
	rc = fmt_row_end(&out->s);
	return rc != 0 ? rc : 1;
}

/* A row of nothing: no stream of the antenna has started there (the room
 * before a run's first frame). */
static bool
row_empty(const struct antbuf *b, const struct antbuf_view *v)
{
	unsigned int k;

	if (v->virt)
		return false;
	for (k = 0; k < b->g.nslots; k++)
		if (antbuf_metap(b, v->pos, k)->flags & (ANTBUF_F_VALID | ANTBUF_F_GAP))
			return false;
	return true;
}

static bool
rotate_due(const struct wr_writer *w, const struct wr_src *s, const struct wr_out *out,
	   const struct antbuf_view *v)
{
	if (wr_rotate_due(&w->o, fmt_size(&out->s),
			  antbuf_index_time_ns(v->run, v->index) - out->t0_ns))
		return true;
	if (w->o.format == WR_RAW && started_mask(s->b, v) != out->mask)
		return true; /* a stream started: the raw row layout changes */
	return false;
}

/* What a new file of b may take on disk beyond its rows (min-free): its
 * header, last block, raw's index. */
static size_t
file_need(const struct wr_writer *w, const struct antbuf *b, bool new_file)
{
	if (!new_file)
		return 0;
	return 2 * FIO_ALIGN + (w->o.format == WR_RAW ? 2048 + 640 * b->g.nslots + FIO_ALIGN : 0);
}

/* After a row (rc of do_row): a failed write ends the file (cut to its
 * whole rows, kept) and the writer; count= frames end it too. */
static int
row_done(struct wr_writer *w, struct wr_out *out, int rc)
{
	if (rc < 0) {
		char e[PATH_MAX + 256];

		snprintf(e, sizeof(e), "%s: %s", fio_part(&out->s.f), rc == -EMSGSIZE ?
			 "frames of two sizes in one row: a raw file's rows hold one frame size "
			 "(the antenna's streams send frames of different sizes at once; codif "
			 "and pcap take them)" : strerror(-rc));
		fail(w, rc, e);
		close_out(w, out);
		return rc;
	}
	if (w->o.count && w->st.taken >= w->o.count)
		w->done = true;
	return 0;
}

/* The rows this writer lost since the last row of out (s->ovr_*): the
 * file, which is to end now, names them (raw: its index's
 * "overrun_after"; a scan's index: its overrun), when they follow its last
 * row on its clock. */
static void
name_overrun(struct wr_writer *w, struct wr_src *s, struct wr_out *out)
{
	if (s->ovr_rows == 0 && s->ovr_frames == 0)
		return;
	if (out->open) {
		if (w->o.format == WR_RAW)
			fmt_raw_overrun_after(&out->s, out->last_index + 1, s->ovr_rows,
					      s->ovr_frames);
		wr_gate_lost(w, (unsigned int)(s - w->src), out->scan, s->ovr_rows,
			     s->ovr_frames);
	}
	s->ovr_rows = s->ovr_frames = 0;
}

/* A writer more than a ring behind resumes where lib/antbuf says
 * (antbuf_resume_row: a quarter of the ring past the oldest row, which
 * also leaves a raw writer's writes from the ring, up to an eighth of it
 * in flight, time to end). The rows passed over count as overrun, exactly
 * (antbuf_skip). A window's writer (a trigger) wants the oldest rows and
 * takes what is left of them. */
static bool
catch_up(struct wr_writer *w, struct wr_src *s, const struct antbuf_view *v)
{
	int64_t to;

	if (w->o.window || v->lost_rows == 0 || (to = antbuf_resume_row(s->b)) <= v->row)
		return false;
	s->ovr_rows += (uint64_t)(to - v->row);
	antbuf_skip(&s->cur, to);
	w->st.catchups++;
	return true;
}

/* A window's rows (o.window): those before from_ns are passed over, the
 * first at or after to_ns ends the antenna (left in the ring).
 * @return 1: write it; 0: passed over (taken); -1: past the window. */
static int
in_window(struct wr_writer *w, struct wr_src *s, const struct antbuf_view *v)
{
	struct wr_window *win = &s->win;
	int64_t t = antbuf_index_time_ns(v->run, v->index);

	if (win->first_ns == INT64_MIN) {
		win->first_ns = t;
		win->first_index = v->index;
		win->first_clk = v->run->clk;
	}
	if (t >= w->o.to_ns) {
		win->past = true;
		return -1;
	}
	if (t < w->o.from_ns) {
		antbuf_commit(s->b, &s->cur, v);
		win->before++;
		return 0;
	}
	return 1;
}

bool
wr_window_done(const struct wr_writer *w)
{
	unsigned int i;

	for (i = 0; i < w->n; i++)
		if (w->src[i].on && !w->src[i].win.past)
			return false;
	return true;
}

/* Under a schedule: the scan of a row at data time t of antenna a. A file
 * of another scan (or none) ends here. @return 1 record it, 0 skip it, or
 * a negative errno. */
static int
gate(struct wr_writer *w, unsigned int a, struct wr_out *out, int64_t t)
{
	uint32_t id = wr_gate_row(w, a, t);
	int rc;

	/* all=yes: a row of an antenna its scan leaves out does not end it */
	if (out->open && out->scan != id &&
	    !(id == WR_ROW_SKIP && out == &w->all && wr_gate_in(w, out->scan, t)) &&
	    (rc = close_out(w, out)) != 0)
		return rc;
	return id != WR_ROW_SKIP;
}

static int
poll_one(struct wr_writer *w, struct wr_src *s, unsigned int max_rows)
{
	struct antbuf_view v;
	unsigned int done = 0;
	int rc;

	while (done < max_rows && !w->done && !w->full && !s->win.past &&
	       antbuf_next(s->b, &s->cur, &v) == 1) {
		struct wr_out *out = &s->out;

		/* rows lost before this one (overwritten, or torn while copied) */
		s->ovr_rows += v.lost_rows;
		s->ovr_frames += v.lost_frames;
		if (catch_up(w, s, &v))
			continue; /* the row it resumes at comes next */
		if (w->o.window && (rc = in_window(w, s, &v)) <= 0) {
			done += rc == 0;
			continue;
		}

		if ((!out->open && v.virt) || row_empty(s->b, &v)) {
			/* nothing to write: before the file, or before any stream */
			antbuf_commit(s->b, &s->cur, &v);
			done++;
			continue;
		}
		if (w->gate != NULL &&
		    (rc = gate(w, (unsigned int)(s - w->src), out,
			       antbuf_index_time_ns(v.run, v.index))) <= 0) {
			if (rc < 0)
				return rc;
			antbuf_commit(s->b, &s->cur, &v); /* outside every scan */
			done++;
			continue;
		}
		if (out->open) {
			bool split = antbuf_runs_split(s->b, out->runno, v.runno) ||
				     !codif_clock_equal(&v.run->clk, &out->clk);

			if (split)
				w->st.run_files++; /* a resync or new parameters */
			else if (v.index <= out->last_index)
				w->st.discontinuities++; /* gone back on one clock */
			if (split || v.index <= out->last_index) {
				name_overrun(w, s, out);
				if ((rc = close_out(w, out)) != 0)
					return rc;
			} else if (v.index > out->last_index + 1) {
				/* rows this writer lost (it fell behind the
				 * ring): the file ends at its last row, named
				 * there, and the next begins with this one
				 * (formats.md: no placeholders for them) */
				name_overrun(w, s, out);
				if ((rc = close_out(w, out)) != 0)
					return rc;
			} else if (!v.virt && rotate_due(w, s, out, &v)) {
				if ((rc = close_out(w, out)) != 0)
					return rc;
			}
		}
		/* the row, and a new file's, within min-free: else it ends here,
		 * at a whole row */
		if (!wr_budget_room(w, row_bytes_max(s->b), file_need(w, s->b, !out->open)))
			break;
		if (!out->open && (rc = open_out(w, s, out, &v, 0)) != 0)
			return rc;
		rc = do_row(w, s, out, &v);
		if (rc >= 0 && out->s.ref) {
			int r = confirm_rows(w, s, out, false);

			rc = r < 0 ? r : rc;
		}
		if (w->o.window && rc >= 0) {
			/* the window's rows in its files: from, to */
			if (s->win.begin_ns == INT64_MIN)
				s->win.begin_ns = antbuf_index_time_ns(v.run, v.index);
			s->win.end_ns = antbuf_index_time_ns(v.run, v.index + 1);
		}
		out->runno = v.runno;
		if (rc == 1) {
			wr_gate_wrote(w, (unsigned int)(s - w->src), out->scan, &v.run->clk, v.index);
			/* rows lost where no file was open to end: counted
			 * (overrun), named nowhere */
			s->ovr_rows = s->ovr_frames = 0;
		}
		if ((rc = row_done(w, out, rc)) < 0)
			return rc;
		done++;
	}
	return (int)done;
}

/* pcap of all antennas: rows merged by data time. */
static int
poll_all(struct wr_writer *w, unsigned int max_rows)
{
	unsigned int done = 0, i;
	int rc;

	while (done < max_rows && !w->done && !w->full) {
		struct antbuf_view v, best_v;
		struct wr_src *best = NULL;
		int64_t best_t = INT64_MAX;

		for (i = 0; i < w->n; i++) {
			struct wr_src *s = &w->src[i];
			int64_t t;

			if (!s->on || antbuf_next(s->b, &s->cur, &v) != 1)
				continue;
			if (v.virt || row_empty(s->b, &v)) {
				/* nothing a pcap holds */
				antbuf_commit(s->b, &s->cur, &v);
				done++;
				i--;
				continue;
			}
			t = antbuf_index_time_ns(v.run, v.index);
			if (t < best_t) {
				best_t = t;
				best = s;
				best_v = v;
			}
		}
		if (best == NULL)
			break;
		if (w->gate != NULL &&
		    (rc = gate(w, (unsigned int)(best - w->src), &w->all, best_t)) <= 0) {
			if (rc < 0)
				return rc;
			antbuf_commit(best->b, &best->cur, &best_v); /* outside every scan */
			done++;
			continue;
		}
		/* Rows are merged as they become final, so an antenna running
		 * behind the others adds older rows after newer ones. Rotate
		 * only at a data time later than every row written so far: a
		 * new file is named after a time no earlier file can have. */
		if (w->all.open && best_t > w->all_max_t &&
		    wr_rotate_due(&w->o, fmt_size(&w->all.s), best_t - w->all.t0_ns))
			if ((rc = close_out(w, &w->all)) != 0)
				return rc;
		if (!wr_budget_room(w, row_bytes_max(best->b), file_need(w, best->b, !w->all.open)))
			break;
		if (!w->all.open && (rc = open_out(w, NULL, &w->all, &best_v, best_t)) != 0)
			return rc;
		if (best_t > w->all_max_t)
			w->all_max_t = best_t;
		rc = do_row(w, best, &w->all, &best_v);
		if (rc == 1)
			wr_gate_wrote(w, WR_MAX_ANT, w->all.scan, &best_v.run->clk, best_v.index);
		if ((rc = row_done(w, &w->all, rc)) < 0)
			return rc;
		done++;
	}
	return (int)done;
}

/* Losses are the cursors' (exact, from the producer's running totals). */
static void
sum_lost(struct wr_writer *w)
{
	uint64_t rows = 0, frames = 0;
	unsigned int i;

	for (i = 0; i < w->n; i++) {
		if (!w->src[i].on)
			continue;
		antbuf_settle(w->src[i].b, &w->src[i].cur);
		rows += w->src[i].cur.lost_rows;
		frames += w->src[i].cur.lost_frames;
	}
	w->st.lost_rows = rows;
	w->st.overrun = frames;
	tally(w);
}

int
wr_poll(struct wr_writer *w, unsigned int max_rows)
{
	unsigned int i;
	int rc, total = 0;

	if (w->error)
		return -w->error;
	wr_budget_tick(w);
	if (w->o.all) {
		rc = poll_all(w, max_rows * (w->n ? w->n : 1));
		sum_lost(w);
		return rc;
	}
	for (i = 0; i < w->n && !w->done && !w->full; i++) {
		if (!w->src[i].on)
			continue;
		rc = poll_one(w, &w->src[i], max_rows);
		if (rc < 0)
			return rc;
		total += rc;
	}
	/* writes from the ring completed meanwhile (idle too) */
	for (i = 0; i < w->n; i++) {
		struct wr_out *out = &w->src[i].out;

		if (out->open && out->s.ref && (rc = confirm_rows(w, &w->src[i], out, false)) < 0)
			return row_done(w, out, rc);
	}
	sum_lost(w);
	return total;
}

uint64_t
wr_backlog(const struct wr_writer *w)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < w->n; i++)
		if (w->src[i].on)
			n += (uint64_t)antbuf_backlog(w->src[i].b, &w->src[i].cur);
	return n;
}

int
wr_finish(struct wr_writer *w)
{
	unsigned int i;
	int rc = 0, r;

	sum_lost(w);
	for (i = 0; i < w->n; i++) {
		name_overrun(w, &w->src[i], &w->src[i].out);
		r = close_out(w, &w->src[i].out);
		if (r != 0 && rc == 0)
			rc = r;
	}
	r = close_out(w, &w->all);
	if (r != 0 && rc == 0)
		rc = r;
	/* rows from the ring checked at the close may have been overwritten */
	sum_lost(w);
	wr_budget_free(w);
	return rc;
}
