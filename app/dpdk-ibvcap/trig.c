/* SPDX-License-Identifier: BSD-3-Clause */
/* Triggered dumps: a window [T0, T1) of CODIF data time of chosen antennas,
 * written from the rings to codif, raw or pcap files while the capture goes
 * on (telemetry /ibvcap/trigger, on the telemetry thread, never an rx
 * lcore), with lib/writer's cursors; what was in the rings, what was
 * already overwritten and what had not arrived, exactly. */

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_telemetry.h>

#include "fsprobe.h"
#include "ibvcap.h"
#include "parse.h"
#include "tconv.h"

#define TRIG_TIMEOUT_NS (10ULL * 1000000000ULL)

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

static int
refuse(struct ibv_trig_refusal *e, const char *input, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
refuse(struct ibv_trig_refusal *e, const char *input, const char *value, const char *fmt, ...)
{
	va_list ap;

	str_copy(e->input, sizeof(e->input), input);
	str_copy(e->value, sizeof(e->value), value != NULL ? value : "");
	va_start(ap, fmt);
	vsnprintf(e->expected, sizeof(e->expected), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An antenna by name or index. */
static int
antenna_of(const struct ibv_config *c, const char *s)
{
	uint64_t i;
	unsigned int a;

	for (a = 0; a < c->layout.nant; a++)
		if (strcmp(s, c->layout.ant_name[a]) == 0)
			return (int)a;
	if (parse_u64("antenna", s, 0, c->layout.nant - 1, &i, NULL, 0) == 0)
		return (int)i;
	return -1;
}

int
ibv_trig_parse(const struct ibv_config *c, const char *params, struct ibv_trig_req *r,
	       struct ibv_trig_refusal *e)
{
	char *buf, *f[4 + ACCT_MAX_ANTENNAS + 4], *tok, why[PATH_MAX + 64];
	unsigned int n = 0, i;
	int rc = -EINVAL;

	ibv_trig_defaults(r);
	if (params == NULL || *params == '\0')
		return refuse(e, "parameters", "", "T0,T1,FORMAT,DIR[,ANTENNA...][,timeout=T]"
			      "[,prefix=P]");
	buf = strdup(params);
	if (buf == NULL)
		return refuse(e, "parameters", "", "memory for them");
	/* empty fields count: "T0,,codif,DIR" names a missing T1 */
	for (tok = buf; tok != NULL && n < RTE_DIM(f); n++) {
		f[n] = tok;
		tok = strchr(tok, ',');
		if (tok != NULL)
			*tok++ = '\0';
	}
	if (tok != NULL) {
		refuse(e, "parameters", params, "at most %zu fields", RTE_DIM(f));
		goto out;
	}
	if (n < 4) {
		refuse(e, n < 2 ? "T1" : n < 3 ? "FORMAT" : "DIR", "", "T0,T1,FORMAT,DIR"
		       "[,ANTENNA...][,timeout=T][,prefix=P]: %u field%s given", n, n == 1 ? "" : "s");
		goto out;
	}
	if (codif_parse_time(f[0], &r->t0) != 0) {
		refuse(e, "T0", f[0], "a UTC time (CODIF data time): YYYY-MM-DDThh:mm:ss[.frac]Z "
		       "or @unix-seconds[.frac]");
		goto out;
	}
	if (codif_parse_time(f[1], &r->t1) != 0) {
		refuse(e, "T1", f[1], "a UTC time (CODIF data time): YYYY-MM-DDThh:mm:ss[.frac]Z "
		       "or @unix-seconds[.frac]");
		goto out;
	}
	if (r->t1 <= r->t0) {
		char t0[48];

		refuse(e, "T1", f[1], "a time after T0 (%s): the window is [T0, T1)",
		       codif_time_str(r->t0, t0, sizeof(t0)));
		goto out;
	}
	if (strcmp(f[2], "codif") == 0)
		r->o.format = WR_CODIF;
	else if (strcmp(f[2], "raw") == 0)
		r->o.format = WR_RAW;
	else if (strcmp(f[2], "pcap") == 0)
		r->o.format = WR_PCAP;
	else {
		refuse(e, "FORMAT", f[2], "codif, raw or pcap (one file per antenna, as the writers "
		       "write them)");
		goto out;
	}
	if (f[3][0] != '/' || strlen(f[3]) >= sizeof(r->o.dir)) {
		refuse(e, "DIR", f[3], "a directory (an absolute path: the capture's working "
		       "directory is not the caller's)");
		goto out;
	}
	if (fs_dir_takes_files(f[3], why, sizeof(why)) != 0) {
		refuse(e, "DIR", f[3], "a directory that takes new files; it %s", why);
		goto out;
	}
	str_copy(r->o.dir, sizeof(r->o.dir), f[3]);
	for (i = 4; i < n; i++) {
		char *eq = strchr(f[i], '='), *ant, *save2 = NULL;

		if (eq != NULL) {
			*eq = '\0';
			if (strcmp(f[i], "timeout") == 0) {
				if (parse_duration_ns("timeout", eq + 1, 0, 3600ULL * 1000000000ULL,
						      &r->timeout_ns, NULL, 0) != 0) {
					refuse(e, "timeout", eq + 1, "a duration of at most 1 h, e.g. "
					       "10s or 500ms (0: do not wait)");
					goto out;
				}
			} else if (strcmp(f[i], "prefix") == 0) {
				if (eq[1] == '\0' || strlen(eq + 1) >= sizeof(r->o.prefix) ||
				    strchr(eq + 1, '/') != NULL) {
					refuse(e, "prefix", eq + 1, "a file name prefix (no '/', "
					       "at most %zu characters)", sizeof(r->o.prefix) - 1);
					goto out;
				}
				str_copy(r->o.prefix, sizeof(r->o.prefix), eq + 1);
			} else {
				refuse(e, f[i], eq + 1, "an antenna, timeout=T or prefix=P");
				goto out;
			}
			continue;
		}
		/* antennas: one a field, or joined with '+' */
		for (ant = strtok_r(f[i], "+", &save2); ant != NULL; ant = strtok_r(NULL, "+", &save2)) {
			int a = antenna_of(c, ant);

			if (a < 0) {
				refuse(e, "antenna", ant, "one of %s .. %s, or an index 0 .. %u",
				       c->layout.ant_name[0], c->layout.ant_name[c->layout.nant - 1],
				       c->layout.nant - 1);
				goto out;
			}
			r->ants |= 1ULL << a;
		}
		if (f[i][0] == '\0') {
			refuse(e, "antenna", "", "an antenna name or index");
			goto out;
		}
	}
	r->o.from_ns = r->t0;
	r->o.to_ns = r->t1;
	if (r->ants == 0)
		r->ants = c->layout.nant >= 64 ? ~0ULL : (1ULL << c->layout.nant) - 1;
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

static void
file_done(void *ctx, const char *path, int ant, const struct fmt_tally *t)
{
	struct ibv_trig_result *res = ctx;
	struct ibv_trig_ant *ta;
	const char *base = strrchr(path, '/');

	if (ant < 0 || ant >= (int)ACCT_MAX_ANTENNAS)
		return;
	ta = &res->ant[ant];
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
	return __atomic_load_n(&app->bufs.ctl->state, __ATOMIC_ACQUIRE) == SHM_STOPPED;
}

/* Rows final but not taken yet by the antennas still short of T1. */
static uint64_t
backlog(const struct wr_writer *w)
{
	uint64_t n = 0;
	unsigned int a;

	for (a = 0; a < w->n; a++)
		if (w->src[a].on && !w->src[a].win.past)
			n += (uint64_t)antbuf_backlog(w->src[a].b, &w->src[a].cur);
	return n;
}

/* What each antenna's part of the window was: taken from the ring, already
 * overwritten, before the capture's first frame, not arrived (yet). */
static void
settle(const struct ibv_trig_req *r, const struct wr_writer *w,
       const struct ibv_totals *tot, struct ibv_trig_result *res)
{
	unsigned int a;

	for (a = 0; a < w->n; a++) {
		const struct wr_src *s = &w->src[a];
		const struct wr_window *win = &s->win;
		struct ibv_trig_ant *ta = &res->ant[a];
		const struct antbuf *b = s->b;
		const struct codif_clock *clk;
		int64_t first_cap = tot->ant[a].first_ns;
		unsigned int ns;

		if (!s->on)
			continue;
		ta->on = true;
		ns = streams_of(b);
		ta->streams = ns;
		ta->from_ns = win->begin_ns;
		ta->oldest_ns = win->first_ns;
		ta->to_ns = win->end_ns;
		ta->complete = win->past;
		clk = win->first_ns != INT64_MIN ? &win->first_clk : clock_of(b);
		if (clk == NULL || first_cap == INT64_MAX) {
			/* no frame of this antenna yet */
			ta->nodata_from = r->t0;
			ta->nodata_to = r->t1;
			continue;
		}
		/* before the capture's first frame: never captured */
		if (first_cap > r->t0 && rows_in(clk, r->t0, first_cap < r->t1 ? first_cap : r->t1) > 0) {
			ta->before_from = r->t0;
			ta->before_to = first_cap < r->t1 ? first_cap : r->t1;
			ta->before_frames = rows_in(clk, ta->before_from, ta->before_to) * ns;
		}
		/* from the capture's first frame (or T0) to the first row of
		 * the window in the files (or T1, when the cursor met a row
		 * past it first): overwritten, before this dump began or
		 * while it fell behind on the rows before T0 */
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
		/* from where it got to, to T1: not arrived (timeout, or the
		 * capture stopped) */
		if (!win->past) {
			int64_t f0 = win->end_ns != INT64_MIN && win->end_ns > r->t0 ? win->end_ns :
												r->t0;

			if (ta->over_to > f0)
				f0 = ta->over_to;
			if (rows_in(clock_of(b), f0, r->t1) > 0) {
				ta->future_from = f0;
				ta->future_to = r->t1;
				ta->future_frames = rows_in(clock_of(b), f0, r->t1) * ns;
			}
		}
	}
}

int
ibv_trig_run(struct ibv_app *app, const struct ibv_trig_req *r, struct ibv_trig_result *res)
{
	const struct ibv_config *c = &app->cfg;
	const struct antbuf *bufs[SHM_MAX_ANT];
	uint8_t *payloads[SHM_MAX_ANT];
	struct ibv_totals *tot = NULL;
	struct wr_writer *w = NULL;
	struct wr_opts o = r->o;
	int64_t t_start = clock_ns(CLOCK_MONOTONIC), deadline;
	uint64_t written = 0;
	unsigned int a;
	int rc;

	memset(res, 0, sizeof(*res));
	res->end = IBV_TRIG_COMPLETE;
	w = calloc(1, sizeof(*w));
	tot = calloc(1, sizeof(*tot));
	if (w == NULL || tot == NULL) {
		rc = -ENOMEM;
		snprintf(res->err, sizeof(res->err), "out of memory for a writer");
		goto out;
	}
	for (a = 0; a < c->layout.nant; a++) {
		bufs[a] = app->bufs.b[a];
		payloads[a] = app->bufs.payload[a];
	}
	o.file_done = file_done;
	o.file_ctx = res;
	rc = wr_init(w, &o, bufs, payloads, c->layout.nant, r->ants, res->err, sizeof(res->err));
	if (rc != 0) {
		res->end = IBV_TRIG_ERROR;
		goto out;
	}
	/* waits, without the telemetry lock, for rows that are not final yet;
	 * gives up after timeout without a new row of the window */
	deadline = t_start + (int64_t)r->timeout_ns;
	for (;;) {
		uint64_t now_written;

		rc = wr_poll(w, 256);
		if (rc < 0) {
			res->end = IBV_TRIG_ERROR;
			str_copy(res->err, sizeof(res->err), w->err);
			break;
		}
		if (wr_window_done(w))
			break;
		now_written = 0;
		for (a = 0; a < w->n; a++)
			if (w->src[a].win.end_ns != INT64_MIN)
				now_written += (uint64_t)w->src[a].win.end_ns;
		if (now_written != written) {
			written = now_written;
			deadline = clock_ns(CLOCK_MONOTONIC) + (int64_t)r->timeout_ns;
		}
		if (rc > 0) {
			/* let other replies in now and then */
			if (!ibv_telemetry_sleep(0)) {
				res->end = IBV_TRIG_CLOSING;
				break;
			}
			continue;
		}
		if (capture_stopped(app) && backlog(w) == 0) {
			res->end = IBV_TRIG_STOPPED;
			break;
		}
		if (clock_ns(CLOCK_MONOTONIC) >= deadline) {
			res->end = IBV_TRIG_TIMEOUT;
			break;
		}
		if (!ibv_telemetry_sleep(1000000)) {
			res->end = IBV_TRIG_CLOSING;
			break;
		}
	}
	if (wr_finish(w) != 0 && res->end != IBV_TRIG_ERROR) {
		res->end = IBV_TRIG_ERROR;
		str_copy(res->err, sizeof(res->err), w->err);
	}
	ibv_collect(app, tot);
	settle(r, w, tot, res);
	for (a = 0; a < c->layout.nant; a++)
		res->overrun += res->ant[a].overrun;
	res->wall_ns = clock_ns(CLOCK_MONOTONIC) - t_start;
	rc = res->end == IBV_TRIG_ERROR ? -EIO : 0;
out:
	free(tot);
	free(w);
	return rc;
}

const char *
ibv_trig_end_name(enum ibv_trig_end e)
{
	switch (e) {
	case IBV_TRIG_COMPLETE: return "complete";
	case IBV_TRIG_TIMEOUT: return "timeout";
	case IBV_TRIG_STOPPED: return "capture stopped";
	case IBV_TRIG_CLOSING: return "capture stopping";
	case IBV_TRIG_ERROR: return "I/O error";
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

void
ibv_trig_refusal_tel(const struct ibv_trig_refusal *e, struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", "trigger refused: nothing written");
	rte_tel_data_add_dict_string(d, "input", e->input);
	rte_tel_data_add_dict_string(d, "value", e->value);
	rte_tel_data_add_dict_string(d, "expected", e->expected);
}

void
ibv_trig_result_tel(const struct ibv_app *app, const struct ibv_trig_req *r,
		    const struct ibv_trig_result *res, struct rte_tel_data *d)
{
	struct rte_tel_data *files;
	uint64_t frames = 0, ph = 0, over = 0, before = 0, future = 0, bytes = 0, nf = 0;
	unsigned int a, i;
	char t[48];

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "result", ibv_trig_end_name(res->end));
	if (res->err[0] != '\0')
		rte_tel_data_add_dict_string(d, "error", res->err);
	rte_tel_data_add_dict_string(d, "from", codif_time_str(r->t0, t, sizeof(t)));
	rte_tel_data_add_dict_string(d, "to", codif_time_str(r->t1, t, sizeof(t)));
	rte_tel_data_add_dict_string(d, "format", wr_format_name(r->o.format));
	rte_tel_data_add_dict_string(d, "dir", r->o.dir);
	for (a = 0; a < app->cfg.layout.nant; a++) {
		const struct ibv_trig_ant *ta = &res->ant[a];

		frames += ta->frames;
		ph += ta->placeholders;
		over += ta->over_frames;
		before += ta->before_frames;
		future += ta->future_frames;
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
		rte_tel_data_add_dict_u64(o, "files", ta->files);
		rte_tel_data_add_dict_u64(o, "frames", ta->frames);
		rte_tel_data_add_dict_u64(o, "placeholders", ta->placeholders);
		rte_tel_data_add_dict_u64(o, "streams", ta->streams);
		rte_tel_data_add_dict_string(o, "complete", ta->complete ? "yes" : "no");
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
		rte_tel_data_add_dict_u64(o, "lost_while_dumping", ta->overrun);
		if (rte_tel_data_add_dict_container(d, app->cfg.layout.ant_name[a], o, 0) != 0)
			rte_tel_data_free(o);
	}
}

static void
log_span(FILE *f, const char *ant, const char *what, int64_t from, int64_t to, uint64_t frames)
{
	char t0[48], t1[48];

	if (to <= from)
		return;
	fprintf(f, "dpdk-ibvcap: trigger: %s: %s [%s, %s): %" PRIu64 " frames\n", ant, what,
		codif_time_str(from, t0, sizeof(t0)), codif_time_str(to, t1, sizeof(t1)), frames);
}

void
ibv_trig_log(const struct ibv_app *app, const struct ibv_trig_req *r,
	     const struct ibv_trig_result *res, FILE *f)
{
	uint64_t frames = 0, ph = 0, nf = 0;
	unsigned int a;
	char t0[48], t1[48];

	for (a = 0; a < app->cfg.layout.nant; a++) {
		frames += res->ant[a].frames;
		ph += res->ant[a].placeholders;
		nf += res->ant[a].files;
	}
	fprintf(f, "dpdk-ibvcap: trigger [%s, %s) %s to %s: %s: %" PRIu64 " files, %" PRIu64
		" frames, %" PRIu64 " gap frames, %" PRIu64 " lost while dumping, %.3f s%s%s\n",
		codif_time_str(r->t0, t0, sizeof(t0)), codif_time_str(r->t1, t1, sizeof(t1)),
		wr_format_name(r->o.format), r->o.dir, ibv_trig_end_name(res->end), nf, frames, ph,
		res->overrun, (double)res->wall_ns / 1e9, res->err[0] ? ": " : "", res->err);
	for (a = 0; a < app->cfg.layout.nant; a++) {
		const struct ibv_trig_ant *ta = &res->ant[a];
		const char *n = app->cfg.layout.ant_name[a];

		if (!ta->on)
			continue;
		log_span(f, n, "already overwritten", ta->over_from, ta->over_to, ta->over_frames);
		log_span(f, n, "before the capture's first frame", ta->before_from, ta->before_to,
			 ta->before_frames);
		log_span(f, n, "not arrived", ta->future_from, ta->future_to, ta->future_frames);
		log_span(f, n, "no frame of this antenna yet", ta->nodata_from, ta->nodata_to, 0);
	}
	fflush(f);
}

void
ibv_trig_refusal_log(const char *params, const struct ibv_trig_refusal *e, FILE *f)
{
	fprintf(f, "dpdk-ibvcap: trigger %s refused: %s '%s': expected %s\n",
		params != NULL ? params : "", e->input, e->value, e->expected);
	fflush(f);
}
