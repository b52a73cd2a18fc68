/* SPDX-License-Identifier: BSD-3-Clause */
/* Timeline events: the --event grammar, what an event does to a stream's
 * headers, and the checks of the events against the streams at gen_init. */


#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "gen.h"
#include "gen_priv.h"
#include "parse.h"
#include "pkt.h"


const char *
gen_event_kind_name(enum gen_ev_kind k)
{
	static const char *const names[GEN_EV__COUNT] = {
		[GEN_EV_FLIP] = "flip", [GEN_EV_STRAY] = "stray", [GEN_EV_STEP] = "step",
		[GEN_EV_PARAM] = "param", [GEN_EV_BURST] = "burst",
	};

	return (unsigned int)k < GEN_EV__COUNT ? names[k] : "?";
}

/* Header fields a flip or a param event may touch: (word, first bit, width). */
struct hfield {
	const char *name;
	unsigned int word, lo, width;
};

static const struct hfield hfields[] = {
	{ "frame", 0, 0, 32 },      { "seconds", 0, 32, 32 },   { "epoch", 1, 0, 8 },
	{ "nbits", 1, 8, 8 },       { "complex", 1, 18, 1 },    { "representation", 1, 20, 4 },
	{ "period", 1, 48, 16 },    { "nchan", 3, 0, 16 },      { "framelength8", 3, 32, 32 },
	{ "totalsamples", 4, 0, 64 }, { "sync", 5, 0, 32 },
};

static const struct hfield *
hfield(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(hfields) / sizeof(hfields[0]); i++)
		if (strcmp(hfields[i].name, name) == 0)
			return &hfields[i];
	return NULL;
}

/* Set (or flip, when flip) bits of a field in an encoded header. */
static void
hfield_apply(const struct hfield *f, uint8_t *b, uint64_t value, bool flip)
{
	uint64_t w, mask = f->width == 64 ? ~0ULL : ((1ULL << f->width) - 1) << f->lo;
	unsigned int i;

	w = 0;
	for (i = 0; i < 8; i++)
		w |= (uint64_t)b[8 * f->word + i] << (8 * i);
	if (flip)
		w ^= 1ULL << (f->lo + value);
	else
		w = (w & ~mask) | ((value << f->lo) & mask);
	for (i = 0; i < 8; i++)
		b[8 * f->word + i] = (uint8_t)(w >> (8 * i));
}

/* The message for a spec that is not KIND:ARG@FRAME[,...]. @return -EINVAL. */
static int
ev_usage(const char *spec, char *err, size_t len)
{
	return err_set(err, len, -EINVAL,
		       "--event '%s': expected KIND:ARG@FRAME[,ant=A][,stream=S|all][,extra] "
		       "(flip:FIELD.BIT, stray:+-DURATION, step:+-DURATION, param:FIELD=VALUE, "
		       "burst:FRAMES, outage:DURATION)", spec);
}

/* Parse a flip's "FIELD.BIT" (arg is written to). */
static int
ev_flip_parse(const char *spec, char *arg, struct gen_event *e, char *err, size_t len)
{
	char *dot = strrchr(arg, '.');
	const struct hfield *f;
	uint64_t v;

	if (dot == NULL)
		return ev_usage(spec, err, len);
	*dot = '\0';
	f = hfield(arg);
	if (f == NULL)
		return err_set(err, len, -EINVAL,
			       "--event '%s': field '%s', expected frame, seconds, epoch, nbits, "
			       "complex, representation, period, nchan, framelength8, "
			       "totalsamples or sync", spec, arg);
	if (parse_u64("--event bit", dot + 1, 0, f->width - 1, &v, err, len) != 0)
		return -EINVAL;
	snprintf(e->field, sizeof(e->field), "%s", arg);
	e->bit = (unsigned int)v;
	e->stream = 0;
	return 0;
}

/* Parse a stray's or a step's signed duration; e->shift in ns until
 * gen_init turns it into frames. */
static int
ev_shift_parse(const char *spec, const char *arg, struct gen_event *e, char *err, size_t len)
{
	int64_t ns;

	if (arg[0] != '+' && arg[0] != '-')
		return err_set(err, len, -EINVAL,
			       "--event '%s': '%s', expected a signed duration (+1d, -3h, +500ms)",
			       spec, arg);
	if (parse_duration_ns("--event shift", arg + 1, 1, 3650ULL * 86400 * 1000000000ULL,
			      (uint64_t *)&ns, err, len) != 0)
		return -EINVAL;
	e->shift = arg[0] == '-' ? -ns : ns;
	if (e->kind == GEN_EV_STRAY)
		e->stream = 0;
	return 0;
}

/* Parse a param's "FIELD=VALUE" (arg is written to). */
static int
ev_param_parse(const char *spec, char *arg, struct gen_event *e, char *err, size_t len)
{
	char *eq = strchr(arg, '=');

	if (eq == NULL)
		return ev_usage(spec, err, len);
	*eq = '\0';
	if (hfield(arg) == NULL || strcmp(arg, "frame") == 0 || strcmp(arg, "seconds") == 0 ||
	    strcmp(arg, "sync") == 0)
		return err_set(err, len, -EINVAL,
			       "--event '%s': parameter '%s', expected epoch, nbits, complex, "
			       "representation, period, nchan, framelength8 or totalsamples",
			       spec, arg);
	if (parse_u64("--event value", eq + 1, 0, UINT64_MAX, &e->value, err, len) != 0)
		return -EINVAL;
	snprintf(e->field, sizeof(e->field), "%s", arg);
	return 0;
}

/* Parse the options after FRAME: ",ant=A", ",stream=S|all", ",extra" (flip
 * and stray only). opts is written to; NULL: none. */
static int
ev_opts_parse(const char *spec, char *opts, struct gen_event *e, char *err, size_t len)
{
	bool odd = e->kind == GEN_EV_FLIP || e->kind == GEN_EV_STRAY;
	char *opt, *save = NULL;
	uint64_t v;

	for (opt = opts != NULL ? strtok_r(opts, ",", &save) : NULL; opt != NULL;
	     opt = strtok_r(NULL, ",", &save)) {
		if (strncmp(opt, "ant=", 4) == 0) {
			if (parse_u64("--event ant", opt + 4, 0, GEN_MAX_ANTENNAS - 1, &v, err, len))
				return -EINVAL;
			e->ant = (int)v;
		} else if (strcmp(opt, "stream=all") == 0) {
			e->stream = -1;
		} else if (strncmp(opt, "stream=", 7) == 0) {
			if (parse_u64("--event stream", opt + 7, 0, GEN_MAX_GROUPS * GEN_MAX_THREADS,
				      &v, err, len))
				return -EINVAL;
			e->stream = (int)v;
		} else if (strcmp(opt, "extra") == 0 && odd) {
			e->extra = true;
		} else {
			return err_set(err, len, -EINVAL, "--event '%s': '%s', expected ant=A, "
				       "stream=S|all%s", spec, opt, odd ? " or extra" : "");
		}
	}
	return 0;
}

int
gen_event_parse(const char *spec, struct gen_event *e, char *err, size_t len)
{
	char buf[128], *colon, *at, *opts, *arg;
	uint64_t v;
	int rc = 0;

	memset(e, 0, sizeof(*e));
	e->ant = -1;
	e->stream = -1;
	if (strlen(spec) >= sizeof(buf))
		return ev_usage(spec, err, len);
	snprintf(buf, sizeof(buf), "%s", spec);
	colon = strchr(buf, ':');
	at = strchr(buf, '@');
	if (colon == NULL || at == NULL || at < colon)
		return ev_usage(spec, err, len);
	*colon = '\0';
	*at = '\0';
	arg = colon + 1;
	opts = strchr(at + 1, ',');
	if (opts != NULL)
		*opts++ = '\0';
	for (e->kind = 0; e->kind < GEN_EV__COUNT; e->kind++)
		if (strcmp(buf, gen_event_kind_name(e->kind)) == 0)
			break;
	if (strcmp(buf, "outage") == 0) {
		/* a burst given as a duration: its frames counted at gen_init */
		e->kind = GEN_EV_BURST;
		if (parse_duration_ns("--event outage", arg, 1, 3650ULL * 86400 * 1000000000ULL,
				      (uint64_t *)&e->shift, err, len) != 0)
			return -EINVAL;
		arg = NULL;
	} else if (e->kind == GEN_EV__COUNT) {
		return err_set(err, len, -EINVAL, "--event '%s': kind '%s', expected flip, stray, "
			       "step, param, burst or outage", spec, buf);
	}
	if (parse_u64("--event frame", at + 1, 1, UINT32_MAX, &v, err, len) != 0)
		return -EINVAL;
	e->at = (int64_t)v;
	if (e->kind == GEN_EV_FLIP)
		rc = ev_flip_parse(spec, arg, e, err, len);
	else if (e->kind == GEN_EV_STRAY || e->kind == GEN_EV_STEP)
		rc = ev_shift_parse(spec, arg, e, err, len);
	else if (e->kind == GEN_EV_PARAM)
		rc = ev_param_parse(spec, arg, e, err, len);
	else if (arg != NULL)
		rc = parse_u64("--event frames", arg, 1, UINT32_MAX, &e->value, err, len);
	if (rc != 0)
		return -EINVAL;
	return ev_opts_parse(spec, opts, e, err, len);
}

void
gen_stream_params_at(const struct gen *g, const struct gen_stream *s, int64_t k,
		     struct codif_hdr *h)
{
	unsigned int i;

	*h = s->hdr;
	for (i = 0; i < g->cfg.nev; i++) {
		const struct gen_event *e = &g->cfg.ev[i];
		uint8_t b[CODIF_HDR_LEN];

		if (e->kind != GEN_EV_PARAM || !gen_ev_applies(e, s) || k < e->at)
			continue;
		codif_encode(h, b);
		hfield_apply(hfield(e->field), b, e->value, false);
		codif_decode(b, CODIF_HDR_LEN, h, NULL, 0);
	}
}

void
gen_frame_hdr(const struct gen *g, unsigned int si, int64_t index,
	      struct codif_hdr *h)
{
	const struct gen_stream *st = &g->st[si];
	int64_t idx = g->idx0 + index;
	unsigned int i;

	*h = st->hdr;
	for (i = 0; i < g->cfg.nev; i++) {
		const struct gen_event *e = &g->cfg.ev[i];

		if (e->kind == GEN_EV_STEP && gen_ev_applies(e, st) && index >= e->at)
			idx += e->shift;
	}
	if (g->st[si].ev_param >= 0 && index >= g->cfg.ev[g->st[si].ev_param].at) {
		/* new parameters: time goes on from frame `at`, on their clock */
		const struct gen_event *e = &g->cfg.ev[g->st[si].ev_param];
		struct codif_clock c2;

		gen_stream_params_at(g, st, index, h);
		codif_clock_init(&c2, h);
		codif_clock_hdr_time(&c2, g->st[si].ev_idx2 + (index - e->at), &h->seconds, &h->frame);
		return;
	}
	codif_clock_hdr_time(&g->clk, idx, &h->seconds, &h->frame);
}

void
gen_ev_odd_hdr(const struct gen *g, unsigned int si, const struct gen_event *e,
	       struct codif_hdr *h)
{
	uint8_t b[CODIF_HDR_LEN];

	gen_frame_hdr(g, si, e->at, h);
	if (e->kind == GEN_EV_STRAY) {
		int64_t idx;

		codif_clock_index(&g->clk, h->seconds, h->frame, &idx);
		codif_clock_hdr_time(&g->clk, idx + e->shift, &h->seconds, &h->frame);
		return;
	}
	codif_encode(h, b);
	hfield_apply(hfield(e->field), b, e->bit, true);
	codif_decode(b, CODIF_HDR_LEN, h, NULL, 0);
}

int
gen_odd_class(const struct gen *g, unsigned int si, const struct gen_event *e,
	      char *why, size_t len)
{
	const struct gen_stream *s = &g->st[si];
	struct codif_hdr h, good;
	struct codif_clock c;
	uint8_t b[CODIF_HDR_LEN];
	int64_t n, n0, d, A = g->tl.ahead, W = g->tl.window;

	gen_ev_odd_hdr(g, si, e, &h);
	gen_frame_hdr(g, si, e->at, &good);
	codif_encode(&h, b);
	if (codif_identify(b, CODIF_HDR_LEN, NULL, 0) != 0)
		return ODD_MALFORMED;
	if (!codif_params_equal(&good, &h, NULL, 0)) {
		if (codif_validate(&h, SIZE_MAX, NULL, 0) != 0)
			return ODD_MALFORMED;
		if (codif_data_bytes(&h) != codif_data_bytes(&good))
			return ODD_MALFORMED; /* bad-length: the packet keeps its size */
		return ODD_PARAMS;
	}
	if (h.frame >= s->fpp)
		return ODD_MALFORMED;
	codif_clock_init(&c, &good);
	codif_clock_index(&c, good.seconds, good.frame, &n0);
	if (!codif_clock_index(&c, h.seconds, h.frame, &n))
		return ODD_IMPLAUSIBLE; /* off the grid */
	d = n - n0;
	/* the timeline's newest is the frame before, or this very row */
	if (d > A + 1 || d <= -W - 1)
		return ODD_IMPLAUSIBLE;
	snprintf(why, len, "the odd frame lands %lld frames from its place, within the "
		 "reorder window (%lld ahead, %lld behind): a receiver takes it as reordering, "
		 "not as an odd frame", (long long)d, (long long)A, (long long)W);
	return -1;
}

/* Turn event i's durations into frames (an outage's length, a shift) and
 * check that it stands clear of the run's ends and of the antennas given. */
static int
ev_frames_init(struct gen *g, unsigned int i, struct gen_event *e)
{
	const struct gen_cfg *c = &g->cfg;
	int64_t guard = (int64_t)g->tl.confirm + c->depth + 2, span;

	if (e->kind == GEN_EV_BURST && e->value == 0) {
		/* outage:DURATION: the frames of that much data time */
		e->value = codif_clock_frames_in(&g->clk, (uint64_t)e->shift);
		e->shift = 0;
		if (e->value == 0)
			e->value = 1;
	}
	span = e->kind == GEN_EV_BURST ? (int64_t)e->value : 1;
	if (e->ant >= 0 && (unsigned int)e->ant >= c->nant)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "event %u (%s@%lld): antenna %d, expected < %u", i,
			       gen_event_kind_name(e->kind), (long long)e->at, e->ant, c->nant);
	if (e->at < guard || e->at + span + guard > (int64_t)c->frames)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "event %u (%s@%lld): needs %lld clean frames before it and %lld "
			       "from it on: frame %lld or later, and --count %lld or more (%" PRIu64
			       " given)", i, gen_event_kind_name(e->kind), (long long)e->at,
			       (long long)guard, (long long)(span + guard), (long long)guard,
			       (long long)(e->at + span + guard), c->frames);
	if (e->kind == GEN_EV_STRAY || e->kind == GEN_EV_STEP) {
		/* a duration is a whole number of frames on the clock */
		int64_t ns = e->shift < 0 ? -e->shift : e->shift;
		unsigned __int128 fr = (unsigned __int128)ns * g->clk.fpp;

		if (fr % g->clk.period_ns != 0)
			return err_set(g->err, sizeof(g->err), -EINVAL,
				       "event %u (%s@%lld): a shift of %lld ns is not a whole number "
				       "of frames (%u s / %" PRIu64 " = %" PRIu64 " ns each)", i,
				       gen_event_kind_name(e->kind), (long long)e->at, (long long)ns,
				       g->clk.period, g->clk.fpp, codif_frame_ns(&g->cfg.tmpl));
		e->shift = (e->shift < 0 ? -1 : 1) * (int64_t)(fr / g->clk.period_ns);
	}
	return 0;
}

/* Give stream si param event i: check the new parameters, and set the new
 * clock's index of frame `at`, at the same time as on the old clock. */
static int
ev_param_init(struct gen *g, unsigned int i, const struct gen_event *e, unsigned int si)
{
	struct gen_stream *s = &g->st[si];
	struct codif_hdr h0, h1;
	struct codif_clock c1;
	unsigned __int128 f;
	char why[256];

	if (s->ev_param >= 0)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "event %u: one param event per stream", i);
	gen_frame_hdr(g, si, e->at, &h0); /* before the change */
	s->ev_param = (int)i;
	gen_stream_params_at(g, s, e->at, &h1);
	h1.seconds = h0.seconds;
	h1.frame = 0;
	if (codif_validate(&h1, SIZE_MAX, why, sizeof(why)) != 0) {
		s->ev_param = -1;
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "event %u (param %s=%" PRIu64 "): %s", i, e->field, e->value, why);
	}
	codif_clock_init(&c1, &h1);
	f = (unsigned __int128)h0.frame * c1.fpp;
	if (f % g->clk.fpp != 0 || c1.phase != g->clk.phase) {
		s->ev_param = -1;
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "event %u (param %s=%" PRIu64 "): frame %lld's time is not "
			       "on the new clock's grid (%" PRIu64 " frames per period)",
			       i, e->field, e->value, (long long)e->at, c1.fpp);
	}
	codif_clock_index(&c1, h0.seconds, (uint32_t)(f / g->clk.fpp), &s->ev_idx2);
	return 0;
}

/* Apply event i to the streams it touches: an odd frame a receiver can tell
 * from a good one, one param event per stream; at least one stream. */
static int
ev_streams_init(struct gen *g, unsigned int i, const struct gen_event *e)
{
	unsigned int si, hit = 0;
	char why[256];
	int rc;

	for (si = 0; si < g->nstream; si++) {
		if (!gen_ev_applies(e, &g->st[si]))
			continue;
		hit++;
		if ((e->kind == GEN_EV_FLIP || e->kind == GEN_EV_STRAY) &&
		    gen_odd_class(g, si, e, why, sizeof(why)) < 0)
			return err_set(g->err, sizeof(g->err), -EINVAL,
				       "event %u (%s@%lld): %s", i, gen_event_kind_name(e->kind),
				       (long long)e->at, why);
		if (e->kind == GEN_EV_PARAM) {
			rc = ev_param_init(g, i, e, si);
			if (rc != 0)
				return rc;
		}
	}
	if (hit == 0)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "event %u (%s@%lld): no stream has antenna %d and stream %d", i,
			       gen_event_kind_name(e->kind), (long long)e->at, e->ant, e->stream);
	return 0;
}

bool
gen_param_moves_clock(const struct gen *g, const struct gen_stream *s, const struct gen_event *e)
{
	struct codif_hdr h1;
	struct codif_clock c1;

	gen_stream_params_at(g, s, e->at, &h1);
	codif_clock_init(&c1, &h1);
	return c1.fpp != g->clk.fpp || c1.period != g->clk.period || c1.epoch != g->clk.epoch;
}

/* Check that event i, when it moves the antenna's timeline (a step, a
 * clock-changing parameter), has every stream of the antenna take part, and
 * that a step back leaves the receivers' window. */
static int
ev_timeline_check(struct gen *g, unsigned int i, const struct gen_event *e)
{
	bool moves = e->kind == GEN_EV_STEP;
	unsigned int si;

	if (e->kind == GEN_EV_STEP && e->shift < 0 && -e->shift < (int64_t)g->tl.window)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "event %u (step@%lld): a step back of %lld frames is within the "
			       "receivers' window (%u): its frames are duplicates, not a resync; "
			       "step back further", i, (long long)e->at, (long long)-e->shift,
			       g->tl.window);
	for (si = 0; si < g->nstream && e->kind == GEN_EV_PARAM; si++)
		if (gen_ev_applies(e, &g->st[si])) {
			moves = gen_param_moves_clock(g, &g->st[si], e);
			break;
		}
	if (!moves || e->stream < 0)
		return 0;
	for (si = 0; si < g->nstream; si++)
		if ((e->ant < 0 || g->st[si].ant == (unsigned int)e->ant) &&
		    !gen_ev_applies(e, &g->st[si]))
			return err_set(g->err, sizeof(g->err), -EINVAL,
				       "event %u (%s@%lld): it moves the antenna's timeline, so "
				       "every stream of the antenna takes part: stream=all",
				       i, gen_event_kind_name(e->kind), (long long)e->at);
	return 0;
}

int
gen_events_init(struct gen *g)
{
	unsigned int i, si;
	int rc;

	for (si = 0; si < g->nstream; si++)
		g->st[si].ev_param = -1;
	for (i = 0; i < g->cfg.nev; i++) {
		rc = ev_frames_init(g, i, &g->cfg.ev[i]);
		if (rc == 0)
			rc = ev_streams_init(g, i, &g->cfg.ev[i]);
		if (rc != 0)
			return rc;
	}
	for (i = 0; i < g->cfg.nev; i++) {
		rc = ev_timeline_check(g, i, &g->cfg.ev[i]);
		if (rc != 0)
			return rc;
	}
	return 0;
}

bool
gen_near_event(const struct gen *g, const struct gen_stream *s, int64_t k)
{
	int64_t guard = (int64_t)g->tl.confirm + g->cfg.depth + 2;
	unsigned int i;

	for (i = 0; i < g->cfg.nev; i++) {
		const struct gen_event *e = &g->cfg.ev[i];
		int64_t span = e->kind == GEN_EV_BURST ? (int64_t)e->value : 1;

		if (gen_ev_applies(e, s) && k >= e->at - guard && k < e->at + span + guard)
			return true;
	}
	return false;
}
