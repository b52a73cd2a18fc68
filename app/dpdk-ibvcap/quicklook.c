/* SPDX-License-Identifier: BSD-3-Clause */
/* Quick look in the capture: an accumulator (lib/quicklook) per stream of
 * each rx lcore, the main lcore's window, its sampler statistics and spectra
 * of the kept frames, telemetry and the summary's figures. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_telemetry.h>

#include "ibvcap.h"
#include "quicklook_app.h"
#include "json.h"
#include "ql_bstate.h"
#include "ql_spec.h"
#include "parse.h"
#include "stats.h"
#include "stats_tel.h"
#include "tconv.h"
#include "err.h"

/*
 * Who touches what
 * ----------------
 * rx lcore: its struct ibv_qlc -- binds a pool accumulator to a stream the
 *   first time it sees one (ibv_ql_bind: no allocation, a pointer stored
 *   with release), then ql_sample() per frame and ql_frame() per sampled
 *   frame; lib/quicklook publishes each frame's sums through its sequence
 *   lock. With --quicklook-min it also copies each sampled frame into the
 *   stream's kept frames (lib/quicklook ql_keep.h), when a slot is free.
 *   It never waits.
 * main lcore: every --quicklook-window, under app->ql.lock, each bound
 *   accumulator's snapshot moves cur -> prev and a new one is read into
 *   cur, the sampling's minimum is granted anew (ql_grant), and the
 *   window's sampler statistics and spectra become the last window's
 *   (ibv_ql_tick). The live figures are those between prev and cur.
 *   Every loop (10 ms) it reads kept frames, at most --quicklook-min a
 *   stream per window, into the sampler statistics (ql_bstate) and, for
 *   the antenna /ibvcap/spectrum asked for, the spectra (ql_spec: FFTW)
 *   (ibv_ql_drain); a stream's slots stay full once it has read its
 *   share, so the rx lcore copies nothing more until the next window.
 * telemetry thread: reads prev, cur and the last window's sampler
 *   statistics and spectra under the same lock; /ibvcap/spectrum sets the
 *   antenna and FFT length the main lcore computes.
 * summary (after the rx lcores stopped): the whole run, from fresh reads.
 */

/** A pool entry's stream, written before the entry is published. */
struct ibv_ql_ent {
	uint16_t ant, stream;
};

/** The main lcore's two snapshots of a pool entry: the window's ends. */
struct ibv_ql_win {
	struct ql_snap prev, cur;
};

/** The main lcore's analysis of a pool entry's kept frames. */
struct ibv_ql_live {
	uint64_t key;              /**< format of cur (0: none yet) */
	bool ok;                   /**< cur counts (else why) */
	uint32_t taken;            /**< kept frames read in this window */
	uint32_t last_frames;      /**< ... in the last */
	uint64_t run_frames;       /**< ... in the ended windows */
	struct qlb_acc cur, last;  /**< this window's counts, the last window's */
	struct qlb_acc run;        /**< the ended windows' (the summary) */
	struct qls_acc spec, spec_last; /**< spectra of this window, the last (nfft 0: none) */
	uint64_t spec_key;         /**< format of spec */
	char why[96];
};

/** Channel groups of the live sampler statistics (at most the channels). */
#define IBV_QL_GROUPS 8u

/* ---- setup (main lcore, before the rx lcores run) ------------------------ */

int
ibv_ql_setup(struct ibv_app *app, char *err, size_t len)
{
	const struct ibv_config *c = &app->cfg;
	unsigned int i, k, per_ant, npool;
	struct ql_cfg qc;

	app->ql.on = c->quicklook_every > 0;
	if (!app->ql.on)
		return 0;
	if (!app->pl.ops->cpu_packets) {
		/* the payload is in GPU memory: nothing for the CPU to read */
		printf("dpdk-ibvcap: quick look off: with buffer split the payload goes "
		       "to GPU memory\n");
		app->ql.on = false;
		return 0;
	}
	pthread_mutex_init(&app->ql.lock, NULL);
	app->ql.lock_init = true;
	ql_cfg_defaults(&qc);
	qc.every = c->quicklook_every;
	qc.min = c->quicklook_min;
	app->ql.min = c->quicklook_min;
	app->ql.spec_ant = -1;
	/* a stream per (group, thread) of each antenna, as the buffers' slots */
	per_ant = c->layout.ngroup * (c->threads ? c->threads : 1);
	if (per_ant > ACCT_MAX_STREAMS)
		per_ant = ACCT_MAX_STREAMS;
	npool = c->layout.nant * per_ant;
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = app->lcores.lc[i];
		struct ibv_qlc *q;
		int sock;

		if (lc == NULL)
			continue;
		sock = (int)rte_lcore_to_socket_id(lc->lcore_id);
		q = rte_zmalloc_socket("ibvcap_ql", sizeof(*q), RTE_CACHE_LINE_SIZE, sock);
		if (q == NULL)
			goto nomem;
		lc->ql = q;
		q->pool = rte_zmalloc_socket("ibvcap_ql_pool", npool * sizeof(q->pool[0]),
					     RTE_CACHE_LINE_SIZE, sock);
		q->ent = calloc(npool, sizeof(q->ent[0]));
		q->win = calloc(npool, sizeof(q->win[0]));
		if (q->pool == NULL || q->ent == NULL || q->win == NULL)
			goto nomem;
		if (c->quicklook_min > 0) {
			q->keep = rte_zmalloc_socket("ibvcap_ql_keep", npool * sizeof(q->keep[0]),
						     RTE_CACHE_LINE_SIZE, sock);
			q->live = calloc(npool, sizeof(q->live[0]));
			if (q->keep == NULL || q->live == NULL)
				goto nomem;
		}
		for (k = 0; k < npool; k++)
			ql_init(&q->pool[k], &qc);
		q->npool = npool;
	}
	app->ql.every = qc.every;
	return 0;
nomem:
	return err_set(err, len, -ENOMEM, "quick look: out of memory for %u streams of %u "
		       "bytes per rx lcore (--quicklook off, --quicklook-min off, or fewer "
		       "antennas)", npool, (unsigned int)(sizeof(struct ql_acc) +
		       (c->quicklook_min ? sizeof(struct ql_keep) + sizeof(struct ibv_ql_live) : 0)));
}

void
ibv_ql_free(struct ibv_app *app)
{
	unsigned int i, k;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = app->lcores.lc[i];

		if (lc == NULL || lc->ql == NULL)
			continue;
		for (k = 0; lc->ql->live != NULL && k < lc->ql->npool; k++) {
			qls_free(&lc->ql->live[k].spec);
			qls_free(&lc->ql->live[k].spec_last);
		}
		free(lc->ql->live);
		rte_free(lc->ql->keep);
		rte_free(lc->ql->pool);
		free(lc->ql->ent);
		free(lc->ql->win);
		rte_free(lc->ql);
		lc->ql = NULL;
	}
	if (app->ql.lock_init)
		pthread_mutex_destroy(&app->ql.lock);
	app->ql.lock_init = false;
	app->ql.on = false;
}

struct ql_acc *
ibv_ql_bind(struct ibv_qlc *q, unsigned int ant, unsigned int stream)
{
	struct ql_acc *a;

	if (q->used == q->npool) {
		q->unbound++;
		return NULL;
	}
	a = &q->pool[q->used];
	q->ent[q->used].ant = (uint16_t)ant;
	q->ent[q->used].stream = (uint16_t)stream;
	/* readers find it by `used`, the rx lcore by its table */
	__atomic_store_n(&q->used, q->used + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&q->acc[ant][stream], a, __ATOMIC_RELEASE);
	return a;
}

/* ---- the main lcore's window ------------------------------------------- */

/* The window ends for an entry's analysis: its figures become the last's. */
static void
live_window(struct ibv_ql_live *lv)
{
	struct qls_acc t;

	lv->last = lv->cur;
	lv->last_frames = lv->taken;
	lv->run_frames += lv->taken;
	if (qlb_merge(&lv->run, &lv->cur) != 0)
		lv->run = lv->cur; /* the format changed: the run since then */
	qlb_clear(&lv->cur);
	lv->taken = 0;
	t = lv->spec_last;
	lv->spec_last = lv->spec;
	lv->spec = t;
	qls_reset(&lv->spec);
}

static uint64_t
fmt_key(const struct codif_hdr *h)
{
	return 1 + ((uint64_t)h->nbits << 32 | (uint64_t)h->representation << 24 |
		    (uint64_t)h->complex << 16 | h->nchan);
}

/* One kept frame of an entry of antenna a: into its sampler statistics and,
 * when a's spectra are asked for, its spectrum. */
static void
live_frame(struct ibv_app *app, struct ibv_ql_live *lv, unsigned int a, const uint8_t *f,
	   size_t len)
{
	int spec_ant = __atomic_load_n(&app->ql.spec_ant, __ATOMIC_ACQUIRE);
	unsigned int nfft = __atomic_load_n(&app->ql.spec_nfft, __ATOMIC_RELAXED);
	struct codif_hdr h;
	uint64_t key;

	if (codif_decode(f, len, &h, NULL, 0) != 0 || h.invalid ||
	    codif_data_bytes(&h) != len - CODIF_HDR_LEN)
		return;
	key = fmt_key(&h);
	if (key != lv->key) {
		unsigned int g = h.nchan < IBV_QL_GROUPS ? (h.nchan ? h.nchan : 1) : IBV_QL_GROUPS;

		lv->key = key;
		lv->ok = qlb_init(&lv->cur, &h, g, lv->why, sizeof(lv->why)) == 0;
		memset(&lv->last, 0, sizeof(lv->last));
	}
	if (lv->ok)
		qlb_add(&lv->cur, f + CODIF_HDR_LEN, len - CODIF_HDR_LEN);
	if (spec_ant != (int)a)
		return;
	if (lv->spec.nfft != nfft || lv->spec_key != key) {
		/* (re)planned here: the main lcore is FFTW's only planner */
		qls_free(&lv->spec);
		if (qls_init(&lv->spec, &h, nfft, lv->why, sizeof(lv->why)) != 0)
			return;
		lv->spec_key = key;
	}
	qls_add(&lv->spec, f + CODIF_HDR_LEN, len - CODIF_HDR_LEN);
}

void
ibv_ql_drain(struct ibv_app *app)
{
	uint64_t t0 = rte_rdtsc(), frames = 0;
	unsigned int i, k, n;

	if (!app->ql.on || app->ql.min == 0)
		return;
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_qlc *q = app->lcores.lc[i] != NULL ? app->lcores.lc[i]->ql : NULL;

		if (q == NULL || q->live == NULL)
			continue;
		n = __atomic_load_n(&q->used, __ATOMIC_ACQUIRE);
		for (k = 0; k < n; k++) {
			struct ibv_ql_live *lv = &q->live[k];
			const uint8_t *f;
			size_t len;

			/* the window's share read, the slots stay full: the rx
			 * lcore copies nothing more until the next window */
			while (lv->taken < app->ql.min && (f = qlk_peek(&q->keep[k], &len)) != NULL) {
				pthread_mutex_lock(&app->ql.lock);
				live_frame(app, lv, q->ent[k].ant, f, len);
				pthread_mutex_unlock(&app->ql.lock);
				qlk_done(&q->keep[k]);
				lv->taken++;
				frames++;
			}
		}
	}
	if (frames) {
		app->ql.drain_cycles += rte_rdtsc() - t0;
		app->ql.drain_frames += frames;
	}
}

void
ibv_ql_tick(struct ibv_app *app, bool force)
{
	uint64_t now = rte_rdtsc();
	unsigned int i, k;

	if (!app->ql.on)
		return;
	if (app->ql.next_tsc == 0) /* the first window ends one window after the start */
		app->ql.next_tsc = app->run.start_tsc +
				   ns_to_cycles(app->cfg.quicklook_window_ns, app->run.tsc_hz);
	if (!force && now < app->ql.next_tsc)
		return;
	app->ql.next_tsc = now + ns_to_cycles(app->cfg.quicklook_window_ns, app->run.tsc_hz);
	pthread_mutex_lock(&app->ql.lock);
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = app->lcores.lc[i];
		unsigned int n;

		if (lc == NULL || lc->ql == NULL)
			continue;
		n = __atomic_load_n(&lc->ql->used, __ATOMIC_ACQUIRE);
		for (k = 0; k < n; k++) {
			lc->ql->win[k].prev = lc->ql->win[k].cur;
			ql_read(&lc->ql->pool[k], &lc->ql->win[k].cur);
			ql_grant(&lc->ql->pool[k], &lc->ql->win[k].cur, &lc->ql->win[k].prev);
			if (lc->ql->live != NULL)
				live_window(&lc->ql->live[k]);
		}
	}
	app->ql.prev_tsc = app->ql.cur_tsc ? app->ql.cur_tsc : app->run.start_tsc;
	app->ql.cur_tsc = now;
	pthread_mutex_unlock(&app->ql.lock);
}

/* ---- readers ------------------------------------------------------------ */

/* the window's ends, now, or the final figures (the rx lcores have stopped) */
enum which { W_PREV, W_CUR, W_LIVE, W_FINAL };

static void
snap_of(const struct ibv_qlc *q, unsigned int k, enum which w, struct ql_snap *s)
{
	if (w == W_LIVE || w == W_FINAL) {
		ql_read(&q->pool[k], s);
		/* published only with a sampled frame; once the writer is
		 * done, its own count is every frame offered */
		if (w == W_FINAL)
			s->offered = q->pool[k].own.offered;
	} else
		*s = w == W_PREV ? q->win[k].prev : q->win[k].cur;
}

/* fn(lc, k, ctx) for each of antenna a's streams, on every lcore that
 * samples it (entry k of lc's quick look). @return streams seen. */
static unsigned int
ant_each(const struct ibv_app *app, unsigned int a,
	 void (*fn)(const struct ibv_lcore *lc, unsigned int k, void *ctx), void *ctx)
{
	unsigned int i, k, n, m = 0;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lcores.lc[i];

		if (lc == NULL || lc->ql == NULL)
			continue;
		n = __atomic_load_n(&lc->ql->used, __ATOMIC_ACQUIRE);
		for (k = 0; k < n; k++)
			if (lc->ql->ent[k].ant == a) {
				fn(lc, k, ctx);
				m++;
			}
	}
	return m;
}

struct sum_ctx {
	enum which w;
	struct ql_snap *out;
};

static void
sum_one(const struct ibv_lcore *lc, unsigned int k, void *ctx)
{
	const struct sum_ctx *c = ctx;
	struct ql_snap s;

	snap_of(lc->ql, k, c->w, &s);
	ql_snap_add(c->out, &s);
}

/* Antenna a's streams (every lcore) summed. @return streams seen. */
static unsigned int
ant_sum(const struct ibv_app *app, unsigned int a, enum which w, struct ql_snap *out)
{
	struct sum_ctx c = { w, out };

	memset(out, 0, sizeof(*out));
	return ant_each(app, a, sum_one, &c);
}

static double
window_s(const struct ibv_app *app)
{
	return (double)(app->ql.cur_tsc - app->ql.prev_tsc) / (double)app->run.tsc_hz;
}

/* The live record of antenna a: the last window (lock held). */
static void
ant_live(const struct ibv_app *app, unsigned int a, struct stats_ql *r,
	 struct ql_figs *f)
{
	struct ql_snap prev, cur;

	ant_sum(app, a, W_PREV, &prev);
	ant_sum(app, a, W_CUR, &cur);
	ql_figs(&cur, &prev, f);
	stats_ql_of(r, &cur, f, window_s(app));
}

/* ---- telemetry ----------------------------------------------------------- */

static int
tel_ql_start(struct rte_tel_data *d)
{
	struct rte_tel_data *names = rte_tel_data_alloc();

	if (names == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	stats_tel_names(&stats_quicklook, STATS_ANTENNA | STATS_LIVE, names);
	if (rte_tel_data_add_dict_container(d, "fields", names, 0) != 0) {
		rte_tel_data_free(names);
		return -ENOSPC;
	}
	return 0;
}

/* A row: a dictionary of numbers, name -> value (the doubles as integers
 * in their telemetry unit, /ibvcap/describe,quicklook). */
static void
tel_ql_row(struct rte_tel_data *d, const char *key, const struct stats_ql *r)
{
	struct rte_tel_data *row = rte_tel_data_alloc();

	if (row == NULL)
		return;
	rte_tel_data_start_dict(row);
	if (stats_tel_dict(&stats_quicklook, r, STATS_ANTENNA | STATS_LIVE, row) != 0 ||
	    rte_tel_data_add_dict_container(d, key, row, 0) != 0)
		rte_tel_data_free(row);
}

/* The channel bins' columns, "bin_NAME" -> [a number per bin]: the first
 * channel, the verdict, or a figure of struct ql_stat at off in the unit
 * of the quick-look table's field of the same name. */
static const struct {
	const char *name;
	long off;
} tel_bin_cols[] = {
	{ "first_chan", -1 },
	{ "mean_re", (long)offsetof(struct ql_stat, mean_re) },
	{ "mean_im", (long)offsetof(struct ql_stat, mean_im) },
	{ "power", (long)offsetof(struct ql_stat, power) },
	{ "saturated", (long)offsetof(struct ql_stat, sat) },
	{ "zero", (long)offsetof(struct ql_stat, zero) },
	{ "verdict", -2 },
};

/* The table's field called name (a double). */
static const struct stats_field *
ql_field(const char *name)
{
	unsigned int k;

	for (k = 0; k < stats_quicklook.n; k++)
		if (strcmp(stats_quicklook.f[k].name, name) == 0)
			return &stats_quicklook.f[k];
	return NULL;
}

/* One column of the bins: unsigned numbers, or (a mean) signed ones. */
static struct rte_tel_data *
tel_bin_col(const struct ql_figs *f, unsigned int c)
{
	const struct stats_field *fd = tel_bin_cols[c].off >= 0 ? ql_field(tel_bin_cols[c].name) :
								  NULL;
	bool sgn = strncmp(tel_bin_cols[c].name, "mean", 4) == 0;
	struct rte_tel_data *arr = rte_tel_data_alloc();
	unsigned int b;

	if (arr == NULL)
		return NULL;
	rte_tel_data_start_array(arr, sgn ? RTE_TEL_INT_VAL : RTE_TEL_U64_VAL);
	for (b = 0; b < f->nbin; b++) {
		const struct ql_stat *s = &f->bin[b];
		double x;
		int64_t v;

		if (tel_bin_cols[c].off == -1) {
			v = b * f->chan_per_bin;
		} else if (tel_bin_cols[c].off == -2) {
			v = s->verdict;
		} else {
			x = *(const double *)((const char *)s + tel_bin_cols[c].off) *
			    (double)fd->tel_scale;
			v = isfinite(x) ? llround(x) : 0;
		}
		if (sgn)
			rte_tel_data_add_array_int(arr, v < INT32_MIN ? INT32_MIN :
							v > INT32_MAX ? INT32_MAX : (int)v);
		else
			rte_tel_data_add_array_u64(arr, v < 0 ? 0 : (uint64_t)v);
	}
	return arr;
}

static void
tel_bins(struct rte_tel_data *d, const struct ql_figs *f)
{
	char key[64];
	unsigned int c;

	for (c = 0; c < RTE_DIM(tel_bin_cols); c++) {
		struct rte_tel_data *arr = tel_bin_col(f, c);

		if (arr == NULL)
			return;
		snprintf(key, sizeof(key), "bin_%s", tel_bin_cols[c].name);
		if (rte_tel_data_add_dict_container(d, key, arr, 0) != 0)
			rte_tel_data_free(arr);
	}
}

struct row_ctx {
	const struct ibv_app *app;
	struct rte_tel_data *d;
	struct ql_figs *f;
	unsigned int a;
};

/* A stream's telemetry key (letters, digits, '_'): its ids and lcore. */
static void
stream_key(const struct ibv_lcore *lc, unsigned int k, char *key, size_t len)
{
	const struct acct_stream *s = &lc->acct->ant[lc->ql->ent[k].ant].stream[lc->ql->ent[k].stream];

	snprintf(key, len, "g%u_s%u_t%u_p%u_l%u", s->groupid, s->secondaryid, s->threadid,
		 s->dport, lc->lcore_id);
}

/* A telemetry row of one stream's last window. */
static void
stream_row(const struct ibv_lcore *lc, unsigned int k, void *ctx)
{
	const struct row_ctx *c = ctx;
	struct stats_ql r;
	char key[96];

	ql_figs(&lc->ql->win[k].cur, &lc->ql->win[k].prev, c->f);
	stats_ql_of(&r, &lc->ql->win[k].cur, c->f, window_s(c->app));
	stream_key(lc, k, key, sizeof(key));
	tel_ql_row(c->d, key, &r);
}

int
ibv_ql_tel_window(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	const struct acct_layout *l;
	struct stats_ql r;
	struct ql_figs *f;
	unsigned int a;
	uint64_t idx;
	int rc;

	if (!app->ql.on)
		return -ENOENT;
	l = &app->cfg.layout;
	f = malloc(sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	rc = tel_ql_start(d);
	pthread_mutex_lock(&app->ql.lock);
	if (rc == 0 && (params == NULL || *params == '\0')) {
		/* a row per antenna */
		for (a = 0; a < l->nant; a++) {
			ant_live(app, a, &r, f);
			tel_ql_row(d, l->ant_name[a], &r);
		}
		goto out;
	}
	if (rc != 0)
		goto out;
	/* one antenna: its row, its streams' rows and its channel bins */
	for (a = 0; a < l->nant; a++)
		if (strcmp(params, l->ant_name[a]) == 0)
			break;
	if (a == l->nant) {
		if (parse_u64("antenna", params, 0, l->nant - 1, &idx, NULL, 0) != 0) {
			rc = -EINVAL;
			goto out;
		}
		a = (unsigned int)idx;
	}
	ant_live(app, a, &r, f);
	tel_ql_row(d, "antenna", &r);
	tel_bins(d, f);
	{
		struct row_ctx c = { app, d, f, a };

		ant_each(app, a, stream_row, &c);
	}
out:
	pthread_mutex_unlock(&app->ql.lock);
	free(f);
	return rc;
}

/* The whole run so far, a row per antenna (no lock: fresh reads). */
int
ibv_ql_tel_run(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	struct stats_ql r;
	struct ql_snap run;
	struct ql_figs *f;
	unsigned int a;
	double el;
	int rc;

	(void)params;
	if (!app->ql.on)
		return -ENOENT;
	f = malloc(sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	el = (double)(rte_rdtsc() - app->run.start_tsc) / (double)app->run.tsc_hz;
	rc = tel_ql_start(d);
	for (a = 0; rc == 0 && a < app->cfg.layout.nant; a++) {
		ant_sum(app, a, W_LIVE, &run);
		ql_figs(&run, NULL, f);
		stats_ql_of(&r, &run, f, el);
		tel_ql_row(d, app->cfg.layout.ant_name[a], &r);
	}
	free(f);
	return rc;
}

/* ---- the summary: the whole run --------------------------------------- */

static void
figs_json(json_t *o, const struct ql_snap *run, const struct ql_figs *f, double run_s)
{
	struct stats_ql r;
	json_t *arr;
	unsigned int b;

	stats_ql_of(&r, run, f, run_s);
	stats_json(&stats_quicklook, &r, STATS_ANTENNA, o);
	js_str(o, "state", ql_verdict_name(f->total.verdict));
	js_u64(o, "chan_per_bin", f->chan_per_bin);
	arr = js_arr(o, "bins");
	for (b = 0; b < f->nbin; b++) {
		const struct ql_stat *s = &f->bin[b];
		json_t *x = js_obj(arr, NULL);
		uint32_t last = (b + 1) * f->chan_per_bin;

		js_u64(x, "first_chan", b * f->chan_per_bin);
		js_u64(x, "last_chan", (last < f->nchan ? last : f->nchan) - 1);
		js_u64(x, "samples", s->n);
		js_dbl(x, "mean_re", s->mean_re);
		js_dbl(x, "mean_im", s->mean_im);
		js_dbl(x, "power", s->power);
		js_dbl(x, "rms", s->rms);
		js_dbl(x, "saturated", s->sat);
		js_dbl(x, "zero", s->zero);
		js_str(x, "state", ql_verdict_name(s->verdict));
	}
}

struct run_ctx {
	struct qlb_acc *sum;
	uint64_t frames;
};

/* an entry's whole run: the ended windows and the one in progress */
static void
run_one(const struct ibv_lcore *lc, unsigned int k, void *ctx)
{
	struct run_ctx *c = ctx;
	const struct ibv_ql_live *lv = &lc->ql->live[k];

	qlb_merge(c->sum, &lv->run);
	qlb_merge(c->sum, &lv->cur);
	c->frames += lv->run_frames + lv->taken;
}

/* root's antenna x: its sampler statistics over the run (kept frames) */
static void
bstate_json(const struct ibv_app *app, unsigned int a, json_t *x, double run_s,
	    struct qlb_acc *sum)
{
	struct run_ctx c = { sum, 0 };
	struct qlb_result res;
	struct stats_qlb r;
	struct qlb_cfg cfg;
	json_t *o, *occ, *exp, *val;
	unsigned int s;

	memset(sum, 0, sizeof(*sum));
	ant_each(app, a, run_one, &c);
	qlb_cfg_defaults(&cfg);
	if (sum->nstate != 0)
		qlb_result(sum, -1, &cfg, &res);
	else
		memset(&res, 0, sizeof(res));
	stats_qlb_of(&r, &res, c.frames, (uint64_t)(run_s * 1e9));
	r.states = sum->nstate;
	o = js_obj(x, "bstate");
	stats_json(&stats_bstate, &r, STATS_ANTENNA, o);
	js_str(o, "state", qlb_verdict_name(res.verdict));
	occ = js_arr(o, "occupancy");
	exp = js_arr(o, "expected");
	val = js_arr(o, "state_value");
	for (s = 0; s < sum->nstate; s++) {
		json_array_append_new(occ, json_real(res.occ[s]));
		json_array_append_new(exp, json_real(res.expect[s]));
		json_array_append_new(val, json_real(qlb_state_value(sum, s)));
	}
}

void
ibv_ql_summary_json(const struct ibv_app *app, json_t *root, double run_s)
{
	const struct acct_layout *l = &app->cfg.layout;
	struct ql_snap run;
	struct ql_figs *f;
	struct qlb_acc *sum;
	json_t *o, *arr;
	unsigned int a, i, k, n;
	uint64_t unbound = 0, cycles = 0, offered = 0;

	o = js_obj(root, "quicklook");
	js_u64(o, "every", app->cfg.quicklook_every);
	if (!app->ql.on)
		return;
	f = malloc(sizeof(*f));
	if (f == NULL)
		return;
	/* the sampler statistics of the kept frames (--quicklook-min) */
	sum = app->cfg.quicklook_min ? malloc(sizeof(*sum)) : NULL;
	arr = js_arr(o, "antennas");
	for (a = 0; a < l->nant; a++) {
		json_t *x = js_obj(arr, NULL);

		js_u64(x, "antenna", a);
		js_str(x, "name", l->ant_name[a]);
		js_u64(x, "streams", ant_sum(app, a, W_FINAL, &run));
		ql_figs(&run, NULL, f);
		figs_json(x, &run, f, run_s);
		if (sum != NULL)
			bstate_json(app, a, x, run_s, sum);
	}
	arr = js_arr(o, "streams");
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lcores.lc[i];

		if (lc == NULL || lc->ql == NULL)
			continue;
		unbound += lc->ql->unbound;
		cycles += lc->ql->cycles;
		n = __atomic_load_n(&lc->ql->used, __ATOMIC_ACQUIRE);
		for (k = 0; k < n; k++) {
			unsigned int ant = lc->ql->ent[k].ant;
			const struct acct_stream *s = &lc->acct->ant[ant].stream[lc->ql->ent[k].stream];
			json_t *x = js_obj(arr, NULL);
			char ip[16], st[3];

			js_u64(x, "antenna", ant);
			js_str(x, "name", l->ant_name[ant]);
			js_str(x, "dst", ipv4_str(s->dst_ip, ip, sizeof(ip)));
			js_u64(x, "port", s->dport);
			codif_station_str(s->stationid, st);
			js_str(x, "station", st);
			js_u64(x, "groupid", s->groupid);
			js_u64(x, "secondaryid", s->secondaryid);
			js_u64(x, "threadid", s->threadid);
			js_u64(x, "lcore", lc->lcore_id);
			snap_of(lc->ql, k, W_FINAL, &run);
			offered += run.offered;
			ql_figs(&run, NULL, f);
			figs_json(x, &run, f, run_s);
		}
	}
	/* frames of streams beyond the pool: not sampled (more streams per
	 * antenna than groups x threads) */
	js_u64(o, "unsampled_frames", unbound);
	/* the rx lcores' TSC cycles reading sampled frames: its cost */
	js_u64(o, "cycles", cycles);
	js_dbl(o, "cycles_per_frame", offered ? (double)cycles / (double)offered : 0);
	/* the main lcore's TSC cycles reading kept frames: their cost */
	js_u64(o, "kept_frames_read", app->ql.drain_frames);
	js_u64(o, "kept_cycles", app->ql.drain_cycles);
	free(sum);
	free(f);
}

/* ---- live sampler statistics and spectra (telemetry) ---------------------- */

/* antenna params (a name or an index) -> a; -EINVAL when neither */
static int
ant_of(const struct ibv_app *app, const char *params, unsigned int *a)
{
	const struct acct_layout *l = &app->cfg.layout;
	uint64_t idx;

	for (*a = 0; *a < l->nant; (*a)++)
		if (strcmp(params, l->ant_name[*a]) == 0)
			return 0;
	if (parse_u64("antenna", params, 0, l->nant - 1, &idx, NULL, 0) != 0)
		return -EINVAL;
	*a = (unsigned int)idx;
	return 0;
}

static uint64_t
window_ns(const struct ibv_app *app)
{
	return (uint64_t)(window_s(app) * 1e9);
}

/* a row of the bstate table: the figures of group g (< 0: all) of q */
static void
tel_qlb_row(const struct ibv_app *app, struct rte_tel_data *d, const char *key,
	    const struct qlb_acc *q, int g, uint64_t frames, struct qlb_result *res)
{
	struct rte_tel_data *arr = rte_tel_data_alloc();
	struct stats_qlb r;
	struct qlb_cfg cfg;

	qlb_cfg_defaults(&cfg);
	if (q->nstate != 0)
		qlb_result(q, g, &cfg, res);
	else
		memset(res, 0, sizeof(*res));
	stats_qlb_of(&r, res, frames, window_ns(app));
	r.states = q->nstate;
	if (arr == NULL)
		return;
	stats_tel_row(&stats_bstate, &r, STATS_ANTENNA | STATS_LIVE, arr);
	if (rte_tel_data_add_dict_container(d, key, arr, 0) != 0)
		rte_tel_data_free(arr);
}

struct qlb_ctx {
	struct qlb_acc *sum;
	uint64_t frames;
	struct rte_tel_data *d;      /* non-NULL: a row per stream too */
	const struct ibv_app *app;
};

static void
qlb_one(const struct ibv_lcore *lc, unsigned int k, void *ctx)
{
	struct qlb_ctx *c = ctx;
	const struct ibv_ql_live *lv = &lc->ql->live[k];
	struct qlb_result res;
	char key[96];

	qlb_merge(c->sum, &lv->last); /* a stream of another format: its own row only */
	c->frames += lv->last_frames;
	if (c->d == NULL)
		return;
	stream_key(lc, k, key, sizeof(key));
	tel_qlb_row(c->app, c->d, key, &lv->last, -1, lv->last_frames, &res);
}

/* an array of n doubles x[i] * scale as integers (clamped to int) */
static void
tel_ints(struct rte_tel_data *d, const char *key, const double *x, unsigned int n, double scale)
{
	struct rte_tel_data *arr = rte_tel_data_alloc();
	unsigned int i;

	if (arr == NULL)
		return;
	rte_tel_data_start_array(arr, RTE_TEL_INT_VAL);
	for (i = 0; i < n; i++) {
		double v = x[i] * scale;

		rte_tel_data_add_array_int(arr, !(v == v) ? 0 : v > INT32_MAX ? INT32_MAX :
					   v < INT32_MIN ? INT32_MIN : (int)llround(v));
	}
	if (rte_tel_data_add_dict_container(d, key, arr, 0) != 0)
		rte_tel_data_free(arr);
}

/* antenna a in detail: its row, the occupancy, its groups' and streams' rows */
static void
tel_bstate_ant(const struct ibv_app *app, unsigned int a, struct rte_tel_data *d,
	       struct qlb_acc *sum)
{
	struct qlb_ctx c = { sum, 0, d, app };
	struct qlb_result res;
	double val[QLB_BINS];
	unsigned int s, g;
	char key[32];

	ant_each(app, a, qlb_one, &c);
	tel_qlb_row(app, d, "antenna", sum, -1, c.frames, &res);
	rte_tel_data_add_dict_string(d, "verdict_name", qlb_verdict_name(res.verdict));
	rte_tel_data_add_dict_int(d, "nbits", sum->e.nbits);
	rte_tel_data_add_dict_int(d, "chan_per_group", (int)sum->chan_per_group);
	for (s = 0; s < sum->nstate; s++)
		val[s] = qlb_state_value(sum, s);
	/* occupancy and the Gaussian's at the optimal level, ppm; the states'
	 * values, milli-steps */
	tel_ints(d, "occupancy_ppm", res.occ, sum->nstate, 1e6);
	tel_ints(d, "expected_ppm", res.expect, sum->nstate, 1e6);
	tel_ints(d, "state_value", val, sum->nstate, 1e3);
	for (g = 0; g < sum->ngroup; g++) {
		snprintf(key, sizeof(key), "group%u", g);
		tel_qlb_row(app, d, key, sum, (int)g, 0, &res);
	}
}

int
ibv_ql_tel_bstate(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	const struct acct_layout *l = &app->cfg.layout;
	struct rte_tel_data *names;
	struct qlb_acc *sum;
	struct qlb_result res;
	unsigned int a;
	int rc = 0;

	if (!app->ql.on || app->ql.min == 0)
		return -ENOENT;
	if (params != NULL && *params != '\0' && ant_of(app, params, &a) != 0)
		return -EINVAL;
	names = rte_tel_data_alloc();
	sum = malloc(sizeof(*sum));
	if (names == NULL || sum == NULL) {
		rte_tel_data_free(names);
		free(sum);
		return -ENOMEM;
	}
	rte_tel_data_start_dict(d);
	stats_tel_names(&stats_bstate, STATS_ANTENNA | STATS_LIVE, names);
	if (rte_tel_data_add_dict_container(d, "fields", names, 0) != 0)
		rte_tel_data_free(names);
	pthread_mutex_lock(&app->ql.lock);
	if (params != NULL && *params != '\0') {
		memset(sum, 0, sizeof(*sum));
		tel_bstate_ant(app, a, d, sum);
	} else {
		for (a = 0; a < l->nant; a++) {
			struct qlb_ctx c = { sum, 0, NULL, app };

			memset(sum, 0, sizeof(*sum));
			ant_each(app, a, qlb_one, &c);
			tel_qlb_row(app, d, l->ant_name[a], sum, -1, c.frames, &res);
		}
	}
	pthread_mutex_unlock(&app->ql.lock);
	free(sum);
	return rc;
}

/* Spectra: the telemetry reply is at most 16 KiB (DPDK's) of at most 256
 * keys and 512 values an array: points per FFT are 16..512, and a reply
 * that would not fit says so. */
#define SPEC_NFFT_DEFAULT 128u
#define SPEC_NFFT_MAX 512u
#define SPEC_REPLY_MAX 14000u

struct spec_ctx {
	struct rte_tel_data *d;
	unsigned int nfft, streams;
	size_t bytes;   /* the reply's estimated size */
	bool fill;      /* false: count and size only */
};

static void
spec_one(const struct ibv_lcore *lc, unsigned int k, void *ctx)
{
	struct spec_ctx *c = ctx;
	const struct qls_acc *s = &lc->ql->live[k].spec_last;
	double v[SPEC_NFFT_MAX], pk[3][QLS_MAX_CHAN];
	unsigned int j, ch;
	char key[96], sub[128];

	if (s->nfft != c->nfft || s->blocks == 0)
		return;
	c->streams++;
	c->bytes += (size_t)s->nbin * (s->nchan * 9 + 11) + 64 * (s->nchan + 6);
	if (!c->fill)
		return;
	stream_key(lc, k, key, sizeof(key));
	{
		double row[] = { s->nchan, s->nbin, (double)s->blocks, s->fs_hz, s->e.complex,
				 qls_chan_mhz(s) * 1e6 };

		tel_ints(c->d, key, row, RTE_DIM(row), 1);
	}
	for (j = 0; j < s->nbin; j++)
		v[j] = qls_bin_mhz(s, j);
	snprintf(sub, sizeof(sub), "%s_freq_hz", key);
	tel_ints(c->d, sub, v, s->nbin, 1e6);
	for (ch = 0; ch < s->nchan; ch++) {
		for (j = 0; j < s->nbin; j++)
			v[j] = qls_bin_db(s, ch, j);
		snprintf(sub, sizeof(sub), "%s_c%u_power_mdb", key, ch);
		tel_ints(c->d, sub, v, s->nbin, 1e3);
		j = qls_peak(s, ch);
		pk[0][ch] = j;
		pk[1][ch] = qls_bin_mhz(s, j) * 1e6;
		pk[2][ch] = qls_bin_db(s, ch, j) * 1e3;
	}
	snprintf(sub, sizeof(sub), "%s_peak_bin", key);
	tel_ints(c->d, sub, pk[0], s->nchan, 1);
	snprintf(sub, sizeof(sub), "%s_peak_hz", key);
	tel_ints(c->d, sub, pk[1], s->nchan, 1);
	snprintf(sub, sizeof(sub), "%s_peak_mdb", key);
	tel_ints(c->d, sub, pk[2], s->nchan, 1);
}

/* "ANT[,NFFT]" -> a, nfft; an error reply (0) when they are wrong */
static int
spec_params(const struct ibv_app *app, const char *params, unsigned int *a, unsigned int *nfft,
	    struct rte_tel_data *d)
{
	char ant[64], why[160];
	const char *comma = params != NULL ? strchr(params, ',') : NULL;
	uint64_t n = SPEC_NFFT_DEFAULT;

	if (params == NULL || *params == '\0') {
		snprintf(why, sizeof(why), "expected ANTENNA[,NFFT]: an antenna's name or index");
		goto refused;
	}
	snprintf(ant, sizeof(ant), "%.*s", comma ? (int)(comma - params) : 63, params);
	if (ant_of(app, ant, a) != 0) {
		snprintf(why, sizeof(why), "antenna '%.60s': no such antenna (a name or "
			 "0..%u)", ant, app->cfg.layout.nant - 1);
		goto refused;
	}
	if (comma != NULL && (parse_u64("nfft", comma + 1, QLS_NFFT_MIN, SPEC_NFFT_MAX, &n,
					NULL, 0) != 0 || (n & (n - 1)) != 0)) {
		snprintf(why, sizeof(why), "NFFT '%.40s': expected a power of two, %u..%u",
			 comma + 1, QLS_NFFT_MIN, SPEC_NFFT_MAX);
		goto refused;
	}
	*nfft = (unsigned int)n;
	return 1;
refused:
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "state", "refused");
	rte_tel_data_add_dict_string(d, "error", why);
	return 0;
}

int
ibv_ql_tel_spectrum(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	struct spec_ctx c = { d, 0, 0, 0, false };
	unsigned int a;

	if (!app->ql.on || app->ql.min == 0)
		return -ENOENT;
	if (spec_params(app, params, &a, &c.nfft, d) == 0)
		return 0;
	pthread_mutex_lock(&app->ql.lock);
	/* the main lcore computes what was asked for last, from now on */
	__atomic_store_n(&app->ql.spec_nfft, c.nfft, __ATOMIC_RELAXED);
	__atomic_store_n(&app->ql.spec_ant, (int)a, __ATOMIC_RELEASE);
	ant_each(app, a, spec_one, &c);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "antenna", app->cfg.layout.ant_name[a]);
	rte_tel_data_add_dict_int(d, "nfft", (int)c.nfft);
	if (c.streams == 0 || c.bytes > SPEC_REPLY_MAX) {
		rte_tel_data_add_dict_string(d, "state", c.streams ? "refused" : "pending");
		rte_tel_data_add_dict_string(d, "error", c.streams ?
			"the spectra of this NFFT do not fit a telemetry reply (16 KiB): a "
			"smaller NFFT" : "computing: the next --quicklook-window has them");
		goto out;
	}
	rte_tel_data_add_dict_string(d, "state", "ready");
	rte_tel_data_add_dict_u64(d, "window_ns", window_ns(app));
	{
		struct rte_tel_data *f = rte_tel_data_alloc();
		static const char *const cols[] = { "nchan", "nbin", "blocks", "sample_rate_hz",
						    "complex", "chan_bw_hz" };
		unsigned int i;

		if (f != NULL) {
			rte_tel_data_start_array(f, RTE_TEL_STRING_VAL);
			for (i = 0; i < RTE_DIM(cols); i++)
				rte_tel_data_add_array_string(f, cols[i]);
			if (rte_tel_data_add_dict_container(d, "stream_fields", f, 0) != 0)
				rte_tel_data_free(f);
		}
	}
	c.fill = true;
	c.streams = 0;
	ant_each(app, a, spec_one, &c);
out:
	pthread_mutex_unlock(&app->ql.lock);
	return 0;
}
