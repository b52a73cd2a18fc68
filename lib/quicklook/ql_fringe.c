/* SPDX-License-Identifier: BSD-3-Clause */
/* The fringe check's arithmetic (ql_fringe.h): decode, FFT, conj(A) B
 * summed, the inverse at the end, the peak and its coefficient. */

#include <complex.h>
#undef complex /* codif.h's field; the type is spelt _Complex here */
#include <errno.h>
#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "ql_bstate.h"
#include "ql_fringe.h"

struct qlf_plan {
	fftw_plan fwd, inv;
	fftw_complex *a, *b, *tmp; /* nchan x nfft; nfft */
	double lut[256];           /* nbits <= 8: the value of each code */
};

/* FFTW's planner is not thread-safe; execution is */
static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;

int64_t
qlf_frame_index(const struct codif_hdr *h)
{
	uint64_t fpp = codif_frames_per_period(h);
	uint64_t per = h->period != 0 ? h->period : 1;

	return (int64_t)((uint64_t)h->seconds / per * fpp + h->frame);
}

static double
rate_hz(const struct codif_hdr *h)
{
	return h->period != 0 ? (double)h->totalsamples / h->period : 0;
}

/* The headers agree on what a pair needs; else the first difference, both
 * values named. */
static int
same_shape(const struct codif_hdr *a, const struct codif_hdr *b, char *err, size_t len)
{
	if (a->nchan != b->nchan)
		return err_set(err, len, -EINVAL, "channels differ: A %u, B %u", a->nchan, b->nchan);
	if (a->nbits != b->nbits)
		return err_set(err, len, -EINVAL, "bits per sample differ: A %u, B %u", a->nbits,
			       b->nbits);
	if (a->complex != b->complex)
		return err_set(err, len, -EINVAL, "A is %s, B %s", a->complex ? "complex" : "real",
			       b->complex ? "complex" : "real");
	if (a->representation != b->representation)
		return err_set(err, len, -EINVAL, "representations differ: A %u, B %u",
			       a->representation, b->representation);
	if (rate_hz(a) != rate_hz(b))
		return err_set(err, len, -EINVAL, "sample rates differ: A %.6g Hz, B %.6g Hz",
			       rate_hz(a), rate_hz(b));
	if (codif_data_bytes(a) != codif_data_bytes(b))
		return err_set(err, len, -EINVAL, "data bytes per frame differ: A %llu, B %llu",
			       (unsigned long long)codif_data_bytes(a),
			       (unsigned long long)codif_data_bytes(b));
	return 0;
}

static int
alloc_plan(struct qlf *f)
{
	size_t n = (size_t)f->e.nchan * f->nfft;
	struct qlf_plan *p = calloc(1, sizeof(*p));
	unsigned int i;

	if (p == NULL)
		return -ENOMEM;
	f->p = p;
	p->a = fftw_malloc(n * sizeof(fftw_complex));
	p->b = fftw_malloc(n * sizeof(fftw_complex));
	p->tmp = fftw_malloc(f->nfft * sizeof(fftw_complex));
	f->xs = calloc(2 * n, sizeof(double));
	f->pa = calloc(f->e.nchan, sizeof(double));
	f->pb = calloc(f->e.nchan, sizeof(double));
	if (p->a == NULL || p->b == NULL || p->tmp == NULL || f->xs == NULL ||
	    f->pa == NULL || f->pb == NULL)
		return -ENOMEM;
	pthread_mutex_lock(&plan_lock);
	p->fwd = fftw_plan_dft_1d((int)f->nfft, p->tmp, p->tmp, FFTW_FORWARD, FFTW_ESTIMATE);
	p->inv = fftw_plan_dft_1d((int)f->nfft, p->tmp, p->tmp, FFTW_BACKWARD, FFTW_ESTIMATE);
	pthread_mutex_unlock(&plan_lock);
	if (p->fwd == NULL || p->inv == NULL)
		return -ENOMEM;
	for (i = 0; f->e.nbits <= 8 && i < f->e.ncode; i++)
		p->lut[i] = codif_signal_value(&f->e, i);
	return 0;
}

int
qlf_init(struct qlf *f, const struct codif_hdr *ha, const struct codif_hdr *hb,
	 uint64_t chan_mask, unsigned int max_lag, char *err, size_t errlen)
{
	uint64_t all;
	int rc;

	memset(f, 0, sizeof(*f));
	rc = same_shape(ha, hb, err, errlen);
	if (rc != 0)
		return rc;
	rc = codif_signal_enc_init(&f->e, ha, err, errlen);
	if (rc != 0)
		return rc;
	if (f->e.nchan > QLF_MAX_CHAN)
		return err_set(err, errlen, -EINVAL, "%u channels, at most %d", f->e.nchan,
			       QLF_MAX_CHAN);
	all = f->e.nchan == 64 ? ~0ULL : (1ULL << f->e.nchan) - 1;
	if ((chan_mask & ~all) != 0)
		return err_set(err, errlen, -EINVAL,
			       "channel %d asked, the frames have channels 0..%u",
			       63 - __builtin_clzll(chan_mask), f->e.nchan - 1u);
	f->chan_mask = chan_mask != 0 ? chan_mask : all;
	f->frame_bytes = (uint32_t)codif_data_bytes(ha);
	f->nsamp = (uint32_t)((uint64_t)f->frame_bytes * 8 / f->e.nbits / f->e.S);
	if (f->nsamp < 2)
		return err_set(err, errlen, -EINVAL, "%u time samples per frame, at least 2 needed",
			       f->nsamp);
	f->max_lag = max_lag != 0 ? max_lag : QLF_DEF_MAX_LAG;
	if (f->max_lag > f->nsamp - 1)
		f->max_lag = f->nsamp - 1;
	if (f->max_lag > QLF_MAX_LAG)
		f->max_lag = QLF_MAX_LAG;
	for (f->nfft = 2; f->nfft < f->nsamp + f->max_lag; f->nfft *= 2)
		;
	f->sample_ns = rate_hz(ha) > 0 ? 1e9 / rate_hz(ha) : 0;
	rc = alloc_plan(f);
	if (rc != 0) {
		qlf_free(f);
		return err_set(err, errlen, rc, "out of memory");
	}
	return 0;
}

static inline double
value(const struct qlf *f, const uint8_t *d, size_t k)
{
	if (f->e.is_float) {
		float x;

		memcpy(&x, d + 4 * k, 4);
		return isfinite(x) ? x : 0;
	}
	if (f->e.nbits <= 8)
		return f->p->lut[qlb_code(&f->e, d, k)];
	return codif_signal_value(&f->e, qlb_code(&f->e, d, k));
}

/* Decode every correlated channel of d into v (nfft each, zero-padded),
 * minus the channel's mean; add its power to pw; transform in place. */
static void
load(const struct qlf *f, const uint8_t *d, fftw_complex *v, double *pw)
{
	unsigned int ch, t, n = f->nsamp;

	for (ch = 0; ch < f->e.nchan; ch++) {
		double _Complex *x = (double _Complex *)(v + (size_t)ch * f->nfft), m = 0;
		double p = 0;

		if ((f->chan_mask >> ch & 1) == 0)
			continue;
		for (t = 0; t < n; t++) {
			size_t k = (size_t)t * f->e.S + (size_t)ch * f->e.ncomp;

			/* re + im I, not CMPLX: glibc defines CMPLX for clang
			 * only where it has __builtin_complex (clang 14 not) */
			double re = value(f, d, k), im = f->e.complex ? value(f, d, k + 1) : 0;

			x[t] = re + im * I;
			m += x[t];
		}
		m /= n;
		for (t = 0; t < n; t++) {
			x[t] -= m;
			p += creal(x[t]) * creal(x[t]) + cimag(x[t]) * cimag(x[t]);
		}
		memset(x + n, 0, (f->nfft - n) * sizeof(*x));
		pw[ch] += p;
		fftw_execute_dft(f->p->fwd, (fftw_complex *)x, (fftw_complex *)x);
	}
}

void
qlf_add(struct qlf *f, const uint8_t *da, const uint8_t *db)
{
	unsigned int ch, k;

	load(f, da, f->p->a, f->pa);
	load(f, db, f->p->b, f->pb);
	for (ch = 0; ch < f->e.nchan; ch++) {
		const double _Complex *A = (double _Complex *)(f->p->a + (size_t)ch * f->nfft);
		const double _Complex *B = (double _Complex *)(f->p->b + (size_t)ch * f->nfft);
		double _Complex *s = (double _Complex *)(f->xs + 2 * (size_t)ch * f->nfft);

		if ((f->chan_mask >> ch & 1) == 0)
			continue;
		for (k = 0; k < f->nfft; k++)
			s[k] += conj(A[k]) * B[k];
	}
	f->pairs++;
}

/* rho(l) of channel ch from its inverse transform r (nfft, unnormalised) */
static double _Complex
rho_at(const struct qlf *f, const double _Complex *r, unsigned int ch, int l)
{
	double n = (double)f->pairs * (f->nsamp - (unsigned int)abs(l));
	double pa = f->pa[ch] / ((double)f->pairs * f->nsamp);
	double pb = f->pb[ch] / ((double)f->pairs * f->nsamp);

	if (pa <= 0 || pb <= 0)
		return 0;
	return r[l >= 0 ? l : (int)f->nfft + l] / f->nfft / n / sqrt(pa * pb);
}

int
qlf_curve(const struct qlf *f, unsigned int ch, double *re, double *im)
{
	double _Complex *r = (double _Complex *)f->p->tmp, z;
	int l, m = (int)f->max_lag;

	if (f->pairs == 0 || ch >= f->e.nchan || (f->chan_mask >> ch & 1) == 0)
		return -EINVAL;
	memcpy(r, f->xs + 2 * (size_t)ch * f->nfft, f->nfft * sizeof(fftw_complex));
	fftw_execute_dft(f->p->inv, f->p->tmp, f->p->tmp);
	for (l = -m; l <= m; l++) {
		z = rho_at(f, r, ch, l);
		re[l + m] = creal(z);
		im[l + m] = cimag(z);
	}
	return 0;
}

unsigned int
qlf_result(const struct qlf *f, struct qlf_chan *out)
{
	double re[2 * QLF_MAX_LAG + 1], im[2 * QLF_MAX_LAG + 1];
	unsigned int ch, n = 0;
	int m = (int)f->max_lag;

	for (ch = 0; ch < f->e.nchan; ch++) {
		struct qlf_chan *o = &out[n];
		double best = -1;
		int l, i = m;

		if (qlf_curve(f, ch, re, im) != 0)
			continue;
		for (l = 0; l <= 2 * m; l++)
			if (hypot(re[l], im[l]) > best) {
				best = hypot(re[l], im[l]);
				i = l;
			}
		memset(o, 0, sizeof(*o));
		o->chan = ch;
		o->lag = i - m;
		o->lag_ns = o->lag * f->sample_ns;
		o->coef = f->e.complex ? best : re[i];
		o->phase_deg = f->e.complex ? atan2(im[i], re[i]) * 180 / M_PI : re[i] < 0 ? 180 : 0;
		o->sigma = 1 / sqrt((double)f->pairs * (f->nsamp - (unsigned int)abs(o->lag)));
		o->zero_lag = hypot(re[m], im[m]);
		n++;
	}
	return n;
}

void
qlf_free(struct qlf *f)
{
	if (f->p != NULL) {
		pthread_mutex_lock(&plan_lock);
		if (f->p->fwd != NULL)
			fftw_destroy_plan(f->p->fwd);
		if (f->p->inv != NULL)
			fftw_destroy_plan(f->p->inv);
		pthread_mutex_unlock(&plan_lock);
		fftw_free(f->p->a);
		fftw_free(f->p->b);
		fftw_free(f->p->tmp);
		free(f->p);
	}
	free(f->xs);
	free(f->pa);
	free(f->pb);
	memset(f, 0, sizeof(*f));
}
