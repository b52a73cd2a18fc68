/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of lib/quicklook and lib/codif's codif_signal: encodings, the
 * synthetic signal's figures against their expectation, dead and saturated
 * streams, the sampling rule, snapshots under a concurrent writer. */

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "check.h"
#include "codif.h"
#include "codif_signal.h"
#include "ql_keep.h"
#include "quicklook.h"

#define FRAME_BYTES 8192

static char ctx[160];

#define CHECK_NEAR(got, want, tol)                                             \
	do {                                                                   \
		double g_ = (got), w_ = (want), t_ = (tol);                    \
		check_count++;                                                 \
		if (!(fabs(g_ - w_) <= t_)) {                                  \
			check_failures++;                                      \
			fprintf(stderr, "%s:%d: [%s] %s = %.9g, want %.9g +- %.3g\n", \
				__FILE__, __LINE__, ctx, #got, g_, w_, t_);    \
		}                                                              \
	} while (0)

static void
hdr(struct codif_hdr *h, unsigned int nbits, unsigned int repr, bool cplx,
    unsigned int nchan, uint32_t bytes)
{
	uint64_t spf;

	memset(h, 0, sizeof(*h));
	h->sync = CODIF_SYNC;
	h->protocol = CODIF_PROTOCOL;
	h->version = 3;
	h->epoch = 50;
	h->seconds = 5918400;
	h->period = 27;
	h->stationid = 'A' << 8 | 'K';
	h->groupid = 257;
	h->nbits = (uint8_t)nbits;
	h->representation = (uint8_t)repr;
	h->complex = cplx;
	h->nchan = (uint16_t)nchan;
	h->framelength8 = bytes / 8;
	spf = (uint64_t)bytes * 8 / ((uint64_t)nbits * nchan * (cplx ? 2 : 1));
	h->totalsamples = spf * 1000;
}

static const char *
repr_name(unsigned int r)
{
	return r == CODIF_SIGNAL_REPR_OFFSET ? "offset" :
	       r == CODIF_SIGNAL_REPR_TWOS ? "twos" : "float";
}

/* ---- Encodings ---------------------------------------------------------- */

static void
test_encodings(void)
{
	static const struct {
		unsigned int nbits, repr;
		uint32_t lo, hi, zero;
		double vlo, vhi, vzero;
	} t[] = {
		{ 1, 1, 1, 0, 0, -0.5, 0.5, 0.5 },
		{ 1, 0, 0, 1, 0, -0.5, 0.5, -0.5 },
		{ 2, 1, 2, 1, 0, -1.5, 1.5, 0.5 },
		{ 2, 0, 0, 3, 0, -1.5, 1.5, -1.5 },
		{ 4, 1, 8, 7, 0, -8, 7, 0 },
		{ 4, 0, 0, 15, 8, -8, 7, 0 },
		{ 8, 1, 0x80, 0x7f, 0, -128, 127, 0 },
		{ 8, 0, 0, 0xff, 0x80, -128, 127, 0 },
		{ 16, 1, 0x8000, 0x7fff, 0, -32768, 32767, 0 },
		{ 16, 0, 0, 0xffff, 0x8000, -32768, 32767, 0 },
		{ 32, 1, 0x80000000u, 0x7fffffffu, 0, -2147483648.0, 2147483647.0, 0 },
		{ 32, 0, 0, 0xffffffffu, 0x80000000u, -2147483648.0, 2147483647.0, 0 },
	};
	struct codif_signal_enc e;
	struct codif_hdr h;
	char err[96];
	unsigned int i;
	uint32_t c;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		hdr(&h, t[i].nbits, t[i].repr, false, 4, FRAME_BYTES);
		snprintf(ctx, sizeof(ctx), "%u-bit %s", t[i].nbits, repr_name(t[i].repr));
		CHECK_EQ_I(codif_signal_enc_init(&e, &h, err, sizeof(err)), 0);
		CHECK_EQ_U(e.lo_code, t[i].lo);
		CHECK_EQ_U(e.hi_code, t[i].hi);
		CHECK_EQ_U(e.zero_code, t[i].zero);
		CHECK_NEAR(codif_signal_value(&e, e.lo_code), t[i].vlo, 0);
		CHECK_NEAR(codif_signal_value(&e, e.hi_code), t[i].vhi, 0);
		CHECK_NEAR(codif_signal_value(&e, e.zero_code), t[i].vzero, 0);
		CHECK_NEAR(e.lo, t[i].vlo, 0);
		CHECK_NEAR(e.hi, t[i].vhi, 0);
		CHECK(e.midrise == (t[i].nbits <= 2));
		/* every code of up to 16 bits: quantise(value(c)) == c, values
		 * one step apart in code order after the flip */
		if (t[i].nbits <= 16)
			for (c = 0; c < e.ncode; c++) {
				double v = codif_signal_value(&e, c);

				if (codif_signal_quantise(&e, v) != c ||
				    codif_signal_quantise(&e, v + 0.3) != c ||
				    codif_signal_quantise(&e, v - 0.3) != c) {
					CHECK_EQ_U(codif_signal_quantise(&e, v), c);
					break;
				}
			}
		/* clamping */
		CHECK_EQ_U(codif_signal_quantise(&e, -1e30), e.lo_code);
		CHECK_EQ_U(codif_signal_quantise(&e, 1e30), e.hi_code);
		CHECK_EQ_U(codif_signal_quantise(&e, NAN), e.zero_code);
	}
	/* mid-rise thresholds at the integers */
	hdr(&h, 2, 1, false, 1, FRAME_BYTES);
	codif_signal_enc_init(&e, &h, NULL, 0);
	CHECK_NEAR(codif_signal_value(&e, codif_signal_quantise(&e, -1.0)), -0.5, 0);
	CHECK_NEAR(codif_signal_value(&e, codif_signal_quantise(&e, -1.0001)), -1.5, 0);
	CHECK_NEAR(codif_signal_value(&e, codif_signal_quantise(&e, 0.0)), 0.5, 0);
	CHECK_NEAR(codif_signal_value(&e, codif_signal_quantise(&e, 0.999)), 0.5, 0);
	CHECK_NEAR(codif_signal_value(&e, codif_signal_quantise(&e, 1.0)), 1.5, 0);

	hdr(&h, 32, 2, true, 4, FRAME_BYTES);
	CHECK_EQ_I(codif_signal_enc_init(&e, &h, NULL, 0), 0);
	CHECK(e.is_float && e.complex && e.S == 8);
	hdr(&h, 3, 1, false, 4, FRAME_BYTES);
	CHECK_EQ_I(codif_signal_enc_init(&e, &h, err, sizeof(err)), -ENOTSUP);
	CHECK_HAS(err, "nbits 3");
	hdr(&h, 16, 2, false, 4, FRAME_BYTES);
	CHECK_EQ_I(codif_signal_enc_init(&e, &h, err, sizeof(err)), -ENOTSUP);
	CHECK_HAS(err, "32 only");
	hdr(&h, 8, 5, false, 4, FRAME_BYTES);
	CHECK_EQ_I(codif_signal_enc_init(&e, &h, err, sizeof(err)), -ENOTSUP);
	CHECK_HAS(err, "representation 5");
	hdr(&h, 8, 1, false, 4, FRAME_BYTES);
	h.nchan = 0;
	CHECK_EQ_I(codif_signal_enc_init(&e, &h, err, sizeof(err)), -EINVAL);
}

/* Closed values of the expectation. */
static void
test_expect(void)
{
	struct codif_signal_enc e;
	struct codif_signal s;
	struct codif_signal_expect x;
	struct codif_hdr h;
	double q1 = 0.5 * erfc(1 / M_SQRT2); /* P(z > 1) */
	double sig;

	snprintf(ctx, sizeof(ctx), "expect");
	hdr(&h, 2, 1, false, 1, FRAME_BYTES);
	codif_signal_enc_init(&e, &h, NULL, 0);
	codif_signal_noise(&s, 1.0, 1);
	CHECK_EQ_I(codif_signal_expect(&s, &e, 0, 0, &x), 0);
	CHECK_NEAR(x.sat, 2 * q1, 1e-12);
	CHECK_NEAR(x.power, 0.25 * (1 - 2 * q1) + 2.25 * 2 * q1, 1e-12);
	CHECK_NEAR(x.mean, 0, 1e-12);
	CHECK_NEAR(x.zero, 0.5 - q1, 1e-12); /* code 0 is +1/2: [0, 1) */
	CHECK_EQ_I(codif_signal_expect(&s, &e, 1, 0, &x), -EINVAL);
	CHECK_EQ_I(codif_signal_expect(&s, &e, 0, 1, &x), -EINVAL);

	/* 1 bit: power 1/4 whatever the level; mean from the sign balance */
	hdr(&h, 1, 0, false, 1, FRAME_BYTES);
	codif_signal_enc_init(&e, &h, NULL, 0);
	s.dc_re = 0.5;
	codif_signal_expect(&s, &e, 0, 0, &x);
	CHECK_NEAR(x.power, 0.25, 1e-12);
	CHECK_NEAR(x.mean, 0.5 * (1 - 2 * 0.5 * erfc(0.5 / M_SQRT2)), 1e-12);
	CHECK_NEAR(x.sat, 1, 0);

	/* 16 bits: level sums (sigma 100) and the closed form (sigma 1000)
	 * both give sigma^2 + dc^2 + 1/12 */
	hdr(&h, 16, 1, false, 1, FRAME_BYTES);
	codif_signal_enc_init(&e, &h, NULL, 0);
	for (sig = 100; sig <= 1000; sig *= 10) {
		codif_signal_noise(&s, sig, 1);
		s.dc_re = 7.25;
		codif_signal_expect(&s, &e, 0, 0, &x);
		CHECK_NEAR(x.mean, 7.25, 1e-9 * sig);
		CHECK_NEAR(x.power, sig * sig + 7.25 * 7.25 + 1.0 / 12, 1e-9 * sig * sig);
		CHECK_NEAR(x.sd_power, sqrt(2 * pow(sig, 4) + 4 * 7.25 * 7.25 * sig * sig),
			   1e-3 * sig * sig);
		CHECK_NEAR(x.zero, exp(-0.5 * pow(7.25 / sig, 2)) / (sig * sqrt(2 * M_PI)),
			   1e-3 / sig);
	}
	/* clipping in closed form: sigma = range/2 at 16 bits */
	codif_signal_noise(&s, 16384, 1);
	codif_signal_expect(&s, &e, 0, 0, &x);
	CHECK_NEAR(x.sat, 2 * 0.5 * erfc(2 / M_SQRT2), 1e-4);
	CHECK(x.power < 16384.0 * 16384.0);

	/* a tone alone: A^2 / 2 (+ 1/12), up to the rounding of 256 phases */
	codif_signal_noise(&s, 0, 1);
	s.tone_amp = 3000;
	s.tone_freq = 0.01;
	codif_signal_expect(&s, &e, 0, 0, &x);
	CHECK_NEAR(x.power, 3000.0 * 3000 / 2, 1e-4 * 3000 * 3000 / 2);
	CHECK_NEAR(x.mean, 0, 1e-6);

	/* dead and saturated */
	hdr(&h, 8, 0, false, 1, FRAME_BYTES);
	codif_signal_enc_init(&e, &h, NULL, 0);
	s.kind = CODIF_SIGNAL_SATURATED;
	codif_signal_expect(&s, &e, 0, 0, &x);
	CHECK_NEAR(x.sat, 1, 0);
	CHECK_NEAR(x.mean, -0.5, 0);
	CHECK_NEAR(x.power, (128.0 * 128 + 127 * 127) / 2, 0);
	s.kind = CODIF_SIGNAL_DEAD;
	codif_signal_expect(&s, &e, 0, 0, &x);
	CHECK_NEAR(x.zero, 1, 0);
	CHECK_NEAR(x.power, 0, 0);
}

/* ---- The generator ------------------------------------------------------ */

static void
test_signal_fill(void)
{
	static uint8_t a[FRAME_BYTES], b[FRAME_BYTES];
	struct codif_signal s;
	struct codif_hdr h;

	snprintf(ctx, sizeof(ctx), "fill");
	hdr(&h, 8, 1, true, 4, FRAME_BYTES);
	codif_signal_noise(&s, 20, 42);
	CHECK_EQ_I(codif_signal_fill(&s, &h, a, sizeof(a)), 0);
	CHECK_EQ_I(codif_signal_fill(&s, &h, b, sizeof(b)), 0);
	CHECK(memcmp(a, b, sizeof(a)) == 0);
	h.frame = 1;
	codif_signal_fill(&s, &h, b, sizeof(b));
	CHECK(memcmp(a, b, sizeof(a)) != 0);
	h.frame = 0;
	s.seed = 43;
	codif_signal_fill(&s, &h, b, sizeof(b));
	CHECK(memcmp(a, b, sizeof(a)) != 0);
	s.seed = 42;
	h.threadid = 1;
	codif_signal_fill(&s, &h, b, sizeof(b));
	CHECK(memcmp(a, b, sizeof(a)) != 0);
	h.threadid = 0;
	/* a prefix is the same frame's start */
	codif_signal_fill(&s, &h, b, 1000);
	CHECK(memcmp(a, b, 1000) == 0);
	/* parameters */
	s.rms = -1;
	CHECK_EQ_I(codif_signal_fill(&s, &h, b, sizeof(b)), -EINVAL);
	s.rms = NAN;
	CHECK_EQ_I(codif_signal_fill(&s, &h, b, sizeof(b)), -EINVAL);
	s.rms = 1;
	h.nbits = 12;
	CHECK_EQ_I(codif_signal_fill(&s, &h, b, sizeof(b)), -ENOTSUP);
	/* dead is the zero code: two's complement zero bytes */
	h.nbits = 8;
	s.kind = CODIF_SIGNAL_DEAD;
	codif_signal_fill(&s, &h, b, sizeof(b));
	memset(a, 0, sizeof(a));
	CHECK(memcmp(a, b, sizeof(a)) == 0);
	/* offset binary 8 bits: 0x80 */
	h.representation = 0;
	codif_signal_fill(&s, &h, b, sizeof(b));
	memset(a, 0x80, sizeof(a));
	CHECK(memcmp(a, b, sizeof(a)) == 0);
}

/* ---- The accumulator against hand-built bytes (the layout itself) -------- */

static void
one_frame(struct ql_acc *q, const struct codif_hdr *h, const uint8_t *d, struct ql_figs *f)
{
	struct ql_cfg c;
	struct ql_snap s;

	ql_cfg_defaults(&c);
	CHECK_EQ_I(ql_init(q, &c), 0);
	CHECK_EQ_I(ql_frame(q, h, d, codif_data_bytes(h)), 0);
	ql_read(q, &s);
	ql_figs(&s, NULL, f);
}

static void
test_layout(void)
{
	static struct ql_acc q;
	static uint8_t d[FRAME_BYTES];
	struct ql_figs f;
	struct codif_hdr h;
	size_t i;

	/* 2 bits, 4 channels, real: byte 0xE4 = codes 0,1,2,3 from bit 0 up */
	snprintf(ctx, sizeof(ctx), "layout 2-bit");
	memset(d, 0xE4, sizeof(d));
	hdr(&h, 2, 1, false, 4, FRAME_BYTES);
	one_frame(&q, &h, d, &f);
	CHECK_EQ_U(f.nbin, 4);
	CHECK_EQ_U(f.bin[0].n, FRAME_BYTES);
	CHECK_NEAR(f.bin[0].mean_re, 0.5, 0);
	CHECK_NEAR(f.bin[1].mean_re, 1.5, 0);
	CHECK_NEAR(f.bin[2].mean_re, -1.5, 0);
	CHECK_NEAR(f.bin[3].mean_re, -0.5, 0);
	CHECK_NEAR(f.bin[0].zero, 1, 0);   /* code 0 */
	CHECK_NEAR(f.bin[1].sat, 1, 0);
	CHECK_NEAR(f.bin[2].sat, 1, 0);
	CHECK_NEAR(f.bin[3].sat + f.bin[3].zero, 0, 0);
	CHECK_NEAR(f.total.power, (0.25 + 2.25) / 2, 0);
	hdr(&h, 2, 0, false, 4, FRAME_BYTES);
	one_frame(&q, &h, d, &f);
	CHECK_NEAR(f.bin[0].mean_re, -1.5, 0);
	CHECK_NEAR(f.bin[1].mean_re, -0.5, 0);
	CHECK_NEAR(f.bin[2].mean_re, 0.5, 0);
	CHECK_NEAR(f.bin[3].mean_re, 1.5, 0);
	CHECK_NEAR(f.bin[0].zero, 1, 0);
	CHECK_NEAR(f.bin[0].sat, 1, 0);

	/* 1 bit, 8 channels: byte 0x01 = channel 0 code 1 */
	snprintf(ctx, sizeof(ctx), "layout 1-bit");
	memset(d, 0x01, sizeof(d));
	hdr(&h, 1, 1, false, 8, FRAME_BYTES);
	one_frame(&q, &h, d, &f);
	CHECK_NEAR(f.bin[0].mean_re, -0.5, 0);
	for (i = 1; i < 8; i++)
		CHECK_NEAR(f.bin[i].mean_re, 0.5, 0);
	CHECK_NEAR(f.total.sat, 1, 0);
	for (i = 0; i < 8; i++)
		CHECK(f.bin[i].verdict == QL_DEAD); /* each channel constant */

	/* 4 bits complex, 1 channel: low nibble I, high nibble Q */
	snprintf(ctx, sizeof(ctx), "layout 4-bit complex");
	memset(d, 0x7F, sizeof(d));
	hdr(&h, 4, 1, true, 1, FRAME_BYTES);
	one_frame(&q, &h, d, &f);
	CHECK_NEAR(f.bin[0].mean_re, -1, 0);
	CHECK_NEAR(f.bin[0].mean_im, 7, 0);
	CHECK_NEAR(f.bin[0].sat, 0.5, 0);
	CHECK_NEAR(f.bin[0].power, (1 + 49) / 2.0, 0);

	/* 16 bits complex, 2 channels, little-endian */
	snprintf(ctx, sizeof(ctx), "layout 16-bit");
	for (i = 0; i < FRAME_BYTES; i += 8) {
		static const uint8_t t[8] = { 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x80, 0xFF, 0x7F };

		memcpy(d + i, t, 8);
	}
	hdr(&h, 16, 1, true, 2, FRAME_BYTES);
	one_frame(&q, &h, d, &f);
	CHECK_NEAR(f.bin[0].mean_re, 1, 0);
	CHECK_NEAR(f.bin[0].mean_im, -1, 0);
	CHECK_NEAR(f.bin[1].mean_re, -32768, 0);
	CHECK_NEAR(f.bin[1].mean_im, 32767, 0);
	CHECK_NEAR(f.bin[1].sat, 1, 0);
	CHECK_NEAR(f.bin[0].sat, 0, 0);
	CHECK(f.bin[1].verdict == QL_SATURATED);

	/* 8 bits offset binary: 0x80 is zero, 0x00 the most negative */
	snprintf(ctx, sizeof(ctx), "layout 8-bit offset");
	for (i = 0; i < FRAME_BYTES; i += 2) {
		d[i] = 0x80;
		d[i + 1] = 0x00;
	}
	hdr(&h, 8, 0, false, 2, FRAME_BYTES);
	one_frame(&q, &h, d, &f);
	CHECK_NEAR(f.bin[0].zero, 1, 0);
	CHECK_NEAR(f.bin[1].mean_re, -128, 0);
	CHECK(f.bin[0].verdict == QL_DEAD);
	CHECK(f.bin[1].verdict == QL_SATURATED);

	/* 32 bits offset binary */
	snprintf(ctx, sizeof(ctx), "layout 32-bit offset");
	for (i = 0; i < FRAME_BYTES; i += 8) {
		static const uint8_t t[8] = { 0, 0, 0, 0x80, 5, 0, 0, 0x80 };

		memcpy(d + i, t, 8);
	}
	hdr(&h, 32, 0, false, 2, FRAME_BYTES);
	one_frame(&q, &h, d, &f);
	CHECK_NEAR(f.bin[0].zero, 1, 0);
	CHECK_NEAR(f.bin[1].mean_re, 5, 0);

	/* floats: 1.5, -Inf, NaN, 0 in four channels */
	snprintf(ctx, sizeof(ctx), "layout float");
	for (i = 0; i < FRAME_BYTES; i += 16) {
		float v[4] = { 1.5f, -INFINITY, NAN, 0.0f };

		memcpy(d + i, v, 16);
	}
	hdr(&h, 32, 2, false, 4, FRAME_BYTES);
	one_frame(&q, &h, d, &f);
	CHECK_NEAR(f.bin[0].mean_re, 1.5, 0);
	CHECK_NEAR(f.bin[0].power, 2.25, 0);
	CHECK_NEAR(f.bin[1].sat, 1, 0);
	CHECK_NEAR(f.bin[2].sat, 1, 0);
	CHECK_NEAR(f.bin[3].zero, 1, 0);
	CHECK_NEAR(f.total.mean_re, 0.75, 0); /* over the finite samples */
	CHECK(f.bin[1].verdict == QL_SATURATED);
	CHECK(f.bin[3].verdict == QL_DEAD);
}

/* ---- The synthetic signal through the accumulator ------------------------ */

struct enc_case {
	unsigned int nbits, repr;
	bool cplx;
	unsigned int nchan;
	double rms;
	uint32_t bytes;  /* data bytes (a whole number of time samples); 0: 8192 */
};

#define CHECK_VERDICT(st, want)                                                \
	do {                                                                   \
		check_count++;                                                 \
		if ((st)->verdict != (want)) {                                 \
			check_failures++;                                      \
			fprintf(stderr, "%s:%d: [%s] verdict %s, want %s\n",   \
				__FILE__, __LINE__, ctx,                       \
				ql_verdict_name((st)->verdict), ql_verdict_name(want)); \
		}                                                              \
	} while (0)

/* Feed nframes frames of signal s, compare every bin and the total with
 * the mean of their channels' expectations (every channel has the same
 * number of samples: frames hold whole time samples). Floats' means and
 * powers are over finite samples: channels weigh by P(finite). */
static void
run_signal(const struct enc_case *c, const struct codif_signal *s, unsigned int nframes,
	   const char *what)
{
	static struct ql_acc q;
	static uint8_t d[FRAME_BYTES];
	uint32_t bytes = c->bytes != 0 ? c->bytes : FRAME_BYTES;
	struct codif_signal_enc e;
	struct codif_signal_expect x;
	struct codif_hdr h;
	struct ql_cfg cfg;
	struct ql_snap snap;
	struct ql_figs f;
	unsigned int fr, b, ch, im, ncomp = c->cplx ? 2 : 1;

	if (bytes > FRAME_BYTES) {
		CHECK(bytes <= FRAME_BYTES);
		return;
	}
	hdr(&h, c->nbits, c->repr, c->cplx, c->nchan, bytes);
	CHECK_EQ_I(codif_signal_enc_init(&e, &h, NULL, 0), 0);
	CHECK_EQ_U((uint64_t)bytes * 8 / c->nbits % e.S, 0);
	ql_cfg_defaults(&cfg);
	ql_init(&q, &cfg);
	for (fr = 0; fr < nframes; fr++) {
		h.frame = fr;
		CHECK_EQ_I(codif_signal_fill(s, &h, d, bytes), 0);
		CHECK_EQ_I(ql_frame(&q, &h, d, bytes), 0);
	}
	ql_read(&q, &snap);
	ql_figs(&snap, NULL, &f);
	CHECK_EQ_U(f.used, nframes);
	CHECK_EQ_U(f.total.n, (uint64_t)nframes * bytes * 8 / c->nbits);
	CHECK_EQ_U(f.nbin, c->nchan <= QL_MAX_BINS ? c->nchan :
		   (c->nchan + f.chan_per_bin - 1) / f.chan_per_bin);

	for (b = 0; b <= f.nbin; b++) {
		unsigned int c0 = b < f.nbin ? b * f.chan_per_bin : 0;
		unsigned int c1 = b < f.nbin ? c0 + f.chan_per_bin : c->nchan;
		const struct ql_stat *st = b < f.nbin ? &f.bin[b] : &f.total;
		double m[2] = { 0, 0 }, wsum[2] = { 0, 0 }, pw = 0, wp = 0, sat = 0, zero = 0;
		double nn = 0, sdm = 0, sdp = 0, sds = 0, sdz = 0, nsamp, tm, tp;
		bool dead = true, satd = true, anydead = false, anysat = false;

		if (c1 > c->nchan)
			c1 = c->nchan;
		for (ch = c0; ch < c1; ch++) {
			enum codif_signal_kind k = codif_signal_chan_kind(s, ch);

			dead &= k == CODIF_SIGNAL_DEAD;
			satd &= k == CODIF_SIGNAL_SATURATED;
			anydead |= k == CODIF_SIGNAL_DEAD;
			anysat |= k == CODIF_SIGNAL_SATURATED;
			for (im = 0; im < ncomp; im++) {
				double w;

				CHECK_EQ_I(codif_signal_expect(s, &e, ch, im, &x), 0);
				w = e.is_float ? 1 - x.sat : 1;
				m[im] += w * x.mean;
				wsum[im] += w;
				pw += w * x.power;
				wp += w;
				sat += x.sat;
				zero += x.zero;
				sdm = fmax(sdm, x.sd_mean);
				sdp = fmax(sdp, x.sd_power);
				sds = fmax(sds, x.sd_sat);
				sdz = fmax(sdz, x.sd_zero);
				nn++;
			}
		}
		snprintf(ctx, sizeof(ctx), "%s %u-bit %s %s nchan %u %s", what, c->nbits,
			 repr_name(c->repr), c->cplx ? "complex" : "real", c->nchan,
			 b < f.nbin ? "bin" : "total");
		if (b < f.nbin)
			snprintf(ctx + strlen(ctx), sizeof(ctx) - strlen(ctx), " %u", b);
		nsamp = (double)st->n;
		/* 6 sd of the mean of n samples; for the fractions also 4
		 * samples (rare events are Poisson, not Gaussian) */
		tm = 6 * sdm / sqrt(nsamp / ncomp) + 1e-9 * (1 + fabs(m[0]));
		tp = 6 * sdp / sqrt(nsamp) + 1e-9 * (1 + pw / nn);
		if (wp > 0) {
			CHECK_NEAR(st->mean_re, m[0] / wsum[0], tm);
			if (c->cplx)
				CHECK_NEAR(st->mean_im, m[1] / wsum[1], tm);
			CHECK_NEAR(st->power, pw / wp, tp);
		}
		CHECK_NEAR(st->sat, sat / nn, 6 * sds / sqrt(nsamp) + 4 / nsamp);
		CHECK_NEAR(st->zero, zero / nn, 6 * sdz / sqrt(nsamp) + 4 / nsamp);
		if (b == f.nbin || (anydead && !dead) || (anysat && !satd))
			continue; /* the total, or a bin of mixed channels */
		if (dead)
			CHECK_VERDICT(st, QL_DEAD);
		else if (satd && c->nbits != 1)
			CHECK_VERDICT(st, QL_SATURATED);
		else
			CHECK_VERDICT(st, QL_OK); /* noise; 1-bit "saturated" is noise */
	}
}

static const struct enc_case cases[] = {
	{ 1, 0, false, 4, 1.0, 0 },   { 1, 1, false, 4, 1.0, 0 },
	{ 1, 0, true, 4, 1.0, 0 },    { 1, 1, true, 4, 1.0, 0 },
	{ 2, 0, false, 4, 1.0, 0 },   { 2, 1, false, 4, 1.0, 0 },
	{ 2, 0, true, 4, 1.0, 0 },    { 2, 1, true, 4, 1.0, 0 },
	{ 4, 0, false, 4, 2.5, 0 },   { 4, 1, false, 4, 2.5, 0 },
	{ 4, 0, true, 4, 2.5, 0 },    { 4, 1, true, 4, 2.5, 0 },
	{ 8, 0, false, 4, 20, 0 },    { 8, 1, false, 4, 20, 0 },
	{ 8, 0, true, 4, 20, 0 },     { 8, 1, true, 4, 20, 0 },
	{ 16, 0, false, 4, 1000, 0 }, { 16, 1, false, 4, 1000, 0 },
	{ 16, 0, true, 4, 1000, 0 },  { 16, 1, true, 4, 1000, 0 },
	{ 32, 0, false, 4, 1e6, 0 },  { 32, 1, false, 4, 1e6, 0 },
	{ 32, 0, true, 4, 1e6, 0 },   { 32, 1, true, 4, 1e6, 0 },
	{ 32, 2, false, 4, 1.5, 0 },  { 32, 2, true, 4, 1.5, 0 },
	/* odd lane counts (S 3: 63 lanes; S 6: 60) over several chunks */
	{ 2, 1, false, 3, 1.0, 8184 }, { 8, 0, true, 3, 20, 8184 },
	{ 1, 1, false, 3, 1.0, 8184 },
	/* channel groups by lanes: 128 real (2 per bin), 256 complex, 250
	 * complex (the last bin of 2 channels), 512 real 2-bit expanded */
	{ 8, 1, false, 128, 20, 0 },   { 8, 0, true, 256, 20, 0 },
	{ 8, 1, true, 250, 20, 8000 }, { 2, 0, false, 512, 1.0, 0 },
	{ 16, 1, true, 256, 1000, 0 }, { 32, 2, true, 256, 1.5, 0 },
	/* by runs (S > QL_LANES): 1024 complex, 1000 complex (63 bins, the
	 * last of 8 channels), 2048 real 2-bit (expanded), 16/32 bits */
	{ 8, 0, true, 1024, 20, 0 },   { 8, 1, true, 1000, 20, 8000 },
	{ 2, 1, false, 2048, 1.0, 0 }, { 16, 1, true, 1024, 1000, 0 },
	{ 32, 2, true, 1024, 1.5, 0 }, { 32, 0, false, 2048, 1e6, 0 },
	{ 4, 1, false, 1, 2.5, 0 },    { 16, 0, true, 1, 1000, 0 },
	/* sub-byte by histograms of 8 rows (S 64: 8 bytes a period), of 16
	 * (S 32 at 4 bits); expanded to int8 (a period over 64 components or
	 * 16 bytes): by rows of 16 (S 128, 96, 100), by lanes (S 130); 8-bit
	 * by lanes (lcm(S, 16) > QL_LANES) */
	{ 1, 1, true, 32, 1.0, 0 },    { 4, 0, false, 32, 2.5, 0 },
	{ 1, 0, true, 64, 1.0, 0 },    { 4, 1, true, 48, 2.5, 8160 },
	{ 2, 0, false, 100, 1.0, 8000 }, { 4, 1, true, 50, 2.5, 8000 },
	{ 8, 1, false, 100, 20, 8000 }, { 8, 1, true, 260, 20, 7800 },
	{ 2, 1, true, 65, 1.0, 7800 },  /* expanded, by lanes (S 130) */
};

static void
test_signals(void)
{
	struct codif_signal s;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct enc_case *c = &cases[i];

		/* noise with a DC offset per part and a slope over channels */
		codif_signal_noise(&s, c->rms, 7 + i);
		s.chan_slope = c->nchan > 1 ? 0.75 / (c->nchan - 1) : 0;
		s.dc_re = 0.2 * c->rms;
		s.dc_im = -0.3 * c->rms;
		run_signal(c, &s, 16, "noise");

		s.kind = CODIF_SIGNAL_DEAD;
		run_signal(c, &s, 2, "dead");
		s.kind = CODIF_SIGNAL_SATURATED;
		run_signal(c, &s, 2, "saturated");

		/* one dead and one saturated channel among live ones */
		if (c->nchan >= 4) {
			s.kind = CODIF_SIGNAL_NOISE;
			s.dead_mask = 1ULL << 1;
			s.sat_mask = 1ULL << 2;
			run_signal(c, &s, 4, "masked");
		}
	}
}

/* A tone over noise (8 and 16 bits): power sigma^2 + A^2/2 (quantised). */
static void
test_tone(void)
{
	static const struct enc_case c8 = { 8, 1, true, 2, 5, 0 }, c16 = { 16, 1, false, 4, 100, 0 };
	struct codif_signal s;

	codif_signal_noise(&s, 5, 3);
	s.tone_amp = 20;
	s.tone_freq = 0.0123;
	run_signal(&c8, &s, 16, "tone");
	codif_signal_noise(&s, 100, 3);
	s.tone_amp = 500;
	s.tone_freq = 0.0371;
	run_signal(&c16, &s, 16, "tone");
}

/* ---- Counting, formats, merging ----------------------------------------- */

static void
test_counts(void)
{
	static struct ql_acc q, q2;
	static uint8_t d[FRAME_BYTES];
	struct codif_signal s;
	struct codif_hdr h;
	struct ql_cfg cfg;
	struct ql_snap s0, s1, m;
	struct ql_figs f;

	snprintf(ctx, sizeof(ctx), "counts");
	ql_cfg_defaults(&cfg);
	CHECK_EQ_I(ql_init(&q, NULL), -EINVAL);
	cfg.every = 0;
	CHECK_EQ_I(ql_init(&q, &cfg), -EINVAL);
	cfg.every = 1;
	CHECK_EQ_I(ql_init(&q, &cfg), 0);
	ql_read(&q, &s0);
	ql_figs(&s0, NULL, &f);
	CHECK(f.total.verdict == QL_NODATA);
	CHECK_EQ_U(f.nbin, 0);

	codif_signal_noise(&s, 20, 1);
	hdr(&h, 8, 1, false, 4, FRAME_BYTES);
	codif_signal_fill(&s, &h, d, sizeof(d));
	CHECK_EQ_I(ql_frame(&q, &h, d, sizeof(d)), 0);
	h.invalid = true;
	CHECK_EQ_I(ql_frame(&q, &h, d, sizeof(d)), -EINVAL);
	h.invalid = false;
	CHECK_EQ_I(ql_frame(&q, &h, d, sizeof(d) - 8), -EBADMSG);
	ql_read(&q, &s0);
	CHECK_EQ_U(s0.sampled, 3);
	CHECK_EQ_U(s0.used, 1);
	CHECK_EQ_U(s0.invalid, 1);
	CHECK_EQ_U(s0.bad_len, 1);
	CHECK_EQ_U(s0.gen, 1);
	CHECK_EQ_U(s0.total.n, FRAME_BYTES);

	/* the interval from s0: one more frame */
	CHECK_EQ_I(ql_frame(&q, &h, d, sizeof(d)), 0);
	ql_read(&q, &s1);
	ql_figs(&s1, &s0, &f);
	CHECK_EQ_U(f.used, 1);
	CHECK_EQ_U(f.total.n, FRAME_BYTES);
	CHECK(!f.restarted);

	/* a new format restarts the sums (gen moves) */
	hdr(&h, 16, 1, true, 4, FRAME_BYTES);
	codif_signal_fill(&s, &h, d, sizeof(d));
	CHECK_EQ_I(ql_frame(&q, &h, d, sizeof(d)), 0);
	ql_read(&q, &s1);
	CHECK_EQ_U(s1.gen, 2);
	ql_figs(&s1, &s0, &f);
	CHECK(f.restarted);
	CHECK_EQ_U(f.total.n, FRAME_BYTES / 2);
	CHECK_EQ_U(f.nbits, 16);
	CHECK(f.complex);

	/* unsupported encodings: counted, never decoded */
	h.nbits = 12;
	CHECK_EQ_I(ql_frame(&q, &h, d, sizeof(d)), -ENOTSUP);
	h.nbits = 16;
	h.representation = 2;
	CHECK_EQ_I(ql_frame(&q, &h, d, sizeof(d)), -ENOTSUP);
	ql_read(&q, &s1);
	CHECK_EQ_U(s1.unsupported, 2);
	CHECK_EQ_U(s1.total.n, 0);
	CHECK_EQ_U(s1.nbits, 16);
	CHECK_EQ_U(s1.repr, 2);

	/* allocated */
	{
		struct ql_acc *qa = ql_create(&cfg);

		CHECK(qa != NULL && ((uintptr_t)qa & 63) == 0);
		hdr(&h, 8, 1, false, 4, FRAME_BYTES);
		CHECK_EQ_I(ql_frame(qa, &h, d, sizeof(d)), 0);
		ql_free(qa);
		cfg.every = 0;
		errno = 0;
		CHECK(ql_create(&cfg) == NULL && errno == EINVAL);
		cfg.every = 1;
	}

	/* two streams of one antenna merged */
	ql_init(&q, &cfg);
	ql_init(&q2, &cfg);
	hdr(&h, 8, 1, false, 4, FRAME_BYTES);
	codif_signal_fill(&s, &h, d, sizeof(d));
	ql_frame(&q, &h, d, sizeof(d));
	s.kind = CODIF_SIGNAL_DEAD;
	codif_signal_fill(&s, &h, d, sizeof(d));
	ql_frame(&q2, &h, d, sizeof(d));
	memset(&m, 0, sizeof(m));
	ql_read(&q, &s0);
	ql_snap_add(&m, &s0);
	ql_read(&q2, &s1);
	ql_snap_add(&m, &s1);
	ql_figs(&m, NULL, &f);
	CHECK_EQ_U(f.nbin, 4);
	CHECK_EQ_U(f.total.n, 2 * FRAME_BYTES);
	CHECK_EQ_U(f.bin[0].n, FRAME_BYTES / 2);
	CHECK_NEAR(f.total.zero, (1.0 + (double)s0.total.zero / FRAME_BYTES) / 2, 1e-12);
	CHECK_EQ_U(m.gen, 2);
	/* a stream with no format yet adds counters only */
	{
		struct ql_snap empty;

		ql_init(&q2, &cfg);
		ql_read(&q2, &empty);
		ql_snap_add(&m, &empty);
		CHECK_EQ_U(m.nbin, 4);
		CHECK_EQ_U(m.gen, 2);
		CHECK_EQ_U(m.used, 2);
	}
	/* another format: totals only */
	hdr(&h, 16, 1, false, 4, FRAME_BYTES);
	ql_frame(&q2, &h, d, sizeof(d));
	ql_read(&q2, &s1);
	ql_snap_add(&m, &s1);
	CHECK_EQ_U(m.nbin, 0);
}

/* ---- The sampling rule -------------------------------------------------- */

/* sample n frames as the rx path does: ql_frame's count stands in for it */
static unsigned int
offer(struct ql_acc *q, unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		if (ql_sample(q, 0)) {
			q->own.sampled++;
			k++;
		}
	return k;
}

/* The minimum: at least cfg.min a reader's interval (ql_grant), the one in
 * N counted in it; nothing more once the interval has its share. */
static void
test_sampling_min(struct ql_acc *q)
{
	struct ql_cfg cfg;
	struct ql_snap s, s0;

	memset(&s0, 0, sizeof(s0));
	ql_cfg_defaults(&cfg);
	cfg.every = 1024;
	cfg.min = 8;
	ql_init(q, &cfg);
	/* the first interval: the first 8 frames (the first is one in N's) */
	CHECK_EQ_U(offer(q, 100), 8);
	/* no grant yet: one in 1024 only (frame 1024 of the stream) */
	CHECK_EQ_U(offer(q, 1000), 1);
	/* a new interval (one in 1024 gave 1 of the 1100 offered): 8 more,
	 * at once */
	s = q->own;
	ql_grant(q, &s, &s0);
	CHECK_EQ_U(offer(q, 20), 8);
	/* a fast stream: one in 8 gave 8 in the interval, none added */
	cfg.every = 8;
	ql_init(q, &cfg);
	CHECK_EQ_U(offer(q, 64), 8 + 7);  /* frames 0..7 (the first floor), 8, 16 ... 56 */
	s = q->own;
	ql_grant(q, &s, &s0);
	CHECK_EQ_U(offer(q, 64), 8);
	/* ... and one that slowed down: 8 offered, 1 by one in 8: 8 added */
	s0 = s;
	s = q->own;
	s.offered = s0.offered + 8;
	ql_grant(q, &s, &s0);
	CHECK_EQ_U(offer(q, 8), 8);
	/* min 0: one in N alone */
	cfg.min = 0;
	ql_init(q, &cfg);
	CHECK_EQ_U(offer(q, 64), 8);
}

/* The kept frames: one producer, one consumer, full slots copy nothing. */
static void
test_keep(void)
{
	static struct ql_keep k;
	uint8_t hdr[QLK_HDR], d[100];
	const uint8_t *f;
	size_t len;
	unsigned int i;

	snprintf(ctx, sizeof(ctx), "keep");
	memset(&k, 0, sizeof(k));
	CHECK(qlk_peek(&k, &len) == NULL);
	for (i = 0; i < QLK_SLOTS + 2; i++) {
		memset(hdr, (int)i, sizeof(hdr));
		memset(d, (int)(100 + i), sizeof(d));
		CHECK(qlk_put(&k, hdr, d, sizeof(d)) == (i < QLK_SLOTS));
	}
	CHECK_EQ_U(k.full, 2);
	for (i = 0; i < QLK_SLOTS; i++) {
		f = qlk_peek(&k, &len);
		CHECK(f != NULL && len == QLK_HDR + sizeof(d) && f[0] == i && f[QLK_HDR] == 100 + i);
		qlk_done(&k);
	}
	CHECK(qlk_peek(&k, &len) == NULL);
	CHECK(!qlk_put(&k, hdr, d, QLK_FRAME_MAX));
	CHECK_EQ_U(k.too_long, 1);
}

static void
test_sampling(void)
{
	static struct ql_acc q;
	struct ql_cfg cfg;
	unsigned int i, n, first_bad;
	uint64_t t;

	snprintf(ctx, sizeof(ctx), "sampling");
	/* one in 16: frames 0, 16, 32, ... */
	cfg.every = 16;
	cfg.min_gap = 0;
	cfg.min = 0;
	ql_init(&q, &cfg);
	for (i = 0, n = 0, first_bad = 0; i < 1000; i++)
		if (ql_sample(&q, 0)) {
			n++;
			if (i % 16 != 0 && first_bad == 0)
				first_bad = i;
		}
	CHECK_EQ_U(n, 63);
	CHECK_EQ_U(first_bad, 0);
	CHECK_EQ_U(q.own.offered, 1000);

	/* the default: one in QL_EVERY_DEFAULT */
	ql_cfg_defaults(&cfg);
	CHECK_EQ_U(cfg.every, QL_EVERY_DEFAULT);
	ql_init(&q, &cfg);
	for (i = 0, n = 0; i < 100 * QL_EVERY_DEFAULT; i++)
		n += ql_sample(&q, 0);
	CHECK_EQ_U(n, 100);

	/* time-limited: every frame allowed, at most one per 10 ticks */
	cfg.every = 1;
	cfg.min_gap = 10;
	ql_init(&q, &cfg);
	for (t = 0, n = 0; t < 1000; t++)
		n += ql_sample(&q, 1000 + t);
	CHECK_EQ_U(n, 100);

	/* both: one in 4 frames 3 ticks apart, min gap 10: every 4th frame
	 * (12 ticks); with a gap of 13 every 5th (15 ticks) */
	cfg.every = 4;
	cfg.min_gap = 10;
	ql_init(&q, &cfg);
	for (i = 0, n = 0; i < 400; i++)
		n += ql_sample(&q, 3 * (uint64_t)i);
	CHECK_EQ_U(n, 100);
	cfg.min_gap = 13;
	ql_init(&q, &cfg);
	for (i = 0, n = 0; i < 400; i++)
		n += ql_sample(&q, 3 * (uint64_t)i);
	CHECK_EQ_U(n, 80);

	/* a clock that wraps (TSC read as unsigned differences) */
	cfg.every = 1;
	cfg.min_gap = 10;
	ql_init(&q, &cfg);
	for (i = 0, n = 0; i < 100; i++)
		n += ql_sample(&q, UINT64_MAX - 500 + 10 * (uint64_t)i);
	CHECK_EQ_U(n, 100);
	test_sampling_min(&q);
}

/* ---- Snapshots under a concurrent writer -------------------------------- */

struct race {
	struct ql_acc q;
	uint8_t dead[FRAME_BYTES], sat[FRAME_BYTES], half[FRAME_BYTES];
	unsigned int frames;
	int stop;
	uint64_t reads, torn, retries_seen;
};

static void *
race_writer(void *arg)
{
	struct race *r = arg;
	struct codif_hdr h;
	unsigned int i;

	hdr(&h, 8, 1, false, 4, FRAME_BYTES);
	for (i = 0; i < r->frames; i++) {
		const uint8_t *d = i % 3 == 0 ? r->dead : i % 3 == 1 ? r->sat : r->half;

		if (ql_sample(&r->q, 0))
			ql_frame(&r->q, &h, d, FRAME_BYTES);
	}
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Every published state satisfies: each frame is all zero, all +127, or
 * half of each, so zero + sat == n, sum == 127 sat, sumsq == 127^2 sat,
 * and the bins add up to the total, n == used * 8192. */
static bool
consistent(const struct ql_snap *s)
{
	uint64_t n = 0, zero = 0, sat = 0;
	unsigned int b;

	if (s->total.n != s->used * FRAME_BYTES || s->total.zero + s->total.sat != s->total.n ||
	    s->total.sum_re != 127.0 * s->total.sat ||
	    s->total.sumsq != 127.0 * 127.0 * s->total.sat || s->sampled != s->used ||
	    s->offered < s->sampled)
		return false;
	for (b = 0; b < s->nbin; b++) {
		n += s->bin[b].n;
		zero += s->bin[b].zero;
		sat += s->bin[b].sat;
		if (s->bin[b].sum_re != 127.0 * s->bin[b].sat)
			return false;
	}
	return n == s->total.n && zero == s->total.zero && sat == s->total.sat;
}

static void *
race_reader(void *arg)
{
	struct race *r = arg;
	struct ql_snap s, prev;
	struct ql_figs f;

	memset(&prev, 0, sizeof(prev));
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		ql_read(&r->q, &s);
		r->reads++;
		if (s.used == 0)
			continue;
		if (!consistent(&s) || s.used < prev.used)
			r->torn++;
		ql_figs(&s, &prev, &f);
		prev = s;
	}
	return NULL;
}

static void
test_race(void)
{
	static struct race r;
	struct ql_cfg cfg;
	struct ql_snap s;
	pthread_t w, rd;
	size_t i;

	snprintf(ctx, sizeof(ctx), "race");
	cfg.every = 1;
	cfg.min_gap = 0;
	cfg.min = 0;
	CHECK_EQ_I(ql_init(&r.q, &cfg), 0);
	memset(r.dead, 0, sizeof(r.dead));
	memset(r.sat, 0x7F, sizeof(r.sat));
	for (i = 0; i < FRAME_BYTES; i++)
		r.half[i] = (i / 4) % 2 ? 0x7F : 0;
	r.frames = 60000;
	CHECK_EQ_I(pthread_create(&rd, NULL, race_reader, &r), 0);
	CHECK_EQ_I(pthread_create(&w, NULL, race_writer, &r), 0);
	pthread_join(w, NULL);
	pthread_join(rd, NULL);
	ql_read(&r.q, &s);
	CHECK_EQ_U(s.used, r.frames);
	CHECK(consistent(&s));
	CHECK_EQ_U(r.torn, 0);
	CHECK(r.reads > 10);
	printf("race: %" PRIu64 " reads during %u frames, %" PRIu64 " inconsistent\n",
	       r.reads, r.frames, r.torn);
}

int
main(void)
{
	test_encodings();
	test_expect();
	test_signal_fill();
	test_layout();
	test_signals();
	test_tone();
	test_counts();
	test_sampling();
	test_keep();
	test_race();
	return check_report("quicklook");
}
