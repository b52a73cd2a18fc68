/* SPDX-License-Identifier: BSD-3-Clause */
/* Quick look in the capture: an accumulator (lib/quicklook) per stream of
 * each rx lcore, the main lcore's window, telemetry and the summary's figures. */

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
#include "json.h"
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
 *   lock. It never waits.
 * main lcore: every --quicklook-window, under app->ql.lock, each bound
 *   accumulator's snapshot moves cur -> prev and a new one is read into
 *   cur (ibv_ql_tick). The live figures are those between prev and cur.
 * telemetry thread: reads prev and cur under the same lock.
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
	if (app->split.on && c->gpu >= 0) {
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
	/* a stream per (group, thread) of each antenna, as the buffers' slots */
	per_ant = c->layout.ngroup * (c->threads ? c->threads : 1);
	if (per_ant > ACCT_MAX_STREAMS)
		per_ant = ACCT_MAX_STREAMS;
	npool = c->layout.nant * per_ant;
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = app->lc[i];
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
		for (k = 0; k < npool; k++)
			ql_init(&q->pool[k], &qc);
		q->npool = npool;
	}
	app->ql.every = qc.every;
	return 0;
nomem:
	return err_set(err, len, -ENOMEM, "quick look: out of memory for %u streams of %u "
		       "bytes per rx lcore (--quicklook off, or fewer antennas)", npool,
		       (unsigned int)sizeof(struct ql_acc));
}

void
ibv_ql_free(struct ibv_app *app)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = app->lc[i];

		if (lc == NULL || lc->ql == NULL)
			continue;
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

void
ibv_ql_tick(struct ibv_app *app, bool force)
{
	uint64_t now = rte_rdtsc();
	unsigned int i, k;

	if (!app->ql.on)
		return;
	if (app->ql.next_tsc == 0) /* the first window ends one window after the start */
		app->ql.next_tsc = app->start_tsc +
				   ns_to_cycles(app->cfg.quicklook_window_ns, app->tsc_hz);
	if (!force && now < app->ql.next_tsc)
		return;
	app->ql.next_tsc = now + ns_to_cycles(app->cfg.quicklook_window_ns, app->tsc_hz);
	pthread_mutex_lock(&app->ql.lock);
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = app->lc[i];
		unsigned int n;

		if (lc == NULL || lc->ql == NULL)
			continue;
		n = __atomic_load_n(&lc->ql->used, __ATOMIC_ACQUIRE);
		for (k = 0; k < n; k++) {
			lc->ql->win[k].prev = lc->ql->win[k].cur;
			ql_read(&lc->ql->pool[k], &lc->ql->win[k].cur);
		}
	}
	app->ql.prev_tsc = app->ql.cur_tsc ? app->ql.cur_tsc : app->start_tsc;
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
		const struct ibv_lcore *lc = app->lc[i];

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
	return (double)(app->ql.cur_tsc - app->ql.prev_tsc) / (double)app->tsc_hz;
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

static void
tel_ql_row(struct rte_tel_data *d, const char *key, const struct stats_ql *r)
{
	struct rte_tel_data *arr = rte_tel_data_alloc();

	if (arr == NULL)
		return;
	stats_tel_row_text(&stats_quicklook, r, STATS_ANTENNA | STATS_LIVE, arr);
	if (rte_tel_data_add_dict_container(d, key, arr, 0) != 0)
		rte_tel_data_free(arr);
}

/* The bins' columns in telemetry, "bin_NAME" -> [text of each bin]: a
 * double of struct ql_stat at off, or (off < 0) the bin's first channel
 * (-1) or its verdict (-2). */
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

static void
tel_bins(struct rte_tel_data *d, const struct ql_figs *f)
{
	char key[64], v[32];
	unsigned int b, c;

	for (c = 0; c < RTE_DIM(tel_bin_cols); c++) {
		struct rte_tel_data *arr = rte_tel_data_alloc();
		long off = tel_bin_cols[c].off;

		if (arr == NULL)
			return;
		rte_tel_data_start_array(arr, RTE_TEL_STRING_VAL);
		for (b = 0; b < f->nbin; b++) {
			const struct ql_stat *s = &f->bin[b];

			if (off == -1)
				snprintf(v, sizeof(v), "%u", b * f->chan_per_bin);
			else if (off == -2)
				snprintf(v, sizeof(v), "%u", (unsigned int)s->verdict);
			else
				snprintf(v, sizeof(v), "%.10g",
					 *(const double *)((const char *)s + off));
			rte_tel_data_add_array_string(arr, v);
		}
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

/* A telemetry row of one stream's last window. */
static void
stream_row(const struct ibv_lcore *lc, unsigned int k, void *ctx)
{
	const struct row_ctx *c = ctx;
	const struct acct_stream *s = &lc->acct->ant[c->a].stream[lc->ql->ent[k].stream];
	struct stats_ql r;
	char key[96];

	ql_figs(&lc->ql->win[k].cur, &lc->ql->win[k].prev, c->f);
	stats_ql_of(&r, &lc->ql->win[k].cur, c->f, window_s(c->app));
	/* telemetry names: letters, digits, '_' */
	snprintf(key, sizeof(key), "g%u_s%u_t%u_p%u_l%u", s->groupid, s->secondaryid,
		 s->threadid, s->dport, lc->lcore_id);
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
	el = (double)(rte_rdtsc() - app->start_tsc) / (double)app->tsc_hz;
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

void
ibv_ql_summary_json(const struct ibv_app *app, json_t *root, double run_s)
{
	const struct acct_layout *l = &app->cfg.layout;
	struct ql_snap run;
	struct ql_figs *f;
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
	arr = js_arr(o, "antennas");
	for (a = 0; a < l->nant; a++) {
		json_t *x = js_obj(arr, NULL);

		js_u64(x, "antenna", a);
		js_str(x, "name", l->ant_name[a]);
		js_u64(x, "streams", ant_sum(app, a, W_FINAL, &run));
		ql_figs(&run, NULL, f);
		figs_json(x, &run, f, run_s);
	}
	arr = js_arr(o, "streams");
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lc[i];

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
	free(f);
}
