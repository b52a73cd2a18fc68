/* SPDX-License-Identifier: BSD-3-Clause */
/* Benchmark (not a test): the cost of lib/quicklook on an rx lcore -- per
 * sampled 8 KiB CODIF frame at each sample encoding, in ns and TSC cycles,
 * and amortised per received frame at the default sampling rate (one in
 * QL_EVERY_DEFAULT), min/median/max over several runs, against the wire
 * time of one such frame at 100 Gb/s; then the rx lcore's copy of a
 * sampled frame for the main lcore (ql_keep.h) and the main lcore's cost
 * per kept frame: the sampler statistics (ql_bstate) and a spectrum
 * (ql_spec, FFTW), and what that is per second at the defaults. */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codif.h"
#include "codif_signal.h"
#include "ql_bstate.h"
#include "ql_keep.h"
#include "ql_spec.h"
#include "quicklook.h"
#include "tconv.h"

#define DATA_BYTES 8192
#define NFRAME 64        /* distinct frames cycled through (512 KiB: L2-ish) */
#define NRUN_MAX 101
/* one 8298-byte frame + 20 bytes of preamble and gap at 100 Gb/s */
#define WIRE_NS ((8298.0 + 20.0) * 8.0 / 100.0)

struct enc {
	const char *name;
	unsigned int nbits, repr, nchan;
	bool cplx;
	double rms;
};

/* ASKAP-like layout (4 channels, complex) at every nbits; then layouts
 * that take the other paths: a sub-byte histogram of 8-byte periods,
 * sub-byte expanded to int8 (a period over 64 components), channel groups
 * (over 64 channels), runs (over 1024 components a time sample) */
static const struct enc encs[] = {
	{ "1-bit c4", 1, 1, 4, true, 1.0 },
	{ "2-bit c4", 2, 1, 4, true, 1.0 },
	{ "4-bit c4", 4, 1, 4, true, 2.5 },
	{ "8-bit c4", 8, 1, 4, true, 20 },
	{ "8-bit c4 offset", 8, 0, 4, true, 20 },
	{ "16-bit c4", 16, 1, 4, true, 1000 },
	{ "32-bit c4", 32, 1, 4, true, 1e6 },
	{ "float32 c4", 32, 2, 4, true, 1.5 },
	{ "8-bit r1", 8, 1, 1, false, 20 },
	{ "16-bit c64", 16, 1, 64, true, 1000 },
	{ "1-bit c32 (hist 8 B)", 1, 1, 32, true, 1.0 },
	{ "8-bit c256", 8, 1, 256, true, 20 },
	{ "2-bit r512 (expanded)", 2, 1, 512, false, 1.0 },
	{ "8-bit c1024 (runs)", 8, 1, 1024, true, 20 },
	{ "16-bit c1024 (runs)", 16, 1, 1024, true, 1000 },
};

static uint8_t data[NFRAME][DATA_BYTES];
static struct codif_hdr hdrs[NFRAME];
static struct ql_acc acc;
static struct ql_keep keep;
static struct qlb_acc qlb;
static struct qls_acc qls;

/* what one pass over the frames does to frame i (keep_pass's jobs) */
enum job { J_COPY, J_BSTATE, J_SPECTRUM };

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
make_frames(const struct enc *e)
{
	struct codif_signal s;
	unsigned int i;

	codif_signal_noise(&s, e->rms, 1);
	s.chan_slope = 0.1;
	for (i = 0; i < NFRAME; i++) {
		struct codif_hdr *h = &hdrs[i];

		memset(h, 0, sizeof(*h));
		h->sync = CODIF_SYNC;
		h->protocol = CODIF_PROTOCOL;
		h->version = 3;
		h->epoch = 50;
		h->seconds = 5918400;
		h->period = 27;
		h->nbits = (uint8_t)e->nbits;
		h->representation = (uint8_t)e->repr;
		h->complex = e->cplx;
		h->nchan = (uint16_t)e->nchan;
		h->framelength8 = DATA_BYTES / 8;
		h->frame = i;
		if (codif_signal_fill(&s, h, data[i], DATA_BYTES) != 0) {
			fprintf(stderr, "%s: cannot generate\n", e->name);
			exit(1);
		}
	}
}

/* Per sampled frame: every frame through ql_frame. */
static void
run_sampled(unsigned int passes, double *ns, double *cyc)
{
	double t0 = (double)mono_ns();
	uint64_t c0 = tsc_cycles();
	unsigned int p, i;

	for (p = 0; p < passes; p++)
		for (i = 0; i < NFRAME; i++)
			ql_frame(&acc, &hdrs[i], data[i], DATA_BYTES);
	*cyc = (double)(tsc_cycles() - c0) / ((double)passes * NFRAME);
	*ns = ((double)mono_ns() - t0) / ((double)passes * NFRAME);
}

/* Per received frame: the decision for every frame, ql_frame for the
 * sampled ones (sample != 0), or the decision alone (sample == 0). */
static void
run_received(unsigned int passes, bool sample, double *ns, double *cyc)
{
	volatile uint64_t sink = 0;
	double t0 = (double)mono_ns();
	uint64_t c0 = tsc_cycles(), n = 0;
	unsigned int p, i;

	for (p = 0; p < passes; p++)
		for (i = 0; i < NFRAME; i++)
			if (ql_sample(&acc, 0)) {
				if (sample)
					ql_frame(&acc, &hdrs[i], data[i], DATA_BYTES);
				else
					n++;
			}
	sink = n;
	(void)sink;
	*cyc = (double)(tsc_cycles() - c0) / ((double)passes * NFRAME);
	*ns = ((double)mono_ns() - t0) / ((double)passes * NFRAME);
}

/* Per kept frame: the rx lcore's copy (the consumer frees the slot, not
 * timed apart: a load and a store), or the main lcore's analysis. */
static void
keep_pass(unsigned int passes, enum job j, double *ns, double *cyc)
{
	uint8_t hdr[CODIF_HDR_LEN];
	double t0 = (double)mono_ns();
	uint64_t c0 = tsc_cycles();
	unsigned int p, i;
	size_t len;

	codif_encode(&hdrs[0], hdr);
	for (p = 0; p < passes; p++)
		for (i = 0; i < NFRAME; i++) {
			if (j == J_COPY) {
				qlk_put(&keep, hdr, data[i], DATA_BYTES);
				if (qlk_peek(&keep, &len) != NULL)
					qlk_done(&keep);
			} else if (j == J_BSTATE) {
				qlb_add(&qlb, data[i], DATA_BYTES);
			} else {
				qls_add(&qls, data[i], DATA_BYTES);
			}
		}
	*cyc = (double)(tsc_cycles() - c0) / ((double)passes * NFRAME);
	*ns = ((double)mono_ns() - t0) / ((double)passes * NFRAME);
}

static void
print_row(const char *name, double *ns, double *cyc, unsigned int nrun, bool wire)
{
	qsort(ns, nrun, sizeof(ns[0]), cmp_double);
	qsort(cyc, nrun, sizeof(cyc[0]), cmp_double);
	printf("%-24s %9.1f %9.1f %9.1f   %9.0f %9.0f %9.0f", name, ns[0], ns[nrun / 2],
	       ns[nrun - 1], cyc[0], cyc[nrun / 2], cyc[nrun - 1]);
	if (wire)
		printf("   %5.2f%%", 100.0 * ns[nrun / 2] / WIRE_NS);
	printf("\n");
}

/* The kept frames: the rx lcore's copy, the main lcore's analysis. */
static int
keep_rows(unsigned int nrun, unsigned int passes)
{
	static const unsigned int which[] = { 1, 3, 5 }; /* 2, 8 and 16-bit c4 */
	double ns[NRUN_MAX], cyc[NRUN_MAX], bst[3];
	char name[64], err[128];
	unsigned int e, r;

	printf("\nper kept frame (--quicklook-min): the rx lcore's copy; the main "
	       "lcore's sampler statistics and spectrum (nfft 128)\n");
	printf("%-24s %9s %9s %9s   %9s %9s %9s\n", "", "ns min", "median", "max",
	       "cyc min", "median", "max");
	for (e = 0; e < 3; e++) {
		make_frames(&encs[which[e]]);
		keep_pass(passes, J_COPY, &ns[0], &cyc[0]);
		for (r = 0; r < nrun; r++)
			keep_pass(passes, J_COPY, &ns[r], &cyc[r]);
		snprintf(name, sizeof(name), "copy %s", encs[which[e]].name);
		print_row(name, ns, cyc, nrun, false);
		if (qlb_init(&qlb, &hdrs[0], 4, err, sizeof(err)) != 0 ||
		    qls_init(&qls, &hdrs[0], 128, err, sizeof(err)) != 0) {
			fprintf(stderr, "%s: %s\n", encs[which[e]].name, err);
			return 1;
		}
		for (r = 0; r < nrun; r++)
			keep_pass(passes / 8 + 1, J_BSTATE, &ns[r], &cyc[r]);
		snprintf(name, sizeof(name), "bstate %s", encs[which[e]].name);
		print_row(name, ns, cyc, nrun, false);
		bst[e] = ns[nrun / 2];
		for (r = 0; r < nrun; r++)
			keep_pass(passes / 8 + 1, J_SPECTRUM, &ns[r], &cyc[r]);
		snprintf(name, sizeof(name), "spectrum %s", encs[which[e]].name);
		print_row(name, ns, cyc, nrun, false);
		qls_free(&qls);
	}
	printf("(main lcore at the defaults, --quicklook-min %u a 1 s window: per stream "
	       "%.2f / %.2f / %.2f ms of CPU a second (2 / 8 / 16-bit c4), plus the "
	       "spectrum of the one antenna asked for)\n", QL_MIN_DEFAULT,
	       QL_MIN_DEFAULT * bst[0] / 1e6, QL_MIN_DEFAULT * bst[1] / 1e6,
	       QL_MIN_DEFAULT * bst[2] / 1e6);
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned int nrun = argc > 1 ? (unsigned int)atoi(argv[1]) : 11;
	unsigned int passes = argc > 2 ? (unsigned int)atoi(argv[2]) : 40;
	double ns[NRUN_MAX], cyc[NRUN_MAX], med_frame[sizeof(encs) / sizeof(encs[0])];
	struct ql_cfg cfg;
	unsigned int e, r;
	char name[64];

	if (nrun < 1 || nrun > NRUN_MAX || passes < 1) {
		fprintf(stderr, "usage: %s [runs 1..%d] [passes of %d frames]\n", argv[0],
			NRUN_MAX, NFRAME);
		return 2;
	}
	printf("quick look, %u runs of %u passes over %d frames of %d data bytes%s\n", nrun,
	       passes, NFRAME, DATA_BYTES, TCONV_HAVE_TSC ? "" : "; no TSC: cycles not measured");
	printf("(cN: N channels complex, rN: real; wire: share of one frame's 100 Gb/s "
	       "wire time, %.0f ns)\n", WIRE_NS);

	printf("\nper sampled frame        %9s %9s %9s   %9s %9s %9s\n", "ns min", "median",
	       "max", "cyc min", "median", "max");
	ql_cfg_defaults(&cfg);
	cfg.every = 1;
	for (e = 0; e < sizeof(encs) / sizeof(encs[0]); e++) {
		make_frames(&encs[e]);
		ql_init(&acc, &cfg);
		run_sampled(passes / 10 + 1, &ns[0], &cyc[0]); /* warm up */
		for (r = 0; r < nrun; r++)
			run_sampled(passes, &ns[r], &cyc[r]);
		print_row(encs[e].name, ns, cyc, nrun, false);
		med_frame[e] = ns[nrun / 2];
	}

	printf("\nper received frame, one in %u sampled\n", QL_EVERY_DEFAULT);
	printf("%-24s %9s %9s %9s   %9s %9s %9s   %6s\n", "", "ns min", "median", "max",
	       "cyc min", "median", "max", "wire");
	ql_cfg_defaults(&cfg);
	ql_init(&acc, &cfg);
	for (r = 0; r < nrun; r++)
		run_received(passes * QL_EVERY_DEFAULT / 4, false, &ns[r], &cyc[r]);
	print_row("decision only", ns, cyc, nrun, true);
	for (e = 0; e < sizeof(encs) / sizeof(encs[0]); e++) {
		make_frames(&encs[e]);
		ql_init(&acc, &cfg);
		run_received(passes, true, &ns[0], &cyc[0]); /* warm up */
		for (r = 0; r < nrun; r++)
			run_received(passes * 16, true, &ns[r], &cyc[r]);
		snprintf(name, sizeof(name), "%s", encs[e].name);
		print_row(name, ns, cyc, nrun, true);
	}
	printf("(the sampled frames here are warm in cache: an rx lcore's are too,\n"
	       " just received; cycles are TSC ticks; 16-bit c4: per sampled frame / %u "
	       "= %.1f ns)\n", QL_EVERY_DEFAULT, med_frame[5] / QL_EVERY_DEFAULT);
	return keep_rows(nrun, passes);
}
