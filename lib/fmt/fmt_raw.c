/* SPDX-License-Identifier: BSD-3-Clause */
/* The raw format's sink: data rows encoded into lib/fio's staging, the
 * runs of gaps, invalid and overrun rows gathered as rows end, the index
 * written beside the data when a file ends (fmt_raw_index.c: the index,
 * its runs and its JSON). */

#define _GNU_SOURCE /* open_memstream */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fmt_codif.h"
#include "fmt_int.h"
#include "fmt_raw.h"
#include "json.h"
#include "parse.h"

#define NONE UINT64_MAX

/* By reference: a row written, its runs not yet added (fmt_row_confirm). */
struct raw_queued {
	uint64_t row, end;
	uint32_t frames, gaps, overrun;
};

/* A raw file being written: its index, and each slot's open runs. */
struct fmt_raw_out {
	struct fmt_raw_index ri;
	uint64_t *gap_start, *inv_start; /* per slot: first row of an open run */
	uint32_t *rowflags;              /* per slot: the row in progress */
	/* by reference: rows not yet confirmed, oldest at qh, their flags
	 * (nstream each) */
	struct raw_queued *q;
	uint8_t *qflags;
	size_t qh, qn, qcap;
};

uint32_t
fmt_raw_nstream(const struct fmt_sink *s)
{
	return s->raw != NULL ? s->raw->ri.nstream : 0;
}

int
fmt_raw_start(struct fmt_sink *s, const struct fmt_raw_index *idx, char *err, size_t errlen)
{
	struct fmt_raw_out *o;
	uint32_t k;

	if (idx == NULL || idx->nstream == 0 || idx->nstream > FMT_RAW_MAX_STREAMS ||
	    idx->data_bytes == 0 || idx->clk.fpp == 0) {
		return err_set(err, errlen, -EINVAL, "%s: a raw file needs 1..%d streams, a data "
			       "size and a clock", fio_part(&s->f), FMT_RAW_MAX_STREAMS);
	}
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		goto nomem;
	s->raw = o;
	o->ri = *idx;
	memset(&o->ri.gaps, 0, sizeof(o->ri.gaps));
	memset(&o->ri.invalid, 0, sizeof(o->ri.invalid));
	memset(&o->ri.overrun, 0, sizeof(o->ri.overrun));
	o->ri.rows = 0;
	o->ri.st = malloc(idx->nstream * sizeof(*o->ri.st));
	o->gap_start = malloc(idx->nstream * sizeof(*o->gap_start));
	o->inv_start = malloc(idx->nstream * sizeof(*o->inv_start));
	o->rowflags = calloc(idx->nstream, sizeof(*o->rowflags));
	if (o->ri.st == NULL || o->gap_start == NULL || o->inv_start == NULL ||
	    o->rowflags == NULL)
		goto nomem;
	memcpy(o->ri.st, idx->st, idx->nstream * sizeof(*o->ri.st));
	for (k = 0; k < idx->nstream; k++) {
		codif_decode(o->ri.st[k].raw_hdr, CODIF_HDR_LEN, &o->ri.st[k].hdr, NULL, 0);
		o->gap_start[k] = o->inv_start[k] = NONE;
	}
	return 0;
nomem:
	return err_set(err, errlen, -ENOMEM, "%s: out of memory for the index", fio_part(&s->f));
}

void
fmt_raw_free(struct fmt_sink *s)
{
	struct fmt_raw_out *o = s->raw;

	if (o == NULL)
		return;
	fmt_raw_index_free(&o->ri);
	free(o->gap_start);
	free(o->inv_start);
	free(o->rowflags);
	free(o->q);
	free(o->qflags);
	free(o);
	s->raw = NULL;
}

/* Bytes the index of s could take if it were written now, high: its
 * fixed part, each stream, each run (closed or open), as fmt_raw_index_json
 * pretty-prints them. */
size_t
fmt_raw_index_bytes_max(const struct fmt_sink *s)
{
	const struct fmt_raw_out *o = s->raw;
	size_t runs;

	if (o == NULL)
		return 0;
	runs = o->ri.gaps.n + o->ri.invalid.n + o->ri.overrun.n + 2 * (size_t)o->ri.nstream;
	return 2048 + 640 * (size_t)o->ri.nstream + 192 * runs;
}

void
fmt_raw_overrun_after(struct fmt_sink *s, int64_t index, uint64_t rows, uint64_t frames)
{
	if (s->raw == NULL)
		return;
	s->raw->ri.ovr_index = index;
	s->raw->ri.ovr_rows = rows;
	s->raw->ri.ovr_frames = frames;
}

int
fmt_raw_put(struct fmt_sink *s, const struct fmt_frame *fr)
{
	struct fmt_raw_out *o = s->raw;
	uint8_t *p;

	if (s->nput >= o->ri.nstream)
		return -EINVAL;
	if (fr->data_bytes != o->ri.data_bytes)
		return -EMSGSIZE; /* rows hold one frame size (the writer says so) */
	if (s->ref) {
		/* by reference: from where the data lies, gaps from zeros */
		int rc = fr->data != NULL && !(fr->flags & (FMT_F_GAP | FMT_F_OVERRUN)) ?
				 fio_ref(&s->f, fr->data, fr->data_bytes) :
				 fio_ref_zero(&s->f, fr->data_bytes);

		if (rc != 0)
			return rc;
		o->rowflags[s->nput++] = fr->flags;
		fmt_count(s, fr->flags);
		return 1;
	}
	p = fio_reserve(&s->f, fr->data_bytes);
	if (p == NULL)
		return fio_error(&s->f) != 0 ? -fio_error(&s->f) : -E2BIG;
	if (fr->data != NULL && !(fr->flags & (FMT_F_GAP | FMT_F_OVERRUN)))
		memcpy(p, fr->data, fr->data_bytes);
	else
		memset(p, 0, fr->data_bytes);
	o->rowflags[s->nput++] = fr->flags;
	fmt_count(s, fr->flags);
	return 1;
}

/* A slot's open run of kind (gaps or invalid) ends before row r. */
static int
run_close(struct fmt_raw_runs *r, uint64_t *start, uint32_t k, uint64_t row)
{
	int rc = 0;

	if (*start != NONE)
		rc = fmt_raw_runs_add(r, k, *start, row - *start);
	*start = NONE;
	return rc;
}

/* The runs of row r, its slots' flags in o->rowflags. */
static int
runs_row(struct fmt_raw_out *o, uint64_t r)
{
	bool all_over = true;
	uint32_t k;
	int rc = 0;

	for (k = 0; k < o->ri.nstream; k++)
		if (!(o->rowflags[k] & FMT_F_OVERRUN))
			all_over = false;
	if (all_over) {
		/* a row this writer lost: every slot zero, listed once */
		for (k = 0; k < o->ri.nstream; k++) {
			rc |= run_close(&o->ri.gaps, &o->gap_start[k], k, r);
			rc |= run_close(&o->ri.invalid, &o->inv_start[k], k, r);
		}
		rc |= fmt_raw_runs_add(&o->ri.overrun, 0, r, 1);
		return rc != 0 ? -ENOMEM : 0;
	}
	for (k = 0; k < o->ri.nstream; k++) {
		uint32_t fl = o->rowflags[k];
		bool gap = (fl & (FMT_F_GAP | FMT_F_OVERRUN)) != 0;
		bool inv = !gap && (fl & FMT_F_INVALID);

		if (gap && o->gap_start[k] == NONE)
			o->gap_start[k] = r;
		else if (!gap)
			rc |= run_close(&o->ri.gaps, &o->gap_start[k], k, r);
		if (inv && o->inv_start[k] == NONE)
			o->inv_start[k] = r;
		else if (!inv)
			rc |= run_close(&o->ri.invalid, &o->inv_start[k], k, r);
	}
	return rc != 0 ? -ENOMEM : 0;
}

/* By reference: the row ended waits for fmt_row_confirm. */
static int
queue_row(struct fmt_sink *s)
{
	struct fmt_raw_out *o = s->raw;
	uint32_t n = o->ri.nstream, k;
	struct raw_queued *q;

	if (o->qh > 0 && o->qh == o->qn)
		o->qh = o->qn = 0;
	if (o->qn == o->qcap && o->qh > 0) {
		/* the confirmed ones at the front go */
		memmove(o->q, o->q + o->qh, (o->qn - o->qh) * sizeof(*o->q));
		memmove(o->qflags, o->qflags + o->qh * n, (o->qn - o->qh) * n);
		o->qn -= o->qh;
		o->qh = 0;
	}
	if (o->qn == o->qcap) {
		size_t nc = o->qcap ? o->qcap * 2 : 64;
		struct raw_queued *nq = realloc(o->q, nc * sizeof(*nq));
		uint8_t *nf;

		if (nq == NULL)
			return -ENOMEM;
		o->q = nq;
		nf = realloc(o->qflags, nc * n);
		if (nf == NULL)
			return -ENOMEM;
		o->qflags = nf;
		o->qcap = nc;
	}
	q = &o->q[o->qn];
	q->row = s->rows;
	q->end = fio_size(&s->f);
	q->frames = (uint32_t)s->cur.frames;
	q->gaps = (uint32_t)s->cur.gaps;
	q->overrun = (uint32_t)s->cur.overrun;
	for (k = 0; k < n; k++)
		o->qflags[o->qn * n + k] = (uint8_t)o->rowflags[k];
	o->qn++;
	return 0;
}

int
fmt_raw_row_end(struct fmt_sink *s)
{
	struct fmt_raw_out *o = s->raw;

	if (s->nput != o->ri.nstream)
		return -EINVAL;
	return s->ref ? queue_row(s) : runs_row(o, s->rows);
}

bool
fmt_ref_oldest(const struct fmt_sink *s, uint64_t *row, bool *written)
{
	const struct fmt_raw_out *o = s->raw;

	if (!s->ref || o == NULL || o->qh == o->qn)
		return false;
	*row = o->q[o->qh].row;
	/* its write is over: in the file, or never after an error */
	*written = o->q[o->qh].end <= fio_on_disk(&s->f) || fio_error(&s->f) != 0;
	return true;
}

int
fmt_raw_confirm(struct fmt_sink *s, bool intact, struct fmt_pending *was)
{
	struct fmt_raw_out *o = s->raw;
	uint32_t n = o->ri.nstream, k;
	uint64_t row_bytes = (uint64_t)n * o->ri.data_bytes;
	const struct raw_queued *q;
	int rc = 0, r;

	if (o->qh == o->qn)
		return -ENOENT;
	q = &o->q[o->qh];
	*was = (struct fmt_pending){ .end = q->end, .frames = q->frames, .gaps = q->gaps,
				     .overrun = q->overrun };
	if (!intact)
		/* overwritten while written: zeros in its place (a failure
		 * cuts the file before it) */
		rc = fio_rewrite_zero(&s->f, q->end - row_bytes, row_bytes);
	for (k = 0; k < n; k++)
		o->rowflags[k] = intact ? o->qflags[o->qh * n + k] : FMT_F_OVERRUN;
	r = runs_row(o, q->row);
	o->qh++;
	return rc != 0 ? rc : r;
}

/* The index of the rows in bytes of data as JSON text (malloc'd). */
static char *
index_text(struct fmt_raw_out *o, uint64_t bytes, size_t *len)
{
	uint64_t row_bytes = (uint64_t)o->ri.nstream * o->ri.data_bytes;
	char *text = NULL;
	json_t *root;
	FILE *m;

	/* a file cut after an error keeps whole rows: the index says those */
	o->ri.rows = bytes / row_bytes;
	*len = 0;
	root = fmt_raw_index_json(&o->ri);
	m = root != NULL ? open_memstream(&text, len) : NULL;
	if (m == NULL || js_write(root, m, true) != 0) {
		if (m != NULL)
			fclose(m);
		json_decref(root);
		free(text);
		return NULL;
	}
	fclose(m);
	json_decref(root);
	return text;
}

static int
write_index(const char *path, const char *text, size_t len, unsigned int flags, char *err,
	    size_t errlen)
{
	char e2[PATH_MAX + 256];
	struct fio_file f;
	int rc;

	rc = fio_open(&f, path, len + FIO_ALIGN, flags, err, errlen);
	if (rc != 0)
		return rc;
	rc = fio_append(&f, text, len);
	fio_record_end(&f);
	if (rc != 0) {
		fio_close(&f, false, NULL, e2, sizeof(e2));
		return err_set(err, errlen, rc, "%s: %s", fio_part(&f), strerror(-rc));
	}
	return fio_close(&f, true, NULL, err, errlen);
}

static bool
disk_full(int rc)
{
	return rc == -ENOSPC || rc == -EDQUOT || rc == -EFBIG;
}

int
fmt_raw_finish(struct fmt_sink *s, uint64_t *bytes, char *err, size_t errlen)
{
	struct fmt_raw_out *o = s->raw;
	uint64_t row_bytes = (uint64_t)o->ri.nstream * o->ri.data_bytes;
	char path[PATH_MAX + 8], e2[PATH_MAX + 256];
	uint64_t want = *bytes;
	char *text;
	size_t len;
	uint32_t k;
	int rc = 0;

	for (k = 0; k < o->ri.nstream; k++) {
		rc |= run_close(&o->ri.gaps, &o->gap_start[k], k, s->rows);
		rc |= run_close(&o->ri.invalid, &o->inv_start[k], k, s->rows);
	}
	/* runs listed by slot, then row */
	rc |= fmt_raw_runs_index(&o->ri.gaps, o->ri.nstream);
	rc |= fmt_raw_runs_index(&o->ri.invalid, o->ri.nstream);
	rc |= fmt_raw_runs_index(&o->ri.overrun, o->ri.nstream);
	snprintf(path, sizeof(path), "%s.json", fio_path(&s->f));
	for (;;) {
		text = rc == 0 ? index_text(o, *bytes, &len) : NULL;
		if (text == NULL) {
			rc = err_set(err, errlen, -ENOMEM, "%s: out of memory for the index", path);
			break;
		}
		rc = write_index(path, text, len, s->replace, err, errlen);
		free(text);
		if (rc == 0 || !disk_full(rc) || *bytes == 0)
			break;
		/* a full disk: cut whole rows off the data (the index's size
		 * and a page more) until the index fits; the rows cut were
		 * lost to the full disk like the rest */
		want = (len + 2 * FIO_ALIGN + row_bytes - 1) / row_bytes * row_bytes;
		want = *bytes > want ? *bytes - want : 0;
		if (want < s->floor)
			want = 0; /* no exact count that far back: none kept */
		if (fio_cut(fio_path(&s->f), want, e2, sizeof(e2)) != 0)
			break;
		*bytes = want;
	}
	if (rc != 0 && *bytes > 0) {
		/* a raw file is never left without its index */
		if (fio_cut(fio_path(&s->f), 0, e2, sizeof(e2)) == 0)
			*bytes = 0;
	}
	return rc;
}
