/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of lib/quicklook's sampler statistics (ql_bstate): lib/codif's
 * synthetic signal at known RMS levels -> occupancy within 6 standard
 * errors (+ 1e-4) of the Gaussian expectation, the verdicts under-driven /
 * ok / over-driven for 2-bit noise at 0.1, 1 and 3 steps, a stuck bit and
 * a dead antenna named, 8 and 16-bit widths = the injected RMS. */

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "testhdr.h"
#include "codif.h"
#include "codif_signal.h"
#include "ql_bstate.h"

#define D 8192

static struct codif_hdr
hdr(unsigned int nbits, unsigned int nchan, bool cplx)
{
	return test_signal_hdr(nbits, nchan, cplx, CODIF_SIGNAL_REPR_TWOS, D);
}

/* nframes frames of signal s into a, optionally with bit `stuck` of every
 * code forced to 0 */
static void
feed(struct qlb_acc *a, struct codif_hdr h, const struct codif_signal *s, unsigned int nframes,
     int stuck)
{
	static uint8_t buf[D];
	unsigned int f;
	size_t i;

	for (f = 0; f < nframes; f++) {
		h.frame = f;
		CHECK_EQ_I(codif_signal_fill(s, &h, buf, D), 0);
		if (stuck >= 0)
			for (i = 0; i < D; i++) /* 2-bit codes: bit `stuck` of each */
				buf[i] &= (uint8_t)~(0x55u << stuck);
		qlb_add(a, buf, D);
	}
}

/* every state within 6 standard errors (+ 1e-4) of Gaussian noise at rms */
static void
check_occ(const struct qlb_acc *a, const struct qlb_result *r, double rms)
{
	double want[QLB_BINS];
	unsigned int s;

	qlb_gauss_occ(a, rms, want);
	for (s = 0; s < a->nstate; s++) {
		double tol = 6 * sqrt(want[s] * (1 - want[s]) / (double)r->samples) + 1e-4;

		if (fabs(r->occ[s] - want[s]) > tol)
			fprintf(stderr, "nbits %u rms %g state %u: %.6f, expected %.6f +- %.6f\n",
				a->e.nbits, rms, s, r->occ[s], want[s], tol);
		CHECK(fabs(r->occ[s] - want[s]) <= tol);
	}
}

static void
test_2bit(void)
{
	static const double rms[3] = { 0.1, 1.0, 3.0 };
	static const enum qlb_verdict want[3] = { QLB_UNDER, QLB_OK, QLB_OVER };
	struct codif_hdr h = hdr(2, 4, false);
	struct qlb_cfg c;
	struct qlb_acc a;
	struct qlb_result r;
	struct codif_signal s;
	char err[128];
	unsigned int i;

	qlb_cfg_defaults(&c);
	for (i = 0; i < 3; i++) {
		CHECK_EQ_I(qlb_init(&a, &h, 4, err, sizeof(err)), 0);
		CHECK_EQ_U(a.nstate, 4);
		CHECK_EQ_U(a.ngroup, 4);
		codif_signal_noise(&s, rms[i], 11 + i);
		feed(&a, h, &s, 40, -1);
		qlb_result(&a, -1, &c, &r);
		CHECK_EQ_U(r.samples, 40ULL * D * 4);
		check_occ(&a, &r, rms[i]);
		CHECK_EQ_I(r.verdict, want[i]);
		if (i == 0) {
			/* no sample beyond +-1 step: below what can be told */
			CHECK(r.rms_below && isnan(r.rms));
			CHECK(r.occ[0] == 0 && r.occ[3] == 0);
		} else {
			CHECK(fabs(r.rms - rms[i]) < 0.02 * rms[i]);
		}
		/* each channel group alike */
		qlb_result(&a, 2, &c, &r);
		CHECK_EQ_U(r.samples, 40ULL * D);
		CHECK_EQ_I(r.verdict, want[i]);
	}
	/* the optimal level: 16/34/34/16 % */
	CHECK(fabs(r.expect[0] - 0.158655) < 1e-5 && fabs(r.expect[1] - 0.341345) < 1e-5);
	CHECK(fabs(r.expect[2] - 0.341345) < 1e-5 && fabs(r.expect[3] - 0.158655) < 1e-5);
	CHECK_STR(qlb_verdict_name(QLB_UNDER), "under-driven");

	/* a stuck bit: bit 1 of every code 0 */
	CHECK_EQ_I(qlb_init(&a, &h, 1, err, sizeof(err)), 0);
	codif_signal_noise(&s, 1.0, 5);
	feed(&a, h, &s, 10, 1);
	qlb_result(&a, -1, &c, &r);
	CHECK_EQ_I(r.verdict, QLB_STUCK);
	CHECK_EQ_U(r.stuck_mask, 2);
	CHECK_EQ_U(r.stuck_val, 0);
	CHECK_STR(qlb_verdict_name(r.verdict), "stuck bit");

	/* a dead antenna: the zero code only */
	CHECK_EQ_I(qlb_init(&a, &h, 1, err, sizeof(err)), 0);
	memset(&s, 0, sizeof(s));
	s.kind = CODIF_SIGNAL_DEAD;
	feed(&a, h, &s, 10, -1);
	qlb_result(&a, -1, &c, &r);
	CHECK_EQ_I(r.verdict, QLB_DEAD);
	CHECK(r.zero == 1.0);

	/* too few samples: nodata; thresholds are settable */
	CHECK_EQ_I(qlb_init(&a, &h, 1, err, sizeof(err)), 0);
	qlb_result(&a, -1, &c, &r);
	CHECK_EQ_I(r.verdict, QLB_NODATA);
	codif_signal_noise(&s, 1.6, 6);
	feed(&a, h, &s, 10, -1);
	qlb_result(&a, -1, &c, &r);
	CHECK_EQ_I(r.verdict, QLB_OK);
	c.over = 1.5;
	qlb_result(&a, -1, &c, &r);
	CHECK_EQ_I(r.verdict, QLB_OVER);
}

static void
test_4bit(void)
{
	struct codif_hdr h = hdr(4, 2, true);
	struct qlb_cfg c;
	struct qlb_acc a;
	struct qlb_result r;
	struct codif_signal s;
	char err[128];

	qlb_cfg_defaults(&c);
	CHECK_EQ_I(qlb_init(&a, &h, 2, err, sizeof(err)), 0);
	CHECK_EQ_U(a.nstate, 16);
	codif_signal_noise(&s, 2.98, 21);
	feed(&a, h, &s, 40, -1);
	qlb_result(&a, -1, &c, &r);
	check_occ(&a, &r, 2.98);
	CHECK_EQ_I(r.verdict, QLB_OK);
	CHECK(fabs(r.rms - 2.98) < 0.03 * 2.98);
}

/* 8 and 16 bits: the histogram as expected, its width the injected RMS */
static void
test_wide(unsigned int nbits, double rms)
{
	struct codif_hdr h = hdr(nbits, 4, false);
	struct qlb_cfg c;
	struct qlb_acc a;
	struct qlb_result r;
	struct codif_signal s;
	double m = 0, m2 = 0, w = ldexp(1.0, (int)nbits - 6);
	char err[128];
	unsigned int i;

	qlb_cfg_defaults(&c);
	CHECK_EQ_I(qlb_init(&a, &h, 4, err, sizeof(err)), 0);
	CHECK_EQ_U(a.nstate, QLB_BINS);
	codif_signal_noise(&s, rms, 31);
	feed(&a, h, &s, 80, -1);
	qlb_result(&a, -1, &c, &r);
	check_occ(&a, &r, rms);
	/* width from the samples, and (8 bits) from the histogram's bins
	 * (Sheppard: less a bin's width^2 / 12) */
	CHECK(fabs(r.rms - rms) < 0.01 * rms);
	for (i = 0; i < QLB_BINS; i++) {
		m += r.occ[i] * qlb_state_value(&a, i);
		m2 += r.occ[i] * qlb_state_value(&a, i) * qlb_state_value(&a, i);
	}
	if (nbits == 8)
		CHECK(fabs(sqrt(m2 - m * m - w * w / 12) - rms) < 0.02 * rms);
	CHECK_EQ_I(r.verdict, QLB_OK);
}

/* Two streams merged = their frames counted together; cleared: no counts,
 * the format kept; another format refused. Hand-built: channel c's code
 * is c (2-bit real, 4 channels, 2 groups): each group holds its two. */
static void
test_merge(void)
{
	static struct qlb_acc a, b, both, other;
	static uint8_t buf[D];
	struct codif_hdr h = hdr(2, 4, false), h8 = hdr(8, 4, false);
	struct codif_signal s, t;
	char err[128];

	codif_signal_noise(&s, 1.0, 41);
	codif_signal_noise(&t, 3.0, 42);
	CHECK_EQ_I(qlb_init(&a, &h, 2, err, sizeof(err)), 0);
	CHECK_EQ_I(qlb_init(&b, &h, 2, err, sizeof(err)), 0);
	CHECK_EQ_I(qlb_init(&both, &h, 2, err, sizeof(err)), 0);
	feed(&a, h, &s, 5, -1);
	feed(&b, h, &t, 5, -1);
	feed(&both, h, &s, 5, -1);
	feed(&both, h, &t, 5, -1);
	CHECK_EQ_I(qlb_merge(&a, &b), 0);
	CHECK(memcmp(a.cnt, both.cnt, sizeof(a.cnt)) == 0);
	CHECK(memcmp(a.n, both.n, sizeof(a.n)) == 0 && memcmp(a.zero, both.zero, sizeof(a.zero)) == 0);
	CHECK(memcmp(a.sum2, both.sum2, sizeof(a.sum2)) == 0);
	qlb_clear(&a);
	CHECK_EQ_U(a.n[0] + a.n[1], 0);
	CHECK_EQ_U(a.nstate, 4);
	CHECK_EQ_I(qlb_init(&other, &h8, 2, err, sizeof(err)), 0);
	CHECK_EQ_I(qlb_merge(&a, &other), -EINVAL);
	memset(&other, 0, sizeof(other));
	CHECK_EQ_I(qlb_merge(&other, &both), 0); /* an empty dst: a copy */
	CHECK(memcmp(other.cnt, both.cnt, sizeof(a.cnt)) == 0);
	/* codes 0, 1, 2, 3 in channels 0..3 (2 bits each, from the LSB) */
	memset(buf, 0xe4, sizeof(buf));
	CHECK_EQ_I(qlb_init(&a, &h, 2, err, sizeof(err)), 0);
	qlb_add(&a, buf, D);
	CHECK_EQ_U(a.cnt[0][a.state_of[0]], D);
	CHECK_EQ_U(a.cnt[0][a.state_of[1]], D);
	CHECK_EQ_U(a.cnt[1][a.state_of[2]], D);
	CHECK_EQ_U(a.cnt[1][a.state_of[3]], D);
	CHECK_EQ_U(a.n[0], 2 * D);
	CHECK_EQ_U(a.zero[0], D); /* code 0: all bits clear */
	CHECK_EQ_U(a.bits_or[1], 3);
	CHECK_EQ_U(a.bits_and[1], 2);
}

int
main(void)
{
	struct codif_hdr h = hdr(32, 1, false);
	struct qlb_acc a;
	char err[128];

	test_2bit();
	test_4bit();
	test_wide(8, 20);
	test_wide(16, 5000);
	test_merge();
	h.representation = CODIF_SIGNAL_REPR_FLOAT;
	CHECK_EQ_I(qlb_init(&a, &h, 1, err, sizeof(err)), -ENOTSUP);
	h = hdr(2, 4, false);
	CHECK_EQ_I(qlb_init(&a, &h, 17, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, "17 channel groups, expected 1..16");
	return check_report("test_bstate");
}
