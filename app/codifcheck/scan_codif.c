/* SPDX-License-Identifier: BSD-3-Clause */
/* Scanning CODIF and raw + index files: frames from a file, streams keyed by
 * their CODIF ids, damaged and short frames. */

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

static const uint8_t sync_bytes[4] = { 0xFE, 0xCA, 0xED, 0xFE };

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
	st = cc_stream_add(s);
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
			struct held *k = cc_hold_copy(&fi, st, frame, len);

			if (k == NULL)
				return s->err = -ENOMEM;
			k->fi.data_off = data_off;
			o.hold->handle = (uintptr_t)k;
		}
		rc = 0;
		break;
	case CODIF_SEQ_DUPLICATE:
	case CODIF_SEQ_TOO_LATE:
		cc_backwards(s, st, o.cls, o.index, off, codif_frame_time_ns(h));
		rc = 0;
		break;
	case CODIF_SEQ_MALFORMED:
		cc_scan_problem(s, CC_P_HEADER, off, codif_frame_time_ns(h),
				"frame index beyond 63 bits: seconds %u, frame %u",
				h->seconds, h->frame);
		rc = 0;
		break;
	default:
		rc = cc_take(s, st, &fi, &o);
		break;
	}
	if (rc == 0 && codif_tl_busy(st->tl))
		rc = cc_file_actions(s, st);
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
