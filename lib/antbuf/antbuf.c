/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-antenna frame buffer: layout, placement by frame index, consumer cursors. */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "antbuf.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))
#define FAR_RUN_RESYNC 16

static int
errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && len > 0) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static size_t
hdr_size(void)
{
	return ALIGN_UP(sizeof(struct antbuf), 64);
}

size_t
antbuf_payload_size(const struct antbuf_geom *g)
{
	return (size_t)g->nrows * g->nslots * g->data_bytes;
}

static void
layout(const struct antbuf_geom *g, bool inline_payload, uint64_t *rows,
       uint64_t *meta, uint64_t *payload, uint64_t *total)
{
	uint64_t o = hdr_size();

	*rows = o;
	o = ALIGN_UP(o + (uint64_t)g->nrows * sizeof(struct antbuf_row), 64);
	*meta = o;
	o = ALIGN_UP(o + (uint64_t)g->nrows * g->nslots * sizeof(struct antbuf_meta),
		     ANTBUF_PAGE);
	/* payload slots: one contiguous page-aligned array (O_DIRECT, GPU) */
	*payload = inline_payload ? o : 0;
	if (inline_payload)
		o = ALIGN_UP(o + antbuf_payload_size(g), ANTBUF_PAGE);
	*total = o;
}

size_t
antbuf_size(const struct antbuf_geom *g, bool payload_inline)
{
	uint64_t r, m, p, t;

	layout(g, payload_inline, &r, &m, &p, &t);
	return (size_t)t;
}

int
antbuf_geom_check(const struct antbuf_geom *g, char *err, size_t len)
{
	if (g->nslots < 1 || g->nslots > ANTBUF_MAX_SLOTS)
		return errf(err, len, "%u streams per antenna (groups x threads), expected 1..%d",
			    g->nslots, ANTBUF_MAX_SLOTS);
	if (g->nrows < 2 || (g->nrows & (g->nrows - 1)) != 0)
		return errf(err, len, "ring of %u frames, expected a power of two >= 2",
			    g->nrows);
	if (g->window < 1 || (uint64_t)g->window * 2 > g->nrows)
		return errf(err, len,
			    "window of %u frames, expected 1..%u (at most half the ring of %u)",
			    g->window, g->nrows / 2, g->nrows);
	if (g->data_bytes < 8 || g->data_bytes > 65536 || g->data_bytes % 8 != 0)
		return errf(err, len, "%u data bytes per frame, expected 8..65536, a multiple of 8",
			    g->data_bytes);
	return 0;
}

int
antbuf_init(void *mem, size_t size, const struct antbuf_geom *g,
	    bool payload_inline, unsigned int index, const char *name,
	    uint32_t src_ip)
{
	struct antbuf *b = mem;
	uint64_t r, m, p, t, i;

	if (antbuf_geom_check(g, NULL, 0) != 0)
		return -EINVAL;
	layout(g, payload_inline, &r, &m, &p, &t);
	if (size < t)
		return -ENOSPC;
	memset(b, 0, hdr_size());
	b->magic = ANTBUF_MAGIC;
	b->version = ANTBUF_VERSION;
	b->hdr_size = (uint32_t)sizeof(*b);
	b->index = index;
	b->g = *g;
	b->total_size = t;
	b->rows_off = r;
	b->meta_off = m;
	b->payload_off = p;
	b->payload_size = antbuf_payload_size(g);
	b->payload_external = payload_inline ? 0 : 1;
	b->src_ip = src_ip;
	snprintf(b->name, sizeof(b->name), "%s", name != NULL ? name : "");
	b->first_row = -1;
	b->newest = -1;
	b->final_row = 0;
	for (i = 0; i < g->nrows; i++) {
		struct antbuf_row *row = (struct antbuf_row *)((uintptr_t)b + r) + i;

		row->seq = -1;
		row->cum_before = 0;
		row->nvalid = 0;
	}
	memset((uint8_t *)b + m, 0, (size_t)g->nrows * g->nslots * sizeof(struct antbuf_meta));
	__atomic_store_n(&b->state, 1, __ATOMIC_RELEASE);
	return 0;
}

int
antbuf_check(const struct antbuf *b, size_t size, char *err, size_t len)
{
	uint64_t r, m, p, t;

	if (size < sizeof(*b))
		return errf(err, len, "buffer of %zu bytes is smaller than its header (%zu)",
			    size, sizeof(*b));
	if (b->magic != ANTBUF_MAGIC)
		return errf(err, len, "magic 0x%08x, expected 0x%08x (not an antenna buffer)",
			    b->magic, ANTBUF_MAGIC);
	if (b->version != ANTBUF_VERSION || b->hdr_size != sizeof(*b))
		return errf(err, len,
			    "buffer version %u (header %u bytes), this program reads version %d "
			    "(header %zu bytes): use the same dpdk-ibvcap build for primary and writers",
			    b->version, b->hdr_size, ANTBUF_VERSION, sizeof(*b));
	if (antbuf_geom_check(&b->g, err, len) != 0)
		return -EINVAL;
	layout(&b->g, !b->payload_external, &r, &m, &p, &t);
	if (r != b->rows_off || m != b->meta_off || p != b->payload_off ||
	    t != b->total_size || t > size)
		return errf(err, len, "buffer layout inconsistent (size %zu, expected %llu)",
			    size, (unsigned long long)t);
	return 0;
}

const char *
antbuf_result_name(enum antbuf_result r)
{
	static const char *const names[ANTBUF__RESULTS] = {
		[ANTBUF_PLACED] = "placed",
		[ANTBUF_DUPLICATE] = "duplicate",
		[ANTBUF_TOO_LATE] = "too-late",
		[ANTBUF_TOO_FAR] = "too-far-ahead",
		[ANTBUF_NO_SLOT] = "no-slot",
		[ANTBUF_BAD_SIZE] = "wrong-size",
		[ANTBUF_BAD_TIME] = "wrong-timing",
	};

	return (unsigned int)r < ANTBUF__RESULTS ? names[r] : "?";
}

/* ---- producer ----------------------------------------------------------- */

/* The producer's ring position of row r (rows of the current run). */
static inline uint32_t
ppos(const struct antbuf *b, int64_t r)
{
	return (uint32_t)((uint64_t)(r + b->ring_off) & (b->g.nrows - 1));
}

static inline void
lock(struct antbuf *b)
{
	while (__atomic_exchange_n(&b->lock, 1, __ATOMIC_ACQUIRE) != 0)
		while (__atomic_load_n(&b->lock, __ATOMIC_RELAXED) != 0)
			__builtin_ia32_pause();
}

static inline void
unlock(struct antbuf *b)
{
	__atomic_store_n(&b->lock, 0, __ATOMIC_RELEASE);
}

/* Final: missing frames of assigned slots zeroed and flagged, counts set. */
static void
finalize_row(struct antbuf *b, uint8_t *payload, int64_t r)
{
	uint32_t pos = ppos(b, r), s, nvalid = 0;
	struct antbuf_row *row = antbuf_rowp(b, pos);

	if (row->seq != r)
		return; /* never opened (before the first row) */
	for (s = 0; s < b->g.nslots; s++) {
		struct antbuf_meta *m = antbuf_metap(b, pos, s);

		if (m->flags & ANTBUF_F_VALID) {
			nvalid++;
		} else if (b->slot[s].assigned) {
			if (b->payload_indexed)
				m->ext_off = b->zero_off; /* the shared zero frame */
			else
				memset(antbuf_payload(b, payload, pos, s), 0, b->g.data_bytes);
			m->flags = ANTBUF_F_GAP;
			b->zero_filled++;
		}
	}
	row->nvalid = nvalid;
	row->cum_before = b->cum_valid;
	b->cum_valid += nvalid;
}

static void
finalize_upto(struct antbuf *b, uint8_t *payload, int64_t upto)
{
	int64_t r;

	if (upto <= b->final_row)
		return;
	for (r = b->final_row; r < upto; r++)
		finalize_row(b, payload, r);
	__atomic_store_n(&b->final_row, upto, __ATOMIC_RELEASE);
}

static void
open_row(struct antbuf *b, int64_t r)
{
	uint32_t pos = ppos(b, r), s;
	struct antbuf_row *row = antbuf_rowp(b, pos);

	/* the new seq first: a consumer still reading the old row sees it
	 * changed when it re-checks, and drops what it read */
	__atomic_store_n(&row->seq, r, __ATOMIC_RELEASE);
	row->nvalid = 0;
	for (s = 0; s < b->g.nslots; s++) {
		struct antbuf_meta *m = antbuf_metap(b, pos, s);

		/* indexed: what held the old frame's payload goes back */
		if (b->refs != NULL) {
			uintptr_t *ref = &b->refs[(uint64_t)pos * b->g.nslots + s];

			if (*ref != 0)
				b->release(b->release_ctx, *ref);
			*ref = 0;
		}
		m->flags = 0;
	}
}

void
antbuf_set_indexed(struct antbuf *b, uint64_t zero_off, uintptr_t *refs,
		   void (*release)(void *ctx, uintptr_t ref), void *ctx)
{
	b->payload_external = 1;
	b->payload_indexed = 1;
	b->zero_off = zero_off;
	b->refs = refs;
	b->release = release;
	b->release_ctx = ctx;
}

unsigned int
antbuf_release_all(struct antbuf *b)
{
	uint64_t i, n = (uint64_t)b->g.nrows * b->g.nslots;
	unsigned int k = 0;

	if (b->refs == NULL)
		return 0;
	lock(b);
	for (i = 0; i < n; i++)
		if (b->refs[i] != 0) {
			b->release(b->release_ctx, b->refs[i]);
			b->refs[i] = 0;
			k++;
		}
	unlock(b);
	return k;
}

static enum antbuf_result
row_of(struct antbuf *b, const struct codif_hdr *h, int64_t *n)
{
	int64_t ds;

	if (!b->origin_set) {
		b->seconds0 = h->seconds;
		b->period = h->period;
		b->epoch = h->epoch;
		b->fpp = codif_frames_per_period(h);
		if (b->fpp == 0 || b->period == 0)
			return ANTBUF_BAD_TIME;
		b->origin_set = 1;
	} else if (h->period != b->period || h->epoch != b->epoch ||
		   codif_frames_per_period(h) != b->fpp) {
		return ANTBUF_BAD_TIME;
	}
	ds = (int64_t)h->seconds - (int64_t)b->seconds0;
	if (ds % b->period != 0)
		return ANTBUF_BAD_TIME;
	*n = ds / b->period * (int64_t)b->fpp + h->frame;
	return ANTBUF_PLACED;
}

static void
jump_to(struct antbuf *b, uint8_t *payload, int64_t n)
{
	struct antbuf_jump *j;

	finalize_upto(b, payload, b->newest + 1);
	j = &b->jump[b->njumps % ANTBUF_JUMPS];
	j->from = b->newest + 1;
	j->to = n;
	/* row n takes the position after the old newest row's */
	b->ring_off = (int64_t)((uint64_t)(b->newest + 1 + b->ring_off - n) &
				(b->g.nrows - 1));
	j->off = b->ring_off;
	__atomic_store_n(&b->njumps, b->njumps + 1, __ATOMIC_RELEASE);
	b->newest = n - 1;
	__atomic_store_n(&b->final_row, n, __ATOMIC_RELEASE);
}

static enum antbuf_result
place(struct antbuf *b, uint8_t *payload, unsigned int slot,
      const struct codif_hdr *h, const uint8_t *codif, const uint8_t *data,
      uint64_t ext_off, uintptr_t ref, uint32_t data_len, const uint8_t *l2, uint32_t l2len,
      uint32_t wirelen, int64_t arrival_ns, uint32_t dst_ip, uint16_t dport)
{
	enum antbuf_result res;
	struct antbuf_meta *m;
	int64_t n;

	if (slot >= b->g.nslots) {
		__atomic_fetch_add(&b->result[ANTBUF_NO_SLOT], 1, __ATOMIC_RELAXED);
		return ANTBUF_NO_SLOT;
	}
	if (data_len != b->g.data_bytes) {
		__atomic_fetch_add(&b->result[ANTBUF_BAD_SIZE], 1, __ATOMIC_RELAXED);
		return ANTBUF_BAD_SIZE;
	}
	lock(b);
	res = row_of(b, h, &n);
	if (res != ANTBUF_PLACED)
		goto out;
	if (b->first_row < 0) {
		b->first_row = n;
		b->newest = n - 1;
		__atomic_store_n(&b->final_row, n, __ATOMIC_RELEASE);
	}
	if (n > b->newest) {
		int64_t r;

		if (n - b->newest > (int64_t)(b->g.nrows - b->g.window)) {
			/* one stray frame far ahead must not wipe the ring; a
			 * run of them means the antenna really moved on */
			if (++b->far_run < FAR_RUN_RESYNC) {
				res = ANTBUF_TOO_FAR;
				goto out;
			}
			jump_to(b, payload, n);
		}
		b->far_run = 0;
		for (r = b->newest + 1; r <= n; r++) {
			finalize_upto(b, payload, r - (int64_t)b->g.window + 1);
			open_row(b, r);
		}
		b->newest = n;
	} else {
		b->far_run = 0;
	}
	if (n < b->final_row) {
		res = ANTBUF_TOO_LATE;
		goto out;
	}
	m = antbuf_metap(b, ppos(b, n), slot);
	if (m->flags & ANTBUF_F_VALID) {
		res = ANTBUF_DUPLICATE;
		goto out;
	}
	if (data != NULL)
		/* the one touch of the payload on the rx path */
		memcpy(antbuf_payload(b, payload, ppos(b, n), slot), data, data_len);
	else {
		m->ext_off = ext_off; /* where the NIC put it */
		b->refs[(uint64_t)ppos(b, n) * b->g.nslots + slot] = ref;
	}
	memcpy(m->codif, codif, CODIF_HDR_LEN);
	if (l2len > ANTBUF_L2_MAX)
		l2len = ANTBUF_L2_MAX;
	memcpy(m->l2, l2, l2len);
	m->l2len = (uint8_t)l2len;
	m->wirelen = (uint16_t)(wirelen > UINT16_MAX ? UINT16_MAX : wirelen);
	m->arrival_ns = arrival_ns;
	m->flags = ANTBUF_F_VALID | (h->invalid ? ANTBUF_F_INVALID : 0) |
		   (n < b->newest ? ANTBUF_F_LATE : 0);
	b->placed++;
	if (n < b->newest)
		b->late_placed++;
	if (!b->slot[slot].assigned) {
		struct antbuf_slot *sl = &b->slot[slot];

		sl->dst_ip = dst_ip;
		sl->dport = dport;
		sl->stationid = h->stationid;
		sl->groupid = h->groupid;
		sl->secondaryid = h->secondaryid;
		sl->threadid = h->threadid;
		memcpy(sl->ref, codif, CODIF_HDR_LEN);
		memcpy(sl->l2, l2, l2len);
		sl->l2len = (uint8_t)l2len;
		__atomic_store_n(&sl->assigned, 1, __ATOMIC_RELEASE);
	}
out:
	if (res != ANTBUF_PLACED)
		b->result[res]++;
	unlock(b);
	return res;
}

enum antbuf_result
antbuf_place(struct antbuf *b, uint8_t *payload, unsigned int slot,
	     const struct codif_hdr *h, const uint8_t *codif, const uint8_t *data,
	     uint32_t data_len, const uint8_t *l2, uint32_t l2len, uint32_t wirelen,
	     int64_t arrival_ns, uint32_t dst_ip, uint16_t dport)
{
	if (b->payload_indexed) {
		b->result[ANTBUF_BAD_SIZE]++;
		return ANTBUF_BAD_SIZE; /* an indexed buffer takes references */
	}
	return place(b, payload, slot, h, codif, data, 0, 0, data_len, l2, l2len, wirelen,
		     arrival_ns, dst_ip, dport);
}

enum antbuf_result
antbuf_place_ref(struct antbuf *b, unsigned int slot, const struct codif_hdr *h,
		 const uint8_t *codif, uint64_t ext_off, uintptr_t ref, uint32_t data_len,
		 const uint8_t *l2, uint32_t l2len, uint32_t wirelen, int64_t arrival_ns,
		 uint32_t dst_ip, uint16_t dport)
{
	if (!b->payload_indexed || b->refs == NULL || ref == 0) {
		b->result[ANTBUF_BAD_SIZE]++;
		return ANTBUF_BAD_SIZE;
	}
	return place(b, NULL, slot, h, codif, NULL, ext_off, ref, data_len, l2, l2len, wirelen,
		     arrival_ns, dst_ip, dport);
}

void
antbuf_flush(struct antbuf *b, uint8_t *payload)
{
	lock(b);
	if (b->first_row >= 0)
		finalize_upto(b, payload, b->newest + 1);
	__atomic_store_n(&b->state, 2, __ATOMIC_RELEASE);
	unlock(b);
}

/* ---- consumers ---------------------------------------------------------- */

/* A consumer's ring position of row r: the offset of r's run (the latest
 * jump at or before r; 0 before any). -1 when that jump is out of the
 * history (the row is long gone). */
static int64_t
cpos(const struct antbuf *b, int64_t r, uint32_t nj)
{
	int64_t off = 0, best = INT64_MIN;
	uint32_t k, lo = nj > ANTBUF_JUMPS ? nj - ANTBUF_JUMPS : 0;

	for (k = lo; k < nj; k++) {
		const struct antbuf_jump *j = &b->jump[k % ANTBUF_JUMPS];

		if (j->to <= r && j->to > best) {
			best = j->to;
			off = j->off;
		}
	}
	if (best == INT64_MIN && lo > 0)
		return -1;
	return (int64_t)((uint64_t)(r + off) & (b->g.nrows - 1));
}

static int64_t
oldest_safe(const struct antbuf *b, int64_t final)
{
	int64_t o = final + (int64_t)b->g.window - (int64_t)b->g.nrows;

	return o > b->first_row ? o : b->first_row;
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

int
antbuf_next(const struct antbuf *b, struct antbuf_cursor *c,
	    struct antbuf_view *v)
{
	int64_t final, first, safe;
	uint32_t nj, k;

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
		} else if (final > first && cpos(b, final - 1, b->njumps) >= 0) {
			/* at the live end: the running total after the last
			 * final row, from that row (consistent with final) */
			const struct antbuf_row *lr =
				antbuf_rowp(b, (uint32_t)cpos(b, final - 1, b->njumps));

			c->cum_next = lr->cum_before + lr->nvalid;
		} else {
			c->cum_next = 0; /* nothing final yet */
		}
		c->started = true;
	}
	for (;;) {
		struct antbuf_row *row;
		int64_t seq, limit, pos;

		final = __atomic_load_n(&b->final_row, __ATOMIC_ACQUIRE);
		if (c->next >= final)
			return 0;
		/* rows the producer jumped over never existed; and the run of
		 * opened rows holding `next` ends at the next jump */
		limit = final;
		nj = __atomic_load_n(&b->njumps, __ATOMIC_ACQUIRE);
		for (k = nj > ANTBUF_JUMPS ? nj - ANTBUF_JUMPS : 0; k < nj; k++) {
			const struct antbuf_jump *j = &b->jump[k % ANTBUF_JUMPS];

			if (c->next >= j->from && c->next < j->to) {
				c->jumped_rows += (uint64_t)(j->to - c->next);
				c->next = j->to;
				v->discontinuity = true;
				v->jumped = true;
			}
		}
		for (k = nj > ANTBUF_JUMPS ? nj - ANTBUF_JUMPS : 0; k < nj; k++) {
			const struct antbuf_jump *j = &b->jump[k % ANTBUF_JUMPS];

			if (j->from > c->next && j->from < limit)
				limit = j->from;
		}
		if (c->next >= final)
			return 0;
		/* rows older than a ring before the end of their run are
		 * certainly overwritten */
		safe = limit == final ? oldest_safe(b, final) :
					limit - (int64_t)b->g.nrows;
		if (c->next < safe) {
			v->lost_rows += (uint64_t)(safe - c->next);
			c->lost_rows += (uint64_t)(safe - c->next);
			c->next = safe;
			v->discontinuity = true;
			continue;
		}
		pos = cpos(b, c->next, nj);
		row = pos >= 0 ? antbuf_rowp(b, (uint32_t)pos) : NULL;
		seq = row != NULL ? __atomic_load_n(&row->seq, __ATOMIC_ACQUIRE) : -1;
		if (seq != c->next) {
			/* overwritten by a row after a jump (or just now) */
			v->lost_rows++;
			c->lost_rows++;
			c->next++;
			v->discontinuity = true;
			continue;
		}
		/* the frames of the rows lost before it, exactly, from the
		 * producer's running total */
		if (c->cum_next != UINT64_MAX && row->cum_before > c->cum_next) {
			v->lost_frames += row->cum_before - c->cum_next;
			c->lost_frames += row->cum_before - c->cum_next;
		}
		c->cum_next = row->cum_before;
		v->row = c->next;
		v->pos = (uint32_t)pos;
		v->nvalid = row->nvalid;
		return 1;
	}
}

bool
antbuf_commit(const struct antbuf *b, struct antbuf_cursor *c,
	      const struct antbuf_view *v)
{
	const struct antbuf_row *row = antbuf_rowp(b, v->pos);

	if (__atomic_load_n(&row->seq, __ATOMIC_ACQUIRE) != v->row) {
		/* overwritten while read: its frames are lost to this reader */
		c->lost_rows++;
		c->lost_frames += v->nvalid;
		c->cum_next += v->nvalid;
		c->next = v->row + 1;
		return false;
	}
	c->rows++;
	c->frames += v->nvalid;
	c->cum_next = row->cum_before + v->nvalid;
	c->next = v->row + 1;
	return true;
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

void
antbuf_row_hdr_time(const struct antbuf *b, int64_t r, uint32_t *seconds,
		    uint32_t *frame)
{
	codif_index_to_time(r, b->seconds0, b->period, b->fpp, seconds, frame);
}

int64_t
antbuf_row_time_ns(const struct antbuf *b, int64_t r)
{
	uint32_t sec, fr;
	unsigned __int128 x;

	if (!b->origin_set || b->fpp == 0)
		return INT64_MIN;
	antbuf_row_hdr_time(b, r, &sec, &fr);
	x = (unsigned __int128)fr * b->period * 1000000000ULL / b->fpp;
	return (codif_epoch_unix(b->epoch) + (int64_t)sec) * 1000000000LL + (int64_t)x;
}
