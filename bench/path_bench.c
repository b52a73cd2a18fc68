/* SPDX-License-Identifier: BSD-3-Clause */
/* Benchmark (not a test): the capture path of the libraries on one core --
 * lib/acct classifies and counts, lib/antbuf places -- over fresh, valid,
 * in-order CODIF frames (every frame new: its time moves on each pass, so
 * nothing is a duplicate), against memcpy and non-temporal copies of the
 * same payload bytes measured in the same run. It checks what it counted:
 * every frame placed, none lost, late or duplicate, else it fails.
 *
 *   path_bench [--data-bytes N] [--antennas A] [--runs R] [--seconds S]
 *              [--mode copy|ref|account] [--groups G] [--rows N]
 *
 * --mode ref places by reference (the zero-copy mode: the ring keeps the
 * received buffer), copy (default) copies the payload into the ring,
 * account places nothing (lib/acct alone: the checks and counts).
 * Streams: G groups (default 4 up to 8 antennas, else 1) x 2 threads per
 * antenna; each antenna's ring N rows (default 1024, the capture's).
 *
 * --garbage unknown|malformed: instead, lib/acct alone on 60-byte packets
 * (ringgen's): from an address no antenna has, or from antenna 0's with an
 * 18-byte payload that cannot be CODIF; cycles per packet (best pass), and
 * the check that each was counted where it belongs.
 *
 * Besides each run's mean, the path's best pass (the least cycles per
 * frame of one pass over the held frames, a few ms) is printed: on a
 * shared VM the mean carries whatever preempted the core, the best pass
 * what the code costs. */

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "acct.h"
#include "antbuf.h"
#include "gen.h"
#include "tconv.h"

#define POOL_BYTES (256u << 20) /* frames held: well beyond the caches */
#define MAX_RUNS 31


/* TSC ticks per second, against CLOCK_MONOTONIC over 200 ms */
static double
tsc_hz(void)
{
	double t0 = mono_s(), t;
	uint64_t c0 = __rdtsc();

	do
		t = mono_s();
	while (t - t0 < 0.2);
	return (double)(__rdtsc() - c0) / (t - t0);
}

__attribute__((target("avx2"))) static void
copy_nt(void *dst, const void *src, size_t n)
{
	__m256i *d = dst;
	const __m256i *s = src;
	size_t i;

	for (i = 0; i < n / 32; i++)
		_mm256_stream_si256(d + i, _mm256_loadu_si256(s + i));
	_mm_sfence();
}

/* references the buffer lets go of (the capture frees an mbuf there) */
static uint64_t released;

static void
release(void *ctx, uintptr_t ref)
{
	(void)ctx;
	(void)ref;
	released++;
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct fig {
	double fps[MAX_RUNS], cyc[MAX_RUNS];
};

static void
print_fig(const char *what, struct fig *f, unsigned int n, unsigned int data)
{
	qsort(f->fps, n, sizeof(double), cmp_d);
	qsort(f->cyc, n, sizeof(double), cmp_d);
	printf("%-34s %9.0f %9.0f %9.0f  %6.2f %6.2f  %7.0f %7.0f %7.0f\n", what, f->fps[0],
	       f->fps[n / 2], f->fps[n - 1], f->fps[n / 2] * data / 1e9,
	       f->fps[n / 2] * data * 8 / 1e9, f->cyc[0], f->cyc[n / 2], f->cyc[n - 1]);
}

static void
usage(const char *p)
{
	fprintf(stderr, "usage: %s [--data-bytes 1024|2048|4096|8192] [--antennas 1..64] "
		"[--runs 1..%d] [--seconds S] [--mode copy|ref|account]\n"
		"\t[--groups 1..8] [--rows 128..2^k] [--garbage unknown|malformed]\n", p, MAX_RUNS);
	exit(2);
}

/* lib/acct alone on a flood of ringgen's 60-byte garbage packets (built
 * from frame f's headers); checks each was counted where it belongs */
static int
garbage_bench(const char *kind, const uint8_t *f, const struct acct_layout *l,
	      unsigned int runs, double secs, double hz)
{
	enum { NG = 4096 };
	static uint8_t g[NG][64];
	bool unknown = strcmp(kind, "unknown") == 0;
	struct fig fg;
	unsigned int r, i;
	uint16_t sum;

	memcpy(g[0], f, 42);
	memset(g[0] + 42, 0xa5, 18);
	g[0][16] = 0;
	g[0][17] = 46;   /* IPv4 total length: 20 + 8 + 18 */
	g[0][38] = 0;
	g[0][39] = 26;   /* UDP length: 8 + 18 */
	g[0][40] = g[0][41] = 0;
	if (unknown) {
		g[0][26] = 10; /* source 10.99.0.1: no antenna's */
		g[0][27] = 99;
		g[0][28] = 0;
		g[0][29] = 1;
	}
	g[0][24] = g[0][25] = 0;
	sum = pkt_ip_csum(g[0] + 14, 20);
	g[0][24] = (uint8_t)(sum >> 8);
	g[0][25] = (uint8_t)sum;
	for (i = 1; i < NG; i++)
		memcpy(g[i], g[0], 60);
	for (r = 0; r < runs; r++) {
		struct acct *a = acct_create(l);
		uint64_t n = 0, c0, got;
		double t0 = mono_s();

		fg.cyc[r] = 1e30;
		if (a == NULL)
			return 1;
		a->quiet = true;
		while (mono_s() - t0 < secs) {
			c0 = __rdtsc();
			for (i = 0; i < NG; i++) {
				struct acct_result res;

				acct_frame(a, 0, g[i], 60, &res);
			}
			c0 = __rdtsc() - c0;
			if ((double)c0 / NG < fg.cyc[r])
				fg.cyc[r] = (double)c0 / NG;
			n += NG;
		}
		got = unknown ? a->port[0].cause[ACCT_C_UNKNOWN_SOURCE] : a->ant[0].mal[ACCT_M_NOT_CODIF];
		if (got != n) {
			fprintf(stderr, "path_bench: FAILED its own check: %" PRIu64 " %s packets in, "
				"%" PRIu64 " counted %s\n", n, kind, got,
				unknown ? "unknown-source" : "not-codif");
			return 1;
		}
		fg.fps[r] = hz / fg.cyc[r];
		acct_free(a);
	}
	printf("%-34s %9s %9s %9s  %6s %6s  %7s %7s %7s\n", "per core, 60-byte packets", "pps min",
	       "median", "max", "", "", "cyc min", "median", "max");
	print_fig(unknown ? "garbage unknown-source, best pass" : "garbage malformed, best pass",
		  &fg, runs, 0);
	printf("check: every packet counted %s\n", unknown ? "unknown-source" : "not-codif");
	return 0;
}

/* the held frames' CODIF time moves on by `shift` frames: fresh again */
static void
advance(uint8_t **pkt, size_t npkt, const struct codif_hdr *tmpl, uint64_t fpp,
	int64_t shift)
{
	size_t i;

	for (i = 0; i < npkt; i++) {
		uint8_t *c = pkt[i] + 42;
		struct codif_hdr h;
		int64_t n;

		codif_decode(c, CODIF_HDR_LEN, &h, NULL, 0);
		n = (int64_t)(h.seconds / tmpl->period) * (int64_t)fpp + h.frame + shift;
		h.seconds = (uint32_t)((n / (int64_t)fpp) * tmpl->period);
		h.frame = (uint32_t)(n % (int64_t)fpp);
		codif_encode(&h, c);
	}
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "data-bytes", 1, NULL, 'd' }, { "antennas", 1, NULL, 'a' },
		{ "runs", 1, NULL, 'r' }, { "seconds", 1, NULL, 's' }, { "mode", 1, NULL, 'm' },
		{ "groups", 1, NULL, 'g' }, { "rows", 1, NULL, 'n' }, { "garbage", 1, NULL, 'G' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int data = 8192, nant = 6, runs = 5, ngroup = 0, nrows = 1024, k, r, c;
	double secs = 2.0, hz;
	bool ref = false, acct_only = false;
	const char *garbage = NULL;
	struct gen_cfg gc;
	struct gen g;
	struct gen_pkt p;
	struct acct_layout l;
	struct acct *a;
	struct antbuf *b[ACCT_MAX_ANTENNAS];
	struct antbuf_prod prod[ACCT_MAX_ANTENNAS];
	struct antbuf_geom geom;
	uint8_t **pkt, *ring;
	uint32_t *len;
	size_t npkt = 0, cap, i, sz, ringbytes, nslots;
	uint64_t fpp, per_stream, done = 0, placed = 0, pos = 0;
	int64_t shift = 0;
	struct fig fm, fn, fp, fb;
	uintptr_t *refs;

	while ((c = (unsigned int)getopt_long(argc, argv, "", lo, NULL)) != (unsigned int)-1) {
		switch (c) {
		case 'd': data = (unsigned int)atoi(optarg); break;
		case 'a': nant = (unsigned int)atoi(optarg); break;
		case 'r': runs = (unsigned int)atoi(optarg); break;
		case 's': secs = atof(optarg); break;
		case 'g': ngroup = (unsigned int)atoi(optarg); break;
		case 'n': nrows = (unsigned int)atoi(optarg); break;
		case 'G': garbage = optarg;
			if (strcmp(garbage, "unknown") != 0 && strcmp(garbage, "malformed") != 0)
				usage(argv[0]);
			break;
		case 'm': ref = strcmp(optarg, "ref") == 0;
			acct_only = strcmp(optarg, "account") == 0;
			if (!ref && !acct_only && strcmp(optarg, "copy") != 0)
				usage(argv[0]);
			break;
		default: usage(argv[0]);
		}
	}
	if (data < 1024 || data > 8192 || (data & (data - 1)) || nant < 1 ||
	    nant > ACCT_MAX_ANTENNAS || runs < 1 || runs > MAX_RUNS || secs <= 0 ||
	    ngroup > 8 || nrows < 128 || (nrows & (nrows - 1)))
		usage(argv[0]);

	/* the frames: A antennas x G groups x 2 threads, in order, no faults */
	gen_cfg_defaults(&gc);
	gc.nant = nant;
	gc.ngroup = ngroup != 0 ? ngroup : nant <= 8 ? 4 : 1;
	for (k = 0; k < nant; k++) { /* the capture's --antenna-base + i */
		gc.ant_ip[k] = gc.ant_ip[0] + k;
		gc.ant_groups[k] = (1ULL << gc.ngroup) - 1;
	}
	gc.tmpl.framelength8 = data / 8;
	per_stream = POOL_BYTES / (data + 106) / (nant * gc.ngroup * gc.nthread);
	gc.frames = per_stream < 2 ? 2 : per_stream;
	if (gen_init(&g, &gc) != 0) {
		fprintf(stderr, "path_bench: %s\n", g.err);
		return 1;
	}
	fpp = codif_frames_per_period(&gc.tmpl);
	cap = (size_t)g.nstream * gc.frames;
	pkt = malloc(cap * sizeof(*pkt));
	len = malloc(cap * sizeof(*len));
	while (npkt < cap && gen_next(&g, &p) == 1) {
		pkt[npkt] = aligned_alloc(64, (GEN_MAX_FRAME + 63) / 64 * 64);
		len[npkt] = gen_build(&g, &p, pkt[npkt]);
		npkt++;
	}
	gen_layout(&gc, &l);
	/* each antenna a ring of nrows rows (the capture's default 1024) */
	nslots = gc.ngroup * gc.nthread;
	geom = (struct antbuf_geom){ (uint32_t)nslots, nrows, 64, data };
	sz = antbuf_size(&geom, !ref);
	for (k = 0; k < nant; k++) {
		b[k] = aligned_alloc(ANTBUF_PAGE, (sz + ANTBUF_PAGE - 1) / ANTBUF_PAGE * ANTBUF_PAGE);
		antbuf_init(b[k], sz, &geom, !ref, k, "a", gc.ant_ip[k]);
		antbuf_prod_init(&prod[k], b[k], NULL, false);
		if (!ref)
			memset(antbuf_payload(b[k], NULL, 0, 0), 0, antbuf_payload_size(&geom));
	}
	refs = calloc((size_t)nant * nrows * nslots, sizeof(*refs));
	if (pkt == NULL || len == NULL || refs == NULL) {
		fprintf(stderr, "path_bench: out of memory\n");
		return 1;
	}
	ringbytes = (size_t)nant * nrows * nslots * data;
	ring = aligned_alloc(ANTBUF_PAGE, ringbytes);
	memset(ring, 0, ringbytes);
	hz = tsc_hz();
	if (garbage != NULL)
		return garbage_bench(garbage, pkt[0], &l, runs, secs, hz);

	printf("path_bench: %u antennas x %u streams, %u data bytes, %zu frames held "
	       "(%.0f MiB), %s, TSC %.3f GHz\n", nant, g.nstream / nant, data, npkt,
	       (double)npkt * (data + 106) / (1 << 20), acct_only ? "accounting only" :
	       ref ? "zero-copy (by reference)" : "copy", hz / 1e9);
	printf("%-34s %9s %9s %9s  %6s %6s  %7s %7s %7s\n", "per core", "fps min", "median",
	       "max", "GB/s", "Gb/s", "cyc min", "median", "max");

	for (r = 0; r < runs; r++) {
		double t0, t;
		uint64_t n = 0, c0;

		/* memcpy of the same payload bytes into a ring of the same size */
		t0 = mono_s();
		c0 = __rdtsc();
		do {
			for (i = 0; i < npkt; i++, pos++)
				memcpy(ring + (pos * data) % ringbytes, pkt[i] + 42 + 64, data);
			n += npkt;
			t = mono_s() - t0;
		} while (t < secs);
		fm.fps[r] = (double)n / t;
		fm.cyc[r] = (double)(__rdtsc() - c0) / (double)n;

		/* the same with non-temporal stores (AVX2) */
		n = 0;
		t0 = mono_s();
		c0 = __rdtsc();
		do {
			for (i = 0; i < npkt; i++, pos++)
				copy_nt(ring + (pos * data) % ringbytes, pkt[i] + 42 + 64, data);
			n += npkt;
			t = mono_s() - t0;
		} while (t < secs);
		fn.fps[r] = (double)n / t;
		fn.cyc[r] = (double)(__rdtsc() - c0) / (double)n;

		/* the path: classify, count, place; fresh frames every pass */
		a = acct_create(&l);
		for (k = 0; k < nant; k++) {
			struct antbuf_geom g2 = geom;

			antbuf_init(b[k], sz, &g2, !ref, k, "a", gc.ant_ip[k]);
			antbuf_prod_init(&prod[k], b[k], NULL, false);
			if (ref)
				antbuf_set_indexed(&prod[k], 0, refs + (size_t)k * nrows * nslots,
						   release, NULL);
		}
		n = 0;
		t = 0;
		c0 = 0;
		fb.cyc[r] = 1e30;
		while (t < secs) {
			double t1;
			uint64_t c1;

			if (n > 0) {
				shift += (int64_t)gc.frames;
				advance(pkt, npkt, &gc.tmpl, fpp, (int64_t)gc.frames);
			}
			t1 = mono_s();
			c1 = __rdtsc();
			for (i = 0; i < npkt; i++) {
				struct acct_result res;

				acct_frame(a, 0, pkt[i], len[i], &res);
				if (!acct_placeable(res.fd.cls) || acct_only)
					continue;
				antbuf_fd_slot(&prod[res.ant], a, &res.fd);
				if (ref) {
					if (antbuf_place_ref(&prod[res.ant], &res.fd, i * (data + 128),
							     (uintptr_t)i + 1, data) == ANTBUF_PLACED)
						placed++;
				} else if (antbuf_place(&prod[res.ant], &res.fd) == ANTBUF_PLACED) {
					placed++;
				}
			}
			c1 = __rdtsc() - c1;
			c0 += c1;
			if ((double)c1 / (double)npkt < fb.cyc[r])
				fb.cyc[r] = (double)c1 / (double)npkt;
			t += mono_s() - t1;
			n += npkt;
		}
		for (k = 0; k < nant && ref; k++)
			antbuf_release_all(&prod[k]);
		fp.fps[r] = (double)n / t;
		fp.cyc[r] = (double)c0 / (double)n;
		fb.fps[r] = hz / fb.cyc[r];
		done += n;
		{
			/* what it counted: every frame received and placed */
			struct acct_counts cnt;
			uint64_t bp = 0;

			memset(&cnt, 0, sizeof(cnt));
			cnt.first_ns = INT64_MAX;
			cnt.last_ns = INT64_MIN;
			for (k = 0; k < nant; k++) {
				acct_ant_add(a, k, &cnt);
				bp += b[k]->placed;
			}
			if (acct_only)
				bp = n;
			if (cnt.received != n || cnt.lost || cnt.late || cnt.duplicate ||
			    cnt.malformed || bp != n) {
				fprintf(stderr, "path_bench: FAILED its own check: %" PRIu64
					" frames in, received %" PRIu64 " lost %" PRIu64 " late %"
					PRIu64 " duplicate %" PRIu64 " malformed %" PRIu64
					", placed %" PRIu64 "\n", n, cnt.received, cnt.lost, cnt.late,
					cnt.duplicate, cnt.malformed, bp);
				return 1;
			}
		}
		acct_free(a);
	}
	print_fig("memcpy (glibc)", &fm, runs, data);
	print_fig("non-temporal copy (AVX2)", &fn, runs, data);
	print_fig(acct_only ? "acct alone" : ref ? "acct + antbuf, by reference" :
		  "acct + antbuf (copy)", &fp, runs, data);
	print_fig(acct_only ? "acct alone, best pass" : ref ? "by reference, best pass" :
		  "copy, best pass", &fb, runs, data);
	printf("ratio path / memcpy (medians): %.3f; path / non-temporal: %.3f\n",
	       fp.fps[runs / 2] / fm.fps[runs / 2], fp.fps[runs / 2] / fn.fps[runs / 2]);
	printf("check: %" PRIu64 " frames, every one received%s once "
	       "(none lost, late, duplicate)\n", done, acct_only ? "" : " and placed");
	(void)placed;
	(void)shift;
	gen_free(&g);
	return 0;
}
