/* SPDX-License-Identifier: BSD-3-Clause */
/* Benchmark (not a test): libibvcap's aligned blocks read against memcpy of
 * the same bytes, one core. Rings of 6 antennas x 2 streams x 512 frames
 * (payload inline, as --payload copy) are filled here through lib/antbuf's
 * producer, with one frame in 101 lost, and flushed; then, each PASSES
 * times (medians printed):
 *
 *   blocks       every block taken and released, no payload touched: what
 *                the library costs per frame
 *   blocks+copy  every valid frame of every block copied out (memcpy) into
 *                a block-sized buffer: a consumer that reads its data
 *   memcpy       the same bytes copied from one contiguous buffer into the
 *                same block-sized buffer: the baseline
 *
 *   consumer_bench [FRAME_BYTES [T [PASSES]]]
 *
 * One line per kind: "consumer FRAME_BYTES T NAME FRAMES SECONDS
 * CYCLES_PER_FRAME FRAMES_PER_S GB_PER_S", then the ratio blocks+copy /
 * memcpy. Checks (exit 1 on a failure): every pass delivers every valid
 * frame placed, none overrun; an untimed pass sums the 64-bit words of
 * every frame it was handed and compares with the sum of what was placed. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codif_pattern.h"
#include "consumer.h"
#include "tconv.h"
#include "testfd.h"
#include "testhdr.h"

#define NANT 2 * 3
#define SLOTS 2
#define ROWS 512
#define WIN 8
#define NFRAMES (ROWS - 4 * WIN) /* all of them in the ring at the end */

struct bench {
	struct antbuf *b[NANT];
	struct shm_ctl ctl;
	uint32_t size, T;
	uint64_t placed;     /* valid frames placed */
	uint64_t sum;        /* their payloads' 64-bit words, summed */
	uint8_t *out;        /* a block's worth of frames */
	uint8_t *src;        /* the baseline's contiguous source */
};

static bool
lost(int64_t n, unsigned int a, unsigned int s)
{
	return (n * 7 + a * 3 + s) % 101 == 0;
}

static uint64_t
words_sum(const uint8_t *p, size_t n)
{
	uint64_t s = 0, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		s += w;
	}
	return s;
}

/* Rings filled with frames 0..NFRAMES-1, time-ordered, then flushed. */
static int
fill(struct bench *bn)
{
	struct antbuf_geom g = { SLOTS, ROWS, WIN, bn->size };
	size_t sz = antbuf_size(&g, true);
	struct antbuf_prod p[NANT];
	struct codif_clock clk;
	struct codif_hdr h0 = test_hdr(0, 0, bn->size);
	uint8_t *pkt = malloc(TEST_L2 + 64 + (size_t)bn->size);
	unsigned int a, s;
	int64_t n;

	if (pkt == NULL)
		return -ENOMEM;
	codif_clock_init(&clk, &h0);
	for (a = 0; a < NANT; a++) {
		bn->b[a] = aligned_alloc(ANTBUF_PAGE, sz);
		if (bn->b[a] == NULL || antbuf_init(bn->b[a], sz, &g, true, a, "ant", 0x0A000001 + a))
			return -ENOMEM;
		antbuf_prod_init(&p[a], bn->b[a], NULL, false);
	}
	for (n = 0; n < NFRAMES; n++)
		for (a = 0; a < NANT; a++)
			for (s = 0; s < SLOTS; s++) {
				struct codif_hdr h = test_hdr(n, (uint16_t)s, bn->size);
				struct acct_fd fd;

				if (lost(n, a, s))
					continue;
				h.groupid = (uint16_t)(257 + a);
				codif_pattern_fill(&h, pkt + TEST_L2 + 64, bn->size);
				test_fd(&fd, pkt, &h, NULL, bn->size, &clk, (uint16_t)s, 0, 0, n);
				if (antbuf_place(&p[a], &fd) != ANTBUF_PLACED)
					return -EPROTO;
				bn->placed++;
				bn->sum += words_sum(pkt + TEST_L2 + 64, bn->size);
			}
	for (a = 0; a < NANT; a++)
		antbuf_flush(&p[a]);
	free(pkt);
	return 0;
}

/* A consumer of every antenna from the oldest frame, as ibvcap_select
 * makes one. */
static int
consumer_make(struct bench *bn, struct ibvcap *c)
{
	unsigned int a;

	memset(c, 0, sizeof(*c));
	c->v.ctl = &bn->ctl;
	c->v.nant = NANT;
	for (a = 0; a < NANT; a++)
		c->v.b[a] = bn->b[a];
	c->reg = -1;
	c->flags = IBVCAP_OPEN_OLDEST;
	c->ants = (1ULL << NANT) - 1;
	c->T = bn->T;
	c->words = (bn->T + 63) / 64;
	c->selected = true;
	return cons_select_alloc(c, NULL, 0);
}

enum kind { K_BLOCKS, K_COPY, K_SUM };

/* One pass over every block: *bytes of valid frames handed out (K_SUM:
 * *sum of their words). @return the valid frames delivered, or -1. */
static int64_t
pass(struct bench *bn, enum kind kind, uint64_t *bytes, uint64_t *sum)
{
	struct ibvcap c;
	uint32_t k, s, i;
	int rc;

	if (consumer_make(bn, &c) != 0)
		return -1;
	*bytes = *sum = 0;
	while ((rc = cons_block_try(&c)) == 0) {
		size_t off = 0;

		for (k = 0; kind != K_BLOCKS && k < c.blk.nants; k++)
			for (s = 0; s < c.blk.nstreams[k]; s++) {
				const struct ibvcap_view *v = &c.blk.view[k][s];

				for (i = 0; i < c.blk.frames; i++) {
					if (!(v->valid[i / 64] >> (i % 64) & 1))
						continue;
					if (kind == K_SUM)
						*sum += words_sum(v->frame[i], v->data_bytes);
					else
						memcpy(bn->out + off, v->frame[i], v->data_bytes);
					off += v->data_bytes;
				}
			}
		*bytes += off;
		cons_block_release(&c, false);
	}
	cons_select_free(&c);
	if (rc != -ENODATA || c.st.overrun != 0 || c.st.frames != bn->placed) {
		fprintf(stderr, "consumer_bench: a pass ended %d with %" PRIu64 " frames of %" PRIu64
			" placed, %" PRIu64 " overrun\n", rc, c.st.frames, bn->placed, c.st.overrun);
		return -1;
	}
	return (int64_t)c.st.frames;
}

/* The baseline: bytes from the contiguous source into the block buffer,
 * a block's worth at a time. */
static void
baseline(struct bench *bn, uint64_t bytes)
{
	size_t blk = (size_t)bn->T * NANT * SLOTS * bn->size, off = 0, n;

	while (off < bytes) {
		n = bytes - off < blk ? (size_t)(bytes - off) : blk;
		memcpy(bn->out, bn->src + off, n);
		off += n;
	}
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* PASSES timed runs of one kind; the median's line. @return 0, -1. */
static int
timed(struct bench *bn, const char *name, int kind, unsigned int passes, double *median_s)
{
	double t[64], c[64];
	uint64_t bytes = bn->placed * bn->size, sum;
	unsigned int p;

	for (p = 0; p < passes; p++) {
		double t0 = mono_s();
		uint64_t c0 = tsc_cycles();

		if (kind < 0)
			baseline(bn, bytes);
		else if (pass(bn, (enum kind)kind, &bytes, &sum) < 0)
			return -1;
		c[p] = (double)(tsc_cycles() - c0);
		t[p] = mono_s() - t0;
	}
	qsort(t, passes, sizeof(double), cmp_d);
	qsort(c, passes, sizeof(double), cmp_d);
	*median_s = t[passes / 2];
	printf("consumer %u %u %s %" PRIu64 " %.4f %.1f %.0f %.2f\n", bn->size, bn->T, name,
	       bn->placed, *median_s, TCONV_HAVE_TSC ? c[passes / 2] / (double)bn->placed : 0.0,
	       (double)bn->placed / *median_s,
	       (double)bn->placed * bn->size / *median_s / 1e9);
	return 0;
}

int
main(int argc, char **argv)
{
	struct bench bn = { .size = 8192, .T = 64 };
	unsigned int passes = 5;
	uint64_t bytes, sum;
	double t_blocks, t_copy, t_memcpy;

	if (argc > 1)
		bn.size = (uint32_t)strtoul(argv[1], NULL, 0);
	if (argc > 2)
		bn.T = (uint32_t)strtoul(argv[2], NULL, 0);
	if (argc > 3)
		passes = (unsigned int)strtoul(argv[3], NULL, 0);
	if (bn.size < 64 || bn.size > 65536 || bn.size % 8 || bn.T < 1 || bn.T > ROWS / 4 ||
	    passes < 1 || passes > 64) {
		fprintf(stderr, "consumer_bench: expected FRAME_BYTES 64..65536 (a multiple of 8), "
			"T 1..%d, PASSES 1..64\n", ROWS / 4);
		return 2;
	}
	bn.ctl.state = SHM_STOPPED;
	bn.out = malloc((size_t)bn.T * NANT * SLOTS * bn.size);
	bn.src = malloc((size_t)NFRAMES * NANT * SLOTS * bn.size);
	if (bn.out == NULL || bn.src == NULL || fill(&bn) != 0) {
		fprintf(stderr, "consumer_bench: cannot fill the rings\n");
		return 2;
	}
	memset(bn.src, 0x5a, (size_t)NFRAMES * NANT * SLOTS * bn.size);
	if (pass(&bn, K_SUM, &bytes, &sum) < 0 || sum != bn.sum ||
	    bytes != bn.placed * bn.size) {
		fprintf(stderr, "consumer_bench: the frames handed out are not the frames placed "
			"(sum %" PRIx64 ", placed %" PRIx64 ")\n", sum, bn.sum);
		return 1;
	}
	printf("# %d antennas x %d streams x %d frames of %u bytes, %" PRIu64 " valid (1 in 101 "
	       "lost), blocks of %u; medians of %u passes\n", NANT, SLOTS, NFRAMES, bn.size,
	       bn.placed, bn.T, passes);
	printf("# consumer SIZE T NAME FRAMES SECONDS CYCLES_PER_FRAME FPS GB/S\n");
	if (timed(&bn, "blocks", K_BLOCKS, passes, &t_blocks) != 0 ||
	    timed(&bn, "blocks+copy", K_COPY, passes, &t_copy) != 0 ||
	    timed(&bn, "memcpy", -1, passes, &t_memcpy) != 0)
		return 1;
	printf("ratio blocks+copy / memcpy (rate): %.2f\n", t_memcpy / t_copy);
	return 0;
}
