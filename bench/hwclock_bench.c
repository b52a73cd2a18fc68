/* SPDX-License-Identifier: BSD-3-Clause */
/* Benchmark (not a test): the per-packet cost of lib/hwclock's device tick
 * -> Unix ns conversion on an rx lcore, in ns and TSC cycles per packet,
 * min/median/max over several runs, against a loop that only sums the
 * ticks (the floor the conversion adds to). */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwclock.h"
#include "tconv.h"

#define NPKT 4096  /* ticks converted per pass (fits L1/L2 with the results) */
#define BURST 32   /* packets per rx burst: one snapshot each */
#define NRUN_MAX 101

enum variant {
	V_SUM,          /* baseline: read each tick, sum it */
	V_BURST,        /* a snapshot per burst, then convert each packet */
	V_PACKET,       /* a snapshot for every packet */
	V_RT,           /* real-time identity (mult = 2^61) per burst */
	V_TSC_BURST,    /* host time as dpdk-ibvcap had it: one TSC read a burst */
	V_TSC_PACKET,   /* host time as it has it now: a TSC read per packet */
	V_NVARIANT,
};

static const char *const vname[V_NVARIANT] = {
	"sum only (baseline)",
	"snapshot/burst + convert",
	"snapshot + convert/packet",
	"real-time identity/burst",
	"host: TSC read/burst",
	"host: TSC read/packet",
};

static uint64_t ticks[NPKT];
static int64_t out[NPKT];

/* One pass over the ticks; what the rx loop would do per burst. */
static int64_t
pass(enum variant v, const struct hwclock_pub *pub)
{
	struct hwclock_conv cv;
	int64_t sum = 0;
	unsigned int i, j;

	switch (v) {
	case V_SUM:
		for (i = 0; i < NPKT; i++) {
			out[i] = (int64_t)ticks[i];
			sum += out[i];
		}
		break;
	case V_BURST:
	case V_RT:
		for (i = 0; i < NPKT; i += BURST) {
			if (hwclock_snapshot(pub, &cv) != 0)
				abort();
			for (j = i; j < i + BURST; j++) {
				out[j] = hwclock_conv_ns(&cv, ticks[j]);
				sum += out[j];
			}
		}
		break;
	case V_TSC_BURST:
		for (i = 0; i < NPKT; i += BURST) {
			int64_t t;

			if (hwclock_snapshot(pub, &cv) != 0)
				abort();
			t = hwclock_conv_ns(&cv, tsc_cycles());
			for (j = i; j < i + BURST; j++) {
				out[j] = t;
				sum += out[j];
			}
		}
		break;
	case V_TSC_PACKET:
		for (i = 0; i < NPKT; i += BURST) {
			if (hwclock_snapshot(pub, &cv) != 0)
				abort();
			for (j = i; j < i + BURST; j++) {
				out[j] = hwclock_conv_ns(&cv, tsc_cycles());
				sum += out[j];
			}
		}
		break;
	case V_PACKET:
		for (i = 0; i < NPKT; i++) {
			if (hwclock_snapshot(pub, &cv) != 0)
				abort();
			out[i] = hwclock_conv_ns(&cv, ticks[i]);
			sum += out[i];
		}
		break;
	default:
		break;
	}
	return sum;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	unsigned int nrun = argc > 1 ? (unsigned int)atoi(argv[1]) : 15;
	unsigned int passes = argc > 2 ? (unsigned int)atoi(argv[2]) : 2000;
	double ns[NRUN_MAX], cyc[NRUN_MAX], t0;
	struct hwclock_pub pub, pub_rt;
	struct hwclock_conv cv;
	volatile int64_t sink = 0;
	uint64_t c0, seed = 88172645463325252ULL, base = 1ULL << 40;
	unsigned int v, r, p, i;

	if (nrun < 1 || nrun > NRUN_MAX || passes < 1) {
		fprintf(stderr, "usage: %s [runs 1..%d] [passes]\n", argv[0], NRUN_MAX);
		return 2;
	}
	/* a 156.25 MHz clock 23 ppm fast, packets spread over the second
	 * after the base, some a little before it */
	hwclock_conv_line(&cv, base, 1700000000LL * HWCLOCK_NS_PER_S, 6.4 / 1.000023, 64);
	hwclock_pub_init(&pub);
	hwclock_pub_write(&pub, &cv);
	hwclock_init_rt(&pub_rt, false, -37 * HWCLOCK_NS_PER_S);
	for (i = 0; i < NPKT; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		ticks[i] = base - 1000 + seed % 156250000u;
	}

	printf("hwclock conversion, %u runs of %u passes over %d packets (bursts of %d)%s\n",
	       nrun, passes, NPKT, BURST, TCONV_HAVE_TSC ? "" : "; no TSC: cycles not measured");
	printf("%-28s %8s %8s %8s   %8s %8s %8s\n", "per packet", "ns min", "median", "max",
	       "cyc min", "median", "max");
	for (v = 0; v < V_NVARIANT; v++) {
		const struct hwclock_pub *pp = v == V_RT ? &pub_rt : &pub;

		for (p = 0; p < passes / 10 + 1; p++) /* warm up */
			sink += pass((enum variant)v, pp);
		for (r = 0; r < nrun; r++) {
			t0 = (double)mono_ns();
			c0 = tsc_cycles();
			for (p = 0; p < passes; p++)
				sink += pass((enum variant)v, pp);
			cyc[r] = (double)(tsc_cycles() - c0) / ((double)passes * NPKT);
			ns[r] = ((double)mono_ns() - t0) / ((double)passes * NPKT);
		}
		qsort(ns, nrun, sizeof(ns[0]), cmp_double);
		qsort(cyc, nrun, sizeof(cyc[0]), cmp_double);
		printf("%-28s %8.3f %8.3f %8.3f   %8.2f %8.2f %8.2f\n", vname[v], ns[0],
		       ns[nrun / 2], ns[nrun - 1], cyc[0], cyc[nrun / 2], cyc[nrun - 1]);
	}
	printf("(cycles are TSC ticks: the TSC's rate, not the core's clock)\n");
	return sink == 42 ? 1 : 0;
}
