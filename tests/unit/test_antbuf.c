/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of lib/antbuf: placement by frame index, window, gaps, jumps,
 * consumers with their own cursors, exact overrun accounting. */

#include <stdlib.h>

#include "antbuf.h"
#include "check.h"
#include "testhdr.h"
#include "codif_pattern.h"

#define D 64

static struct codif_hdr
hdr_for(int64_t n, uint16_t thread)
{
	return test_hdr(n, thread, D);
}

static struct antbuf *
make(uint32_t slots, uint32_t rows, uint32_t window)
{
	struct antbuf_geom g = { slots, rows, window, D };
	size_t sz = antbuf_size(&g, true);
	void *mem = aligned_alloc(ANTBUF_PAGE, sz);

	CHECK(antbuf_init(mem, sz, &g, true, 0, "ant0", 0x0A1100D3) == 0);
	CHECK(antbuf_check(mem, sz, NULL, 0) == 0);
	return mem;
}

static enum antbuf_result
put(struct antbuf *b, int64_t n, unsigned int slot)
{
	struct codif_hdr h = hdr_for(n, (uint16_t)slot);
	uint8_t hb[64], data[D], l2[42] = { 0 };

	codif_encode(&h, hb);
	codif_pattern_fill(&h, data, D);
	return antbuf_place(b, NULL, slot, &h, hb, data, D, l2, 42, 42 + 64 + D,
			    1000 + n, 0xEF110001, 36001);
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
	struct antbuf *b = make(2, 64, 8);
	struct antbuf_cursor c;
	struct antbuf_view v;
	int64_t n;
	unsigned int got = 0;

	antbuf_cursor_init(b, &c, true);
	CHECK(antbuf_next(b, &c, &v) == 0); /* nothing yet */
	/* frames 0..29 of slot 0 and 1, slot 1 misses 10 and 11; 5 of slot 0
	 * arrives late (after 7), 3 twice */
	for (n = 0; n < 30; n++) {
		if (n != 5)
			CHECK(put(b, n, 0) == ANTBUF_PLACED);
		if (n == 7)
			CHECK(put(b, 5, 0) == ANTBUF_PLACED);
		if (n != 10 && n != 11)
			CHECK(put(b, n, 1) == ANTBUF_PLACED);
	}
	CHECK(put(b, 3, 0) == ANTBUF_TOO_LATE);   /* the window (8) passed it */
	CHECK(put(b, 28, 0) == ANTBUF_DUPLICATE);
	CHECK_EQ_U(b->late_placed, 1);
	CHECK_EQ_I(b->newest, 29);
	CHECK_EQ_I(b->final_row, 22);             /* rows < 29 - 8 + 1 */
	while (antbuf_next(b, &c, &v) == 1) {
		struct antbuf_meta *m0 = antbuf_metap(b, v.pos, 0);
		struct antbuf_meta *m1 = antbuf_metap(b, v.pos, 1);
		struct codif_hdr h = hdr_for(v.row, 0);
		size_t off;

		CHECK(m0->flags & ANTBUF_F_VALID);
		CHECK(codif_pattern_check(&h, antbuf_payload(b, NULL, v.pos, 0), D, &off));
		CHECK_EQ_I(m0->arrival_ns, 1000 + v.row);
		if (v.row == 5)
			CHECK(m0->flags & ANTBUF_F_LATE);
		if (v.row == 10 || v.row == 11) {
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
	CHECK_EQ_U(got, 22);
	CHECK_EQ_U(c.frames, 42);
	CHECK_EQ_U(b->zero_filled, 2);
	/* flush at stop: the rest becomes final */
	antbuf_flush(b, NULL);
	while (antbuf_next(b, &c, &v) == 1) {
		CHECK(antbuf_commit(b, &c, &v));
		got++;
	}
	CHECK_EQ_U(got, 30);
	CHECK_EQ_U(c.frames, 58);
	CHECK_EQ_U(c.lost_frames, 0);
	/* slots learnt their streams */
	CHECK(b->slot[1].assigned);
	CHECK_EQ_U(b->slot[1].threadid, 1);
	CHECK_EQ_U(b->slot[1].dport, 36001);
	free(b);
}

/* A slow consumer loses overwritten rows and counts their frames exactly;
 * a second consumer is unaffected; the producer never waits. */
static void
test_overrun(void)
{
	struct antbuf *b = make(3, 32, 4);
	struct antbuf_cursor slow, fast;
	struct antbuf_view v;
	uint64_t placed_valid = 0, rows_read = 0;
	int64_t n;
	unsigned int s;

	antbuf_cursor_init(b, &slow, true);
	antbuf_cursor_init(b, &fast, true);
	CHECK(put(b, 0, 0) == ANTBUF_PLACED);
	CHECK(antbuf_next(b, &slow, &v) == 0); /* starts the cursor at row 0 */
	placed_valid = 1;
	for (n = 1; n < 500; n++) {
		for (s = 0; s < 3; s++)
			if ((n + s) % 7 != 0) {
				CHECK(put(b, n, s) == ANTBUF_PLACED);
				placed_valid++;
			}
		while (antbuf_next(b, &fast, &v) == 1)
			CHECK(antbuf_commit(b, &fast, &v));
	}
	antbuf_flush(b, NULL);
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
	CHECK_EQ_U(slow.rows + slow.lost_rows, 500);
	CHECK_EQ_U(slow.frames + slow.lost_frames, placed_valid);
	CHECK(slow.lost_rows > 400);
	CHECK_EQ_U(slow.rows, 32 - 4); /* what the ring still held */
	free(b);
}

/* A row recycled while a consumer reads it: commit says so and counts. */
static void
test_torn(void)
{
	struct antbuf *b = make(1, 16, 2);
	struct antbuf_cursor c;
	struct antbuf_view v;
	int64_t n;

	antbuf_cursor_init(b, &c, true);
	for (n = 0; n < 10; n++)
		put(b, n, 0);
	CHECK(antbuf_next(b, &c, &v) == 1);
	CHECK_EQ_I(v.row, 0);
	for (n = 10; n < 40; n++) /* producer laps the reader */
		put(b, n, 0);
	CHECK(!antbuf_commit(b, &c, &v));
	CHECK_EQ_U(c.lost_frames, 1);
	CHECK(antbuf_next(b, &c, &v) == 1);
	CHECK(v.lost_rows > 0);
	CHECK(antbuf_commit(b, &c, &v));
	CHECK_EQ_U(c.frames + c.lost_frames, (uint64_t)v.row + 1);
	free(b);
}

/* One stray frame far ahead is dropped; a run of them resyncs the ring
 * and consumers see a jump, not a loss. */
static void
test_far(void)
{
	struct antbuf *b = make(1, 64, 8);
	struct antbuf_cursor c;
	struct antbuf_view v;
	int64_t n;
	unsigned int i;

	antbuf_cursor_init(b, &c, true);
	for (n = 0; n < 20; n++) {
		put(b, n, 0);
		while (antbuf_next(b, &c, &v) == 1)
			CHECK(antbuf_commit(b, &c, &v));
	}
	CHECK(put(b, 100000, 0) == ANTBUF_TOO_FAR);
	CHECK(put(b, 20, 0) == ANTBUF_PLACED);
	for (i = 0; i < 15; i++)
		CHECK(put(b, 200000 + i, 0) == ANTBUF_TOO_FAR);
	CHECK(put(b, 200015, 0) == ANTBUF_PLACED); /* the 16th: resync */
	CHECK_EQ_U(b->result[ANTBUF_TOO_FAR], 16);
	CHECK_EQ_U(b->njumps, 1);
	for (n = 200016; n < 200040; n++) {
		put(b, n, 0);
		while (antbuf_next(b, &c, &v) == 1)
			CHECK(antbuf_commit(b, &c, &v));
	}
	antbuf_flush(b, NULL);
	while (antbuf_next(b, &c, &v) == 1)
		CHECK(antbuf_commit(b, &c, &v));
	CHECK_EQ_U(c.frames, 21 + 25);
	CHECK_EQ_U(c.lost_frames, 0);
	CHECK_EQ_U(c.lost_rows, 0);
	CHECK_EQ_U(c.jumped_rows, 200015 - 21);
	free(b);
}

static void
test_timing(void)
{
	struct antbuf *b = make(1, 64, 8);
	struct codif_hdr h = hdr_for(0, 0), bad;
	uint8_t hb[64], data[D] = { 0 }, l2[42] = { 0 };
	uint32_t sec, fr;

	codif_encode(&h, hb);
	CHECK(antbuf_place(b, NULL, 0, &h, hb, data, D, l2, 42, 0, 0, 0, 0) == ANTBUF_PLACED);
	bad = hdr_for(1, 0);
	bad.period = 2;
	CHECK(antbuf_place(b, NULL, 0, &bad, hb, data, D, l2, 42, 0, 0, 0, 0) == ANTBUF_BAD_TIME);
	bad = hdr_for(1, 0);
	CHECK(antbuf_place(b, NULL, 0, &bad, hb, data, D - 8, l2, 42, 0, 0, 0, 0) == ANTBUF_BAD_SIZE);
	CHECK(antbuf_place(b, NULL, 5, &bad, hb, data, D, l2, 42, 0, 0, 0, 0) == ANTBUF_NO_SLOT);
	antbuf_row_hdr_time(b, 250, &sec, &fr);
	CHECK_EQ_U(sec, 1002);
	CHECK_EQ_U(fr, 50);
	h = hdr_for(250, 0);
	CHECK_EQ_I(antbuf_row_time_ns(b, 250), codif_frame_time_ns(&h));
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
put_ref(struct antbuf *b, struct pool *p, int64_t n, unsigned int slot)
{
	struct codif_hdr h = hdr_for(n, (uint16_t)slot);
	uint8_t hb[64], l2[42] = { 0 };
	unsigned int f = p->next++ % POOL_FRAMES;
	enum antbuf_result r;

	CHECK(!p->held[f]); /* the pool never hands out a held frame */
	codif_encode(&h, hb);
	codif_pattern_fill(&h, p->mem + (size_t)f * D, D);
	r = antbuf_place_ref(b, slot, &h, hb, (uint64_t)f * D, f + 1, D, l2, 42,
			     42 + 64 + D, 1000 + n, 0xEF110001, 36001);
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
		struct codif_hdr h = hdr_for(v->row, (uint16_t)s);

		if (m->flags & ANTBUF_F_GAP) {
			CHECK(s == 1 && v->row % 10 == 3);
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
	struct antbuf *b = make(2, 64, 8);
	struct pool *p = calloc(1, sizeof(*p));
	struct antbuf_cursor c;
	struct antbuf_view v;
	uint8_t zero[D] = { 0 };
	unsigned int pos, placed = 0, held = 0, rows = 0, gaps = 0;
	int64_t n;

	p->mem = calloc(POOL_FRAMES + 1, D);
	antbuf_set_indexed(b, (uint64_t)POOL_FRAMES * D, p->refs, pool_release, p);
	CHECK(b->payload_indexed && b->payload_external);
	/* a copy into an indexed buffer is refused, counted */
	{
		struct codif_hdr h = hdr_for(0, 0);
		uint8_t hb[64], l2[42] = { 0 };

		codif_encode(&h, hb);
		CHECK(antbuf_place(b, p->mem, 0, &h, hb, zero, D, l2, 42, 0, 0, 0, 0) ==
		      ANTBUF_BAD_SIZE);
	}
	antbuf_cursor_init(b, &c, true);
	for (n = 0; n < 300; n++) {
		if (put_ref(b, p, n, 0) == ANTBUF_PLACED)
			placed++;
		if (n % 10 != 3 && put_ref(b, p, n, 1) == ANTBUF_PLACED) /* slot 1 loses n%10==3 */
			placed++;
		CHECK(put_ref(b, p, n, 0) == ANTBUF_DUPLICATE); /* freed by the caller */
		while (antbuf_next(b, &c, &v) == 1) {
			gaps += check_indexed_row(b, p, &v);
			CHECK(antbuf_commit(b, &c, &v));
			rows++;
		}
	}
	antbuf_flush(b, p->mem);
	while (antbuf_next(b, &c, &v) == 1) {
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
	CHECK_EQ_U(antbuf_release_all(b), held);
	CHECK_EQ_U(p->released, placed);
	CHECK_EQ_U(antbuf_release_all(b), 0);
	CHECK_EQ_U(p->bad_release, 0);
	/* placement by copy is refused, place_ref on a copying buffer too */
	{
		struct antbuf *b2 = make(1, 64, 8);
		struct codif_hdr h = hdr_for(0, 0);
		uint8_t hb[64], l2[42] = { 0 };

		codif_encode(&h, hb);
		CHECK(antbuf_place_ref(b2, 0, &h, hb, 0, 1, D, l2, 42, 0, 0, 0, 0) ==
		      ANTBUF_BAD_SIZE);
		free(b2);
	}
	free(p->mem);
	free(p);
	free(b);
}

int
main(void)
{
	test_geometry();
	test_place();
	test_overrun();
	test_torn();
	test_far();
	test_timing();
	test_indexed();
	return check_report("test_antbuf");
}
