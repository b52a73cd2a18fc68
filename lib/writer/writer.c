/* SPDX-License-Identifier: BSD-3-Clause */
/* raw / codif / pcap writers over antenna buffers: rows, files, rotation. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "jsonw.h"
#include "parse.h"
#include "writer.h"


void
wr_opts_defaults(struct wr_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = WR_CODIF;
	snprintf(o->dir, sizeof(o->dir), ".");
	snprintf(o->prefix, sizeof(o->prefix), "ibvcap");
	o->snaplen = 65535;
	o->direct = true;
	o->bufsize = 8u << 20;
}

const char *
wr_format_name(enum wr_format f)
{
	switch (f) {
	case WR_RAW: return "raw";
	case WR_CODIF: return "codif";
	case WR_PCAP: return "pcap";
	}
	return "?";
}

static bool
yesno(const char *v, bool *out)
{
	if (strcasecmp(v, "yes") == 0 || strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0) {
		*out = true;
		return true;
	}
	if (strcasecmp(v, "no") == 0 || strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0) {
		*out = false;
		return true;
	}
	return false;
}

int
wr_opts_parse(struct wr_opts *o, const char *opt, const char *spec, char *err,
	      size_t len)
{
	char *items[16], *store = NULL, *colon, buf[PATH_MAX + 512];
	char sub[128];
	uint64_t v;
	int n, i, rc = -EINVAL;

	wr_opts_defaults(o);
	if (spec == NULL || strlen(spec) >= sizeof(buf))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", spec);
	colon = strchr(buf, ':');
	if (colon == NULL)
		goto bad;
	*colon = '\0';
	if (strcmp(buf, "raw") == 0)
		o->format = WR_RAW;
	else if (strcmp(buf, "codif") == 0)
		o->format = WR_CODIF;
	else if (strcmp(buf, "pcap") == 0)
		o->format = WR_PCAP;
	else {
		snprintf(err, len, "%s: '%s': format '%s', expected raw, codif or pcap",
			 opt, spec, buf);
		return -EINVAL;
	}
	n = parse_list(opt, colon + 1, ',', items, 16, &store, err, len);
	if (n < 0)
		return -EINVAL;
	if (strchr(items[0], '=') != NULL || strlen(items[0]) >= sizeof(o->dir)) {
		snprintf(err, len, "%s: '%s': expected FORMAT:DIR[,key=value...]", opt, spec);
		goto out;
	}
	snprintf(o->dir, sizeof(o->dir), "%s", items[0]);
	for (i = 1; i < n; i++) {
		char *eq = strchr(items[i], '=');
		const char *k = items[i], *val;

		if (eq == NULL) {
			snprintf(err, len, "%s: '%s': expected key=value", opt, items[i]);
			goto out;
		}
		*eq = '\0';
		val = eq + 1;
		snprintf(sub, sizeof(sub), "%s %s", opt, k);
		if (strcmp(k, "prefix") == 0) {
			if (*val == '\0' || strlen(val) >= sizeof(o->prefix) || strchr(val, '/')) {
				snprintf(err, len, "%s: '%s': expected a file name prefix", sub, val);
				goto out;
			}
			snprintf(o->prefix, sizeof(o->prefix), "%s", val);
		} else if (strcmp(k, "rotate-size") == 0) {
			if (parse_size(sub, val, 4096, UINT64_MAX, &o->rotate_bytes, err, len))
				goto out;
		} else if (strcmp(k, "rotate-time") == 0) {
			if (parse_duration_ns(sub, val, 1000000, 86400ULL * 1000000000ULL * 366,
					      &o->rotate_ns, err, len))
				goto out;
		} else if (strcmp(k, "snaplen") == 0) {
			if (parse_u64(sub, val, 64, 262144, &v, err, len))
				goto out;
			o->snaplen = (uint32_t)v;
		} else if (strcmp(k, "count") == 0) {
			if (parse_u64(sub, val, 1, UINT64_MAX, &o->count, err, len))
				goto out;
		} else if (strcmp(k, "buffer") == 0) {
			if (parse_size(sub, val, 1u << 20, 1ULL << 30, &v, err, len))
				goto out;
			o->bufsize = (size_t)v;
		} else if (strcmp(k, "direct") == 0 || strcmp(k, "all") == 0 ||
			   strcmp(k, "oldest") == 0) {
			bool b;

			if (!yesno(val, &b)) {
				snprintf(err, len, "%s: '%s': expected yes or no", sub, val);
				goto out;
			}
			if (k[0] == 'd')
				o->direct = b;
			else if (k[0] == 'a')
				o->all = b;
			else
				o->from_oldest = b;
		} else {
			snprintf(err, len,
				 "%s: '%s': unknown key, expected prefix, rotate-size, rotate-time, "
				 "snaplen, count, buffer, direct, all or oldest", opt, k);
			goto out;
		}
	}
	if (o->all && o->format != WR_PCAP) {
		snprintf(err, len, "%s: '%s': all=yes is for pcap (raw and codif are per antenna)",
			 opt, spec);
		goto out;
	}
	rc = 0;
out:
	free(store);
	return rc;
bad:
	snprintf(err, len, "%s: '%s': expected FORMAT:DIR[,key=value...], FORMAT raw, codif or pcap",
		 opt, spec ? spec : "");
	return -EINVAL;
}

int
wr_file_name(char *out, size_t len, const struct wr_opts *o, const char *antenna,
	     int64_t t_ns, const char *ext)
{
	char ts[CODIF_TIMESTR_LEN], compact[CODIF_TIMESTR_LEN];
	size_t i, k = 0;
	int n;

	codif_time_str(t_ns, ts, sizeof(ts));
	/* 2025-03-10T12:00:13.500000000Z -> 20250310T120013.500000000Z */
	for (i = 0; ts[i] != '\0' && k + 1 < sizeof(compact); i++)
		if (ts[i] != '-' && ts[i] != ':')
			compact[k++] = ts[i];
	compact[k] = '\0';
	n = snprintf(out, len, "%s/%s_%s_%s.%s", o->dir, o->prefix, antenna, compact, ext);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Bytes a row of b can take in any format: per slot a CODIF frame, or a
 * pcap record (16) with Ethernet, VLAN, IPv4 and UDP headers (46). */
static size_t
row_bytes_max(const struct antbuf *b)
{
	return (size_t)b->g.nslots * (16 + 46 + CODIF_HDR_LEN + b->g.data_bytes);
}

int
writer_init(struct writer *w, const struct wr_opts *o,
	    const struct antbuf *const *bufs, uint8_t *const *payloads, unsigned int n,
	    uint64_t ant_mask, char *err, size_t len)
{
	unsigned int i;

	memset(w, 0, sizeof(*w));
	w->all_max_t = INT64_MIN;
	w->o = *o;
	if (n > WR_MAX_ANT) {
		snprintf(err, len, "%u antennas, at most %d", n, WR_MAX_ANT);
		return -EINVAL;
	}
	if (access(o->dir, W_OK) != 0) {
		snprintf(err, len, "output directory '%s': %s", o->dir, strerror(errno));
		return -errno;
	}
	w->n = n;
	for (i = 0; i < n; i++) {
		/* staging holds at least two whole rows (plus O_DIRECT slack) */
		size_t need = 2 * row_bytes_max(bufs[i]) + 2 * WFILE_ALIGN;

		need = (need + WFILE_ALIGN - 1) / WFILE_ALIGN * WFILE_ALIGN;
		if (((ant_mask >> i) & 1) && w->o.bufsize < need)
			w->o.bufsize = need;
	}
	for (i = 0; i < n; i++) {
		w->src[i].b = bufs[i];
		w->src[i].payload = payloads != NULL ? payloads[i] : NULL;
		w->src[i].on = (ant_mask >> i) & 1;
		antbuf_cursor_init(bufs[i], &w->src[i].cur, o->from_oldest);
	}
	return 0;
}

static void
fail(struct writer *w, int rc, const char *what)
{
	if (w->error == 0) {
		w->error = rc < 0 ? -rc : rc;
		str_copy(w->err, sizeof(w->err), what);
	}
}

/* ---- raw index ---------------------------------------------------------- */

static int
run_push(struct wr_run **v, size_t *n, size_t *cap, uint32_t slot, int64_t first,
	 int64_t count)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct wr_run *p = realloc(*v, nc * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		*v = p;
		*cap = nc;
	}
	(*v)[*n].slot = slot;
	(*v)[*n].first = first;
	(*v)[*n].count = count;
	(*n)++;
	return 0;
}

static void
runs_json(struct jsonw *j, const char *key, const struct wr_run *r, size_t n,
	  const struct wr_out *out, int64_t rows)
{
	char ts[CODIF_TIMESTR_LEN];
	size_t i;

	jsonw_arr_begin(j, key);
	for (i = 0; i < n; i++) {
		int64_t c = r[i].count;

		if (r[i].first >= rows)
			continue; /* cut off by a truncation */
		if (r[i].first + c > rows)
			c = rows - r[i].first;
		jsonw_obj_begin(j, NULL);
		jsonw_u64(j, "slot", r[i].slot);
		jsonw_i64(j, "first", r[i].first);
		jsonw_i64(j, "count", c);
		jsonw_str(j, "utc", codif_time_str(codif_clock_time_ns(&out->clk,
								       out->first_index + r[i].first),
						   ts, sizeof(ts)));
		jsonw_obj_end(j);
	}
	jsonw_arr_end(j);
}

static int
write_index(struct writer *w, const struct wr_src *s, const struct wr_out *out,
	    int64_t rows, const char *path)
{
	const struct antbuf *b = s->b;
	char part[PATH_MAX + 64], ip[16], st[3], hex[2 * CODIF_HDR_LEN + 1];
	char ts[CODIF_TIMESTR_LEN];
	struct codif_hdr h;
	struct jsonw j;
	uint32_t sec, fr;
	unsigned int k, first_slot = ANTBUF_MAX_SLOTS;
	FILE *f;
	int rc;

	snprintf(part, sizeof(part), "%s.part", path);
	f = fopen(part, "wx");
	if (f == NULL)
		return -errno;
	jsonw_init(&j, f, true);
	jsonw_obj_begin(&j, NULL);
	jsonw_str(&j, "format", "dpdk-ibvcap-raw");
	jsonw_u64(&j, "version", 1);
	jsonw_obj_begin(&j, "antenna");
	jsonw_u64(&j, "index", b->index);
	jsonw_str(&j, "name", b->name);
	jsonw_str(&j, "src", ipv4_str(b->src_ip, ip, sizeof(ip)));
	jsonw_obj_end(&j);
	jsonw_u64(&j, "data_bytes", b->g.data_bytes);
	jsonw_i64(&j, "rows", rows);
	jsonw_i64(&j, "first_index", out->first_index);
	jsonw_arr_begin(&j, "streams");
	for (k = 0; k < b->g.nslots; k++) {
		const struct antbuf_slot *sl = &b->slot[k];

		if (!(out->mask >> k & 1))
			continue;
		if (first_slot == ANTBUF_MAX_SLOTS)
			first_slot = k;
		jsonw_obj_begin(&j, NULL);
		jsonw_u64(&j, "slot", k);
		jsonw_str(&j, "dst", ipv4_str(sl->dst_ip, ip, sizeof(ip)));
		jsonw_u64(&j, "port", sl->dport);
		codif_station_str(sl->stationid, st);
		jsonw_str(&j, "station", st);
		jsonw_u64(&j, "groupid", sl->groupid);
		jsonw_u64(&j, "secondaryid", sl->secondaryid);
		jsonw_u64(&j, "threadid", sl->threadid);
		str_hex(out->ref[k], CODIF_HDR_LEN, hex);
		jsonw_str(&j, "header", hex);
		jsonw_obj_end(&j);
	}
	jsonw_arr_end(&j);
	if (first_slot < ANTBUF_MAX_SLOTS) {
		codif_decode(out->ref[first_slot], CODIF_HDR_LEN, &h, NULL, 0);
		jsonw_obj_begin(&j, "params");
		jsonw_u64(&j, "nchan", h.nchan);
		jsonw_u64(&j, "nbits", h.nbits);
		jsonw_bool(&j, "complex", h.complex);
		jsonw_u64(&j, "representation", h.representation);
		jsonw_u64(&j, "period", h.period);
		jsonw_u64(&j, "totalsamples", h.totalsamples);
		jsonw_u64(&j, "frames_per_period", codif_frames_per_period(&h));
		jsonw_u64(&j, "frame_ns", codif_frame_ns(&h));
		jsonw_u64(&j, "epoch", h.epoch);
		jsonw_obj_end(&j);
	}
	codif_clock_hdr_time(&out->clk, out->first_index, &sec, &fr);
	jsonw_obj_begin(&j, "first_frame");
	jsonw_u64(&j, "seconds", sec);
	jsonw_u64(&j, "frame", fr);
	jsonw_str(&j, "utc", codif_time_str(codif_clock_time_ns(&out->clk, out->first_index),
					    ts, sizeof(ts)));
	jsonw_obj_end(&j);
	runs_json(&j, "gaps", out->gaps, out->ngaps, out, rows);
	runs_json(&j, "invalid", out->invalid, out->ninvalid, out, rows);
	/* rows this writer fell behind on: zeros, though the capture had them */
	runs_json(&j, "overrun", out->overrun, out->noverrun, out, rows);
	jsonw_obj_end(&j);
	rc = jsonw_finish(&j);
	if (fclose(f) != 0 || rc != 0) {
		rc = -errno ? -errno : -EIO;
		unlink(part);
		return rc;
	}
	(void)w;
	return rename(part, path) == 0 ? 0 : -errno;
}

/* ---- files -------------------------------------------------------------- */

static const char *
ext_of(enum wr_format f)
{
	return wr_format_name(f);
}

/* wfile_reserve failed: an I/O error, or a request past the buffer. */
static int
reserve_err(const struct wfile *f)
{
	return f->err ? -f->err : -E2BIG;
}

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

/* A new file for antenna s from view v, or (s NULL: all=yes) for the
 * merged rows from data time t_all. */
static int
open_out(struct writer *w, struct wr_src *s, struct wr_out *out, const struct antbuf_view *v,
	 int64_t t_all)
{
	const struct antbuf *b = s != NULL ? s->b : NULL;
	int64_t t = b != NULL ? antbuf_index_time_ns(v->run, v->index) : t_all;
	char path[PATH_MAX], err[PATH_MAX + 128];
	int rc;

	rc = wr_file_name(path, sizeof(path), &w->o, b != NULL ? b->name : "all", t,
			  ext_of(w->o.format));
	if (rc != 0) {
		fail(w, rc, "output file name too long");
		return rc;
	}
	memset(out, 0, sizeof(*out));
	rc = wfile_open(&out->f, path, w->o.bufsize, w->o.direct, err, sizeof(err));
	if (rc != 0) {
		fail(w, rc, err);
		return rc;
	}
	out->open = true;
	out->t0_ns = t;
	if (b != NULL) {
		out->first_index = v->index;
		out->last_index = v->index - 1;
		out->last_row = v->row - 1;
		out->clk = v->run->clk;
		out->runno = v->runno;
		memcpy(out->ref, v->run->ref, sizeof(out->ref));
	}
	if (w->o.format == WR_PCAP)
		wfile_pcap_header(&out->f, w->o.snaplen);
	if (w->o.format == WR_RAW && b != NULL) {
		unsigned int k;

		out->mask = started_mask(b, v);
		for (k = 0; k < ANTBUF_MAX_SLOTS; k++)
			out->gap_start[k] = out->inv_start[k] = -1;
	}
	return 0;
}

static void
close_runs(struct wr_out *out)
{
	unsigned int k;

	for (k = 0; k < ANTBUF_MAX_SLOTS; k++) {
		if (out->gap_start[k] >= 0)
			run_push(&out->gaps, &out->ngaps, &out->capgaps, k, out->gap_start[k],
				 out->rows - out->gap_start[k]);
		if (out->inv_start[k] >= 0)
			run_push(&out->invalid, &out->ninvalid, &out->capinvalid, k,
				 out->inv_start[k], out->rows - out->inv_start[k]);
		out->gap_start[k] = out->inv_start[k] = -1;
	}
}

static int
close_out(struct writer *w, struct wr_src *s, struct wr_out *out)
{
	char err[PATH_MAX + 200], idx[PATH_MAX + 32];
	uint64_t kept;
	int rc;

	if (!out->open)
		return 0;
	if (w->o.format == WR_RAW)
		close_runs(out);
	rc = wfile_close(&out->f, true, err, sizeof(err));
	kept = rc == 0 ? out->f.on_disk : out->f.safe_end;
	if (rc != 0)
		fail(w, rc, err);
	if (w->o.format == WR_RAW && s != NULL && (rc == 0 || kept > 0)) {
		uint64_t row_bytes = (uint64_t)__builtin_popcountll(out->mask) * s->b->g.data_bytes;
		int64_t rows = row_bytes ? (int64_t)(kept / row_bytes) : 0;
		int irc;

		snprintf(idx, sizeof(idx), "%s.json", out->f.path);
		irc = write_index(w, s, out, rows, idx);
		if (irc != 0) {
			snprintf(err, sizeof(err), "%s: %s", idx, strerror(-irc));
			fail(w, irc, err);
			if (rc == 0)
				rc = irc;
		}
	}
	if (rc == 0 || kept > 0) {
		w->st.files++;
		str_copy(w->last_file, sizeof(w->last_file), out->f.path);
	}
	free(out->gaps);
	free(out->invalid);
	free(out->overrun);
	out->gaps = out->invalid = out->overrun = NULL;
	out->noverrun = out->capoverrun = 0;
	out->open = false;
	return rc;
}

/* ---- rows --------------------------------------------------------------- */

/* An invalid zero frame for slot k at frame index idx: its stream's header
 * in the run, the time of idx, the invalid bit. */
static void
placeholder_frame(const struct antbuf_run *run, unsigned int k, int64_t idx, uint8_t *p,
		  uint32_t data_bytes)
{
	struct codif_hdr h;

	codif_decode(run->ref[k], CODIF_HDR_LEN, &h, NULL, 0);
	codif_clock_hdr_time(&run->clk, idx, &h.seconds, &h.frame);
	h.invalid = true;
	codif_encode(&h, p);
	memset(p + CODIF_HDR_LEN, 0, data_bytes);
}

static int
row_codif(struct writer *w, struct wr_src *s, struct wr_out *out, const struct antbuf_view *v)
{
	const struct antbuf *b = s->b;
	uint32_t D = b->g.data_bytes;
	unsigned int k;

	for (k = 0; k < b->g.nslots; k++) {
		const struct antbuf_meta *m = antbuf_metap(b, v->pos, k);
		uint8_t *p;

		if (!(m->flags & (ANTBUF_F_VALID | ANTBUF_F_GAP)))
			continue; /* the stream had not started yet */
		p = wfile_reserve(&out->f, CODIF_HDR_LEN + D);
		if (p == NULL)
			return reserve_err(&out->f);
		if (m->flags & ANTBUF_F_VALID) {
			memcpy(p, m->codif, CODIF_HDR_LEN);
			memcpy(p + CODIF_HDR_LEN, antbuf_payload_of(b, s->payload, v->pos, k), D);
			w->st.frames++;
		} else {
			/* a missing frame stays in the file: its stream's header
			 * at its time, the invalid bit set, zero data */
			placeholder_frame(v->run, k, v->index, p, D);
			w->st.gap_frames++;
		}
	}
	return 0;
}

/* Raw: a run of rows (gaps, invalid) per slot, for the index. */
static void
raw_mark(struct wr_out *out, unsigned int k, int64_t r, bool gap, bool inv)
{
	if (gap && out->gap_start[k] < 0)
		out->gap_start[k] = r;
	if (!gap && out->gap_start[k] >= 0) {
		run_push(&out->gaps, &out->ngaps, &out->capgaps, k, out->gap_start[k],
			 r - out->gap_start[k]);
		out->gap_start[k] = -1;
	}
	if (inv && out->inv_start[k] < 0)
		out->inv_start[k] = r;
	if (!inv && out->inv_start[k] >= 0) {
		run_push(&out->invalid, &out->ninvalid, &out->capinvalid, k, out->inv_start[k],
			 r - out->inv_start[k]);
		out->inv_start[k] = -1;
	}
}

static int
row_raw(struct writer *w, struct wr_src *s, struct wr_out *out, const struct antbuf_view *v)
{
	const struct antbuf *b = s->b;
	uint32_t D = b->g.data_bytes;
	unsigned int k;

	for (k = 0; k < b->g.nslots; k++) {
		const struct antbuf_meta *m;
		uint8_t *p;
		bool gap;

		if (!(out->mask >> k & 1))
			continue;
		m = antbuf_metap(b, v->pos, k);
		p = wfile_reserve(&out->f, D);
		if (p == NULL)
			return reserve_err(&out->f);
		gap = !(m->flags & ANTBUF_F_VALID);
		if (gap) {
			memset(p, 0, D);
			w->st.gap_frames++;
		} else {
			memcpy(p, antbuf_payload_of(b, s->payload, v->pos, k), D);
			w->st.frames++;
		}
		raw_mark(out, k, out->rows, gap, (m->flags & ANTBUF_F_INVALID) != 0);
	}
	return 0;
}

static int
row_pcap(struct writer *w, struct wr_src *s, struct wr_out *out, const struct antbuf_view *v)
{
	const struct antbuf *b = s->b;
	uint32_t D = b->g.data_bytes;
	unsigned int k;

	for (k = 0; k < b->g.nslots; k++) {
		const struct antbuf_meta *m = antbuf_metap(b, v->pos, k);
		uint32_t len, cap, off = 0, n;
		uint8_t *p;

		if (!(m->flags & ANTBUF_F_VALID))
			continue;
		len = m->l2len + CODIF_HDR_LEN + D;
		cap = len < w->o.snaplen ? len : w->o.snaplen;
		p = wfile_pcap_record(&out->f, m->arrival_ns, cap, len);
		if (p == NULL)
			return reserve_err(&out->f);
		n = m->l2len < cap ? m->l2len : cap;
		memcpy(p, m->l2, n);
		off = n;
		n = cap - off < CODIF_HDR_LEN ? cap - off : CODIF_HDR_LEN;
		memcpy(p + off, m->codif, n);
		off += n;
		memcpy(p + off, antbuf_payload_of(b, s->payload, v->pos, k), cap - off);
		w->st.frames++;
		/* each packet a record: a truncation keeps whole packets */
		wfile_record_end(&out->f);
	}
	return 0;
}

/* Why a row is written as placeholders. */
enum ph_kind {
	PH_GAP,     /* the capture lost it (a GAP run's frames) */
	PH_OVERRUN, /* this writer lost it (fell behind, or torn while copied) */
};

/* A row written without frames, at frame index idx of run: codif and raw
 * stay time-regular, with invalid zero frames (codif) or zeros listed in
 * the index (raw; "gaps" or "overrun"). pcap writes nothing. */
static int
placeholder_row(struct writer *w, struct wr_src *s, struct wr_out *out,
		const struct antbuf_run *run, int64_t idx, enum ph_kind kind)
{
	const struct antbuf *b = s->b;
	uint32_t D = b->g.data_bytes;
	unsigned int k;

	if (w->o.format == WR_CODIF) {
		for (k = 0; k < b->g.nslots; k++) {
			uint8_t *p;

			if (!antbuf_slot_started(run, k, idx))
				continue;
			p = wfile_reserve(&out->f, CODIF_HDR_LEN + D);
			if (p == NULL)
				return reserve_err(&out->f);
			placeholder_frame(run, k, idx, p, D);
			if (kind == PH_GAP)
				w->st.gap_frames++;
			else
				w->st.placeholder_frames++;
		}
	} else if (w->o.format == WR_RAW) {
		uint8_t *p;
		size_t n = (size_t)__builtin_popcountll(out->mask) * D;

		p = wfile_reserve(&out->f, n);
		if (p == NULL)
			return reserve_err(&out->f);
		memset(p, 0, n);
		if (kind == PH_GAP) {
			for (k = 0; k < b->g.nslots; k++)
				if (out->mask >> k & 1) {
					raw_mark(out, k, out->rows, true, false);
					w->st.gap_frames++;
				}
		} else if (out->noverrun > 0 &&
			   out->overrun[out->noverrun - 1].first +
				   out->overrun[out->noverrun - 1].count == out->rows) {
			out->overrun[out->noverrun - 1].count++;
		} else {
			run_push(&out->overrun, &out->noverrun, &out->capoverrun, 0, out->rows, 1);
		}
	} else {
		return 0;
	}
	wfile_record_end(&out->f);
	out->rows++;
	return wfile_maybe_flush(&out->f);
}

/* Write one row of s into out; returns 1 written, 0 torn (lost), <0 error. */
static int
do_row(struct writer *w, struct wr_src *s, struct wr_out *out, const struct antbuf_view *v)
{
	uint64_t mark, before = w->st.frames, gaps = w->st.gap_frames;
	int rc;

	/* the whole row fits the staging buffer from here: no flush inside
	 * it, so a torn row can always be taken back */
	rc = wfile_ensure(&out->f, row_bytes_max(s->b));
	if (rc != 0)
		return rc;
	mark = wfile_size(&out->f);

	if (v->virt) {
		rc = placeholder_row(w, s, out, v->run, v->index, PH_GAP);
		if (rc < 0)
			return rc;
		if (!antbuf_commit(s->b, &s->cur, v))
			return 0;
		out->last_index = v->index;
		return 1;
	}
	switch (w->o.format) {
	case WR_CODIF: rc = row_codif(w, s, out, v); break;
	case WR_RAW: rc = row_raw(w, s, out, v); break;
	default: rc = row_pcap(w, s, out, v); break;
	}
	if (rc != 0)
		return rc;
	if (!antbuf_commit(s->b, &s->cur, v)) {
		/* the producer lapped us while we copied: drop the row, count
		 * its frames lost, keep the file regular */
		if (wfile_rollback(&out->f, mark) != 0)
			return -EIO; /* cannot happen after wfile_ensure */
		w->st.frames = before;
		w->st.gap_frames = gaps;
		w->st.torn_rows++;
		rc = placeholder_row(w, s, out, v->run, v->index, PH_OVERRUN);
		out->last_row = v->row;
		out->last_index = v->index;
		return rc < 0 ? rc : 0;
	}
	out->last_row = v->row;
	out->last_index = v->index;
	wfile_record_end(&out->f);
	w->st.rows++;
	w->st.bytes += wfile_size(&out->f) - mark;
	out->rows++;
	rc = wfile_maybe_flush(&out->f);
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
rotate_due(const struct writer *w, const struct wr_src *s, const struct wr_out *out,
	   const struct antbuf_view *v)
{
	if (wr_rotate_due(&w->o, wfile_size(&out->f),
			  antbuf_index_time_ns(v->run, v->index) - out->t0_ns))
		return true;
	if (w->o.format == WR_RAW && started_mask(s->b, v) != out->mask)
		return true; /* a stream started: the raw row layout changes */
	return false;
}

static int
poll_one(struct writer *w, struct wr_src *s, unsigned int max_rows)
{
	struct antbuf_view v;
	unsigned int done = 0;
	int rc;

	while (done < max_rows && !w->done && antbuf_next(s->b, &s->cur, &v) == 1) {
		struct wr_out *out = &s->out;
		int64_t hole = 0;
		bool newfile = false;

		if ((!out->open && v.virt) || row_empty(s->b, &v)) {
			/* nothing to write: before the file, or before any stream */
			antbuf_commit(s->b, &s->cur, &v);
			done++;
			continue;
		}
		if (out->open) {
			/* a resync or new parameters: a new file there */
			if (antbuf_runs_split(s->b, out->runno, v.runno) ||
			    !codif_clock_equal(&v.run->clk, &out->clk)) {
				w->st.run_files++;
				newfile = true;
			} else {
				hole = v.index - out->last_index - 1;
				/* a hole too big to pad: a new file (files stay
				 * time-contiguous) */
				if (hole < 0 || hole > (int64_t)s->b->g.nrows * 4) {
					w->st.discontinuities++;
					newfile = true;
				} else if (!v.virt && rotate_due(w, s, out, &v)) {
					if (hole > 0)
						w->st.discontinuities++;
					newfile = true;
				}
			}
			if (newfile) {
				if ((rc = close_out(w, s, out)) != 0)
					return rc;
				hole = 0;
			}
		}
		if (!out->open && (rc = open_out(w, s, out, &v, 0)) != 0)
			return rc;
		while (hole-- > 0) {
			/* rows this writer fell behind on, kept as placeholders */
			rc = placeholder_row(w, s, out, v.run, out->last_index + 1, PH_OVERRUN);
			if (rc < 0)
				return rc;
			out->last_index++;
		}
		rc = do_row(w, s, out, &v);
		out->runno = v.runno;
		if (rc < 0) {
			char e[PATH_MAX + 64];

			snprintf(e, sizeof(e), "%s: %s", out->f.part, strerror(-rc));
			fail(w, rc, e);
			close_out(w, s, out);
			return rc;
		}
		done++;
		if (w->o.count && w->st.frames >= w->o.count)
			w->done = true;
	}
	return (int)done;
}

/* pcap of all antennas: rows merged by data time. */
static int
poll_all(struct writer *w, unsigned int max_rows)
{
	unsigned int done = 0, i;
	int rc;

	while (done < max_rows && !w->done) {
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
		/* Rows are merged as they become final, so an antenna running
		 * behind the others adds older rows after newer ones. Rotate
		 * only at a data time later than every row written so far: a
		 * new file is named after a time no earlier file can have. */
		if (w->all.open && best_t > w->all_max_t &&
		    wr_rotate_due(&w->o, wfile_size(&w->all.f), best_t - w->all.t0_ns))
			if ((rc = close_out(w, NULL, &w->all)) != 0)
				return rc;
		if (!w->all.open && (rc = open_out(w, NULL, &w->all, &best_v, best_t)) != 0)
			return rc;
		if (best_t > w->all_max_t)
			w->all_max_t = best_t;
		rc = do_row(w, best, &w->all, &best_v);
		if (rc < 0) {
			fail(w, rc, "pcap write failed");
			close_out(w, NULL, &w->all);
			return rc;
		}
		done++;
		if (w->o.count && w->st.frames >= w->o.count)
			w->done = true;
	}
	return (int)done;
}

/* Losses are the cursors' (exact, from the producer's running totals). */
static void
sum_lost(struct writer *w)
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
	w->st.lost_frames = frames;
}

int
writer_poll(struct writer *w, unsigned int max_rows)
{
	unsigned int i;
	int rc, total = 0;

	if (w->error)
		return -w->error;
	if (w->o.all) {
		rc = poll_all(w, max_rows * (w->n ? w->n : 1));
		sum_lost(w);
		return rc;
	}
	for (i = 0; i < w->n && !w->done; i++) {
		if (!w->src[i].on)
			continue;
		rc = poll_one(w, &w->src[i], max_rows);
		if (rc < 0)
			return rc;
		total += rc;
	}
	sum_lost(w);
	return total;
}

uint64_t
writer_backlog(const struct writer *w)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < w->n; i++)
		if (w->src[i].on)
			n += (uint64_t)antbuf_backlog(w->src[i].b, &w->src[i].cur);
	return n;
}

int
writer_finish(struct writer *w)
{
	unsigned int i;
	int rc = 0, r;

	sum_lost(w);
	for (i = 0; i < w->n; i++) {
		r = close_out(w, &w->src[i], &w->src[i].out);
		if (r != 0 && rc == 0)
			rc = r;
	}
	r = close_out(w, NULL, &w->all);
	if (r != 0 && rc == 0)
		rc = r;
	return rc;
}
