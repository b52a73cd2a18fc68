/* SPDX-License-Identifier: BSD-3-Clause */
/* The quick-look table: an antenna's or stream's sample statistics
 * (lib/quicklook's figures) named once, for JSON, telemetry and Prometheus. */

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ql_bstate.h"
#include "quicklook.h"
#include "stats.h"

#define R(f) offsetof(struct stats_ql, f)
#define A_L (STATS_ANTENNA | STATS_LIVE)
static const struct stats_field ql_f[] = {
	STATS_FIELD_U64("offered", NULL, 0, "frames", A_L, STATS_SUM, R(offered),
			"accepted frames of the streams, each offered to the sampling"),
	STATS_FIELD_U64("sampled", NULL, 0, "frames", A_L, STATS_SUM, R(sampled),
			"frames sampled: each stream's first, then one in --quicklook"),
	STATS_FIELD_U64("used", NULL, 0, "frames", A_L, STATS_SUM, R(used),
			"sampled frames whose samples are in the figures"),
	STATS_FIELD_U64("skipped", NULL, 0, "frames", A_L, STATS_SUM, R(skipped),
			"sampled frames not used: invalid bit, wrong length or encoding not "
			"decoded"),
	STATS_FIELD_U64("samples", NULL, 0, "samples", A_L, STATS_MAX, R(samples),
			"samples in the figures (I and Q are two); window below"),
	STATS_FIELD_F64("mean_re", "steps", "milli-steps", 1000, A_L, R(mean_re),
			"mean of the real (I) parts, in steps of the encoding"),
	STATS_FIELD_F64("mean_im", "steps", "milli-steps", 1000, A_L, R(mean_im),
			"mean of the imaginary (Q) parts (0 for real data)"),
	STATS_FIELD_F64("power", "steps^2", "micro-steps^2", 1000000, A_L, R(power),
			"mean square of all parts (complex: E|z|^2 is twice this)"),
	STATS_FIELD_F64("power_db", "dB", "milli-dB", 1000, A_L, R(power_db),
			"10 log10(power): -inf when every sample is 0 (telemetry: left out)"),
	STATS_FIELD_F64("rms", "steps", "milli-steps", 1000, A_L, R(rms),
			"sqrt(power - mean^2): the parts' deviation"),
	STATS_FIELD_F64("saturated", "ratio", "ppm", 1000000, A_L, R(saturated),
			"fraction of samples at the most negative or positive level"),
	STATS_FIELD_F64("zero", "ratio", "ppm", 1000000, A_L, R(zero),
			"fraction of samples at the zero code (1, 2 bits: all bits clear)"),
	{ .name = "verdict", .unit = "", .off = R(verdict), .type = STATS_U32,
	  .merge = STATS_MAX, .flags = A_L,
	  .help = "0 no data, 1 ok, 2 dead (>= 99% zero or constant), 3 saturated" },
	STATS_FIELD_F64("window", "seconds", "ns", 1000000000, A_L, R(window),
			"the figures' time: the last --quicklook-window, or the run (summary)"),
	{ .name = "nbits", .unit = "bits", .off = R(nbits), .type = STATS_U32,
	  .merge = STATS_MAX, .flags = A_L, .help = "bits per sample component" },
	{ .name = "representation", .unit = "", .off = R(repr), .type = STATS_U32,
	  .merge = STATS_MAX, .flags = A_L,
	  .help = "sample encoding: 0 offset binary, 1 two's complement, 2 float" },
	{ .name = "complex", .unit = "", .off = R(cplx), .type = STATS_U32,
	  .merge = STATS_MAX, .flags = A_L, .help = "1: complex (I, Q) samples" },
	{ .name = "nchan", .unit = "", .off = R(nchan), .type = STATS_U32,
	  .merge = STATS_MAX, .flags = A_L, .help = "channels" },
};

const struct stats_group stats_quicklook = {
	.name = "quicklook", .prom = "quicklook",
	.help = "an antenna's or stream's sample statistics, from sampled frames",
	.f = ql_f, .n = sizeof(ql_f) / sizeof(ql_f[0]), .size = sizeof(struct stats_ql),
};

void
stats_ql_of(struct stats_ql *r, const struct ql_snap *run, const struct ql_figs *f, double window)
{
	const struct ql_stat *t = &f->total;

	memset(r, 0, sizeof(*r));
	r->offered = run->offered;
	r->sampled = run->sampled;
	r->used = run->used;
	r->skipped = run->invalid + run->bad_len + run->unsupported;
	r->samples = t->n;
	r->mean_re = t->mean_re;
	r->mean_im = t->mean_im;
	r->power = t->power;
	r->power_db = t->n == 0 ? NAN : t->power > 0 ? 10 * log10(t->power) : -INFINITY;
	r->rms = t->rms;
	r->saturated = t->sat;
	r->zero = t->zero;
	r->verdict = t->verdict;
	r->window = window;
	r->nbits = f->nbits;
	r->repr = f->repr;
	r->cplx = f->complex;
	r->nchan = f->nchan;
}


/* ---- the sampler statistics (ql_bstate.h) -------------------------------- */

#define B(f) offsetof(struct stats_qlb, f)
static const struct stats_field qlb_f[] = {
	STATS_FIELD_U64("frames", NULL, 0, "frames", A_L, STATS_MAX, B(frames),
			"kept frames read in the window (at most --quicklook-min a stream)"),
	STATS_FIELD_U64("samples", NULL, 0, "samples", A_L, STATS_MAX, B(samples),
			"samples counted in the window (I and Q are two)"),
	{ .name = "verdict", .unit = "", .off = B(verdict), .type = STATS_U32,
	  .merge = STATS_MAX, .flags = A_L,
	  .help = "0 nodata, 1 ok, 2 under-driven, 3 over-driven, 4 dead, 5 saturated, "
		  "6 stuck bit" },
	STATS_FIELD_U64("rms", NULL, 0, "milli-steps", A_L, STATS_MAX, B(rms),
			"RMS estimated from the occupancy (8 bits and more: the samples'), "
			"1/1000 step; see rms_known"),
	{ .name = "rms_known", .unit = "", .off = B(rms_known), .type = STATS_U32,
	  .merge = STATS_MIN, .flags = A_L,
	  .help = "1: rms is an estimate; 0: none (1 bit, or no sample beyond the innermost "
		  "states)" },
	STATS_FIELD_U64("rms_optimal", NULL, 0, "milli-steps", A_L, STATS_MAX, B(rms_optimal),
			"the encoding's optimal RMS (2 bits 1.0, 4 bits 2.98 steps; 0: 1 bit)"),
	STATS_FIELD_U64("zero", NULL, 0, "ppm", A_L, STATS_MAX, B(zero),
			"share of samples at the zero code, parts per million"),
	STATS_FIELD_U64("saturated", NULL, 0, "ppm", A_L, STATS_MAX, B(saturated),
			"share of samples at the extreme codes, parts per million"),
	{ .name = "stuck_mask", .unit = "", .off = B(stuck_mask), .type = STATS_U32,
	  .merge = STATS_MAX, .flags = A_L, .help = "bits of the code that never changed" },
	{ .name = "states", .unit = "", .off = B(states), .type = STATS_U32,
	  .merge = STATS_MAX, .flags = A_L,
	  .help = "sampler states (2^nbits up to 4 bits) or histogram bins (64)" },
	STATS_FIELD_U64("window", NULL, 0, "ns", A_L, STATS_MAX, B(window),
			"the figures' time: the last --quicklook-window"),
};

const struct stats_group stats_bstate = {
	.name = "bstate", .prom = "bstate",
	.help = "an antenna's, stream's or channel group's sampler statistics, from kept frames",
	.f = qlb_f, .n = sizeof(qlb_f) / sizeof(qlb_f[0]), .size = sizeof(struct stats_qlb),
};

/* a share in parts per million, rounded */
static uint64_t
ppm(double x)
{
	return x > 0 ? (uint64_t)llround(x * 1e6) : 0;
}

void
stats_qlb_of(struct stats_qlb *r, const struct qlb_result *q, uint64_t frames,
	     uint64_t window_ns)
{
	memset(r, 0, sizeof(*r));
	r->frames = frames;
	r->samples = q->samples;
	r->verdict = q->verdict;
	r->rms_known = isfinite(q->rms);
	r->rms = r->rms_known ? (uint64_t)llround(q->rms * 1e3) : 0;
	r->rms_optimal = (uint64_t)llround(q->sigma_opt * 1e3);
	r->zero = ppm(q->zero);
	r->saturated = ppm(q->sat);
	r->stuck_mask = q->stuck_mask;
	r->window = window_ns;
}

uint64_t
stats_ppm(double x)
{
	return ppm(x);
}
