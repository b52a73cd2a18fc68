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

#include "quicklook_app.h"
#include "quicklook_int.h"
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
 * main lcore: every --quicklook-window, under ql->lock, each bound
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

/* ---- setup (main lcore, before the rx lcores run) ------------------------ */

int
ibv_ql_setup(struct ibv_ql *ql, const struct ibv_config *c, const struct ibv_lcores *lcores,
	     const struct ibv_pl *pl, const struct ibv_run *run, char *err, size_t len)
{
	unsigned int i, k, per_ant, npool;
	struct ql_cfg qc;

	ql->cfg = c;
	ql->lcores = lcores;
	ql->run = run;
	ql->on = c->quicklook_every > 0;
	if (!ql->on)
		return 0;
	if (!pl->ops->cpu_packets) {
		/* the payload is in GPU memory: nothing for the CPU to read */
		printf("dpdk-ibvcap: quick look off: with buffer split the payload goes "
		       "to GPU memory\n");
		ql->on = false;
		return 0;
	}
	pthread_mutex_init(&ql->lock, NULL);
	ql->lock_init = true;
	ql_cfg_defaults(&qc);
	qc.every = c->quicklook_every;
	qc.min = c->quicklook_min;
	ql->min = c->quicklook_min;
	ql->levels = c->sampler_levels;
	ql->spec_ant = -1;
	/* a stream per (group, thread) of each antenna, as the buffers' slots */
	per_ant = c->layout.ngroup * (c->threads ? c->threads : 1);
	if (per_ant > ACCT_MAX_STREAMS)
		per_ant = ACCT_MAX_STREAMS;
	npool = c->layout.nant * per_ant;
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = ql->lcores->lc[i];
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
	ql->every = qc.every;
	return 0;
nomem:
	return err_set(err, len, -ENOMEM, "quick look: out of memory for %u streams of %u "
		       "bytes per rx lcore (--quicklook off, --quicklook-min off, or fewer "
		       "antennas)", npool, (unsigned int)(sizeof(struct ql_acc) +
		       (c->quicklook_min ? sizeof(struct ql_keep) + sizeof(struct ibv_ql_live) : 0)));
}

void
ibv_ql_free(struct ibv_ql *ql)
{
	unsigned int i, k;

	/* NULL: ibv_ql_setup was never reached (the rx lcores failed first) */
	for (i = 0; ql->lcores != NULL && i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = ql->lcores->lc[i];

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
	if (ql->lock_init)
		pthread_mutex_destroy(&ql->lock);
	ql->lock_init = false;
	ql->on = false;
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
live_frame(struct ibv_ql *ql, struct ibv_ql_live *lv, unsigned int a, const uint8_t *f,
	   size_t len)
{
	int spec_ant = __atomic_load_n(&ql->spec_ant, __ATOMIC_ACQUIRE);
	unsigned int nfft = __atomic_load_n(&ql->spec_nfft, __ATOMIC_RELAXED);
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
ibv_ql_drain(struct ibv_ql *ql)
{
	uint64_t t0 = rte_rdtsc(), frames = 0;
	unsigned int i, k, n;

	if (!ql->on || ql->min == 0)
		return;
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_qlc *q = ql->lcores->lc[i] != NULL ? ql->lcores->lc[i]->ql : NULL;

		if (q == NULL || q->live == NULL)
			continue;
		n = __atomic_load_n(&q->used, __ATOMIC_ACQUIRE);
		for (k = 0; k < n; k++) {
			struct ibv_ql_live *lv = &q->live[k];
			const uint8_t *f;
			size_t len;

			/* the window's share read, the slots stay full: the rx
			 * lcore copies nothing more until the next window */
			while (lv->taken < ql->min && (f = qlk_peek(&q->keep[k], &len)) != NULL) {
				pthread_mutex_lock(&ql->lock);
				live_frame(ql, lv, q->ent[k].ant, f, len);
				pthread_mutex_unlock(&ql->lock);
				qlk_done(&q->keep[k]);
				lv->taken++;
				frames++;
			}
		}
	}
	if (frames) {
		ql->drain_cycles += rte_rdtsc() - t0;
		ql->drain_frames += frames;
	}
}

void
ibv_ql_tick(struct ibv_ql *ql, bool force)
{
	uint64_t now = rte_rdtsc();
	unsigned int i, k;

	if (!ql->on)
		return;
	if (ql->next_tsc == 0) /* the first window ends one window after the start */
		ql->next_tsc = ql->run->start_tsc +
				   ns_to_cycles(ql->cfg->quicklook_window_ns, ql->run->tsc_hz);
	if (!force && now < ql->next_tsc)
		return;
	ql->next_tsc = now + ns_to_cycles(ql->cfg->quicklook_window_ns, ql->run->tsc_hz);
	pthread_mutex_lock(&ql->lock);
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct ibv_lcore *lc = ql->lcores->lc[i];
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
	ql->prev_tsc = ql->cur_tsc ? ql->cur_tsc : ql->run->start_tsc;
	ql->cur_tsc = now;
	pthread_mutex_unlock(&ql->lock);
}

/* ---- readers ------------------------------------------------------------ */

void
ibv_ql_snap_of(const struct ibv_qlc *q, unsigned int k, enum which w, struct ql_snap *s)
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
unsigned int
ibv_ql_ant_each(const struct ibv_ql *ql, unsigned int a,
	 void (*fn)(const struct ibv_lcore *lc, unsigned int k, void *ctx), void *ctx)
{
	unsigned int i, k, n, m = 0;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = ql->lcores->lc[i];

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

	ibv_ql_snap_of(lc->ql, k, c->w, &s);
	ql_snap_add(c->out, &s);
}

/* Antenna a's streams (every lcore) summed. @return streams seen. */
unsigned int
ibv_ql_ant_sum(const struct ibv_ql *ql, unsigned int a, enum which w, struct ql_snap *out)
{
	struct sum_ctx c = { w, out };

	memset(out, 0, sizeof(*out));
	return ibv_ql_ant_each(ql, a, sum_one, &c);
}

double
ibv_ql_window_s(const struct ibv_ql *ql)
{
	return (double)(ql->cur_tsc - ql->prev_tsc) / (double)ql->run->tsc_hz;
}

/* The live record of antenna a: the last window (lock held). */
void
ibv_ql_ant_live(const struct ibv_ql *ql, unsigned int a, struct stats_ql *r,
	 struct ql_figs *f)
{
	struct ql_snap prev, cur;

	ibv_ql_ant_sum(ql, a, W_PREV, &prev);
	ibv_ql_ant_sum(ql, a, W_CUR, &cur);
	ql_figs(&cur, &prev, f);
	stats_ql_of(r, &cur, f, ibv_ql_window_s(ql));
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
bstate_json(const struct ibv_ql *ql, unsigned int a, json_t *x, double run_s,
	    struct qlb_acc *sum)
{
	struct run_ctx c = { sum, 0 };
	struct qlb_result res;
	struct stats_qlb r;
	json_t *o, *occ, *exp, *val;
	unsigned int s;

	memset(sum, 0, sizeof(*sum));
	ibv_ql_ant_each(ql, a, run_one, &c);
	if (sum->nstate != 0)
		qlb_result(sum, -1, &ql->levels, &res);
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
ibv_ql_summary_json(const struct ibv_ql *ql, json_t *root, double run_s)
{
	const struct acct_layout *l = &ql->cfg->layout;
	struct ql_snap run;
	struct ql_figs *f;
	struct qlb_acc *sum;
	json_t *o, *arr;
	unsigned int a, i, k, n;
	uint64_t unbound = 0, cycles = 0, offered = 0;

	o = js_obj(root, "quicklook");
	js_u64(o, "every", ql->cfg->quicklook_every);
	if (!ql->on)
		return;
	f = malloc(sizeof(*f));
	if (f == NULL)
		return;
	/* the sampler statistics of the kept frames (--quicklook-min) */
	sum = ql->cfg->quicklook_min ? malloc(sizeof(*sum)) : NULL;
	arr = js_arr(o, "antennas");
	for (a = 0; a < l->nant; a++) {
		json_t *x = js_obj(arr, NULL);

		js_u64(x, "antenna", a);
		js_str(x, "name", l->ant_name[a]);
		js_u64(x, "streams", ibv_ql_ant_sum(ql, a, W_FINAL, &run));
		ql_figs(&run, NULL, f);
		figs_json(x, &run, f, run_s);
		if (sum != NULL)
			bstate_json(ql, a, x, run_s, sum);
	}
	arr = js_arr(o, "streams");
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = ql->lcores->lc[i];

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
			ibv_ql_snap_of(lc->ql, k, W_FINAL, &run);
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
	js_u64(o, "kept_frames_read", ql->drain_frames);
	js_u64(o, "kept_cycles", ql->drain_cycles);
	free(sum);
	free(f);
}
