/* SPDX-License-Identifier: BSD-3-Clause */
/* Power spectra of a stream's channels by FFTW (ql_spec.h says how). */

#include <errno.h>
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "ql_bstate.h"
#include "ql_spec.h"

int
qls_init(struct qls_acc *s, const struct codif_hdr *h, unsigned int nfft, char *err,
	 size_t errlen)
{
	size_t cells;
	int rc;

	memset(s, 0, sizeof(*s));
	if (nfft < QLS_NFFT_MIN || nfft > QLS_NFFT_MAX || (nfft & (nfft - 1)) != 0)
		return err_set(err, errlen, -EINVAL,
			       "%u points per FFT: expected a power of two, %u..%u", nfft,
			       QLS_NFFT_MIN, QLS_NFFT_MAX);
	rc = codif_signal_enc_init(&s->e, h, err, errlen);
	if (rc != 0)
		return -ENOTSUP;
	if (s->e.nchan > QLS_MAX_CHAN)
		return err_set(err, errlen, -ENOTSUP, "%u channels, at most %u", s->e.nchan,
			       QLS_MAX_CHAN);
	s->nfft = nfft;
	s->nchan = s->e.nchan;
	s->nbin = s->e.complex ? nfft : nfft / 2 + 1;
	s->fs_hz = h->period ? (double)h->totalsamples / h->period : 0;
	cells = (size_t)s->nchan * nfft;
	s->acc = calloc(cells, sizeof(double));
	s->buf = fftw_malloc(cells * sizeof(fftw_complex));
	s->in = fftw_malloc(nfft * sizeof(fftw_complex));
	s->out = fftw_malloc(nfft * sizeof(fftw_complex));
	if (s->acc == NULL || s->buf == NULL || s->in == NULL || s->out == NULL) {
		qls_free(s);
		return err_set(err, errlen, -ENOMEM, "out of memory for %u channels of %u points",
			       s->e.nchan, nfft);
	}
	s->plan = fftw_plan_dft_1d((int)nfft, s->in, s->out, FFTW_FORWARD, FFTW_ESTIMATE);
	return 0;
}

void
qls_free(struct qls_acc *s)
{
	if (s->plan != NULL)
		fftw_destroy_plan(s->plan);
	free(s->acc);
	fftw_free(s->buf);
	fftw_free(s->in);
	fftw_free(s->out);
	memset(s, 0, sizeof(*s));
}

void
qls_reset(struct qls_acc *s)
{
	if (s->acc != NULL)
		memset(s->acc, 0, (size_t)s->nchan * s->nfft * sizeof(double));
	s->blocks = 0;
	s->fill = 0;
}

static void
block_done(struct qls_acc *s)
{
	fftw_complex *in = s->in, *out = s->out, *buf = s->buf;
	unsigned int ch, k, n = s->nfft;

	for (ch = 0; ch < s->nchan; ch++) {
		memcpy(in, buf + (size_t)ch * n, n * sizeof(fftw_complex));
		fftw_execute(s->plan);
		for (k = 0; k < n; k++)
			s->acc[(size_t)ch * n + k] += out[k][0] * out[k][0] + out[k][1] * out[k][1];
	}
	s->blocks++;
	s->fill = 0;
}

static double
value(const struct codif_signal_enc *e, const uint8_t *d, size_t k)
{
	if (e->is_float) {
		float f;

		memcpy(&f, d + 4 * k, 4);
		return isfinite(f) ? f : 0;
	}
	return codif_signal_value(e, qlb_code(e, d, k));
}

void
qls_add(struct qls_acc *s, const uint8_t *data, size_t len)
{
	fftw_complex *buf = s->buf;
	size_t nsamp = len * 8 / s->e.nbits / s->e.S, t;
	unsigned int ch;

	for (t = 0; t < nsamp; t++) {
		for (ch = 0; ch < s->nchan; ch++) {
			size_t k = t * s->e.S + (size_t)ch * s->e.ncomp;
			fftw_complex *z = buf + (size_t)ch * s->nfft + s->fill;

			(*z)[0] = value(&s->e, data, k);
			(*z)[1] = s->e.complex ? value(&s->e, data, k + 1) : 0;
		}
		if (++s->fill == s->nfft)
			block_done(s);
	}
}

/* output bin j's FFT index: complex data's halves swapped, -fs/2 first */
static unsigned int
bin_index(const struct qls_acc *s, unsigned int j)
{
	return s->e.complex ? (j + s->nfft / 2) % s->nfft : j;
}

double
qls_bin_mhz(const struct qls_acc *s, unsigned int j)
{
	double df = s->fs_hz / s->nfft / 1e6;

	return s->e.complex ? ((double)j - s->nfft / 2) * df : j * df;
}

double
qls_bin_db(const struct qls_acc *s, unsigned int ch, unsigned int j)
{
	double p;

	if (s->blocks == 0)
		return NAN;
	p = s->acc[(size_t)ch * s->nfft + bin_index(s, j)] / (double)s->blocks / s->nfft;
	return p > 0 ? 10 * log10(p) : -300;
}

unsigned int
qls_peak(const struct qls_acc *s, unsigned int ch)
{
	unsigned int j, pk = 0;

	for (j = 1; j < s->nbin; j++)
		if (qls_bin_db(s, ch, j) > qls_bin_db(s, ch, pk))
			pk = j;
	return pk;
}

double
qls_chan_mhz(const struct qls_acc *s)
{
	return s->e.complex ? s->fs_hz / 1e6 : s->fs_hz / 2e6;
}
