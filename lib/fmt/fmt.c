/* SPDX-License-Identifier: BSD-3-Clause */
/* The format sink: opens a file of one format over lib/fio, hands rows of
 * frames to that format's file, and finishes the file. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fmt_int.h"

const char *
fmt_name(enum fmt_kind k)
{
	switch (k) {
	case FMT_RAW: return "raw";
	case FMT_CODIF: return "codif";
	case FMT_PCAP: return "pcap";
	}
	return "?";
}

size_t
fmt_row_bytes_max(unsigned int nslots, uint32_t data_bytes)
{
	return (size_t)nslots * (16 + 46 + CODIF_HDR_LEN + (size_t)data_bytes);
}

int
fmt_open(struct fmt_sink *s, enum fmt_kind k, const char *path, const struct fmt_opts *o,
	 const struct fmt_raw_index *idx, char *err, size_t errlen)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->kind = k;
	s->snaplen = o->snaplen != 0 ? o->snaplen : 65535;
	s->replace = o->fio_flags & FIO_REPLACE;
	if (k != FMT_RAW && k != FMT_CODIF && k != FMT_PCAP) {
		snprintf(err, errlen, "%s: format %d, expected raw, codif or pcap", path, (int)k);
		return -EINVAL;
	}
	rc = fio_open(&s->f, path, o->bufsize, o->fio_flags, err, errlen);
	if (rc != 0)
		return rc;
	if (k == FMT_RAW)
		rc = fmt_raw_start(s, idx, err, errlen);
	else if (k == FMT_PCAP && (rc = fmt_pcap_start(s)) != 0)
		snprintf(err, errlen, "%s: %s", fio_part(&s->f), strerror(-rc));
	if (rc != 0) {
		char e2[64];

		fio_close(&s->f, false, NULL, e2, sizeof(e2));
		fmt_raw_free(s);
	}
	return rc;
}

int
fmt_row_begin(struct fmt_sink *s, size_t max_bytes)
{
	int rc = fio_ensure(&s->f, max_bytes);

	s->mark = fio_size(&s->f);
	s->nput = 0;
	return rc;
}

int
fmt_put(struct fmt_sink *s, const struct fmt_frame *fr)
{
	switch (s->kind) {
	case FMT_CODIF: return fmt_codif_put(s, fr);
	case FMT_RAW: return fmt_raw_put(s, fr);
	case FMT_PCAP: return fmt_pcap_put(s, fr);
	}
	return -EINVAL;
}

int
fmt_row_end(struct fmt_sink *s)
{
	int rc = 0;

	if (s->kind == FMT_RAW)
		rc = fmt_raw_row_end(s);
	if (rc != 0)
		return rc;
	fio_record_end(&s->f);
	s->rows++;
	s->nput = 0;
	return fio_maybe_flush(&s->f);
}

void
fmt_row_abort(struct fmt_sink *s)
{
	/* cannot fail after fmt_row_begin: the row is still staged */
	fio_rollback(&s->f, s->mark);
	s->nput = 0;
}

int
fmt_close(struct fmt_sink *s, bool keep, bool *kept, char *err, size_t errlen)
{
	uint64_t bytes = 0;
	int rc, irc = 0;

	if (kept != NULL)
		*kept = false;
	if (!s->f.open) {
		fmt_raw_free(s);
		return 0;
	}
	rc = fio_close(&s->f, keep, &bytes, err, errlen);
	/* a raw file kept (whole, or cut to whole rows) gets its index */
	if (s->kind == FMT_RAW && (rc == 0 || bytes > 0) && keep) {
		char e2[PATH_MAX + 256];

		irc = fmt_raw_finish(s, bytes, e2, sizeof(e2));
		if (irc != 0 && rc == 0) {
			snprintf(err, errlen, "%s", e2);
			rc = irc;
		}
	}
	if (kept != NULL)
		*kept = keep && (rc == 0 || bytes > 0);
	fmt_raw_free(s);
	return rc;
}
