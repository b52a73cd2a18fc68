/* SPDX-License-Identifier: BSD-3-Clause */
/* What reached the file: a sink's records (rows; pcap packets) as staged,
 * on disk and cut, so that its written / placeholders / overrun figures
 * count what a file holds (fmt_disk, fmt_cut), exact after a cut. Every
 * format's file ends its records here (fmt_record_end). */

#include <stdlib.h>
#include <string.h>

#include "fmt_int.h"

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
void
fmt_unstage(struct fmt_sink *s, uint64_t mark)
{
	while (s->npend > s->hpend && s->pend[s->npend - 1].end > mark)
		s->npend--;
	memset(&s->cur, 0, sizeof(s->cur));
}

/* At the close: the file holds `kept` bytes (0: none, not kept); what was
 * staged beyond is cut. */
void
fmt_settle_close(struct fmt_sink *s, uint64_t staged, uint64_t kept)
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

void
fmt_pend_free(struct fmt_sink *s)
{
	free(s->pend);
	s->pend = NULL;
	s->npend = s->hpend = s->cappend = 0;
}
