/* SPDX-License-Identifier: BSD-3-Clause */
/* codifcheck spectrum: each channel's samples (codif_signal.h's layout and
 * values) of every frame as received cut into blocks of nfft, transformed
 * by FFTW (one complex plan; real data with a zero imaginary part, its
 * upper half dropped), |X|^2 averaged over the blocks. Axes: frequency in
 * MHz from the header's sample rate (totalsamples / period per channel;
 * real channels 0 .. fs/2, complex -fs/2 .. +fs/2 about the channel's
 * centre), power in dB of the mean |X|^2 / nfft (steps^2). */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inspect.h"
#include "json.h"
#include "plot.h"
#include "ql_spec.h"
#include "report.h"
#include "spectrum.h"

#define MAX_STREAMS 64

struct sp_stream {
	const struct cc_stream *st;
	char name[96];
	bool ok;
	char why[128];
	struct qls_acc q;
};

struct sp_ctx {
	const struct cc_spectrum_opts *o;
	struct sp_stream *s[MAX_STREAMS];
	unsigned int n;
	int err;
};

static int
sp_frame(void *ctx, const struct cc_frame_ev *ev)
{
	struct sp_ctx *c = ctx;
	struct sp_stream *b = NULL;
	unsigned int i;
	int rc;

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
		rc = qls_init(&b->q, ev->h, c->o->nfft, b->why, sizeof(b->why));
		if (rc == -ENOMEM)
			return c->err = -1;
		b->ok = rc == 0;
	}
	if (b->ok)
		qls_add(&b->q, ev->codif + CODIF_HDR_LEN, ev->len - CODIF_HDR_LEN);
	return 0;
}

static int
plot(const struct sp_ctx *c, const char *png, const char *title)
{
	char dat[PATH_MAX + 8], cmd[2 * PATH_MAX + 64];
	unsigned int i, ch, j, lines = 0;
	FILE *f, *g;
	int rc;

	snprintf(dat, sizeof(dat), "%s.dat", png);
	f = fopen(dat, "w");
	if (f == NULL)
		return -1;
	/* one block per stream: its channels side by side on the band */
	for (i = 0; i < c->n; i++) {
		const struct sp_stream *b = c->s[i];
		double bw = qls_chan_mhz(&b->q);

		if (!b->ok || b->q.blocks == 0)
			continue;
		fprintf(f, "# %s\n", b->name);
		for (ch = 0; ch < b->q.nchan; ch++)
			for (j = 0; j < b->q.nbin; j++) {
				double db = qls_bin_db(&b->q, ch, j);

				/* a bin of no power (-300, a constant signal's)
				 * is left out of the line: the axis keeps the
				 * band's range */
				fprintf(f, "%.6f ", ch * bw + qls_bin_mhz(&b->q, j) +
					(b->q.e.complex ? bw / 2 : 0));
				fprintf(f, db > -300 ? "%.4f\n" : "NaN\n", db);
			}
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

		if (!b->ok || b->q.blocks == 0)
			continue;
		fprintf(g, "%s '%s' index %u with lines title \"%s\" noenhanced", j ? "," : "",
			dat, j, b->name);
		j++;
	}
	fprintf(g, "\n");
	rc = pclose(g);
	return rc == 0 && cc_plot_drawn(png) == 0 ? 0 : -1;
}

/* One stream's spectra: per channel the peak and the mean power, as text,
 * or into the file's streams js with every bin (--json). @return 0, or
 * CC_EXIT_PROBLEMS when the stream has none to show (said). */
static int
stream_report(const struct sp_stream *b, const struct cc_spectrum_opts *o, json_t *js)
{
	json_t *so = cc_stream_head(o->json, js, b->name), *chs = NULL;
	unsigned int ch, j;

	if (!b->ok || b->q.blocks == 0) {
		const char *why = b->ok ? "fewer samples than one FFT" : b->why;

		if (o->json)
			js_str(so, "error", why);
		else
			printf("  not shown: %s\n", why);
		return CC_EXIT_PROBLEMS;
	}
	if (o->json) {
		json_t *fr = js_arr(so, "freq_mhz");

		js_u64(so, "nfft", o->nfft);
		js_u64(so, "blocks", b->q.blocks);
		js_dbl(so, "sample_rate_hz", b->q.fs_hz);
		js_bool(so, "complex", b->q.e.complex);
		for (j = 0; j < b->q.nbin; j++)
			json_array_append_new(fr, json_real(qls_bin_mhz(&b->q, j)));
		chs = js_arr(so, "channels");
	}
	for (ch = 0; ch < b->q.nchan; ch++) {
		unsigned int pk = qls_peak(&b->q, ch);
		double sum = 0;

		for (j = 0; j < b->q.nbin; j++)
			sum += qls_bin_db(&b->q, ch, j);
		if (o->json) {
			json_t *x = json_object(), *db = js_arr(x, "power_db");

			js_u64(x, "channel", ch);
			js_u64(x, "peak_bin", pk);
			js_dbl(x, "peak_mhz", qls_bin_mhz(&b->q, pk));
			js_dbl(x, "peak_db", qls_bin_db(&b->q, ch, pk));
			js_dbl(x, "mean_db", sum / b->q.nbin);
			for (j = 0; j < b->q.nbin; j++)
				json_array_append_new(db, json_real(qls_bin_db(&b->q, ch, j)));
			json_array_append_new(chs, x);
		} else {
			printf("  ch %-3u peak %+.6f MHz (bin %u) %.2f dB, mean %.2f dB "
			       "(%" PRIu64 " FFTs of %u)\n", ch, qls_bin_mhz(&b->q, pk), pk,
			       qls_bin_db(&b->q, ch, pk), sum / b->q.nbin, b->q.blocks, o->nfft);
		}
	}
	return 0;
}

int
cc_cmd_spectrum(char **paths, int np, const struct cc_spectrum_opts *o)
{
	json_t *root = json_object(), *files = js_arr(root, "files");
	int i, status = CC_EXIT_OK;
	struct sp_ctx c;

	memset(&c, 0, sizeof(c));
	c.o = o;
	for (i = 0; i < np; i++) {
		struct cc_file f;
		json_t *js = NULL;
		unsigned int k;
		int rc = cc_inspect(&f, paths[i], &o->so, sp_frame, &c);

		if (rc != 0 || c.err != 0 || (f.scan != NULL && f.scan->damaged) ||
		    !cc_fmt_readable(f.det.fmt)) {
			fprintf(stderr, "codifcheck spectrum: %s: %s\n", paths[i],
				rc != 0 || c.err ? "could not be read" : f.det.desc);
			status = CC_EXIT_PROBLEMS;
		}
		if (o->json) {
			json_t *jf = json_object();

			js_str(jf, "file", paths[i]);
			js = js_arr(jf, "streams");
			json_array_append_new(files, jf);
		} else {
			printf("%s\n", paths[i]);
		}
		for (k = 0; k < c.n; k++)
			if (stream_report(c.s[k], o, js) != 0)
				status = CC_EXIT_PROBLEMS;
		if (o->plot != NULL && i == np - 1 && plot(&c, o->plot, paths[i]) != 0) {
			fprintf(stderr, "codifcheck spectrum: --plot %s: gnuplot could not draw it "
				"(is gnuplot with pngcairo installed?)\n", o->plot);
			status = CC_EXIT_PROBLEMS;
		}
		for (k = 0; k < c.n; k++) {
			qls_free(&c.s[k]->q);
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
	return status;
}
