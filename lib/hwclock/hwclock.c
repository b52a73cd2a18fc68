/* SPDX-License-Identifier: BSD-3-Clause */
/* Calibration of a device clock against CLOCK_REALTIME (the sliding fit,
 * steps, wraps) and the publication of its fixed-point conversion. */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwclock.h"
#include "tconv.h"

void
hwclock_cfg_defaults(struct hwclock_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->counter_bits = 64;
	cfg->window = HWCLOCK_WINDOW_DEFAULT;
	cfg->min_pairs = 4;
	cfg->min_span_ns = 100 * 1000 * 1000;
	cfg->nominal_hz = 0;
	cfg->max_ppm = 1000;
	cfg->max_bracket_ns = 1000 * 1000;
	cfg->step_ns = 1000 * 1000;
	cfg->slew_ppm = 500;
	cfg->outlier_k = 5.0;
	cfg->outlier_floor_ns = 200;
}

static int
cfg_check(const struct hwclock_cfg *cfg)
{
	if (cfg->counter_bits < 8 || cfg->counter_bits > 64)
		return -EINVAL;
	if (cfg->window < 2 || cfg->window > HWCLOCK_WINDOW_MAX)
		return -EINVAL;
	if (cfg->min_pairs < 2 || cfg->min_pairs > cfg->window)
		return -EINVAL;
	if (cfg->min_span_ns < 0 || cfg->max_bracket_ns < 0 || cfg->step_ns <= 0 ||
	    cfg->outlier_floor_ns < 0)
		return -EINVAL;
	if (!(cfg->outlier_k > 0.0))
		return -EINVAL;
	return 0;
}

/* ---- the publication (a latch: readers never wait) ---- */

void
hwclock_pub_write(struct hwclock_pub *pub, const struct hwclock_conv *cv)
{
	uint64_t w[4], s;
	unsigned int k, i;

	w[0] = cv->base_ticks;
	w[1] = (uint64_t)cv->base_ns;
	w[2] = cv->mult;
	w[3] = (uint64_t)cv->shift | (uint64_t)cv->lshift << 8 |
	       (uint64_t)cv->packed << 16 | (uint64_t)(cv->valid != 0) << 24;
	/* Each copy is written while the count sends readers to the other:
	 * first slot 0 (count odd), then slot 1 (count even again). */
	s = __atomic_load_n(&pub->seq, __ATOMIC_RELAXED);
	for (k = 0; k < 2; k++) {
		uint64_t next = s + 1 + k;
		uint64_t *slot = pub->slot[(next & 1) ^ 1];

		__atomic_store_n(&pub->seq, next, __ATOMIC_RELAXED);
		/* the count is seen before any word of the copy changes */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		for (i = 0; i < 4; i++)
			__atomic_store_n(&slot[i], w[i], __ATOMIC_RELAXED);
		/* and the copy is complete before the count moves on */
		__atomic_thread_fence(__ATOMIC_RELEASE);
	}
	/* leave the count even: readers on slot 0, both copies equal */
	__atomic_store_n(&pub->seq, s + 2 + (s & 1), __ATOMIC_RELEASE);
}

void
hwclock_pub_init(struct hwclock_pub *pub)
{
	struct hwclock_conv cv;

	memset(&cv, 0, sizeof(cv));
	hwclock_pub_write(pub, &cv);
}

/* ---- the fixed-point line ---- */

int
hwclock_conv_line(struct hwclock_conv *cv, uint64_t base_ticks, int64_t base_ns,
		  double ns_per_tick, unsigned int counter_bits)
{
	unsigned int shift = 62;
	uint64_t mask;

	if (cv == NULL || !(ns_per_tick > 0.0) || !(ns_per_tick < 1073741824.0) ||
	    counter_bits < 8 || counter_bits > 64)
		return -EINVAL;
	/* the most fraction bits with mult < 2^62: then mult is the double
	 * slope exactly (53 bits, scaled by a power of two) */
	while (shift > 0 && ldexp(ns_per_tick, (int)shift) >= 4611686018427387904.0)
		shift--;
	mask = counter_bits == 64 ? UINT64_MAX : (UINT64_C(1) << counter_bits) - 1;
	memset(cv, 0, sizeof(*cv));
	cv->base_ticks = base_ticks & mask;
	cv->base_ns = base_ns;
	cv->mult = (uint64_t)ldexp(ns_per_tick, (int)shift);
	cv->shift = (uint8_t)shift;
	cv->lshift = (uint8_t)(64 - counter_bits);
	cv->valid = 1;
	return 0;
}

int
hwclock_init_rt(struct hwclock_pub *pub, bool packed, int64_t offset_ns)
{
	struct hwclock_conv cv;

	if (pub == NULL)
		return -EINVAL;
	hwclock_conv_line(&cv, 0, offset_ns, 1.0, 64);
	cv.packed = packed;
	hwclock_pub_write(pub, &cv);
	return 0;
}

/* ---- classification ---- */

static bool
near(uint64_t v, int64_t host_ns, int64_t tol_ns, int64_t *diff)
{
	int64_t d;

	if (v > (uint64_t)INT64_MAX)
		return false;
	d = (int64_t)v - host_ns;
	if (d < -tol_ns || d > tol_ns)
		return false;
	*diff = d;
	return true;
}

enum hwclock_kind
hwclock_classify(uint64_t value, int64_t host_ns, int64_t tol_ns,
		 int64_t *diff_ns)
{
	enum hwclock_kind kind = HWCLOCK_KIND_TICKS;
	int64_t d = 0;

	if (near(value, host_ns, tol_ns, &d))
		kind = HWCLOCK_KIND_UNIX_NS;
	else if ((value & UINT32_MAX) < (uint64_t)HWCLOCK_NS_PER_S &&
		 near(hwclock_rt_unpack(value), host_ns, tol_ns, &d))
		kind = HWCLOCK_KIND_PACKED;
	if (diff_ns != NULL)
		*diff_ns = kind == HWCLOCK_KIND_TICKS ? 0 : d;
	return kind;
}

const char *
hwclock_level_name(enum hwclock_level level)
{
	switch (level) {
	case HWCLOCK_UNCALIBRATED:
		return "uncalibrated";
	case HWCLOCK_PROVISIONAL:
		return "provisional";
	case HWCLOCK_CALIBRATED:
		return "calibrated";
	case HWCLOCK_REALTIME:
		return "real-time";
	}
	return "?";
}

/* ---- sampling ---- */


int
hwclock_sample_read(hwclock_read_fn read, void *arg, struct hwclock_sample *s)
{
	int ret;

	if (read == NULL || s == NULL)
		return -EINVAL;
	s->mono_ns = clock_ns(CLOCK_MONOTONIC);
	s->host_before_ns = clock_ns(CLOCK_REALTIME);
	ret = read(arg, &s->ticks);
	s->host_after_ns = clock_ns(CLOCK_REALTIME);
	/* mlx5_read_clock (DPDK 22.11) passes ibverbs' positive errno up
	 * through rte_eth_read_clock: any non-zero is a failure */
	return ret > 0 ? -ret : ret;
}

/* ---- calibration ---- */

int
hwclock_init(struct hwclock *c, const struct hwclock_cfg *cfg,
	     struct hwclock_pub *pub)
{
	struct hwclock_cfg def;

	if (c == NULL)
		return -EINVAL;
	if (cfg == NULL) {
		hwclock_cfg_defaults(&def);
		cfg = &def;
	}
	if (cfg_check(cfg) != 0)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->pub = pub;
	c->mask = cfg->counter_bits == 64 ? UINT64_MAX :
					    (UINT64_C(1) << cfg->counter_bits) - 1;
	if (cfg->nominal_hz != 0) {
		c->have_rate = true;
		c->ns_per_tick = 1e9 / (double)cfg->nominal_hz;
	}
	c->st.level = HWCLOCK_UNCALIBRATED;
	if (pub != NULL)
		hwclock_pub_init(pub);
	return 0;
}

int
hwclock_restart(struct hwclock *c)
{
	if (c == NULL)
		return -EINVAL;
	c->n = 0;
	c->held = false;
	c->have_line = false;
	return 0;
}

/* Wraps of an N-bit counter going from raw by delta ticks (delta > 0). */
static uint64_t
crossings(const struct hwclock *c, uint64_t raw, int64_t delta)
{
	unsigned int bits = c->cfg.counter_bits;

	if (delta <= 0)
		return 0;
	if (bits == 64)
		return raw + (uint64_t)delta < raw;
	return (raw + (uint64_t)delta) >> bits;
}

/*
 * Ticks from pair q to a counter value raw read at host/mono time (to add
 * to q->ext): the N-bit difference, plus the whole wraps the elapsed time
 * says were missed when a rate is known (so pairs may be further apart
 * than half a wrap, as long as the rate's error over the interval stays
 * well under half a wrap).
 */
static int64_t
unwrap(const struct hwclock *c, const struct hwclock_pair *q, uint64_t raw,
       int64_t host_ns, int64_t mono_ns)
{
	unsigned int bits = c->cfg.counter_bits;
	uint64_t dm = (raw - q->raw) & c->mask;
	double el, expect, k;

	if (bits == 64)
		return (int64_t)dm;
	/* the elapsed time by the monotonic clock when both have it: it
	 * does not step */
	el = q->mono_ns != 0 && mono_ns != 0 ? (double)(mono_ns - q->mono_ns) :
					       (double)(host_ns - q->host_ns);
	expect = c->have_rate ? el / c->ns_per_tick : 0.0;
	if (c->have_rate && fabs(expect) < 0x1p61) {
		k = nearbyint((expect - (double)dm) / ldexp(1.0, (int)bits));
		return (int64_t)(dm + ((uint64_t)(int64_t)k << bits));
	}
	/* no rate: the nearest difference, either way */
	return (int64_t)(dm << (64 - bits)) >> (64 - bits);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Least squares y = a + b x over the window, x and y from the newest pair. */
static void
fit_line(const struct hwclock *c, double *a, double *b)
{
	const struct hwclock_pair *nw = &c->win[c->n - 1];
	double sx = 0, sy = 0, sxx = 0, sxy = 0, mx, my, x, y;
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		sx += (double)(c->win[i].ext - nw->ext);
		sy += (double)(c->win[i].host_ns - nw->host_ns);
	}
	mx = sx / c->n;
	my = sy / c->n;
	for (i = 0; i < c->n; i++) {
		x = (double)(c->win[i].ext - nw->ext) - mx;
		y = (double)(c->win[i].host_ns - nw->host_ns) - my;
		sxx += x * x;
		sxy += x * y;
	}
	*b = sxx > 0 ? sxy / sxx : c->ns_per_tick;
	*a = my - *b * mx;
}

/* The offset for a given slope: the mean residual. */
static double
fit_offset(const struct hwclock *c, double b)
{
	const struct hwclock_pair *nw = &c->win[c->n - 1];
	double s = 0;
	unsigned int i;

	for (i = 0; i < c->n; i++)
		s += (double)(c->win[i].host_ns - nw->host_ns) -
		     b * (double)(c->win[i].ext - nw->ext);
	return s / c->n;
}

static double
residual(const struct hwclock *c, unsigned int i, double a, double b)
{
	const struct hwclock_pair *nw = &c->win[c->n - 1];

	return (double)(c->win[i].host_ns - nw->host_ns) -
	       (a + b * (double)(c->win[i].ext - nw->ext));
}

static void
drop_pair(struct hwclock *c, unsigned int i)
{
	memmove(&c->win[i], &c->win[i + 1], (c->n - i - 1) * sizeof(c->win[0]));
	c->n--;
}

/* Median of the pairwise slopes (Theil-Sen; the slope kept as it is when
 * not full): a line 29% outliers cannot pull; then the median intercept.
 * Up to 2016 slopes, 16 KiB of stack, once a calibration round. */
static void
robust_line(const struct hwclock *c, bool full, double *a, double *b)
{
	const struct hwclock_pair *nw = &c->win[c->n - 1];
	double sl[HWCLOCK_WINDOW_MAX * (HWCLOCK_WINDOW_MAX - 1) / 2], r[HWCLOCK_WINDOW_MAX], dx;
	unsigned int i, j, k = 0;

	if (full) {
		for (i = 0; i < c->n; i++)
			for (j = i + 1; j < c->n; j++) {
				dx = (double)(c->win[j].ext - c->win[i].ext);
				if (dx != 0)
					sl[k++] = (double)(c->win[j].host_ns -
							   c->win[i].host_ns) / dx;
			}
		*b = k > 0 ? median(sl, k) : c->ns_per_tick;
	}
	for (i = 0; i < c->n; i++)
		r[i] = (double)(c->win[i].host_ns - nw->host_ns) -
		       *b * (double)(c->win[i].ext - nw->ext);
	*a = median(r, c->n);
}

/*
 * Drop the pairs that cannot be trusted, at most a third of the window:
 * first those with a bracket far wider than the others' (the sampling was
 * pre-empted in every read of its round), then those far from the line
 * the others agree on (a robust line, a robust sigma, worst first). The
 * least-squares fit is done on what is left.
 */
static void
reject_outliers(struct hwclock *c, bool full, double b_prior)
{
	double h[HWCLOCK_WINDOW_MAX], r[HWCLOCK_WINDOW_MAX], hmed, lim, mad, a, b;
	unsigned int i, iw, left = c->n / 3;

	if (c->n < 3)
		return;
	for (i = 0; i < c->n; i++)
		h[i] = (double)c->win[i].half_ns;
	hmed = median(h, c->n);
	for (i = c->n; i-- > 0 && left > 0;) {
		if ((double)c->win[i].half_ns > 4.0 * hmed + (double)c->cfg.outlier_floor_ns) {
			drop_pair(c, i);
			c->st.outliers++;
			left--;
		}
	}
	while (c->n >= 4 && left > 0) {
		b = b_prior;
		robust_line(c, full, &a, &b);
		for (i = 0; i < c->n; i++)
			r[i] = fabs(residual(c, i, a, b));
		iw = 0;
		for (i = 1; i < c->n; i++)
			if (r[i] > r[iw])
				iw = i;
		lim = r[iw];
		mad = median(r, c->n);
		/* a robust sigma, but never below what the brackets allow: a
		 * pair may be anywhere in its bracket */
		if (lim <= c->cfg.outlier_k * 1.4826 * mad ||
		    lim <= (double)c->cfg.outlier_floor_ns + 2.0 * hmed)
			break;
		drop_pair(c, iw);
		c->st.outliers++;
		left--;
	}
}

static void
publish(struct hwclock *c)
{
	struct hwclock_conv cv;

	if (c->pub == NULL || hwclock_conv_get(c, &cv) != 0)
		return;
	hwclock_pub_write(c->pub, &cv);
	c->st.publishes++;
}

static bool
enough_for_rate(const struct hwclock *c)
{
	return c->n >= c->cfg.min_pairs &&
	       c->win[c->n - 1].host_ns - c->win[0].host_ns >= c->cfg.min_span_ns;
}

/* Fit the window: frequency and offset, or offset only with the prior. */
static void
refit(struct hwclock *c)
{
	const struct hwclock_pair *nw;
	double a = 0, b = 0, r2 = 0, h[HWCLOCK_WINDOW_MAX], res;
	bool full = false;
	unsigned int i;

	if (c->n == 0)
		return;
	if (enough_for_rate(c)) {
		reject_outliers(c, true, c->ns_per_tick);
		if (enough_for_rate(c)) {
			fit_line(c, &a, &b);
			full = b > 0.0 && b < 1073741824.0;
			if (full && c->cfg.nominal_hz != 0 && c->cfg.max_ppm != 0 &&
			    fabs(1e9 / b / (double)c->cfg.nominal_hz - 1.0) * 1e6 >
				    (double)c->cfg.max_ppm) {
				c->st.bad_fits++;
				full = false;
			}
		}
	} else if (c->have_rate) {
		reject_outliers(c, false, c->ns_per_tick);
	}
	if (!full) {
		if (!c->have_rate) {
			c->have_line = false;
			c->st.level = HWCLOCK_UNCALIBRATED;
			return;
		}
		b = c->ns_per_tick;
		a = fit_offset(c, b);
	}
	c->ns_per_tick = b;
	c->have_rate = true;
	c->rate_fitted |= full;
	nw = &c->win[c->n - 1];
	c->have_line = true;
	c->base_raw = nw->raw;
	c->base_ext = nw->ext;
	c->base_ns = nw->host_ns + (int64_t)llround(a);
	for (i = 0; i < c->n; i++) {
		res = residual(c, i, a, b);
		r2 += res * res;
		h[i] = (double)c->win[i].half_ns;
	}
	c->st.level = full ? HWCLOCK_CALIBRATED : HWCLOCK_PROVISIONAL;
	c->st.rms_ns = sqrt(r2 / c->n);
	c->st.uncertainty_ns = c->st.rms_ns + median(h, c->n);
	publish(c);
}

/* The window's newest pair: where the next pair is measured from. */
static const struct hwclock_pair *
newest(const struct hwclock *c)
{
	return &c->win[c->n - 1];
}

static void
push(struct hwclock *c, const struct hwclock_pair *p)
{
	if (c->n > 0)
		c->st.wraps += crossings(c, newest(c)->raw, p->ext - newest(c)->ext);
	if (c->n == c->cfg.window)
		drop_pair(c, 0);
	c->win[c->n++] = *p;
	c->st.accepted++;
}

/* Where the fit puts pair p's host time, minus where it is. */
static double
miss(const struct hwclock *c, const struct hwclock_pair *p)
{
	return (double)(p->host_ns - c->base_ns) -
	       c->ns_per_tick * (double)(p->ext - c->base_ext);
}

/* How far a pair dt ns after the reference may miss and still be no step. */
static double
step_limit(const struct hwclock *c, int64_t dt)
{
	return (double)c->cfg.step_ns + 1e-6 * c->cfg.slew_ppm * fabs((double)dt) +
	       4.0 * c->st.rms_ns;
}

/* A held pair confirmed by p: one of the clocks stepped. Restart from them. */
static void
restart_at_step(struct hwclock *c, struct hwclock_pair *p)
{
	const struct hwclock_pair *nw = newest(c);
	struct hwclock_pair h = c->hold;
	double m = miss(c, &h), moved;

	if (h.mono_ns != 0 && nw->mono_ns != 0) {
		/* CLOCK_REALTIME - CLOCK_MONOTONIC only moves when the host
		 * clock is stepped (slews move both) */
		moved = (double)((h.host_ns - h.mono_ns) - (nw->host_ns - nw->mono_ns));
		if (fabs(moved) > fabs(m) / 2)
			c->st.steps_host++;
		else
			c->st.steps_device++;
	} else {
		c->st.steps_unknown++;
	}
	h.ext = 0;
	p->ext = unwrap(c, &h, p->raw, p->host_ns, p->mono_ns);
	c->n = 0;
	c->held = false;
	c->have_line = false;
	c->win[c->n++] = h;
	c->st.accepted++;
	push(c, p);
	refit(c);
}

int
hwclock_add(struct hwclock *c, const struct hwclock_sample *s, unsigned int n)
{
	struct hwclock_pair p;
	int64_t w, best = -1;
	unsigned int i, bi = 0;
	double m;

	if (c == NULL || s == NULL || n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		w = s[i].host_after_ns - s[i].host_before_ns;
		if (w < 0 || w > c->cfg.max_bracket_ns)
			continue;
		if (best < 0 || w < best) {
			best = w;
			bi = i;
		}
	}
	if (best < 0) {
		c->st.bracket_refused++;
		return -ERANGE;
	}
	p.raw = s[bi].ticks & c->mask;
	p.half_ns = best / 2;
	p.host_ns = s[bi].host_before_ns + best / 2;
	p.mono_ns = s[bi].mono_ns;
	if (c->n == 0) {
		p.ext = 0;
		push(c, &p);
		refit(c);
		return 0;
	}
	p.ext = newest(c)->ext + unwrap(c, newest(c), p.raw, p.host_ns, p.mono_ns);
	if (!c->have_line || !c->rate_fitted) {
		/* nothing to test it against yet, or only a nominal rate
		 * (a wrong one would make every pair a step) */
		push(c, &p);
		refit(c);
		return 0;
	}
	m = miss(c, &p);
	if (fabs(m) <= step_limit(c, p.host_ns - newest(c)->host_ns)) {
		if (c->held) {
			/* the held pair was alone: an outlier */
			c->held = false;
			c->st.outliers++;
		}
		push(c, &p);
		refit(c);
		return 0;
	}
	if (c->held) {
		struct hwclock_pair q = c->hold;
		double dm;

		q.ext = 0;
		dm = (double)(p.host_ns - q.host_ns) -
		     c->ns_per_tick * (double)unwrap(c, &q, p.raw, p.host_ns, p.mono_ns);
		if (fabs(dm) <= step_limit(c, p.host_ns - q.host_ns)) {
			restart_at_step(c, &p);
			return 0;
		}
		/* neither the fit nor the held pair: hold the newer one */
		c->st.outliers++;
	}
	c->hold = p;
	c->held = true;
	return 0;
}

int
hwclock_conv_get(const struct hwclock *c, struct hwclock_conv *cv)
{
	if (c == NULL || cv == NULL)
		return -EINVAL;
	if (!c->have_line) {
		memset(cv, 0, sizeof(*cv));
		return -EAGAIN;
	}
	return hwclock_conv_line(cv, c->base_raw, c->base_ns, c->ns_per_tick,
				 c->cfg.counter_bits);
}

int
hwclock_state_get(const struct hwclock *c, struct hwclock_state *st)
{
	if (c == NULL || st == NULL)
		return -EINVAL;
	*st = c->st;
	st->pairs = c->n;
	if (c->have_line) {
		st->hz = 1e9 / c->ns_per_tick;
		st->ppm = c->cfg.nominal_hz != 0 ?
				  (st->hz / (double)c->cfg.nominal_hz - 1.0) * 1e6 :
				  0.0;
		st->base_ticks = c->base_raw;
		st->base_ns = c->base_ns;
	} else {
		st->hz = 0;
		st->ppm = 0;
		st->base_ticks = 0;
		st->base_ns = 0;
	}
	return 0;
}
