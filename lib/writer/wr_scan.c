/* SPDX-License-Identifier: BSD-3-Clause */
/* A writer under a schedule (its gate): which scan each row is in, each
 * scan's directory, and what each scan holds, per antenna, written as the
 * scan's index (DIR/SCAN/PREFIX_scan.FORMAT.json). */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codif.h"
#include "err.h"
#include "json.h"
#include "parse.h"
#include "shm.h"
#include "writer.h"

/* One antenna's share of a scan in this writer's files. */
struct wr_scan_ant {
	uint64_t frames;       /**< valid frames in the scan's closed files */
	uint64_t gaps;         /**< placeholders (lost frames) in them */
	uint64_t overrun;      /**< placeholders for frames this writer lost */
	uint64_t cut;          /**< frames an I/O error cut off its files */
	uint64_t lost_rows, lost_frames; /**< rows (valid frames) it lost, where
					      its files of the scan ended */
	uint64_t files;
	uint64_t rows;         /**< rows written */
	int64_t first_index, last_index; /**< frame indexes of the rows (clk) */
	struct codif_clock clk;
	bool any;
};

struct wr_scan_rec {
	struct wr_scan sc;      /**< as the schedule said when last seen */
	struct wr_scan_ant ant[WR_MAX_ANT + 1]; /**< [WR_MAX_ANT]: all=yes */
};

/* Writers sharing scan indexes (wr_gate_share): each writes its own
 * antennas' records; an index is written from all of theirs. */
struct wr_gate_group {
	pthread_mutex_t lock;   /* every member's records */
	pthread_mutex_t file;   /* the index files: one member writes at a time */
	unsigned int n, refs;
	struct wr_writer *w[WR_MAX_ANT];
};

struct wr_gate {
	struct wr_gate_group *grp; /* NULL: alone */
	const struct wr_sched *sched;
	unsigned int wi;
	uint64_t seen;
	struct wr_sched snap;
	const struct wr_scan *cur;  /**< the scan of the row being written */
	uint64_t skipped_rows;      /**< rows outside every scan */
	unsigned int nrec;
	struct wr_scan_rec rec[WR_MAX_SCANS * 2];
};

int
wr_gate_attach(struct wr_writer *w, const struct wr_sched *sc, unsigned int wi, char *err,
	       size_t len)
{
	struct wr_gate *g = calloc(1, sizeof(*g));

	if (g == NULL) {
		return err_set(err, len, -ENOMEM, "out of memory for the scans of writer %u", wi);
	}
	g->sched = sc;
	g->wi = wi;
	g->seen = UINT64_MAX;
	wr_sched_snapshot(sc, &g->snap, &g->seen);
	w->gate = g;
	return 0;
}

void
wr_gate_free(struct wr_writer *w)
{
	struct wr_gate_group *grp = w->gate != NULL ? w->gate->grp : NULL;

	if (grp != NULL && --grp->refs == 0) {
		pthread_mutex_destroy(&grp->lock);
		pthread_mutex_destroy(&grp->file);
		free(grp);
	}
	free(w->gate);
	w->gate = NULL;
}

int
wr_gate_share(struct wr_writer *const *ws, unsigned int n, char *err, size_t len)
{
	struct wr_gate_group *grp;
	unsigned int i;

	if (n < 2)
		return 0;
	grp = calloc(1, sizeof(*grp));
	if (grp == NULL || n > WR_MAX_ANT) {
		free(grp);
		return err_set(err, len, -ENOMEM, "out of memory for the scans of %u writers", n);
	}
	pthread_mutex_init(&grp->lock, NULL);
	pthread_mutex_init(&grp->file, NULL);
	for (i = 0; i < n; i++) {
		grp->w[i] = ws[i];
		if (ws[i]->gate != NULL) {
			ws[i]->gate->grp = grp;
			grp->refs++;
		}
	}
	grp->n = n;
	if (grp->refs == 0) {
		pthread_mutex_destroy(&grp->lock);
		pthread_mutex_destroy(&grp->file);
		free(grp);
	}
	return 0;
}

/* The records of a shared gate change under its group's lock (a member
 * reads them all when it writes an index). */
static void
grp_lock(const struct wr_gate *g)
{
	if (g->grp != NULL)
		pthread_mutex_lock(&g->grp->lock);
}

static void
grp_unlock(const struct wr_gate *g)
{
	if (g->grp != NULL)
		pthread_mutex_unlock(&g->grp->lock);
}

static struct wr_scan_rec *
rec_of(struct wr_gate *g, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < g->nrec; i++)
		if (g->rec[i].sc.id == id)
			return &g->rec[i];
	return NULL;
}

/* Whether a file of scan id is open in w. */
static bool
rec_live(const struct wr_writer *w, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < w->n; i++)
		if (w->src[i].out.open && w->src[i].out.scan == id)
			return true;
	return w->all.open && w->all.scan == id;
}

/* The record of scan s (made the first time a row of it comes). When the
 * table is full, the oldest scan with no file open is forgotten here (its
 * index on disk is final): a capture may run through any number of scans. */
static struct wr_scan_rec *
rec_get(struct wr_writer *w, const struct wr_scan *s)
{
	struct wr_gate *g = w->gate;
	struct wr_scan_rec *r = rec_of(g, s->id);
	unsigned int i;

	if (r == NULL && g->nrec == sizeof(g->rec) / sizeof(g->rec[0])) {
		for (i = 0; i < g->nrec && rec_live(w, g->rec[i].sc.id); i++)
			;
		if (i < g->nrec) {
			memmove(&g->rec[i], &g->rec[i + 1], (g->nrec - i - 1) * sizeof(g->rec[0]));
			g->nrec--;
		}
	}
	if (r == NULL && g->nrec < sizeof(g->rec) / sizeof(g->rec[0])) {
		r = &g->rec[g->nrec++];
		memset(r, 0, sizeof(*r));
	}
	if (r != NULL)
		r->sc = *s; /* its stop may have moved */
	return r;
}

uint32_t
wr_gate_row(struct wr_writer *w, unsigned int ant, int64_t t_ns)
{
	struct wr_gate *g = w->gate;
	uint32_t id;

	wr_sched_snapshot(g->sched, &g->snap, &g->seen);
	id = wr_sched_lookup(&g->snap, g->wi, ant, t_ns, &g->cur);
	if (id == WR_ROW_SKIP)
		g->skipped_rows++;
	return id;
}

int
wr_gate_dir(struct wr_writer *w, char *dir, size_t len, uint32_t *scan)
{
	const struct wr_scan *s = w->gate != NULL ? w->gate->cur : NULL;
	struct wr_scan_rec *r;

	*scan = WR_ROW_FREE;
	if (s == NULL) {
		snprintf(dir, len, "%s", w->o.dir);
		return 0;
	}
	if ((size_t)snprintf(dir, len, "%s/%s", w->o.dir, s->name) >= len)
		return -ENAMETOOLONG;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	*scan = s->id;
	grp_lock(w->gate);
	r = rec_get(w, s);
	grp_unlock(w->gate);
	return r == NULL ? -ENOSPC : 0;
}

const char *
wr_gate_scan(const struct wr_writer *w)
{
	return w->gate != NULL && w->gate->cur != NULL ? w->gate->cur->name : NULL;
}

bool
wr_gate_in(const struct wr_writer *w, uint32_t scan, int64_t t)
{
	const struct wr_sched *sc = &w->gate->snap;
	unsigned int i;

	for (i = 0; i < sc->n; i++)
		if (sc->s[i].id == scan)
			return t >= sc->s[i].start_ns && t < sc->s[i].stop_ns;
	return false;
}

/* The record of scan in w's gate, or NULL (no gate, a row of no scan, a
 * scan it has no record of). */
static struct wr_scan_rec *
gate_rec(struct wr_writer *w, uint32_t scan)
{
	if (w->gate == NULL || scan == WR_ROW_FREE)
		return NULL;
	return rec_of(w->gate, scan);
}

/* Antenna ant's figures in record r (the last entry takes any beyond). */
static inline struct wr_scan_ant *
rec_ant(struct wr_scan_rec *r, unsigned int ant)
{
	return &r->ant[ant < WR_MAX_ANT ? ant : WR_MAX_ANT];
}

/* Antenna ant's figures in scan's record of w's gate with the gate's lock
 * taken (grp_unlock(w->gate) after), or NULL (no record: no lock taken). */
static struct wr_scan_ant *
gate_ant_locked(struct wr_writer *w, uint32_t scan, unsigned int ant)
{
	struct wr_scan_rec *r = gate_rec(w, scan);

	if (r == NULL)
		return NULL;
	grp_lock(w->gate);
	return rec_ant(r, ant);
}

void
wr_gate_wrote(struct wr_writer *w, unsigned int ant, uint32_t scan,
	      const struct codif_clock *clk, int64_t index)
{
	struct wr_scan_ant *a = gate_ant_locked(w, scan, ant);

	if (a == NULL)
		return;
	if (!a->any || !codif_clock_equal(clk, &a->clk)) {
		a->first_index = index;
		a->clk = *clk;
	}
	a->any = true;
	a->last_index = index;
	a->rows++;
	grp_unlock(w->gate);
}

/* "name", UTC start and stop, and per antenna: the counts, the first and
 * last frame's data time and CODIF time (epoch, seconds, frame). */
static void
rec_json(const struct wr_writer *w, const struct wr_scan_rec *r, json_t *o)
{
	char ts[CODIF_TIMESTR_LEN];
	uint64_t frames = 0, gaps = 0, files = 0;
	unsigned int a;
	json_t *arr;

	js_str(o, "scan", r->sc.name);
	js_str(o, "origin", r->sc.origin);
	js_str(o, "start_utc", codif_time_str(r->sc.start_ns, ts, sizeof(ts)));
	js_i64(o, "start_ns", r->sc.start_ns);
	if (r->sc.stop_ns == WR_SCAN_OPEN) {
		js_null(o, "stop_utc");
		js_null(o, "stop_ns");
	} else {
		js_str(o, "stop_utc", codif_time_str(r->sc.stop_ns, ts, sizeof(ts)));
		js_i64(o, "stop_ns", r->sc.stop_ns);
	}
	js_str(o, "format", wr_format_name(w->o.format));
	js_str(o, "prefix", w->o.prefix);
	arr = js_arr(o, "antennas");
	for (a = 0; a <= WR_MAX_ANT; a++) {
		const struct wr_scan_ant *x = &r->ant[a];
		json_t *e;
		uint32_t sec, fr;

		if (!x->any && x->files == 0)
			continue;
		e = js_obj(arr, NULL);
		js_str(e, "antenna", a < w->n ? w->src[a].b->name : "all");
		js_u64(e, "frames", x->frames);
		js_u64(e, "placeholders", x->gaps);
		js_u64(e, "overrun_placeholders", x->overrun);
		js_u64(e, "cut", x->cut);
		js_u64(e, "overrun", x->lost_frames);
		js_u64(e, "overrun_rows", x->lost_rows);
		js_u64(e, "rows", x->rows);
		js_u64(e, "files", x->files);
		frames += x->frames;
		gaps += x->gaps;
		files += x->files;
		if (!x->any)
			continue;
		js_str(e, "first_utc", codif_time_str(codif_clock_time_ns(&x->clk, x->first_index),
						     ts, sizeof(ts)));
		js_str(e, "last_utc", codif_time_str(codif_clock_time_ns(&x->clk, x->last_index),
						    ts, sizeof(ts)));
		js_i64(e, "first_ns", codif_clock_time_ns(&x->clk, x->first_index));
		js_i64(e, "last_ns", codif_clock_time_ns(&x->clk, x->last_index));
		js_u64(e, "epoch", x->clk.epoch);
		codif_clock_hdr_time(&x->clk, x->first_index, &sec, &fr);
		js_u64(e, "first_seconds", sec);
		js_u64(e, "first_frame", fr);
		codif_clock_hdr_time(&x->clk, x->last_index, &sec, &fr);
		js_u64(e, "last_seconds", sec);
		js_u64(e, "last_frame", fr);
	}
	js_u64(o, "frames", frames);
	js_u64(o, "placeholders", gaps);
	js_u64(o, "files", files);
}

/* A shared gate's index: its own record with every other member's
 * antennas as their records have them now (the members' antennas are
 * disjoint). Under the group's file lock: the copy taken last is written
 * last. */
static struct wr_scan_rec *
rec_merged(const struct wr_writer *w, const struct wr_scan_rec *r)
{
	const struct wr_gate_group *grp = w->gate->grp;
	struct wr_scan_rec *m = malloc(sizeof(*m));
	unsigned int i, a;

	if (m == NULL)
		return NULL;
	pthread_mutex_lock(&w->gate->grp->lock);
	*m = *r;
	for (i = 0; i < grp->n; i++) {
		const struct wr_writer *o = grp->w[i];
		const struct wr_scan_rec *x;

		if (o == w || o->gate == NULL || (x = rec_of(o->gate, r->sc.id)) == NULL)
			continue;
		for (a = 0; a < o->n && a < WR_MAX_ANT; a++)
			if (o->src[a].on)
				m->ant[a] = x->ant[a];
	}
	pthread_mutex_unlock(&w->gate->grp->lock);
	return m;
}

static int
rec_write(struct wr_writer *w, struct wr_scan_rec *r)
{
	char path[PATH_MAX], err[PATH_MAX + 128];
	struct wr_scan_rec *m = NULL;
	json_t *root;
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s_scan.%s.json", w->o.dir, r->sc.name,
			     w->o.prefix, wr_format_name(w->o.format)) >= sizeof(path))
		return -ENAMETOOLONG;
	if (w->gate->grp != NULL) {
		pthread_mutex_lock(&w->gate->grp->file);
		m = rec_merged(w, r);
		if (m == NULL) {
			pthread_mutex_unlock(&w->gate->grp->file);
			return -ENOMEM;
		}
		r = m;
	}
	root = json_object();
	rec_json(w, r, root);
	rc = js_write_file(root, path, err, sizeof(err));
	json_decref(root);
	if (m != NULL) {
		free(m);
		pthread_mutex_unlock(&w->gate->grp->file);
	}
	return rc;
}

int
wr_gate_closed(struct wr_writer *w, unsigned int ant, uint32_t scan, uint64_t frames,
	       uint64_t gaps, uint64_t overrun, uint64_t cut, bool kept)
{
	struct wr_scan_rec *r = gate_rec(w, scan);
	struct wr_scan_ant *a;

	if (r == NULL)
		return 0;
	/* the scan's stop as the schedule has it now */
	{
		const struct wr_scan *s = wr_sched_find(&w->gate->snap, r->sc.name);

		if (s != NULL && s->id == r->sc.id)
			r->sc = *s;
	}
	a = rec_ant(r, ant);
	grp_lock(w->gate);
	a->frames += frames;
	a->gaps += gaps;
	a->overrun += overrun;
	a->cut += cut;
	a->files += kept;
	grp_unlock(w->gate);
	return rec_write(w, r);
}

void
wr_gate_lost(struct wr_writer *w, unsigned int ant, uint32_t scan, uint64_t rows,
	     uint64_t frames)
{
	struct wr_scan_ant *a = gate_ant_locked(w, scan, ant);

	if (a == NULL)
		return;
	a->lost_rows += rows;
	a->lost_frames += frames;
	grp_unlock(w->gate);
}

void
wr_gate_json(const struct wr_writer *w, json_t *arr)
{
	unsigned int i;

	if (w->gate == NULL)
		return;
	for (i = 0; i < w->gate->nrec; i++)
		rec_json(w, &w->gate->rec[i], js_obj(arr, NULL));
}

uint64_t
wr_gate_skipped(const struct wr_writer *w)
{
	return w->gate != NULL ? w->gate->skipped_rows : 0;
}

void
wr_gate_publish(const struct wr_writer *w, struct shm_scan_tally *out, unsigned int max)
{
	uint32_t ids[SHM_WRITER_SCANS];
	bool placed[SHM_WRITER_SCANS] = { false };
	unsigned int i, k, n = 0;

	if (max > SHM_WRITER_SCANS)
		max = SHM_WRITER_SCANS;
	/* the newest max scans by id */
	for (i = 0; w->gate != NULL && i < w->gate->nrec; i++) {
		uint32_t id = w->gate->rec[i].sc.id;

		if (n < max)
			ids[n++] = id;
		else {
			unsigned int lo = 0;

			for (k = 1; k < n; k++)
				if (ids[k] < ids[lo])
					lo = k;
			if (id > ids[lo])
				ids[lo] = id;
		}
	}
	/* a scan keeps its entry from publish to publish; an entry given to
	 * another scan is id 0 while it changes (the reader checks the id
	 * before and after it reads the figures) */
	for (k = 0; k < max; k++) {
		uint32_t cur = out[k].id;

		for (i = 0; i < n && ids[i] != cur; i++)
			;
		if (cur != 0 && i < n)
			placed[i] = true;
		else if (cur != 0)
			__atomic_store_n(&out[k].id, 0, __ATOMIC_RELEASE);
	}
	for (i = 0; i < n; i++) {
		struct wr_scan_tally t;

		for (k = 0; k < max && out[k].id != ids[i]; k++)
			;
		if (!placed[i])
			for (k = 0; k < max && out[k].id != 0; k++)
				;
		if (k == max || !wr_gate_tally(w, ids[i], &t))
			continue;
		out[k].frames = t.frames;
		out[k].gaps = t.gaps;
		out[k].overrun = t.overrun;
		out[k].cut = t.cut;
		out[k].open = t.open;
		__atomic_store_n(&out[k].id, ids[i], __ATOMIC_RELEASE);
	}
}

/* One antenna's record of a scan added to a tally. */
static void
tally_add(struct wr_scan_tally *t, const struct wr_scan_ant *a)
{
	t->frames += a->frames;
	t->gaps += a->gaps;
	t->overrun += a->overrun + a->lost_frames;
	t->cut += a->cut;
	t->files += a->files;
	t->rows += a->rows;
}

bool
wr_gate_tally(const struct wr_writer *w, uint32_t id, struct wr_scan_tally *t)
{
	const struct wr_scan_rec *r;
	unsigned int a;

	memset(t, 0, sizeof(*t));
	if (w->gate == NULL || (r = rec_of(w->gate, id)) == NULL)
		return false;
	grp_lock(w->gate);
	for (a = 0; a <= WR_MAX_ANT; a++)
		tally_add(t, &r->ant[a]);
	grp_unlock(w->gate);
	t->open = rec_live(w, id);
	return true;
}

bool
wr_gate_tally_ant(const struct wr_writer *w, uint32_t id, unsigned int ant,
		  struct wr_scan_tally *t)
{
	const struct wr_scan_rec *r;
	const struct wr_scan_ant *a;

	memset(t, 0, sizeof(*t));
	if (w->gate == NULL || ant > WR_MAX_ANT || (r = rec_of(w->gate, id)) == NULL)
		return false;
	a = &r->ant[ant];
	grp_lock(w->gate);
	tally_add(t, a);
	grp_unlock(w->gate);
	t->open = rec_live(w, id);
	return true;
}
