/* SPDX-License-Identifier: BSD-3-Clause */
/* The timeline and stream trackers: each stream's frames classed (in
 * order, late, duplicate, suspect...) by its frame index, the antenna's
 * timeline that confirms resyncs and outages, and the actions (held frames
 * released or dropped) a caller runs. The per-frame path (codif_seq_push*)
 * lives here whole, with its helpers. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codif.h"
#include "codif_int.h"

void
codif_tl_cfg_defaults(struct codif_tl_cfg *c)
{
	c->window = CODIF_SEQ_WINDOW_DEFAULT;
	c->ahead = CODIF_AHEAD_DEFAULT;
	c->confirm = CODIF_CONFIRM_DEFAULT;
	c->max_gap_ns = CODIF_MAX_GAP_NS_DEFAULT;
}

int
codif_tl_cfg_check(const struct codif_tl_cfg *c, char *err, size_t len)
{
	if (c->window < 64 || c->window > (1u << 30) || (c->window & (c->window - 1)) != 0) {
		codif_seterr(err, len, "window of %" PRIu32 " frames, expected a power of two 64..2^30",
		       c->window);
		return -EINVAL;
	}
	if (c->ahead < 1 || c->ahead > c->window) {
		codif_seterr(err, len, "reorder window of %" PRIu32 " frames, expected 1..%" PRIu32
		       " (the window)", c->ahead, c->window);
		return -EINVAL;
	}
	if (c->confirm < 2 || c->confirm > CODIF_MAX_CONFIRM) {
		codif_seterr(err, len, "confirm %" PRIu32 ", expected 2..%d agreeing frames",
		       c->confirm, CODIF_MAX_CONFIRM);
		return -EINVAL;
	}
	if (c->max_gap_ns < 1000) {
		codif_seterr(err, len, "max gap %" PRIu64 " ns, expected at least 1 us",
		       c->max_gap_ns);
		return -EINVAL;
	}
	return 0;
}

int
codif_tl_init(struct codif_tl *t, const struct codif_tl_cfg *cfg)
{
	struct codif_tl_cfg d;

	memset(t, 0, sizeof(*t));
	codif_tl_cfg_defaults(&d);
	t->cfg = d;
	if (cfg != NULL) {
		/* a field left 0 takes its default */
		if (cfg->window)
			t->cfg.window = cfg->window;
		if (cfg->ahead)
			t->cfg.ahead = cfg->ahead;
		if (cfg->confirm)
			t->cfg.confirm = cfg->confirm;
		if (cfg->max_gap_ns)
			t->cfg.max_gap_ns = cfg->max_gap_ns;
	}
	if (codif_tl_cfg_check(&t->cfg, NULL, 0) != 0)
		return -EINVAL;
	return 0;
}

void
codif_tl_free(struct codif_tl *t)
{
	free(t->act);
	t->act = NULL;
	t->clist = NULL;
	t->nact = t->iact = t->capact = 0;
}

int
codif_seq_init(struct codif_seq *s, const struct codif_tl *t)
{
	uint32_t w = t->cfg.window ? t->cfg.window : CODIF_SEQ_WINDOW_DEFAULT;

	memset(s, 0, sizeof(*s));
	s->window = w;
	s->seen = calloc(w / 64, sizeof(uint64_t));
	if (s->seen == NULL)
		return -ENOMEM;
	return 0;
}

void
codif_seq_free(struct codif_seq *s)
{
	free(s->seen);
	free(s->cand[0]);
	free(s->cand[1]);
	s->seen = NULL;
	s->cand[0] = s->cand[1] = NULL;
}

bool
codif_params_equal(const struct codif_hdr *ref, const struct codif_hdr *h,
		   char *errbuf, size_t errlen)
{
#define CHK(f, fmt)                                                         \
	do {                                                                \
		if (ref->f != h->f) {                                       \
			codif_seterr(errbuf, errlen,                              \
			       "parameter change: " #f " %" fmt             \
			       ", expected %" fmt " (the stream's first frame)", \
			       h->f, ref->f);                               \
			return false;                                       \
		}                                                           \
	} while (0)
	CHK(nchan, "u");
	CHK(nbits, "u");
	CHK(complex, "d");
	CHK(representation, "u");
	CHK(period, "u");
	CHK(totalsamples, PRIu64);
	CHK(epoch, "u");
	CHK(framelength8, PRIu32);
#undef CHK
	return true;
}

uint64_t
codif_seq_expected(const struct codif_seq *s)
{
	return s->closed + (s->started ? (uint64_t)(s->end - s->first + 1) : 0);
}

void
codif_seq_malformed(struct codif_seq *s)
{
	s->st.malformed++;
}

void
codif_seq_unreceive(struct codif_seq *s, enum codif_seq_class cls, bool invalid,
		    uint32_t frame_bytes)
{
	if (s->st.received == 0)
		return;
	s->st.received--;
	s->st.lost++;
	s->st.too_late++;
	s->st.bytes -= frame_bytes;
	if (invalid && s->st.invalid > 0)
		s->st.invalid--;
	if (cls == CODIF_SEQ_LATE && s->st.late > 0)
		s->st.late--;
}

static inline bool
seen_test(const struct codif_seq *s, int64_t n)
{
	uint64_t i = (uint64_t)n & (s->window - 1);

	return (s->seen[i / 64] >> (i % 64)) & 1;
}

static inline void
seen_set(struct codif_seq *s, int64_t n)
{
	uint64_t i = (uint64_t)n & (s->window - 1);

	s->seen[i / 64] |= 1ULL << (i % 64);
}

/* Clear the bits of indices (from, to]: they now map fresh frames. */
static void
seen_clear_range(struct codif_seq *s, int64_t from, int64_t to)
{
	int64_t n;

	if (to - from >= (int64_t)s->window) {
		memset(s->seen, 0, s->window / 8);
		return;
	}
	for (n = from + 1; n <= to; n++) {
		uint64_t i = (uint64_t)n & (s->window - 1);

		if ((i & 63) == 0 && n + 63 <= to) {
			s->seen[i / 64] = 0;
			n += 63;
			continue;
		}
		s->seen[i / 64] &= ~(1ULL << (i % 64));
	}
}

/* Exact start time of frame (seconds, frame) and the remainder of
 * frame * period_ns / FPP (for stepping). */
static int64_t
clk_time(const struct codif_clock *c, uint32_t seconds, uint32_t frame, uint64_t *rem)
{
	unsigned __int128 x = (unsigned __int128)frame * c->period_ns;

	*rem = (uint64_t)(x % c->fpp);
	return c->epoch_ns + (int64_t)seconds * 1000000000LL + (int64_t)(x / c->fpp);
}

/* Make frame n (header h) the stream's newest: its time by one exact step
 * from the previous newest when consecutive (no division), else anew. */
static void
set_newest(const struct codif_clock *c, struct codif_seq *s, const struct codif_hdr *h,
	   int64_t n)
{
	if (n == s->newest + 1 && h->seconds == s->newest_sec && h->frame != 0) {
		s->newest_time_ns += (int64_t)c->step_q;
		s->newest_rem += c->step_r;
		if (s->newest_rem >= c->fpp) {
			s->newest_rem -= c->fpp;
			s->newest_time_ns++;
		}
	} else {
		s->newest_time_ns = clk_time(c, h->seconds, h->frame, &s->newest_rem);
	}
	s->newest = n;
	s->newest_sec = h->seconds;
}

/* ---- actions ---- */

static struct codif_act *
act_push(struct codif_tl *t)
{
	if (t->iact == t->nact)
		t->iact = t->nact = 0;
	if (t->nact == t->capact) {
		uint32_t nc = t->capact ? t->capact * 2 : 2 * CODIF_MAX_CONFIRM;
		struct codif_act *v = realloc(t->act, nc * sizeof(*v));

		if (v == NULL)
			return NULL;
		t->act = v;
		t->capact = nc;
	}
	return &t->act[t->nact++];
}

static void
drop_hold(struct codif_tl *t, const struct codif_hold *k, enum codif_drop why)
{
	struct codif_act *a;

	if (why == CODIF_DROP_PARAMS)
		k->s->st.param_change++;
	else
		k->s->st.implausible++;
	a = act_push(t);
	if (a == NULL) {
		t->err = -ENOMEM; /* the caller keeps the frame: it leaks, counted */
		return;
	}
	memset(a, 0, sizeof(*a));
	a->handle = k->handle;
	a->aux = k->aux;
	a->s = k->s;
	a->drop = true;
	a->why = why;
	a->h = k->h;
}

static void
cand_drop(struct codif_tl *t, struct codif_cand *c)
{
	uint32_t i;

	if (c == NULL || c->n == 0)
		return;
	for (i = 0; i < c->n; i++)
		drop_hold(t, &c->hold[i], c->kind);
	c->n = 0;
	if (t->pending == c)
		t->pending = NULL;
}

/* Whether stream s holds timeline suspects (then it is on t's list). */
static bool
has_tl_cand(const struct codif_seq *s)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (s->cand[i] != NULL && s->cand[i]->n > 0 && s->cand[i]->timeline)
			return true;
	return false;
}

static void
list_add(struct codif_tl *t, struct codif_seq *s)
{
	if (s->listed)
		return;
	s->listed = true;
	s->cnext = t->clist;
	t->clist = s;
}

/* ---- taking a frame into its stream ---- */

/* The stream's first frame in a new segment (of the timeline, or its own
 * with new parameters): the old one is closed first. */
static void
seg_start(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h, int64_t n,
	  uint32_t bytes, struct codif_out *o)
{
	uint8_t flags = CODIF_OUT_SEG_START;

	s->renew = false;
	if (s->started) {
		int64_t end = s->end;

		if (s->seg != t->seg) {
			/* its timeline resynced: the segment ran to the
			 * timeline's newest there; what it lacked is lost */
			if (s->seg + 1 == t->seg && t->prev_newest > end) {
				o->tail = (uint64_t)(t->prev_newest - end);
				s->st.lost += o->tail;
				end = t->prev_newest;
			}
			flags |= CODIF_OUT_RESYNC;
			s->st.resyncs++;
			if (t->last.skipped > 0 && t->last.seg == t->seg && n > end)
				s->st.resync_skipped += (uint64_t)(n - end - 1);
		} else if (n > end + 1) {
			/* new parameters on the same clock: the frames between
			 * were expected and did not come */
			s->st.lost += (uint64_t)(n - end - 1);
			s->closed += (uint64_t)(n - end - 1);
			s->st.gaps++;
		}
		s->closed += (uint64_t)(end - s->first + 1);
		if (!codif_params_equal(&s->ref, h, NULL, 0)) {
			flags |= CODIF_OUT_NEW_PARAMS;
			s->st.new_params++;
		}
	}
	s->started = true;
	s->have_ref = true;
	s->seg = t->seg;
	s->ref = *h;
	s->ref_gen++;
	s->fpp = t->clk.fpp;
	s->first = n;
	s->end = n;
	memset(s->seen, 0, s->window / 8);
	s->newest = n - 2; /* not consecutive: time computed anew */
	set_newest(&t->clk, s, h, n);
	if (s->st.received == 0 && s->closed == 0 && !(flags & CODIF_OUT_RESYNC))
		s->first_time_ns = s->newest_time_ns;
	seen_set(s, n);
	s->st.received++;
	s->st.bytes += bytes;
	if (h->invalid)
		s->st.invalid++;
	o->cls = CODIF_SEQ_FIRST;
	o->flags = flags;
}

/* The timeline advanced: timeline suspects grow older; those that have seen
 * `confirm` advances since their first frame lose (the old timeline lives). */
static void
age_timeline(struct codif_tl *t)
{
	struct codif_seq **pp = &t->clist;

	while (*pp != NULL) {
		struct codif_seq *s = *pp;
		unsigned int i;

		for (i = 0; i < 2; i++) {
			struct codif_cand *c = s->cand[i];

			if (c != NULL && c->n > 0 && c->timeline && ++c->age >= t->cfg.confirm)
				cand_drop(t, c);
		}
		if (!has_tl_cand(s)) {
			*pp = s->cnext;
			s->listed = false;
			s->cnext = NULL;
		} else {
			pp = &s->cnext;
		}
	}
}

/* The stream advanced: its own suspects (new parameters) grow older. */
static void
age_stream(struct codif_tl *t, struct codif_seq *s)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct codif_cand *c = s->cand[i];

		if (c != NULL && c->n > 0 && !c->timeline && ++c->age >= t->cfg.confirm)
			cand_drop(t, c);
	}
}

static void
accept(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h, int64_t n,
       uint32_t bytes, int64_t arr, struct codif_out *o)
{
	int64_t d;

	o->index = n;
	o->seg = t->seg;
	o->nlost = 0;
	o->tail = 0;
	o->flags = 0;
	if (!s->started || s->seg != t->seg || s->renew) {
		seg_start(t, s, h, n, bytes, o);
		goto advanced;
	}
	d = n - s->newest;
	if (d > 0) {
		o->cls = CODIF_SEQ_IN_ORDER;
		if (d > 1) {
			o->nlost = (uint64_t)(d - 1);
			s->st.lost += o->nlost;
			s->st.gaps++;
			o->cls = CODIF_SEQ_GAP;
		}
		seen_clear_range(s, s->newest, n);
		set_newest(&t->clk, s, h, n);
		if (n > s->end)
			s->end = n;
		seen_set(s, n);
		s->st.received++;
		s->st.bytes += bytes;
		if (h->invalid)
			s->st.invalid++;
		if (unlikely(s->cand[0] != NULL || s->cand[1] != NULL))
			age_stream(t, s);
		goto advanced;
	}
	if (-d >= (int64_t)s->window) {
		s->st.too_late++;
		o->cls = CODIF_SEQ_TOO_LATE;
		return;
	}
	if (d == 0 || seen_test(s, n)) {
		s->st.duplicate++;
		o->cls = CODIF_SEQ_DUPLICATE;
		return;
	}
	if (n < s->first) {
		/* older than anything so far yet within the window: the
		 * stream started earlier than its first arrival said, and the
		 * frames between it and the old first are now lost */
		uint64_t rem;

		o->nlost = (uint64_t)(s->first - n - 1);
		s->st.lost += o->nlost;
		s->first = n;
		if (s->closed == 0 && s->st.resyncs == 0 && s->st.new_params == 0)
			s->first_time_ns = clk_time(&t->clk, h->seconds, h->frame, &rem);
	} else {
		s->st.lost--;
	}
	seen_set(s, n);
	s->st.late++;
	s->st.received++;
	s->st.bytes += bytes;
	if (h->invalid)
		s->st.invalid++;
	o->cls = CODIF_SEQ_LATE;
	return;
advanced:
	if (n > t->newest) {
		t->newest = n;
		t->newest_arr = arr;
		if (h->seconds != t->hint_sec) {
			t->hint_sec = h->seconds;
			t->hint_base = n - (int64_t)h->frame;
		}
		if (unlikely(t->clist != NULL))
			age_timeline(t);
	}
}

/* Release held frames, in frame order (equal indices of several streams
 * keep their arrival order), as if they had just arrived. */
static void
release(struct codif_tl *t, struct codif_hold *v, uint32_t n)
{
	uint32_t i, j;

	for (i = 1; i < n; i++) {
		struct codif_hold k = v[i];

		for (j = i; j > 0 && v[j - 1].index > k.index; j--)
			v[j] = v[j - 1];
		v[j] = k;
	}
	for (i = 0; i < n; i++) {
		struct codif_act *a = act_push(t);
		struct codif_out o;

		memset(&o, 0, sizeof(o));
		accept(t, v[i].s, &v[i].h, v[i].index, v[i].bytes, v[i].arrival_ns, &o);
		if (a == NULL) {
			t->err = -ENOMEM;
			continue;
		}
		memset(a, 0, sizeof(*a));
		a->handle = v[i].handle;
		a->aux = v[i].aux;
		a->s = v[i].s;
		a->h = v[i].h;
		a->out = o;
	}
}

/* After the timeline moved: the held frames of every stream that fit it
 * now (its clock, within the windows) are taken out of their sets and
 * appended to *v (n of cap, grown). */
static void
gather(struct codif_tl *t, struct codif_hold **v, uint32_t *n, uint32_t *cap)
{
	struct codif_seq *s;

	for (s = t->clist; s != NULL; s = s->cnext) {
		unsigned int i;

		for (i = 0; i < 2; i++) {
			struct codif_cand *c = s->cand[i];
			uint32_t k, keep = 0;

			if (c == NULL || c->n == 0 || !c->timeline ||
			    !codif_clock_equal(&c->clk, &t->clk))
				continue;
			for (k = 0; k < c->n; k++) {
				int64_t d = c->hold[k].index - t->newest;

				if (d > (int64_t)t->cfg.ahead || d <= -(int64_t)t->cfg.window) {
					c->hold[keep++] = c->hold[k];
					continue;
				}
				if (*n == *cap) {
					uint32_t nc = *cap * 2;
					struct codif_hold *x = realloc(*v, nc * sizeof(*x));

					if (x == NULL) {
						/* no room: it stays held (and ages out) */
						t->err = -ENOMEM;
						c->hold[keep++] = c->hold[k];
						continue;
					}
					*v = x;
					*cap = nc;
				}
				(*v)[(*n)++] = c->hold[k];
			}
			c->n = keep;
			if (c->n == 0 && t->pending == c)
				t->pending = NULL;
		}
	}
}

/* A confirmed jump ahead on the timeline's clock: loss when it skips at
 * most max_gap; beyond, an outage (the frames in between lost) when the
 * data time it skips agrees with the time that passed between the
 * arrivals of the newest frame before it and the first held frame after
 * it, within max_gap_ns plus 100 ppm of that time (see struct
 * codif_tl_cfg); else a clock step. Without arrival times the time that
 * passed counts as 0. */
static bool
outage(struct codif_tl *t, const struct codif_cand *c)
{
	const struct codif_hold *k = &c->hold[0]; /* the first to arrive */
	unsigned __int128 data;
	int64_t arr = 0;
	uint64_t tol = t->cfg.max_gap_ns, d;

	/* at most max_gap skipped: loss, whatever the arrival times (a
	 * receiver descheduled for a second must not turn a short gap into a
	 * resync); arrival times only make a longer jump an outage */
	if ((uint64_t)(c->lo - t->newest - 1) <= t->max_gap)
		return true;
	data = (unsigned __int128)(uint64_t)(k->index - t->newest) * t->clk.period_ns /
	       t->clk.fpp;
	if (k->arrival_ns != CODIF_NO_ARRIVAL && t->newest_arr != CODIF_NO_ARRIVAL &&
	    k->arrival_ns > t->newest_arr)
		arr = k->arrival_ns - t->newest_arr;
	tol += (uint64_t)arr / 10000;
	d = data > (unsigned __int128)arr ? (data - (unsigned __int128)arr > UINT64_MAX ?
					       UINT64_MAX : (uint64_t)(data - (unsigned __int128)arr)) :
					    (uint64_t)arr - (uint64_t)data;
	if (d > tol)
		return false;
	{
		/* longer than max_gap: counted as an outage for the log */
		t->outages++;
		t->last_outage.old_ns = codif_clock_time_ns(&t->clk, t->newest);
		t->last_outage.new_ns = codif_clock_time_ns(&t->clk, c->lo);
		t->last_outage.frames = c->lo - t->newest - 1;
		t->last_outage.arrival_gap_ns = arr;
	}
	return true;
}

static void
confirm(struct codif_tl *t, struct codif_cand *c)
{
	uint32_t n = c->n, cap = 4 * CODIF_MAX_CONFIRM;
	struct codif_hold *v = malloc(cap * sizeof(*v));
	int64_t first = c->lo;

	if (v == NULL) {
		t->err = -ENOMEM;
		return; /* stays held: ages out, counted */
	}
	memcpy(v, c->hold, n * sizeof(v[0]));
	c->n = 0;
	if (!c->timeline) {
		/* a stream's new parameters on the same clock: its next
		 * segment starts at the first of them */
		v[0].s->renew = true;
		release(t, v, n);
		free(v);
		return;
	}
	if (!c->new_clock && first > t->newest && outage(t, c)) {
		/* the same timeline, frames lost in between: a gap; the
		 * timeline stands just before the first of them */
		t->newest = first - 1;
	} else {
		t->last.seg = t->seg + 1;
		t->last.new_clock = c->new_clock;
		t->last.old_ns = codif_clock_time_ns(&t->clk, t->newest);
		t->last.new_ns = codif_clock_time_ns(&c->clk, first);
		t->last.skipped = !c->new_clock && first > t->newest ? first - t->newest - 1 : 0;
		t->prev_newest = t->newest;
		t->seg++;
		t->resyncs++;
		t->clk = c->clk;
		t->max_gap = codif_clock_frames_in(&t->clk, t->cfg.max_gap_ns);
		/* the first released frame advances it (and the hint) */
		t->newest = first - 1;
		t->hint_sec = UINT32_MAX;
	}
	/* the other streams' frames held for the same move go with it: all
	 * released in one batch, in frame order */
	gather(t, &v, &n, &cap);
	release(t, v, n);
	free(v);
}

void
codif_tl_run(struct codif_tl *t)
{
	struct codif_cand *c = t->pending;

	if (c == NULL)
		return;
	t->pending = NULL;
	if (c->n >= t->cfg.confirm)
		confirm(t, c);
}

bool
codif_tl_action(struct codif_tl *t, struct codif_act *a)
{
	codif_tl_run(t);
	if (t->iact >= t->nact) {
		t->iact = t->nact = 0;
		return false;
	}
	*a = t->act[t->iact++];
	return true;
}

/* Whether stream s already holds frame n in c. */
static bool
cand_holds(const struct codif_cand *c, int64_t n)
{
	uint32_t i;

	for (i = 0; i < c->n; i++)
		if (c->hold[i].index == n)
			return true;
	return false;
}

/* Does a suspect (clock clk, index n, header h) agree with candidate c?
 * It must go on from the set's newest frame, at most `confirm` frames on:
 * a stream really on another timeline sends its frames in order there;
 * stragglers (reordering beyond the window) and bit flips do not. */
static bool
cand_agrees(const struct codif_tl *t, const struct codif_cand *c, bool timeline,
	    const struct codif_clock *clk, const struct codif_hdr *h, int64_t n)
{
	return c != NULL && c->n > 0 && c->timeline == timeline &&
	       codif_clock_equal(&c->clk, clk) && codif_params_equal(&c->hold[0].h, h, NULL, 0) &&
	       n > c->hi && n <= c->hi + (int64_t)t->cfg.confirm;
}

/* Hold a frame of stream s aside. timeline: a suspect of the timeline
 * (time, clock); else of the stream alone (new parameters, same clock). A
 * stream keeps two sets of agreeing suspects; a third kind pushes out the
 * weaker set (dropped, counted). */
static void
suspect(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h, uint32_t bytes,
	int64_t arr, const struct codif_clock *clk, int64_t n, enum codif_drop kind,
	bool timeline, struct codif_out *o)
{
	struct codif_cand *c = NULL;
	struct codif_hold *k;
	unsigned int i;

	o->cls = CODIF_SEQ_SUSPECT;
	o->index = n;
	o->seg = t->seg;
	for (i = 0; i < 2 && c == NULL; i++)
		if (cand_agrees(t, s->cand[i], timeline, clk, h, n))
			c = s->cand[i];
	if (c == NULL) {
		for (i = 0; i < 2 && c == NULL; i++) {
			if (s->cand[i] == NULL)
				s->cand[i] = calloc(1, sizeof(*s->cand[i]));
			if (s->cand[i] != NULL && s->cand[i]->n == 0)
				c = s->cand[i];
		}
		if (c == NULL && s->cand[0] != NULL && s->cand[1] != NULL) {
			struct codif_cand *x = s->cand[0], *y = s->cand[1];

			c = x->n < y->n || (x->n == y->n && x->age >= y->age) ? x : y;
			cand_drop(t, c);
		}
		if (c == NULL)
			goto nomem;
		c->n = 0;
		c->age = 0;
		c->kind = kind;
		c->timeline = timeline;
		c->clk = *clk;
		c->new_clock = timeline && !codif_clock_equal(clk, &t->clk);
	}
	if (cand_holds(c, n)) {
		/* a second copy of a held frame */
		s->st.duplicate++;
		o->cls = CODIF_SEQ_DUPLICATE;
		return;
	}
	k = &c->hold[c->n++];
	memset(k, 0, sizeof(*k));
	k->s = s;
	k->h = *h;
	k->index = n;
	k->arrival_ns = arr;
	k->bytes = bytes;
	if (c->n == 1 || n < c->lo)
		c->lo = n;
	if (c->n == 1 || n > c->hi)
		c->hi = n;
	/* age counts from the set's first frame, not its latest: when the
	 * timeline really moved its old frames stop; while they keep coming
	 * (reordering, a stray) the set cannot win */
	if (timeline)
		list_add(t, s);
	o->hold = k;
	if (c->n >= t->cfg.confirm) {
		/* confirmed: done when the caller has stored this frame's
		 * handle, at its next codif_tl_action */
		t->pending = c;
	}
	return;
nomem:
	/* cannot hold it: dropped at once (hold NULL), counted */
	t->err = -ENOMEM;
	if (kind == CODIF_DROP_PARAMS)
		s->st.param_change++;
	else
		s->st.implausible++;
}

/* same: 1 h has s->ref's parameters (the caller compared), 0 it has not,
 * -1 unknown */
static inline void
push(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h, uint32_t bytes,
     int same, int64_t arr, struct codif_out *o)
{
	struct codif_clock hc;
	int64_t n, d;

	o->hold = NULL;
	o->flags = 0;
	o->nlost = 0;
	o->tail = 0;
	if (unlikely(t->pending != NULL))
		codif_tl_run(t); /* a confirmation the caller did not take yet */
	if (!t->started) {
		if (codif_clock_init(&t->clk, h) != 0) {
			o->cls = CODIF_SEQ_MALFORMED;
			return;
		}
		if (!codif_clock_index(&t->clk, h->seconds, h->frame, &n)) {
			o->cls = CODIF_SEQ_MALFORMED; /* beyond 63 bits */
			return;
		}
		t->started = true;
		t->newest = n;
		t->prev_newest = n;
		t->max_gap = codif_clock_frames_in(&t->clk, t->cfg.max_gap_ns);
		t->hint_sec = h->seconds;
		t->hint_base = n - (int64_t)h->frame;
		t->newest_arr = arr;
		accept(t, s, h, n, bytes, arr, o);
		return;
	}
	if (same < 0)
		same = s->have_ref && codif_params_equal(&s->ref, h, NULL, 0);
	if (likely(s->started && s->seg == t->seg && same)) {
		/* the common case: the stream's parameters, the timeline's
		 * clock; the index without a division in the newest period
		 * or the next */
		if (h->seconds == t->hint_sec)
			n = t->hint_base + h->frame;
		else if (h->seconds == t->hint_sec + t->clk.period)
			n = t->hint_base + (int64_t)t->clk.fpp + h->frame;
		else if (!codif_clock_index(&t->clk, h->seconds, h->frame, &n))
			goto other_clock; /* off the grid */
	} else {
		if (codif_clock_init(&hc, h) != 0) {
			o->cls = CODIF_SEQ_MALFORMED;
			return;
		}
		if (!codif_clock_equal(&hc, &t->clk) ||
		    !codif_clock_index(&t->clk, h->seconds, h->frame, &n))
			goto other_clock;
		if (s->started && s->seg == t->seg) {
			/* the timeline's clock, other parameters: the stream's
			 * own suspect (a lone odd frame, or new parameters) */
			d = n - t->newest;
			if (d > (int64_t)t->cfg.ahead || d <= -(int64_t)t->cfg.window)
				goto implausible;
			suspect(t, s, h, bytes, arr, &hc, n, CODIF_DROP_PARAMS, false, o);
			return;
		}
	}
	d = n - t->newest;
	if (d > (int64_t)t->cfg.ahead || d <= -(int64_t)t->cfg.window)
		goto implausible;
	accept(t, s, h, n, bytes, arr, o);
	return;
implausible:
	suspect(t, s, h, bytes, arr, &t->clk, n, CODIF_DROP_TIME, true, o);
	return;
other_clock:
	if (codif_clock_init(&hc, h) != 0) {
		o->cls = CODIF_SEQ_MALFORMED;
		return;
	}
	if (!codif_clock_index(&hc, h->seconds, h->frame, &n))
		n = 0; /* beyond 63 bits: agrees with nothing real */
	suspect(t, s, h, bytes, arr, &hc, n,
		s->have_ref && !same ? CODIF_DROP_PARAMS : CODIF_DROP_TIME, true, o);
}

void
codif_seq_push(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h,
	       uint32_t bytes, struct codif_out *o)
{
	push(t, s, h, bytes, -1, CODIF_NO_ARRIVAL, o);
}

void
codif_seq_push_at(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h,
		  uint32_t bytes, int64_t arrival_ns, struct codif_out *o)
{
	push(t, s, h, bytes, -1, arrival_ns, o);
}

void
codif_seq_push_same(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h,
		    uint32_t bytes, bool same, int64_t arrival_ns, struct codif_out *o)
{
	push(t, s, h, bytes, same ? 1 : 0, arrival_ns, o);
}

void
codif_tl_flush(struct codif_tl *t, struct codif_seq *const *streams, unsigned int n)
{
	unsigned int i, k;

	codif_tl_run(t);
	for (i = 0; i < n; i++) {
		struct codif_seq *s = streams[i];

		for (k = 0; k < 2; k++)
			if (s->cand[k] != NULL && s->cand[k]->n > 0)
				cand_drop(t, s->cand[k]);
		s->listed = false;
		s->cnext = NULL;
		/* the segment runs to the timeline's newest frame: what
		 * the stream lacks there is lost (its buffer slots too) */
		if (s->started && s->seg == t->seg && t->newest > s->end) {
			s->st.lost += (uint64_t)(t->newest - s->end);
			s->end = t->newest;
		}
	}
	t->clist = NULL;
}

const char *
codif_time_expected(int rc)
{
	return rc == -ERANGE ? CODIF_TIME_RANGE_EXPECTED :
	       "a UTC time such as 2025-03-10T12:00:00Z or @1741608000 "
	       "(YYYY-MM-DDThh:mm:ss[.frac]Z, or @unix-seconds[.frac])";
}

int
codif_parse_time_arg(const char *what, const char *s, int64_t *unix_ns, char *err, size_t len)
{
	int rc = codif_parse_time(s, unix_ns);

	if (rc == 0)
		return 0;
	codif_seterr(err, len, "%s: '%s': expected %s", what, s, codif_time_expected(rc));
	return -EINVAL;
}
