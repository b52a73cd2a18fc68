/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of libibvcap's blocks (lib/consumer/block.c, decode.c) on
 * rings made here, without EAL: two antennas of two streams placed frame
 * by frame as a capture would, then blocks taken: alignment and masks at a
 * lost frame, the end; an antenna gone silent (partial blocks, its late
 * frames skipped); a block overwritten while held (torn, its bits
 * cleared); a consumer a ring behind (an exact overrun, the jump on the
 * grid; a slow one resuming a quarter ring on, its blocks then intact); decoding 2-bit complex samples against levels worked out here;
 * the payload memories read and GPU memory refused. */

#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "codif_pattern.h"
#include "consumer.h"
#include "testfd.h"
#include "testhdr.h"

#define D 64
#define IDX0 100000 /* frame n of testhdr.h's stream is index IDX0 + n */
#define ROWS 64
#define WIN 4

static struct codif_clock clk;

struct rig {
	struct antbuf_prod p[2];
	struct shm_ctl ctl;
	struct ibvcap c;
};

static void
rig_make(struct rig *r, uint32_t T, unsigned int flags)
{
	struct antbuf_geom g = { 2, ROWS, WIN, D };
	size_t sz = antbuf_size(&g, true);
	struct codif_hdr h = test_hdr(0, 0, D);
	unsigned int a;

	memset(r, 0, sizeof(*r));
	codif_clock_init(&clk, &h);
	for (a = 0; a < 2; a++) {
		void *mem = aligned_alloc(ANTBUF_PAGE, sz);

		CHECK(antbuf_init(mem, sz, &g, true, a, a ? "ant1" : "ant0", 0x0A1100D3 + a) == 0);
		antbuf_prod_init(&r->p[a], mem, NULL, false);
		r->c.v.b[a] = mem;
	}
	r->ctl.state = SHM_RUNNING;
	r->c.v.ctl = &r->ctl;
	r->c.v.nant = 2;
	r->c.reg = -1;
	r->c.flags = flags;
	r->c.ants = 3;
	r->c.T = T;
	r->c.words = (T + 63) / 64;
	CHECK(cons_select_alloc(&r->c, NULL, 0) == 0);
	r->c.selected = true;
}

static void
rig_free(struct rig *r)
{
	cons_select_free(&r->c);
	free(r->c.v.b[0]);
	free(r->c.v.b[1]);
}

/* Frame n of both streams of antenna a (slot s of stream s). */
static void
put(struct rig *r, unsigned int a, int64_t n, unsigned int s)
{
	struct codif_hdr h = test_hdr(n, (uint16_t)s, D);
	uint8_t data[D], pkt[TEST_L2 + 64 + D];
	struct acct_fd fd;

	h.groupid = (uint16_t)(257 + a);
	codif_pattern_fill(&h, data, D);
	test_fd(&fd, pkt, &h, data, D, &clk, (uint16_t)s, 0, 0, 1000 + n);
	CHECK(antbuf_place(&r->p[a], &fd) == ANTBUF_PLACED);
}

/* Frames from..to-1 of antennas in mask, both streams, time-ordered. */
static void
put_range(struct rig *r, unsigned int mask, int64_t from, int64_t to)
{
	int64_t n;
	unsigned int a, s;

	for (n = from; n < to; n++)
		for (a = 0; a < 2; a++)
			for (s = 0; s < 2 && (mask >> a & 1); s++)
				put(r, a, n, s);
}

static void
stop(struct rig *r)
{
	antbuf_flush(&r->p[0]);
	antbuf_flush(&r->p[1]);
	r->ctl.state = SHM_STOPPED;
}

static bool
bit(const uint64_t *m, uint32_t i)
{
	return m[i / 64] >> (i % 64) & 1;
}

/* Whether frame i of view (k, s) of the block holds frame n's data as sent. */
static bool
data_ok(const struct ibvcap *c, uint32_t k, uint32_t s, uint32_t i, int64_t n)
{
	struct codif_hdr h = test_hdr(n, (uint16_t)s, D);
	uint8_t want[D];

	h.groupid = (uint16_t)(257 + k);
	codif_pattern_fill(&h, want, D);
	return memcmp(c->blk.view[k][s].frame[i], want, D) == 0;
}

/* Take every block to the end; the valid frames delivered in *frames. */
static unsigned int
drain(struct rig *r, uint64_t *frames)
{
	unsigned int n = 0;

	while (cons_block_try(&r->c) == 0) {
		cons_block_release(&r->c, false);
		n++;
	}
	*frames = r->c.st.frames;
	return n;
}

/* 40 frames of 2 antennas x 2 streams, frame 5 of antenna 1 stream 0
 * lost: 5 blocks of 8, aligned, that frame invalid, everything else valid
 * and as sent, then the end. */
static void
test_aligned(void)
{
	struct rig r;
	int64_t n;
	uint32_t k, s, i;
	uint64_t frames;

	rig_make(&r, 8, 0);
	CHECK_EQ_I(cons_block_try(&r.c), -EAGAIN); /* nothing yet */
	for (n = 0; n < 40; n++)
		for (k = 0; k < 2; k++)
			for (s = 0; s < 2; s++)
				if (!(k == 1 && s == 0 && n == 5))
					put(&r, k, n, s);
	CHECK_EQ_I(cons_block_try(&r.c), 0);
	CHECK_EQ_I(r.c.blk.index, IDX0);
	CHECK(r.c.blk.flags & IBVCAP_BLOCK_FIRST);
	CHECK_EQ_I(r.c.blk.time_ns, codif_clock_time_ns(&clk, IDX0));
	CHECK_EQ_U(r.c.blk.nants, 2);
	for (k = 0; k < 2; k++)
		for (s = 0; s < 2; s++) {
			const struct ibvcap_view *v = &r.c.blk.view[k][s];

			CHECK_EQ_U(v->data_bytes, D);
			CHECK_EQ_U(v->nbits, 8);
			CHECK(v->stride == 2 * D && v->data == v->frame[0]);
			CHECK_EQ_U(v->nvalid, k == 1 && s == 0 ? 7 : 8);
			for (i = 0; i < 8; i++) {
				CHECK(bit(v->valid, i) == !(k == 1 && s == 0 && i == 5));
				CHECK(!bit(v->valid, i) || data_ok(&r.c, k, s, i, i));
				/* test_fd's arrival time: 1000 + n; none where not valid */
				CHECK_EQ_I(v->arrival_ns[i], bit(v->valid, i) ? 1000 + i : 0);
			}
		}
	CHECK_EQ_I(cons_block_release(&r.c, false), 0);
	/* rows final up to 35: blocks [8, 16) .. [24, 32), then none yet */
	CHECK_EQ_U(drain(&r, &frames), 3);
	CHECK_EQ_I(r.c.blk.index, IDX0 + 24);
	stop(&r);
	CHECK_EQ_U(drain(&r, &frames), 1); /* [32, 40) */
	CHECK_EQ_I(cons_block_try(&r.c), -ENODATA);
	CHECK_EQ_U(frames, 2 * 2 * 40 - 1);
	CHECK_EQ_U(r.c.st.invalid, 1);
	CHECK_EQ_U(r.c.st.overrun + r.c.st.skipped + r.c.st.torn, 0);
	CHECK_EQ_U(r.c.st.blocks, 5);
	rig_free(&r);
}

/* Antenna 1 falls silent at frame 20 while antenna 0 goes on: once
 * antenna 0 is a quarter ring past a block, it comes without antenna 1
 * (PARTIAL); antenna 1's last rows, final only at the stop, are skipped. */
static void
test_silent(void)
{
	struct rig r;
	uint64_t frames;
	unsigned int blocks;

	rig_make(&r, 8, 0);
	put_range(&r, 3, 0, 20);
	put_range(&r, 1, 20, 60);
	/* [0, 8) and [8, 16) whole (antenna 1 final up to 15) */
	blocks = drain(&r, &frames);
	CHECK(blocks >= 3);
	CHECK_EQ_U(frames, 2 * 2 * 16 + 2 * 8 * (blocks - 2));
	CHECK(r.c.blk.flags & IBVCAP_BLOCK_PARTIAL);
	CHECK_EQ_U(r.c.blk.view[1][0].nvalid, 0);
	CHECK_EQ_U(r.c.blk.view[0][0].nvalid, 8);
	stop(&r);
	drain(&r, &frames);
	CHECK_EQ_I(cons_block_try(&r.c), -ENODATA);
	/* every valid frame placed: delivered, or antenna 1's frames 16..19
	 * (final after the blocks that held their indexes) skipped */
	CHECK_EQ_U(r.c.st.skipped, 2 * 4);
	CHECK_EQ_U(frames + r.c.st.skipped, 2 * 2 * 20 + 2 * 40);
	CHECK_EQ_U(r.c.st.overrun, 0);
	rig_free(&r);
}

/* A block held while the ring comes round: the check finds every row of
 * it overwritten, clears its bits, and the release counts it torn. */
static void
test_torn(void)
{
	struct rig r;
	uint32_t k, s;

	rig_make(&r, 8, 0);
	put_range(&r, 3, 0, 16);
	CHECK_EQ_I(cons_block_try(&r.c), 0);
	CHECK_EQ_I(cons_block_check(&r.c), 0); /* intact so far */
	put_range(&r, 3, 16, 16 + ROWS + 8);
	CHECK_EQ_I(cons_block_check(&r.c), 2 * 2 * 8);
	for (k = 0; k < 2; k++)
		for (s = 0; s < 2; s++)
			CHECK(r.c.blk.view[k][s].nvalid == 0 && r.c.blk.view[k][s].valid[0] == 0 &&
			      r.c.blk.view[k][s].arrival_ns[3] == 0);
	CHECK_EQ_I(cons_block_release(&r.c, true), 2 * 2 * 8);
	CHECK_EQ_U(r.c.st.torn, 32);
	CHECK_EQ_U(r.c.st.torn_blocks, 1);
	CHECK_EQ_U(r.c.st.frames, 0);
	CHECK(r.c.st.overrun >= 32);
	rig_free(&r);
}

/* A consumer a ring behind: the rows overwritten are counted exactly (the
 * valid frames in them), the next block is on the grid after them
 * (FIRST), and at the end delivered + overrun = every frame placed. */
static void
test_overrun(void)
{
	struct rig r;
	uint64_t frames, placed;
	int64_t n;

	rig_make(&r, 8, 0);
	put_range(&r, 3, 0, 16);
	CHECK_EQ_I(cons_block_try(&r.c), 0);
	cons_block_release(&r.c, false);
	/* 300 frames more, frame 150 of antenna 0 stream 1 lost */
	for (n = 16; n < 316; n++) {
		put(&r, 0, n, 0);
		if (n != 150)
			put(&r, 0, n, 1);
		put(&r, 1, n, 0);
		put(&r, 1, n, 1);
	}
	placed = 2 * 2 * 316 - 1;
	CHECK_EQ_I(cons_block_try(&r.c), 0);
	CHECK(r.c.blk.flags & IBVCAP_BLOCK_FIRST);
	CHECK(r.c.blk.flags & IBVCAP_BLOCK_OVERRUN);
	CHECK_EQ_I((r.c.blk.index - IDX0) % 8, 0);
	CHECK(r.c.blk.index > IDX0 + 8);
	CHECK(r.c.blk.overrun > 0);
	cons_block_release(&r.c, false);
	stop(&r);
	drain(&r, &frames);
	CHECK_EQ_I(cons_block_try(&r.c), -ENODATA);
	CHECK_EQ_U(frames + r.c.st.overrun, placed);
	CHECK_EQ_U(r.c.st.skipped, 0);
	rig_free(&r);
}

/* A slow consumer a ring behind resumes a quarter of the ring past the
 * oldest row (block.c's catch_up, as lib/writer's writers): while it holds
 * each block the producer writes a block's rows more, and none of its
 * blocks is overwritten while held; from the oldest row every one would
 * be (the overrun-forever of a consumer slower than a few rows a block).
 * At the end delivered + overrun = every frame placed, exactly. */
static void
test_catch_up(void)
{
	struct rig r;
	uint64_t frames, placed;
	int64_t n = 200, first = 0, to;
	int i;

	rig_make(&r, 8, 0);
	put_range(&r, 3, 0, 16);
	CHECK_EQ_I(cons_block_try(&r.c), 0);
	cons_block_release(&r.c, false);
	put_range(&r, 3, 16, n); /* a ring and more behind */
	/* where it resumes: a quarter of the ring past the oldest row still
	 * there, the final row being n - WIN (rows of the window are not) */
	to = n - WIN - (ROWS - WIN) * 3 / 4;
	for (i = 0; i < 10; i++) {
		CHECK_EQ_I(cons_block_try(&r.c), 0);
		if (i == 0) {
			/* the block on the grid holding that row, the rows before
			 * it overrun (from the oldest row, first would be its
			 * block and whole, and each next block torn while held) */
			first = r.c.blk.index - IDX0;
			CHECK_EQ_I(first, to / 8 * 8);
			CHECK(r.c.blk.flags & IBVCAP_BLOCK_OVERRUN);
			CHECK_EQ_U(r.c.blk.view[0][0].nvalid, first + 8 - to);
		} else {
			CHECK_EQ_I(r.c.blk.index - IDX0, first + 8 * i);
		}
		put_range(&r, 3, n, n + 8); /* the producer goes on meanwhile */
		n += 8;
		CHECK_EQ_I(cons_block_check(&r.c), 0);
		CHECK_EQ_I(cons_block_release(&r.c, true), 0);
	}
	CHECK_EQ_U(r.c.st.torn, 0);
	/* the first block, that part of the one it resumed in, 9 whole ones */
	CHECK_EQ_U(r.c.st.frames, 2 * 2 * (8 + (first + 8 - to) + 9 * 8));
	placed = (uint64_t)(2 * 2 * n);
	stop(&r);
	drain(&r, &frames);
	CHECK_EQ_U(frames + r.c.st.overrun, placed);
	rig_free(&r);
}

/* ibvcap_decode of 2-bit complex, 2 channels, two's complement: each byte
 * holds 4 components from its low bits up, levels -3/2, -1/2, 1/2, 3/2
 * for s = -2..1 (codes 2, 3, 0, 1). Worked out here for every byte. */
static void
test_decode(void)
{
	struct rig r;
	struct ibvcap_view *v;
	float out[4 * D];
	uint8_t frame[D];
	uint32_t j, k;
	int rc;

	rig_make(&r, 8, 0);
	put_range(&r, 3, 0, 16);
	CHECK_EQ_I(cons_block_try(&r.c), 0);
	r.c.held = true;
	/* the view of frame 0, antenna 0 stream 0, as a 2-bit stream */
	{
		struct codif_hdr h = test_signal_hdr(2, 2, true, 1, D);

		codif_encode(&h, r.c.ant[0].hdr[0]);
	}
	v = &r.c.ant[0].view[0];
	v->nbits = 2;
	v->nchan = 2;
	v->complex = 1;
	v->samples = D * 8 / (2 * 2 * 2);
	for (j = 0; j < D; j++)
		frame[j] = (uint8_t)(j * 37 + 11);
	r.c.ant[0].ptr[0] = frame;
	CHECK_EQ_I(ibvcap_decode(&r.c, &r.c.blk, 0, 0, 0, out, 4 * D - 1), -ENOSPC);
	rc = ibvcap_decode(&r.c, &r.c.blk, 0, 0, 0, out, 4 * D);
	CHECK_EQ_I(rc, 4 * D);
	for (j = 0; j < D; j++)
		for (k = 0; k < 4; k++) {
			int code = frame[j] >> (2 * k) & 3;
			float want = (float)(code >= 2 ? code - 4 : code) + 0.5f;

			CHECK(out[4 * j + k] == want);
		}
	CHECK_EQ_I(ibvcap_decode(&r.c, &r.c.blk, 2, 0, 0, out, 4 * D), -EINVAL);
	r.c.held = false;
	rig_free(&r);
}

/* The payload memories another process reads (host, mbuf) and the
 * refusal of GPU memory, naming the instance and why. */
static void
test_payload(void)
{
	struct shm_ctl ctl;
	char err[256];

	memset(&ctl, 0, sizeof(ctl));
	ctl.payload_mem = IBV_PAYLOAD_HOST;
	CHECK_EQ_I(cons_payload_check(&ctl, "a0", err, sizeof(err)), 0);
	ctl.payload_mem = IBV_PAYLOAD_MBUF;
	CHECK_EQ_I(cons_payload_check(&ctl, "a0", err, sizeof(err)), 0);
	ctl.payload_mem = IBV_PAYLOAD_GPU;
	CHECK_EQ_I(cons_payload_check(&ctl, "a0", err, sizeof(err)), -ENOTSUP);
	CHECK(strstr(err, "instance 'a0': its antenna payload is in GPU memory, which another "
			  "process cannot map") != NULL);
	ctl.payload_mem = 7;
	CHECK_EQ_I(cons_payload_check(&ctl, "a0", err, sizeof(err)), -EPROTO);
	CHECK(strstr(err, "payload memory kind 7") != NULL);
}

int
main(void)
{
	test_payload();
	test_aligned();
	test_silent();
	test_torn();
	test_overrun();
	test_catch_up();
	test_decode();
	return check_report("consumer blocks");
}
