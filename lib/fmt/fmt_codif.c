/* SPDX-License-Identifier: BSD-3-Clause */
/* The codif format: frames (and placeholders) encoded into lib/fio's
 * staging; a strict frame reader. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fmt_codif.h"
#include "fmt_int.h"

void
fmt_codif_hdr_at(struct codif_hdr *h, const struct codif_clock *clk, int64_t idx,
		 bool invalid)
{
	codif_clock_hdr_time(clk, idx, &h->seconds, &h->frame);
	h->invalid = invalid;
}

void
fmt_codif_placeholder(const uint8_t ref[CODIF_HDR_LEN], const struct codif_clock *clk,
		      int64_t idx, uint8_t out[CODIF_HDR_LEN])
{
	struct codif_hdr h;

	codif_decode(ref, CODIF_HDR_LEN, &h, NULL, 0);
	fmt_codif_hdr_at(&h, clk, idx, true);
	codif_encode(&h, out);
}

int
fmt_codif_put(struct fmt_sink *s, const struct fmt_frame *fr)
{
	uint8_t *p = fio_reserve(&s->f, CODIF_HDR_LEN + (size_t)fr->data_bytes);

	if (p == NULL)
		return fio_error(&s->f) != 0 ? -fio_error(&s->f) : -E2BIG;
	memcpy(p, fr->hdr, CODIF_HDR_LEN);
	if (fr->data != NULL)
		memcpy(p + CODIF_HDR_LEN, fr->data, fr->data_bytes);
	else
		memset(p + CODIF_HDR_LEN, 0, fr->data_bytes);
	fmt_count(s, fr->flags);
	return 1;
}

/* ---- reading ------------------------------------------------------------ */

#define RD_BUF (1u << 20)
/* the largest frame read: codifcheck's limit (64 MiB of data) */
#define MAX_FRAME (CODIF_HDR_LEN + (64u << 20))

int
fmt_codif_open_read(struct fmt_codif_reader *r, const char *path, char *err, size_t errlen)
{
	int e;

	memset(r, 0, sizeof(*r));
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		e = errno;
		return err_set(err, errlen, -e, "%s: %s", path, strerror(e));
	}
	r->cap = RD_BUF;
	r->buf = malloc(r->cap);
	if (r->buf == NULL) {
		close(r->fd);
		r->fd = -1;
		return err_set(err, errlen, -ENOMEM, "%s: no memory for a %zu-byte buffer", path,
			       r->cap);
	}
	return 0;
}

/* n bytes at buf[lo] (fewer at the end of the file). */
static int
fill(struct fmt_codif_reader *r, size_t n)
{
	if (r->hi - r->lo >= n)
		return 0;
	if (n > r->cap) {
		uint8_t *b = realloc(r->buf, n);

		if (b == NULL)
			return -ENOMEM;
		r->buf = b;
		r->cap = n;
	}
	if (r->lo > 0) {
		memmove(r->buf, r->buf + r->lo, r->hi - r->lo);
		r->hi -= r->lo;
		r->lo = 0;
	}
	while (r->hi < n && !r->eof) {
		ssize_t k = read(r->fd, r->buf + r->hi, r->cap - r->hi);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			r->eof = true;
		r->hi += (size_t)k;
	}
	return 0;
}

int
fmt_codif_next(struct fmt_codif_reader *r, const uint8_t **frame, struct codif_hdr *h,
	       char *err, size_t errlen)
{
	char why[200];
	size_t flen;
	int rc;

	rc = fill(r, CODIF_HDR_LEN);
	if (rc != 0)
		goto io;
	if (r->hi == r->lo)
		return 0;
	if (r->hi - r->lo < CODIF_HDR_LEN) {
		return err_set(err, errlen, -ENODATA, "%s: offset %" PRIu64 ": %zu bytes, a header "
			       "needs %d", r->path, r->off, r->hi - r->lo, CODIF_HDR_LEN);
	}
	if (codif_identify(r->buf + r->lo, CODIF_HDR_LEN, why, sizeof(why)) != 0 ||
	    codif_decode(r->buf + r->lo, CODIF_HDR_LEN, h, why, sizeof(why)) != 0 ||
	    codif_validate(h, SIZE_MAX, why, sizeof(why)) != 0) {
		return err_set(err, errlen, -EPROTO, "%s: offset %" PRIu64 ": %s", r->path, r->off,
			       why);
	}
	flen = CODIF_HDR_LEN + (size_t)codif_data_bytes(h);
	if (flen > MAX_FRAME) {
		return err_set(err, errlen, -EPROTO, "%s: offset %" PRIu64 ": framelength8 %" PRIu32
			       ": a frame of %zu bytes, expected at most %u", r->path, r->off,
			       h->framelength8, flen, MAX_FRAME);
	}
	rc = fill(r, flen);
	if (rc != 0)
		goto io;
	if (r->hi - r->lo < flen) {
		return err_set(err, errlen, -ENODATA, "%s: offset %" PRIu64 ": the file ends %zu "
			       "bytes into a frame of %zu", r->path, r->off, r->hi - r->lo, flen);
	}
	*frame = r->buf + r->lo;
	r->lo += flen;
	r->off += flen;
	return 1;
io:
	return err_set(err, errlen, rc, "%s: offset %" PRIu64 ": %s", r->path, r->off,
		       strerror(-rc));
}

void
fmt_codif_close_read(struct fmt_codif_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}
