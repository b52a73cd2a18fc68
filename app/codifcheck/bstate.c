/* SPDX-License-Identifier: BSD-3-Clause */
/* codifcheck bstate: every frame as received (not gap frames, not frames
 * with the invalid bit) of each stream of each file into a ql_bstate
 * accumulator; per stream and channel group the occupancy of each state,
 * the Gaussian expectation at the optimal level and the verdict. */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bstate.h"
#include "check.h"
#include "inspect.h"
#include "json.h"
#include "plot.h"
#include "report.h"

#define MAX_STREAMS 1024

struct bs_stream {
	const struct cc_stream *st;
	struct qlb_acc a;
	bool ok;                      /* the encoding is read */
	char why[128];
	char name[96];
};

struct bs_file {
	const struct cc_bstate_opts *o;
	struct bs_stream *s[MAX_STREAMS];
	unsigned int n;
	uint64_t unread;              /* frames of streams beyond MAX_STREAMS */
};

static int
bs_frame(void *ctx, const struct cc_frame_ev *ev)
{
	struct bs_file *f = ctx;
	struct bs_stream *b = NULL;
	unsigned int i;

	if (ev->filled || ev->h->invalid || ev->len <= CODIF_HDR_LEN)
		return 0;
	for (i = 0; i < f->n; i++)
		if (f->s[i]->st == ev->st) {
			b = f->s[i];
			break;
		}
	if (b == NULL) {
		if (f->n == MAX_STREAMS) {
			f->unread++;
			return 0;
		}
		b = calloc(1, sizeof(*b));
		if (b == NULL)
			return -1;
		b->st = ev->st;
		cc_stream_name(ev->st, b->name, sizeof(b->name));
		b->ok = qlb_init(&b->a, ev->h, f->o->groups, b->why, sizeof(b->why)) == 0;
		f->s[f->n++] = b;
	}
	if (b->ok)
		qlb_add(&b->a, ev->codif + CODIF_HDR_LEN, ev->len - CODIF_HDR_LEN);
	return 0;
}

static void
text_result(const struct bs_stream *b, const struct qlb_result *r, const char *what)
{
	unsigned int s;

	printf("  %-10s %-12s %12" PRIu64 " samples", what, qlb_verdict_name(r->verdict),
	       r->samples);
	if (!isnan(r->rms))
		printf("  rms %.4g steps (optimal %.4g)", r->rms, r->sigma_opt);
	else if (r->rms_below)
		printf("  rms below what the states tell (optimal %.4g)", r->sigma_opt);
	if (r->verdict == QLB_STUCK)
		printf("  bits 0x%x stuck at 0x%x", r->stuck_mask, r->stuck_val);
	putchar('\n');
	if (r->samples == 0 || b->a.nstate > 16)
		return;
	printf("  %-10s", "");
	for (s = 0; s < b->a.nstate; s++)
		printf(" %+.1f:%5.2f%%", qlb_state_value(&b->a, s), 100 * r->occ[s]);
	printf("\n  %-10s", "expected");
	for (s = 0; s < b->a.nstate; s++)
		printf(" %+.1f:%5.2f%%", qlb_state_value(&b->a, s), 100 * r->expect[s]);
	putchar('\n');
}

static void
json_result(json_t *o, const struct bs_stream *b, const struct qlb_result *r)
{
	json_t *occ = js_arr(o, "occupancy"), *exp = js_arr(o, "expected"),
	       *val = js_arr(o, "state_value");
	unsigned int s;

	js_str(o, "verdict", qlb_verdict_name(r->verdict));
	js_u64(o, "samples", r->samples);
	if (isnan(r->rms))
		js_null(o, "rms");
	else
		js_dbl(o, "rms", r->rms);
	js_bool(o, "rms_below", r->rms_below);
	js_dbl(o, "rms_optimal", r->sigma_opt);
	js_dbl(o, "zero", r->zero);
	js_dbl(o, "saturated", r->sat);
	js_u64(o, "stuck_mask", r->stuck_mask);
	js_u64(o, "stuck_value", r->stuck_val);
	for (s = 0; s < b->a.nstate; s++) {
		json_array_append_new(occ, json_real(r->occ[s]));
		json_array_append_new(exp, json_real(r->expect[s]));
		json_array_append_new(val, json_real(qlb_state_value(&b->a, s)));
	}
}

/* The occupancy of each stream (whole) as bars, the expected levels at the
 * optimal RMS as points, a panel per stream (at most 8), through gnuplot;
 * the data beside the PNG as PNG.dat. */
static int
plot(struct bs_file *f, const struct cc_bstate_opts *o)
{
	char dat[PATH_MAX + 8];
	unsigned int i, s, np = 0;
	FILE *d, *g;

	snprintf(dat, sizeof(dat), "%s.dat", o->plot);
	d = fopen(dat, "w");
	if (d == NULL)
		return -1;
	for (i = 0; i < f->n && np < 8; i++) {
		struct bs_stream *b = f->s[i];
		struct qlb_result r;

		if (!b->ok)
			continue;
		qlb_result(&b->a, -1, &o->cfg, &r);
		fprintf(d, "# %s: %s\n", b->name, qlb_verdict_name(r.verdict));
		for (s = 0; s < b->a.nstate; s++)
			fprintf(d, "%.6g %.6f %.6f\n", qlb_state_value(&b->a, s), 100 * r.occ[s],
				100 * r.expect[s]);
		fprintf(d, "\n\n");
		np++;
	}
	fclose(d);
	if (np == 0)
		return -1;
	g = popen("gnuplot > /dev/null 2>&1", "w");
	if (g == NULL)
		return -1;
	fprintf(g, "set terminal pngcairo size 900,%u font 'sans,10'\n", 60 + 260 * np);
	fprintf(g, "set output '%s'\nset multiplot layout %u,1\n", o->plot, np);
	fprintf(g, "set style fill solid 0.5\nset boxwidth 0.8 relative\nset grid ytics\n");
	fprintf(g, "set xlabel 'sampler state (value, steps)'\nset ylabel 'occupancy (%%)'\n");
	fprintf(g, "set key outside right top\nset yrange [0:*]\n");
	for (i = 0, np = 0; i < f->n && np < 8; i++) {
		struct bs_stream *b = f->s[i];
		struct qlb_result r;

		if (!b->ok)
			continue;
		qlb_result(&b->a, -1, &o->cfg, &r);
		fprintf(g, "set title \"%s: %s\" noenhanced\n", b->name, qlb_verdict_name(r.verdict));
		fprintf(g, "plot '%s' index %u using 1:2 with boxes title 'observed', '' index %u "
			"using 1:3 with linespoints pt 7 lw 2 title 'Gaussian at the optimal level'\n",
			dat, np, np);
		np++;
	}
	fprintf(g, "unset multiplot\n");
	return pclose(g) == 0 && cc_plot_drawn(o->plot) == 0 ? 0 : -1;
}

/* one file: @return 1 when a stream is not ok or the file could not be read */
static int
one_file(const char *path, const struct cc_bstate_opts *o, json_t *files, bool last)
{
	struct bs_file f = { .o = o };
	struct cc_file cf;
	json_t *jf = NULL, *js = NULL;
	unsigned int i;
	int g, rc, bad = 0;

	rc = cc_inspect(&cf, path, &o->so, bs_frame, &f);
	if (o->json) {
		jf = json_object();
		js_str(jf, "file", path);
		js_str(jf, "format", cc_fmt_name(cf.det.fmt));
		js = js_arr(jf, "streams");
		json_array_append_new(files, jf);
	} else {
		printf("%s\n", path);
	}
	if (rc != 0 || (cf.scan != NULL && cf.scan->damaged) || !cc_fmt_readable(cf.det.fmt)) {
		fprintf(stderr, "codifcheck bstate: %s: %s\n", path,
			rc != 0 ? strerror(-rc) : cf.det.desc);
		bad = 1;
	}
	if (last && o->plot != NULL && plot(&f, o) != 0) {
		fprintf(stderr, "codifcheck bstate: --plot %s: gnuplot could not draw it (is "
			"gnuplot with pngcairo installed? a stream read?)\n", o->plot);
		bad = 1;
	}
	for (i = 0; i < f.n; i++) {
		struct bs_stream *b = f.s[i];
		struct qlb_result r;
		json_t *so = NULL, *gs = NULL;

		so = cc_stream_head(o->json, js, b->name);
		if (!b->ok) {
			if (o->json)
				js_str(so, "error", b->why);
			else
				printf("  not read: %s\n", b->why);
			continue;
		}
		if (o->json) {
			js_u64(so, "nbits", b->a.e.nbits);
			js_u64(so, "states", b->a.nstate);
			js_u64(so, "chan_per_group", b->a.chan_per_group);
			gs = js_arr(so, "groups");
		}
		for (g = -1; g < (int)b->a.ngroup; g++) {
			char what[32];

			qlb_result(&b->a, g, &o->cfg, &r);
			if (g < 0 && r.verdict != QLB_OK)
				bad = 1;
			if (o->json) {
				json_t *x = so;

				if (g >= 0) {
					x = json_object();
					js_u64(x, "first_chan", (uint64_t)g * b->a.chan_per_group);
					js_u64(x, "last_chan", (uint64_t)(g + 1) * b->a.chan_per_group - 1 <
						b->a.e.nchan ? (uint64_t)(g + 1) * b->a.chan_per_group - 1 :
						b->a.e.nchan - 1u);
					json_array_append_new(gs, x);
				}
				json_result(x, b, &r);
			} else {
				if (g < 0)
					snprintf(what, sizeof(what), "all");
				else
					snprintf(what, sizeof(what), "ch %u-%u",
						 g * b->a.chan_per_group,
						 (g + 1) * b->a.chan_per_group - 1 < b->a.e.nchan ?
						 (g + 1) * b->a.chan_per_group - 1 : b->a.e.nchan - 1u);
				if (g < 0 || b->a.ngroup > 1)
					text_result(b, &r, what);
			}
		}
		free(b);
	}
	cc_file_free(&cf);
	return bad;
}

int
cc_cmd_bstate(char **paths, int n, const struct cc_bstate_opts *o)
{
	json_t *root = json_object(), *files = js_arr(root, "files");
	int i, status = CC_EXIT_OK;

	for (i = 0; i < n; i++)
		if (one_file(paths[i], o, files, i == n - 1) != 0)
			status = CC_EXIT_PROBLEMS;
	if (o->json) {
		js_bool(root, "ok", status == CC_EXIT_OK);
		js_write(root, stdout, true);
		putchar('\n');
	}
	json_decref(root);
	return status;
}
