/* SPDX-License-Identifier: BSD-3-Clause */
/* Triggered dumps: a window [T0, T1) of CODIF data time of chosen antennas,
 * written from the rings to codif, raw or pcap files while the capture goes
 * on, with lib/writer's cursors (one writer per antenna: a file one antenna
 * cannot write blocks that antenna only); what was in the rings, what was
 * already overwritten, blocked or had not arrived, exactly. Each trigger is
 * a job on a control thread of its own (never an rx lcore, never the
 * telemetry thread): /ibvcap/trigger answers its id at once and
 * /ibvcap/trigger/status,ID its state and result, so that no telemetry
 * connection is held while a trigger waits for its data. */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_thread.h>
#include <rte_telemetry.h>

#include "fsprobe.h"
#include "ibvcap.h"
#include "trigger.h"
#include "antenna.h"
#include "refusal.h"
#include "opt.h"
#include "parse.h"
#include "tconv.h"

#define TRIG_TIMEOUT_NS (10ULL * 1000000000ULL) /* timeout= by default */

void
ibv_trig_defaults(struct ibv_trig_req *r)
{
	memset(r, 0, sizeof(*r));
	wr_opts_defaults(&r->o);
	snprintf(r->o.prefix, sizeof(r->o.prefix), "trigger");
	r->o.from_oldest = true;
	r->o.window = true;
	r->timeout_ns = TRIG_TIMEOUT_NS;
}

/* timeout=T: how long to wait for a row of the window not yet in. */
static int
set_timeout(const struct opt_arg *a, char *err, size_t len)
{
	struct ibv_trig_req *r = a->obj;

	if (parse_duration_ns(a->opt, a->val, 0, IBV_TRIG_MAX_TIMEOUT_NS, &r->timeout_ns, NULL,
			      0) == 0)
		return 0;
	return err_set(err, len, -EINVAL, "%s: '%s': expected a duration of at most %llu s "
		       "(10 min), e.g. 10s or 500ms (0: do not wait)", a->opt, a->val,
		       IBV_TRIG_MAX_TIMEOUT_NS / 1000000000ULL);
}

/* prefix=P: the files' name prefix, checked as --write's prefix= is. */
static int
set_prefix(const struct opt_arg *a, char *err, size_t len)
{
	struct ibv_trig_req *r = a->obj;
	char what[160];

	if (wr_prefix_check(a->opt, a->val, NULL, 0) != 0)
		return err_set(err, len, -EINVAL, "%s: '%s': expected %s", a->opt, a->val,
			       wr_prefix_expected(what, sizeof(what)));
	str_copy(r->o.prefix, sizeof(r->o.prefix), a->val);
	return 0;
}

static const struct opt_def trig_key_rows[] = {
	{"timeout", .kind = OPT_CUSTOM, .metavar = "T", .set = set_timeout, .def = "10s",
	 .help = "wait at most T for a row of the window not yet in (0: do not wait)"},
	{"prefix", .kind = OPT_CUSTOM, .metavar = "P", .set = set_prefix, .def = "trigger",
	 .help = "the files' name prefix"},
	{ .name = NULL },
};

/* The keys of a trigger's fields, after T0,T1,FORMAT,DIR and its antennas. */
static const struct opt_kv trig_keys = { .name = "parameter", .keys = trig_key_rows };

int
ibv_trig_parse(const struct ibv_config *c, const char *params, struct ibv_trig_req *r,
	       struct err_refusal *e)
{
	char *buf, *f[4 + ACCT_MAX_ANTENNAS + 4], *tok, why[PATH_MAX + 64], keys[1024] = "";
	unsigned int n = 0, i;
	int rc = -EINVAL, trc;

	ibv_trig_defaults(r);
	if (params == NULL || *params == '\0')
		return err_refuse(e, "parameters", "", "T0,T1,FORMAT,DIR[,ANTENNA...][,timeout=T]"
			      "[,prefix=P]");
	buf = strdup(params);
	if (buf == NULL)
		return err_refuse(e, "parameters", "", "memory for them");
	/* empty fields count: "T0,,codif,DIR" names a missing T1 */
	for (tok = buf; tok != NULL && n < RTE_DIM(f); n++) {
		f[n] = tok;
		tok = strchr(tok, ',');
		if (tok != NULL)
			*tok++ = '\0';
	}
	if (tok != NULL) {
		err_refuse(e, "parameters", params, "at most %zu fields", RTE_DIM(f));
		goto out;
	}
	if (n < 4) {
		err_refuse(e, n < 2 ? "T1" : n < 3 ? "FORMAT" : "DIR", "", "T0,T1,FORMAT,DIR"
		       "[,ANTENNA...][,timeout=T][,prefix=P]: %u field%s given", n, n == 1 ? "" : "s");
		goto out;
	}
	trc = codif_parse_time(f[0], &r->t0);
	if (trc != 0) {
		if (trc == -ERANGE)
			err_refuse(e, "T0", f[0], "%s", CODIF_TIME_RANGE_EXPECTED);
		else
			err_refuse(e, "T0", f[0], "a UTC time (CODIF data time): "
			       "YYYY-MM-DDThh:mm:ss[.frac]Z or @unix-seconds[.frac]");
		goto out;
	}
	trc = codif_parse_time(f[1], &r->t1);
	if (trc != 0) {
		if (trc == -ERANGE)
			err_refuse(e, "T1", f[1], "%s", CODIF_TIME_RANGE_EXPECTED);
		else
			err_refuse(e, "T1", f[1], "a UTC time (CODIF data time): "
			       "YYYY-MM-DDThh:mm:ss[.frac]Z or @unix-seconds[.frac]");
		goto out;
	}
	if (r->t1 <= r->t0) {
		char t0[48];

		err_refuse(e, "T1", f[1], "a time after T0 (%s): the window is [T0, T1)",
		       codif_time_str(r->t0, t0, sizeof(t0)));
		goto out;
	}
	{
		int64_t len;

		if (__builtin_sub_overflow(r->t1, r->t0, &len) || len > IBV_TRIG_MAX_WINDOW_NS) {
			err_refuse(e, "T1", f[1], "at most %lld s (1 h) after T0: a trigger keeps a "
			       "moment (record on --scan records longer)",
			       IBV_TRIG_MAX_WINDOW_NS / 1000000000LL);
			goto out;
		}
	}
	if (wr_format_parse(f[2], &r->o.format) != 0) {
		err_refuse(e, "FORMAT", f[2], "codif, raw, pcap or pcapng (one file per antenna, as the "
		       "writers write them)");
		goto out;
	}
	for (i = 0; f[3][i] != '\0'; i++)
		if ((unsigned char)f[3][i] < 0x20 || f[3][i] == 0x7f)
			break;
	if (f[3][i] != '\0') {
		err_refuse(e, "DIR", f[3], "a directory whose path has no control character");
		goto out;
	}
	if (f[3][0] != '/' || strlen(f[3]) >= sizeof(r->o.dir)) {
		err_refuse(e, "DIR", f[3], "a directory (an absolute path: the capture's working "
		       "directory is not the caller's)");
		goto out;
	}
	if (fs_dir_takes_files(f[3], why, sizeof(why)) != 0) {
		err_refuse(e, "DIR", f[3], "a directory that takes new files; it %s", why);
		goto out;
	}
	str_copy(r->o.dir, sizeof(r->o.dir), f[3]);
	for (i = 4; i < n; i++) {
		char *eq = strchr(f[i], '='), *ant, *save2 = NULL;

		if (eq != NULL) { /* a key: parsed with the others after the antennas */
			size_t kl = strlen(keys);

			if (kl + strlen(f[i]) + 2 > sizeof(keys)) {
				err_refuse(e, "parameters", f[i], "keys of at most %zu characters "
					   "in all", sizeof(keys) - 1);
				goto out;
			}
			snprintf(keys + kl, sizeof(keys) - kl, "%s%s", kl ? "," : "", f[i]);
			continue;
		}
		/* antennas: one a field, or joined with '+' */
		for (ant = strtok_r(f[i], "+", &save2); ant != NULL; ant = strtok_r(NULL, "+", &save2)) {
			int a = ibv_antenna_of(c, ant);

			if (a < 0) {
				err_refuse(e, "antenna", ant, "one of %s .. %s, or an index 0 .. %u",
				       c->layout.ant_name[0], c->layout.ant_name[c->layout.nant - 1],
				       c->layout.nant - 1);
				goto out;
			}
			r->ants |= 1ULL << a;
		}
		if (f[i][0] == '\0') {
			err_refuse(e, "antenna", "", "an antenna name or index");
			goto out;
		}
	}
	r->o.from_ns = r->t0;
	r->o.to_ns = r->t1;
	if (r->ants == 0)
		r->ants = c->layout.nant >= 64 ? ~0ULL : (1ULL << c->layout.nant) - 1;
	if (opt_kv_parse_why(&trig_keys, r, NULL, keys, NULL, e) != 0)
		goto out;
	rc = 0;
out:
	free(buf);
	return rc;
}

/* ---- the dump ----------------------------------------------------------- */

/* The first frame index of clk that starts at or after t. */
static int64_t
index_at(const struct codif_clock *clk, int64_t t)
{
	int64_t o = codif_clock_time_ns(clk, 0), i;

	i = t >= o ? (int64_t)codif_clock_frames_in(clk, (uint64_t)(t - o)) :
		     -(int64_t)codif_clock_frames_in(clk, (uint64_t)(o - t));
	while (codif_clock_time_ns(clk, i) < t)
		i++;
	while (codif_clock_time_ns(clk, i - 1) >= t)
		i--;
	return i;
}

/* Frame starts of clk in [from, to): the rows a stretch of data time holds. */
static uint64_t
rows_in(const struct codif_clock *clk, int64_t from, int64_t to)
{
	if (clk == NULL || to <= from || clk->fpp == 0)
		return 0;
	return (uint64_t)(index_at(clk, to) - index_at(clk, from));
}

/* Streams an antenna has had (slots assigned). */
static unsigned int
streams_of(const struct antbuf *b)
{
	unsigned int k, n = 0;

	for (k = 0; k < b->g.nslots; k++)
		n += __atomic_load_n(&b->slot[k].assigned, __ATOMIC_ACQUIRE) != 0;
	return n;
}

/* The newest run's clock of b (NULL before the first frame). */
static const struct codif_clock *
clock_of(const struct antbuf *b)
{
	uint32_t n = __atomic_load_n(&b->nruns, __ATOMIC_ACQUIRE);

	return n == 0 ? NULL : &b->run[(n - 1) % ANTBUF_RUNS].clk;
}

/* A file one antenna's writer completed: in that antenna's figures. */
struct trig_file_ctx {
	struct ibv_trig_result *res;
	unsigned int ant;
};

static void
file_done(void *ctx, const char *path, int ant, const struct fmt_tally *t)
{
	const struct trig_file_ctx *fc = ctx;
	struct ibv_trig_result *res = fc->res;
	struct ibv_trig_ant *ta = &res->ant[fc->ant];
	const char *base = strrchr(path, '/');

	(void)ant; /* 0: the one antenna of its writer */
	ta->files++;
	ta->frames += t->frames;
	ta->placeholders += t->gaps;
	ta->overrun_placeholders += t->overrun;
	ta->overrun += t->overrun;
	ta->bytes += t->bytes;
	if (res->nfiles < IBV_TRIG_MAX_FILES)
		str_copy(res->file[res->nfiles++], sizeof(res->file[0]), base ? base + 1 : path);
}

static bool
capture_stopped(const struct ibv_app *app)
{
	return __atomic_load_n(&app->rings.ctl->state, __ATOMIC_ACQUIRE) == SHM_STOPPED;
}

/* the jobs: a table under one lock; closing read by the jobs without it */
struct trig_job {
	uint64_t id;               /* 0: a free entry */
	bool done;                 /* ended, res final */
	bool read;                 /* res read since it ended */
	bool joined;
	int64_t polled_ns;         /* monotonic: the last status read of it */
	int64_t start_ns;          /* monotonic */
	pthread_t tid;
	struct ibv_app *app;
	struct ibv_trig_req r;
	struct ibv_trig_result *res;
};

static struct {
	pthread_mutex_t lock;
	struct trig_job job[IBV_TRIG_JOBS];
	uint64_t next_id;
	unsigned int running;
	bool closing;              /* running jobs end now */
	bool closed;               /* no new job */
} J = { .lock = PTHREAD_MUTEX_INITIALIZER, .next_id = 1 };

static bool
jobs_closing(void)
{
	return __atomic_load_n(&J.closing, __ATOMIC_ACQUIRE);
}

/* What antenna a's part of the window was: written, already overwritten,
 * before the capture's first frame, blocked, not arrived (yet). */
static void
settle(const struct ibv_trig_req *r, const struct wr_writer *w, const struct ibv_totals *tot,
       unsigned int a, struct ibv_trig_ant *ta)
{
	const struct wr_src *s = &w->src[0];
	const struct wr_window *win = &s->win;
	const struct antbuf *b = s->b;
	const struct codif_clock *clk;
	int64_t first_cap = tot->ant[a].first_ns, f0;
	unsigned int ns;

	ns = streams_of(b);
	ta->streams = ns;
	ta->from_ns = win->begin_ns;
	ta->oldest_ns = win->first_ns;
	ta->to_ns = win->end_ns;
	clk = win->first_ns != INT64_MIN ? &win->first_clk : clock_of(b);
	if (clk == NULL || first_cap == INT64_MAX) {
		/* no frame of this antenna yet */
		ta->nodata_from = r->t0;
		ta->nodata_to = r->t1;
		ta->complete = false;
		return;
	}
	ta->window_frames = rows_in(clk, r->t0, r->t1) * ns;
	/* before the capture's first frame: never captured */
	if (first_cap > r->t0 && rows_in(clk, r->t0, first_cap < r->t1 ? first_cap : r->t1) > 0) {
		ta->before_from = r->t0;
		ta->before_to = first_cap < r->t1 ? first_cap : r->t1;
		ta->before_frames = rows_in(clk, ta->before_from, ta->before_to) * ns;
	}
	/* from the capture's first frame (or T0) to the first row of the
	 * window in the files (or T1, when the cursor met a row past it
	 * first): overwritten, before this dump began or while it fell
	 * behind on the rows before T0 */
	{
		int64_t o0 = first_cap > r->t0 ? first_cap : r->t0;
		int64_t o1 = win->begin_ns != INT64_MIN ? win->begin_ns :
			     win->past ? r->t1 : o0;

		if (o1 > r->t1)
			o1 = r->t1;
		/* a span no frame starts in is no part lost */
		if (rows_in(clk, o0, o1) > 0) {
			ta->over_from = o0;
			ta->over_to = o1;
			ta->over_frames = rows_in(clk, o0, o1) * ns;
		}
	}
	/* from where it got to, to T1: blocked (its file could not be
	 * written), else not arrived (timeout, or the capture stopped) */
	if (!win->past) {
		f0 = win->end_ns != INT64_MIN && win->end_ns > r->t0 ? win->end_ns : r->t0;
		if (first_cap > f0)
			f0 = first_cap;
		if (ta->over_to > f0)
			f0 = ta->over_to;
		if (rows_in(clock_of(b), f0, r->t1) > 0) {
			if (ta->blocked) {
				ta->blocked_from = f0;
				ta->blocked_to = r->t1;
				ta->blocked_frames = rows_in(clock_of(b), f0, r->t1) * ns;
			} else {
				ta->future_from = f0;
				ta->future_to = r->t1;
				ta->future_frames = rows_in(clock_of(b), f0, r->t1) * ns;
			}
		}
	}
	ta->complete = win->past && !ta->blocked && ta->over_frames == 0 &&
		       ta->before_frames == 0 && ta->overrun == 0;
}

/* An antenna's writer failed (its file exists, an I/O error): that antenna
 * ends here, with why; the others go on. */
static void
block(struct wr_writer *w, struct ibv_trig_ant *ta)
{
	ta->blocked = true;
	str_copy(ta->why, sizeof(ta->why), w->err[0] ? w->err : strerror(w->error));
	wr_finish(w); /* what it wrote stays, whole rows */
}

/* Rows final but not taken yet by the antennas still writing. */
static uint64_t
backlog(struct wr_writer *const *ws, const struct ibv_trig_result *res, unsigned int n)
{
	uint64_t k = 0;
	unsigned int a;

	for (a = 0; a < n; a++)
		if (ws[a] != NULL && !res->ant[a].blocked && !ws[a]->src[0].win.past)
			k += (uint64_t)antbuf_backlog(ws[a]->src[0].b, &ws[a]->src[0].cur);
	return k;
}

static void
trig_run(struct ibv_app *app, const struct ibv_trig_req *r, struct ibv_trig_result *res)
{
	const struct ibv_config *c = &app->cfg;
	struct wr_writer *ws[ACCT_MAX_ANTENNAS] = { NULL };
	struct trig_file_ctx fctx[ACCT_MAX_ANTENNAS];
	struct ibv_totals *tot = calloc(1, sizeof(*tot));
	int64_t t_start = mono_ns(), deadline = t_start + (int64_t)r->timeout_ns;
	uint64_t written = 0, wrote = 0, all_frames = 0;
	unsigned int a, nant = c->layout.nant;
	bool all_complete = true;

	res->end = IBV_TRIG_DONE;
	for (a = 0; a < nant; a++) {
		struct ibv_trig_ant *ta = &res->ant[a];
		struct wr_opts o = r->o;
		const struct antbuf *b = app->rings.b[a];
		uint8_t *pl = ibv_pl_base(&app->pl, a);
		char err[sizeof(ta->why)];

		if (!(r->ants >> a & 1))
			continue;
		ta->on = true;
		ws[a] = calloc(1, sizeof(*ws[a]));
		if (ws[a] == NULL) {
			ta->blocked = true;
			str_copy(ta->why, sizeof(ta->why), "out of memory for its writer");
			continue;
		}
		fctx[a].res = res;
		fctx[a].ant = a;
		o.file_done = file_done;
		o.file_ctx = &fctx[a];
		if (wr_init(ws[a], &o, &b, &pl, 1, 1, err, sizeof(err)) != 0) {
			ta->blocked = true;
			str_copy(ta->why, sizeof(ta->why), err);
		}
	}
	/* waits, holding nothing, for rows that are not final yet; gives up
	 * after timeout without a new row of the window */
	for (;;) {
		uint64_t now_written = 0;
		unsigned int active = 0;
		int moved = 0, rc;

		for (a = 0; a < nant; a++) {
			struct ibv_trig_ant *ta = &res->ant[a];

			if (ws[a] == NULL || ta->blocked || ws[a]->src[0].win.past)
				continue;
			rc = wr_poll(ws[a], 256);
			if (rc < 0) {
				block(ws[a], ta);
				continue;
			}
			moved += rc;
			if (!ws[a]->src[0].win.past)
				active++;
			if (ws[a]->src[0].win.end_ns != INT64_MIN)
				now_written += (uint64_t)ws[a]->src[0].win.end_ns;
		}
		if (active == 0)
			break;
		if (now_written != written) {
			written = now_written;
			deadline = mono_ns() + (int64_t)r->timeout_ns;
		}
		if (jobs_closing()) {
			res->end = IBV_TRIG_CLOSING;
			break;
		}
		if (moved > 0) {
			sched_yield();
			continue;
		}
		if (capture_stopped(app) && backlog(ws, res, nant) == 0) {
			res->end = IBV_TRIG_STOPPED;
			break;
		}
		if (mono_ns() >= deadline) {
			res->end = IBV_TRIG_TIMEOUT;
			break;
		}
		rte_delay_us_sleep(2000);
	}
	for (a = 0; a < nant; a++)
		if (ws[a] != NULL && !res->ant[a].blocked && wr_finish(ws[a]) != 0)
			block(ws[a], &res->ant[a]);
	if (tot != NULL)
		ibv_collect(app, tot);
	for (a = 0; a < nant; a++) {
		struct ibv_trig_ant *ta = &res->ant[a];

		if (!ta->on)
			continue;
		if (ws[a] != NULL && tot != NULL && ws[a]->n == 1)
			settle(r, ws[a], tot, a, ta);
		else
			ta->complete = false;
		res->overrun += ta->overrun;
		wrote += ta->frames + ta->placeholders;
		all_frames += ta->over_frames;
		all_complete = all_complete && ta->complete;
		free(ws[a]);
	}
	res->outcome = all_complete ? IBV_TRIG_COMPLETE :
		       wrote > 0 ? IBV_TRIG_PARTIAL :
		       all_frames > 0 ? IBV_TRIG_OVERWRITTEN : IBV_TRIG_EMPTY;
	res->wall_ns = mono_ns() - t_start;
	free(tot);
}

const char *
ibv_trig_end_name(enum ibv_trig_end e)
{
	switch (e) {
	case IBV_TRIG_DONE: return "window done";
	case IBV_TRIG_TIMEOUT: return "timeout";
	case IBV_TRIG_STOPPED: return "capture stopped";
	case IBV_TRIG_CLOSING: return "cancelled: capture stopping";
	}
	return "?";
}

const char *
ibv_trig_outcome_name(enum ibv_trig_outcome o)
{
	switch (o) {
	case IBV_TRIG_COMPLETE: return "complete";
	case IBV_TRIG_PARTIAL: return "partial";
	case IBV_TRIG_OVERWRITTEN: return "overwritten";
	case IBV_TRIG_EMPTY: return "empty";
	}
	return "?";
}

/* ---- the reply and the log ----------------------------------------------- */

static void
add_span(struct rte_tel_data *d, const char *what, int64_t from, int64_t to, uint64_t frames)
{
	char k[64], t[48];

	if (to <= from)
		return;
	snprintf(k, sizeof(k), "%s_from", what);
	rte_tel_data_add_dict_string(d, k, codif_time_str(from, t, sizeof(t)));
	snprintf(k, sizeof(k), "%s_to", what);
	rte_tel_data_add_dict_string(d, k, codif_time_str(to, t, sizeof(t)));
	snprintf(k, sizeof(k), "%s_frames", what);
	rte_tel_data_add_dict_u64(d, k, frames);
}

/* What a job was asked: in every reply about it. */
static void
req_tel(const struct ibv_app *app, const struct trig_job *j, struct rte_tel_data *d)
{
	const struct ibv_trig_req *r = &j->r;
	char t[48];

	rte_tel_data_add_dict_u64(d, "id", j->id);
	rte_tel_data_add_dict_string(d, "state", j->done ? "done" : "running");
	rte_tel_data_add_dict_string(d, "from", codif_time_str(r->t0, t, sizeof(t)));
	rte_tel_data_add_dict_string(d, "to", codif_time_str(r->t1, t, sizeof(t)));
	rte_tel_data_add_dict_string(d, "format", wr_format_name(r->o.format));
	rte_tel_data_add_dict_string(d, "dir", r->o.dir);
	rte_tel_data_add_dict_string(d, "prefix", r->o.prefix);
	rte_tel_data_add_dict_u64(d, "timeout_ms", r->timeout_ns / 1000000);
	(void)app;
}

static void
result_tel(const struct ibv_app *app, const struct ibv_trig_result *res, struct rte_tel_data *d)
{
	struct rte_tel_data *files;
	uint64_t frames = 0, ph = 0, over = 0, before = 0, future = 0, blocked = 0, bytes = 0,
		 nf = 0, nblocked = 0;
	unsigned int a, i;
	char t[48];

	rte_tel_data_add_dict_string(d, "result", ibv_trig_outcome_name(res->outcome));
	rte_tel_data_add_dict_string(d, "ended", ibv_trig_end_name(res->end));
	for (a = 0; a < app->cfg.layout.nant; a++) {
		const struct ibv_trig_ant *ta = &res->ant[a];

		frames += ta->frames;
		ph += ta->placeholders;
		over += ta->over_frames;
		before += ta->before_frames;
		future += ta->future_frames;
		blocked += ta->blocked_frames;
		nblocked += ta->on && ta->blocked;
		bytes += ta->bytes;
		nf += ta->files;
	}
	rte_tel_data_add_dict_u64(d, "files_written", nf);
	rte_tel_data_add_dict_u64(d, "frames", frames);
	rte_tel_data_add_dict_u64(d, "placeholders", ph);
	rte_tel_data_add_dict_u64(d, "bytes", bytes);
	rte_tel_data_add_dict_u64(d, "overwritten_frames", over);
	rte_tel_data_add_dict_u64(d, "before_capture_frames", before);
	rte_tel_data_add_dict_u64(d, "not_arrived_frames", future);
	rte_tel_data_add_dict_u64(d, "blocked_frames", blocked);
	rte_tel_data_add_dict_u64(d, "antennas_blocked", nblocked);
	rte_tel_data_add_dict_u64(d, "lost_while_dumping", res->overrun);
	rte_tel_data_add_dict_u64(d, "wall_ms", (uint64_t)res->wall_ns / 1000000);
	files = rte_tel_data_alloc();
	if (files != NULL) {
		rte_tel_data_start_array(files, RTE_TEL_STRING_VAL);
		for (i = 0; i < res->nfiles; i++)
			rte_tel_data_add_array_string(files, res->file[i]);
		if (rte_tel_data_add_dict_container(d, "files", files, 0) != 0)
			rte_tel_data_free(files);
	}
	for (a = 0; a < app->cfg.layout.nant; a++) {
		const struct ibv_trig_ant *ta = &res->ant[a];
		struct rte_tel_data *o;

		if (!ta->on || (o = rte_tel_data_alloc()) == NULL)
			continue;
		rte_tel_data_start_dict(o);
		rte_tel_data_add_dict_string(o, "complete", ta->complete ? "yes" : "no");
		rte_tel_data_add_dict_u64(o, "window_frames", ta->window_frames);
		rte_tel_data_add_dict_u64(o, "files", ta->files);
		rte_tel_data_add_dict_u64(o, "frames", ta->frames);
		rte_tel_data_add_dict_u64(o, "placeholders", ta->placeholders);
		rte_tel_data_add_dict_u64(o, "streams", ta->streams);
		if (ta->to_ns > ta->from_ns && ta->from_ns != INT64_MIN) {
			rte_tel_data_add_dict_string(o, "written_from",
						     codif_time_str(ta->from_ns, t, sizeof(t)));
			rte_tel_data_add_dict_string(o, "written_to",
						     codif_time_str(ta->to_ns, t, sizeof(t)));
		}
		if (ta->oldest_ns != INT64_MIN && ta->oldest_ns != 0)
			rte_tel_data_add_dict_string(o, "ring_oldest",
						     codif_time_str(ta->oldest_ns, t, sizeof(t)));
		add_span(o, "overwritten", ta->over_from, ta->over_to, ta->over_frames);
		add_span(o, "before_capture", ta->before_from, ta->before_to, ta->before_frames);
		add_span(o, "not_arrived", ta->future_from, ta->future_to, ta->future_frames);
		add_span(o, "no_data", ta->nodata_from, ta->nodata_to, 0);
		if (ta->blocked) {
			add_span(o, "blocked", ta->blocked_from, ta->blocked_to, ta->blocked_frames);
			rte_tel_data_add_dict_string(o, "blocked", ta->why);
		}
		rte_tel_data_add_dict_u64(o, "lost_while_dumping", ta->overrun);
		if (rte_tel_data_add_dict_container(d, app->cfg.layout.ant_name[a], o, 0) != 0)
			rte_tel_data_free(o);
	}
}

static void
log_span(FILE *f, uint64_t id, const char *ant, const char *what, int64_t from, int64_t to,
	 uint64_t frames, const char *why)
{
	char t0[48], t1[48];

	if (to <= from)
		return;
	fprintf(f, "dpdk-ibvcap: trigger %" PRIu64 ": %s: %s [%s, %s): %" PRIu64 " frames%s%s\n",
		id, ant, what, codif_time_str(from, t0, sizeof(t0)),
		codif_time_str(to, t1, sizeof(t1)), frames, why ? ": " : "", why ? why : "");
}

/* The log's lines of a job's end, written at once (jobs end on their own
 * threads). */
static void
job_log(const struct ibv_app *app, const struct trig_job *j, FILE *out)
{
	const struct ibv_trig_req *r = &j->r;
	const struct ibv_trig_result *res = j->res;
	uint64_t frames = 0, ph = 0, nf = 0;
	unsigned int a;
	char t0[48], t1[48], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		f = out;
	for (a = 0; a < app->cfg.layout.nant; a++) {
		frames += res->ant[a].frames;
		ph += res->ant[a].placeholders;
		nf += res->ant[a].files;
	}
	fprintf(f, "dpdk-ibvcap: trigger %" PRIu64 " [%s, %s) %s to %s: %s (%s): %" PRIu64
		" files, %" PRIu64 " frames, %" PRIu64 " gap frames, %" PRIu64
		" lost while dumping, %.3f s\n", j->id,
		codif_time_str(r->t0, t0, sizeof(t0)), codif_time_str(r->t1, t1, sizeof(t1)),
		wr_format_name(r->o.format), r->o.dir, ibv_trig_outcome_name(res->outcome),
		ibv_trig_end_name(res->end), nf, frames, ph, res->overrun,
		(double)res->wall_ns / 1e9);
	for (a = 0; a < app->cfg.layout.nant; a++) {
		const struct ibv_trig_ant *ta = &res->ant[a];
		const char *n = app->cfg.layout.ant_name[a];

		if (!ta->on)
			continue;
		log_span(f, j->id, n, "already overwritten", ta->over_from, ta->over_to,
			 ta->over_frames, NULL);
		log_span(f, j->id, n, "before the capture's first frame", ta->before_from,
			 ta->before_to, ta->before_frames, NULL);
		log_span(f, j->id, n, "not arrived", ta->future_from, ta->future_to,
			 ta->future_frames, NULL);
		log_span(f, j->id, n, "no frame of this antenna yet", ta->nodata_from,
			 ta->nodata_to, 0, NULL);
		if (ta->blocked) {
			if (ta->blocked_to > ta->blocked_from)
				log_span(f, j->id, n, "blocked", ta->blocked_from, ta->blocked_to,
					 ta->blocked_frames, ta->why);
			else
				fprintf(f, "dpdk-ibvcap: trigger %" PRIu64 ": %s: blocked: %s\n",
					j->id, n, ta->why);
		}
	}
	if (f != out) {
		fclose(f);
		if (text != NULL)
			fputs(text, out);
		free(text);
	}
	fflush(out);
}

/* ---- the jobs ---------------------------------------------------------- */

static void *
job_main(void *arg)
{
	struct trig_job *j = arg;

	trig_run(j->app, &j->r, j->res);
	job_log(j->app, j, stdout);
	pthread_mutex_lock(&J.lock);
	j->done = true;
	J.running--;
	pthread_mutex_unlock(&J.lock);
	return NULL;
}

/* A finished job's entry freed (J.lock held; its thread has returned or
 * is returning: joined). */
static void
job_free(struct trig_job *j)
{
	if (!j->joined)
		pthread_join(j->tid, NULL);
	free(j->res);
	memset(j, 0, sizeof(*j));
}

/* An entry for a new job: a free one, else the oldest finished one (read
 * ones first). J.lock held. */
static struct trig_job *
job_slot(void)
{
	struct trig_job *best = NULL;
	unsigned int i;

	for (i = 0; i < IBV_TRIG_JOBS; i++)
		if (J.job[i].id == 0)
			return &J.job[i];
	for (i = 0; i < IBV_TRIG_JOBS; i++) {
		struct trig_job *j = &J.job[i];

		if (!j->done)
			continue;
		if (best == NULL || (j->read && !best->read) ||
		    (j->read == best->read && j->id < best->id))
			best = j;
	}
	if (best != NULL)
		job_free(best);
	return best;
}

int
ibv_trig_tel_start(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	struct err_refusal e;
	struct ibv_trig_req r;
	struct trig_job *j;
	char name[RTE_MAX_THREAD_NAME_LEN], t0[48], t1[48];
	uint64_t id;
	int rc;

	memset(&e, 0, sizeof(e));
	if (!app->rings.on) {
		err_refuse(&e, "--no-buffers", "", "a capture with antenna buffers: this one keeps none");
		goto refused;
	}
	if (ibv_trig_parse(&app->cfg, params, &r, &e) != 0)
		goto refused;
	pthread_mutex_lock(&J.lock);
	if (J.closed || J.closing) {
		pthread_mutex_unlock(&J.lock);
		err_refuse(&e, "trigger", "", "a capture that is not stopping");
		goto refused;
	}
	if (J.running >= IBV_TRIG_RUNNING) {
		pthread_mutex_unlock(&J.lock);
		err_refuse(&e, "trigger", "", "at most %u triggers running at once (%u are: "
		       "/ibvcap/trigger/status lists them)", IBV_TRIG_RUNNING, IBV_TRIG_RUNNING);
		goto refused;
	}
	j = job_slot(); /* never NULL: running < IBV_TRIG_RUNNING < IBV_TRIG_JOBS */
	j->res = calloc(1, sizeof(*j->res));
	if (j->res == NULL) {
		pthread_mutex_unlock(&J.lock);
		err_refuse(&e, "trigger", "", "memory for its result");
		goto refused;
	}
	j->id = id = J.next_id++;
	j->app = app;
	j->r = r;
	j->start_ns = mono_ns();
	snprintf(name, sizeof(name), "ibv-trig-%" PRIu64, id % 100000);
	rc = rte_ctrl_thread_create(&j->tid, name, NULL, job_main, j);
	if (rc != 0) {
		free(j->res);
		memset(j, 0, sizeof(*j));
		pthread_mutex_unlock(&J.lock);
		err_refuse(&e, "trigger", "", "a thread for it (%s)", strerror(rc < 0 ? -rc : rc));
		goto refused;
	}
	J.running++;
	rte_tel_data_start_dict(d);
	req_tel(app, j, d);
	pthread_mutex_unlock(&J.lock);
	printf("dpdk-ibvcap: trigger %" PRIu64 " started: [%s, %s) %s to %s\n", id,
	       codif_time_str(r.t0, t0, sizeof(t0)), codif_time_str(r.t1, t1, sizeof(t1)),
	       wr_format_name(r.o.format), r.o.dir);
	fflush(stdout);
	return 0;
refused:
	ibv_refusal_log(stdout, "trigger", params, &e);
	rte_tel_data_start_dict(d);
	ibv_refusal_tel(d, "trigger", &e);
	return 0;
}

int
ibv_trig_tel_status(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	struct err_refusal e;
	unsigned int i, running = 0, kept = 0;
	uint64_t id, lo = UINT64_MAX, hi = 0;

	memset(&e, 0, sizeof(e));
	pthread_mutex_lock(&J.lock);
	for (i = 0; i < IBV_TRIG_JOBS; i++)
		if (J.job[i].id != 0) {
			kept++;
			running += !J.job[i].done;
			lo = J.job[i].id < lo ? J.job[i].id : lo;
			hi = J.job[i].id > hi ? J.job[i].id : hi;
		}
	if (params == NULL || *params == '\0') {
		/* every job kept: id -> state (result once done) */
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_u64(d, "running", running);
		rte_tel_data_add_dict_u64(d, "kept", kept);
		rte_tel_data_add_dict_u64(d, "max_running", IBV_TRIG_RUNNING);
		rte_tel_data_add_dict_u64(d, "max_kept", IBV_TRIG_JOBS);
		/* in the order of their ids (those kept need not be consecutive) */
		for (id = 0;;) {
			const struct trig_job *next = NULL;
			char k[24];

			for (i = 0; i < IBV_TRIG_JOBS; i++)
				if (J.job[i].id > id && (next == NULL || J.job[i].id < next->id))
					next = &J.job[i];
			if (next == NULL)
				break;
			id = next->id;
			snprintf(k, sizeof(k), "%" PRIu64, id);
			rte_tel_data_add_dict_string(d, k, !next->done ? "running" :
						     ibv_trig_outcome_name(next->res->outcome));
		}
		pthread_mutex_unlock(&J.lock);
		return 0;
	}
	if (parse_u64("id", params, 1, UINT64_MAX, &id, NULL, 0) != 0) {
		pthread_mutex_unlock(&J.lock);
		err_refuse(&e, "id", params, "a trigger's id (a number that /ibvcap/trigger answered)");
		rte_tel_data_start_dict(d);
		ibv_refusal_tel(d, "trigger/status", &e);
		return 0;
	}
	for (i = 0; i < IBV_TRIG_JOBS; i++)
		if (J.job[i].id == id)
			break;
	if (i == IBV_TRIG_JOBS) {
		pthread_mutex_unlock(&J.lock);
		if (kept == 0)
			err_refuse(&e, "id", params, "a trigger's id: none is kept (%" PRIu64
			       " started so far)", J.next_id - 1);
		else if (hi - lo + 1 == kept)
			err_refuse(&e, "id", params, "a trigger's id: ids %" PRIu64 " .. %" PRIu64
			       " are kept (the last %u; older finished ones aged out)", lo, hi,
			       IBV_TRIG_JOBS);
		else
			err_refuse(&e, "id", params, "a trigger's id: %u between %" PRIu64 " and %"
			       PRIu64 " are kept (/ibvcap/trigger/status lists them; older "
			       "finished ones aged out)", kept, lo, hi);
		rte_tel_data_start_dict(d);
		ibv_refusal_tel(d, "trigger/status", &e);
		return 0;
	}
	{
		struct trig_job *j = &J.job[i];

		rte_tel_data_start_dict(d);
		req_tel(app, j, d);
		j->polled_ns = mono_ns();
		if (j->done) {
			result_tel(app, j->res, d);
			j->read = true;
		} else {
			rte_tel_data_add_dict_u64(d, "elapsed_ms",
						  (uint64_t)(mono_ns() - j->start_ns) / 1000000);
		}
	}
	pthread_mutex_unlock(&J.lock);
	return 0;
}

#define JOBS_GRACE_NS (2LL * 1000000000LL)

void
ibv_trig_jobs_end(void)
{
	int64_t t0 = mono_ns();
	unsigned int i;
	bool wait;

	pthread_mutex_lock(&J.lock);
	if (J.closed) {
		pthread_mutex_unlock(&J.lock);
		return;
	}
	J.closed = true; /* no new job */
	/* the stop made every row final: running jobs write them and end
	 * (capture stopped), up to the grace; then the rest are cancelled */
	while (J.running > 0 && mono_ns() - t0 < JOBS_GRACE_NS) {
		pthread_mutex_unlock(&J.lock);
		rte_delay_us_sleep(10000);
		pthread_mutex_lock(&J.lock);
	}
	__atomic_store_n(&J.closing, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&J.lock);
	for (i = 0; i < IBV_TRIG_JOBS; i++)
		if (J.job[i].id != 0 && !J.job[i].joined) {
			pthread_join(J.job[i].tid, NULL);
			J.job[i].joined = true;
		}
	/* results a client was polling for (read within the grace) and has
	 * not read yet: read before telemetry closes, up to the grace */
	t0 = mono_ns();
	do {
		int64_t now = mono_ns();

		wait = false;
		pthread_mutex_lock(&J.lock);
		for (i = 0; i < IBV_TRIG_JOBS; i++) {
			const struct trig_job *j = &J.job[i];

			if (j->id != 0 && j->done && !j->read && j->polled_ns != 0 &&
			    now - j->polled_ns < JOBS_GRACE_NS)
				wait = true;
		}
		pthread_mutex_unlock(&J.lock);
		if (wait)
			rte_delay_us_sleep(10000);
	} while (wait && mono_ns() - t0 < JOBS_GRACE_NS);
	pthread_mutex_lock(&J.lock);
	for (i = 0; i < IBV_TRIG_JOBS; i++)
		if (J.job[i].id != 0)
			job_free(&J.job[i]);
	pthread_mutex_unlock(&J.lock);
}
