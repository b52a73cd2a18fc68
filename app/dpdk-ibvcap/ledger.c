/* SPDX-License-Identifier: BSD-3-Clause */
/* The scan ledger: for each scan and writer, the frames its span should
 * hold, those recorded and those missing by cause, as the main lcore keeps
 * it; its log lines, its telemetry (/ibvcap/scan) and its summary. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_telemetry.h>

#include "codif.h"
#include "config.h"
#include "rings.h"
#include "rx.h"
#include "scans.h"
#include "totals.h"
#include "writers.h"
#include "ledger.h"
#include "stats.h"
#include "refusal.h"
#include "json.h"
#include "parse.h"

int64_t
ibv_scan_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void
ibv_scan_tel_time(struct rte_tel_data *d, const char *key, int64_t t)
{
	char ts[CODIF_TIMESTR_LEN];

	rte_tel_data_add_dict_string(d, key, t == WR_SCAN_OPEN ? "open" :
				     codif_time_str(t, ts, sizeof(ts)));
}

/* ---- the scan ledger, the data clock ------------------------------------ */

/*
 * Per scan and --write writer (its lcores=N parts together): the frames
 * the scan's data-time span should hold (per antenna of both: its streams
 * x the frames of its clock in [start, stop)), those recorded, and those
 * missing by cause: lost on the wire (placeholders), overrun (the writer
 * behind the ring), cut (an I/O error), not arrived (the rest: frames of
 * the span the ring never held: not received, received but not recorded,
 * or data time elsewhere -- the reason says which it looks like). Each scan
 * is logged when added, begun (the data time reached its start) and ended
 * (the data time passed its stop and no file of it is open, or the capture
 * stopped); an end with fewer frames than the span holds is a warning. The
 * main lcore keeps it (ibv_rec_tick); telemetry and the summary read it.
 */

enum { SW_ADDED, SW_BEGUN, SW_ENDED };

void
ibv_ledger_init(struct ibv_ledger *lg, const struct ibv_ledger_deps *deps)
{
	memset(lg, 0, sizeof(*lg));
	lg->deps = *deps;
}

static const char *
wl_name(const struct ibv_wlcore *wl, char *buf, size_t len)
{
	snprintf(buf, len, "primary-%u-%s", wl->spec_idx, wr_format_name(wl->w.o.format));
	return buf;
}

/* Whether the --write writer with schedule bit spec is an all=yes pcap
 * (its antennas in one file: no per-antenna figures). */
static bool
wl_all(const struct ibv_ledger *lg, unsigned int spec)
{
	unsigned int i;

	for (i = 0; i < lg->deps.writers->n; i++)
		if (lg->deps.writers->wl[i]->spec_idx == spec && lg->deps.writers->wl[i]->w.o.all)
			return true;
	return false;
}

/* The --write writer with schedule bit i: its first part. */
static const struct ibv_wlcore *
wl_of(const struct ibv_ledger *lg, unsigned int spec)
{
	unsigned int i;

	for (i = 0; i < lg->deps.writers->n; i++)
		if (lg->deps.writers->wl[i]->spec_idx == spec)
			return lg->deps.writers->wl[i];
	return NULL;
}

/* The registry entry of the consumer following scans with schedule bit
 * `bit` (a dump slot), NULL none. A consumer (shm_writer_consumer)
 * records nothing to disk, so it is no row of a scan's ledger; its
 * figures (frames, invalid, outside, overrun) are its entry's. */
static const struct shm_writer *
cons_of(const struct ibv_ledger *lg, unsigned int bit)
{
	const struct shm_writer *r;

	if (lg->deps.rings->ctl == NULL || bit < WR_SCHED_DUMP_BASE ||
	    bit - WR_SCHED_DUMP_BASE >= SHM_MAX_WRITERS)
		return NULL;
	r = &lg->deps.rings->ctl->writer[bit - WR_SCHED_DUMP_BASE];
	return r->name[0] != '\0' && r->record == SHM_RECORD_FOLLOW && shm_writer_consumer(r) ? r : NULL;
}

/* The registry entry of the writer with schedule bit `bit`: a --write
 * writer's first part, or a dpdk-ibvcap-dump's slot -- one that has been
 * claimed by a dump following scans (a slot's name stays when its writer
 * ends or dies; a consumer's is none: cons_of) --, NULL none. */
static const struct shm_writer *
reg_of(const struct ibv_ledger *lg, unsigned int bit)
{
	const struct ibv_wlcore *wl;
	const struct shm_writer *r;

	if (lg->deps.rings->ctl == NULL)
		return NULL;
	if (bit >= WR_SCHED_DUMP_BASE) {
		if (bit - WR_SCHED_DUMP_BASE >= SHM_MAX_WRITERS)
			return NULL;
		r = &lg->deps.rings->ctl->writer[bit - WR_SCHED_DUMP_BASE];
		return r->name[0] != '\0' && r->pid != (int32_t)getpid() &&
		       r->record == SHM_RECORD_FOLLOW && !shm_writer_consumer(r) ? r : NULL;
	}
	wl = wl_of(lg, bit);
	return wl != NULL && wl->reg >= 0 ? &lg->deps.rings->ctl->writer[wl->reg] : NULL;
}

/* The name of the writer with schedule bit `bit`: primary-N-FORMAT, or a
 * dump's --name. */
static const char *
bit_name(const struct ibv_ledger *lg, unsigned int bit, char *buf, size_t len)
{
	const struct shm_writer *r;

	if (bit < WR_SCHED_DUMP_BASE)
		return wl_of(lg, bit) != NULL ? wl_name(wl_of(lg, bit), buf, len) : "?";
	r = reg_of(lg, bit);
	if (r != NULL && r->name[0] != '\0')
		snprintf(buf, len, "%.*s", (int)sizeof(r->name), r->name);
	else
		snprintf(buf, len, "dump-slot-%u", bit - WR_SCHED_DUMP_BASE);
	return buf;
}

/* A dump's published figures of scan id (lib/writer's wr_gate_publish):
 * false when it has none. */
static bool
reg_tally(const struct shm_writer *r, uint32_t id, struct shm_scan_tally *t)
{
	unsigned int k;

	for (k = 0; k < SHM_WRITER_SCANS; k++) {
		const struct shm_scan_tally *e = &r->scans[k];

		if (__atomic_load_n(&e->id, __ATOMIC_ACQUIRE) != id)
			continue;
		*t = *e;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&e->id, __ATOMIC_RELAXED) == id)
			return true;
	}
	return false;
}

/* Whether the writer with schedule bit `bit` may still add to scan x:
 * alive, and a file of the scan open, or its rows not yet past the scan's
 * stop (data: the newest frame time of the scan's antennas). */
static bool
writer_busy(const struct ibv_ledger *lg, unsigned int bit, const struct wr_scan *sc, int64_t data)
{
	const struct shm_writer *r = reg_of(lg, bit);
	struct shm_scan_tally t;

	if (r == NULL || !__atomic_load_n(&r->in_use, __ATOMIC_ACQUIRE) || r->dead)
		return false;
	if (bit >= WR_SCHED_DUMP_BASE && reg_tally(r, sc->id, &t) && t.open)
		return true;
	return data - (int64_t)r->lag_ns < sc->stop_ns;
}

/* The first frame index of clk at or after t. */
static int64_t
first_at(const struct codif_clock *c, int64_t t)
{
	int64_t t0 = codif_clock_time_ns(c, 0);
	double fns = (double)c->period_ns / (double)c->fpp;
	int64_t n = (int64_t)((double)(t - t0) / fns);

	while (codif_clock_time_ns(c, n) < t)
		n++;
	while (codif_clock_time_ns(c, n - 1) >= t)
		n--;
	return n;
}

/* Antenna a's timeline clock (the rx lcore that has it), or NULL. */
static const struct codif_clock *
ant_clock(const struct ibv_ledger *lg, unsigned int a)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = lg->deps.lcores->lc[i];

		if (lc != NULL && lc->acct != NULL && lc->acct->ant[a].tl.started &&
		    lc->acct->ant[a].tl.clk.fpp > 0)
			return &lc->acct->ant[a].tl.clk;
	}
	return NULL;
}

static void
secs_str(int64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f s", (double)ns / 1e9);
}

/* Frames of scan id and antenna a received and not recorded (every rx
 * lcore's count, rx.c scan_nr_count). */
static uint64_t
scan_nr_of(const struct ibv_ledger *lg, uint32_t id, unsigned int a)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = lg->deps.lcores->lc[i];
		const struct ibv_scan_nr *e;

		if (lc == NULL || lc->scan_nr == NULL)
			continue;
		e = &lc->scan_nr[id % IBV_SCAN_NR];
		if (__atomic_load_n(&e->id, __ATOMIC_ACQUIRE) == id)
			n += __atomic_load_n(&e->nr[a], __ATOMIC_RELAXED);
	}
	return n;
}

/* Where the data of a scan's antennas lay, for the reason of a shortfall:
 * the worst offset of a data clock from the host's, the first and last
 * frame, whether an antenna has no clock yet. */
struct ledger_span {
	int64_t worst, first, last;
	bool clock_unknown;
};

/* Entry g made empty for a writer, its antennas' rows kept (allocated the
 * first time). */
static void
ledger_reset(struct ibv_scan_ledger *g)
{
	struct ibv_ant_ledger *keep = g->ant;

	memset(g, 0, sizeof(*g));
	if (keep != NULL)
		memset(keep, 0, ACCT_MAX_ANTENNAS * sizeof(*keep));
	g->ant = keep != NULL ? keep : calloc(ACCT_MAX_ANTENNAS, sizeof(*g->ant));
}

/* The figures writer spec has of scan s: a dump's as it published them (r),
 * or the sum of the --write writer's lcores. @return its antennas (bit a). */
static uint64_t
ledger_writer(const struct ibv_ledger *lg, const struct wr_scan *s, unsigned int spec,
	      const struct shm_writer *r, struct ibv_scan_ledger *g)
{
	uint64_t onmask = 0;
	unsigned int i, a;

	if (r != NULL) { /* a dump: its published figures */
		struct shm_scan_tally tt;

		if (reg_tally(r, s->id, &tt)) {
			g->recorded = tt.frames;
			g->lost = tt.gaps;
			g->overrun = tt.overrun;
			g->cut = tt.cut;
		}
		return r->ants;
	}
	for (i = 0; i < lg->deps.writers->n; i++) {
		const struct ibv_wlcore *wl = lg->deps.writers->wl[i];
		struct wr_scan_tally tt;

		if (wl->spec_idx != spec)
			continue;
		for (a = 0; a < wl->w.n && a < 64; a++)
			if (wl->w.src[a].on)
				onmask |= 1ULL << a;
		if (wr_gate_tally(&wl->w, s->id, &tt)) {
			g->recorded += tt.frames;
			g->lost += tt.gaps;
			g->overrun += tt.overrun;
			g->cut += tt.cut;
		}
	}
	return onmask;
}

/* Antenna a's row of writer spec's ledger: what the writer's lcore that has
 * the antenna recorded of scan s. */
static void
ledger_ant_recorded(const struct ibv_ledger *lg, const struct wr_scan *s, unsigned int spec,
		    unsigned int a, struct ibv_ant_ledger *al)
{
	unsigned int i;

	for (i = 0; i < lg->deps.writers->n; i++) {
		const struct ibv_wlcore *wl = lg->deps.writers->wl[i];
		struct wr_scan_tally tt;

		if (wl->spec_idx != spec || a >= wl->w.n || !wl->w.src[a].on ||
		    !wr_gate_tally_ant(&wl->w, s->id, a, &tt))
			continue;
		al->recorded += tt.frames;
		al->lost += tt.gaps;
		al->overrun += tt.overrun;
		al->cut += tt.cut;
	}
}

/* Antenna a's part of writer g's ledger of scan s: the frames expected of
 * it (its clock's rows of the scan x its streams), those not recorded, and
 * where its data lay (sp). al: its own row (NULL: none kept). */
static void
ledger_ant(const struct ibv_ledger *lg, const struct ibv_totals *t, const struct wr_scan *s,
	   unsigned int a, struct ibv_scan_ledger *g, struct ibv_ant_ledger *al,
	   struct ledger_span *sp)
{
	const struct codif_clock *c = ant_clock(lg, a);
	int64_t lo, hi;
	uint64_t e = 0, nr;

	if (c == NULL) {
		sp->clock_unknown = true;
		return;
	}
	lo = first_at(c, s->start_ns);
	hi = s->stop_ns == WR_SCAN_OPEN ? first_at(c, t->ant[a].last_ns + 1) :
	     first_at(c, s->stop_ns);
	if (hi > lo)
		e = (uint64_t)(hi - lo) * t->ant[a].streams;
	g->expected += e;
	nr = scan_nr_of(lg, s->id, a);
	g->not_recorded += nr;
	if (al != NULL) {
		uint64_t have = al->recorded + al->lost + al->overrun + al->cut + nr;

		al->expected = e;
		al->not_recorded = nr;
		al->not_arrived = al->known && e > have ? e - have : 0;
	}
	if (lg->offset_known[a] &&
	    (lg->offset_ns[a] > sp->worst ? lg->offset_ns[a] : -lg->offset_ns[a]) >
	    (sp->worst > 0 ? sp->worst : -sp->worst))
		sp->worst = lg->offset_ns[a];
	if (t->ant[a].first_ns < sp->first)
		sp->first = t->ant[a].first_ns;
	if (t->ant[a].last_ns > sp->last)
		sp->last = t->ant[a].last_ns;
}

/* Why frames of scan s did not arrive: the data's clock, if it is off the
 * host's (a scan given in host time), else where the data began or ended. */
static size_t
ledger_not_arrived(const struct ibv_ledger *lg, const struct wr_scan *s,
		   const struct ledger_span *sp, char *out, size_t len)
{
	int64_t w = sp->worst < 0 ? -sp->worst : sp->worst;
	bool outside = sp->last == INT64_MIN || sp->first >= s->stop_ns ||
		       sp->last < s->start_ns;
	char a1[40], b1[64];

	if (sp->last == INT64_MIN)
		return (size_t)snprintf(out, len, "no data arrived");
	if (outside && (uint64_t)w > lg->deps.cfg->clock_warn_ns) {
		secs_str(w, a1, sizeof(a1));
		return (size_t)snprintf(out, len, "data clock %s %s the host clock", a1,
					sp->worst > 0 ? "ahead of" : "behind");
	}
	if (sp->first > s->start_ns)
		return (size_t)snprintf(out, len,
					"data began after the scan's start (first frame %s)",
					codif_time_str(sp->first, b1, sizeof(b1)));
	if (sp->last < s->stop_ns && s->stop_ns != WR_SCAN_OPEN)
		return (size_t)snprintf(out, len, "data ended before the scan's stop");
	return (size_t)snprintf(out, len, "frames not received");
}

/* Writer g's reason for a shortfall of scan s, each cause in turn. */
static void
ledger_reason(const struct ibv_ledger *lg, const struct wr_scan *s, const struct ledger_span *sp,
	      struct ibv_scan_ledger *g)
{
	size_t o = 0;

	if (g->not_arrived > 0)
		o += ledger_not_arrived(lg, s, sp, g->reason, sizeof(g->reason));
	if (sp->clock_unknown && o < sizeof(g->reason))
		o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
			"%san antenna of it has sent nothing (its frames not counted)",
			o ? "; " : "");
	if (g->lost && o < sizeof(g->reason))
		o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
			"%slost on the wire", o ? "; " : "");
	if (g->not_recorded && o < sizeof(g->reason))
		o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
			"%sreceived, not recorded (by cause: the streams' "
			"not_recorded)", o ? "; " : "");
	if (g->overrun && o < sizeof(g->reason))
		o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
			"%swriter behind the ring (overrun)", o ? "; " : "");
	if (g->cut && o < sizeof(g->reason))
		snprintf(g->reason + o, sizeof(g->reason) - o,
			 "%sI/O error (cut)", o ? "; " : "");
}

/* The ledger of scan x for each of its writers (--write and dumps), as of
 * now: what each recorded, lost, overran and cut, what was expected and
 * not recorded, and why any of it fell short. */
static void
ledger_fill(const struct ibv_ledger *lg, const struct ibv_totals *t, struct ibv_scan_watch *x)
{
	const struct acct_layout *l = &lg->deps.cfg->layout;
	const struct wr_scan *s = &x->sc;
	unsigned int spec, a;

	x->nl = 0;
	for (spec = 0; spec < WR_SCHED_DUMP_BASE + WR_SCHED_DUMP_SLOTS; spec++) {
		struct ledger_span sp = { 0, INT64_MAX, INT64_MIN, false };
		const struct shm_writer *r = NULL;
		struct ibv_scan_ledger *g;
		uint64_t onmask, have;
		bool per_ant;

		if (!(s->writers >> spec & 1))
			continue;
		if (spec < WR_SCHED_DUMP_BASE ? wl_of(lg, spec) == NULL :
		    (r = reg_of(lg, spec)) == NULL)
			continue;
		g = &x->l[x->nl++];
		ledger_reset(g);
		g->spec = spec;
		bit_name(lg, spec, g->writer, sizeof(g->writer));
		onmask = ledger_writer(lg, s, spec, r, g);
		/* a --write writer keeps its figures per antenna, but an
		 * all=yes pcap's (one file); a dump publishes sums only */
		per_ant = r == NULL && !wl_all(lg, spec);
		for (a = 0; a < l->nant; a++) {
			struct ibv_ant_ledger *al = g->ant != NULL ? &g->ant[a] : NULL;

			if (!(onmask >> a & 1) || !(s->ants >> a & 1))
				continue;
			if (al != NULL) {
				al->on = true;
				al->known = per_ant;
				al->streams = t->ant[a].streams;
				if (per_ant)
					ledger_ant_recorded(lg, s, spec, a, al);
			}
			ledger_ant(lg, t, s, a, g, al, &sp);
		}
		have = g->recorded + g->lost + g->overrun + g->cut + g->not_recorded;
		g->not_arrived = g->expected > have ? g->expected - have : 0;
		if (g->not_arrived > 0 || g->lost || g->overrun || g->cut || g->not_recorded ||
		    sp.clock_unknown)
			ledger_reason(lg, s, &sp, g);
	}
}

static void
ledger_log(const struct ibv_scan_watch *x, FILE *f)
{
	unsigned int i;

	if (x->nl == 0)
		fprintf(f, "dpdk-ibvcap: scan %s ended (no --write writer of this capture "
			"records it)\n", x->sc.name);
	for (i = 0; i < x->nl; i++) {
		const struct ibv_scan_ledger *g = &x->l[i];
		bool short_ = g->recorded < g->expected;

		fprintf(f, "dpdk-ibvcap: %sscan %s ended, %s: %" PRIu64 " of %" PRIu64
			" frames recorded", short_ ? "warning: " : "", x->sc.name,
			g->writer, g->recorded, g->expected);
		if (short_ || g->lost || g->overrun || g->cut || g->not_recorded)
			fprintf(f, " (missing: lost %" PRIu64 ", not recorded %" PRIu64
				", overrun %" PRIu64 ", cut %" PRIu64 ", not arrived %" PRIu64 ")%s%s",
				g->lost, g->not_recorded, g->overrun, g->cut,
				g->not_arrived, g->reason[0] ? ": " : "", g->reason);
		fprintf(f, "\n");
	}
}

/* The watch of the scan with this id: its index, or lg->n (none). */
static unsigned int
watch_of(const struct ibv_ledger *lg, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < lg->n && lg->w[i].sc.id != id; i++)
		;
	return i;
}

/* A new scan to watch (the oldest ended one forgotten when full). */
static struct ibv_scan_watch *
watch_add(struct ibv_ledger *lg, const struct wr_scan *s)
{
	unsigned int i;

	if (lg->n == RTE_DIM(lg->w)) {
		for (i = 0; i < lg->n && lg->w[i].state != SW_ENDED; i++)
			;
		if (i == lg->n)
			return NULL;
		{
			unsigned int k;

			for (k = 0; k < RTE_DIM(lg->w[i].l); k++)
				free(lg->w[i].l[k].ant);
		}
		memmove(&lg->w[i], &lg->w[i + 1], (lg->n - i - 1) * sizeof(lg->w[0]));
		lg->n--;
	}
	memset(&lg->w[lg->n], 0, sizeof(lg->w[0]));
	lg->w[lg->n].sc = *s;
	return &lg->w[lg->n++];
}

/* Each antenna's data time against the host clock, at a new frame: a
 * warning when it is off by more than --clock-warn, a line when it agrees
 * again. */
static void
tick_offsets(struct ibv_ledger *lg, const struct ibv_totals *t, int64_t now, FILE *f)
{
	const struct acct_layout *l = &lg->deps.cfg->layout;
	char ts[CODIF_TIMESTR_LEN], ts2[CODIF_TIMESTR_LEN];
	unsigned int a;

	for (a = 0; a < l->nant; a++) {
		int64_t last = t->ant[a].last_ns, off;

		if (t->ant[a].received == 0 || last == INT64_MIN || last == lg->last_ns[a])
			continue;
		lg->last_ns[a] = last;
		off = last - now;
		lg->offset_ns[a] = off;
		lg->offset_known[a] = true;
		if ((uint64_t)(off < 0 ? -off : off) > lg->deps.cfg->clock_warn_ns && !lg->warned[a]) {
			secs_str(off < 0 ? -off : off, ts, sizeof(ts));
			fprintf(f, "dpdk-ibvcap: warning: antenna %s: its data time is %s %s the host "
				"clock (newest frame %s; --clock-warn %.3f s): scans are data time, "
				"they record what the data's clock says\n", l->ant_name[a], ts,
				off > 0 ? "ahead of" : "behind", codif_time_str(last, ts2, sizeof(ts2)),
				(double)lg->deps.cfg->clock_warn_ns / 1e9);
			lg->warned[a] = true;
		} else if ((uint64_t)(off < 0 ? -off : off) <= lg->deps.cfg->clock_warn_ns / 2 &&
			   lg->warned[a]) {
			fprintf(f, "dpdk-ibvcap: antenna %s: its data time agrees with the host "
				"clock again (%.3f s apart)\n", l->ant_name[a], (double)off / 1e9);
			lg->warned[a] = false;
		}
	}
}

/* The schedule as it is now: a scan not watched yet is watched and said
 * (with its writers); one no longer in it is marked gone. */
static void
tick_schedule(struct ibv_ledger *lg, FILE *f)
{
	char ts[CODIF_TIMESTR_LEN], ts2[CODIF_TIMESTR_LEN], n[64];
	unsigned int i;

	wr_sched_snapshot(lg->deps.scans->sched, &lg->snap, &lg->seen);
	for (i = 0; i < lg->n; i++)
		lg->w[i].gone = true;
	for (i = 0; i < lg->snap.n; i++) {
		const struct wr_scan *s = &lg->snap.s[i];
		unsigned int xi = watch_of(lg, s->id);
		struct ibv_scan_watch *x = xi < lg->n ? &lg->w[xi] : NULL;
		char wn[256], cn[256];
		size_t o = 0, oc = 0;
		unsigned int k;

		if (x == NULL) {
			const struct shm_writer *c;

			if ((x = watch_add(lg, s)) == NULL)
				continue;
			wn[0] = cn[0] = '\0';
			for (k = 0; k < WR_SCHED_DUMP_BASE + WR_SCHED_DUMP_SLOTS && o < sizeof(wn); k++)
				if ((s->writers >> k & 1) && (k < WR_SCHED_DUMP_BASE ?
							      wl_of(lg, k) != NULL :
							      reg_of(lg, k) != NULL))
					o += (size_t)snprintf(wn + o, sizeof(wn) - o, "%s%s", o ? "," : "",
							      bit_name(lg, k, n, sizeof(n)));
			/* consumers following it: said, no rows of its ledger */
			for (k = WR_SCHED_DUMP_BASE; k < WR_SCHED_DUMP_BASE + WR_SCHED_DUMP_SLOTS &&
			     oc < sizeof(cn); k++)
				if ((s->writers >> k & 1) && (c = cons_of(lg, k)) != NULL)
					oc += (size_t)snprintf(cn + oc, sizeof(cn) - oc, "%s%.*s",
							       oc ? "," : "", (int)sizeof(c->name),
							       c->name);
			fprintf(f, "dpdk-ibvcap: scan %s added (%s): data time %s .. %s, writers %s%s%s\n",
				s->name, s->origin, codif_time_str(s->start_ns, ts, sizeof(ts)),
				s->stop_ns == WR_SCAN_OPEN ? "open" :
				codif_time_str(s->stop_ns, ts2, sizeof(ts2)), o ? wn : "none",
				oc ? "; consumers following it (no ledger rows): " : "", cn);
		}
		x->sc = *s;
		x->gone = false;
	}
}

/* Whether a writer of scan x still has rows of it to take (data: the scan's
 * antennas' newest frame): a --write writer with a file of it open or its
 * cursor behind, a dump busy with it. */
static bool
scan_busy(const struct ibv_ledger *lg, const struct ibv_totals *t, const struct ibv_scan_watch *x,
	  int64_t data)
{
	const struct acct_layout *l = &lg->deps.cfg->layout;
	unsigned int k, a;

	for (k = 0; k < lg->deps.writers->n; k++) {
		const struct ibv_wlcore *wl = lg->deps.writers->wl[k];
		struct wr_scan_tally tt;

		if (!(x->sc.writers >> wl->spec_idx & 1))
			continue;
		if (wr_gate_tally(&wl->w, x->sc.id, &tt) && tt.open)
			return true;
		/* rows of the scan it has not taken yet (a writer off its CPU
		 * publishes an old lag: its own cursor, per antenna, says) */
		for (a = 0; a < l->nant; a++)
			if ((x->sc.ants >> a & 1) && t->ant[a].received &&
			    wr_behind(&wl->w, a, t->ant[a].last_ns, x->sc.stop_ns))
				return true;
	}
	/* every writer of it past its stop (a writer behind the ring has not
	 * taken its rows yet), dumps with their files closed */
	for (k = 0; k < WR_SCHED_DUMP_BASE + WR_SCHED_DUMP_SLOTS; k++)
		if ((x->sc.writers >> k & 1) && writer_busy(lg, k, &x->sc, data))
			return true;
	return false;
}

/* Scan x's state moved on: begun when the data time reached its start,
 * cancelled or not begun, and ended (its ledger filled and logged) once
 * every writer of it is done with it (final: at the stop, the writers
 * done). */
static void
tick_watch(const struct ibv_ledger *lg, const struct ibv_totals *t, struct ibv_scan_watch *x,
	   int64_t now, bool final, FILE *f)
{
	const struct acct_layout *l = &lg->deps.cfg->layout;
	char ts[CODIF_TIMESTR_LEN];
	int64_t data = INT64_MIN;
	unsigned int a;
	bool open;

	if (x->state == SW_ENDED)
		return;
	for (a = 0; a < l->nant; a++)
		if ((x->sc.ants >> a & 1) && t->ant[a].received && t->ant[a].last_ns > data)
			data = t->ant[a].last_ns;
	if (x->gone && x->state == SW_ADDED) { /* cancelled before it began */
		fprintf(f, "dpdk-ibvcap: scan %s cancelled\n", x->sc.name);
		x->state = SW_ENDED;
		return;
	}
	if (x->state == SW_ADDED && data >= x->sc.start_ns) {
		fprintf(f, "dpdk-ibvcap: scan %s begun: the data time reached its start "
			"(newest frame %s)\n", x->sc.name, codif_time_str(data, ts, sizeof(ts)));
		x->state = SW_BEGUN;
	}
	if (x->state == SW_ADDED && final) {
		/* left as not begun: the summary says so */
		fprintf(f, "dpdk-ibvcap: scan %s not begun: the capture stopped before the "
			"data time reached its start (newest frame %s)\n", x->sc.name,
			data == INT64_MIN ? "none" : codif_time_str(data, ts, sizeof(ts)));
		return;
	}
	if (x->state != SW_BEGUN)
		return;
	open = scan_busy(lg, t, x, data);
	if (!final) {
		if (x->sc.stop_ns == WR_SCAN_OPEN || data < x->sc.stop_ns)
			return;
		if (x->past_ns == 0)
			x->past_ns = now;
		/* the writers' rows lag the newest frame: half a second more,
		 * and two ticks in a row with none busy (a file closes just
		 * after its writer took the row past it) */
		x->quiet = open ? 0 : x->quiet + 1;
		if (open || x->quiet < 2 || now - x->past_ns < 500000000LL)
			return;
	}
	ledger_fill(lg, t, x);
	ledger_log(x, f);
	x->state = SW_ENDED;
}

void
ibv_rec_tick(struct ibv_ledger *lg, FILE *f, bool final)
{
	struct ibv_totals *t = malloc(sizeof(*t));
	int64_t now = ibv_scan_now_ns();
	unsigned int i;

	if (t == NULL)
		return;
	ibv_collect(lg->deps.counts, t);
	tick_offsets(lg, t, now, f);
	tick_schedule(lg, f);
	for (i = 0; i < lg->n; i++)
		tick_watch(lg, t, &lg->w[i], now, final, f);
	fflush(f);
	free(t);
}

/* The ledger of one scan, into a JSON array. */
static void
ledger_json(const struct ibv_scan_watch *x, json_t *arr)
{
	unsigned int i;

	for (i = 0; i < x->nl; i++) {
		const struct ibv_scan_ledger *g = &x->l[i];
		json_t *o = js_obj(arr, NULL), *m;

		js_str(o, "writer", g->writer);
		js_u64(o, "expected", g->expected);
		js_u64(o, "recorded", g->recorded);
		m = js_obj(o, "missing");
		js_u64(m, "lost", g->lost);
		js_u64(m, "not_recorded", g->not_recorded);
		js_u64(m, "overrun", g->overrun);
		js_u64(m, "cut", g->cut);
		js_u64(m, "not_arrived", g->not_arrived);
		js_str(o, "reason", g->reason);
		js_str(o, "result", g->recorded < g->expected ? "short" : "complete");
	}
}

/* The ledgers of the scans ended (a row per scan and --write writer, as
 * parallel arrays: ledger_scan, ledger_writer, ledger_expected, ..._recorded,
 * ..._lost, ..._overrun, ..._cut, ..._not_arrived, ledger_reason,
 * ledger_not_recorded) and each
 * antenna's data time minus the host clock (data_offset_ms, in antenna
 * order; data_offset_known 0 before its first frame). */
void
ibv_ledger_tel(const struct ibv_ledger *lg, struct rte_tel_data *d)
{
	static const char *const keys[] = { "ledger_scan", "ledger_writer", "ledger_reason",
					    "ledger_expected", "ledger_recorded", "ledger_lost",
					    "ledger_overrun", "ledger_cut", "ledger_not_arrived",
					    "data_offset_ms", "data_offset_known",
					    "ledger_not_recorded" };
	struct rte_tel_data *a[RTE_DIM(keys)] = { NULL };
	unsigned int i, k, ant;

	for (k = 0; k < RTE_DIM(a); k++) {
		a[k] = rte_tel_data_alloc();
		if (a[k] == NULL)
			goto out;
		rte_tel_data_start_array(a[k], k < 3 ? RTE_TEL_STRING_VAL :
					 k == 9 ? RTE_TEL_INT_VAL : RTE_TEL_U64_VAL);
	}
	for (i = 0; i < lg->n; i++) {
		const struct ibv_scan_watch *x = &lg->w[i];

		if (x->state != SW_ENDED)
			continue;
		for (k = 0; k < x->nl; k++) {
			const struct ibv_scan_ledger *g = &x->l[k];

			rte_tel_data_add_array_string(a[0], x->sc.name);
			rte_tel_data_add_array_string(a[1], g->writer);
			rte_tel_data_add_array_string(a[2], g->reason);
			rte_tel_data_add_array_u64(a[3], g->expected);
			rte_tel_data_add_array_u64(a[4], g->recorded);
			rte_tel_data_add_array_u64(a[5], g->lost);
			rte_tel_data_add_array_u64(a[6], g->overrun);
			rte_tel_data_add_array_u64(a[7], g->cut);
			rte_tel_data_add_array_u64(a[8], g->not_arrived);
			rte_tel_data_add_array_u64(a[11], g->not_recorded);
		}
	}
	for (ant = 0; ant < lg->deps.cfg->layout.nant; ant++) {
		int64_t ms = lg->offset_ns[ant] / 1000000;

		rte_tel_data_add_array_int(a[9], ms > INT32_MAX ? INT32_MAX :
					   ms < -INT32_MAX ? -INT32_MAX : (int)ms);
		rte_tel_data_add_array_u64(a[10], lg->offset_known[ant]);
	}
	rte_tel_data_add_dict_u64(d, "clock_warn_ms", lg->deps.cfg->clock_warn_ns / 1000000);
out:
	for (k = 0; k < RTE_DIM(a); k++)
		if (a[k] != NULL && rte_tel_data_add_dict_container(d, keys[k], a[k], 0) != 0)
			rte_tel_data_free(a[k]);
}

/*
 * /ibvcap/scan,NAME[,WRITER]: one scan's ledger. Without WRITER: its span,
 * its state (added, begun, ended) and, once ended, a row per writer (the
 * figures of /ibvcap/record's ledger_*); with WRITER (its name in those
 * rows): that writer's row per antenna of the scan (antenna, streams,
 * expected, recorded, missing by cause, known: 0 where the writer keeps
 * no per-antenna figures: a dump, an all=yes pcap). The array's agent
 * writes these as the host's scan ledger (docs/formats.md).
 */
int
ibv_rec_tel_scan(struct ibv_ledger *lg, const char *params, struct rte_tel_data *d)
{
	static const char *const rk[] = { "writer", "reason", "expected", "recorded", "lost",
					  "not_recorded", "overrun", "cut", "not_arrived" };
	static const char *const ak[] = { "antenna", "streams", "known", "expected", "recorded",
					  "lost", "not_recorded", "overrun", "cut",
					  "not_arrived" };
	struct rte_tel_data *c[RTE_DIM(ak)] = { NULL };
	const struct ibv_scan_watch *x = NULL;
	const struct ibv_scan_ledger *g = NULL;
	struct err_refusal why;
	char buf[WR_SCAN_NAMELEN + SHM_NAMELEN + 32], *wn;
	unsigned int i, k, n;

	rte_tel_data_start_dict(d);
	snprintf(buf, sizeof(buf), "%s", params != NULL ? params : "");
	wn = strchr(buf, ',');
	if (wn != NULL)
		*wn++ = '\0';
	for (i = 0; i < lg->n; i++)
		if (strcmp(lg->w[i].sc.name, buf) == 0)
			x = &lg->w[i]; /* the newest of that name */
	if (x == NULL) {
		err_refuse(&why, "scan", buf, "a scan this capture knows (scan_names of "
			"/ibvcap/record,status)");
		ibv_refusal_tel(d, "scan", &why);
		return 0;
	}
	rte_tel_data_add_dict_string(d, "scan", x->sc.name);
	rte_tel_data_add_dict_string(d, "origin", x->sc.origin);
	ibv_scan_tel_time(d, "start_utc", x->sc.start_ns);
	ibv_scan_tel_time(d, "stop_utc", x->sc.stop_ns);
	rte_tel_data_add_dict_u64(d, "start_ns", (uint64_t)x->sc.start_ns);
	rte_tel_data_add_dict_u64(d, "stop_ns", x->sc.stop_ns == WR_SCAN_OPEN ? 0 :
				  (uint64_t)x->sc.stop_ns);
	rte_tel_data_add_dict_string(d, "state", x->state == SW_ENDED ? "ended" :
				     x->state == SW_BEGUN ? "begun" : "added");
	if (x->state != SW_ENDED)
		return 0;
	if (wn != NULL) {
		for (k = 0; k < x->nl; k++)
			if (strcmp(x->l[k].writer, wn) == 0)
				g = &x->l[k];
		if (g == NULL || g->ant == NULL) {
			err_refuse(&why, "writer", wn, "a writer of the scan's ledger "
				"(/ibvcap/scan,NAME: writer)");
			ibv_refusal_tel(d, "scan", &why);
			return 0;
		}
		rte_tel_data_add_dict_string(d, "writer", g->writer);
		n = RTE_DIM(ak);
	} else {
		n = RTE_DIM(rk);
	}
	for (k = 0; k < n; k++) {
		if ((c[k] = rte_tel_data_alloc()) == NULL)
			goto out;
		rte_tel_data_start_array(c[k], k < 2 - (wn != NULL) ? RTE_TEL_STRING_VAL :
					 RTE_TEL_U64_VAL);
	}
	if (wn != NULL) {
		const struct acct_layout *l = &lg->deps.cfg->layout;

		for (i = 0; i < l->nant; i++) {
			const struct ibv_ant_ledger *al = &g->ant[i];
			const uint64_t v[] = { al->streams, al->known, al->expected, al->recorded,
					       al->lost, al->not_recorded, al->overrun, al->cut,
					       al->not_arrived };

			if (!al->on)
				continue;
			rte_tel_data_add_array_string(c[0], l->ant_name[i]);
			for (k = 0; k < RTE_DIM(v); k++)
				rte_tel_data_add_array_u64(c[k + 1], v[k]);
		}
	} else {
		for (i = 0; i < x->nl; i++) {
			const struct ibv_scan_ledger *e = &x->l[i];
			const uint64_t v[] = { e->expected, e->recorded, e->lost, e->not_recorded,
					       e->overrun, e->cut, e->not_arrived };

			rte_tel_data_add_array_string(c[0], e->writer);
			rte_tel_data_add_array_string(c[1], e->reason);
			for (k = 0; k < RTE_DIM(v); k++)
				rte_tel_data_add_array_u64(c[k + 2], v[k]);
		}
	}
out:
	for (k = 0; k < n; k++)
		if (c[k] != NULL && rte_tel_data_add_dict_container(d, wn != NULL ? ak[k] : rk[k],
								     c[k], 0) != 0)
			rte_tel_data_free(c[k]);
	return 0;
}

/* ---- the summary ---------------------------------------------------------- */

void
ibv_rec_summary_json(const struct ibv_ledger *lg, json_t *root)
{
	json_t *o = js_obj(root, "recording"), *arr, *sc;
	char ts[CODIF_TIMESTR_LEN];
	unsigned int i;

	js_str(o, "record", lg->deps.cfg->record == IBV_REC_IDLE ? "idle" : "always");
	js_str(o, "schedule", lg->deps.cfg->schedule);
	sc = js_arr(o, "schedule_scans");
	for (i = 0; i < lg->deps.scans->sched->n; i++) {
		const struct wr_scan *s = &lg->deps.scans->sched->s[i];
		json_t *x = js_obj(sc, NULL);

		js_str(x, "scan", s->name);
		js_str(x, "origin", s->origin);
		js_str(x, "start_utc", codif_time_str(s->start_ns, ts, sizeof(ts)));
		if (s->stop_ns == WR_SCAN_OPEN)
			js_null(x, "stop_utc");
		else
			js_str(x, "stop_utc", codif_time_str(s->stop_ns, ts, sizeof(ts)));
		{
			json_t *wa = js_arr(x, "writers");
			unsigned int k, wi = watch_of(lg, s->id);
			const struct ibv_scan_watch *w = wi < lg->n ? &lg->w[wi] : NULL;
			char n[64];

			for (k = 0; k < WR_SCHED_DUMP_BASE + WR_SCHED_DUMP_SLOTS; k++)
				if ((s->writers >> k & 1) && (k < WR_SCHED_DUMP_BASE ?
							      wl_of(lg, k) != NULL :
							      reg_of(lg, k) != NULL))
					json_array_append_new(wa, json_string(bit_name(lg, k, n,
										       sizeof(n))));
			js_str(x, "state", w == NULL ? "unseen" : w->state == SW_ENDED ? "ended" :
			       w->state == SW_BEGUN ? "begun" : "added");
			if (w != NULL && w->state == SW_ENDED)
				ledger_json(w, js_arr(x, "ledger"));
		}
	}
	{
		json_t *ao = js_arr(o, "data_clock");
		unsigned int a;

		for (a = 0; a < lg->deps.cfg->layout.nant; a++) {
			json_t *e = js_obj(ao, NULL);

			js_str(e, "antenna", lg->deps.cfg->layout.ant_name[a]);
			if (lg->offset_known[a])
				json_object_set_new(e, "offset_s",
						    json_real((double)lg->offset_ns[a] / 1e9));
			else
				js_null(e, "offset_s");
		}
		json_object_set_new(o, "clock_warn_s",
				    json_real((double)lg->deps.cfg->clock_warn_ns / 1e9));
	}
	arr = js_arr(o, "writers");
	for (i = 0; i < lg->deps.writers->n; i++) {
		const struct ibv_wlcore *wl = lg->deps.writers->wl[i];
		json_t *x = js_obj(arr, NULL);

		js_u64(x, "writer", wl->spec_idx);
		if (wl->parts > 1) /* lcores=N: its part (an index each lists all) */
			js_u64(x, "part", wl->part);
		js_str(x, "spec", wl->spec);
		js_u64(x, "rows_not_recorded", wr_gate_skipped(&wl->w));
		wr_gate_json(&wl->w, js_arr(x, "scans"));
	}
}

void
ibv_rec_summary_text(const struct ibv_ledger *lg, FILE *f)
{
	/* the table's 136 columns; narrower (stats_text_columns: the
	 * terminal's or $COLUMNS), a record of two or three lines a row */
	unsigned int cols = stats_text_columns(f), i, k;
	bool narrow = cols != 0 && cols < 136;

	if (lg->n == 0)
		return;
	fprintf(f, "\nscans (per --write writer: frames the span holds, recorded, missing by cause)\n");
	if (!narrow)
		fprintf(f, "%-16s %-22s %12s %12s %10s %10s %10s %8s %12s  %s\n", "scan", "writer",
			"expected", "recorded", "lost", "not-rec", "overrun", "cut", "not-arrived",
			"reason");
	for (i = 0; i < lg->n; i++) {
		const struct ibv_scan_watch *x = &lg->w[i];

		if (x->state != SW_ENDED || x->nl == 0) {
			fprintf(f, "%-16s %s\n", x->sc.name, x->state != SW_ENDED ? "(not begun)" :
				"(no --write writer records it)");
			continue;
		}
		for (k = 0; k < x->nl; k++) {
			const struct ibv_scan_ledger *g = &x->l[k];
			const char *sh = g->recorded < g->expected ? "SHORT: " : "";

			if (narrow) {
				fprintf(f, "%s, writer %s: expected %" PRIu64 ", recorded %" PRIu64
					"\n  lost %" PRIu64 ", not-rec %" PRIu64 ", overrun %" PRIu64
					", cut %" PRIu64 ", not-arrived %" PRIu64 "\n",
					x->sc.name, g->writer, g->expected, g->recorded, g->lost,
					g->not_recorded, g->overrun, g->cut, g->not_arrived);
				if (*sh != '\0' || g->reason[0] != '\0')
					fprintf(f, "  %s%s\n", sh, g->reason);
			} else
				fprintf(f, "%-16s %-22s %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10"
					PRIu64 " %10" PRIu64 " %8" PRIu64 " %12" PRIu64 "  %s%s\n",
					x->sc.name, g->writer, g->expected, g->recorded, g->lost,
					g->not_recorded, g->overrun, g->cut, g->not_arrived, sh,
					g->reason);
		}
	}
}
