/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-antenna frame buffer, the consumers' side: a cursor per reader
 * (writer, dump, trigger), the rows it takes, what it lost to overrun,
 * its backlog and lag. Readers never write to the buffer but their own
 * cursor; the producer side is antbuf.c. */

#include <errno.h>
#include <string.h>

#include "antbuf.h"
#include "antbuf_int.h"

static int64_t
oldest_safe(const struct antbuf *b, int64_t final)
{
	int64_t o = final + (int64_t)b->g.window - (int64_t)b->g.nrows;
	int64_t first = __atomic_load_n(&b->first_row, __ATOMIC_ACQUIRE);

	return o > first ? o : first;
}

void
antbuf_cursor_init(const struct antbuf *b, struct antbuf_cursor *c,
		   bool from_oldest)
{
	memset(c, 0, sizeof(*c));
	c->next = from_oldest ? INT64_MIN : INT64_MAX; /* resolved on first use */
	/* attached before the first frame: this consumer is owed every frame,
	 * from the first row on (what it cannot take counts as lost) */
	c->from_first = __atomic_load_n(&b->first_row, __ATOMIC_ACQUIRE) < 0;
}

int64_t
antbuf_backlog(const struct antbuf *b, const struct antbuf_cursor *c)
{
	int64_t final = __atomic_load_n(&b->final_row, __ATOMIC_ACQUIRE);

	if (!c->started)
		return 0;
	return final > c->next ? final - c->next : 0;
}

int64_t
antbuf_untaken(const struct antbuf *b, const struct antbuf_cursor *c)
{
	int64_t final = __atomic_load_n(&b->final_row, __ATOMIC_ACQUIRE);
	int64_t first = __atomic_load_n(&b->first_row, __ATOMIC_ACQUIRE);
	int64_t next;

	if (__atomic_load_n(&c->started, __ATOMIC_ACQUIRE))
		next = __atomic_load_n(&c->next, __ATOMIC_RELAXED);
	else if (c->from_first && first >= 0)
		next = first;
	else
		return 0;
	return final > next ? final - next : 0;
}

void
antbuf_lag(const struct antbuf *b, const struct antbuf_cursor *c, uint64_t *rows, uint64_t *ns)
{
	/* the producer stores newest plainly (one aligned word): a relaxed
	 * load sees the old or the new value, either is a fine reading */
	int64_t newest = __atomic_load_n(&b->newest, __ATOMIC_RELAXED);
	uint32_t nruns = __atomic_load_n(&b->nruns, __ATOMIC_ACQUIRE);
	const struct codif_clock *clk;
	uint64_t n;

	*rows = *ns = 0;
	if (!c->started || nruns == 0 || newest + 1 <= c->next)
		return;
	n = (uint64_t)(newest + 1 - c->next);
	clk = &b->run[(nruns - 1) % ANTBUF_RUNS].clk;
	*rows = n;
	/* n x period_ns / fpp without overflow: step_r < fpp */
	if (clk->fpp != 0)
		*ns = n * clk->step_q + n * clk->step_r / clk->fpp;
}

static void
skip_rows(struct antbuf_cursor *c, struct antbuf_view *v, int64_t to)
{
	v->lost_rows += (uint64_t)(to - c->next);
	c->lost_rows += (uint64_t)(to - c->next);
	c->next = to;
	c->vdone = 0;
	v->discontinuity = true;
}

int
antbuf_next(const struct antbuf *b, struct antbuf_cursor *c,
	    struct antbuf_view *v)
{
	int64_t final, first, safe;

	final = __atomic_load_n(&b->final_row, __ATOMIC_ACQUIRE);
	first = __atomic_load_n(&b->first_row, __ATOMIC_ACQUIRE);
	if (first < 0)
		return 0;
	memset(v, 0, sizeof(*v));
	if (!c->started) {
		c->next = c->from_first ? first :
			  c->next == INT64_MIN ? oldest_safe(b, final) : final;
		if (c->from_first) {
			c->cum_next = 0;
		} else if (c->next < final) {
			c->cum_next = UINT64_MAX; /* read from the row below */
		} else if (final > first) {
			/* at the live end: the running total after the last
			 * final row, from that row (consistent with final) */
			const struct antbuf_row *lr = antbuf_rowp(b, rpos(b, final - 1));
			uint64_t cum = UINT64_MAX;

			if (__atomic_load_n(&lr->seq, __ATOMIC_ACQUIRE) == final - 1) {
				cum = lr->cum_before + lr->nvalid;
				__atomic_thread_fence(__ATOMIC_ACQUIRE);
				if (__atomic_load_n(&lr->seq, __ATOMIC_RELAXED) != final - 1)
					cum = UINT64_MAX; /* reopened meanwhile */
			}
			c->cum_next = cum;
		} else {
			c->cum_next = 0; /* nothing final yet */
		}
		c->vdone = 0;
		c->started = true;
	}
	for (;;) {
		const struct antbuf_run *run;
		struct antbuf_row *row;
		uint32_t k;
		uint64_t cum_before;
		uint32_t nvalid;
		int64_t seq;

		final = __atomic_load_n(&b->final_row, __ATOMIC_ACQUIRE);
		if (c->next >= final)
			return 0;
		/* rows older than a ring before the end are overwritten */
		safe = oldest_safe(b, final);
		if (c->next < safe) {
			skip_rows(c, v, safe);
			continue;
		}
		run = antbuf_run_of(b, c->next, &k);
		if (run == NULL) {
			/* its run is gone from the history: so is the row */
			skip_rows(c, v, c->next + 1);
			continue;
		}
		v->run = run;
		v->runno = k;
		if (run->kind == ANTBUF_RUN_GAP && c->next == run->seq0 && c->vdone < run->vgap) {
			/* frames the capture lost, longer than the ring */
			v->virt = true;
			v->row = c->next;
			v->index = c->next - run->delta - run->vgap + c->vdone;
			v->run_start = c->vdone == 0;
			return 1;
		}
		row = antbuf_rowp(b, rpos(b, c->next));
		seq = __atomic_load_n(&row->seq, __ATOMIC_ACQUIRE);
		cum_before = row->cum_before;
		nvalid = row->nvalid;
		/* read as a seqlock: the producer stores a reopened row's seq
		 * before anything else of it, so the same seq after these reads
		 * says they are this row's (a recycled row's cum_before, a ring
		 * later, counted a ring of frames lost that were not) */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (seq != c->next || __atomic_load_n(&row->seq, __ATOMIC_RELAXED) != seq) {
			/* overwritten just now */
			skip_rows(c, v, c->next + 1);
			continue;
		}
		/* the frames of the rows lost before it, exactly, from the
		 * producer's running total */
		if (c->cum_next != UINT64_MAX && cum_before > c->cum_next) {
			v->lost_frames += cum_before - c->cum_next;
			c->lost_frames += cum_before - c->cum_next;
		}
		c->cum_next = cum_before;
		v->row = c->next;
		v->pos = rpos(b, c->next);
		v->index = c->next - run->delta;
		v->nvalid = nvalid;
		v->run_start = c->next == run->seq0 && run->kind != ANTBUF_RUN_GAP;
		return 1;
	}
}

bool
antbuf_commit(const struct antbuf *b, struct antbuf_cursor *c,
	      const struct antbuf_view *v)
{
	uint32_t nr = __atomic_load_n(&b->nruns, __ATOMIC_ACQUIRE);
	bool run_ok = nr < v->runno + ANTBUF_RUNS;
	const struct antbuf_row *row;

	if (v->virt) {
		c->vdone++;
		return run_ok;
	}
	row = antbuf_rowp(b, v->pos);
	if (!run_ok || __atomic_load_n(&row->seq, __ATOMIC_ACQUIRE) != v->row) {
		/* overwritten while read: its frames are lost to this reader */
		c->lost_rows++;
		c->lost_frames += v->nvalid;
		c->cum_next += v->nvalid;
		c->next = v->row + 1;
		c->vdone = 0;
		return false;
	}
	c->rows++;
	c->frames += v->nvalid;
	/* cum_next is the row's cum_before as antbuf_next read it (checked
	 * then): the row itself may be reopened by now */
	c->cum_next += v->nvalid;
	c->next = v->row + 1;
	c->vdone = 0;
	return true;
}

bool
antbuf_intact(const struct antbuf *b, const struct antbuf_view *v)
{
	uint32_t nr = __atomic_load_n(&b->nruns, __ATOMIC_ACQUIRE);

	if (v->virt)
		return nr < v->runno + ANTBUF_RUNS;
	/* the producer stores the new seq before it writes the row: the same
	 * test as antbuf_commit's, after the row's bytes were read */
	return nr < v->runno + ANTBUF_RUNS &&
	       __atomic_load_n(&antbuf_rowp(b, v->pos)->seq, __ATOMIC_ACQUIRE) == v->row;
}

void
antbuf_lose(struct antbuf_cursor *c, const struct antbuf_view *v)
{
	if (v->virt)
		return;
	c->rows--;
	c->frames -= v->nvalid;
	c->lost_rows++;
	c->lost_frames += v->nvalid;
}

int64_t
antbuf_resume_row(const struct antbuf *b)
{
	int64_t final = __atomic_load_n(&b->final_row, __ATOMIC_ACQUIRE);

	return final - (int64_t)(b->g.nrows - b->g.window) * 3 / 4;
}

void
antbuf_skip(struct antbuf_cursor *c, int64_t row)
{
	if (!c->started || row <= c->next)
		return;
	c->lost_rows += (uint64_t)(row - c->next);
	c->next = row;
	c->vdone = 0;
}

void
antbuf_settle(const struct antbuf *b, struct antbuf_cursor *c)
{
	int64_t final;
	uint64_t cum;

	if (__atomic_load_n(&b->state, __ATOMIC_ACQUIRE) != 2 || !c->started)
		return;
	final = __atomic_load_n(&b->final_row, __ATOMIC_ACQUIRE);
	cum = __atomic_load_n(&b->cum_valid, __ATOMIC_ACQUIRE);
	if (c->next >= final && c->cum_next != UINT64_MAX && cum > c->cum_next) {
		c->lost_frames += cum - c->cum_next;
		c->cum_next = cum;
	}
}
