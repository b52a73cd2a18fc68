/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of lib/antbuf: placement of frame descriptors, window, gaps,
 * runs (resync, gap beyond the ring, new parameters), consumers with their
 * own cursors, exact overrun accounting, indexed (by reference) mode. */

#include <stdlib.h>

#include "antbuf.h"
#include "check.h"
#include "codif_pattern.h"
#include "testfd.h"
#include "testhdr.h"

#define D 64
/* frame n of testhdr.h's stream is at index IDX0 + n of its clock */
#define IDX0 100000

static struct codif_clock clk;

static struct codif_hdr
hdr_for(int64_t n, uint16_t thread)
{
	return test_hdr(n, thread, D);
}

static struct antbuf *
make(uint32_t slots, uint32_t rows, uint32_t window, struct antbuf_prod *p)
{
	struct antbuf_geom g = { slots, rows, window, D };
	size_t sz = antbuf_size(&g, true);
	void *mem = aligned_alloc(ANTBUF_PAGE, sz);
	struct codif_hdr h = hdr_for(0, 0);

	CHECK(antbuf_init(mem, sz, &g, true, 0, "ant0", 0x0A1100D3) == 0);
	CHECK(antbuf_check(mem, sz, NULL, 0) == 0);
	antbuf_prod_init(p, mem, NULL, false);
	codif_clock_init(&clk, &h);
	return mem;
}

/* Place frame n of slot `slot` in timeline segment tseg (flags CODIF_OUT_*),
 * its time moved by `shift` frames. */
static enum antbuf_result
put_at(struct antbuf_prod *p, int64_t n, unsigned int slot, uint32_t tseg, uint8_t flags,
       int64_t shift)
{
	struct codif_hdr h = hdr_for(n + shift, (uint16_t)slot);
	uint8_t data[D], pkt[TEST_L2 + 64 + D];
	struct acct_fd fd;

	codif_pattern_fill(&h, data, D);
	test_fd(&fd, pkt, &h, data, D, &clk, (uint16_t)slot, tseg, flags, 1000 + n);
	return antbuf_place(p, &fd);
}

static enum antbuf_result
put(struct antbuf_prod *p, int64_t n, unsigned int slot)
{
	return put_at(p, n, slot, 0, 0, 0);
}

/* The next row with something in it (rows before a run's first frame are
 * empty: room for late frames of its other streams). */
static int
next_real(const struct antbuf *b, struct antbuf_cursor *c, struct antbuf_view *v)
{
	unsigned int s;

	for (;;) {
		bool empty = true;

		if (antbuf_next(b, c, v) != 1)
			return 0;
		if (v->virt)
			return 1;
		for (s = 0; s < b->g.nslots; s++)
			if (antbuf_metap(b, v->pos, s)->flags & (ANTBUF_F_VALID | ANTBUF_F_GAP))
				empty = false;
		if (!empty)
			return 1;
		CHECK(antbuf_commit(b, c, v));
	}
}

static void
test_geometry(void)
{
	struct antbuf_geom g = { 8, 1000, 64, 8192 };
	char err[200];

	CHECK(antbuf_geom_check(&g, err, sizeof(err)) != 0);
	CHECK_HAS(err, "power of two");
	g.nrows = 1024;
	CHECK(antbuf_geom_check(&g, err, sizeof(err)) == 0);
	g.window = 600;
	CHECK(antbuf_geom_check(&g, err, sizeof(err)) != 0);
	CHECK_HAS(err, "at most half the ring");
	g.window = 64;
	g.nslots = 65;
	CHECK(antbuf_geom_check(&g, err, sizeof(err)) != 0);
	g.nslots = 8;
	g.data_bytes = 8191;
	CHECK(antbuf_geom_check(&g, err, sizeof(err)) != 0);
	g.data_bytes = 8192;
	/* payload page aligned, header + meta before it */
	{
		size_t sz = antbuf_size(&g, true);
		void *mem = aligned_alloc(ANTBUF_PAGE, sz);
		struct antbuf *b = mem;

		CHECK(antbuf_init(mem, sz, &g, true, 3, "x", 1) == 0);
		CHECK_EQ_U(b->payload_off % ANTBUF_PAGE, 0);
		CHECK_EQ_U((uintptr_t)antbuf_payload(b, NULL, 1, 0) % ANTBUF_PAGE, 0);
		CHECK_EQ_U(antbuf_payload(b, NULL, 0, 1) - antbuf_payload(b, NULL, 0, 0), 8192);
		CHECK_EQ_U(antbuf_payload(b, NULL, 1, 0) - antbuf_payload(b, NULL, 0, 7), 8192);
		CHECK(antbuf_init(mem, sz - 1, &g, true, 3, "x", 1) != 0);
		b->version = 99;
		CHECK(antbuf_check(b, sz, err, sizeof(err)) != 0);
		CHECK_HAS(err, "buffer version 99");
		b->magic = 1;
		CHECK(antbuf_check(b, sz, err, sizeof(err)) != 0);
		CHECK_HAS(err, "not an antenna buffer");
		free(mem);
	}
}

static void
test_place(void)
{
	struct antbuf_prod p;
	struct antbuf *b = make(2, 64, 8, &p);
	struct antbuf_cursor c;
	struct antbuf_view v;
	int64_t n;
	unsigned int got = 0;

	antbuf_cursor_init(b, &c, true);
	CHECK(antbuf_next(b, &c, &v) == 0); /* nothing yet */
	/* frames 10..39 of slot 0 and 1, slot 1 misses 20 and 21; 15 of slot
	 * 0 arrives late (after 17), 13 twice */
	for (n = 10; n < 40; n++) {
		if (n != 15)
			CHECK(put(&p, n, 0) == ANTBUF_PLACED);
		if (n == 17)
			CHECK(put(&p, 15, 0) == ANTBUF_PLACED);
		if (n != 20 && n != 21)
			CHECK(put(&p, n, 1) == ANTBUF_PLACED);
		if (n == 12)
			/* a late frame before the very first is still placed
			 * (room left before a run's first frame) */
			CHECK(put(&p, 8, 1) == ANTBUF_PLACED);
	}
	CHECK(put(&p, 13, 0) == ANTBUF_TOO_LATE);   /* the window (8) passed it */
	CHECK(put(&p, 38, 0) == ANTBUF_DUPLICATE);
	CHECK_EQ_U(b->late_placed, 2);
	CHECK_EQ_U(b->nruns, 1);
	CHECK_EQ_U(b->run[0].kind, ANTBUF_RUN_START);
	while (next_real(b, &c, &v) == 1) {
		struct antbuf_meta *m0 = antbuf_metap(b, v.pos, 0);
		struct antbuf_meta *m1 = antbuf_metap(b, v.pos, 1);
		int64_t fr = v.index - IDX0;
		struct codif_hdr h = hdr_for(fr, 0);
		size_t off;

		if (fr == 8) {
			CHECK_EQ_U(m0->flags, 0); /* slot 0 starts at 10 */
			CHECK(m1->flags & ANTBUF_F_VALID);
			CHECK(antbuf_commit(b, &c, &v));
			continue;
		}
		if (fr == 9) {
			/* slot 1 started at 8: its 9 is a gap; slot 0 not yet */
			CHECK_EQ_U(m0->flags, 0);
			CHECK_EQ_U(m1->flags, ANTBUF_F_GAP);
			CHECK(antbuf_commit(b, &c, &v));
			continue;
		}
		CHECK(m0->flags & ANTBUF_F_VALID);
		CHECK(codif_pattern_check(&h, antbuf_payload(b, NULL, v.pos, 0), D, &off));
		CHECK_EQ_I(m0->arrival_ns, 1000 + fr);
		{
			/* the record: the packet's L2-L4 and CODIF headers as received */
			uint8_t want[CODIF_HDR_LEN];
			static const uint8_t zl2[TEST_L2];

			codif_encode(&h, want);
			CHECK(memcmp(antbuf_meta_codif(m0), want, CODIF_HDR_LEN) == 0);
			CHECK(antbuf_meta_l2(m0) != NULL && m0->l2len == TEST_L2);
			CHECK(memcmp(antbuf_meta_l2(m0), zl2, TEST_L2) == 0);
			CHECK_EQ_U(m0->wirelen, TEST_L2 + CODIF_HDR_LEN + D);
		}
		if (fr == 15)
			CHECK(m0->flags & ANTBUF_F_LATE);
		if (fr == 20 || fr == 21) {
			static const uint8_t zero[D];

			CHECK_EQ_U(m1->flags, ANTBUF_F_GAP);
			CHECK(memcmp(antbuf_payload(b, NULL, v.pos, 1), zero, D) == 0);
			CHECK_EQ_U(v.nvalid, 1);
		} else {
			CHECK(m1->flags & ANTBUF_F_VALID);
			CHECK_EQ_U(v.nvalid, 2);
		}
		CHECK(antbuf_commit(b, &c, &v));
		got++;
	}
	CHECK_EQ_U(got, 22);                /* frames 10..31: rows < 39 - 8 + 1 */
	/* flush at stop: the rest becomes final */
	antbuf_flush(&p);
	while (next_real(b, &c, &v) == 1) {
		CHECK(antbuf_commit(b, &c, &v));
		got++;
	}
	CHECK_EQ_U(got, 30);
	CHECK_EQ_U(c.frames, 59);
	CHECK_EQ_U(c.lost_frames, 0);
	CHECK_EQ_U(b->zero_filled, 3);
	/* slots learnt their streams */
	CHECK(b->slot[1].assigned);
	CHECK_EQ_U(b->slot[1].threadid, 1);
	CHECK_EQ_U(b->slot[1].dport, 36001);
	/* time of a row from its run's clock */
	{
		struct codif_hdr h = hdr_for(250, 0);
		const struct antbuf_run *r = antbuf_run_of(b, b->newest, NULL);

		CHECK(r != NULL);
		CHECK_EQ_I(antbuf_index_time_ns(r, IDX0 + 250), codif_frame_time_ns(&h));
		CHECK_EQ_I(antbuf_row_time_ns(b, IDX0 + 250 + r->delta), codif_frame_time_ns(&h));
	}
	free(b);
}

/* A slow consumer loses overwritten rows and counts their frames exactly;
 * a second consumer is unaffected; the producer never waits. */
static void
test_overrun(void)
{
	struct antbuf_prod p;
	struct antbuf *b = make(3, 32, 4, &p);
	struct antbuf_cursor slow, fast;
	struct antbuf_view v;
	uint64_t placed_valid = 0, rows_read = 0;
	int64_t n;
	unsigned int s;

	antbuf_cursor_init(b, &slow, true);
	antbuf_cursor_init(b, &fast, true);
	CHECK(put(&p, 0, 0) == ANTBUF_PLACED);
	CHECK(antbuf_next(b, &slow, &v) == 0); /* starts the cursor at row 0 */
	placed_valid = 1;
	for (n = 1; n < 500; n++) {
		for (s = 0; s < 3; s++)
			if ((n + s) % 7 != 0) {
				CHECK(put(&p, n, s) == ANTBUF_PLACED);
				placed_valid++;
			}
		while (antbuf_next(b, &fast, &v) == 1)
			CHECK(antbuf_commit(b, &fast, &v));
	}
	antbuf_flush(&p);
	while (antbuf_next(b, &fast, &v) == 1)
		CHECK(antbuf_commit(b, &fast, &v));
	CHECK_EQ_U(fast.frames, placed_valid);
	CHECK_EQ_U(fast.lost_frames, 0);
	/* the slow one only now reads: most rows are gone */
	while (antbuf_next(b, &slow, &v) == 1) {
		if (rows_read == 0)
			CHECK(v.discontinuity);
		CHECK(antbuf_commit(b, &slow, &v));
		rows_read++;
	}
	/* 500 rows of frames and the 3 empty ones before the first */
	CHECK_EQ_U(slow.rows + slow.lost_rows, 503);
	CHECK_EQ_U(slow.frames + slow.lost_frames, placed_valid);
	CHECK(slow.lost_rows > 400);
	CHECK_EQ_U(slow.rows, 32 - 4); /* what the ring still held */
	free(b);
}

/* A consumer's lag behind the newest row, in rows and data time. */
static void
test_lag(void)
{
	struct antbuf_prod p;
	struct antbuf *b = make(1, 64, 4, &p);
	struct antbuf_cursor c;
	struct antbuf_view v;
	uint64_t rows, ns;
	int64_t n, frame_ns;

	antbuf_cursor_init(b, &c, true);
	antbuf_lag(b, &c, &rows, &ns);
	CHECK_EQ_U(rows, 0); /* nothing yet, not started */
	CHECK_EQ_U(ns, 0);
	for (n = 0; n < 20; n++)
		CHECK(put(&p, n, 0) == ANTBUF_PLACED);
	/* the first frame's row is window - 1 = 3 (room for late frames before
	 * it): the newest, frame 19, is row 22; the cursor starts at row 0 */
	CHECK(antbuf_next(b, &c, &v) == 1);
	frame_ns = codif_clock_time_ns(&clk, IDX0 + 1) - codif_clock_time_ns(&clk, IDX0);
	CHECK(frame_ns > 0);
	antbuf_lag(b, &c, &rows, &ns);
	CHECK_EQ_U(rows, 23);
	CHECK_EQ_U(ns, 23 * (uint64_t)frame_ns);
	/* taking every final row leaves the open ones (the window) */
	CHECK(antbuf_commit(b, &c, &v));
	while (antbuf_next(b, &c, &v) == 1)
		CHECK(antbuf_commit(b, &c, &v));
	antbuf_lag(b, &c, &rows, &ns);
	CHECK_EQ_U(rows, (uint64_t)(b->newest + 1 - b->final_row));
	CHECK(rows >= 1 && rows <= 4);
	/* after the producer's flush and the rest taken: none */
	antbuf_flush(&p);
	while (antbuf_next(b, &c, &v) == 1)
		CHECK(antbuf_commit(b, &c, &v));
	antbuf_lag(b, &c, &rows, &ns);
	CHECK_EQ_U(rows, 0);
	CHECK_EQ_U(ns, 0);
	free(b);
}

/* A row recycled while a consumer reads it: commit says so and counts. */
static void
test_torn(void)
{
	struct antbuf_prod p;
	struct antbuf *b = make(1, 16, 2, &p);
	struct antbuf_cursor c;
	struct antbuf_view v;
	int64_t n;

	antbuf_cursor_init(b, &c, true);
	for (n = 0; n < 10; n++)
		put(&p, n, 0);
	CHECK(next_real(b, &c, &v) == 1);
	CHECK_EQ_I(v.index, IDX0);
	for (n = 10; n < 40; n++) /* producer laps the reader */
		put(&p, n, 0);
	CHECK(!antbuf_commit(b, &c, &v));
	CHECK_EQ_U(c.lost_frames, 1);
	CHECK(antbuf_next(b, &c, &v) == 1);
	CHECK(v.lost_rows > 0);
	CHECK(antbuf_commit(b, &c, &v));
	CHECK_EQ_U(c.frames + c.lost_frames, (uint64_t)(v.index - IDX0) + 1);
	free(b);
}

/* What a consumer saw of runs, read as the producer goes. */
struct runseen {
	unsigned int resync_starts, params_starts, virt;
	uint32_t runno;
	int64_t last_index;
	uint64_t frames_after_gap;
	unsigned int breaks;      /* index not last + 1 without a resync */
};

static void
drain(const struct antbuf *b, struct antbuf_cursor *c, struct runseen *rs)
{
	struct antbuf_view v;

	while (next_real(b, c, &v) == 1) {
		bool split = antbuf_runs_split(b, rs->runno, v.runno);
		bool resync = split && v.run->kind == ANTBUF_RUN_RESYNC;

		if (resync)
			rs->resync_starts++;
		if (split && v.run->kind == ANTBUF_RUN_PARAMS)
			rs->params_starts++;
		rs->runno = v.runno;
		if (v.virt)
			rs->virt++;
		else if (v.run->kind == ANTBUF_RUN_GAP || v.run->kind == ANTBUF_RUN_PARAMS)
			rs->frames_after_gap += v.nvalid;
		if (!resync && rs->last_index >= 0 && v.index != rs->last_index + 1)
			rs->breaks++;
		rs->last_index = v.index;
		CHECK(antbuf_commit(b, c, &v));
	}
}

/* Runs: a resync of the antenna's timeline (a newer segment), forward and
 * back; a confirmed gap longer than the ring; new parameters of a stream. */
static void
test_runs(void)
{
	struct antbuf_prod p;
	struct antbuf *b = make(2, 64, 8, &p);
	struct antbuf_cursor c;
	struct runseen rs = { .last_index = -1 };
	unsigned int i;
	int64_t n;

	antbuf_cursor_init(b, &c, true);
	for (n = 0; n < 20; n++) {
		put(&p, n, 0);
		put(&p, n, 1);
		drain(b, &c, &rs);
	}
	/* segment 1: +100000 frames; its first frame of slot 1 comes late */
	CHECK(put_at(&p, 20, 0, 1, CODIF_OUT_SEG_START | CODIF_OUT_RESYNC, 100000) ==
	      ANTBUF_PLACED);
	CHECK_EQ_U(b->nruns, 2);
	CHECK_EQ_U(b->run[1].kind, ANTBUF_RUN_RESYNC);
	CHECK(put_at(&p, 21, 0, 1, 0, 100000) == ANTBUF_PLACED);
	CHECK(put_at(&p, 20, 1, 1, CODIF_OUT_SEG_START | CODIF_OUT_RESYNC, 100000) ==
	      ANTBUF_PLACED);
	/* a frame of the old segment now: its segment is over */
	CHECK(put_at(&p, 19, 0, 0, 0, 0) == ANTBUF_TOO_LATE);
	for (n = 22; n < 40; n++) {
		put_at(&p, n, 0, 1, 0, 100000);
		put_at(&p, n, 1, 1, 0, 100000);
		drain(b, &c, &rs);
	}
	/* segment 2: back in time (-50000 frames from the start) */
	CHECK(put_at(&p, 40, 0, 2, CODIF_OUT_SEG_START | CODIF_OUT_RESYNC, -50000) ==
	      ANTBUF_PLACED);
	put_at(&p, 40, 1, 2, CODIF_OUT_SEG_START | CODIF_OUT_RESYNC, -50000);
	for (n = 41; n < 50; n++) {
		put_at(&p, n, 0, 2, 0, -50000);
		put_at(&p, n, 1, 2, 0, -50000);
		drain(b, &c, &rs);
	}
	CHECK_EQ_U(b->nruns, 3);
	/* in segment 2, 300 frames lost (confirmed: the same segment), more
	 * than the ring can hold: a GAP run */
	for (n = 350; n < 360; n++) {
		CHECK(put_at(&p, n, 0, 2, 0, -50000) == ANTBUF_PLACED);
		put_at(&p, n, 1, 2, 0, -50000);
		drain(b, &c, &rs);
	}
	CHECK_EQ_U(b->nruns, 4);
	CHECK_EQ_U(b->run[3].kind, ANTBUF_RUN_GAP);
	CHECK_EQ_I(b->run[3].vgap, 300);
	CHECK_EQ_U(b->gap_frames, 600);
	/* new parameters of slot 1 at frame 360 of the segment: a PARAMS
	 * run from its row */
	{
		struct codif_hdr h = hdr_for(360 - 50000, 1);
		uint8_t pkt[TEST_L2 + 64 + D];
		struct acct_fd fd;

		h.representation = 3;
		test_fd(&fd, pkt, &h, NULL, D, &clk, 1, 2, CODIF_OUT_SEG_START |
			CODIF_OUT_NEW_PARAMS, 0);
		put_at(&p, 360, 0, 2, 0, -50000);
		CHECK(antbuf_place(&p, &fd) == ANTBUF_PLACED);
		CHECK_EQ_U(b->nruns, 5);
		CHECK_EQ_U(b->run[4].kind, ANTBUF_RUN_PARAMS);
		CHECK_EQ_U(b->run[4].ref[1][10] >> 4, 3); /* representation: bits 20-23 */
		for (n = 361; n < 372; n++) {
			put_at(&p, n, 0, 2, 0, -50000);
			h = hdr_for(n - 50000, 1);
			h.representation = 3;
			test_fd(&fd, pkt, &h, NULL, D, &clk, 1, 2, 0, 0);
			antbuf_place(&p, &fd);
		}
	}
	antbuf_flush(&p);
	drain(b, &c, &rs);
	CHECK_EQ_U(rs.resync_starts, 2);
	CHECK_EQ_U(rs.params_starts, 1);
	CHECK_EQ_U(rs.virt, 300);
	CHECK_EQ_U(rs.breaks, 0);
	CHECK_EQ_U(rs.frames_after_gap, 2 * 22);
	/* every frame placed: slot 1 never sent frame 21 (a gap) */
	CHECK_EQ_U(c.frames, 2 * 50 + 2 * 22 - 1);
	CHECK_EQ_U(c.lost_frames, 0);
	/* the run history names each run's kind */
	for (i = 0; i < 5; i++)
		CHECK(antbuf_run_kind_name((enum antbuf_run_kind)b->run[i].kind)[0] != '?');
	free(b);
}

static void
test_timing(void)
{
	struct antbuf_prod p;
	struct antbuf *b = make(1, 64, 8, &p);
	struct codif_hdr h = hdr_for(0, 0), bad;
	struct codif_clock other;
	uint8_t pkt[TEST_L2 + 64 + D];
	struct acct_fd fd;

	test_fd(&fd, pkt, &h, NULL, D, &clk, 0, 0, 0, 0);
	CHECK(antbuf_place(&p, &fd) == ANTBUF_PLACED);
	/* another clock within one segment: refused */
	bad = hdr_for(1, 0);
	bad.period = 2;
	bad.totalsamples = 200ULL * D;
	codif_clock_init(&other, &bad);
	test_fd(&fd, pkt, &bad, NULL, D, &other, 0, 0, 0, 0);
	CHECK(antbuf_place(&p, &fd) == ANTBUF_BAD_TIME);
	bad = hdr_for(1, 0);
	test_fd(&fd, pkt, &bad, NULL, D, &clk, 0, 0, 0, 0);
	fd.codif_len += 8; /* larger than a slot: refused */
	CHECK(antbuf_place(&p, &fd) == ANTBUF_BAD_SIZE);
	fd.codif_len -= 16; /* smaller: a slot holds it (its header says its size) */
	CHECK(antbuf_place(&p, &fd) == ANTBUF_PLACED);
	test_fd(&fd, pkt, &bad, NULL, D, &clk, 5, 0, 0, 0);
	CHECK(antbuf_place(&p, &fd) == ANTBUF_NO_SLOT);
	CHECK_STR(antbuf_result_name(ANTBUF_TOO_LATE), "too-late");
	free(b);
}

/* Indexed mode (buffer split to GPU memory): frames placed by reference
 * where "the NIC" put them in an external pool; each is released exactly
 * once, when its row is reused; gaps point at the shared zero frame. */
#define POOL_FRAMES 1024

struct pool {
	uint8_t *mem;               /* POOL_FRAMES frames + the zero frame */
	int held[POOL_FRAMES];      /* 1: referenced by a slot */
	uintptr_t refs[64 * 2];     /* the producer's table */
	unsigned int released, bad_release;
	unsigned int next;
};

static void
pool_release(void *ctx, uintptr_t ref)
{
	struct pool *p = ctx;

	if (ref == 0 || ref > POOL_FRAMES || !p->held[ref - 1]) {
		p->bad_release++;
		return;
	}
	p->held[ref - 1] = 0;
	p->released++;
}

static enum antbuf_result
put_ref(struct antbuf_prod *bp, struct pool *p, int64_t n, unsigned int slot)
{
	struct codif_hdr h = hdr_for(n, (uint16_t)slot);
	uint8_t pkt[TEST_L2 + 64];
	unsigned int f = p->next++ % POOL_FRAMES;
	enum antbuf_result r;
	struct acct_fd fd;

	CHECK(!p->held[f]); /* the pool never hands out a held frame */
	codif_pattern_fill(&h, p->mem + (size_t)f * D, D);
	test_fd(&fd, pkt, &h, NULL, 0, &clk, (uint16_t)slot, 0, 0, 1000 + n);
	fd.codif_len = 64 + D;
	r = antbuf_place_ref(bp, &fd, (uint64_t)f * D, f + 1, D);
	if (r == ANTBUF_PLACED)
		p->held[f] = 1; /* the buffer holds it now */
	return r;
}

/* A consumed row of the indexed test: payload by reference, gaps zero. */
static unsigned int
check_indexed_row(const struct antbuf *b, const struct pool *p, const struct antbuf_view *v)
{
	static const uint8_t zero[D];
	unsigned int s, gaps = 0;
	size_t off;

	for (s = 0; s < 2; s++) {
		const struct antbuf_meta *m = antbuf_metap(b, v->pos, s);
		const uint8_t *pl = antbuf_payload_of(b, p->mem, v->pos, s);
		struct codif_hdr h = hdr_for(v->index - IDX0, (uint16_t)s);

		if (m->flags & ANTBUF_F_GAP) {
			CHECK(s == 1 && (v->index - IDX0) % 10 == 3);
			CHECK(pl == p->mem + (size_t)POOL_FRAMES * D);
			CHECK(memcmp(pl, zero, D) == 0);
			gaps++;
		} else {
			CHECK(m->flags & ANTBUF_F_VALID);
			CHECK(codif_pattern_check(&h, pl, D, &off));
		}
	}
	return gaps;
}

static void
test_indexed(void)
{
	struct antbuf_prod bp;
	struct antbuf *b = make(2, 64, 8, &bp);
	struct pool *p = calloc(1, sizeof(*p));
	struct antbuf_cursor c;
	struct antbuf_view v;
	unsigned int pos, placed = 0, held = 0, rows = 0, gaps = 0;
	int64_t n;

	p->mem = calloc(POOL_FRAMES + 1, D);
	antbuf_set_indexed(&bp, (uint64_t)POOL_FRAMES * D, p->refs, pool_release, p);
	bp.payload = p->mem;
	CHECK(b->payload_indexed && b->payload_external);
	/* a copy into an indexed buffer is refused, counted */
	CHECK(put(&bp, 0, 0) == ANTBUF_BAD_SIZE);
	antbuf_cursor_init(b, &c, true);
	for (n = 0; n < 300; n++) {
		if (put_ref(&bp, p, n, 0) == ANTBUF_PLACED)
			placed++;
		if (n % 10 != 3 && put_ref(&bp, p, n, 1) == ANTBUF_PLACED) /* slot 1 loses n%10==3 */
			placed++;
		CHECK(put_ref(&bp, p, n, 0) == ANTBUF_DUPLICATE); /* freed by the caller */
		while (next_real(b, &c, &v) == 1) {
			gaps += check_indexed_row(b, p, &v);
			CHECK(antbuf_commit(b, &c, &v));
			rows++;
		}
	}
	antbuf_flush(&bp);
	while (next_real(b, &c, &v) == 1) {
		gaps += check_indexed_row(b, p, &v);
		CHECK(antbuf_commit(b, &c, &v));
		rows++;
	}
	CHECK_EQ_U(rows, 300);
	CHECK_EQ_U(gaps, 30);
	CHECK_EQ_U(c.lost_frames, 0);
	CHECK_EQ_U(p->bad_release, 0);
	/* everything placed is either released (row reused) or still held by
	 * one of the ring's 64 rows, never both */
	for (pos = 0; pos < POOL_FRAMES; pos++)
		held += (unsigned int)p->held[pos];
	CHECK_EQ_U(p->released + held, placed);
	CHECK(held <= 64 * 2);
	CHECK(p->released >= placed - 128);
	/* at the end every reference still held goes back, once */
	CHECK_EQ_U(antbuf_release_all(&bp), held);
	CHECK_EQ_U(p->released, placed);
	CHECK_EQ_U(antbuf_release_all(&bp), 0);
	CHECK_EQ_U(p->bad_release, 0);
	/* place_ref on a copying buffer is refused */
	{
		struct antbuf_prod p2;
		struct antbuf *b2 = make(1, 64, 8, &p2);
		struct codif_hdr h = hdr_for(0, 0);
		uint8_t pkt[TEST_L2 + 64];
		struct acct_fd fd;

		test_fd(&fd, pkt, &h, NULL, 0, &clk, 0, 0, 0, 0);
		CHECK(antbuf_place_ref(&p2, &fd, 0, 1, D) == ANTBUF_BAD_SIZE);
		free(b2);
	}
	free(p->mem);
	free(p);
	free(b);
}

/* A frame whose L2-L4 headers are longer than a record keeps (IP options):
 * its CODIF header kept whole, flagged, its L2 left to its stream's first. */
static void
test_long_l2(void)
{
	struct antbuf_prod p;
	struct antbuf *b = make(1, 64, 8, &p);
	struct codif_hdr h = hdr_for(3, 0);
	uint8_t pkt[80 + 64 + D], want[CODIF_HDR_LEN], data[D];
	struct acct_fd fd;
	struct antbuf_meta *m;
	unsigned int k;

	codif_pattern_fill(&h, data, D);
	test_fd(&fd, pkt, &h, data, D, &clk, 0, 0, 0, 7);
	/* move the CODIF header and data behind 80 bytes of headers */
	memmove(pkt + 80, pkt + TEST_L2, 64 + D);
	for (k = 0; k < 80; k++)
		pkt[k] = (uint8_t)k;
	fd.codif_off = 80;
	fd.wirelen = 80 + 64 + D;
	CHECK(antbuf_place(&p, &fd) == ANTBUF_PLACED);
	m = antbuf_metap(b, (uint32_t)((fd.index + b->run[0].delta) & 63), 0);
	codif_encode(&h, want);
	CHECK(m->flags & ANTBUF_F_L2_LONG);
	CHECK(antbuf_meta_l2(m) == NULL);
	CHECK(memcmp(antbuf_meta_codif(m), want, CODIF_HDR_LEN) == 0);
	CHECK_EQ_U(b->slot[0].l2len, ANTBUF_L2_MAX); /* the slot keeps 64 */
	CHECK(memcmp(b->slot[0].l2, pkt, ANTBUF_L2_MAX) == 0);
	CHECK_EQ_U(sizeof(struct antbuf_meta), 128);
	free(b);
}

/* Slots by stream identity: first come, first served; a stream that differs
 * in any id (group, secondary, station, thread, destination) is another;
 * a slot's identity is fixed when assigned; none left: ACCT_NO_SLOT. */
static void
test_slot_assign(void)
{
	struct antbuf_prod p;
	struct antbuf *b = make(3, 64, 8, &p);
	struct codif_hdr a = hdr_for(0, 0), g = a, sec = a, stray = a;
	uint8_t pkt[TEST_L2 + 64 + D];
	struct acct_fd fd;

	g.groupid = (uint16_t)(a.groupid + 1);
	sec.secondaryid = (uint16_t)(a.secondaryid + 1);
	stray.stationid = (uint16_t)(a.stationid + 7);
	test_fd(&fd, pkt, &stray, NULL, D, &clk, ACCT_SLOT_NEW, 0, 0, 0);
	CHECK_EQ_U(antbuf_slot_assign(&p, &fd, ACCT_NO_SLOT), 0); /* the stray came first */
	test_fd(&fd, pkt, &a, NULL, D, &clk, ACCT_SLOT_NEW, 0, 0, 0);
	CHECK_EQ_U(antbuf_slot_assign(&p, &fd, ACCT_NO_SLOT), 1);
	test_fd(&fd, pkt, &g, NULL, D, &clk, ACCT_SLOT_NEW, 0, 0, 0);
	CHECK_EQ_U(antbuf_slot_assign(&p, &fd, ACCT_NO_SLOT), 2);
	test_fd(&fd, pkt, &sec, NULL, D, &clk, ACCT_SLOT_NEW, 0, 0, 0);
	CHECK_EQ_U(antbuf_slot_assign(&p, &fd, ACCT_NO_SLOT), ACCT_NO_SLOT); /* all taken */
	test_fd(&fd, pkt, &a, NULL, D, &clk, ACCT_SLOT_NEW, 0, 0, 0);
	CHECK_EQ_U(antbuf_slot_assign(&p, &fd, ACCT_NO_SLOT), 1); /* the same stream: its own */
	fd.dport++;
	CHECK_EQ_U(antbuf_slot_assign(&p, &fd, ACCT_NO_SLOT), ACCT_NO_SLOT); /* another port: another */
	CHECK_EQ_U(antbuf_slots_used(b), 3);
	free(b);
	/* a home slot when free: the declared order; taken: the first free */
	b = make(3, 64, 8, &p);
	test_fd(&fd, pkt, &a, NULL, D, &clk, ACCT_SLOT_NEW, 0, 0, 0);
	CHECK_EQ_U(antbuf_slot_assign(&p, &fd, 2), 2);
	test_fd(&fd, pkt, &g, NULL, D, &clk, ACCT_SLOT_NEW, 0, 0, 0);
	CHECK_EQ_U(antbuf_slot_assign(&p, &fd, 2), 0);
	test_fd(&fd, pkt, &stray, NULL, D, &clk, ACCT_SLOT_NEW, 0, 0, 0);
	CHECK_EQ_U(antbuf_slot_assign(&p, &fd, 7), 1);
	free(b);
	b = make(3, 64, 8, &p);
	test_fd(&fd, pkt, &stray, NULL, D, &clk, ACCT_SLOT_NEW, 0, 0, 0);
	CHECK_EQ_U(antbuf_slot_assign(&p, &fd, ACCT_NO_SLOT), 0);
	test_fd(&fd, pkt, &a, NULL, D, &clk, ACCT_SLOT_NEW, 0, 0, 0);
	CHECK_EQ_U(antbuf_slot_assign(&p, &fd, ACCT_NO_SLOT), 1);
	test_fd(&fd, pkt, &g, NULL, D, &clk, ACCT_SLOT_NEW, 0, 0, 0);
	CHECK_EQ_U(antbuf_slot_assign(&p, &fd, ACCT_NO_SLOT), 2);
	CHECK_EQ_U(b->slot[0].stationid, stray.stationid);
	CHECK_EQ_U(b->slot[1].stationid, a.stationid);
	CHECK_EQ_U(b->slot[2].groupid, g.groupid);
	/* a frame placed in slot 1 leaves its identity as assigned */
	test_fd(&fd, pkt, &a, NULL, D, &clk, 1, 0, 0, 0);
	CHECK(antbuf_place(&p, &fd) == ANTBUF_PLACED);
	CHECK_EQ_U(b->slot[0].stationid, stray.stationid);
	CHECK_EQ_U(antbuf_nr_cause(ANTBUF_NO_SLOT), ACCT_NR_NO_SLOT);
	CHECK_EQ_U(antbuf_nr_cause(ANTBUF_BAD_SIZE), ACCT_NR_WRONG_SIZE);
	CHECK_STR(acct_nr_name(ACCT_NR_WRONG_SIZE), "wrong-size");
	free(b);
}

int
main(void)
{
	test_slot_assign();
	test_long_l2();
	test_geometry();
	test_place();
	test_overrun();
	test_torn();
	test_lag();
	test_runs();
	test_timing();
	test_indexed();
	return check_report("test_antbuf");
}
