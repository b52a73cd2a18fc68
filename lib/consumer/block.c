/* SPDX-License-Identifier: BSD-3-Clause */
/* libibvcap's time-aligned blocks: one lib/antbuf cursor per chosen
 * antenna takes the rows of frame indexes [n, n + T) of the blocks' clock,
 * their frames become views (pointers into the ring, a valid bit per
 * frame); a block is ready when every antenna has passed its end, and its
 * rows are checked for overwriting when it is released (antbuf_intact, as
 * the writers' ring-direct rows are). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codif.h"
#include "consumer.h"
#include "err.h"

/* Rows an antenna that has passed a block may be ahead of one that has not
 * before the block goes without it (a quarter of its ring: the laggard's
 * rows are then still in its ring, the leader's far from overwritten). */
static int64_t
stall_rows(const struct antbuf *b)
{
	return (int64_t)(b->g.nrows / 4);
}

static int
ant_alloc(struct ibvcap *c, struct cons_ant *ca, unsigned int a)
{
	uint32_t s;

	ca->b = c->v.b[a];
	ca->nslots = ca->b->g.nslots;
	ca->held = calloc(c->T, sizeof(*ca->held));
	ca->view = calloc(ca->nslots, sizeof(*ca->view));
	ca->ptr = calloc((size_t)ca->nslots * c->T, sizeof(*ca->ptr));
	ca->valid = calloc((size_t)ca->nslots * c->words, sizeof(uint64_t));
	ca->flagged = calloc((size_t)ca->nslots * c->words, sizeof(uint64_t));
	ca->arrival = calloc((size_t)ca->nslots * c->T, sizeof(*ca->arrival));
	ca->hdr = calloc(ca->nslots, sizeof(*ca->hdr));
	ca->dec = calloc(ca->nslots, sizeof(*ca->dec));
	if (ca->held == NULL || ca->view == NULL || ca->ptr == NULL || ca->valid == NULL ||
	    ca->flagged == NULL || ca->arrival == NULL || ca->hdr == NULL || ca->dec == NULL)
		return -ENOMEM;
	for (s = 0; s < ca->nslots; s++) {
		ca->view[s].frame = ca->ptr + (size_t)s * c->T;
		ca->view[s].valid = ca->valid + (size_t)s * c->words;
		ca->view[s].flagged = ca->flagged + (size_t)s * c->words;
		ca->view[s].arrival_ns = ca->arrival + (size_t)s * c->T;
	}
	antbuf_cursor_init(ca->b, &ca->cur, c->flags & IBVCAP_OPEN_OLDEST);
	ca->peek = INT64_MAX;
	return 0;
}

int
cons_select_alloc(struct ibvcap *c, char *err, size_t len)
{
	uint32_t most = 8;
	unsigned int a, k = 0;

	c->nants = (uint32_t)__builtin_popcountll(c->ants);
	c->ant = calloc(c->nants, sizeof(*c->ant));
	c->antno = calloc(c->nants, sizeof(*c->antno));
	c->nstr = calloc(c->nants, sizeof(*c->nstr));
	c->vp = calloc(c->nants, sizeof(*c->vp));
	if (c->ant == NULL || c->antno == NULL || c->nstr == NULL || c->vp == NULL)
		goto nomem;
	for (a = 0; a < c->v.nant; a++) {
		if (!(c->ants >> a & 1))
			continue;
		if (ant_alloc(c, &c->ant[k], a) != 0)
			goto nomem;
		c->antno[k] = a;
		c->nstr[k] = c->ant[k].nslots;
		c->vp[k] = c->ant[k].view;
		if (c->v.b[a]->g.data_bytes > most)
			most = c->v.b[a]->g.data_bytes;
		k++;
	}
	c->zero = calloc(1, most);
	if (c->zero == NULL)
		goto nomem;
	c->blk.frames = c->T;
	c->blk.nants = c->nants;
	c->blk.ant = c->antno;
	c->blk.nstreams = c->nstr;
	c->blk.view = c->vp;
	return 0;
nomem:
	cons_select_free(c);
	return err_set(err, len, -ENOMEM, "out of memory for %u antennas' views of %u frames",
		       c->nants, c->T);
}

void
cons_select_free(struct ibvcap *c)
{
	unsigned int k;

	for (k = 0; c->ant != NULL && k < c->nants; k++) {
		free(c->ant[k].held);
		free(c->ant[k].view);
		free(c->ant[k].ptr);
		free(c->ant[k].valid);
		free(c->ant[k].flagged);
		free(c->ant[k].arrival);
		if (c->ant[k].dec != NULL)
			cons_dec_free(&c->ant[k]);
		free(c->ant[k].dec);
		free(c->ant[k].hdr);
	}
	free(c->ant);
	free(c->antno);
	free(c->nstr);
	free(c->vp);
	free((void *)c->zero);
	c->ant = NULL;
	c->antno = c->nstr = NULL;
	c->vp = NULL;
	c->zero = NULL;
	c->nants = 0;
}

/* A new block [n, n + T): nothing taken, every frame absent. */
static void
block_begin(struct ibvcap *c)
{
	unsigned int k;
	uint32_t s, i;

	for (k = 0; k < c->nants; k++) {
		struct cons_ant *ca = &c->ant[k];

		ca->nheld = 0;
		ca->reached = INT64_MIN;
		memset(ca->valid, 0, (size_t)ca->nslots * c->words * sizeof(uint64_t));
		memset(ca->flagged, 0, (size_t)ca->nslots * c->words * sizeof(uint64_t));
		memset(ca->arrival, 0, (size_t)ca->nslots * c->T * sizeof(int64_t));
		for (i = 0; i < ca->nslots * c->T; i++)
			ca->ptr[i] = c->zero;
		for (s = 0; s < ca->nslots; s++) {
			ca->view[s].data = NULL;
			ca->view[s].stride = 0;
			ca->view[s].data_bytes = 0;
			ca->view[s].nvalid = 0;
			ca->view[s].samples = 0;
			ca->view[s].nchan = 0;
			ca->view[s].nbits = 0;
			ca->view[s].complex = 0;
		}
	}
	c->building = true;
}

/* A view's stream parameters, from its run's first header ref (kept in
 * hdr for ibvcap_decode). */
static void
view_params(struct ibvcap_view *w, uint8_t *hdr, const uint8_t *ref)
{
	struct codif_hdr h;

	memcpy(hdr, ref, CODIF_HDR_LEN);
	w->data_bytes = antbuf_hdr_data_bytes(ref);
	if (codif_decode(ref, CODIF_HDR_LEN, &h, NULL, 0) != 0)
		return;
	w->samples = (uint32_t)codif_samples_per_frame(&h);
	w->nchan = h.nchan;
	w->nbits = h.nbits;
	w->complex = h.complex;
}

/* Row v (taken, at frame i of the block) into the antenna's views. */
static void
row_put(struct cons_ant *ca, const struct antbuf_view *v, uint32_t i, uint32_t T)
{
	uint32_t s;

	for (s = 0; s < ca->nslots; s++) {
		const struct antbuf_meta *m = antbuf_metap(ca->b, v->pos, s);
		uint8_t f = m->flags;
		struct ibvcap_view *w = &ca->view[s];

		ca->ptr[(size_t)s * T + i] = antbuf_payload_of(ca->b, ca->payload, v->pos, s);
		if (w->data_bytes == 0 && antbuf_slot_started(v->run, s, v->index))
			view_params(w, ca->hdr[s], v->run->ref[s]);
		if (f & ANTBUF_F_VALID) {
			ca->arrival[(size_t)s * T + i] = m->arrival_ns;
			ca->valid[(size_t)s * ((T + 63) / 64) + i / 64] |= 1ULL << (i % 64);
			w->nvalid++;
			if (f & ANTBUF_F_INVALID)
				ca->flagged[(size_t)s * ((T + 63) / 64) + i / 64] |= 1ULL << (i % 64);
		}
	}
}

/* A consumer the ring overran resumes where the writers do
 * (antbuf_resume_row): from the oldest row itself, one slower than a few
 * rows a block would find every block overwritten while it held it and
 * lose every frame from then on. The rows passed over count as overrun,
 * exactly (the producer's running total, at the next row taken).
 * @return true: moved on (read the next row). */
static bool
catch_up(struct cons_ant *ca, const struct antbuf_view *v)
{
	int64_t to;

	if (v->lost_rows == 0 || (to = antbuf_resume_row(ca->b)) <= v->row)
		return false;
	antbuf_skip(&ca->cur, to);
	return true;
}

/* Take antenna ca's final rows of the block [n, n + T): rows before n (or
 * on no clock of ours) are passed over and counted; a row at or after the
 * block's end stays, its index in peek; a row on another clock stays too
 * (the antenna's frames on our clock are over: runs come in order). */
static void
ant_fill(struct ibvcap *c, struct cons_ant *ca)
{
	int64_t end = c->n + c->T;
	struct antbuf_view v;

	while (ca->reached < end) {
		if (antbuf_next(ca->b, &ca->cur, &v) == 0) {
			ca->peek = INT64_MAX;
			ca->other = false;
			return;
		}
		if (catch_up(ca, &v))
			continue;
		ca->peek = v.index;
		ca->other = !codif_clock_equal(&v.run->clk, &c->clk);
		if (ca->other || v.index >= end)
			return;
		if (v.index < c->n) {
			if (antbuf_commit(ca->b, &ca->cur, &v))
				c->st.skipped += v.nvalid;
			continue;
		}
		if (antbuf_commit(ca->b, &ca->cur, &v) && !v.virt) {
			row_put(ca, &v, (uint32_t)(v.index - c->n), c->T);
			ca->held[ca->nheld++] = v;
		}
		ca->reached = v.index + 1;
	}
}

/* Whether antenna ca has passed the block: taken its last row, or its next
 * row is after it or on another clock. */
static bool
ant_done(const struct ibvcap *c, const struct cons_ant *ca)
{
	return ca->reached >= c->n + c->T ||
	       (ca->peek != INT64_MAX && (ca->other || ca->peek >= c->n + c->T));
}

/* Whether the block being built holds nothing of any antenna yet. */
static bool
block_empty(const struct ibvcap *c)
{
	unsigned int k;

	for (k = 0; k < c->nants; k++)
		if (c->ant[k].nheld != 0 || c->ant[k].reached != INT64_MIN)
			return false;
	return true;
}

/* The index of the first frame at or after row v: rows of a run before
 * its first frame are empty (room for late frames). */
static int64_t
first_frame_index(const struct antbuf_view *v)
{
	int64_t first = INT64_MAX;
	unsigned int s;

	for (s = 0; s < ANTBUF_MAX_SLOTS; s++) {
		int64_t f = __atomic_load_n(&v->run->first[s], __ATOMIC_ACQUIRE);

		if (f < first)
			first = f;
	}
	if (v->virt || first == INT64_MAX || first - v->run->delta <= v->index)
		return v->index;
	return first - v->run->delta;
}

/* The clock and the block grid to start on (or after a clock change): the
 * first chosen antenna's clock with a row, and the block of the grid of
 * multiples of T holding the antennas' lowest first frame on it (blocks of
 * one T are the same frames for every consumer). @return false: no row. */
static bool
anchor(struct ibvcap *c)
{
	struct antbuf_view v;
	bool have = false;
	unsigned int k;
	int64_t lo = INT64_MAX, q;

	for (k = 0; k < c->nants; k++) {
		struct cons_ant *ca = &c->ant[k];

		if (antbuf_next(ca->b, &ca->cur, &v) == 0)
			continue;
		if (!have) {
			c->clk = v.run->clk;
			have = true;
		}
		if (codif_clock_equal(&v.run->clk, &c->clk) && first_frame_index(&v) < lo)
			lo = first_frame_index(&v);
	}
	if (!have)
		return false;
	q = lo / (int64_t)c->T;
	if (lo % (int64_t)c->T < 0)
		q--;
	c->n = q * (int64_t)c->T;
	return true;
}

int
cons_scans_attach(struct ibvcap *c, char *err, size_t len)
{
	struct shm_writer *w = &c->v.ctl->writer[c->reg];

	w->record = SHM_RECORD_ALWAYS;
	if (!(c->flags & IBVCAP_OPEN_SCANS) || c->v.sched == NULL)
		return 0;
	if (c->v.sched_len != sizeof(struct wr_sched))
		return err_set(err, len, -EPROTO, "instance '%s': its schedule of scans is %zu "
			       "bytes, this library expects %zu: the same dpdk-ibvcap build",
			       c->v.instance, c->v.sched_len, sizeof(struct wr_sched));
	if (c->reg >= WR_SCHED_DUMP_SLOTS)
		return err_set(err, len, -ENOSPC, "instance '%s': registry entry %d has no bit in "
			       "the schedule of scans", c->v.instance, c->reg);
	c->snap = calloc(1, sizeof(*c->snap));
	if (c->snap == NULL)
		return err_set(err, len, -ENOMEM, "out of memory for the schedule of scans");
	c->sched = c->v.sched;
	c->sched_bit = WR_SCHED_DUMP_BASE + (unsigned int)c->reg;
	w->record = SHM_RECORD_FOLLOW;
	return 0;
}

/* Whether every chosen antenna has a final row, or one is a quarter ring
 * ahead (the others silent), or the capture stopped: time to anchor. */
static bool
anchor_ready(struct ibvcap *c, bool stopped)
{
	struct antbuf_view v;
	unsigned int k, have = 0;
	bool far = false;

	for (k = 0; k < c->nants; k++) {
		struct cons_ant *ca = &c->ant[k];

		if (antbuf_next(ca->b, &ca->cur, &v) == 0)
			continue;
		have++;
		if (antbuf_backlog(ca->b, &ca->cur) >= stall_rows(ca->b))
			far = true;
	}
	return have == c->nants || (have > 0 && (far || stopped));
}

/* IBVCAP_OPEN_SCANS: frames of the block outside this consumer's scans
 * lose their valid bits (counted outside); the block's scan is its first
 * in-scan frame's. @return whether any frame position is in a scan (always
 * true when not following scans). */
static bool
scans_apply(struct ibvcap *c)
{
	uint32_t k, s, i, w = c->words;
	bool any = false;

	c->blk.scan = 0;
	c->outside_slots = 0;
	if (c->sched == NULL)
		return true;
	wr_sched_snapshot(c->sched, c->snap, &c->snap_seen);
	for (k = 0; k < c->nants; k++) {
		struct cons_ant *ca = &c->ant[k];

		for (i = 0; i < c->T; i++) {
			const struct wr_scan *sc;
			uint32_t id = wr_sched_lookup(c->snap, c->sched_bit, c->antno[k],
						     codif_clock_time_ns(&c->clk, c->n + i), &sc);

			if (id != WR_ROW_SKIP) {
				any = true;
				if (c->blk.scan == 0 && id != WR_ROW_FREE)
					c->blk.scan = id;
				continue;
			}
			for (s = 0; s < ca->nslots; s++) {
				uint64_t bit = 1ULL << (i % 64);

				if (ca->view[s].data_bytes != 0)
					c->outside_slots++;
				if (!(ca->valid[(size_t)s * w + i / 64] & bit))
					continue;
				ca->valid[(size_t)s * w + i / 64] &= ~bit;
				ca->flagged[(size_t)s * w + i / 64] &= ~bit;
				ca->arrival[(size_t)s * c->T + i] = 0;
				ca->view[s].nvalid--;
				c->st.outside++;
			}
		}
	}
	return any;
}

/* The block is complete: the views' strides, its figures. */
static void
block_finish(struct ibvcap *c, bool partial)
{
	uint64_t lost = 0;
	unsigned int k;
	uint32_t s, i;

	for (k = 0; k < c->nants; k++) {
		struct cons_ant *ca = &c->ant[k];
		size_t stride = (size_t)ca->nslots * ca->b->g.data_bytes;

		lost += ca->cur.lost_frames - ca->lost_seen;
		ca->lost_seen = ca->cur.lost_frames;
		for (s = 0; s < ca->nslots; s++) {
			const uint8_t *const *p = ca->view[s].frame;
			bool even = !ca->b->payload_indexed && p[0] != c->zero;

			for (i = 1; even && i < c->T; i++)
				even = p[i] == p[0] + i * stride;
			ca->view[s].data = even ? p[0] : NULL;
			ca->view[s].stride = even ? stride : 0;
		}
	}
	c->blk.index = c->n;
	c->blk.time_ns = codif_clock_time_ns(&c->clk, c->n);
	lost += c->carry_overrun; /* of blocks outside every scan, not handed out */
	c->carry_overrun = 0;
	c->blk.overrun = lost;
	c->blk.flags = (lost ? IBVCAP_BLOCK_OVERRUN : 0) | (partial ? IBVCAP_BLOCK_PARTIAL : 0) |
		       (c->jumped ? IBVCAP_BLOCK_FIRST : 0);
	c->jumped = false;
	c->building = false;
	c->n += c->T;
}

static void
settle(struct ibvcap *c)
{
	unsigned int k;

	c->st.overrun = 0;
	for (k = 0; k < c->nants; k++) {
		antbuf_settle(c->ant[k].b, &c->ant[k].cur);
		c->st.overrun += c->ant[k].cur.lost_frames;
	}
}

/* After an overrun took every row of the block: on to the block of the
 * grid holding the antennas' lowest next row. @return true moved. */
static bool
jump_empty(struct ibvcap *c)
{
	int64_t lo = INT64_MAX;
	unsigned int k;

	for (k = 0; k < c->nants; k++) {
		if (c->ant[k].other)
			return false;
		if (c->ant[k].peek < lo) /* INT64_MAX: none (the capture stopped) */
			lo = c->ant[k].peek;
	}
	if (lo == INT64_MAX || lo < c->n + c->T)
		return false;
	c->n += (lo - c->n) / c->T * c->T;
	c->jumped = true;
	return true;
}

/* Every antenna has moved to another clock with nothing of the block
 * taken: start again on the new clock. */
static bool
clock_changed(struct ibvcap *c)
{
	unsigned int k;

	for (k = 0; k < c->nants; k++)
		if (!c->ant[k].other)
			return false;
	c->jumped = true;
	return anchor(c);
}

/* The block built: finished and handed out (0), or, following scans with
 * none of its frames in one, finished and dropped (-EAGAIN: build the
 * next). */
static int
deliver(struct ibvcap *c, bool partial)
{
	bool any = scans_apply(c);

	block_finish(c, partial);
	if (any)
		return 0;
	c->carry_overrun = c->blk.overrun;
	return -EAGAIN;
}

int
cons_block_try(struct ibvcap *c)
{
	bool stopped = __atomic_load_n(&c->v.ctl->state, __ATOMIC_ACQUIRE) == SHM_STOPPED;
	unsigned int k, done, far, exhausted;
	bool partial;

	if (!c->started) {
		if (!anchor_ready(c, stopped) || !anchor(c)) {
			if (stopped) {
				settle(c);
				return -ENODATA;
			}
			return -EAGAIN;
		}
		c->started = c->jumped = true;
	}
	for (;;) {
		if (!c->building)
			block_begin(c);
		done = far = exhausted = 0;
		for (k = 0; k < c->nants; k++) {
			struct cons_ant *ca = &c->ant[k];

			ant_fill(c, ca);
			if (ant_done(c, ca)) {
				done++;
				if (antbuf_backlog(ca->b, &ca->cur) >= stall_rows(ca->b))
					far++;
			} else if (ca->peek == INT64_MAX) {
				exhausted++;
			}
		}
		if (block_empty(c) && (done == c->nants || (stopped && done + exhausted == c->nants)) &&
		    (jump_empty(c) || clock_changed(c))) {
			c->building = false;
			continue;
		}
		if (done == c->nants) {
			partial = false;
		} else if (stopped && done + exhausted == c->nants) {
			if (block_empty(c)) {
				settle(c);
				return -ENODATA;
			}
			partial = true;
		} else if (far > 0) {
			partial = true;
		} else {
			return -EAGAIN;
		}
		if (deliver(c, partial) == 0)
			return 0;
		/* outside every scan: on to the next block */
	}
}

/* Clear row v's valid bits (at block frame i) in the antenna's views. */
static void
row_clear(struct cons_ant *ca, uint32_t i, uint32_t T)
{
	uint32_t s, w = (T + 63) / 64;

	for (s = 0; s < ca->nslots; s++) {
		uint64_t bit = 1ULL << (i % 64);

		if (ca->valid[(size_t)s * w + i / 64] & bit)
			ca->view[s].nvalid--;
		ca->valid[(size_t)s * w + i / 64] &= ~bit;
		ca->arrival[(size_t)s * T + i] = 0;
		ca->flagged[(size_t)s * w + i / 64] &= ~bit;
	}
}

int
cons_block_check(struct ibvcap *c)
{
	uint64_t torn = 0;
	unsigned int k;
	uint32_t j;

	for (k = 0; k < c->nants; k++) {
		struct cons_ant *ca = &c->ant[k];

		for (j = 0; j < ca->nheld; j++) {
			struct antbuf_view *v = &ca->held[j];

			if (v->virt || antbuf_intact(ca->b, v))
				continue;
			antbuf_lose(&ca->cur, v);
			torn += v->nvalid;
			row_clear(ca, (uint32_t)(v->index - c->blk.index), c->T);
			v->virt = true; /* counted: not again */
		}
	}
	c->torn_held += torn;
	return torn > 0 ? (int)(torn > INT32_MAX ? INT32_MAX : torn) : 0;
}

int
cons_block_release(struct ibvcap *c, bool checked)
{
	uint64_t valid = 0, invalid = 0, bytes = 0, torn;
	unsigned int k;
	uint32_t s;

	/* a block checked (ibvcap_check) was read before that check */
	if (!checked)
		cons_block_check(c);
	torn = c->torn_held;
	c->torn_held = 0;
	for (k = 0; k < c->nants; k++) {
		struct cons_ant *ca = &c->ant[k];

		for (s = 0; s < ca->nslots; s++) {
			const struct ibvcap_view *w = &ca->view[s];

			valid += w->nvalid;
			bytes += (uint64_t)w->nvalid * w->data_bytes;
			if (w->data_bytes != 0)
				invalid += c->T - w->nvalid;
		}
	}
	c->st.blocks++;
	c->st.frames += valid;
	c->st.invalid += invalid - c->outside_slots;
	c->st.bytes += bytes;
	c->st.torn += torn;
	c->st.torn_blocks += torn != 0;
	c->st.overrun = 0;
	for (k = 0; k < c->nants; k++)
		c->st.overrun += c->ant[k].cur.lost_frames;
	c->blk.seq++;
	return torn > 0 ? (int)(torn > INT32_MAX ? INT32_MAX : torn) : 0;
}

/* CLOCK_REALTIME in ns: the registry's heartbeats are Unix ns. */
static int64_t
cons_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void
cons_publish(struct ibvcap *c)
{
	struct shm_writer *w;
	uint64_t lag = 0, lag_ns = 0;
	unsigned int k;

	if (c->reg < 0)
		return;
	w = &c->v.ctl->writer[c->reg];
	for (k = 0; k < c->nants; k++) {
		uint64_t r, ns;

		antbuf_lag(c->ant[k].b, &c->ant[k].cur, &r, &ns);
		if (r > lag) {
			lag = r;
			lag_ns = ns;
		}
	}
	/* plain stores of aligned words: the primary reads each whole */
	w->written = c->st.frames;
	w->placeholders = c->st.invalid;
	w->overrun = c->st.overrun;
	w->bytes = c->st.bytes;
	w->lag_frames = lag;
	w->lag_ns = lag_ns;
	w->ants = c->ants;
	__atomic_store_n(&w->heartbeat_ns, cons_now_ns(), __ATOMIC_RELEASE);
}

int
cons_stream_info(const struct ibvcap *c, unsigned int a, unsigned int s,
		 struct ibvcap_stream *out)
{
	const struct antbuf *b;
	const struct antbuf_slot *sl;
	const struct antbuf_run *run;
	struct codif_hdr h;
	uint32_t nruns;

	if (a >= c->v.nant || s >= c->v.b[a]->g.nslots)
		return -EINVAL;
	b = c->v.b[a];
	sl = &b->slot[s];
	memset(out, 0, sizeof(*out));
	if (!__atomic_load_n(&sl->assigned, __ATOMIC_ACQUIRE))
		return 0;
	out->dst_ip = sl->dst_ip;
	out->dport = sl->dport;
	out->stationid = sl->stationid;
	out->groupid = sl->groupid;
	out->secondaryid = sl->secondaryid;
	out->threadid = sl->threadid;
	nruns = __atomic_load_n(&b->nruns, __ATOMIC_ACQUIRE);
	if (nruns == 0)
		return 0;
	run = &b->run[(nruns - 1) % ANTBUF_RUNS];
	if (__atomic_load_n(&run->first[s], __ATOMIC_ACQUIRE) == INT64_MAX ||
	    codif_decode(run->ref[s], CODIF_HDR_LEN, &h, NULL, 0) != 0)
		return 0;
	out->started = 1;
	out->nchan = h.nchan;
	out->nbits = h.nbits;
	out->complex = h.complex;
	out->data_bytes = (uint32_t)codif_data_bytes(&h);
	out->samples = codif_samples_per_frame(&h);
	out->frame_ns_num = run->clk.period_ns;
	out->frame_ns_den = run->clk.fpp;
	return 0;
}
