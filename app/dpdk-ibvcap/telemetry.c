/* SPDX-License-Identifier: BSD-3-Clause */
/* The capture's telemetry commands (/ibvcap/...): a table of commands, each
 * answered under the component's lock while the capture is open. */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "telemetry.h"
#include "antenna.h"
#include "ports.h"
#include "rings.h"
#include "run.h"
#include "rx.h"
#include "ledger.h"
#include "fringe.h"
#include "quicklook_app.h"
#include "scans.h"
#include "trigger.h"
#include "totals.h"
#include "parse.h"
#include "stats.h"
#include "stats_tel.h"

static int
tel_stats(const struct ibv_tel_view *v, const char *params, struct rte_tel_data *d)
{
	struct ibv_totals t;
	struct rte_eth_stats nic;

	(void)params;
	ibv_collect(v->counts, &t);
	ibv_nic_totals(v->ports, &nic);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "uptime_ms", (uint64_t)(ibv_elapsed_s(v->run) * 1000));
	{ /* how long ago the main loop last turned (100 times a second when
	   * well): clients call a capture whose loop stopped stale */
		uint64_t l = __atomic_load_n(&v->run->loop_tsc, __ATOMIC_RELAXED), now = rte_rdtsc();

		rte_tel_data_add_dict_u64(d, "loop_age_ms", l == 0 || now < l ? 0 :
					  (now - l) * 1000 / v->run->tsc_hz);
	}
	rte_tel_data_add_dict_u64(d, "antennas", v->cfg->layout.nant);
	stats_tel_dict(&stats_capture, &t.rx, STATS_LIVE, d);
	stats_tel_dict(&stats_counts, &t.all, STATS_ANTENNA | STATS_LIVE, d);
	rte_tel_data_add_dict_u64(d, "unattributed", ibv_unattributed(&t));
	stats_tel_dict(&stats_port, &nic, STATS_LIVE, d);
	rte_tel_data_add_dict_u64(d, "rate_mbps", (uint64_t)(v->rates->gbps * 1000));
	rte_tel_data_add_dict_u64(d, "rate_pps", (uint64_t)(v->rates->mpps * 1e6));
	return 0;
}

static int
tel_antennas(const struct ibv_tel_view *v, const char *params, struct rte_tel_data *d)
{
	struct rte_tel_data *names;
	struct ibv_totals t;
	unsigned int a;

	(void)params;
	ibv_collect(v->counts, &t);
	rte_tel_data_start_dict(d);
	names = rte_tel_data_alloc();
	if (names == NULL)
		return -ENOMEM;
	/* every figure of an antenna (counters.md: all of them exported) */
	stats_tel_names(&stats_counts, STATS_ANTENNA, names);
	rte_tel_data_add_dict_container(d, "fields", names, 0);
	for (a = 0; a < v->cfg->layout.nant; a++) {
		struct rte_tel_data *arr = rte_tel_data_alloc();

		if (arr == NULL)
			return -ENOMEM;
		stats_tel_row(&stats_counts, &t.ant[a], STATS_ANTENNA, arr);
		if (rte_tel_data_add_dict_container(d, v->cfg->layout.ant_name[a], arr, 0) != 0)
			rte_tel_data_free(arr);
	}
	return 0;
}

/* the identity of a stream's row, after its counts (tel_streams) */
static const char *const stream_id_names[] = {
	"antenna", "stationid", "groupid", "secondaryid", "threadid", "dst", "port", "slot",
};

/* /ibvcap/streams[,ANTENNA]: each stream's counts (per rx lcore that saw
 * it), its not_recorded by cause, and its identity; keyed a<ant>_s<k>_l<lcore> */
static int
tel_streams(const struct ibv_tel_view *v, const char *params, struct rte_tel_data *d)
{
	const struct acct_layout *l = &v->cfg->layout;
	struct rte_tel_data *names;
	unsigned int i, a, k, c, a0 = 0, a1 = l->nant;
	char key[64];

	if (params != NULL && *params != '\0') {
		int one = ibv_antenna_of(v->cfg, params);

		if (one < 0)
			return -EINVAL;
		a0 = (unsigned int)one;
		a1 = a0 + 1;
	}
	names = rte_tel_data_alloc();
	if (names == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	stats_tel_names(&stats_counts, STATS_STREAM | STATS_LIVE, names);
	for (c = 0; c < ACCT_NR__COUNT; c++) {
		char n[48], *p;

		snprintf(n, sizeof(n), "not_recorded_%s", acct_nr_name((enum acct_nr)c));
		for (p = n; *p != '\0'; p++)
			if (*p == '-')
				*p = '_';
		rte_tel_data_add_array_string(names, n);
	}
	for (k = 0; k < RTE_DIM(stream_id_names); k++)
		rte_tel_data_add_array_string(names, stream_id_names[k]);
	if (rte_tel_data_add_dict_container(d, "fields", names, 0) != 0) {
		rte_tel_data_free(names);
		return -ENOSPC;
	}
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = v->counts->lcores->lc[i];

		if (lc == NULL)
			continue;
		for (a = a0; a < a1; a++) {
			const struct acct_ant *an = &lc->acct->ant[a];
			unsigned int n = __atomic_load_n(&an->nstream, __ATOMIC_ACQUIRE);

			for (k = 0; k < n; k++) {
				const struct acct_stream *s = &an->stream[k];
				struct rte_tel_data *arr = rte_tel_data_alloc();
				struct acct_counts one;

				if (arr == NULL)
					return -ENOMEM;
				stats_zero(&stats_counts, &one);
				acct_stream_add(s, &one);
				stats_tel_row(&stats_counts, &one, STATS_STREAM | STATS_LIVE, arr);
				for (c = 0; c < ACCT_NR__COUNT; c++)
					rte_tel_data_add_array_u64(arr, one.nr[c]);
				rte_tel_data_add_array_u64(arr, a);
				rte_tel_data_add_array_u64(arr, s->stationid);
				rte_tel_data_add_array_u64(arr, s->groupid);
				rte_tel_data_add_array_u64(arr, s->secondaryid);
				rte_tel_data_add_array_u64(arr, s->threadid);
				rte_tel_data_add_array_u64(arr, s->dst_ip);
				rte_tel_data_add_array_u64(arr, s->dport);
				rte_tel_data_add_array_u64(arr, s->slot);
				snprintf(key, sizeof(key), "a%u_s%u_l%u", a, k, lc->lcore_id);
				if (rte_tel_data_add_dict_container(d, key, arr, 0) != 0) {
					/* the reply is full (telemetry's limits): ask
					 * for one antenna at a time */
					rte_tel_data_free(arr);
					return 0;
				}
			}
		}
	}
	return 0;
}

static int
tel_antenna(const struct ibv_tel_view *v, const char *params, struct rte_tel_data *d)
{
	struct ibv_totals t;
	unsigned int a;
	int one;
	char ip[16];

	if (params == NULL || *params == '\0' || (one = ibv_antenna_of(v->cfg, params)) < 0)
		return -EINVAL;
	a = (unsigned int)one;
	ibv_collect(v->counts, &t);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", v->cfg->layout.ant_name[a]);
	rte_tel_data_add_dict_string(d, "src", ipv4_str(v->cfg->layout.ant_ip[a], ip, sizeof(ip)));
	stats_tel_dict(&stats_counts, &t.ant[a], STATS_ANTENNA, d);
	if (v->rings->on && v->rings->b[a] != NULL)
		stats_tel_dict(&stats_buffer, v->rings->b[a], STATS_ANTENNA | STATS_LIVE, d);
	return 0;
}

/* a dictionary of rows, with the names of their values in "fields" */
static int
tel_rows_start(struct rte_tel_data *d, const struct stats_group *g, unsigned int scope)
{
	struct rte_tel_data *names = rte_tel_data_alloc();

	if (names == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	stats_tel_names(g, scope, names);
	if (rte_tel_data_add_dict_container(d, "fields", names, 0) != 0) {
		rte_tel_data_free(names);
		return -ENOSPC;
	}
	return 0;
}

static void
tel_row(struct rte_tel_data *d, const char *key, const struct stats_group *g,
	const void *rec, unsigned int scope)
{
	struct rte_tel_data *arr = rte_tel_data_alloc();

	if (arr == NULL)
		return;
	stats_tel_row(g, rec, scope, arr);
	if (rte_tel_data_add_dict_container(d, key, arr, 0) != 0)
		rte_tel_data_free(arr);
}

static int
tel_buffers(const struct ibv_tel_view *v, const char *params, struct rte_tel_data *d)
{
	unsigned int a;
	int rc;

	(void)params;
	if (!v->rings->on)
		return -ENOENT;
	rc = tel_rows_start(d, &stats_buffer, STATS_ANTENNA);
	for (a = 0; rc == 0 && a < v->cfg->layout.nant; a++)
		if (v->rings->b[a] != NULL)
			tel_row(d, v->cfg->layout.ant_name[a], &stats_buffer, v->rings->b[a],
				STATS_ANTENNA);
	return rc;
}

/* A writer's row key in /ibvcap/writers: telemetry keys take letters,
 * digits, '_' and '/' only, which the names given (--name) need not be;
 * /ibvcap/writer,KEY says the name. */
static const char *
writer_key(unsigned int slot, const struct shm_writer *w, char *key, size_t len)
{
	snprintf(key, len, "w%u_%s", slot, w->format);
	return key;
}

static int
tel_writers(const struct ibv_tel_view *v, const char *params, struct rte_tel_data *d)
{
	unsigned int i;
	int rc;

	(void)params;
	if (!v->rings->on || v->rings->ctl == NULL)
		return -ENOENT;
	ibv_rings_writers_check(v->rings, stdout); /* liveness as of now */
	rc = tel_rows_start(d, &stats_writer, STATS_LIVE);
	for (i = 0; rc == 0 && i < SHM_MAX_WRITERS; i++) {
		const struct shm_writer *w = &v->rings->ctl->writer[i];
		char key[64];

		if (w->name[0] == '\0')
			continue;
		tel_row(d, writer_key(i, w, key, sizeof(key)), &stats_writer, w, STATS_LIVE);
	}
	return rc;
}

static int
tel_writer(const struct ibv_tel_view *v, const char *params, struct rte_tel_data *d)
{
	const struct shm_writer *w;
	char key[64];
	unsigned int i;
	uint64_t idx = SHM_MAX_WRITERS;

	if (!v->rings->on || v->rings->ctl == NULL)
		return -ENOENT;
	if (params == NULL || *params == '\0')
		return -EINVAL;
	ibv_rings_writers_check(v->rings, stdout);
	/* by its row's key, by the name it was given, or by slot */
	for (i = 0; i < SHM_MAX_WRITERS && idx == SHM_MAX_WRITERS; i++) {
		w = &v->rings->ctl->writer[i];
		if (w->name[0] != '\0' && (strcmp(params, writer_key(i, w, key, sizeof(key))) == 0 ||
					    strcmp(params, w->name) == 0))
			idx = i;
	}
	if (idx == SHM_MAX_WRITERS &&
	    parse_u64("writer", params, 0, SHM_MAX_WRITERS - 1, &idx, NULL, 0) != 0)
		return -EINVAL;
	w = &v->rings->ctl->writer[idx];
	if (w->name[0] == '\0')
		return -EINVAL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "key", writer_key((unsigned int)idx, w, key, sizeof(key)));
	rte_tel_data_add_dict_string(d, "name", w->name);
	rte_tel_data_add_dict_string(d, "format", w->format);
	rte_tel_data_add_dict_int(d, "pid", w->pid);
	if (w->lcore >= 0) /* a --write writer's or --consumer plugin's lcore */
		rte_tel_data_add_dict_int(d, "lcore", w->lcore);
	rte_tel_data_add_dict_string(d, "io", w->io_uring ? "uring" : "sync");
	rte_tel_data_add_dict_string(d, "io_why", w->io_why);
	stats_tel_dict(&stats_writer, w, STATS_LIVE, d);
	return 0;
}

static int
tel_counters(const struct ibv_tel_view *v, const char *params, struct rte_tel_data *d)
{
	unsigned int k;

	(void)v;
	for (k = 0; k < stats_ngroups; k++)
		if (params != NULL && strcmp(params, stats_groups[k]->name) == 0)
			return stats_tel_describe(stats_groups[k], 0, d) == 0 ? 0 : -ENOMEM;
	if (params != NULL && *params != '\0')
		return -EINVAL;
	rte_tel_data_start_dict(d);
	for (k = 0; k < stats_ngroups; k++)
		rte_tel_data_add_dict_string(d, stats_groups[k]->name, stats_groups[k]->help);
	return 0;
}

/*
 * Telemetry answers on its own thread, reading the lcores' counters, the
 * buffers and the writer registry, which start-up builds and teardown
 * frees (a status screen polls while the capture starts and stops).
 * The lock keeps them apart: replies read the capture only between
 * ibv_telemetry_open and ibv_telemetry_close (else -EAGAIN), and a reply
 * runs whole before teardown goes on. No reply waits: a triggered dump is
 * a job of its own (trigger_jobs.c), /ibvcap/trigger answers its id at
 * once.
 *
 * This is the program's one file-static context, and the only one a
 * component reaches without being handed it: DPDK 22.11's telemetry
 * callbacks (telemetry_cb) take the command, its parameters and the reply
 * only, with no argument of the caller's, so the dispatcher finds the
 * contexts here. main.c hands them over at ibv_telemetry_open (copied);
 * each command then runs with its own component's context only
 * (tel_run), never with the others'.
 */
static struct ibv_telemetry {
	pthread_mutex_t lock;
	bool open;                /* false: closed, replies are -EAGAIN */
	struct ibv_tel_ctx ctx;   /* what replies read */
} tel = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Which component's context a command runs with. */
enum tel_of { OF_VIEW, OF_SCANS, OF_LEDGER, OF_QL, OF_TRIG, OF_FRINGE };

struct tel_cmd {
	const char *name;
	enum tel_of of;
	union {
		int (*view)(const struct ibv_tel_view *v, const char *params,
			    struct rte_tel_data *d);
		int (*scans)(struct ibv_scans *s, const char *params, struct rte_tel_data *d);
		int (*ledger)(struct ibv_ledger *lg, const char *params, struct rte_tel_data *d);
		int (*ql)(struct ibv_ql *ql, const char *params, struct rte_tel_data *d);
		int (*trig)(struct ibv_trig *jobs, const char *params, struct rte_tel_data *d);
		int (*fringe)(struct ibv_fringe *fr, const char *params, struct rte_tel_data *d);
	} fn;
	const char *help;
};

static const struct tel_cmd tel_cmds[] = {
	{ "/ibvcap/stats", OF_VIEW, { .view = tel_stats },
	  "dpdk-ibvcap totals: packets, frames received, lost, ... (described by "
	  "/ibvcap/counters). No parameters." },
	{ "/ibvcap/antennas", OF_VIEW, { .view = tel_antennas },
	  "Per-antenna counters, every one: an array per antenna, names in 'fields'. No "
	  "parameters." },
	{ "/ibvcap/antenna", OF_VIEW, { .view = tel_antenna },
	  "One antenna's counters. Parameter: antenna name or index." },
	{ "/ibvcap/streams", OF_VIEW, { .view = tel_streams },
	  "Each stream's counts, not recorded by cause, ids and slot, as rows. Parameter: "
	  "an antenna (name or index), else all." },
	{ "/ibvcap/buffers", OF_VIEW, { .view = tel_buffers },
	  "Per-antenna buffer placement: an array per antenna, names in 'fields'." },
	{ "/ibvcap/writers", OF_VIEW, { .view = tel_writers },
	  "Writers' figures: an array per writer (key w<slot>_<format>), names in 'fields'." },
	{ "/ibvcap/writer", OF_VIEW, { .view = tel_writer },
	  "One writer: its name (--name), format, pid and figures. Parameter: its key in "
	  "/ibvcap/writers, name or slot." },
	{ "/ibvcap/trigger", OF_TRIG, { .trig = ibv_trig_tel_start },
	  "A window of the rings to files, as a job (its id at once): "
	  "T0,T1,FORMAT,DIR[,ANTENNA...][,timeout=T][,prefix=P]" },
	{ "/ibvcap/trigger/status", OF_TRIG, { .trig = ibv_trig_tel_status },
	  "A trigger's state and, once it ended, its result. Parameter: its id (none: every "
	  "trigger kept)." },
	{ "/ibvcap/record", OF_SCANS, { .scans = ibv_rec_command },
	  "Scans of the --write writers. Parameters: on|off|cancel|status [scan=] [at=] [for=] "
	  "[until=] [writer=] [antenna=]" },
	{ "/ibvcap/scan", OF_LEDGER, { .ledger = ibv_rec_tel_scan },
	  "One scan's ledger: its writers' rows once ended. Parameters: SCAN[,WRITER] "
	  "(WRITER: its rows per antenna)." },
	{ "/ibvcap/quicklook", OF_QL, { .ql = ibv_ql_tel_window },
	  "Quick look of the last --quicklook-window, a row per antenna. Parameter: "
	  "antenna name or index." },
	{ "/ibvcap/quicklook/run", OF_QL, { .ql = ibv_ql_tel_run },
	  "Quick look of the whole run so far, a row per antenna. No parameters." },
	{ "/ibvcap/fringe", OF_FRINGE, { .fringe = ibv_fringe_tel_start },
	  "Fringe check of a baseline off the rx lcores, as a job: A,B[,SECONDS][,pairs=N]"
	  "[,max_lag=N]" },
	{ "/ibvcap/fringe/status", OF_FRINGE, { .fringe = ibv_fringe_tel_status },
	  "The latest fringe check: its state, then per thread and channel lag and "
	  "coefficient. No parameters." },
	{ "/ibvcap/bstate", OF_QL, { .ql = ibv_ql_tel_bstate },
	  "Sampler statistics of the last --quicklook-window, a row per antenna. Parameter: "
	  "antenna (its occupancy, groups, streams)." },
	{ "/ibvcap/spectrum", OF_QL, { .ql = ibv_ql_tel_spectrum },
	  "Spectra of an antenna's streams over the last --quicklook-window (asking starts "
	  "them). Parameters: ANTENNA[,NFFT]" },
	{ "/ibvcap/counters", OF_VIEW, { .view = tel_counters },
	  "What each counter means. No parameter: the groups; GROUP: name -> [unit, kind, "
	  "help, merge, prometheus, scale]." },
};

/* Command c with its component's context. */
static int
tel_run(const struct tel_cmd *c, const struct ibv_tel_ctx *x, const char *params,
	struct rte_tel_data *d)
{
	switch (c->of) {
	case OF_VIEW: return c->fn.view(&x->view, params, d);
	case OF_SCANS: return c->fn.scans(x->scans, params, d);
	case OF_LEDGER: return c->fn.ledger(x->ledger, params, d);
	case OF_QL: return c->fn.ql(x->ql, params, d);
	case OF_TRIG: return c->fn.trig(x->trig, params, d);
	case OF_FRINGE: return c->fn.fringe(x->fringe, params, d);
	}
	return -EINVAL;
}

static int
tel_dispatch(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int k;
	int rc = -EAGAIN;

	for (k = 0; k < RTE_DIM(tel_cmds); k++)
		if (strcmp(cmd, tel_cmds[k].name) == 0)
			break;
	if (k == RTE_DIM(tel_cmds))
		return -EINVAL;
	pthread_mutex_lock(&tel.lock);
	if (tel.open)
		rc = tel_run(&tel_cmds[k], &tel.ctx, params, d);
	pthread_mutex_unlock(&tel.lock);
	return rc;
}

int
ibv_telemetry_register(void)
{
	unsigned int k;
	int rc = 0;

	for (k = 0; k < RTE_DIM(tel_cmds); k++)
		if (rte_telemetry_register_cmd(tel_cmds[k].name, tel_dispatch,
					       tel_cmds[k].help) != 0) {
			/* a name over 56 bytes, a help of 128 or more */
			printf("dpdk-ibvcap: telemetry command %s not registered\n",
			       tel_cmds[k].name);
			rc = -EINVAL;
		}
	return rc;
}

void
ibv_telemetry_open(const struct ibv_tel_ctx *ctx)
{
	pthread_mutex_lock(&tel.lock);
	tel.ctx = *ctx;
	tel.open = true;
	pthread_mutex_unlock(&tel.lock);
}

void
ibv_telemetry_close(void)
{
	/* triggers end (or are cancelled), their results read, while
	 * telemetry still answers (the contexts are main.c's, set at open) */
	if (tel.ctx.trig != NULL)
		ibv_trig_jobs_end(tel.ctx.trig);
	if (tel.ctx.fringe != NULL)
		ibv_fringe_end(tel.ctx.fringe);
	pthread_mutex_lock(&tel.lock);
	tel.open = false;
	pthread_mutex_unlock(&tel.lock);
}
