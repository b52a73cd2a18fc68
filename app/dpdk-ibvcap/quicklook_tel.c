/* SPDX-License-Identifier: BSD-3-Clause */
/* Quick look's telemetry: /ibvcap/quicklook and /ibvcap/quicklook/run (the
 * accumulators' windows), /ibvcap/bstate and /ibvcap/spectrum (the kept
 * frames' sampler statistics and spectra), read under ql->lock. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "quicklook_app.h"
#include "quicklook_int.h"
#include "parse.h"
#include "stats.h"
#include "stats_tel.h"
#include "tconv.h"
#include "err.h"

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
	const struct ibv_ql *ql;
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
	stats_ql_of(&r, &lc->ql->win[k].cur, c->f, ibv_ql_window_s(c->ql));
	stream_key(lc, k, key, sizeof(key));
	tel_ql_row(c->d, key, &r);
}

int
ibv_ql_tel_window(struct ibv_ql *ql, const char *params, struct rte_tel_data *d)
{
	const struct acct_layout *l;
	struct stats_ql r;
	struct ql_figs *f;
	unsigned int a;
	uint64_t idx;
	int rc;

	if (!ql->on)
		return -ENOENT;
	l = &ql->cfg->layout;
	f = malloc(sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	rc = tel_ql_start(d);
	pthread_mutex_lock(&ql->lock);
	if (rc == 0 && (params == NULL || *params == '\0')) {
		/* a row per antenna */
		for (a = 0; a < l->nant; a++) {
			ibv_ql_ant_live(ql, a, &r, f);
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
	ibv_ql_ant_live(ql, a, &r, f);
	tel_ql_row(d, "antenna", &r);
	tel_bins(d, f);
	{
		struct row_ctx c = { ql, d, f, a };

		ibv_ql_ant_each(ql, a, stream_row, &c);
	}
out:
	pthread_mutex_unlock(&ql->lock);
	free(f);
	return rc;
}

/* The whole run so far, a row per antenna (no lock: fresh reads). */
int
ibv_ql_tel_run(struct ibv_ql *ql, const char *params, struct rte_tel_data *d)
{
	struct stats_ql r;
	struct ql_snap run;
	struct ql_figs *f;
	unsigned int a;
	double el;
	int rc;

	(void)params;
	if (!ql->on)
		return -ENOENT;
	f = malloc(sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	el = (double)(rte_rdtsc() - ql->run->start_tsc) / (double)ql->run->tsc_hz;
	rc = tel_ql_start(d);
	for (a = 0; rc == 0 && a < ql->cfg->layout.nant; a++) {
		ibv_ql_ant_sum(ql, a, W_LIVE, &run);
		ql_figs(&run, NULL, f);
		stats_ql_of(&r, &run, f, el);
		tel_ql_row(d, ql->cfg->layout.ant_name[a], &r);
	}
	free(f);
	return rc;
}

/* ---- live sampler statistics and spectra (telemetry) ---------------------- */

/* antenna params (a name or an index) -> a; -EINVAL when neither */
static int
ant_of(const struct ibv_ql *ql, const char *params, unsigned int *a)
{
	const struct acct_layout *l = &ql->cfg->layout;
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
window_ns(const struct ibv_ql *ql)
{
	return (uint64_t)(ibv_ql_window_s(ql) * 1e9);
}

/* a row of the bstate table: the figures of group g (< 0: all) of q */
static void
tel_qlb_row(const struct ibv_ql *ql, struct rte_tel_data *d, const char *key,
	    const struct qlb_acc *q, int g, uint64_t frames, struct qlb_result *res)
{
	struct rte_tel_data *arr = rte_tel_data_alloc();
	struct stats_qlb r;

	if (q->nstate != 0)
		qlb_result(q, g, &ql->levels, res);
	else
		memset(res, 0, sizeof(*res));
	stats_qlb_of(&r, res, frames, window_ns(ql));
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
	const struct ibv_ql *ql;
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
	tel_qlb_row(c->ql, c->d, key, &lv->last, -1, lv->last_frames, &res);
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
tel_bstate_ant(const struct ibv_ql *ql, unsigned int a, struct rte_tel_data *d,
	       struct qlb_acc *sum)
{
	struct qlb_ctx c = { sum, 0, d, ql };
	struct qlb_result res;
	double val[QLB_BINS];
	unsigned int s, g;
	char key[32];

	ibv_ql_ant_each(ql, a, qlb_one, &c);
	tel_qlb_row(ql, d, "antenna", sum, -1, c.frames, &res);
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
		tel_qlb_row(ql, d, key, sum, (int)g, 0, &res);
	}
}

int
ibv_ql_tel_bstate(struct ibv_ql *ql, const char *params, struct rte_tel_data *d)
{
	const struct acct_layout *l = &ql->cfg->layout;
	struct rte_tel_data *names;
	struct qlb_acc *sum;
	struct qlb_result res;
	unsigned int a;
	int rc = 0;

	if (!ql->on || ql->min == 0)
		return -ENOENT;
	if (params != NULL && *params != '\0' && ant_of(ql, params, &a) != 0)
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
	pthread_mutex_lock(&ql->lock);
	if (params != NULL && *params != '\0') {
		memset(sum, 0, sizeof(*sum));
		tel_bstate_ant(ql, a, d, sum);
	} else {
		for (a = 0; a < l->nant; a++) {
			struct qlb_ctx c = { sum, 0, NULL, ql };

			memset(sum, 0, sizeof(*sum));
			ibv_ql_ant_each(ql, a, qlb_one, &c);
			tel_qlb_row(ql, d, l->ant_name[a], sum, -1, c.frames, &res);
		}
	}
	pthread_mutex_unlock(&ql->lock);
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
spec_params(const struct ibv_ql *ql, const char *params, unsigned int *a, unsigned int *nfft,
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
	if (ant_of(ql, ant, a) != 0) {
		snprintf(why, sizeof(why), "antenna '%.60s': no such antenna (a name or "
			 "0..%u)", ant, ql->cfg->layout.nant - 1);
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
ibv_ql_tel_spectrum(struct ibv_ql *ql, const char *params, struct rte_tel_data *d)
{
	struct spec_ctx c = { d, 0, 0, 0, false };
	unsigned int a;

	if (!ql->on || ql->min == 0)
		return -ENOENT;
	if (spec_params(ql, params, &a, &c.nfft, d) == 0)
		return 0;
	pthread_mutex_lock(&ql->lock);
	/* the main lcore computes what was asked for last, from now on */
	__atomic_store_n(&ql->spec_nfft, c.nfft, __ATOMIC_RELAXED);
	__atomic_store_n(&ql->spec_ant, (int)a, __ATOMIC_RELEASE);
	ibv_ql_ant_each(ql, a, spec_one, &c);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "antenna", ql->cfg->layout.ant_name[a]);
	rte_tel_data_add_dict_int(d, "nfft", (int)c.nfft);
	if (c.streams == 0 || c.bytes > SPEC_REPLY_MAX) {
		rte_tel_data_add_dict_string(d, "state", c.streams ? "refused" : "pending");
		rte_tel_data_add_dict_string(d, "error", c.streams ?
			"the spectra of this NFFT do not fit a telemetry reply (16 KiB): a "
			"smaller NFFT" : "computing: the next --quicklook-window has them");
		goto out;
	}
	rte_tel_data_add_dict_string(d, "state", "ready");
	rte_tel_data_add_dict_u64(d, "window_ns", window_ns(ql));
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
	ibv_ql_ant_each(ql, a, spec_one, &c);
out:
	pthread_mutex_unlock(&ql->lock);
	return 0;
}
