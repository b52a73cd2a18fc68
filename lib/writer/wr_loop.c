/* SPDX-License-Identifier: BSD-3-Clause */
/* The loop that drives a writer, in the primary's writer lcores and in
 * dpdk-ibvcap-dump alike, and the figures it publishes to the primary. */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "shm.h"
#include "tconv.h"
#include "writer.h"

static void
sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

void
wr_figures(const struct wr_stats *st, int error, struct shm_writer *r)
{
	r->written = st->written;
	r->placeholders = st->placeholders;
	r->bytes = st->bytes;
	r->overrun = st->overrun;
	r->files = st->files;
	r->cut = st->cut;
	r->files_removed = st->files_removed;
	r->bytes_removed = st->bytes_removed;
	r->error = error;
}

/* The window of the write rate: long enough that a staging buffer flushed
 * now and then reads as a rate, short enough to follow the disk. */
#define RATE_NS 1000000000LL

/* The rate is of the bytes handed to its files, staged or written out
 * (wr_bytes_handed): it follows the writer smoothly, where the bytes on disk
 * move a staging buffer at a time (8 MiB per file). */

void
wr_io_figures(struct wr_writer *w, struct shm_writer *r)
{
	struct wr_io io;

	wr_io(w, &io);
	r->io_inflight = io.inflight;
	r->io_inflight_max = io.peak;
	r->io_depth = io.limit;
	r->io_uring = io.uring;
	/* read by other processes as it is written: rewritten only when it
	 * changes (a file that took O_DIRECT, then one that did not) */
	if (strncmp(r->io_why, io.why != NULL ? io.why : "", sizeof(r->io_why) - 1) != 0)
		snprintf(r->io_why, sizeof(r->io_why), "%s", io.why != NULL ? io.why : "");
}

bool
wr_behind(const struct wr_writer *w, unsigned int ant, int64_t newest_ns, int64_t t_ns)
{
	const struct wr_src *s;
	uint64_t rows, ns;

	if (ant >= w->n || !w->src[ant].on)
		return false;
	s = &w->src[ant];
	if (antbuf_untaken(s->b, &s->cur) == 0)
		return false; /* every final row taken: the rest is not final yet */
	if (!__atomic_load_n(&s->cur.started, __ATOMIC_ACQUIRE))
		return true;
	/* the next row's data time, a frame early at most: from the newest's */
	antbuf_lag(s->b, &s->cur, &rows, &ns);
	return newest_ns - (int64_t)ns < t_ns;
}

void
wr_publish(struct wr_writer *w, struct shm_writer *r)
{
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	uint64_t lag = 0, lag_ns = 0, rows, ns, avail = 0, total = 0, thr, left;
	unsigned int i;

	if (r == NULL)
		return;
	for (i = 0; i < w->n; i++) {
		if (!w->src[i].on)
			continue;
		antbuf_lag(w->src[i].b, &w->src[i].cur, &rows, &ns);
		lag = rows > lag ? rows : lag;
		lag_ns = ns > lag_ns ? ns : lag_ns;
	}
	if (w->rate_t0 == 0) {
		w->rate_t0 = now;
		w->rate_bytes0 = wr_bytes_handed(w);
	} else if (now - w->rate_t0 >= RATE_NS) {
		uint64_t b = wr_bytes_handed(w);

		w->rate = b > w->rate_bytes0 ? (uint64_t)((double)(b - w->rate_bytes0) * 1e9 /
							  (double)(now - w->rate_t0)) : 0;
		w->rate_t0 = now;
		w->rate_bytes0 = b;
	}
	wr_figures(&w->st, w->error, r);
	wr_io_figures(w, r);
	r->full = w->full;
	r->recycles = w->o.budget && w->o.on_full == WR_FULL_REMOVE_OLDEST;
	r->lag_frames = lag;
	r->lag_ns = lag_ns;
	r->ants = 0;
	for (i = 0; i < w->n && i < 64; i++)
		if (w->src[i].on)
			r->ants |= 1ULL << i;
	wr_gate_publish(w, r->scans, SHM_WRITER_SCANS);
	r->write_rate = w->rate;
	if (wr_dir_space(w->o.dir, &avail, &total) != 0)
		avail = total = 0;
	r->disk_free = avail;
	/* recording time left at this rate: the space above min-free (the
	 * whole free space without one) over the bytes/s it writes */
	thr = wr_min_free_bytes(&w->o, total);
	r->min_free = thr;
	left = avail > thr ? avail - thr : 0;
	r->time_left_ns = w->rate > 0 && !w->full ?
			  (uint64_t)((double)left / (double)w->rate * 1e9) : 0;
	r->heartbeat_ns = clock_ns(CLOCK_REALTIME);
}

const char *
wr_end_name(enum wr_end e)
{
	switch (e) {
	case WR_END_STOP: return "stopped";
	case WR_END_ERROR: return "I/O error";
	case WR_END_COUNT: return "count";
	case WR_END_DURATION: return "duration";
	case WR_END_SOURCE_STOPPED: return "the primary stopped";
	case WR_END_SOURCE_GONE: return "the primary exited";
	case WR_END_DISK_FULL: return "min-free";
	}
	return "?";
}

/* How often a writer publishes its figures whatever it is doing (busy,
 * held back by max_rate, idle), and how often an idle one asks whether its
 * producer is still there. A poll takes at most `batch` rows per antenna,
 * so a writer that keeps up is never long without publishing. */
#define PUBLISH_NS 200000000LL
#define ALIVE_NS 100000000LL
#define IDLE_NS 500000LL
/* A --max-rate writer that fell behind its pace (the scheduler, a slow
 * write) makes up at most this much of it at full speed: its rate over
 * any second stays within 10 % of max_rate. */
#define PACE_CREDIT_NS 100000000LL

/* Publish when PUBLISH_NS has passed since the last time. */
static void
publish_due(struct wr_writer *w, const struct wr_run_opts *o, int64_t now,
	    int64_t *last)
{
	if (now - *last >= PUBLISH_NS) {
		wr_publish(w, o->reg);
		*last = now;
	}
}

/* Sleep until `until` (monotonic ns), publishing on the way. */
static void
hold_back(struct wr_writer *w, const struct wr_run_opts *o, int64_t until,
	  int64_t *last)
{
	int64_t now;

	while ((now = clock_ns(CLOCK_MONOTONIC)) < until) {
		int64_t step = until - now < PUBLISH_NS ? until - now : PUBLISH_NS;

		publish_due(w, o, now, last);
		if (o->stop != NULL && o->stop(o->ctx))
			return;
		sleep_ns(step);
	}
}

/* A loop's state: when it started, when it last checked the producer was
 * alive, published, printed progress; max-rate's reference (frames taken
 * since pace_t0 may not be ahead of the rate; moved on while idle, so
 * time without data is no credit for a burst later). */
struct run_state {
	int64_t t0, next_stats, last_alive, last_pub;
	int64_t pace_t0;
	uint64_t pace_taken0;
};

/* --max-rate: hold back while the frames taken so far are ahead of the
 * rate; behind its pace (descheduled, a slow write), at most
 * PACE_CREDIT_NS of it is made up at full speed, not a burst of all of it.
 * @return the time now. */
static int64_t
pace(struct wr_writer *w, const struct wr_run_opts *o, struct run_state *st, int64_t now)
{
	int64_t due = st->pace_t0 + (int64_t)((double)(int64_t)(w->st.taken - st->pace_taken0) /
					      o->max_rate * 1e9);

	if (due > now) {
		hold_back(w, o, due, &st->last_pub);
		return clock_ns(CLOCK_MONOTONIC);
	}
	if (due < now - PACE_CREDIT_NS) {
		st->pace_t0 = now - PACE_CREDIT_NS;
		st->pace_taken0 = w->st.taken;
	}
	return now;
}

/* Whether the writer is done (count= written, min-free reached) or its
 * duration passed. @return true with the reason in *end. */
static bool
run_over(const struct wr_writer *w, const struct wr_run_opts *o, const struct run_state *st,
	 int64_t now, enum wr_end *end)
{
	if (w->done)
		*end = WR_END_COUNT;
	else if (w->full)
		*end = WR_END_DISK_FULL;
	else if (o->duration_ns && now - st->t0 >= (int64_t)o->duration_ns)
		*end = WR_END_DURATION;
	else
		return false;
	return true;
}

/* Idle (nothing taken): after the producer stopped and flushed its rows,
 * the rest taken, then the end; a producer that died: every final row
 * taken, then the end. @return true with the reason in *end. */
static bool
idle_over(struct wr_writer *w, const struct wr_run_opts *o, struct run_state *st, int64_t now,
	  enum wr_end *end)
{
	if (o->source_stopped != NULL && o->source_stopped(o->ctx) && wr_backlog(w) == 0) {
		*end = WR_END_SOURCE_STOPPED;
		return true;
	}
	if (o->source_gone == NULL || now - st->last_alive <= ALIVE_NS)
		return false;
	st->last_alive = now;
	if (!o->source_gone(o->ctx))
		return false;
	while (wr_poll(w, 1024) > 0)
		;
	*end = w->full ? WR_END_DISK_FULL : WR_END_SOURCE_GONE;
	return true;
}

/* The loop over: files finished, a rate of 0 from now on, the figures
 * published. @return 0, or a negative errno (*end then WR_END_ERROR). */
static int
run_finish(struct wr_writer *w, const struct wr_run_opts *o, enum wr_end *end)
{
	int rc = wr_finish(w);

	if (rc == 0 && w->error != 0)
		rc = -w->error;
	if (rc != 0)
		*end = WR_END_ERROR;
	w->rate = 0;
	w->rate_t0 = clock_ns(CLOCK_MONOTONIC);
	w->rate_bytes0 = wr_bytes_handed(w);
	wr_publish(w, o->reg);
	return rc;
}

int
wr_run(struct wr_writer *w, const struct wr_run_opts *o, enum wr_end *why)
{
	unsigned int batch = o->max_rate > 0 ? 1 : o->batch != 0 ? o->batch : 256;
	struct run_state st = { .t0 = clock_ns(CLOCK_MONOTONIC) };
	enum wr_end end;
	int rc;

	st.next_stats = st.t0 + (int64_t)o->stats_ns;
	st.last_pub = st.pace_t0 = st.t0;
	st.pace_taken0 = w->st.taken;
	if (o->note != NULL) {
		w->note = o->note;
		w->note_ctx = o->ctx;
	}
	wr_publish(w, o->reg);
	for (;;) {
		int64_t now;
		int n;

		if (o->stop != NULL && o->stop(o->ctx)) {
			end = WR_END_STOP;
			break;
		}
		n = wr_poll(w, batch);
		now = clock_ns(CLOCK_MONOTONIC);
		if (n < 0) {
			end = WR_END_ERROR;
			break;
		}
		if (o->max_rate > 0 && n > 0)
			now = pace(w, o, &st, now);
		if (run_over(w, o, &st, now, &end))
			break;
		if (o->progress != NULL && o->stats_ns && now >= st.next_stats) {
			o->progress(o->ctx, w);
			st.next_stats += (int64_t)o->stats_ns;
		}
		publish_due(w, o, now, &st.last_pub);
		if (n > 0)
			continue;
		st.pace_t0 = now;
		st.pace_taken0 = w->st.taken;
		if (idle_over(w, o, &st, now, &end))
			break;
		sleep_ns(IDLE_NS);
	}
	rc = run_finish(w, o, &end);
	if (why != NULL)
		*why = end;
	return rc;
}
