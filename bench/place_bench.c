/* SPDX-License-Identifier: BSD-3-Clause */
/* Benchmark (not a test): the capture path per frame -- lib/acct checks and
 * counts, lib/antbuf places the payload -- over 8298-byte CODIF frames held
 * in memory, against this machine's single-core memcpy bandwidth of the
 * same 8192-byte blocks into a same-sized ring, measured in the same run,
 * with TSC cycles per frame of each. Every frame handed in (fresh and in
 * order: each pass is a later stretch of time) must be placed, or the bench
 * fails (exit 1). */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acct.h"
#include "antbuf.h"
#include "gen.h"
#include "tconv.h"


int
main(int argc, char **argv)
{
	unsigned int frames = argc > 1 ? (unsigned int)atoi(argv[1]) : 4000; /* per stream */
	double secs = argc > 2 ? atof(argv[2]) : 3.0;
	struct gen_cfg gc;
	struct gen g;
	struct gen_pkt p;
	struct acct_layout l;
	struct acct *a;
	struct antbuf *b[6];
	struct antbuf_prod prod[6];
	struct antbuf_geom geom = { 8, 4096, 64, 8192 };
	uint8_t **pkt, *src, *dst;
	uint32_t *len;
	size_t npkt = 0, cap, i, sz, ringbytes;
	double t0, t, copy_gbs, place_gbs, fps;
	uint64_t placed = 0, copied = 0, passes = 0, c0, c1, m0, m1;
	unsigned int k;

	/* the frames: 6 antennas x 4 groups x 2 threads, in order, no faults */
	gen_cfg_defaults(&gc);
	gc.frames = frames;
	if (gen_init(&g, &gc) != 0) {
		fprintf(stderr, "%s\n", g.err);
		return 1;
	}
	cap = (size_t)g.nstream * frames;
	pkt = malloc(cap * sizeof(*pkt));
	len = malloc(cap * sizeof(*len));
	while (gen_next(&g, &p) == 1 && npkt < cap) {
		pkt[npkt] = malloc(GEN_MAX_FRAME);
		len[npkt] = gen_build(&g, &p, pkt[npkt]);
		npkt++;
	}
	gen_layout(&gc, &l);
	sz = antbuf_size(&geom, true);
	for (k = 0; k < 6; k++) {
		b[k] = aligned_alloc(ANTBUF_PAGE, sz);
		antbuf_init(b[k], sz, &geom, true, k, "a", gc.ant_ip[k]);
		antbuf_prod_init(&prod[k], b[k], NULL, false);
		memset(antbuf_payload(b[k], NULL, 0, 0), 0, antbuf_payload_size(&geom));
	}
	ringbytes = antbuf_payload_size(&geom) * 6;

	/* baseline: memcpy of the same 8192-byte blocks into a ring of the same
	 * total size, sources taken from the same frames */
	dst = aligned_alloc(ANTBUF_PAGE, ringbytes);
	memset(dst, 0, ringbytes);
	t0 = mono_s();
	m0 = tsc_cycles();
	do {
		for (i = 0; i < npkt; i++) {
			src = pkt[i] + 42 + 64;
			memcpy(dst + (copied * 8192) % ringbytes, src, 8192);
			copied++;
		}
		t = mono_s() - t0;
	} while (t < secs);
	m1 = tsc_cycles();
	copy_gbs = (double)copied * 8192 / t / 1e9;

	/* the capture path: classify, count, place */
	t0 = mono_s();
	c0 = tsc_cycles();
	do {
		a = acct_create(&l);
		for (i = 0; i < npkt; i++) {
			struct acct_result r;

			acct_frame(a, 0, pkt[i], len[i], &r);
			if (acct_placeable(r.fd.cls)) {
				/* each pass is a later stretch of time: rows keep
				 * advancing */
				r.fd.index += (int64_t)(passes * frames);
				antbuf_fd_slot(&prod[r.ant], a, &r.fd);
				if (antbuf_place(&prod[r.ant], &r.fd) == ANTBUF_PLACED)
					placed++;
			}
		}
		acct_free(a);
		passes++;
		t = mono_s() - t0;
	} while (t < secs);
	c1 = tsc_cycles();
	place_gbs = (double)placed * 8192 / t / 1e9;
	fps = (double)placed / t;
	printf("frames held: %zu (8298 bytes each, %u streams)\n", npkt, g.nstream);
	printf("memcpy baseline:  %.2f GB/s of 8192-byte blocks (%.0f blocks/s)\n", copy_gbs,
	       copy_gbs * 1e9 / 8192);
	printf("capture+placement: %.2f GB/s payload, %.0f frames/s (%.1f Gb/s of 8298-byte frames)\n",
	       place_gbs, fps, fps * 8298 * 8 / 1e9);
	printf("ratio capture+placement / memcpy: %.3f\n", place_gbs / copy_gbs);
	if (TCONV_HAVE_TSC)
		printf("cycles per frame: %.0f (capture+placement), %.0f (memcpy)\n",
		       (double)(c1 - c0) / (double)placed,
		       (double)(m1 - m0) / (double)copied);
	gen_free(&g);
	/* every frame of every pass was fresh and in order: each must be placed */
	if (placed != (uint64_t)npkt * passes) {
		fprintf(stderr, "place_bench: FAIL: %" PRIu64 " frames placed of %" PRIu64
			" handed in\n", placed, (uint64_t)npkt * passes);
		return 1;
	}
	printf("check: placed = handed in = %" PRIu64 " (%" PRIu64 " passes)\n", placed, passes);
	return 0;
}
