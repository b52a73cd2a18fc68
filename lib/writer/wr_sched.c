/* SPDX-License-Identifier: BSD-3-Clause */
/* The schedule of scans: checked changes, published by a sequence counter,
 * looked up by data time. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "codif.h"
#include "parse.h"
#include "wr_sched.h"

void
wr_sched_init(struct wr_sched *sc, bool idle)
{
	unsigned int i;

	memset(sc, 0, sizeof(*sc));
	sc->next_id = 1;
	for (i = 0; i < WR_SCHED_MAX_WRITERS; i++)
		sc->ctl_from[i] = idle ? INT64_MIN : WR_FREE_RUNNING;
}

void
wr_sched_begin(struct wr_sched *sc)
{
	__atomic_store_n(&sc->gen, sc->gen + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

void
wr_sched_end(struct wr_sched *sc)
{
	__atomic_store_n(&sc->gen, sc->gen + 1, __ATOMIC_RELEASE);
}

bool
wr_sched_snapshot(const struct wr_sched *sc, struct wr_sched *snap, uint64_t *seen)
{
	uint64_t g = __atomic_load_n(&sc->gen, __ATOMIC_ACQUIRE), g2;
	struct wr_sched tmp;

	if (g == *seen || (g & 1))
		return false;
	memcpy(&tmp, sc, sizeof(tmp));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	g2 = __atomic_load_n(&sc->gen, __ATOMIC_RELAXED);
	if (g2 != g)
		return false; /* changed while copied (tmp torn): snap kept, next time */
	memcpy(snap, &tmp, sizeof(*snap));
	*seen = g;
	return true;
}

uint32_t
wr_sched_lookup(const struct wr_sched *sc, unsigned int wi, unsigned int ant, int64_t t_ns,
		const struct wr_scan **scan)
{
	unsigned int i;

	*scan = NULL;
	if (wi >= WR_SCHED_MAX_WRITERS || t_ns < sc->ctl_from[wi])
		return WR_ROW_FREE;
	for (i = 0; i < sc->n; i++) {
		const struct wr_scan *s = &sc->s[i];

		if ((s->writers >> wi & 1) && (ant >= 64 || (s->ants >> ant & 1)) &&
		    t_ns >= s->start_ns && t_ns < s->stop_ns) {
			*scan = s;
			return s->id;
		}
	}
	return WR_ROW_SKIP;
}

bool
wr_scan_name_ok(const char *name)
{
	size_t n = strlen(name), i;

	if (n == 0 || n >= WR_SCAN_NAMELEN || name[0] == '.' || name[0] == '-')
		return false;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

static const char *
tstr(int64_t t, char *buf, size_t len)
{
	if (t == WR_SCAN_OPEN)
		return "open";
	return codif_time_str(t, buf, len);
}

const struct wr_scan *
wr_sched_find(const struct wr_sched *sc, const char *name)
{
	unsigned int i;

	for (i = 0; i < sc->n; i++)
		if (strcmp(sc->s[i].name, name) == 0)
			return &sc->s[i];
	return NULL;
}

int
wr_sched_add(struct wr_sched *sc, const struct wr_scan *in, int64_t now, unsigned int *idx,
	     struct err_refusal *why)
{
	char a[40], b[40], e[128];
	unsigned int i, w;

	if (!wr_scan_name_ok(in->name))
		return err_refuse(why, "scan", in->name,
			      "a name of 1 to 31 letters, digits, '_', '.' or '-' (not first)");
	if (wr_sched_find(sc, in->name) != NULL)
		return err_refuse(why, "scan", in->name, "a name no other scan has");
	if (in->writers == 0)
		return err_refuse(why, "writer", "none", "at least one writer");
	if (now != INT64_MIN && in->start_ns < now) {
		snprintf(e, sizeof(e), "a start not in the past (now %s)", tstr(now, b, sizeof(b)));
		return err_refuse(why, "at", tstr(in->start_ns, a, sizeof(a)), "%s", e);
	}
	if (in->stop_ns <= in->start_ns) {
		snprintf(e, sizeof(e), "a stop after the start %s", tstr(in->start_ns, b, sizeof(b)));
		return err_refuse(why, "until", tstr(in->stop_ns, a, sizeof(a)), "%s", e);
	}
	for (i = 0; i < sc->n; i++) {
		const struct wr_scan *s = &sc->s[i];

		if ((s->writers & in->writers) && in->start_ns < s->stop_ns &&
		    s->start_ns < in->stop_ns) {
			snprintf(e, sizeof(e), "no overlap: scan %s of a same writer is %s..%s",
				 s->name, tstr(s->start_ns, a, sizeof(a)), tstr(s->stop_ns, b, sizeof(b)));
			return err_refuse(why, "scan", in->name, "%s", e);
		}
	}
	if (sc->n == WR_MAX_SCANS) {
		/* forget the oldest finished scan, if one is */
		for (i = 0; i < sc->n; i++)
			if (now != INT64_MIN && sc->s[i].stop_ns <= now - 60 * 1000000000LL)
				break;
		if (i == sc->n) {
			snprintf(e, sizeof(e), "at most %d scans kept, finished ones forgotten after "
				 "a minute", WR_MAX_SCANS);
			return err_refuse(why, "scan", in->name, "%s", e);
		}
		wr_sched_begin(sc);
		memmove(&sc->s[i], &sc->s[i + 1], (sc->n - i - 1) * sizeof(sc->s[0]));
		sc->n--;
		wr_sched_end(sc);
	}
	wr_sched_begin(sc);
	sc->s[sc->n] = *in;
	sc->s[sc->n].id = sc->next_id++;
	for (w = 0; w < WR_SCHED_MAX_WRITERS; w++)
		if ((in->writers >> w & 1) && sc->ctl_from[w] > now)
			sc->ctl_from[w] = now;
	*idx = sc->n++;
	wr_sched_end(sc);
	return 0;
}

int
wr_sched_stop(struct wr_sched *sc, const char *name, uint64_t mask, int64_t stop, int64_t now,
	      struct err_refusal *why)
{
	char a[40], b[40], e[128];
	unsigned int i, w;
	int changed = 0;
	uint64_t freerun = 0;

	if (stop < now) {
		snprintf(e, sizeof(e), "a stop not in the past (now %s)", tstr(now, b, sizeof(b)));
		return err_refuse(why, "at", tstr(stop, a, sizeof(a)), "%s", e);
	}
	if (name != NULL) {
		const struct wr_scan *s = wr_sched_find(sc, name);

		if (s == NULL)
			return err_refuse(why, "scan", name, "the name of a scheduled scan (see status)");
		if (s->stop_ns <= now)
			return err_refuse(why, "scan", name, "a scan not finished yet");
		if (stop <= s->start_ns) {
			snprintf(e, sizeof(e), "a stop after the scan's start %s (or 'record cancel')",
				 tstr(s->start_ns, b, sizeof(b)));
			return err_refuse(why, "at", tstr(stop, a, sizeof(a)), "%s", e);
		}
		if (stop >= s->stop_ns) {
			snprintf(e, sizeof(e), "a stop before the scan's own stop %s",
				 tstr(s->stop_ns, b, sizeof(b)));
			return err_refuse(why, "at", tstr(stop, a, sizeof(a)), "%s", e);
		}
		wr_sched_begin(sc);
		((struct wr_scan *)s)->stop_ns = stop;
		wr_sched_end(sc);
		return 1;
	}
	for (w = 0; w < WR_SCHED_MAX_WRITERS; w++)
		if ((mask >> w & 1) && sc->ctl_from[w] > stop)
			freerun |= 1ULL << w;
	for (i = 0; i < sc->n; i++) {
		const struct wr_scan *s = &sc->s[i];

		if ((s->writers & mask) && s->start_ns < stop && stop < s->stop_ns)
			changed++;
	}
	if (changed == 0 && freerun == 0)
		return err_refuse(why, "writer", "the writers given",
			      "a writer recording at that time (a running scan, or no scan yet)");
	wr_sched_begin(sc);
	for (i = 0; i < sc->n; i++) {
		struct wr_scan *s = &sc->s[i];

		if ((s->writers & mask) && s->start_ns < stop && stop < s->stop_ns)
			s->stop_ns = stop;
	}
	for (w = 0; w < WR_SCHED_MAX_WRITERS; w++)
		if (freerun >> w & 1)
			sc->ctl_from[w] = stop;
	wr_sched_end(sc);
	return changed;
}

int
wr_sched_cancel(struct wr_sched *sc, const char *name, int64_t now, struct err_refusal *why)
{
	const struct wr_scan *s = wr_sched_find(sc, name);
	char b[40], e[128];
	unsigned int i;

	if (s == NULL)
		return err_refuse(why, "scan", name, "the name of a scheduled scan (see status)");
	if (s->start_ns <= now) {
		snprintf(e, sizeof(e), "a scan not begun yet (it began %s: use record off)",
			 tstr(s->start_ns, b, sizeof(b)));
		return err_refuse(why, "scan", name, "%s", e);
	}
	i = (unsigned int)(s - sc->s);
	wr_sched_begin(sc);
	memmove(&sc->s[i], &sc->s[i + 1], (sc->n - i - 1) * sizeof(sc->s[0]));
	sc->n--;
	wr_sched_end(sc);
	return 0;
}

void
wr_sched_current(const struct wr_sched *sc, uint64_t mask, int64_t t,
		 const struct wr_scan **cur, const struct wr_scan **next)
{
	unsigned int i;

	*cur = NULL;
	*next = NULL;
	for (i = 0; i < sc->n; i++) {
		const struct wr_scan *s = &sc->s[i];

		if (!(s->writers & mask))
			continue;
		if (s->start_ns <= t && t < s->stop_ns)
			*cur = s;
		else if (s->start_ns > t && (*next == NULL || s->start_ns < (*next)->start_ns))
			*next = s;
	}
}
