/* SPDX-License-Identifier: BSD-3-Clause */
/* The format sink: opens a file of one format over lib/fio, hands rows of
 * frames to that format's file, and finishes the file. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fmt_int.h"

/* the one place the formats' names are written: by name, as the tools list them */
const char *const fmt_names[] = { "codif", "pcap", "pcapng", "raw", NULL };
const enum fmt_kind fmt_kinds[] = { FMT_CODIF, FMT_PCAP, FMT_PCAPNG, FMT_RAW };

const char *
fmt_name(enum fmt_kind k)
{
	unsigned int i;

	for (i = 0; fmt_names[i] != NULL; i++)
		if (fmt_kinds[i] == k)
			return fmt_names[i];
	return "?";
}

int
fmt_parse(const char *name, enum fmt_kind *k)
{
	unsigned int i;

	for (i = 0; fmt_names[i] != NULL; i++)
		if (strcmp(name, fmt_names[i]) == 0) {
			*k = fmt_kinds[i];
			return 0;
		}
	return -EINVAL;
}

size_t
fmt_row_bytes_max(unsigned int nslots, uint32_t data_bytes)
{
	return (size_t)nslots * (32 + 3 + 46 + CODIF_HDR_LEN + (size_t)data_bytes);
}

/* ---- the sink ------------------------------------------------------------- */

int
fmt_open(struct fmt_sink *s, enum fmt_kind k, const char *path, const struct fmt_opts *o,
	 const struct fmt_raw_index *idx, char *err, size_t errlen)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->kind = k;
	s->snaplen = o->snaplen != 0 ? o->snaplen : 65535;
	s->replace = o->fio_flags & FIO_REPLACE;
	if (k != FMT_RAW && k != FMT_CODIF && k != FMT_PCAP && k != FMT_PCAPNG) {
		return err_set(err, errlen, -EINVAL, "%s: format %d, expected raw, codif, pcap or "
			       "pcapng", path, (int)k);
	}
	if (k == FMT_PCAPNG &&
	    (o->nifaces > FMT_MAX_IFACES || (o->nifaces > 0 && o->ifaces == NULL))) {
		return err_set(err, errlen, -EINVAL, "%s: %u pcapng interfaces, expected 0..%d",
			       path, o->nifaces, FMT_MAX_IFACES);
	}
	rc = fio_open(&s->f, path, o->bufsize, o->fio_flags, err, errlen);
	if (rc != 0)
		return rc;
	s->cappend = 64;
	s->pend = malloc(s->cappend * sizeof(*s->pend));
	if (s->pend == NULL)
		rc = err_set(err, errlen, -ENOMEM, "%s: out of memory", fio_part(&s->f));
	else if (k == FMT_RAW)
		rc = fmt_raw_start(s, idx, err, errlen);
	else if ((k == FMT_PCAP && (rc = fmt_pcap_start(s)) != 0) ||
		 (k == FMT_PCAPNG && (rc = fmt_pcapng_start(s, o)) != 0))
		rc = err_set(err, errlen, rc, "%s: %s", fio_part(&s->f), strerror(-rc));
	if (rc != 0) {
		char e2[64];

		fio_close(&s->f, false, NULL, e2, sizeof(e2));
		fmt_raw_free(s);
		fmt_pend_free(s);
	}
	return rc;
}

int
fmt_row_begin(struct fmt_sink *s, size_t max_bytes)
{
	/* by reference: room for a piece per stream and a zero run */
	int rc = s->ref ? fio_ref_room(&s->f, fmt_raw_nstream(s) + 2) :
			  fio_ensure(&s->f, max_bytes);

	fmt_settle(s);
	s->mark = fio_size(&s->f);
	s->nput = 0;
	memset(&s->cur, 0, sizeof(s->cur));
	return rc;
}

int
fmt_put(struct fmt_sink *s, const struct fmt_frame *fr)
{
	switch (s->kind) {
	case FMT_CODIF: return fmt_codif_put(s, fr);
	case FMT_RAW: return fmt_raw_put(s, fr);
	case FMT_PCAP:
	case FMT_PCAPNG: return fmt_pcap_put(s, fr);
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
	fmt_record_end(s);
	s->rows++;
	s->nput = 0;
	rc = fio_maybe_flush(&s->f);
	fmt_settle(s);
	return rc;
}

void
fmt_row_abort(struct fmt_sink *s)
{
	/* cannot fail after fmt_row_begin: the row is still staged */
	fio_rollback(&s->f, s->mark);
	fmt_unstage(s, s->mark);
	s->nput = 0;
}

int
fmt_by_ref(struct fmt_sink *s, size_t batch, const char **why)
{
	int rc;

	if (s->kind != FMT_RAW) {
		if (why != NULL)
			*why = "not raw";
		return -EOPNOTSUPP;
	}
	rc = fio_ref_begin(&s->f, batch, why);
	if (rc == 0) {
		s->ref = true;
		s->confirmed = fio_size(&s->f);
	}
	return rc;
}

int
fmt_wait(struct fmt_sink *s)
{
	int rc = fio_wait(&s->f);

	fmt_settle(s);
	return rc;
}

int
fmt_row_confirm(struct fmt_sink *s, bool intact)
{
	struct fmt_pending was;
	size_t i;
	int rc;

	if (!s->ref)
		return -ENOENT;
	rc = fmt_raw_confirm(s, intact, &was);
	if (rc == -ENOENT)
		return rc;
	if (!intact) {
		/* its record (not counted yet: after `confirmed`) holds an
		 * overrun row now, as a row written as placeholders would */
		for (i = s->hpend; i < s->npend; i++) {
			struct fmt_pending *p = &s->pend[i];

			if (p->end < was.end)
				continue;
			p->frames -= was.frames;
			p->gaps -= was.gaps;
			p->overrun -= was.overrun;
			p->overrun += s->raw != NULL ? fmt_raw_nstream(s) : 0;
			break;
		}
	}
	s->confirmed = was.end;
	fmt_settle(s);
	return rc;
}

uint64_t
fmt_close_bytes_max(const struct fmt_sink *s)
{
	if (!s->f.open)
		return 0;
	return FIO_ALIGN + (s->kind == FMT_RAW ? fmt_raw_index_bytes_max(s) + FIO_ALIGN : 0);
}

int
fmt_close(struct fmt_sink *s, bool keep, bool *kept, char *err, size_t errlen)
{
	uint64_t bytes = 0, staged;
	int rc, irc = 0;

	if (kept != NULL)
		*kept = false;
	if (!s->f.open) {
		fmt_raw_free(s);
		fmt_pend_free(s);
		return 0;
	}
	if (s->ref) {
		/* rows its caller has not confirmed are taken as intact */
		uint64_t row;
		bool written;

		fio_wait(&s->f);
		while (fmt_ref_oldest(s, &row, &written))
			fmt_row_confirm(s, true);
	}
	staged = fio_size(&s->f);
	rc = fio_close(&s->f, keep, &bytes, err, errlen);
	/* a raw file kept (whole, or cut to whole rows) gets its index */
	if (s->kind == FMT_RAW && bytes > 0) {
		char e2[PATH_MAX + 256];
		uint64_t before = bytes;

		irc = fmt_raw_finish(s, &bytes, e2, sizeof(e2));
		if (irc != 0 && rc == 0)
			rc = err_set(err, errlen, irc, "%s%s", e2, bytes == 0 ? " (its data removed: "
				     "a raw file is never left without its index)" : "");
		else if (rc != 0 && irc != 0)
			err_append(err, errlen, "; then its index: %s (the data removed)", e2);
		else if (rc != 0 && bytes < before)
			err_append(err, errlen, "; then cut to %llu bytes, whole rows, to make room "
				   "for its index", (unsigned long long)bytes);
	}
	fmt_settle_close(s, staged, bytes);
	if (kept != NULL)
		*kept = bytes > 0;
	fmt_raw_free(s);
	fmt_pend_free(s);
	return rc;
}
