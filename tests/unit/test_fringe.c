/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the fringe check (lib/quicklook ql_fringe) on lib/codif's
 * common signal: the lag exactly D_B - D_A, the coefficient within 5 sigma
 * of codif_signal_expect_corr (16-bit real, 4-bit complex, float), other
 * common seeds uncorrelated (< 5 / sqrt(N)); the common part a function of
 * absolute sample time (a delayed antenna's first samples are the previous
 * frame's, exactly); the expectation (2 bits at RMS 1, rho 0.5: 0.4443);
 * mismatched frames refused naming both values. */

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "testhdr.h"
#include "codif.h"
#include "codif_signal.h"
#include "ql_fringe.h"

#define D 8192

static struct codif_hdr
hdr(unsigned int nbits, unsigned int nchan, bool cplx, unsigned int repr)
{
	return test_signal_hdr(nbits, nchan, cplx, repr, D);
}

static struct codif_signal
common(double rms, double rho, int64_t delay, uint64_t seed, uint64_t own)
{
	struct codif_signal s;

	codif_signal_noise(&s, rms, own);
	s.common_rho = rho;
	s.common_delay = delay;
	s.common_seed = seed;
	return s;
}

/* nframes pairs of frames of the same time, a's and b's (their own groupid
 * as two antennas have), into f; every channel's result checked against
 * the expectation (uncorrelated: seeds differ) */
static void
run(struct codif_hdr h, const struct codif_signal *a, const struct codif_signal *b,
    unsigned int nframes, int lag)
{
	static uint8_t da[D], db[D];
	struct qlf_chan r[QLF_MAX_CHAN];
	struct codif_signal_enc e;
	struct codif_hdr hb = h;
	struct qlf f;
	unsigned int i, n;
	char err[128];

	hb.groupid = 1;
	CHECK_EQ_I(qlf_init(&f, &h, &hb, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(codif_signal_enc_init(&e, &h, NULL, 0), 0);
	for (i = 0; i < nframes; i++) {
		h.frame = hb.frame = i;
		CHECK_EQ_I(codif_signal_fill(a, &h, da, D), 0);
		CHECK_EQ_I(codif_signal_fill(b, &hb, db, D), 0);
		qlf_add(&f, da, db);
	}
	n = qlf_result(&f, r);
	CHECK_EQ_U(n, h.nchan);
	for (i = 0; i < n; i++) {
		double want = 0, c;
		unsigned int im;

		if (a->common_seed == b->common_seed) {
			for (im = 0; im < e.ncomp; im++) {
				CHECK_EQ_I(codif_signal_expect_corr(a, b, &e, i, im, &c), 0);
				want += c / e.ncomp;
			}
			CHECK_EQ_I(r[i].lag, lag);
			CHECK(fabs(r[i].lag_ns - lag * 1e9 / (double)h.totalsamples) < 1e-6);
			CHECK(fabs(r[i].coef - want) < 5 * r[i].sigma);
		} else {
			CHECK(fabs(r[i].coef) < 5 * r[i].sigma);
		}
	}
	qlf_free(&f);
}

/* rho 1, floats: antenna b's samples are a's, 3 samples later, exactly,
 * across the frame boundary */
static void
test_absolute_time(void)
{
	struct codif_hdr h = hdr(32, 1, false, CODIF_SIGNAL_REPR_FLOAT);
	struct codif_signal a = common(10, 1, 0, 5, 1), b = common(10, 1, 3, 5, 2);
	static float xa[D / 4], xb[D / 4];
	unsigned int n = D / 4, t;

	h.frame = 7;
	CHECK_EQ_I(codif_signal_fill(&a, &h, xa, D), 0);
	h.frame = 8;
	h.groupid = 1;
	CHECK_EQ_I(codif_signal_fill(&b, &h, xb, D), 0);
	for (t = 0; t < 3; t++)
		CHECK(xb[t] == xa[n - 3 + t]);
	CHECK(xb[3] != xa[0]);
}

static void
test_expect(void)
{
	struct codif_hdr h = hdr(2, 4, true, CODIF_SIGNAL_REPR_TWOS);
	struct codif_signal a = common(1, 0.5, 0, 0, 1), b = common(1, 0.5, 3, 0, 2);
	struct codif_signal_enc e;
	double c;

	CHECK_EQ_I(codif_signal_enc_init(&e, &h, NULL, 0), 0);
	CHECK_EQ_I(codif_signal_expect_corr(&a, &b, &e, 0, 0, &c), 0);
	CHECK(fabs(c - 0.4443) < 1e-4);
	b.common_seed = 1;
	CHECK_EQ_I(codif_signal_expect_corr(&a, &b, &e, 0, 0, &c), -EINVAL);
	h = hdr(32, 1, false, CODIF_SIGNAL_REPR_FLOAT);
	CHECK_EQ_I(codif_signal_enc_init(&e, &h, NULL, 0), 0);
	b = common(1, 0.8, 0, 0, 2);
	CHECK_EQ_I(codif_signal_expect_corr(&a, &b, &e, 0, 0, &c), 0);
	CHECK(fabs(c - sqrt(0.4)) < 1e-12);
}

static void
test_refused(void)
{
	struct codif_hdr a = hdr(2, 4, true, CODIF_SIGNAL_REPR_TWOS), b = a;
	struct qlf f;
	char err[128];

	b.nchan = 8;
	b.totalsamples /= 2;
	CHECK_EQ_I(qlf_init(&f, &a, &b, 0, 0, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, "channels differ: A 4, B 8");
	b = a;
	b.totalsamples *= 2;
	CHECK_EQ_I(qlf_init(&f, &a, &b, 0, 0, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, "sample rates differ");
	CHECK_EQ_I(qlf_init(&f, &a, &a, 1ULL << 5, 0, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, "channel 5 asked, the frames have channels 0..3");
}

int
main(void)
{
	struct codif_signal a, b;

	/* 16-bit real, 2 channels of 2048 samples: B behind A by 4 - (-2) */
	a = common(100, 0.5, -2, 0, 1);
	b = common(100, 0.5, 4, 0, 2);
	run(hdr(16, 2, false, CODIF_SIGNAL_REPR_TWOS), &a, &b, 20, 6);
	/* 4-bit complex, 4 channels: shares 0.3 and 0.6, no delay */
	a = common(2.98, 0.3, 0, 0, 1);
	b = common(2.98, 0.6, 0, 0, 2);
	run(hdr(4, 4, true, CODIF_SIGNAL_REPR_TWOS), &a, &b, 20, 0);
	/* float, B ahead of A by 5 */
	a = common(3, 0.7, 5, 0, 1);
	b = common(3, 0.7, 0, 0, 2);
	run(hdr(32, 1, false, CODIF_SIGNAL_REPR_FLOAT), &a, &b, 10, -5);
	/* other common signals: uncorrelated */
	b.common_seed = 9;
	run(hdr(32, 1, false, CODIF_SIGNAL_REPR_FLOAT), &a, &b, 10, 0);
	test_absolute_time();
	test_expect();
	test_refused();
	return check_report("test_fringe");
}
