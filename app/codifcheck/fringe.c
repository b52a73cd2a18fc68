/* SPDX-License-Identifier: BSD-3-Clause */
/* codifcheck fringe FILE_A FILE_B: FILE_A's frames as received (not gap
 * frames, not frames with the invalid bit) held, up to --max-frames, by
 * (thread, frame index); FILE_B's frames of the same (thread, index)
 * paired with them, each pair into one lib/quicklook ql_fringe baseline per
 * thread; per thread and channel the lag of the peak (samples, ns) and the
 * normalised coefficient; --plot: rho against lag through gnuplot. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "err.h"
#include "fringe.h"
#include "inspect.h"
#include "json.h"
#include "parse.h"
#include "plot.h"
#include "ql_fringe.h"

#define MAX_THREADS 64

struct fr_frame {
	uint16_t thread;
	int64_t index;
	struct codif_hdr h;
	uint8_t *data;
	bool used;
};

struct fr_base {
	uint16_t thread;
	struct qlf q;
};

struct fr_ctx {
	const struct cc_fringe_opts *o;
	uint64_t mask;
	struct fr_frame *a;         /* FILE_A's frames held, sorted after the scan */
	size_t na;
	uint64_t frames_a, frames_b, not_held, unmatched_b;
	int64_t lo[2], hi[2];       /* frame index range of each file */
	struct fr_base base[MAX_THREADS];
	unsigned int nbase;
	struct codif_hdr src[2][MAX_THREADS]; /* each file's source per thread */
	unsigned int nsrc[2];
	char why[256];              /* a fatal mismatch of the two files */
	char mixed[256];            /* a file of more than one antenna */
	int err;
};

int
cc_fringe_channels(const char *s, uint64_t *mask, char *err, size_t len)
{
	char *pieces[64], *store = NULL;
	int n, i, rc = 0;

	*mask = 0;
	n = parse_list("--channels", s, ',', pieces, 64, &store, err, len);
	if (n < 0)
		return n;
	for (i = 0; i < n && rc == 0; i++) {
		char *dash = strchr(pieces[i], '-');
		uint64_t lo, hi;

		if (dash != NULL)
			*dash = '\0';
		rc = parse_u64("--channels", pieces[i], 0, 63, &lo, err, len);
		hi = lo;
		if (rc == 0 && dash != NULL)
			rc = parse_u64("--channels", dash + 1, lo, 63, &hi, err, len);
		for (; rc == 0 && lo <= hi; lo++)
			*mask |= 1ULL << lo;
	}
	free(store);
	return rc;
}

/* file f's frame index range, seen: its frames before this one */
static void
range_add(struct fr_ctx *c, int f, int64_t i, uint64_t seen)
{
	if (seen == 0 || i < c->lo[f])
		c->lo[f] = i;
	if (seen == 0 || i > c->hi[f])
		c->hi[f] = i;
}

/* A file must hold one antenna: one source (station, group, secondary ids)
 * per thread, else frames of another antenna would pair as its own. */
static int
one_source(struct fr_ctx *c, int f, const struct codif_hdr *h)
{
	unsigned int i;

	for (i = 0; i < c->nsrc[f]; i++) {
		const struct codif_hdr *s = &c->src[f][i];

		if (s->threadid != h->threadid)
			continue;
		if (s->stationid == h->stationid && s->groupid == h->groupid &&
		    s->secondaryid == h->secondaryid)
			return 0;
		snprintf(c->mixed, sizeof(c->mixed), "holds frames of more than one source on thread "
			 "%u (station %u group %u secondary %u, and station %u group %u secondary "
			 "%u): give one antenna's recording", h->threadid, s->stationid, s->groupid,
			 s->secondaryid, h->stationid, h->groupid, h->secondaryid);
		return c->err = -EINVAL;
	}
	if (c->nsrc[f] < MAX_THREADS)
		c->src[f][c->nsrc[f]++] = *h;
	return 0;
}

static int
fr_hold(void *ctx, const struct cc_frame_ev *ev)
{
	struct fr_ctx *c = ctx;
	struct fr_frame *x;

	if (ev->filled || ev->h->invalid || ev->len <= CODIF_HDR_LEN)
		return 0;
	if (one_source(c, 0, ev->h) != 0)
		return c->err;
	range_add(c, 0, qlf_frame_index(ev->h), c->frames_a);
	c->frames_a++;
	if (c->na == c->o->max_frames) {
		c->not_held++;
		return 0;
	}
	x = &c->a[c->na];
	x->data = malloc(ev->len - CODIF_HDR_LEN);
	if (x->data == NULL)
		return c->err = -ENOMEM;
	memcpy(x->data, ev->codif + CODIF_HDR_LEN, ev->len - CODIF_HDR_LEN);
	x->h = *ev->h;
	x->thread = ev->h->threadid;
	x->index = qlf_frame_index(ev->h);
	c->na++;
	return 0;
}

static int
fr_cmp(const void *pa, const void *pb)
{
	const struct fr_frame *a = pa, *b = pb;

	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static struct fr_base *
base_of(struct fr_ctx *c, const struct fr_frame *a, const struct codif_hdr *hb)
{
	char why[192];
	unsigned int i;

	for (i = 0; i < c->nbase; i++)
		if (c->base[i].thread == a->thread)
			return &c->base[i];
	if (c->nbase == MAX_THREADS) {
		snprintf(c->why, sizeof(c->why), "more than %d threads", MAX_THREADS);
		return NULL;
	}
	if (qlf_init(&c->base[c->nbase].q, &a->h, hb, c->mask, c->o->max_lag, why,
		     sizeof(why)) != 0) {
		snprintf(c->why, sizeof(c->why), "thread %u: %s", a->thread, why);
		return NULL;
	}
	c->base[c->nbase].thread = a->thread;
	return &c->base[c->nbase++];
}

static int
fr_pair(void *ctx, const struct cc_frame_ev *ev)
{
	struct fr_ctx *c = ctx;
	struct fr_frame key, *a;
	struct fr_base *b;

	if (ev->filled || ev->h->invalid || ev->len <= CODIF_HDR_LEN)
		return 0;
	if (one_source(c, 1, ev->h) != 0)
		return c->err;
	key.thread = ev->h->threadid;
	key.index = qlf_frame_index(ev->h);
	range_add(c, 1, key.index, c->frames_b);
	c->frames_b++;
	a = bsearch(&key, c->a, c->na, sizeof(*c->a), fr_cmp);
	if (a == NULL || a->used) {
		c->unmatched_b++;
		return 0;
	}
	b = base_of(c, a, ev->h);
	if (b == NULL)
		return c->err = -EINVAL;
	if (ev->len - CODIF_HDR_LEN < b->q.frame_bytes) {
		c->unmatched_b++;
		return 0;
	}
	a->used = true;
	qlf_add(&b->q, a->data, ev->codif + CODIF_HDR_LEN);
	return 0;
}

/* Read one file through cb; a message naming it when it cannot be read. */
static int
read_file(const char *path, const struct cc_fringe_opts *o, cc_frame_cb cb,
	  struct fr_ctx *c)
{
	struct cc_file f;
	int rc = cc_inspect(&f, path, &o->so, cb, c);

	if (c->err == -EINVAL) {
		rc = -1;
		if (c->mixed[0] != '\0')
			fprintf(stderr, "codifcheck fringe: %s %s\n", path, c->mixed);
	} else if (rc != 0 || c->err != 0 || (f.scan != NULL && f.scan->damaged) ||
		   !cc_fmt_readable(f.det.fmt)) {
		fprintf(stderr, "codifcheck fringe: %s: %s\n", path,
			rc != 0 || c->err ? "could not be read" : f.det.desc);
		rc = -1;
	}
	cc_file_free(&f);
	return rc;
}

static void
print_text(const struct fr_ctx *c, const char *pa, const char *pb, uint64_t pairs)
{
	struct qlf_chan r[QLF_MAX_CHAN];
	unsigned int i, k, n;

	printf("A %s: %" PRIu64 " frames; B %s: %" PRIu64 " frames\n", pa, c->frames_a, pb,
	       c->frames_b);
	printf("%" PRIu64 " pairs; unmatched: A %" PRIu64 ", B %" PRIu64 "\n", pairs,
	       c->frames_a - pairs, c->unmatched_b);
	for (i = 0; i < c->nbase; i++) {
		const struct qlf *q = &c->base[i].q;

		printf(" thread %u: %" PRIu64 " pairs of %u samples, lags +-%u (sample %.4g ns)\n",
		       c->base[i].thread, q->pairs, q->nsamp, q->max_lag, q->sample_ns);
		n = qlf_result(q, r);
		for (k = 0; k < n; k++)
			printf("  ch %-3u lag %+d samples (%+.3f ns) coefficient %.4f (noise %.4f) "
			       "phase %.1f deg\n", r[k].chan, r[k].lag, r[k].lag_ns, r[k].coef,
			       r[k].sigma, r[k].phase_deg);
	}
}

static void
print_json(const struct fr_ctx *c, const char *pa, const char *pb, uint64_t pairs)
{
	json_t *root = json_object(), *st = NULL;
	struct qlf_chan r[QLF_MAX_CHAN];
	unsigned int i, k, n;

	js_str(root, "a", pa);
	js_str(root, "b", pb);
	js_u64(root, "frames_a", c->frames_a);
	js_u64(root, "frames_b", c->frames_b);
	js_u64(root, "pairs", pairs);
	js_u64(root, "unmatched_a", c->frames_a - pairs);
	js_u64(root, "unmatched_b", c->unmatched_b);
	js_u64(root, "a_not_held", c->not_held);
	st = js_arr(root, "streams");
	for (i = 0; i < c->nbase; i++) {
		const struct qlf *q = &c->base[i].q;
		json_t *s = js_obj(st, NULL), *chs = js_arr(s, "channels");

		js_u64(s, "thread", c->base[i].thread);
		js_u64(s, "pairs", q->pairs);
		js_u64(s, "samples_per_frame", q->nsamp);
		js_u64(s, "max_lag", q->max_lag);
		js_u64(s, "nfft", q->nfft);
		js_dbl(s, "sample_ns", q->sample_ns);
		js_bool(s, "complex", q->e.complex);
		n = qlf_result(q, r);
		for (k = 0; k < n; k++) {
			json_t *x = js_obj(chs, NULL);

			js_u64(x, "channel", r[k].chan);
			js_i64(x, "lag_samples", r[k].lag);
			js_dbl(x, "lag_ns", r[k].lag_ns);
			js_dbl(x, "coefficient", r[k].coef);
			js_dbl(x, "phase_deg", r[k].phase_deg);
			js_dbl(x, "sigma", r[k].sigma);
			js_dbl(x, "zero_lag", r[k].zero_lag);
		}
	}
	js_write(root, stdout, true);
	json_decref(root);
}

/* |rho| against lag, one line per channel of the first thread */
static int
plot(const struct fr_ctx *c, const char *png, const char *title)
{
	const struct qlf *q = &c->base[0].q;
	unsigned int ch, lines = 0, m = q->max_lag;
	double *re = calloc(2 * m + 1, sizeof(double)), *im = calloc(2 * m + 1, sizeof(double));
	char dat[PATH_MAX + 8];
	FILE *f = NULL, *g;
	int l, rc = -1;

	snprintf(dat, sizeof(dat), "%s.dat", png);
	if (re == NULL || im == NULL || (f = fopen(dat, "w")) == NULL)
		goto out;
	for (ch = 0; ch < q->e.nchan; ch++) {
		if (qlf_curve(q, ch, re, im) != 0)
			continue;
		fprintf(f, "# channel %u: lag (samples) coefficient\n", ch);
		for (l = -(int)m; l <= (int)m; l++)
			fprintf(f, "%d %.6f\n", l, q->e.complex ? hypot(re[l + m], im[l + m]) :
							  re[l + m]);
		fprintf(f, "\n\n");
		lines++;
	}
	fclose(f);
	g = lines ? popen("gnuplot > /dev/null 2>&1", "w") : NULL;
	if (g == NULL)
		goto out;
	fprintf(g, "set terminal pngcairo size 1000,500 font 'sans,10'\nset output '%s'\n", png);
	fprintf(g, "set title \"fringe %s (thread %u, %" PRIu64 " frame pairs)\" noenhanced\n",
		title, c->base[0].thread, q->pairs);
	fprintf(g, "set xlabel 'lag of B behind A (samples of %.4g ns)'\n", q->sample_ns);
	fprintf(g, "set ylabel '%s'\nset grid\nset key outside right\nplot",
		q->e.complex ? "|coefficient|" : "coefficient");
	for (ch = 0; ch < lines; ch++)
		fprintf(g, "%s '%s' index %u with lines title 'ch %u'", ch ? "," : "", dat, ch, ch);
	fprintf(g, "\n");
	rc = pclose(g) == 0 && cc_plot_drawn(png) == 0 ? 0 : -1;
out:
	free(re);
	free(im);
	return rc;
}

static void
fr_free(struct fr_ctx *c)
{
	size_t i;

	for (i = 0; i < c->na; i++)
		free(c->a[i].data);
	free(c->a);
	for (i = 0; i < c->nbase; i++)
		qlf_free(&c->base[i].q);
}

int
cc_cmd_fringe(const char *pa, const char *pb, const struct cc_fringe_opts *o)
{
	struct fr_ctx c;
	uint64_t pairs = 0;
	char title[512];
	unsigned int i;
	int status = CC_EXIT_PROBLEMS;

	memset(&c, 0, sizeof(c));
	c.o = o;
	if (o->channels != NULL && cc_fringe_channels(o->channels, &c.mask, c.why,
						      sizeof(c.why)) != 0) {
		fprintf(stderr, "codifcheck fringe: %s\n", c.why);
		return CC_EXIT_USAGE;
	}
	c.a = calloc(o->max_frames, sizeof(*c.a));
	if (c.a == NULL) {
		fprintf(stderr, "codifcheck fringe: out of memory\n");
		return CC_EXIT_PROBLEMS;
	}
	if (read_file(pa, o, fr_hold, &c) != 0)
		goto out;
	qsort(c.a, c.na, sizeof(*c.a), fr_cmp);
	if (read_file(pb, o, fr_pair, &c) != 0) {
		if (c.why[0] != '\0')
			fprintf(stderr, "codifcheck fringe: %s (A) and %s (B) do not pair: %s\n",
				pa, pb, c.why);
		goto out;
	}
	for (i = 0; i < c.nbase; i++)
		pairs += c.base[i].q.pairs;
	if (pairs == 0) {
		fprintf(stderr, "codifcheck fringe: no frame of %s (B: %" PRIu64 " frames, index "
			"%" PRId64 "..%" PRId64 ") has the time and thread of one of %s (A: %" PRIu64
			" frames, index %" PRId64 "..%" PRId64 ")\n", pb, c.frames_b, c.lo[1],
			c.hi[1], pa, c.frames_a, c.lo[0], c.hi[0]);
		goto out;
	}
	if (o->json)
		print_json(&c, pa, pb, pairs);
	else
		print_text(&c, pa, pb, pairs);
	status = CC_EXIT_OK;
	snprintf(title, sizeof(title), "%s x %s", pa, pb);
	if (o->plot != NULL && plot(&c, o->plot, title) != 0) {
		fprintf(stderr, "codifcheck fringe: --plot %s: gnuplot could not draw it "
			"(is gnuplot with pngcairo installed?)\n", o->plot);
		status = CC_EXIT_PROBLEMS;
	}
out:
	fr_free(&c);
	return status;
}
