/* SPDX-License-Identifier: BSD-3-Clause */
/* CODIF sample encodings and the synthetic signal: fill and expectation. */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codif_int.h"
#include "codif_pattern.h"
#include "codif_signal.h"

#define LEVEL_SUM_MAX 4096  /* levels summed one by one, at most */
#define TONE_PHASES 256     /* phases a tone's expectation averages */

static void
not_decoded(char *buf, size_t len, const char *what, unsigned int v)
{
	codif_seterr(buf, len, "%s %u not decoded", what, v);
}

int
codif_signal_enc_init(struct codif_signal_enc *e, const struct codif_hdr *h,
		      char *errbuf, size_t errlen)
{
	unsigned int b = h->nbits;
	int64_t smin, smax;

	memset(e, 0, sizeof(*e));
	if (h->nchan == 0) {
		codif_seterr(errbuf, errlen, "nchan 0");
		return -EINVAL;
	}
	if (b != 1 && b != 2 && b != 4 && b != 8 && b != 16 && b != 32) {
		not_decoded(errbuf, errlen, "nbits", b);
		return -ENOTSUP;
	}
	switch (h->representation) {
	case CODIF_SIGNAL_REPR_OFFSET:
	case CODIF_SIGNAL_REPR_TWOS:
		break;
	case CODIF_SIGNAL_REPR_FLOAT:
		if (b != 32) {
			codif_seterr(errbuf, errlen, "representation 2 (float) with nbits %u not "
				     "decoded (32 only)", b);
			return -ENOTSUP;
		}
		break;
	default:
		not_decoded(errbuf, errlen, "representation", h->representation);
		return -ENOTSUP;
	}
	e->nbits = (uint8_t)b;
	e->repr = h->representation;
	e->is_float = h->representation == CODIF_SIGNAL_REPR_FLOAT;
	e->complex = h->complex;
	e->ncomp = h->complex ? 2 : 1;
	e->nchan = h->nchan;
	e->S = (uint32_t)h->nchan * e->ncomp;
	if (e->is_float)
		return 0;
	e->midrise = b <= 2;
	e->ncode = b < 32 ? 1u << b : 0;
	e->flip = e->repr == CODIF_SIGNAL_REPR_OFFSET ? 1u << (b - 1) : 0;
	smin = -((int64_t)1 << (b - 1));
	smax = ((int64_t)1 << (b - 1)) - 1;
	e->lo_code = ((uint32_t)smin & (uint32_t)(b < 32 ? e->ncode - 1 : 0xffffffffu)) ^ e->flip;
	e->hi_code = (uint32_t)smax ^ e->flip;
	e->lo = (double)smin + (e->midrise ? 0.5 : 0.0);
	e->hi = (double)smax + (e->midrise ? 0.5 : 0.0);
	e->zero_code = e->midrise ? 0 : e->flip;
	return 0;
}

static inline uint32_t
code_mask(const struct codif_signal_enc *e)
{
	return e->nbits < 32 ? e->ncode - 1 : 0xffffffffu;
}

double
codif_signal_value(const struct codif_signal_enc *e, uint32_t code)
{
	uint32_t c = (code & code_mask(e)) ^ e->flip;
	int64_t s = c;

	if (e->nbits < 32 && (c >> (e->nbits - 1)) != 0)
		s -= (int64_t)e->ncode;
	else if (e->nbits == 32)
		s = (int32_t)c;
	return (double)s + (e->midrise ? 0.5 : 0.0);
}

uint32_t
codif_signal_quantise(const struct codif_signal_enc *e, double x)
{
	double smin = e->midrise ? e->lo - 0.5 : e->lo;
	double smax = e->midrise ? e->hi - 0.5 : e->hi;
	double s;

	if (isnan(x))
		return e->zero_code;
	s = e->midrise ? floor(x) : floor(x + 0.5);
	if (s < smin)
		s = smin;
	if (s > smax)
		s = smax;
	return ((uint32_t)(int64_t)s & code_mask(e)) ^ e->flip;
}

void
codif_signal_noise(struct codif_signal *s, double rms, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->kind = CODIF_SIGNAL_NOISE;
	s->rms = rms;
	s->seed = seed;
}

enum codif_signal_kind
codif_signal_chan_kind(const struct codif_signal *s, unsigned int chan)
{
	if (chan < CODIF_SIGNAL_MASK_CHAN) {
		if (s->dead_mask >> chan & 1)
			return CODIF_SIGNAL_DEAD;
		if (s->sat_mask >> chan & 1)
			return CODIF_SIGNAL_SATURATED;
	}
	return s->kind;
}

static bool
signal_ok(const struct codif_signal *s)
{
	return isfinite(s->rms) && s->rms >= 0 && isfinite(s->chan_slope) &&
	       isfinite(s->dc_re) && isfinite(s->dc_im) && isfinite(s->tone_amp) &&
	       isfinite(s->tone_freq) && (unsigned int)s->kind <= CODIF_SIGNAL_SATURATED &&
	       s->common_rho >= 0 && s->common_rho <= 1;
}

static inline uint64_t
mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static double
chan_rms(const struct codif_signal *s, unsigned int chan)
{
	double r = s->rms * (1.0 + s->chan_slope * chan);

	return r > 0 ? r : 0;
}

/* The common signal: a unit normal of (key, absolute sample n, component
 * pos of the time sample), independent of the antenna. */
static double
common_z(uint64_t key, int64_t n, uint32_t S, uint32_t pos)
{
	uint64_t r = mix64(key + ((uint64_t)n * S + pos) * 0xD1B54A32D192ED03ULL);
	double u1 = ((double)(r >> 32) + 1.0) * 0x1p-32;
	double u2 = (double)(uint32_t)r * 0x1p-32;

	return sqrt(-2.0 * log(u1)) * cos(2 * M_PI * u2);
}

/* Absolute time sample of a frame's first sample (see the header). */
static int64_t
frame_first_sample(const struct codif_hdr *h, uint64_t spf)
{
	uint64_t fpp = codif_frames_per_period(h);
	uint64_t per = h->period != 0 ? h->period : 1;

	return (int64_t)(((uint64_t)h->seconds / per * fpp + h->frame) * spf);
}

/* Write the low nbits of code as component k of the data. */
static inline void
put_code(uint8_t *p, const struct codif_signal_enc *e, uint64_t k, uint32_t code)
{
	unsigned int b = e->nbits, i;

	if (b < 8) {
		uint64_t bit = k * b;
		uint8_t *q = p + bit / 8;
		unsigned int sh = bit % 8;

		*q = (uint8_t)((*q & ~((e->ncode - 1) << sh)) | (code << sh));
		return;
	}
	for (i = 0; i < b / 8; i++)
		p[k * (b / 8) + i] = (uint8_t)(code >> (8 * i));
}

int
codif_signal_fill(const struct codif_signal *s, const struct codif_hdr *h,
		  void *buf, size_t len)
{
	struct codif_signal_enc e;
	uint8_t *p = buf;
	uint64_t key, ckey, ncomp_total, spf, k, r = 0;
	double z[2] = { 0, 0 }, tone_base = 0, cw, ow;
	int64_t n0;
	int rc;

	rc = codif_signal_enc_init(&e, h, NULL, 0);
	if (rc != 0)
		return rc;
	if (!signal_ok(s))
		return -EINVAL;
	memset(p, 0, len);
	ncomp_total = (uint64_t)len * 8 / e.nbits;
	spf = codif_samples_per_frame(h);
	if (spf == 0)
		spf = ncomp_total / e.S;
	if (s->tone_amp != 0)
		tone_base = fmod(s->tone_freq * (double)spf * (double)h->frame, 1.0);
	key = mix64(codif_pattern_seed(h) ^ mix64(s->seed));
	ckey = mix64(mix64(s->common_seed ^ 0xC033071C5EEDULL) + h->threadid);
	n0 = frame_first_sample(h, spf) - s->common_delay;
	cw = sqrt(s->common_rho);
	ow = sqrt(1.0 - s->common_rho);

	for (k = 0; k < ncomp_total; k++) {
		uint32_t pos = (uint32_t)(k % e.S);
		unsigned int chan = pos / e.ncomp, im = pos % e.ncomp;
		enum codif_signal_kind kind = codif_signal_chan_kind(s, chan);
		uint32_t code;

		/* one generator word per pair of components: two normals */
		if ((k & 1) == 0) {
			double u1, u2, rr;

			r = mix64(key + (k >> 1) * 0xD1B54A32D192ED03ULL);
			u1 = ((double)(r >> 32) + 1.0) * 0x1p-32;
			u2 = (double)(uint32_t)r * 0x1p-32;
			rr = sqrt(-2.0 * log(u1));
			z[0] = rr * cos(2 * M_PI * u2);
			z[1] = rr * sin(2 * M_PI * u2);
		}
		if (kind == CODIF_SIGNAL_DEAD) {
			code = e.is_float ? 0 : e.zero_code;
		} else if (kind == CODIF_SIGNAL_SATURATED) {
			bool neg = (r >> (k & 1)) & 1;
			float inf = neg ? -INFINITY : INFINITY;

			if (e.is_float)
				memcpy(&code, &inf, 4);
			else
				code = neg ? e.lo_code : e.hi_code;
		} else {
			double g = z[k & 1];
			double x;

			if (s->common_rho > 0)
				g = ow * g + cw * common_z(ckey, n0 + (int64_t)(k / e.S), e.S, pos);
			x = (im ? s->dc_im : s->dc_re) + chan_rms(s, chan) * g;

			if (s->tone_amp != 0) {
				double ph = 2 * M_PI *
					    (tone_base + fmod(s->tone_freq * (double)(k / e.S), 1.0));

				x += s->tone_amp * (im ? sin(ph) : cos(ph));
			}
			if (e.is_float) {
				float f = (float)x;

				memcpy(&code, &f, 4);
			} else {
				code = codif_signal_quantise(&e, x);
			}
		}
		if (s->stuck_mask != 0 && !e.is_float)
			code = (code & ~s->stuck_mask) | (s->stuck_val & s->stuck_mask);
		put_code(p, &e, k, code);
	}
	return 0;
}

/* ---- Expectation -------------------------------------------------------- */

static inline double
Phi(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

static inline double
phi(double z)
{
	return exp(-0.5 * z * z) / sqrt(2 * M_PI);
}

/* Moments of one sample: E[x], E[x^2], E[x^4] (finite part), P(sat), P(zero). */
struct mom {
	double m1, m2, m4, sat, zero, fin;  /* fin: P(finite) */
};

static void
mom_add(struct mom *a, const struct mom *b, double w)
{
	a->m1 += w * b->m1;
	a->m2 += w * b->m2;
	a->m4 += w * b->m4;
	a->sat += w * b->sat;
	a->zero += w * b->zero;
	a->fin += w * b->fin;
}

static void
mom_level(struct mom *m, const struct codif_signal_enc *e, double v, uint32_t code, double p)
{
	m->m1 += p * v;
	m->m2 += p * v * v;
	m->m4 += p * v * v * v * v;
	if (code == e->lo_code || code == e->hi_code)
		m->sat += p;
	if (code == e->zero_code)
		m->zero += p;
	m->fin += p;
}

/* x ~ N(mu, sigma^2) quantised by e (integers): level by level, or in closed
 * form when the levels within 12 sigma are too many. */
static void
mom_gauss_int(struct mom *m, const struct codif_signal_enc *e, double mu, double sigma)
{
	double smin = e->midrise ? e->lo - 0.5 : e->lo;
	double smax = e->midrise ? e->hi - 0.5 : e->hi;
	double off = e->midrise ? 0.0 : 0.5; /* level s covers [s - off, s + 1 - off) */
	double a, b, s, za, zb, pa, pb, dP, e1, e2, plo, phi_;

	memset(m, 0, sizeof(*m));
	if (sigma == 0) {
		uint32_t c = codif_signal_quantise(e, mu);

		mom_level(m, e, codif_signal_value(e, c), c, 1.0);
		return;
	}
	a = floor(mu - 12 * sigma) - 1;
	b = ceil(mu + 12 * sigma) + 1;
	if (a < smin)
		a = smin;
	if (b > smax)
		b = smax;
	if (b - a + 1 <= LEVEL_SUM_MAX) {
		for (s = a; s <= b; s++) {
			double lo = s == smin ? -INFINITY : s - off;
			double hi = s == smax ? INFINITY : s + 1 - off;
			double p = 0.5 * (erfc((lo - mu) / sigma / M_SQRT2) -
					  erfc((hi - mu) / sigma / M_SQRT2));
			double v = s + (e->midrise ? 0.5 : 0.0);

			mom_level(m, e, v, codif_signal_quantise(e, v), p);
		}
		return;
	}
	/* closed form: below lo + 1 - off reads lo, from hi - off up reads hi,
	 * between reads round(x) ~ x with Sheppard's 1/12 */
	za = (smin + 1 - off - mu) / sigma;
	zb = (smax - off - mu) / sigma;
	pa = Phi(za);
	pb = 1 - Phi(zb);
	dP = 1 - pa - pb;
	e1 = mu * dP + sigma * (phi(za) - phi(zb));
	e2 = (mu * mu + sigma * sigma) * dP + 2 * mu * sigma * (phi(za) - phi(zb)) +
	     sigma * sigma * (za * phi(za) - zb * phi(zb)) + dP / 12.0;
	plo = pa;
	phi_ = pb;
	m->m1 = e->lo * plo + e->hi * phi_ + e1;
	m->m2 = e->lo * e->lo * plo + e->hi * e->hi * phi_ + e2;
	/* fourth moment for the tolerance only: the unclipped Gaussian's */
	m->m4 = pow(mu, 4) + 6 * mu * mu * sigma * sigma + 3 * pow(sigma, 4);
	m->sat = plo + phi_;
	m->zero = Phi((0.5 - mu) / sigma) - Phi((-0.5 - mu) / sigma);
	m->fin = 1;
}

static void
mom_gauss(struct mom *m, const struct codif_signal_enc *e, double mu, double sigma)
{
	if (!e->is_float) {
		mom_gauss_int(m, e, mu, sigma);
		return;
	}
	memset(m, 0, sizeof(*m));
	m->m1 = mu;
	m->m2 = mu * mu + sigma * sigma;
	m->m4 = pow(mu, 4) + 6 * mu * mu * sigma * sigma + 3 * pow(sigma, 4);
	m->zero = sigma == 0 && mu == 0 ? 1 : 0;
	m->fin = 1;
}

int
codif_signal_expect(const struct codif_signal *s, const struct codif_signal_enc *e,
		    unsigned int chan, unsigned int im, struct codif_signal_expect *x)
{
	struct mom m, one;
	double sigma, dc, var, v;
	unsigned int i;

	if (chan >= e->nchan || im >= e->ncomp || !signal_ok(s))
		return -EINVAL;
	memset(&m, 0, sizeof(m));
	switch (codif_signal_chan_kind(s, chan)) {
	case CODIF_SIGNAL_DEAD:
		if (e->is_float)
			mom_gauss(&m, e, 0, 0);
		else
			mom_level(&m, e, codif_signal_value(e, e->zero_code), e->zero_code, 1.0);
		break;
	case CODIF_SIGNAL_SATURATED:
		if (e->is_float) {
			m.sat = 1; /* +-Inf: no finite sample */
		} else {
			mom_level(&m, e, e->lo, e->lo_code, 0.5);
			mom_level(&m, e, e->hi, e->hi_code, 0.5);
		}
		break;
	case CODIF_SIGNAL_NOISE:
		sigma = chan_rms(s, chan);
		dc = im ? s->dc_im : s->dc_re;
		if (s->tone_amp == 0) {
			mom_gauss(&m, e, dc, sigma);
			break;
		}
		for (i = 0; i < TONE_PHASES; i++) {
			double ph = 2 * M_PI * (i + 0.5) / TONE_PHASES;

			mom_gauss(&one, e, dc + s->tone_amp * (im ? sin(ph) : cos(ph)), sigma);
			mom_add(&m, &one, 1.0 / TONE_PHASES);
		}
		break;
	}
	memset(x, 0, sizeof(*x));
	if (m.fin > 0) {
		x->mean = m.m1 / m.fin;
		x->power = m.m2 / m.fin;
		var = x->power - x->mean * x->mean;
		x->sd_mean = var > 0 ? sqrt(var) : 0;
		v = m.m4 / m.fin - x->power * x->power;
		x->sd_power = v > 0 ? sqrt(v) : 0;
	}
	x->sat = m.sat;
	x->zero = m.zero;
	x->sd_sat = sqrt(m.sat * (1 - m.sat) > 0 ? m.sat * (1 - m.sat) : 0);
	x->sd_zero = sqrt(m.zero * (1 - m.zero) > 0 ? m.zero * (1 - m.zero) : 0);
	return 0;
}

/* ---- Expected correlation of two signals sharing a common part ---------- */

#define CORR_MAX_THR 512

/* Decision thresholds of e within 10 sigma of mu, in units of sigma from mu. */
static unsigned int
thresholds(const struct codif_signal_enc *e, double mu, double sigma, double *u)
{
	double off = e->midrise ? 0.0 : 0.5; /* level s covers [s - off, s + 1 - off) */
	double smin = e->midrise ? e->lo - 0.5 : e->lo;
	double smax = e->midrise ? e->hi - 0.5 : e->hi;
	double lo = fmax(smin + 1, ceil(mu - 10 * sigma + off));
	double hi = fmin(smax, floor(mu + 10 * sigma + off));
	unsigned int n = 0;
	double s;

	if (hi - lo + 1 > CORR_MAX_THR)
		return CORR_MAX_THR + 1;
	for (s = lo; s <= hi; s++) /* the threshold between levels s - 1 and s */
		u[n++] = (s - off - mu) / sigma;
	return n;
}

/* sum over threshold pairs of the bivariate normal density at correlation r */
static double
price_sum(const double *u, unsigned int nu, const double *v, unsigned int nv, double r)
{
	double q = 1 - r * r, sum = 0;
	unsigned int i, j;

	for (i = 0; i < nu; i++)
		for (j = 0; j < nv; j++)
			sum += exp(-(u[i] * u[i] - 2 * r * u[i] * v[j] + v[j] * v[j]) / (2 * q));
	return sum / (2 * M_PI * sqrt(q));
}

int
codif_signal_expect_corr(const struct codif_signal *a, const struct codif_signal *b,
			 const struct codif_signal_enc *e, unsigned int chan,
			 unsigned int im, double *coef)
{
	/* 24-point Gauss-Legendre on [-1, 1]: nodes (positive half) and weights */
	static const double gx[12] = {
		0.0640568928626056, 0.1911188674736163, 0.3150426796961634,
		0.4337935076260451, 0.5454214713888395, 0.6480936519369756,
		0.7401241915785544, 0.8200019859739029, 0.8864155270044011,
		0.9382745520027328, 0.9747285559713095, 0.9951872199970214 };
	static const double gw[12] = {
		0.1279381953467522, 0.1258374563468283, 0.1216704729278034,
		0.1155056680537256, 0.1074442701159656, 0.0976186521041139,
		0.0861901615319533, 0.0733464814110803, 0.0592985849154368,
		0.0442774388174198, 0.0285313886289337, 0.0123412297999872 };
	double u[CORR_MAX_THR + 1], v[CORR_MAX_THR + 1];
	struct codif_signal_expect xa, xb;
	double rho, sa, sb, cov = 0;
	unsigned int nu, nv, i, k;

	if (!signal_ok(a) || !signal_ok(b) || a->common_seed != b->common_seed ||
	    codif_signal_chan_kind(a, chan) != CODIF_SIGNAL_NOISE ||
	    codif_signal_chan_kind(b, chan) != CODIF_SIGNAL_NOISE ||
	    codif_signal_expect(a, e, chan, im, &xa) != 0 ||
	    codif_signal_expect(b, e, chan, im, &xb) != 0)
		return -EINVAL;
	rho = sqrt(a->common_rho * b->common_rho);
	sa = chan_rms(a, chan);
	sb = chan_rms(b, chan);
	if (e->is_float || sa == 0 || sb == 0 || rho == 0) {
		*coef = sa == 0 || sb == 0 ? 0 : rho;
		return 0;
	}
	nu = thresholds(e, im ? a->dc_im : a->dc_re, sa, u);
	nv = thresholds(e, im ? b->dc_im : b->dc_re, sb, v);
	if (nu > CORR_MAX_THR || nv > CORR_MAX_THR) {
		/* fine steps: rounding noise (1/12) uncorrelated, clipping nil */
		*coef = rho * sa * sb / sqrt((sa * sa + 1.0 / 12) * (sb * sb + 1.0 / 12));
		return 0;
	}
	/* cov(q(x), q(y)) = integral from 0 to rho of price_sum dr (steps^2) */
	for (i = 0; i < 12; i++)
		for (k = 0; k < 2; k++) {
			double r = rho / 2 * (1 + (k ? gx[i] : -gx[i]));

			cov += gw[i] * price_sum(u, nu, v, nv, r);
		}
	cov *= rho / 2;
	*coef = cov / sqrt(xa.sd_mean * xa.sd_mean * xb.sd_mean * xb.sd_mean);
	return 0;
}
