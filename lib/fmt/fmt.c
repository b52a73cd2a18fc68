/* SPDX-License-Identifier: BSD-3-Clause */
/* The format sink: opens a file of one format over lib/fio, hands rows of
 * frames to that format's file, and finishes the file. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- what reached the file ------------------------------------------------ */

/* Records in s->pend: [0, hpend) are in the file (the newest of them kept,
 * so that a cut after the close can be counted exactly: `floor` is the end
 * of the newest one forgotten), [hpend, npend) are staged. */
#define FMT_HISTORY 128

static void
tally_add(struct fmt_tally *t, const struct fmt_pending *p)
{
	t->frames += p->frames;
	t->gaps += p->gaps;
	t->overrun += p->overrun;
}

static void
tally_sub(struct fmt_tally *t, const struct fmt_pending *p)
{
	t->frames -= p->frames;
	t->gaps -= p->gaps;
	t->overrun -= p->overrun;
}

/* Forget all but the newest FMT_HISTORY records in the file. */
static void
compact(struct fmt_sink *s)
{
	size_t drop;

	if (s->hpend <= FMT_HISTORY)
		return;
	drop = s->hpend - FMT_HISTORY;
	s->floor = s->pend[drop - 1].end;
	memmove(s->pend, s->pend + drop, (s->npend - drop) * sizeof(*s->pend));
	s->hpend -= drop;
	s->npend -= drop;
}

/* What of the file may be counted: written out, and (by reference)
 * confirmed intact or rewritten. */
static uint64_t
disk_upto(const struct fmt_sink *s)
{
	uint64_t d = fio_on_disk(&s->f);

	return s->ref && s->confirmed < d ? s->confirmed : d;
}

/* Records ending at or before `upto` are in the file: counted in disk. */
static void
settle(struct fmt_sink *s, uint64_t upto)
{
	while (s->hpend < s->npend && s->pend[s->hpend].end <= upto) {
		tally_add(&s->disk, &s->pend[s->hpend]);
		s->disk.bytes = s->pend[s->hpend].end;
		s->hpend++;
	}
	if (s->hpend > s->cappend / 2)
		compact(s);
}

/* Records ending after `upto` are not in the file after all (a cut at the
 * close): staged again. Exact when upto >= s->floor. */
static void
unsettle(struct fmt_sink *s, uint64_t upto)
{
	while (s->hpend > 0 && s->pend[s->hpend - 1].end > upto) {
		s->hpend--;
		tally_sub(&s->disk, &s->pend[s->hpend]);
	}
	s->disk.bytes = s->hpend > 0 ? s->pend[s->hpend - 1].end : s->floor;
}

static void
pend_merge(struct fmt_pending *into, const struct fmt_pending *p)
{
	into->end = p->end;
	into->frames += p->frames;
	into->gaps += p->gaps;
	into->overrun += p->overrun;
}

void
fmt_record_end(struct fmt_sink *s)
{
	struct fmt_pending p = { .end = fio_size(&s->f), .frames = (uint32_t)s->cur.frames,
				 .gaps = (uint32_t)s->cur.gaps,
				 .overrun = (uint32_t)s->cur.overrun };
	struct fmt_pending *last = s->npend > 0 ? &s->pend[s->npend - 1] : NULL;

	fio_record_end(&s->f);
	memset(&s->cur, 0, sizeof(s->cur));
	if (last != NULL && last->end == p.end) {
		/* no byte since the last record (a pcap row after its packets) */
		pend_merge(last, &p);
		if (s->npend == s->hpend)
			tally_add(&s->disk, &p);
		return;
	}
	if (s->npend == s->cappend)
		compact(s);
	if (s->npend == s->cappend) {
		size_t nc = s->cappend * 2;
		struct fmt_pending *n = realloc(s->pend, nc * sizeof(*n));

		if (n == NULL) {
			/* no memory: the last record grows by this one, and is
			 * counted when all of it is in the file (later, never
			 * wrongly); the queue is full of staged records */
			pend_merge(&s->pend[s->npend - 1], &p);
			return;
		}
		s->pend = n;
		s->cappend = nc;
	}
	s->pend[s->npend++] = p;
	settle(s, disk_upto(s));
}

void
fmt_settle(struct fmt_sink *s)
{
	settle(s, disk_upto(s));
}

/* Take back staged records ending after mark (a row taken back). */
static void
unstage(struct fmt_sink *s, uint64_t mark)
{
	while (s->npend > s->hpend && s->pend[s->npend - 1].end > mark)
		s->npend--;
	memset(&s->cur, 0, sizeof(s->cur));
}

/* At the close: the file holds `kept` bytes (0: none, not kept); what was
 * staged beyond is cut. */
static void
settle_close(struct fmt_sink *s, uint64_t staged, uint64_t kept)
{
	size_t i;

	settle(s, kept);
	if (kept == 0) {
		s->cut = s->disk;
		memset(&s->disk, 0, sizeof(s->disk));
	} else {
		memset(&s->cut, 0, sizeof(s->cut));
		unsettle(s, kept);
	}
	/* records ended but not kept (a record never ended, a row that
	 * failed half-way, was never handed over whole: not counted) */
	for (i = s->hpend; i < s->npend; i++)
		tally_add(&s->cut, &s->pend[i]);
	s->cut.bytes = staged > kept ? staged - kept : 0;
	s->disk.bytes = kept;
	s->hpend = s->npend = 0;
	memset(&s->cur, 0, sizeof(s->cur));
}

static void
pend_free(struct fmt_sink *s)
{
	free(s->pend);
	s->pend = NULL;
	s->npend = s->hpend = s->cappend = 0;
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
		snprintf(err, errlen, "%s: format %d, expected raw, codif, pcap or pcapng", path,
			 (int)k);
		return -EINVAL;
	}
	if (k == FMT_PCAPNG &&
	    (o->nifaces > FMT_MAX_IFACES || (o->nifaces > 0 && o->ifaces == NULL))) {
		snprintf(err, errlen, "%s: %u pcapng interfaces, expected 0..%d", path, o->nifaces,
			 FMT_MAX_IFACES);
		return -EINVAL;
	}
	rc = fio_open(&s->f, path, o->bufsize, o->fio_flags, err, errlen);
	if (rc != 0)
		return rc;
	s->cappend = 64;
	s->pend = malloc(s->cappend * sizeof(*s->pend));
	if (s->pend == NULL) {
		snprintf(err, errlen, "%s: out of memory", fio_part(&s->f));
		rc = -ENOMEM;
	} else if (k == FMT_RAW)
		rc = fmt_raw_start(s, idx, err, errlen);
	else if (k == FMT_PCAP && (rc = fmt_pcap_start(s)) != 0)
		snprintf(err, errlen, "%s: %s", fio_part(&s->f), strerror(-rc));
	else if (k == FMT_PCAPNG && (rc = fmt_pcapng_start(s, o)) != 0)
		snprintf(err, errlen, "%s: %s", fio_part(&s->f), strerror(-rc));
	if (rc != 0) {
		char e2[64];

		fio_close(&s->f, false, NULL, e2, sizeof(e2));
		fmt_raw_free(s);
		pend_free(s);
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
	unstage(s, s->mark);
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
		pend_free(s);
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
		size_t n;

		irc = fmt_raw_finish(s, &bytes, e2, sizeof(e2));
		if (irc != 0 && rc == 0) {
			snprintf(err, errlen, "%s%s", e2, bytes == 0 ? " (its data removed: a raw "
				 "file is never left without its index)" : "");
			rc = irc;
		} else if (rc != 0 && (n = strlen(err)) < errlen) {
			if (irc != 0)
				snprintf(err + n, errlen - n, "; then its index: %s (the data removed)",
					 e2);
			else if (bytes < before)
				snprintf(err + n, errlen - n, "; then cut to %llu bytes, whole rows, "
					 "to make room for its index", (unsigned long long)bytes);
		}
	}
	settle_close(s, staged, bytes);
	if (kept != NULL)
		*kept = bytes > 0;
	fmt_raw_free(s);
	pend_free(s);
	return rc;
}

void
fmt_params_json(json_t *o, const char *key, const struct codif_hdr *h)
{
	json_t *p = js_obj(o, key);

	js_u64(p, "nchan", h->nchan);
	js_u64(p, "nbits", h->nbits);
	js_bool(p, "complex", h->complex);
	js_u64(p, "representation", h->representation);
	js_u64(p, "period", h->period);
	js_u64(p, "totalsamples", h->totalsamples);
	js_u64(p, "frames_per_period", codif_frames_per_period(h));
	js_u64(p, "frame_ns", codif_frame_ns(h));
	js_u64(p, "data_bytes", codif_data_bytes(h));
	js_dbl(p, "data_rate_bps", codif_data_rate_bps(h));
	js_u64(p, "epoch", h->epoch);
}
