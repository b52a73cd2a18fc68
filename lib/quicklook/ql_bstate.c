/* SPDX-License-Identifier: BSD-3-Clause */
/* Sampler statistics (ql_bstate.h): states counted per channel group, the
 * Gaussian expectation level by level, the RMS estimated from the
 * occupancy, and the verdict. */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "ql_bstate.h"

const char *
qlb_verdict_name(enum qlb_verdict v)
{
	switch (v) {
	case QLB_NODATA: return "nodata";
	case QLB_OK: return "ok";
	case QLB_UNDER: return "under-driven";
	case QLB_OVER: return "over-driven";
	case QLB_DEAD: return "dead";
	case QLB_SATURATED: return "saturated";
	case QLB_STUCK: return "stuck bit";
	}
	return "?";
}

void
qlb_cfg_defaults(struct qlb_cfg *c)
{
	c->under = 0.5;
	c->over = 2.0;
	c->dead = 0.99;
	c->sat = 0.99;
	c->min_samples = 1000;
}

/* two's complement value of an integer code, in whole steps (the level's
 * value less the mid-rise half) */
static int64_t
sval(const struct codif_signal_enc *e, uint32_t code)
{
	return (int64_t)floor(codif_signal_value(e, code));
}

int
qlb_init(struct qlb_acc *a, const struct codif_hdr *h, unsigned int groups, char *err,
	 size_t errlen)
{
	unsigned int c;
	int rc;

	memset(a, 0, sizeof(*a));
	rc = codif_signal_enc_init(&a->e, h, err, errlen);
	if (rc != 0)
		return rc;
	if (a->e.is_float)
		return err_set(err, errlen, -ENOTSUP, "32-bit floats have no sampler states");
	if (groups < 1 || groups > QLB_MAX_GROUPS)
		return err_set(err, errlen, -EINVAL, "%u channel groups, expected 1..%d", groups,
			       QLB_MAX_GROUPS);
	if (groups > a->e.nchan)
		groups = a->e.nchan;
	a->chan_per_group = (a->e.nchan + groups - 1) / groups;
	a->ngroup = (a->e.nchan + a->chan_per_group - 1) / a->chan_per_group;
	a->nstate = a->e.nbits <= 4 ? a->e.ncode : QLB_BINS;
	if (a->e.nbits <= 4)
		for (c = 0; c < a->e.ncode; c++)
			a->state_of[c] = (uint8_t)(sval(&a->e, c) + (int64_t)(a->e.ncode / 2));
	for (c = 0; c < QLB_MAX_GROUPS; c++)
		a->bits_and[c] = UINT32_MAX;
	return 0;
}

uint32_t
qlb_code(const struct codif_signal_enc *e, const uint8_t *d, size_t k)
{
	switch (e->nbits) {
	case 8: return d[k];
	case 16: return (uint32_t)d[2 * k] | (uint32_t)d[2 * k + 1] << 8;
	case 32: return (uint32_t)d[4 * k] | (uint32_t)d[4 * k + 1] << 8 |
			(uint32_t)d[4 * k + 2] << 16 | (uint32_t)d[4 * k + 3] << 24;
	default: {
		size_t bit = k * e->nbits;

		return (uint32_t)(d[bit / 8] >> (bit % 8)) & (e->ncode - 1);
	}
	}
}

/* Count one sample of code (value s steps, state st) in group g. */
static inline void
count(struct qlb_acc *a, unsigned int g, uint32_t code, int64_t s, unsigned int st, uint64_t n)
{
	const struct codif_signal_enc *e = &a->e;

	a->cnt[g][st] += n;
	a->n[g] += n;
	a->zero[g] += code == e->zero_code ? n : 0;
	a->ext[g] += code == e->lo_code || code == e->hi_code ? n : 0;
	a->sum[g] += (double)n * (double)s;
	a->sum2[g] += (double)n * (double)s * (double)s;
	a->bits_or[g] |= code;
	a->bits_and[g] &= code;
}

/*
 * nbits <= 4: a code is its state, so the frame is counted into a
 * histogram of codes per group (an increment a sample) and each code's
 * figures are added once afterwards. The group follows the component:
 * a counter, not a division, per sample.
 */
static void
add_codes(struct qlb_acc *a, const uint8_t *data, size_t ncomp)
{
	const struct codif_signal_enc *e = &a->e;
	uint64_t h[QLB_MAX_GROUPS][16];
	uint32_t mask = e->ncode - 1, span = e->ncomp * a->chan_per_group, c = 0, cg = 0;
	int64_t lo = -(int64_t)(e->ncode / 2);
	unsigned int g = 0, code;
	size_t k, bit = 0;

	memset(h, 0, sizeof(h));
	for (k = 0; k < ncomp; k++, bit += e->nbits) {
		h[g][(data[bit >> 3] >> (bit & 7)) & mask]++;
		if (++cg == span) {
			cg = 0;
			g++;
		}
		if (++c == e->S) {
			c = cg = 0;
			g = 0;
		}
	}
	for (g = 0; g < a->ngroup; g++)
		for (code = 0; code < e->ncode; code++)
			if (h[g][code] != 0)
				count(a, g, code, (int64_t)a->state_of[code] + lo, a->state_of[code],
				      h[g][code]);
}

void
qlb_add(struct qlb_acc *a, const uint8_t *data, size_t len)
{
	const struct codif_signal_enc *e = &a->e;
	size_t ncomp = len * 8 / e->nbits, k;
	uint32_t S = e->S, span = e->ncomp * a->chan_per_group, c = 0, cg = 0;
	int64_t lo = e->nbits >= 32 ? INT32_MIN : -(int64_t)(e->ncode / 2);
	unsigned int shift = e->nbits > 6 ? e->nbits - 6 : 0; /* 64 bins */
	unsigned int g = 0;

	ncomp -= ncomp % S; /* whole time samples */
	if (e->nbits <= 4) {
		add_codes(a, data, ncomp);
		return;
	}
	for (k = 0; k < ncomp; k++) {
		uint32_t code = qlb_code(e, data, k);
		int64_t s = sval(e, code);

		count(a, g, code, s, (unsigned int)((uint64_t)(s - lo) >> shift), 1);
		if (++cg == span) {
			cg = 0;
			g++;
		}
		if (++c == S) {
			c = cg = 0;
			g = 0;
		}
	}
}

/* the values of state s: [lo_v, hi_v] in whole steps (two's complement) */
static void
state_range(const struct qlb_acc *a, unsigned int s, double *lo_v, double *hi_v)
{
	double lo = a->e.nbits >= 32 ? (double)INT32_MIN : -(double)(a->e.ncode / 2);
	double w = a->e.nbits <= 4 ? 1.0 : ldexp(1.0, a->e.nbits - 6);

	*lo_v = lo + s * w;
	*hi_v = lo + (s + 1) * w - 1;
}

double
qlb_state_value(const struct qlb_acc *a, unsigned int s)
{
	double l, h;

	state_range(a, s, &l, &h);
	return (l + h) / 2 + (a->e.midrise ? 0.5 : 0.0);
}

static double
phi(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

void
qlb_gauss_occ(const struct qlb_acc *a, double sigma, double occ[QLB_BINS])
{
	unsigned int s;

	memset(occ, 0, QLB_BINS * sizeof(occ[0]));
	for (s = 0; s < a->nstate; s++) {
		double l, h, x0, x1;

		/* whole step s (mid-rise level s + 1/2) takes x in [s, s + 1),
		 * mid-tread s takes [s - 1/2, s + 1/2): both the level's value
		 * +- 1/2; the extremes take the tails */
		state_range(a, s, &l, &h);
		if (a->e.midrise) {
			x0 = l;
			x1 = h + 1;
		} else {
			x0 = l - 0.5;
			x1 = h + 0.5;
		}
		if (sigma <= 0) {
			occ[s] = (x0 <= 0 && 0 < x1) ? 1.0 : 0.0;
			continue;
		}
		occ[s] = (s + 1 == a->nstate ? 1.0 : phi(x1 / sigma)) -
			 (s == 0 ? 0.0 : phi(x0 / sigma));
	}
}

double
qlb_sigma_opt(const struct qlb_acc *a)
{
	switch (a->e.nbits) {
	case 1: return 0;
	case 2: return 1.0;
	case 4: return 2.98;
	default: return ldexp(1.0, a->e.nbits - 1) / 8;
	}
}

/* the share of states beyond the innermost (|value| above its least) */
static double
outer_share(const struct qlb_acc *a, const double *occ)
{
	double in = 0;
	unsigned int s;

	for (s = 0; s < a->nstate; s++)
		if (fabs(qlb_state_value(a, s)) <= 0.5)
			in += occ[s];
	return 1 - in;
}

void
qlb_result(const struct qlb_acc *a, int g, const struct qlb_cfg *c, struct qlb_result *r)
{
	uint64_t cnt[QLB_BINS] = { 0 }, n = 0, zero = 0, ext = 0;
	uint32_t bor = 0, band = UINT32_MAX, mask;
	double sum = 0, sum2 = 0;
	unsigned int s, i, g0 = g < 0 ? 0 : (unsigned int)g,
			   g1 = g < 0 ? a->ngroup : (unsigned int)g + 1;

	memset(r, 0, sizeof(*r));
	for (i = g0; i < g1 && i < a->ngroup; i++) {
		for (s = 0; s < a->nstate; s++)
			cnt[s] += a->cnt[i][s];
		n += a->n[i];
		zero += a->zero[i];
		ext += a->ext[i];
		sum += a->sum[i];
		sum2 += a->sum2[i];
		bor |= a->bits_or[i];
		band &= a->bits_and[i];
	}
	r->samples = n;
	r->sigma_opt = qlb_sigma_opt(a);
	r->rms = NAN;
	if (a->e.nbits == 1) {
		for (s = 0; s < 2; s++)
			r->expect[s] = 0.5;
	} else {
		qlb_gauss_occ(a, r->sigma_opt, r->expect);
	}
	if (n == 0 || n < c->min_samples) {
		r->verdict = QLB_NODATA;
		return;
	}
	for (s = 0; s < a->nstate; s++)
		r->occ[s] = (double)cnt[s] / (double)n;
	r->zero = (double)zero / (double)n;
	r->sat = (double)ext / (double)n;
	mask = a->e.nbits >= 32 ? UINT32_MAX : (uint32_t)a->e.ncode - 1;
	r->stuck_mask = ~(bor ^ band) & mask;
	r->stuck_val = band & r->stuck_mask;
	if (a->e.nbits >= 8) {
		double m = sum / (double)n, v = sum2 / (double)n - m * m;

		r->rms = v > 0 ? sqrt(v) : 0;
	} else if (a->e.nbits > 1) {
		double obs = outer_share(a, r->occ), lo = -3, hi = 6, occ[QLB_BINS];

		if (obs <= 0) {
			r->rms_below = true;
		} else {
			/* bisection on log10(sigma): the expected outer share grows with it */
			for (i = 0; i < 80; i++) {
				double mid = (lo + hi) / 2;

				qlb_gauss_occ(a, pow(10, mid), occ);
				if (outer_share(a, occ) < obs)
					lo = mid;
				else
					hi = mid;
			}
			r->rms = pow(10, (lo + hi) / 2);
		}
	}
	if (r->zero >= c->dead)
		r->verdict = QLB_DEAD;
	else if (a->e.nbits >= 2 && r->sat >= c->sat)
		r->verdict = QLB_SATURATED;
	else if (a->e.nbits >= 2 && r->stuck_mask != 0)
		r->verdict = QLB_STUCK;
	else if (r->sigma_opt > 0 && (r->rms_below || r->rms < c->under * r->sigma_opt))
		r->verdict = QLB_UNDER;
	else if (r->sigma_opt > 0 && r->rms > c->over * r->sigma_opt)
		r->verdict = QLB_OVER;
	else
		r->verdict = QLB_OK;
}

void
qlb_clear(struct qlb_acc *a)
{
	unsigned int g;

	memset(a->n, 0, sizeof(a->n));
	memset(a->cnt, 0, sizeof(a->cnt));
	memset(a->zero, 0, sizeof(a->zero));
	memset(a->ext, 0, sizeof(a->ext));
	memset(a->sum, 0, sizeof(a->sum));
	memset(a->sum2, 0, sizeof(a->sum2));
	memset(a->bits_or, 0, sizeof(a->bits_or));
	for (g = 0; g < QLB_MAX_GROUPS; g++)
		a->bits_and[g] = UINT32_MAX;
}

/* the same encoding and channel groups */
static bool
same_format(const struct qlb_acc *x, const struct qlb_acc *y)
{
	return x->e.nbits == y->e.nbits && x->e.repr == y->e.repr &&
	       x->e.complex == y->e.complex && x->e.nchan == y->e.nchan &&
	       x->ngroup == y->ngroup && x->chan_per_group == y->chan_per_group;
}

int
qlb_merge(struct qlb_acc *dst, const struct qlb_acc *src)
{
	unsigned int g, s;

	if (src->nstate == 0)
		return 0;
	if (dst->nstate == 0) {
		*dst = *src;
		return 0;
	}
	if (!same_format(dst, src))
		return -EINVAL;
	for (g = 0; g < src->ngroup; g++) {
		for (s = 0; s < src->nstate; s++)
			dst->cnt[g][s] += src->cnt[g][s];
		dst->n[g] += src->n[g];
		dst->zero[g] += src->zero[g];
		dst->ext[g] += src->ext[g];
		dst->sum[g] += src->sum[g];
		dst->sum2[g] += src->sum2[g];
		dst->bits_or[g] |= src->bits_or[g];
		dst->bits_and[g] &= src->bits_and[g];
	}
	return 0;
}
