/* SPDX-License-Identifier: BSD-3-Clause */
/* CODIF stream generator core: per-stream fates, emission order, truth. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "codif_pattern.h"
#include "err.h"
#include "gen.h"
#include "json.h"
#include "stats.h"
#include "parse.h"
#include "pkt.h"

/* Pending packets of one future slot of one stream. */
struct gen_pend {
	struct gen_pkt *v;
	unsigned int n, cap;
};

static void
gerr(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
gerr(struct gen *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->err, sizeof(g->err), fmt, ap);
	va_end(ap);
}

static inline uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static inline double
rand01(uint64_t *s)
{
	return (double)(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
}

const char *
gen_fault_name(enum gen_fault f)
{
	static const char *const names[GEN_F__COUNT] = {
		[GEN_F_NONE] = "none",
		[GEN_F_LOSS] = "loss",
		[GEN_F_INVALID] = "invalid",
		[GEN_F_DUPLICATE] = "duplicate",
		[GEN_F_VLAN] = "vlan",
		[GEN_F_BAD_SYNC] = "bad-sync",
		[GEN_F_BAD_LENGTH] = "bad-length",
		[GEN_F_TRUNCATED] = "truncated",
		[GEN_F_NON_CODIF] = "non-codif",
		[GEN_F_NON_IPV4] = "non-ipv4",
		[GEN_F_BAD_IP_CSUM] = "bad-ip-checksum",
		[GEN_F_EVENT] = "event",
	};

	return (unsigned int)f < GEN_F__COUNT ? names[f] : "?";
}

void
gen_cfg_defaults(struct gen_cfg *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->nant = PKT_LAYOUT_NANT;
	c->nthread = 2;
	c->ngroup = PKT_LAYOUT_NGROUP;
	for (i = 0; i < c->nant; i++) {
		c->ant_ip[i] = PKT_LAYOUT_ANT_IP + i;
		c->ant_groups[i] = (1ULL << c->ngroup) - 1;
	}
	for (i = 0; i < c->ngroup; i++) {
		c->group[i].ip = PKT_LAYOUT_GROUP_IP + i;
		c->group[i].port = (uint16_t)(PKT_LAYOUT_UDP_PORT + i);
	}
	c->tmpl.nchan = 4;
	c->tmpl.nbits = 16;
	c->tmpl.complex = true;
	c->tmpl.representation = 1;
	c->tmpl.version = 3;
	c->tmpl.protocol = CODIF_PROTOCOL;
	c->tmpl.period = 27;
	c->tmpl.totalsamples = 32000000;
	c->tmpl.framelength8 = 8192 / 8;
	c->tmpl.blocklength = 1;
	c->tmpl.sync = CODIF_SYNC;
	c->tmpl.stationid = (uint16_t)('A' << 8 | 'K');
	c->groupid_base = 257;
	codif_parse_time("2025-01-01T00:00:00Z", &c->start_ns);
	c->tmpl.epoch = (uint8_t)codif_epoch_for_unix(c->start_ns / 1000000000LL);
	c->frames = 100;
	c->seed = 1;
	c->depth = 4;
	c->vlan_id = 100;
	c->ttl = 1;
}

static void
pend_free(struct gen_stream *s)
{
	unsigned int i;

	if (s->ring == NULL)
		return;
	for (i = 0; i < s->ring_len; i++)
		free(s->ring[i].v);
	free(s->ring);
	s->ring = NULL;
}

void
gen_free(struct gen *g)
{
	unsigned int i;

	if (g->st != NULL) {
		for (i = 0; i < g->nstream; i++) {
			free(g->st[i].emitted);
			pend_free(&g->st[i]);
		}
	}
	free(g->st);
	free(g->out);
	g->st = NULL;
	g->out = NULL;
}

/* ---- timeline events: deterministic faults with exact truth --------------- */

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

int
gen_event_parse(const char *spec, struct gen_event *e, char *err, size_t len)
{
	char buf[128], *colon, *at, *opt, *save = NULL, *arg;
	uint64_t v;
	int64_t ns;

	memset(e, 0, sizeof(*e));
	e->ant = -1;
	e->stream = -1;
	if (strlen(spec) >= sizeof(buf))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", spec);
	colon = strchr(buf, ':');
	at = strchr(buf, '@');
	if (colon == NULL || at == NULL || at < colon)
		goto bad;
	*colon = '\0';
	*at = '\0';
	arg = colon + 1;
	opt = strchr(at + 1, ',');
	if (opt != NULL)
		*opt++ = '\0';
	for (e->kind = 0; e->kind < GEN_EV__COUNT; e->kind++)
		if (strcmp(buf, gen_event_kind_name(e->kind)) == 0)
			break;
	if (strcmp(buf, "outage") == 0) {
		/* a burst given as a duration: its frames counted at gen_init */
		e->kind = GEN_EV_BURST;
		e->value = 0;
		if (parse_duration_ns("--event outage", arg, 1, 3650ULL * 86400 * 1000000000ULL,
				      (uint64_t *)&ns, err, len) != 0)
			return -EINVAL;
		e->shift = ns;
		arg = NULL;
	} else if (e->kind == GEN_EV__COUNT) {
		snprintf(err, len, "--event '%s': kind '%s', expected flip, stray, step, param, "
			 "burst or outage", spec, buf);
		return -EINVAL;
	}
	if (parse_u64("--event frame", at + 1, 1, UINT32_MAX, &v, err, len) != 0)
		return -EINVAL;
	e->at = (int64_t)v;
	switch (e->kind) {
	case GEN_EV_FLIP: {
		char *dot = strrchr(arg, '.');
		const struct hfield *f;

		if (dot == NULL)
			goto bad;
		*dot = '\0';
		f = hfield(arg);
		if (f == NULL) {
			snprintf(err, len, "--event '%s': field '%s', expected frame, seconds, "
				 "epoch, nbits, complex, representation, period, nchan, "
				 "framelength8, totalsamples or sync", spec, arg);
			return -EINVAL;
		}
		if (parse_u64("--event bit", dot + 1, 0, f->width - 1, &v, err, len) != 0)
			return -EINVAL;
		snprintf(e->field, sizeof(e->field), "%s", arg);
		e->bit = (unsigned int)v;
		e->stream = 0;
		break;
	}
	case GEN_EV_STRAY:
	case GEN_EV_STEP: {
		bool neg = arg[0] == '-';

		if (arg[0] != '+' && arg[0] != '-') {
			snprintf(err, len, "--event '%s': '%s', expected a signed duration "
				 "(+1d, -3h, +500ms)", spec, arg);
			return -EINVAL;
		}
		if (parse_duration_ns("--event shift", arg + 1, 1, 3650ULL * 86400 * 1000000000ULL,
				      (uint64_t *)&ns, err, len) != 0)
			return -EINVAL;
		e->shift = neg ? -ns : ns; /* ns until gen_init turns it into frames */
		if (e->kind == GEN_EV_STRAY)
			e->stream = 0;
		break;
	}
	case GEN_EV_PARAM: {
		char *eq = strchr(arg, '=');

		if (eq == NULL)
			goto bad;
		*eq = '\0';
		if (hfield(arg) == NULL || strcmp(arg, "frame") == 0 || strcmp(arg, "seconds") == 0 ||
		    strcmp(arg, "sync") == 0) {
			snprintf(err, len, "--event '%s': parameter '%s', expected epoch, nbits, "
				 "complex, representation, period, nchan, framelength8 or "
				 "totalsamples", spec, arg);
			return -EINVAL;
		}
		if (parse_u64("--event value", eq + 1, 0, UINT64_MAX, &e->value, err, len) != 0)
			return -EINVAL;
		snprintf(e->field, sizeof(e->field), "%s", arg);
		break;
	}
	case GEN_EV_BURST:
		if (arg != NULL &&
		    parse_u64("--event frames", arg, 1, UINT32_MAX, &e->value, err, len) != 0)
			return -EINVAL;
		break;
	default:
		break;
	}
	for (opt = opt != NULL ? strtok_r(opt, ",", &save) : NULL; opt != NULL;
	     opt = strtok_r(NULL, ",", &save)) {
		if (strncmp(opt, "ant=", 4) == 0) {
			if (parse_u64("--event ant", opt + 4, 0, GEN_MAX_ANTENNAS - 1, &v, err, len))
				return -EINVAL;
			e->ant = (int)v;
		} else if (strncmp(opt, "stream=", 7) == 0) {
			if (strcmp(opt + 7, "all") == 0) {
				e->stream = -1;
				continue;
			}
			if (parse_u64("--event stream", opt + 7, 0, GEN_MAX_GROUPS * GEN_MAX_THREADS,
				      &v, err, len))
				return -EINVAL;
			e->stream = (int)v;
		} else if (strcmp(opt, "extra") == 0 &&
			   (e->kind == GEN_EV_FLIP || e->kind == GEN_EV_STRAY)) {
			e->extra = true;
		} else {
			snprintf(err, len, "--event '%s': '%s', expected ant=A, stream=S|all%s",
				 spec, opt, e->kind == GEN_EV_FLIP || e->kind == GEN_EV_STRAY ?
				 " or extra" : "");
			return -EINVAL;
		}
	}
	return 0;
bad:
	snprintf(err, len, "--event '%s': expected KIND:ARG@FRAME[,ant=A][,stream=S|all][,extra] "
		 "(flip:FIELD.BIT, stray:+-DURATION, step:+-DURATION, param:FIELD=VALUE, "
		 "burst:FRAMES, outage:DURATION)", spec);
	return -EINVAL;
}

static bool
ev_applies(const struct gen_event *e, const struct gen_stream *s)
{
	return (e->ant < 0 || (unsigned int)e->ant == s->ant) &&
	       (e->stream < 0 || (unsigned int)e->stream == s->nth);
}

/* The clock of stream s from frame k on: its header's, after the param
 * events before k. */
static void
stream_params_at(const struct gen *g, const struct gen_stream *s, int64_t k,
		 struct codif_hdr *h)
{
	unsigned int i;

	*h = s->hdr;
	for (i = 0; i < g->cfg.nev; i++) {
		const struct gen_event *e = &g->cfg.ev[i];
		uint8_t b[CODIF_HDR_LEN];

		if (e->kind != GEN_EV_PARAM || !ev_applies(e, s) || k < e->at)
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

		if (e->kind == GEN_EV_STEP && ev_applies(e, st) && index >= e->at)
			idx += e->shift;
	}
	if (g->st[si].ev_param >= 0 && index >= g->cfg.ev[g->st[si].ev_param].at) {
		/* new parameters: time goes on from frame `at`, on their clock */
		const struct gen_event *e = &g->cfg.ev[g->st[si].ev_param];
		struct codif_clock c2;

		stream_params_at(g, st, index, h);
		codif_clock_init(&c2, h);
		codif_clock_hdr_time(&c2, g->st[si].ev_idx2 + (index - e->at), &h->seconds, &h->frame);
		return;
	}
	codif_clock_hdr_time(&g->clk, idx, &h->seconds, &h->frame);
}

/* The odd frame of flip/stray event e for stream s (frame e->at). */
static void
ev_odd_hdr(const struct gen *g, unsigned int si, const struct gen_event *e,
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

/* How a receiver counts an odd frame (lib/acct's order of checks), or -1
 * with the reason when it cannot be told from a good frame. */
enum odd_class { ODD_MALFORMED, ODD_IMPLAUSIBLE, ODD_PARAMS };

static int
odd_class(const struct gen *g, unsigned int si, const struct gen_event *e, char *why, size_t len)
{
	const struct gen_stream *s = &g->st[si];
	struct codif_hdr h, good;
	struct codif_clock c;
	uint8_t b[CODIF_HDR_LEN];
	int64_t n, n0, d, A = g->tl.ahead, W = g->tl.window;

	ev_odd_hdr(g, si, e, &h);
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

/* Check the events against the streams; derive what they need. */
static int
events_init(struct gen *g)
{
	const struct gen_cfg *c = &g->cfg;
	unsigned int i, si;
	int64_t guard = (int64_t)g->tl.confirm + c->depth + 2;

	for (si = 0; si < g->nstream; si++)
		g->st[si].ev_param = -1;
	for (i = 0; i < c->nev; i++) {
		struct gen_event *e = &g->cfg.ev[i];
		int64_t span;
		unsigned int hit = 0;

		if (e->kind == GEN_EV_BURST && e->value == 0) {
			/* outage:DURATION: the frames of that much data time */
			e->value = codif_clock_frames_in(&g->clk, (uint64_t)e->shift);
			e->shift = 0;
			if (e->value == 0)
				e->value = 1;
		}
		span = e->kind == GEN_EV_BURST ? (int64_t)e->value : 1;

		if (e->ant >= 0 && (unsigned int)e->ant >= c->nant) {
			gerr(g, "event %u (%s@%lld): antenna %d, expected < %u", i,
			     gen_event_kind_name(e->kind), (long long)e->at, e->ant, c->nant);
			return -EINVAL;
		}
		if (e->at < guard || e->at + span + guard > (int64_t)c->frames) {
			gerr(g, "event %u (%s@%lld): needs %lld clean frames before it and %lld "
			     "from it on: frame %lld or later, and --count %lld or more (%" PRIu64
			     " given)", i, gen_event_kind_name(e->kind), (long long)e->at,
			     (long long)guard, (long long)(span + guard), (long long)guard,
			     (long long)(e->at + span + guard), c->frames);
			return -EINVAL;
		}
		if (e->kind == GEN_EV_STRAY || e->kind == GEN_EV_STEP) {
			/* a duration is a whole number of frames on the clock */
			int64_t ns = e->shift < 0 ? -e->shift : e->shift;
			unsigned __int128 fr = (unsigned __int128)ns * g->clk.fpp;

			if (fr % g->clk.period_ns != 0) {
				gerr(g, "event %u (%s@%lld): a shift of %lld ns is not a whole number "
				     "of frames (%u s / %" PRIu64 " = %" PRIu64 " ns each)", i,
				     gen_event_kind_name(e->kind), (long long)e->at, (long long)ns,
				     g->clk.period, g->clk.fpp, codif_frame_ns(&g->cfg.tmpl));
				return -EINVAL;
			}
			e->shift = (e->shift < 0 ? -1 : 1) * (int64_t)(fr / g->clk.period_ns);
		}
		for (si = 0; si < g->nstream; si++) {
			struct gen_stream *s = &g->st[si];
			char why[256];

			if (!ev_applies(e, s))
				continue;
			hit++;
			if ((e->kind == GEN_EV_FLIP || e->kind == GEN_EV_STRAY) &&
			    odd_class(g, si, e, why, sizeof(why)) < 0) {
				gerr(g, "event %u (%s@%lld): %s", i, gen_event_kind_name(e->kind),
				     (long long)e->at, why);
				return -EINVAL;
			}
			if (e->kind == GEN_EV_PARAM) {
				struct codif_hdr h0, h1;
				struct codif_clock c1;
				unsigned __int128 f;

				if (g->st[si].ev_param >= 0) {
					gerr(g, "event %u: one param event per stream", i);
					return -EINVAL;
				}
				gen_frame_hdr(g, si, e->at, &h0); /* before the change */
				g->st[si].ev_param = (int)i;
				stream_params_at(g, s, e->at, &h1);
				h1.seconds = h0.seconds;
				h1.frame = 0;
				if (codif_validate(&h1, SIZE_MAX, why, sizeof(why)) != 0) {
					gerr(g, "event %u (param %s=%" PRIu64 "): %s", i, e->field,
					     e->value, why);
					g->st[si].ev_param = -1;
					return -EINVAL;
				}
				codif_clock_init(&c1, &h1);
				/* time goes on: frame `at` at the same time on the new clock */
				f = (unsigned __int128)h0.frame * c1.fpp;
				if (f % g->clk.fpp != 0 || c1.phase != g->clk.phase) {
					gerr(g, "event %u (param %s=%" PRIu64 "): frame %lld's time is not "
					     "on the new clock's grid (%" PRIu64 " frames per period)",
					     i, e->field, e->value, (long long)e->at, c1.fpp);
					g->st[si].ev_param = -1;
					return -EINVAL;
				}
				codif_clock_index(&c1, h0.seconds, (uint32_t)(f / g->clk.fpp),
						  &g->st[si].ev_idx2);
			}
		}
		if (hit == 0) {
			gerr(g, "event %u (%s@%lld): no stream has antenna %d and stream %d", i,
			     gen_event_kind_name(e->kind), (long long)e->at, e->ant, e->stream);
			return -EINVAL;
		}
	}
	/* a step or a clock-changing parameter moves the antenna's timeline:
	 * every stream of the antenna must take part */
	for (i = 0; i < c->nev; i++) {
		const struct gen_event *e = &c->ev[i];
		bool moves = e->kind == GEN_EV_STEP;

		if (e->kind == GEN_EV_STEP && e->shift < 0 && -e->shift < (int64_t)g->tl.window) {
			gerr(g, "event %u (step@%lld): a step back of %lld frames is within the "
			     "receivers' window (%u): its frames are duplicates, not a resync; "
			     "step back further", i, (long long)e->at, (long long)-e->shift,
			     g->tl.window);
			return -EINVAL;
		}
		for (si = 0; si < g->nstream && e->kind == GEN_EV_PARAM; si++)
			if (ev_applies(e, &g->st[si])) {
				struct codif_hdr h1;
				struct codif_clock c1;

				stream_params_at(g, &g->st[si], e->at, &h1);
				codif_clock_init(&c1, &h1);
				moves = c1.fpp != g->clk.fpp || c1.period != g->clk.period ||
					c1.epoch != g->clk.epoch;
				break;
			}
		if (!moves || e->stream < 0)
			continue;
		for (si = 0; si < g->nstream; si++)
			if ((e->ant < 0 || g->st[si].ant == (unsigned int)e->ant) &&
			    !ev_applies(e, &g->st[si])) {
				gerr(g, "event %u (%s@%lld): it moves the antenna's timeline, so "
				     "every stream of the antenna takes part: stream=all",
				     i, gen_event_kind_name(e->kind), (long long)e->at);
				return -EINVAL;
			}
	}
	return 0;
}

/* Is frame k of stream s near an event (no random fault there)? */
static bool
near_event(const struct gen *g, const struct gen_stream *s, int64_t k)
{
	int64_t guard = (int64_t)g->tl.confirm + g->cfg.depth + 2;
	unsigned int i;

	for (i = 0; i < g->cfg.nev; i++) {
		const struct gen_event *e = &g->cfg.ev[i];
		int64_t span = e->kind == GEN_EV_BURST ? (int64_t)e->value : 1;

		if (ev_applies(e, s) && k >= e->at - guard && k < e->at + span + guard)
			return true;
	}
	return false;
}

/* The ground truth of the events of stream s, as receivers must count. */
static void
events_truth(const struct gen *g, const struct gen_stream *s, struct gen_truth *t)
{
	unsigned int i;

	for (i = 0; i < g->cfg.nev; i++) {
		const struct gen_event *e = &g->cfg.ev[i];

		if (!ev_applies(e, s))
			continue;
		switch (e->kind) {
		case GEN_EV_STEP:
			if (e->shift > 0 && (uint64_t)e->shift <= g->max_gap) {
				/* frames lost, as a receiver sees it */
				t->c.expected += (uint64_t)e->shift;
				t->c.lost += (uint64_t)e->shift;
			} else {
				t->c.resyncs++;
				if (e->shift > 0)
					t->c.resync_skipped += (uint64_t)e->shift;
			}
			break;
		case GEN_EV_PARAM: {
			struct codif_hdr h1;
			struct codif_clock c1;

			stream_params_at(g, s, e->at, &h1);
			codif_clock_init(&c1, &h1);
			t->c.new_params++;
			if (c1.fpp != g->clk.fpp || c1.period != g->clk.period ||
			    c1.epoch != g->clk.epoch)
				t->c.resyncs++;
			break;
		}
		case GEN_EV_BURST:
			/* an outage, however long: the packets' times (pcap,
			 * a real-time sender) go on through it, so receivers
			 * that see arrival times count its frames lost
			 * (lib/codif, "outage"); nothing to add here: the
			 * frames were never sent, so the counts above have
			 * them lost already */
			break;
		default:
			break;
		}
	}
}

int
gen_init(struct gen *g, const struct gen_cfg *cfg)
{
	const struct gen_cfg *c = cfg;
	struct codif_hdr t = cfg->tmpl;
	char why[200];
	unsigned int a, b, gi, th, n;
	uint64_t fpp, mask_all;
	double psum = 0;
	int64_t epoch_ns, rel, period_ns;
	uint64_t frame0;
	uint32_t seconds0;

	memset(g, 0, sizeof(*g));
	g->cfg = *cfg;
	if (c->nant < 1 || c->nant > GEN_MAX_ANTENNAS) {
		gerr(g, "antennas: %u, expected 1..%d", c->nant, GEN_MAX_ANTENNAS);
		return -EINVAL;
	}
	if (c->nthread < 1 || c->nthread > GEN_MAX_THREADS) {
		gerr(g, "threads: %u, expected 1..%d", c->nthread, GEN_MAX_THREADS);
		return -EINVAL;
	}
	if (c->ngroup < 1 || c->ngroup > GEN_MAX_GROUPS) {
		gerr(g, "groups: %u, expected 1..%d", c->ngroup, GEN_MAX_GROUPS);
		return -EINVAL;
	}
	if (c->frames < 2) {
		gerr(g, "frames: %" PRIu64 ", expected >= 2 per stream", c->frames);
		return -EINVAL;
	}
	if (c->depth < 1 || c->depth > GEN_MAX_DEPTH) {
		gerr(g, "reorder depth: %u, expected 1..%d", c->depth, GEN_MAX_DEPTH);
		return -EINVAL;
	}
	for (a = 0; a < c->nant; a++)
		for (b = a + 1; b < c->nant; b++)
			if (c->ant_ip[a] == c->ant_ip[b]) {
				char ip[16];

				gerr(g, "antenna source IP %s given twice (antennas %u and %u)",
				     ipv4_str(c->ant_ip[a], ip, sizeof(ip)), a, b);
				return -EINVAL;
			}
	for (a = 0; a < c->ngroup; a++)
		for (b = a + 1; b < c->ngroup; b++)
			if (c->group[a].ip == c->group[b].ip &&
			    c->group[a].port == c->group[b].port) {
				char ip[16];

				gerr(g, "group %s:%u given twice",
				     ipv4_str(c->group[a].ip, ip, sizeof(ip)),
				     c->group[a].port);
				return -EINVAL;
			}
	mask_all = c->ngroup == 64 ? ~0ULL : (1ULL << c->ngroup) - 1;
	for (a = 0; a < c->nant; a++) {
		if ((c->ant_groups[a] & mask_all) == 0 ||
		    (c->ant_groups[a] & ~mask_all) != 0) {
			gerr(g, "antenna %u sends to no group, or to a group beyond the %u given",
			     a, c->ngroup);
			return -EINVAL;
		}
	}
	for (a = GEN_F_LOSS; a < GEN_F_EVENT; a++) {
		if (c->p[a] < 0 || c->p[a] > 1) {
			gerr(g, "%s probability %g, expected 0..1",
			     gen_fault_name((enum gen_fault)a), c->p[a]);
			return -EINVAL;
		}
		psum += c->p[a];
	}
	if (psum > 1.0 + 1e-12) {
		gerr(g, "fault probabilities add up to %g, expected at most 1 "
		     "(each frame gets at most one fault)", psum);
		return -EINVAL;
	}
	if (c->p_reorder < 0 || c->p_reorder > 1) {
		gerr(g, "reorder probability %g, expected 0..1", c->p_reorder);
		return -EINVAL;
	}
	t.frame = 0;
	t.sync = CODIF_SYNC;
	t.protocol = CODIF_PROTOCOL;
	if (codif_validate(&t, SIZE_MAX, why, sizeof(why)) != 0) {
		gerr(g, "stream parameters: %s", why);
		return -EINVAL;
	}
	if (codif_data_bytes(&t) > 65536 - 64 - 8 - 20) {
		gerr(g, "data bytes %" PRIu64 ", expected at most %d (one UDP datagram)",
		     codif_data_bytes(&t), 65536 - 64 - 8 - 20);
		return -EINVAL;
	}
	fpp = codif_frames_per_period(&t);
	epoch_ns = codif_epoch_unix(t.epoch) * 1000000000LL;
	if (c->start_ns < epoch_ns) {
		char s1[CODIF_TIMESTR_LEN], s2[CODIF_TIMESTR_LEN];

		gerr(g, "start %s is before the reference epoch %u (%s)",
		     codif_time_str(c->start_ns, s1, sizeof(s1)), t.epoch,
		     codif_time_str(epoch_ns, s2, sizeof(s2)));
		return -EINVAL;
	}
	period_ns = (int64_t)t.period * 1000000000LL;
	rel = c->start_ns - epoch_ns;
	if (rel / period_ns * t.period > UINT32_MAX - 2 * (int64_t)t.period) {
		gerr(g, "start is more than 2^32 s after the reference epoch %u",
		     t.epoch);
		return -EINVAL;
	}
	seconds0 = (uint32_t)(rel / period_ns * t.period);
	frame0 = (uint64_t)((unsigned __int128)(rel % period_ns) * fpp / (uint64_t)period_ns);
	{
		/* every frame's time (and a step's or a stray's, ahead) an int64
		 * of ns: the last one no later than 2262-04-11 */
		unsigned __int128 ahead = c->frames;
		__int128 last;
		unsigned int i;

		for (i = 0; i < c->nev; i++)
			if ((c->ev[i].kind == GEN_EV_STEP || c->ev[i].kind == GEN_EV_STRAY) &&
			    c->ev[i].shift > 0)
				ahead += (unsigned __int128)c->ev[i].shift * fpp /
					 (uint64_t)period_ns + 1; /* still ns here */
		last = (__int128)c->start_ns + (__int128)(ahead * (uint64_t)period_ns / fpp);
		if (codif_time_range_check("the last frame's time", last, why, sizeof(why)) != 0) {
			gerr(g, "--start and --count: %s", why);
			return -EINVAL;
		}
	}

	n = 0;
	for (a = 0; a < c->nant; a++)
		for (gi = 0; gi < c->ngroup; gi++)
			if (c->ant_groups[a] >> gi & 1)
				n += c->nthread;
	g->st = calloc(n, sizeof(*g->st));
	g->capout = 16;
	g->out = calloc(g->capout, sizeof(*g->out));
	if (g->st == NULL || g->out == NULL) {
		gerr(g, "out of memory for %u streams", n);
		gen_free(g);
		return -ENOMEM;
	}
	g->nstream = n;
	n = 0;
	for (a = 0; a < c->nant; a++) {
		unsigned int nth = 0;

		for (gi = 0; gi < c->ngroup; gi++) {
			if (!(c->ant_groups[a] >> gi & 1))
				continue;
			for (th = 0; th < c->nthread; th++) {
				struct gen_stream *s = &g->st[n++];

				s->ant = a;
				s->nth = nth++;
				s->ev_param = -1;
				s->group = gi;
				s->thread = th;
				s->hdr = t;
				s->hdr.threadid = (uint16_t)th;
				s->hdr.groupid = (uint16_t)(c->groupid_base + a);
				s->hdr.secondaryid = (uint16_t)gi;
				s->hdr.seconds = seconds0;
				s->hdr.frame = (uint32_t)frame0;
				s->fpp = fpp;
				s->max_valid = -1;
				s->emitted = calloc((c->frames + 63) / 64, 8);
				s->ring_len = 2 * c->depth + 2;
				s->ring = calloc(s->ring_len, sizeof(*s->ring));
				if (s->emitted == NULL || s->ring == NULL) {
					gerr(g, "out of memory for %" PRIu64 " frames per stream",
					     c->frames);
					gen_free(g);
					return -ENOMEM;
				}
			}
		}
	}
	t.seconds = seconds0;
	t.frame = (uint32_t)frame0;
	codif_clock_init(&g->clk, &t);
	codif_clock_index(&g->clk, seconds0, (uint32_t)frame0, &g->idx0);
	codif_tl_cfg_defaults(&g->tl);
	if (c->tl.window)
		g->tl.window = c->tl.window;
	if (c->tl.ahead)
		g->tl.ahead = c->tl.ahead;
	if (c->tl.confirm)
		g->tl.confirm = c->tl.confirm;
	if (c->tl.max_gap_ns)
		g->tl.max_gap_ns = c->tl.max_gap_ns;
	g->max_gap = codif_clock_frames_in(&g->clk, g->tl.max_gap_ns);
	if (c->nev > GEN_MAX_EVENTS) {
		gerr(g, "%u events, at most %d", c->nev, GEN_MAX_EVENTS);
		gen_free(g);
		return -EINVAL;
	}
	if (events_init(g) != 0) {
		gen_free(g);
		return -EINVAL;
	}
	g->frame_ns = codif_frame_ns(&t);
	g->step_ns = g->frame_ns / (4ULL * g->nstream + 1);
	g->slot = -1;
	g->cur = g->nstream - 1;
	/* one RNG per stream so --antenna does not change any stream's fate */
	for (a = 0; a < g->nstream; a++) {
		struct gen_stream *s = &g->st[a];
		int64_t last;

		s->t.c.first_ns = codif_frame_time_ns(&s->hdr);
		gen_frame_hdr(g, a, (int64_t)c->frames - 1, &t);
		last = codif_frame_time_ns(&t);
		s->t.c.last_ns = last;
	}
	return 0;
}

static bool
selected(const struct gen *g, const struct gen_stream *s)
{
	return g->cfg.select == 0 || (g->cfg.select >> s->ant & 1);
}

static int
pend_push(struct gen_pend *p, const struct gen_pkt *k)
{
	if (p->n == p->cap) {
		unsigned int nc = p->cap ? p->cap * 2 : 4;
		struct gen_pkt *v = realloc(p->v, nc * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		p->v = v;
		p->cap = nc;
	}
	p->v[p->n++] = *k;
	return 0;
}

static int
out_push(struct gen *g, const struct gen_pkt *k)
{
	if (g->nout == g->capout) {
		unsigned int nc = g->capout * 2;
		struct gen_pkt *v = realloc(g->out, nc * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		g->out = v;
		g->capout = nc;
	}
	g->out[g->nout++] = *k;
	return 0;
}

/* Per-stream RNG state, derived from (seed, stream, frame): fates do not
 * depend on which streams are selected or on emission order. */
static uint64_t
frame_rng(const struct gen *g, unsigned int s, int64_t k)
{
	uint64_t x = g->cfg.seed * 0x9E3779B97F4A7C15ULL ^
		     ((uint64_t)s << 40) ^ (uint64_t)k;

	splitmix64(&x);
	return x;
}

/* Decide frame `slot` of stream si; queue what goes out now or later. */
static int
schedule(struct gen *g, unsigned int si)
{
	struct gen_stream *s = &g->st[si];
	const struct gen_cfg *c = &g->cfg;
	int64_t k = g->slot;
	struct gen_pkt p = { .stream = si, .index = k, .fault = GEN_F_NONE, .ev = -1 };
	uint64_t r = frame_rng(g, si, k);
	unsigned int d = 0, f, i;
	bool near = c->nev > 0 && near_event(g, s, k);
	int rc = 0;

	for (i = 0; near && i < c->nev; i++) {
		const struct gen_event *e = &c->ev[i];
		struct gen_pkt odd = p;

		if (!ev_applies(e, s))
			continue;
		if (e->kind == GEN_EV_BURST && k >= e->at && k < e->at + (int64_t)e->value) {
			s->t.fault[GEN_F_LOSS]++;
			return 0; /* never sent */
		}
		if ((e->kind != GEN_EV_FLIP && e->kind != GEN_EV_STRAY) || k != e->at)
			continue;
		/* the odd frame: in place of frame k, or besides it */
		odd.fault = GEN_F_EVENT;
		odd.ev = (int)i;
		s->t.fault[GEN_F_EVENT]++;
		rc |= out_push(g, &odd);
		if (!e->extra)
			return rc;
	}
	if (!near && k > 0 && k < (int64_t)c->frames - 1) {
		double u = rand01(&r), acc = 0;

		for (f = GEN_F_LOSS; f < GEN_F_EVENT; f++) {
			acc += c->p[f];
			if (c->p[f] > 0 && u < acc) {
				p.fault = (enum gen_fault)f;
				break;
			}
		}
		if (p.fault <= GEN_F_VLAN && p.fault != GEN_F_LOSS &&
		    c->p_reorder > 0 && rand01(&r) < c->p_reorder)
			d = 1 + (unsigned int)(splitmix64(&r) % c->depth);
	}
	s->t.fault[p.fault]++;
	if (p.fault == GEN_F_LOSS)
		return 0;
	if (d == 0)
		rc |= out_push(g, &p);
	else
		rc |= pend_push(&s->ring[(k + d) % s->ring_len], &p);
	if (p.fault == GEN_F_DUPLICATE) {
		unsigned int dd = (unsigned int)(splitmix64(&r) % (c->depth + 1));
		struct gen_pkt cp = p;

		cp.copy = true;
		if (d + dd == 0)
			rc |= out_push(g, &cp);
		else
			rc |= pend_push(&s->ring[(k + d + dd) % s->ring_len], &cp);
	}
	return rc;
}

static uint32_t
frame_len(const struct gen *g, const struct gen_pkt *p)
{
	struct codif_hdr h;
	uint32_t data, full;

	gen_frame_hdr(g, p->stream, p->index, &h);
	data = (uint32_t)codif_data_bytes(&h);
	full = PKT_HDRS_LEN + CODIF_HDR_LEN + data;
	switch (p->fault) {
	case GEN_F_VLAN:
		return full + PKT_VLAN_LEN;
	case GEN_F_BAD_LENGTH:
		return full - (data / 2 < 512 ? (data / 2) & ~7u : 512);
	case GEN_F_TRUNCATED:
		return PKT_HDRS_LEN + CODIF_HDR_LEN + data / 2;
	case GEN_F_NON_IPV4:
		return full + 20; /* IPv6 header is 40 bytes, IPv4 20 */
	default:
		return full;
	}
}

static void
account(struct gen *g, const struct gen_pkt *p)
{
	struct gen_stream *s = &g->st[p->stream];
	struct codif_hdr fh;
	uint64_t data, bit = (uint64_t)p->index;

	gen_frame_hdr(g, p->stream, p->index, &fh);
	data = codif_data_bytes(&fh);
	s->t.sent++;
	s->t.sent_bytes += frame_len(g, p);
	if (p->fault != GEN_F_NON_IPV4) { /* from the antenna's source address */
		s->t.c.packets++;
		s->t.c.wire_bytes += frame_len(g, p);
	}
	g->packets++;
	switch (p->fault) {
	case GEN_F_EVENT: {
		char why[8];

		switch (odd_class(g, p->stream, &g->cfg.ev[p->ev], why, sizeof(why))) {
		case ODD_IMPLAUSIBLE:
			s->t.c.implausible++;
			break;
		case ODD_PARAMS:
			s->t.c.param_change++;
			break;
		default:
			break;
		}
		s->t.c.malformed++; /* every odd frame is its antenna's malformed packet */
		break;
	}
	case GEN_F_NONE:
	case GEN_F_INVALID:
	case GEN_F_DUPLICATE:
	case GEN_F_VLAN:
		if (s->emitted[bit / 64] >> (bit % 64) & 1) {
			s->t.c.duplicate++;
			break;
		}
		s->emitted[bit / 64] |= 1ULL << (bit % 64);
		s->t.c.received++;
		s->t.c.bytes += CODIF_HDR_LEN + data;
		if (p->index < s->max_valid)
			s->t.c.late++;
		else
			s->max_valid = p->index;
		if (p->fault == GEN_F_INVALID)
			s->t.c.invalid++;
		if (p->fault == GEN_F_VLAN)
			s->t.vlan++;
		break;
	case GEN_F_NON_IPV4:
		s->t.non_ipv4++;
		break;
	case GEN_F_BAD_IP_CSUM:
		s->t.c.malformed++;
		s->t.c.mal[ACCT_M_IP_CSUM]++; /* the one cause the truth tells */
		break;
	default:
		s->t.c.malformed++;
		break;
	}
	s->t.c.expected = (uint64_t)(s->max_valid + 1);
	s->t.c.lost = s->t.c.expected - s->t.c.received;
	/* a receiver with a slot for every stream records every frame */
	s->t.c.recorded = s->t.c.received;
}

int
gen_next(struct gen *g, struct gen_pkt *p)
{
	const struct gen_cfg *c = &g->cfg;
	int64_t last_slot = (int64_t)c->frames - 1 + 2 * (int64_t)c->depth + 1;

	while (g->iout >= g->nout) {
		struct gen_stream *s;
		struct gen_pend *pd;
		unsigned int i;

		g->nout = g->iout = 0;
		if (++g->cur >= g->nstream) {
			g->cur = 0;
			g->slot++;
			g->in_slot = 0;
		}
		if (g->slot > last_slot)
			return 0;
		s = &g->st[g->cur];
		if (!selected(g, s))
			continue;
		if (g->slot < (int64_t)c->frames && schedule(g, g->cur) != 0)
			return 0;
		pd = &s->ring[g->slot % s->ring_len];
		for (i = 0; i < pd->n; i++)
			if (out_push(g, &pd->v[i]) != 0)
				return 0;
		pd->n = 0;
	}
	*p = g->out[g->iout++];
	{
		uint64_t slot_off = (uint64_t)((unsigned __int128)g->slot *
					       g->cfg.tmpl.period * 1000000000u /
					       g->st[0].fpp);
		unsigned int k = g->in_slot < 4 * g->nstream ? g->in_slot :
							       4 * g->nstream;

		p->ts_ns = g->st[0].t.c.first_ns + (int64_t)slot_off +
			   (int64_t)(k * g->step_ns);
		g->in_slot++;
	}
	account(g, p);
	return 1;
}

static void
build_vdif(const struct gen *g, const struct codif_hdr *h, uint8_t *b,
	   uint32_t len)
{
	uint32_t w[8] = { 0 };
	unsigned int i;

	(void)g;
	w[0] = h->seconds & 0x3fffffff;
	w[1] = (h->frame & 0xffffff) | (uint32_t)(h->epoch & 0x3f) << 24;
	w[2] = (len / 8) & 0xffffff; /* version 0 in bits 29-31 */
	w[3] = h->stationid | (uint32_t)(h->nbits - 1) << 26;
	for (i = 0; i < 8; i++) {
		b[4 * i] = (uint8_t)w[i];
		b[4 * i + 1] = (uint8_t)(w[i] >> 8);
		b[4 * i + 2] = (uint8_t)(w[i] >> 16);
		b[4 * i + 3] = (uint8_t)(w[i] >> 24);
	}
	codif_pattern_fill(h, b + 32, len - 32);
}

/* A frame's data: its antenna's signal where one is set, else the pattern. */
static void
fill_data(const struct gen *g, unsigned int si, const struct codif_hdr *h, uint8_t *d,
	  size_t len)
{
	unsigned int a = g->st[si].ant;

	if ((g->cfg.sig_mask >> a & 1) == 0 ||
	    codif_signal_fill(&g->cfg.sig[a], h, d, len) != 0)
		codif_pattern_fill(h, d, len);
}

/* One ",KEY=VALUE" of a --signal (stuck, tone, common, delay). */
static int
signal_opt(struct codif_signal *sg, uint64_t a, const char *kv, unsigned int nbits,
	   char *err, size_t len)
{
	uint64_t bit, val;
	char *e2;

	errno = 0;
	if (strncmp(kv, "tone=", 5) == 0) {
		/* a tone of F cycles per time sample (I cos, Q sin), AMP steps */
		sg->tone_freq = strtod(kv + 5, &e2);
		if (e2 == kv + 5 || *e2 != ':' || errno != 0 || !isfinite(sg->tone_freq) ||
		    fabs(sg->tone_freq) > 0.5)
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: tone=F:AMP, "
				       "F cycles per time sample in -0.5..0.5 (e.g. tone=0.125:"
				       "50)", a, kv);
		sg->tone_amp = strtod(e2 + 1, &e2);
		if (*e2 != '\0' || !isfinite(sg->tone_amp) || sg->tone_amp < 0)
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: tone=F:AMP, "
				       "AMP in steps >= 0", a, kv);
	} else if (strncmp(kv, "stuck=", 6) == 0) {
		/* that bit of every code forced */
		char b[16], *c2;

		snprintf(b, sizeof(b), "%s", kv + 6);
		c2 = strchr(b, ':');
		if (c2 == NULL)
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: stuck=BIT:"
				       "VALUE, e.g. stuck=1:0 (bit 1 of every code always 0)",
				       a, kv);
		*c2 = '\0';
		if (parse_u64("--signal stuck bit", b, 0, 31, &bit, err, len) != 0 ||
		    parse_u64("--signal stuck value", c2 + 1, 0, 1, &val, err, len) != 0)
			return -EINVAL;
		if (bit >= nbits && nbits != 0)
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: bit %" PRIu64
				       ", expected 0..%u (a bit of the --nbits code; give "
				       "--nbits first)", a, kv, bit, nbits - 1u);
		sg->stuck_mask = 1u << bit;
		sg->stuck_val = (uint32_t)val << bit;
	} else if (strncmp(kv, "common=", 7) == 0) {
		/* the share of the noise power common to the antennas */
		sg->common_rho = strtod(kv + 7, &e2);
		if (e2 == kv + 7 || *e2 != '\0' || errno != 0 || !(sg->common_rho >= 0) ||
		    sg->common_rho > 1)
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: common=RHO, "
				       "RHO the common share of the noise power in 0..1 (e.g. "
				       "common=0.5)", a, kv);
	} else if (strncmp(kv, "delay=", 6) == 0) {
		/* the common part late by D samples */
		long long d = strtoll(kv + 6, &e2, 10);

		if (e2 == kv + 6 || *e2 != '\0' || errno != 0 || d < -1000000 || d > 1000000)
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: delay=D, "
				       "D whole time samples in -1000000..1000000 (e.g. delay=3)",
				       a, kv);
		sg->common_delay = d;
	} else {
		return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: unknown option, "
			       "expected stuck=BIT:V, tone=F:AMP, common=RHO or delay=D", a, kv);
	}
	return 0;
}

int
gen_signal_parse(const char *spec, struct gen_cfg *cfg, char *err, size_t len)
{
	const char *colon = strchr(spec, ':');
	struct codif_signal *sg;
	uint64_t a;
	char num[64], buf[256], *end, *opt, *save = NULL;
	double v;
	size_t n;

	if (colon == NULL || colon == spec)
		return err_set(err, len, -EINVAL, "--signal '%s': expected A:LEVEL (antenna "
			       "index, then an RMS in steps, a power in dB, dead or saturated)",
			       spec);
	n = (size_t)(colon - spec);
	if (n >= sizeof(num))
		n = sizeof(num) - 1;
	memcpy(num, spec, n);
	num[n] = '\0';
	if (parse_u64("--signal antenna", num, 0, GEN_MAX_ANTENNAS - 1, &a, err, len) != 0)
		return -EINVAL;
	sg = &cfg->sig[a];
	codif_signal_noise(sg, 0, a); /* the frames' ids make each antenna's noise its own */
	if (snprintf(buf, sizeof(buf), "%s", colon + 1) >= (int)sizeof(buf))
		return err_set(err, len, -EINVAL, "--signal '%s': longer than %zu characters",
			       spec, sizeof(buf) - 1);
	spec = strtok_r(buf, ",", &save);
	if (spec == NULL)
		spec = "";
	while ((opt = strtok_r(NULL, ",", &save)) != NULL)
		if (signal_opt(sg, a, opt, cfg->tmpl.nbits, err, len) != 0)
			return -EINVAL;
	if (strcmp(spec, "dead") == 0) {
		sg->kind = CODIF_SIGNAL_DEAD;
	} else if (strcmp(spec, "saturated") == 0) {
		sg->kind = CODIF_SIGNAL_SATURATED;
	} else {
		errno = 0;
		v = strtod(spec, &end);
		if (end == spec || errno != 0 || !isfinite(v) ||
		    (strcmp(end, "dB") != 0 && *end != '\0') ||
		    (*end == '\0' && v < 0))
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":%s: expected an RMS "
				       "in steps (>= 0, e.g. 3.5), a power in dB (e.g. 10dB), dead "
				       "or saturated", a, spec);
		sg->rms = *end == '\0' ? v : sqrt(pow(10.0, v / 10.0));
	}
	if ((sg->common_rho > 0 || sg->common_delay != 0) && sg->kind != CODIF_SIGNAL_NOISE)
		return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":%s: common= and delay= "
			       "need a noise LEVEL (an RMS or dB)", a, spec);
	cfg->sig_mask |= 1ULL << a;
	return 0;
}

uint32_t
gen_build_payload(const struct gen *g, const struct gen_pkt *p, uint8_t *buf)
{
	struct codif_hdr h;
	uint32_t data, len;

	gen_frame_hdr(g, p->stream, p->index, &h);
	data = (uint32_t)codif_data_bytes(&h);
	len = CODIF_HDR_LEN + data;
	if (p->fault == GEN_F_EVENT) {
		/* the odd header over the frame's own data: a flipped bit or a
		 * wrong time does not change the packet */
		struct codif_hdr odd;

		ev_odd_hdr(g, p->stream, &g->cfg.ev[p->ev], &odd);
		codif_encode(&odd, buf);
		fill_data(g, p->stream, &h, buf + CODIF_HDR_LEN, len - CODIF_HDR_LEN);
		return len;
	}
	if (p->fault == GEN_F_NON_CODIF) {
		build_vdif(g, &h, buf, len);
		return len;
	}
	if (p->fault == GEN_F_INVALID)
		h.invalid = true;
	if (p->fault == GEN_F_BAD_SYNC)
		h.sync = CODIF_SYNC ^ 0x00010001u;
	codif_encode(&h, buf);
	if (p->fault == GEN_F_BAD_LENGTH)
		len -= data / 2 < 512 ? (data / 2) & ~7u : 512;
	fill_data(g, p->stream, &h, buf + CODIF_HDR_LEN, len - CODIF_HDR_LEN);
	return len;
}

uint32_t
gen_build(const struct gen *g, const struct gen_pkt *p, uint8_t *buf)
{
	const struct gen_stream *s = &g->st[p->stream];
	struct pkt_udp4_spec sp;
	uint32_t hl, plen;

	memset(&sp, 0, sizeof(sp));
	sp.src_mac[0] = 0x02;
	sp.src_mac[3] = 0x17;
	sp.src_mac[5] = (uint8_t)s->ant;
	pkt_mcast_mac(g->cfg.group[s->group].ip, sp.dst_mac);
	sp.src_ip = g->cfg.ant_ip[s->ant];
	sp.dst_ip = g->cfg.group[s->group].ip;
	sp.sport = g->cfg.group[s->group].port;
	sp.dport = g->cfg.group[s->group].port;
	sp.ttl = g->cfg.ttl;
	sp.ip_id = (uint16_t)p->index;
	sp.vlan = p->fault == GEN_F_VLAN;
	sp.vlan_tci = g->cfg.vlan_id;

	if (p->fault == GEN_F_NON_IPV4) {
		/* the same datagram over IPv6: fd00::17:<ant> -> ff15::<group> */
		struct gen_pkt q = *p;
		uint8_t *ip6 = buf + 14;

		q.fault = GEN_F_NONE;
		memcpy(buf, sp.dst_mac, 6);
		buf[0] = 0x33;
		buf[1] = 0x33;
		memcpy(buf + 6, sp.src_mac, 6);
		buf[12] = 0x86;
		buf[13] = 0xDD;
		plen = gen_build_payload(g, &q, ip6 + 48);
		memset(ip6, 0, 48);
		ip6[0] = 0x60;
		ip6[4] = (uint8_t)((plen + 8) >> 8);
		ip6[5] = (uint8_t)(plen + 8);
		ip6[6] = 17;
		ip6[7] = 1;
		ip6[8] = 0xfd;
		ip6[21] = 0x17;
		ip6[23] = (uint8_t)s->ant;
		ip6[24] = 0xff;
		ip6[25] = 0x15;
		ip6[38] = (uint8_t)(sp.dst_ip >> 8);
		ip6[39] = (uint8_t)sp.dst_ip;
		ip6[40] = (uint8_t)(sp.sport >> 8);
		ip6[41] = (uint8_t)sp.sport;
		ip6[42] = (uint8_t)(sp.dport >> 8);
		ip6[43] = (uint8_t)sp.dport;
		ip6[44] = (uint8_t)((plen + 8) >> 8);
		ip6[45] = (uint8_t)(plen + 8);
		return 14 + 40 + 8 + plen;
	}
	if (p->fault == GEN_F_TRUNCATED) {
		struct gen_pkt q = *p;

		q.fault = GEN_F_NONE;
		plen = gen_build_payload(g, &q, buf + PKT_HDRS_LEN);
		pkt_build_udp4(buf, &sp, plen);
		return frame_len(g, p);
	}
	hl = sp.vlan ? PKT_HDRS_LEN + PKT_VLAN_LEN : PKT_HDRS_LEN;
	plen = gen_build_payload(g, p, buf + hl);
	pkt_build_udp4(buf, &sp, plen);
	if (p->fault == GEN_F_BAD_IP_CSUM) {
		/* one bit of each checksum byte: never again a valid sum
		 * (the change, +-0x0101 or +-0x00ff, is no multiple of 0xffff) */
		buf[hl - PKT_UDP_LEN - PKT_IPV4_MIN_LEN + 10] ^= 0x01;
		buf[hl - PKT_UDP_LEN - PKT_IPV4_MIN_LEN + 11] ^= 0x01;
	}
	return hl + plen;
}

/* The counts a receiver must match, under the counter table's names, then
 * what only the generator knows. */
static void
truth_fields(json_t *o, const struct gen_truth *t, unsigned int scope)
{
	stats_json(&stats_counts, &t->c, scope, o);
	js_u64(o, "sent", t->sent);
	js_u64(o, "sent_bytes", t->sent_bytes);
	js_u64(o, "non_ipv4", t->non_ipv4);
	js_u64(o, "vlan", t->vlan);
}

static void
truth_add(struct gen_truth *sum, const struct gen_truth *t)
{
	unsigned int f;

	stats_merge(&stats_counts, &sum->c, &t->c);
	sum->sent += t->sent;
	sum->sent_bytes += t->sent_bytes;
	sum->non_ipv4 += t->non_ipv4;
	sum->vlan += t->vlan;
	for (f = 0; f < GEN_F__COUNT; f++)
		sum->fault[f] += t->fault[f];
}

static void
truth_zero(struct gen_truth *t)
{
	memset(t, 0, sizeof(*t));
	stats_zero(&stats_counts, &t->c);
}

/* The counters the truth vouches for, by scope: every one of the table but
 * what depends on the receiver (its buffer: too_late) or on its words for
 * causes (malformed_by_cause); compare.py compares exactly these. */
/* The pair's expected coefficient, averaged over channels and parts as
 * codifcheck fringe averages (a complex channel's is the mean of I's and Q's
 * at equal power). */
static double
pair_coef(const struct codif_signal *sa, const struct codif_signal *sb,
	  const struct codif_signal_enc *e)
{
	unsigned int ch, im;
	double c, sum = 0;

	for (ch = 0; ch < e->nchan; ch++)
		for (im = 0; im < e->ncomp; im++)
			if (codif_signal_expect_corr(sa, sb, e, ch, im, &c) == 0)
				sum += c / e->S;
	return sum;
}

/*
 * Every pair of antennas sharing a common signal (--signal A:RMS,common=RHO
 * [,delay=D]): the lag and coefficient a fringe check must find (lib/codif
 * codif_signal.h, "A common signal"). Pairs not listed correlate with 0.
 */
static void
fringe_json(const struct gen_cfg *c, json_t *arr)
{
	struct codif_signal_enc e;
	double sample_ns;
	unsigned int a, b;

	if (codif_signal_enc_init(&e, &c->tmpl, NULL, 0) != 0 || c->tmpl.totalsamples == 0)
		return;
	sample_ns = 1e9 * c->tmpl.period / (double)c->tmpl.totalsamples;
	for (a = 0; a < c->nant; a++)
		for (b = a + 1; b < c->nant; b++) {
			const struct codif_signal *sa = &c->sig[a], *sb = &c->sig[b];
			int64_t lag = sb->common_delay - sa->common_delay;
			json_t *o;

			if ((c->sig_mask >> a & 1) == 0 || (c->sig_mask >> b & 1) == 0 ||
			    sa->common_rho <= 0 || sb->common_rho <= 0 ||
			    sa->kind != CODIF_SIGNAL_NOISE || sb->kind != CODIF_SIGNAL_NOISE)
				continue;
			o = js_obj(arr, NULL);
			js_u64(o, "a", a);
			js_u64(o, "b", b);
			js_i64(o, "lag_samples", lag);
			js_dbl(o, "lag_ns", (double)lag * sample_ns);
			js_dbl(o, "coefficient_analog", sqrt(sa->common_rho * sb->common_rho));
			js_dbl(o, "coefficient", pair_coef(sa, sb, &e));
		}
}

/*
 * Each signal antenna's expected quick-look figures (lib/codif's
 * codif_signal_expect), averaged over its channels and parts as the
 * capture's per-antenna figures are; sd_*: the largest per-sample standard
 * deviation of any channel and part (a test over n samples allows k sd /
 * sqrt(n)).
 */
static void
signal_json(const struct gen_cfg *c, json_t *arr)
{
	struct codif_signal_enc e;
	unsigned int a, ch, im;

	if (codif_signal_enc_init(&e, &c->tmpl, NULL, 0) != 0)
		return;
	for (a = 0; a < c->nant; a++) {
		const struct codif_signal *sg = &c->sig[a];
		double m[2] = { 0, 0 }, pw = 0, sat = 0, zero = 0;
		double sd_m = 0, sd_p = 0, sd_s = 0, sd_z = 0;
		json_t *o, *x;

		if ((c->sig_mask >> a & 1) == 0)
			continue;
		for (ch = 0; ch < e.nchan; ch++)
			for (im = 0; im < e.ncomp; im++) {
				struct codif_signal_expect ex;

				codif_signal_expect(sg, &e, ch, im, &ex);
				m[im] += ex.mean / e.nchan;
				pw += ex.power / e.S;
				sat += ex.sat / e.S;
				zero += ex.zero / e.S;
				sd_m = fmax(sd_m, ex.sd_mean);
				sd_p = fmax(sd_p, ex.sd_power);
				sd_s = fmax(sd_s, ex.sd_sat);
				sd_z = fmax(sd_z, ex.sd_zero);
			}
		o = js_obj(arr, NULL);
		js_u64(o, "antenna", a);
		js_str(o, "kind", sg->kind == CODIF_SIGNAL_DEAD ? "dead" :
				  sg->kind == CODIF_SIGNAL_SATURATED ? "saturated" : "noise");
		js_dbl(o, "rms", sg->rms);
		if (sg->common_rho > 0) {
			js_dbl(o, "common_rho", sg->common_rho);
			js_i64(o, "common_delay", sg->common_delay);
		}
		if (sg->stuck_mask != 0) {
			/* quick look's figures do not model a stuck bit: none vouched */
			js_u64(o, "stuck_mask", sg->stuck_mask);
			js_u64(o, "stuck_value", sg->stuck_val);
			continue;
		}
		x = js_obj(o, "expected");
		js_dbl(x, "mean_re", m[0]);
		js_dbl(x, "mean_im", m[1]);
		js_dbl(x, "power", pw);
		js_dbl(x, "saturated", sat);
		js_dbl(x, "zero", zero);
		js_dbl(x, "sd_mean", sd_m);
		js_dbl(x, "sd_power", sd_p);
		js_dbl(x, "sd_saturated", sd_s);
		js_dbl(x, "sd_zero", sd_z);
		/* what lib/quicklook's verdict must say of it */
		js_str(x, "state", sg->kind == CODIF_SIGNAL_DEAD ? "dead" :
			   sg->kind == CODIF_SIGNAL_SATURATED && e.nbits != 1 ? "saturated" :
			   "ok");
	}
}

static json_t *
vouched(unsigned int scope)
{
	json_t *a = json_array();
	unsigned int k;

	for (k = 0; k < stats_counts.n; k++) {
		const struct stats_field *f = &stats_counts.f[k];
		char key[64];

		if (!stats_in(f, scope) || strcmp(f->name, "too_late") == 0 ||
		    f->type == STATS_ARRAY)
			continue;
		if (f->type == STATS_TIME) {
			snprintf(key, sizeof(key), "%s_utc", f->name);
			js_str(a, NULL, key);
		} else {
			js_str(a, NULL, f->name);
		}
	}
	return a;
}

void
gen_truth(const struct gen *g, unsigned int si, struct gen_truth *t)
{
	const struct gen_stream *s = &g->st[si];
	struct codif_hdr h;

	*t = s->t;
	events_truth(g, s, t);
	/* a run cut short ends at the newest frame sent */
	if (s->max_valid >= 0) {
		gen_frame_hdr(g, si, s->max_valid, &h);
		t->c.last_ns = codif_frame_time_ns(&h);
	}
}

int
gen_truth_json(const struct gen *g, FILE *f)
{
	const struct gen_cfg *c = &g->cfg;
	struct gen_truth tot, ant[GEN_MAX_ANTENNAS];
	json_t *root = json_object(), *o, *x, *arr;
	char ip[16], st[3];
	unsigned int i, fl;
	int rc;

	truth_zero(&tot);
	for (i = 0; i < GEN_MAX_ANTENNAS; i++)
		truth_zero(&ant[i]);
	js_str(root, "generator", "codifgen");
	o = js_obj(root, "config");
	js_u64(o, "seed", c->seed);
	js_u64(o, "antennas", c->nant);
	js_u64(o, "threads", c->nthread);
	js_u64(o, "groups", c->ngroup);
	js_u64(o, "frames_per_stream", c->frames);
	js_u64(o, "data_bytes", codif_data_bytes(&c->tmpl));
	js_u64(o, "nchan", c->tmpl.nchan);
	js_u64(o, "nbits", c->tmpl.nbits);
	js_bool(o, "complex", c->tmpl.complex);
	js_u64(o, "period", c->tmpl.period);
	js_u64(o, "totalsamples", c->tmpl.totalsamples);
	js_u64(o, "frames_per_period", codif_frames_per_period(&c->tmpl));
	js_u64(o, "frame_ns", g->frame_ns);
	js_u64(o, "epoch", c->tmpl.epoch);
	codif_station_str(c->tmpl.stationid, st);
	js_str(o, "station", st);
	js_u64(o, "reorder_depth", c->depth);
	x = js_obj(o, "probabilities");
	for (fl = GEN_F_LOSS; fl < GEN_F__COUNT; fl++)
		js_dbl(x, gen_fault_name((enum gen_fault)fl), c->p[fl]);
	js_dbl(x, "reorder", c->p_reorder);
	/* what the truth assumes of the receivers */
	x = js_obj(o, "receiver");
	js_u64(x, "window", g->tl.window);
	js_u64(x, "reorder_window", g->tl.ahead);
	js_u64(x, "confirm", g->tl.confirm);
	js_u64(x, "max_gap_ns", g->tl.max_gap_ns);
	js_u64(x, "max_gap_frames", g->max_gap);

	/* the counters a receiver's counts must equal (lib/stats' names) */
	o = js_obj(root, "counters");
	json_object_set_new(o, "stream", vouched(STATS_STREAM));
	json_object_set_new(o, "antenna", vouched(STATS_ANTENNA));

	/* the timeline events, and each odd frame they sent (its header, so a
	 * checker can tell it from the good frames) */
	arr = js_arr(root, "events");
	for (i = 0; i < c->nev; i++) {
		const struct gen_event *e = &c->ev[i];
		unsigned int si;
		json_t *odd;

		o = js_obj(arr, NULL);
		js_str(o, "kind", gen_event_kind_name(e->kind));
		js_i64(o, "frame", e->at);
		js_i64(o, "antenna", e->ant);
		js_i64(o, "stream", e->stream);
		js_bool(o, "extra", e->extra);
		if (e->kind == GEN_EV_STEP || e->kind == GEN_EV_STRAY)
			js_i64(o, "shift_frames", e->shift);
		if (e->kind == GEN_EV_BURST)
			js_u64(o, "frames", e->value);
		if (e->kind == GEN_EV_FLIP || e->kind == GEN_EV_PARAM)
			js_str(o, "field", e->field);
		odd = js_arr(o, "odd_frames");
		for (si = 0; si < g->nstream && (e->kind == GEN_EV_FLIP || e->kind == GEN_EV_STRAY);
		     si++) {
			const struct gen_stream *s = &g->st[si];
			struct codif_hdr h;
			uint8_t b[CODIF_HDR_LEN];
			char hex[2 * CODIF_HDR_LEN + 1];

			if (!selected(g, s) || !ev_applies(e, s))
				continue;
			ev_odd_hdr(g, si, e, &h);
			codif_encode(&h, b);
			str_hex(b, CODIF_HDR_LEN, hex);
			x = js_obj(odd, NULL);
			js_str(x, "src", ipv4_str(c->ant_ip[s->ant], ip, sizeof(ip)));
			js_u64(x, "threadid", s->hdr.threadid);
			js_u64(x, "groupid", s->hdr.groupid);
			js_u64(x, "secondaryid", s->hdr.secondaryid);
			js_str(x, "header", hex);
		}
	}

	arr = js_arr(root, "streams");
	for (i = 0; i < g->nstream; i++) {
		const struct gen_stream *s = &g->st[i];
		struct gen_truth t;

		if (!selected(g, s))
			continue;
		gen_truth(g, i, &t);
		truth_add(&ant[s->ant], &t);
		ant[s->ant].c.streams++;
		/* a resync of the timeline moves all of the antenna's streams */
		if (t.c.resyncs > ant[s->ant].c.timeline_resyncs)
			ant[s->ant].c.timeline_resyncs = t.c.resyncs;
		o = js_obj(arr, NULL);
		js_u64(o, "antenna", s->ant);
		js_str(o, "src", ipv4_str(c->ant_ip[s->ant], ip, sizeof(ip)));
		js_str(o, "dst", ipv4_str(c->group[s->group].ip, ip, sizeof(ip)));
		js_u64(o, "port", c->group[s->group].port);
		codif_station_str(s->hdr.stationid, st);
		js_str(o, "station", st);
		js_u64(o, "groupid", s->hdr.groupid);
		js_u64(o, "secondaryid", s->hdr.secondaryid);
		js_u64(o, "threadid", s->hdr.threadid);
		truth_fields(o, &t, STATS_STREAM);
		x = js_obj(o, "faults");
		for (fl = GEN_F_LOSS; fl < GEN_F__COUNT; fl++)
			js_u64(x, gen_fault_name((enum gen_fault)fl), s->t.fault[fl]);
	}

	arr = js_arr(root, "antennas");
	for (i = 0; i < c->nant; i++) {
		if (ant[i].c.streams == 0)
			continue;
		o = js_obj(arr, NULL);
		js_u64(o, "antenna", i);
		js_str(o, "src", ipv4_str(c->ant_ip[i], ip, sizeof(ip)));
		truth_fields(o, &ant[i], STATS_ANTENNA);
		truth_add(&tot, &ant[i]);
	}

	o = js_obj(root, "totals");
	truth_fields(o, &tot, STATS_ANTENNA);
	if (c->sig_mask != 0) {
		signal_json(c, js_arr(root, "signal"));
		fringe_json(c, js_arr(root, "fringe"));
	}
	rc = js_write(root, f, true);
	json_decref(root);
	return rc;
}

void
gen_layout(const struct gen_cfg *c, struct acct_layout *l)
{
	unsigned int i;

	memset(l, 0, sizeof(*l));
	l->nthread = c->nthread;
	l->nant = c->nant;
	for (i = 0; i < c->nant; i++)
		l->ant_ip[i] = c->ant_ip[i];
	l->ngroup = c->ngroup;
	for (i = 0; i < c->ngroup; i++) {
		l->group[i].ip = c->group[i].ip;
		l->group[i].port = c->group[i].port;
	}
}
