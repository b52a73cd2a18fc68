/* SPDX-License-Identifier: BSD-3-Clause */
/* Triggered dumps: a window [T0, T1) of CODIF data time of chosen antennas,
 * written from the rings to codif, raw or pcap files while the capture goes
 * on, with lib/writer's cursors (one writer per antenna: a file one antenna
 * cannot write blocks that antenna only); what was in the rings, what was
 * already overwritten, blocked or had not arrived, exactly. This file is the
 * request's grammar and the dump itself; trigger_jobs.c runs each dump as a
 * job on a thread of its own. */

#include <errno.h>
#include <sched.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "fsprobe.h"
#include "payload.h"
#include "rings.h"
#include "totals.h"
#include "trigger.h"
#include "antenna.h"
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

#define TRIG_FIELDS (4 + ACCT_MAX_ANTENNAS + 4)
#define TRIG_USAGE "T0,T1,FORMAT,DIR[,ANTENNA...][,timeout=T][,prefix=P]"

/* A time field (T0 or T1) as CODIF data time. @return 0, or -EINVAL with e. */
static int
trig_time(const char *what, const char *s, int64_t *t, struct err_refusal *e)
{
	int trc = codif_parse_time(s, t);

	if (trc == 0)
		return 0;
	if (trc == -ERANGE)
		return err_refuse(e, what, s, "%s", CODIF_TIME_RANGE_EXPECTED);
	return err_refuse(e, what, s, "a UTC time (CODIF data time): "
			  "YYYY-MM-DDThh:mm:ss[.frac]Z or @unix-seconds[.frac]");
}

/* The window [T0, T1): both times, T1 after T0 and at most an hour on. */
static int
trig_window(const char *s0, const char *s1, struct ibv_trig_req *r, struct err_refusal *e)
{
	char t0[48];
	int64_t len;

	if (trig_time("T0", s0, &r->t0, e) != 0 || trig_time("T1", s1, &r->t1, e) != 0)
		return -EINVAL;
	if (r->t1 <= r->t0)
		return err_refuse(e, "T1", s1, "a time after T0 (%s): the window is [T0, T1)",
				  codif_time_str(r->t0, t0, sizeof(t0)));
	if (__builtin_sub_overflow(r->t1, r->t0, &len) || len > IBV_TRIG_MAX_WINDOW_NS)
		return err_refuse(e, "T1", s1, "at most %lld s (1 h) after T0: a trigger keeps a "
				  "moment (record on --scan records longer)",
				  IBV_TRIG_MAX_WINDOW_NS / 1000000000LL);
	r->o.from_ns = r->t0;
	r->o.to_ns = r->t1;
	return 0;
}

/* FORMAT: one a writer writes. */
static int
trig_format(const char *s, struct ibv_trig_req *r, struct err_refusal *e)
{
	if (wr_format_parse(s, &r->o.format) == 0)
		return 0;
	return err_refuse(e, "FORMAT", s, "codif, raw, pcap or pcapng (one file per antenna, "
			  "as the writers write them)");
}

/* DIR: an absolute path of a directory that takes new files. */
static int
trig_dir(const char *dir, struct ibv_trig_req *r, struct err_refusal *e)
{
	char why[PATH_MAX + 64];
	unsigned int i;

	for (i = 0; dir[i] != '\0'; i++)
		if ((unsigned char)dir[i] < 0x20 || dir[i] == 0x7f)
			return err_refuse(e, "DIR", dir,
					  "a directory whose path has no control character");
	if (dir[0] != '/' || strlen(dir) >= sizeof(r->o.dir))
		return err_refuse(e, "DIR", dir, "a directory (an absolute path: the capture's "
				  "working directory is not the caller's)");
	if (fs_dir_takes_files(dir, why, sizeof(why)) != 0)
		return err_refuse(e, "DIR", dir, "a directory that takes new files; it %s", why);
	str_copy(r->o.dir, sizeof(r->o.dir), dir);
	return 0;
}

/* An antennas field: one antenna, or several joined with '+' (f is cut). */
static int
trig_antennas(const struct ibv_config *c, char *f, struct ibv_trig_req *r, struct err_refusal *e)
{
	char *ant, *save = NULL;

	for (ant = strtok_r(f, "+", &save); ant != NULL; ant = strtok_r(NULL, "+", &save)) {
		int a = ibv_antenna_of(c, ant);

		if (a < 0)
			return err_refuse(e, "antenna", ant, "one of %s .. %s, or an index 0 .. %u",
					  c->layout.ant_name[0],
					  c->layout.ant_name[c->layout.nant - 1], c->layout.nant - 1);
		r->ants |= 1ULL << a;
	}
	if (f[0] == '\0')
		return err_refuse(e, "antenna", "", "an antenna name or index");
	return 0;
}

/* The fields after DIR: antennas (none: every antenna), then the keys
 * (timeout=, prefix=) parsed together wherever they stood. */
static int
trig_rest(const struct ibv_config *c, char **f, unsigned int n, struct ibv_trig_req *r,
	  struct err_refusal *e)
{
	char keys[1024] = "";
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t kl = strlen(keys);

		if (strchr(f[i], '=') == NULL) {
			if (trig_antennas(c, f[i], r, e) != 0)
				return -EINVAL;
			continue;
		}
		if (kl + strlen(f[i]) + 2 > sizeof(keys))
			return err_refuse(e, "parameters", f[i], "keys of at most %zu characters "
					  "in all", sizeof(keys) - 1);
		snprintf(keys + kl, sizeof(keys) - kl, "%s%s", kl ? "," : "", f[i]);
	}
	if (r->ants == 0)
		r->ants = c->layout.nant >= 64 ? ~0ULL : (1ULL << c->layout.nant) - 1;
	return opt_kv_parse_why(&trig_keys, r, NULL, keys, NULL, e) != 0 ? -EINVAL : 0;
}

int
ibv_trig_parse(const struct ibv_config *c, const char *params, struct ibv_trig_req *r,
	       struct err_refusal *e)
{
	char *buf, *f[TRIG_FIELDS], *tok;
	unsigned int n = 0;
	int rc = -EINVAL;

	ibv_trig_defaults(r);
	if (params == NULL || *params == '\0')
		return err_refuse(e, "parameters", "", TRIG_USAGE);
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
	if (tok != NULL)
		err_refuse(e, "parameters", params, "at most %zu fields", RTE_DIM(f));
	else if (n < 4)
		err_refuse(e, n < 2 ? "T1" : n < 3 ? "FORMAT" : "DIR", "", TRIG_USAGE
			   ": %u field%s given", n, n == 1 ? "" : "s");
	else if (trig_window(f[0], f[1], r, e) == 0 && trig_format(f[2], r, e) == 0 &&
		 trig_dir(f[3], r, e) == 0 && trig_rest(c, f + 4, n - 4, r, e) == 0)
		rc = 0;
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
capture_stopped(const struct ibv_trig_deps *deps)
{
	return __atomic_load_n(&deps->rings->ctl->state, __ATOMIC_ACQUIRE) == SHM_STOPPED;
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

/* A writer of one antenna's window for each antenna asked (ws[a]); one
 * that cannot start blocks its antenna, with why. fctx: each file's note
 * back to res. */
static void
trig_open(const struct ibv_trig_deps *deps, const struct ibv_trig_req *r,
	  struct ibv_trig_result *res, struct wr_writer **ws, struct trig_file_ctx *fctx)
{
	unsigned int a;

	for (a = 0; a < deps->cfg->layout.nant; a++) {
		struct ibv_trig_ant *ta = &res->ant[a];
		struct wr_opts o = r->o;
		const struct antbuf *b = deps->rings->b[a];
		uint8_t *pl = ibv_pl_base(deps->pl, a);
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
}

/* One round of the antennas still writing: rows taken (the return), those
 * still short of T1 (*active), and where they got to (*written, a sum
 * that moves whenever any of them moves). */
static int
trig_poll(struct wr_writer **ws, struct ibv_trig_result *res, unsigned int nant,
	  unsigned int *active, uint64_t *written)
{
	unsigned int a;
	int moved = 0, rc;

	*active = 0;
	*written = 0;
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
			(*active)++;
		if (ws[a]->src[0].win.end_ns != INT64_MIN)
			*written += (uint64_t)ws[a]->src[0].win.end_ns;
	}
	return moved;
}

/* The writers run until every antenna reached T1 or was blocked, the
 * teardown cancels, the capture stopped with nothing left to take, or
 * timeout passed without a new row of the window. Waits holding nothing
 * for rows that are not final yet. @return why it ended. */
static enum ibv_trig_end
trig_wait(const struct ibv_trig_deps *deps, const struct ibv_trig_req *r, const bool *closing,
	  struct wr_writer **ws, struct ibv_trig_result *res, unsigned int nant)
{
	int64_t deadline = mono_ns() + (int64_t)r->timeout_ns;
	uint64_t written = 0;

	for (;;) {
		uint64_t now_written;
		unsigned int active;
		int moved = trig_poll(ws, res, nant, &active, &now_written);

		if (active == 0)
			return IBV_TRIG_DONE;
		if (now_written != written) {
			written = now_written;
			deadline = mono_ns() + (int64_t)r->timeout_ns;
		}
		if (__atomic_load_n(closing, __ATOMIC_ACQUIRE))
			return IBV_TRIG_CLOSING;
		if (moved > 0) {
			sched_yield();
			continue;
		}
		if (capture_stopped(deps) && backlog(ws, res, nant) == 0)
			return IBV_TRIG_STOPPED;
		if (mono_ns() >= deadline)
			return IBV_TRIG_TIMEOUT;
		rte_delay_us_sleep(2000);
	}
}

/* The files finished, and each antenna's part settled against the rings
 * and the capture's counts as they are now; the dump's outcome from them.
 * Frees the writers. */
static void
trig_settle(const struct ibv_trig_deps *deps, const struct ibv_trig_req *r, struct wr_writer **ws,
	    struct ibv_trig_result *res, unsigned int nant)
{
	struct ibv_totals *tot = calloc(1, sizeof(*tot));
	uint64_t wrote = 0, all_frames = 0;
	bool all_complete = true;
	unsigned int a;

	for (a = 0; a < nant; a++)
		if (ws[a] != NULL && !res->ant[a].blocked && wr_finish(ws[a]) != 0)
			block(ws[a], &res->ant[a]);
	if (tot != NULL)
		ibv_collect(deps->counts, tot);
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
	free(tot);
}

void
ibv_trig_run(const struct ibv_trig_deps *deps, const struct ibv_trig_req *r, const bool *closing,
	     struct ibv_trig_result *res)
{
	struct wr_writer *ws[ACCT_MAX_ANTENNAS] = { NULL };
	struct trig_file_ctx fctx[ACCT_MAX_ANTENNAS];
	unsigned int nant = deps->cfg->layout.nant;
	int64_t t_start = mono_ns();

	trig_open(deps, r, res, ws, fctx);
	res->end = trig_wait(deps, r, closing, ws, res, nant);
	trig_settle(deps, r, ws, res, nant);
	res->wall_ns = mono_ns() - t_start;
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
