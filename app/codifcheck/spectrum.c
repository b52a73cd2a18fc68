/* SPDX-License-Identifier: BSD-3-Clause */
/* codifcheck spectrum: each channel's samples (codif_signal.h's layout and
 * values) of every frame as received cut into blocks of nfft, transformed
 * by FFTW (one complex plan; real data with a zero imaginary part, its
 * upper half dropped), |X|^2 averaged over the blocks. Axes: frequency in
 * MHz from the header's sample rate (totalsamples / period per channel;
 * real channels 0 .. fs/2, complex -fs/2 .. +fs/2 about the channel's
 * centre), power in dB of the mean |X|^2 / nfft (steps^2). */

#include <fftw3.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inspect.h"
#include "json.h"
#include "ql_bstate.h"
#include "spectrum.h"

#define MAX_STREAMS 64
#define MAX_CHAN 64

struct sp_stream {
	const struct cc_stream *st;
	char name[96];
	bool ok;
	char why[128];
	struct codif_signal_enc e;
	double fs_hz;               /* samples per second per channel */
	unsigned int nchan, nbin;
	double *acc;                /* nchan x nfft sums of |X|^2 */
	uint64_t blocks;            /* per channel */
	fftw_complex *buf;          /* nchan x nfft: the block being filled */
	size_t fill;                /* samples in buf (per channel) */
};

struct sp_ctx {
	const struct cc_spectrum_opts *o;
	struct sp_stream *s[MAX_STREAMS];
	unsigned int n;
	fftw_complex *in, *out;
	fftw_plan plan;
	int err;
};

static void
block_done(struct sp_ctx *c, struct sp_stream *b)
{
	unsigned int ch, k, n = c->o->nfft;

	for (ch = 0; ch < b->nchan; ch++) {
		memcpy(c->in, b->buf + (size_t)ch * n, n * sizeof(fftw_complex));
		fftw_execute(c->plan);
		for (k = 0; k < n; k++)
			b->acc[(size_t)ch * n + k] += c->out[k][0] * c->out[k][0] +
						      c->out[k][1] * c->out[k][1];
	}
	b->blocks++;
	b->fill = 0;
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

static int
sp_frame(void *ctx, const struct cc_frame_ev *ev)
{
	struct sp_ctx *c = ctx;
	struct sp_stream *b = NULL;
	const uint8_t *d = ev->codif + CODIF_HDR_LEN;
	size_t len = ev->len - CODIF_HDR_LEN, nsamp, t;
	unsigned int i, ch, n = c->o->nfft;

	if (ev->filled || ev->h->invalid || ev->len <= CODIF_HDR_LEN)
		return 0;
	for (i = 0; i < c->n; i++)
		if (c->s[i]->st == ev->st)
			b = c->s[i];
	if (b == NULL) {
		if (c->n == MAX_STREAMS)
			return 0;
		b = calloc(1, sizeof(*b));
		if (b == NULL)
			return c->err = -1;
		c->s[c->n++] = b;
		b->st = ev->st;
		cc_stream_name(ev->st, b->name, sizeof(b->name));
		b->ok = codif_signal_enc_init(&b->e, ev->h, b->why, sizeof(b->why)) == 0;
		if (b->ok && b->e.nchan > MAX_CHAN) {
			snprintf(b->why, sizeof(b->why), "%u channels, at most %d", b->e.nchan,
				 MAX_CHAN);
			b->ok = false;
		}
		if (!b->ok)
			return 0;
		b->nchan = b->e.nchan;
		b->nbin = b->e.complex ? n : n / 2 + 1;
		b->fs_hz = ev->h->period ? (double)ev->h->totalsamples / ev->h->period : 0;
		b->acc = calloc((size_t)b->nchan * n, sizeof(double));
		b->buf = fftw_malloc((size_t)b->nchan * n * sizeof(fftw_complex));
		if (b->acc == NULL || b->buf == NULL)
			return c->err = -1;
	}
	if (!b->ok)
		return 0;
	nsamp = len * 8 / b->e.nbits / b->e.S;
	for (t = 0; t < nsamp; t++) {
		for (ch = 0; ch < b->nchan; ch++) {
			size_t k = t * b->e.S + (size_t)ch * b->e.ncomp;
			fftw_complex *z = b->buf + (size_t)ch * n + b->fill;

			(*z)[0] = value(&b->e, d, k);
			(*z)[1] = b->e.complex ? value(&b->e, d, k + 1) : 0;
		}
		if (++b->fill == n)
			block_done(c, b);
	}
	return 0;
}

/* bin j of the output (0 .. nbin-1): its FFT index and frequency (MHz) */
static unsigned int
bin_index(const struct sp_stream *b, unsigned int n, unsigned int j)
{
	return b->e.complex ? (j + n / 2) % n : j;
}

static double
bin_mhz(const struct sp_stream *b, unsigned int n, unsigned int j)
{
	double df = b->fs_hz / n / 1e6;

	return b->e.complex ? ((double)j - n / 2) * df : j * df;
}

static double
bin_db(const struct sp_stream *b, unsigned int n, unsigned int ch, unsigned int j)
{
	double p = b->acc[(size_t)ch * n + bin_index(b, n, j)] / (double)b->blocks / n;

	return p > 0 ? 10 * log10(p) : -300;
}

static int
plot(const struct sp_ctx *c, const char *png, const char *title)
{
	char dat[PATH_MAX + 8], cmd[2 * PATH_MAX + 64];
	unsigned int i, ch, j, n = c->o->nfft, lines = 0;
	FILE *f, *g;
	int rc;

	snprintf(dat, sizeof(dat), "%s.dat", png);
	f = fopen(dat, "w");
	if (f == NULL)
		return -1;
	/* one block per stream: its channels side by side on the band */
	for (i = 0; i < c->n; i++) {
		const struct sp_stream *b = c->s[i];
		double bw = b->e.complex ? b->fs_hz / 1e6 : b->fs_hz / 2e6;

		if (!b->ok || b->blocks == 0)
			continue;
		fprintf(f, "# %s\n", b->name);
		for (ch = 0; ch < b->nchan; ch++)
			for (j = 0; j < b->nbin; j++)
				fprintf(f, "%.6f %.4f\n", ch * bw + bin_mhz(b, n, j) +
					(b->e.complex ? bw / 2 : 0), bin_db(b, n, ch, j));
		fprintf(f, "\n\n");
		lines++;
	}
	fclose(f);
	if (lines == 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "gnuplot > /dev/null 2>&1");
	g = popen(cmd, "w");
	if (g == NULL)
		return -1;
	fprintf(g, "set terminal pngcairo size 1200,%u font 'sans,10'\n", 300 + 200 * (lines > 4 ? 4 : lines));
	fprintf(g, "set output '%s'\nset title \"%s\" noenhanced\n", png, title);
	fprintf(g, "set xlabel 'frequency across the stream''s channels (MHz)'\n");
	fprintf(g, "set ylabel 'power (dB, steps^2 per bin)'\nset grid\nset key outside below\n");
	fprintf(g, "plot");
	for (i = 0, j = 0; i < c->n; i++) {
		const struct sp_stream *b = c->s[i];

		if (!b->ok || b->blocks == 0)
			continue;
		fprintf(g, "%s '%s' index %u with lines title \"%s\" noenhanced", j ? "," : "",
			dat, j, b->name);
		j++;
	}
	fprintf(g, "\n");
	rc = pclose(g);
	return rc == 0 ? 0 : -1;
}

int
cc_cmd_spectrum(char **paths, int np, const struct cc_spectrum_opts *o)
{
	json_t *root = json_object(), *files = js_arr(root, "files");
	unsigned int n = o->nfft;
	int i, status = CC_EXIT_OK;
	struct sp_ctx c;

	memset(&c, 0, sizeof(c));
	c.o = o;
	c.in = fftw_malloc(n * sizeof(fftw_complex));
	c.out = fftw_malloc(n * sizeof(fftw_complex));
	if (c.in == NULL || c.out == NULL) {
		fprintf(stderr, "codifcheck spectrum: out of memory\n");
		return CC_EXIT_PROBLEMS;
	}
	c.plan = fftw_plan_dft_1d((int)n, c.in, c.out, FFTW_FORWARD, FFTW_ESTIMATE);
	for (i = 0; i < np; i++) {
		struct cc_file f;
		json_t *jf = NULL, *js = NULL;
		unsigned int k, ch, j;
		int rc = cc_inspect(&f, paths[i], &o->so, sp_frame, &c);

		if (rc != 0 || c.err != 0 || (f.scan != NULL && f.scan->damaged) ||
		    !cc_fmt_readable(f.det.fmt)) {
			fprintf(stderr, "codifcheck spectrum: %s: %s\n", paths[i],
				rc != 0 || c.err ? "could not be read" : f.det.desc);
			status = CC_EXIT_PROBLEMS;
		}
		if (o->json) {
			jf = json_object();
			js_str(jf, "file", paths[i]);
			js = js_arr(jf, "streams");
			json_array_append_new(files, jf);
		} else {
			printf("%s\n", paths[i]);
		}
		for (k = 0; k < c.n; k++) {
			struct sp_stream *b = c.s[k];
			json_t *so = NULL, *chs = NULL;

			if (o->json) {
				so = json_object();
				js_str(so, "stream", b->name);
				json_array_append_new(js, so);
			} else {
				printf(" stream %s\n", b->name);
			}
			if (!b->ok || b->blocks == 0) {
				const char *why = b->ok ? "fewer samples than one FFT" : b->why;

				if (o->json)
					js_str(so, "error", why);
				else
					printf("  not shown: %s\n", why);
				status = CC_EXIT_PROBLEMS;
				continue;
			}
			if (o->json) {
				json_t *fr = js_arr(so, "freq_mhz");

				js_u64(so, "nfft", n);
				js_u64(so, "blocks", b->blocks);
				js_dbl(so, "sample_rate_hz", b->fs_hz);
				js_bool(so, "complex", b->e.complex);
				for (j = 0; j < b->nbin; j++)
					json_array_append_new(fr, json_real(bin_mhz(b, n, j)));
				chs = js_arr(so, "channels");
			}
			for (ch = 0; ch < b->nchan; ch++) {
				unsigned int pk = 0;
				double sum = 0;

				for (j = 0; j < b->nbin; j++) {
					if (bin_db(b, n, ch, j) > bin_db(b, n, ch, pk))
						pk = j;
					sum += bin_db(b, n, ch, j);
				}
				if (o->json) {
					json_t *x = json_object(), *db = js_arr(x, "power_db");

					js_u64(x, "channel", ch);
					js_u64(x, "peak_bin", pk);
					js_dbl(x, "peak_mhz", bin_mhz(b, n, pk));
					js_dbl(x, "peak_db", bin_db(b, n, ch, pk));
					js_dbl(x, "mean_db", sum / b->nbin);
					for (j = 0; j < b->nbin; j++)
						json_array_append_new(db, json_real(bin_db(b, n, ch, j)));
					json_array_append_new(chs, x);
				} else {
					printf("  ch %-3u peak %+.6f MHz (bin %u) %.2f dB, mean %.2f dB "
					       "(%" PRIu64 " FFTs of %u)\n", ch, bin_mhz(b, n, pk), pk,
					       bin_db(b, n, ch, pk), sum / b->nbin, b->blocks, n);
				}
			}
		}
		if (o->plot != NULL && i == np - 1 && plot(&c, o->plot, paths[i]) != 0) {
			fprintf(stderr, "codifcheck spectrum: --plot %s: gnuplot could not draw it "
				"(is gnuplot with pngcairo installed?)\n", o->plot);
			status = CC_EXIT_PROBLEMS;
		}
		for (k = 0; k < c.n; k++) {
			free(c.s[k]->acc);
			fftw_free(c.s[k]->buf);
			free(c.s[k]);
		}
		c.n = 0;
		cc_file_free(&f);
	}
	if (o->json) {
		js_write(root, stdout, true);
		putchar('\n');
	}
	json_decref(root);
	fftw_destroy_plan(c.plan);
	fftw_free(c.in);
	fftw_free(c.out);
	return status;
}
