/* SPDX-License-Identifier: BSD-3-Clause */
/* CODIF stream generator core: per-stream fates, emission order, truth. */

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

/* Check the layout: counts in range, no antenna address or group given
 * twice, every antenna sending to a group that exists. */
static int
layout_check(struct gen *g)
{
	const struct gen_cfg *c = &g->cfg;
	uint64_t mask_all;
	unsigned int a, b;
	char ip[16];

	if (c->nant < 1 || c->nant > GEN_MAX_ANTENNAS)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "antennas: %u, expected 1..%d", c->nant, GEN_MAX_ANTENNAS);
	if (c->nthread < 1 || c->nthread > GEN_MAX_THREADS)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "threads: %u, expected 1..%d", c->nthread, GEN_MAX_THREADS);
	if (c->ngroup < 1 || c->ngroup > GEN_MAX_GROUPS)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "groups: %u, expected 1..%d", c->ngroup, GEN_MAX_GROUPS);
	if (c->frames < 2)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "frames: %" PRIu64 ", expected >= 2 per stream", c->frames);
	if (c->depth < 1 || c->depth > GEN_MAX_DEPTH)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "reorder depth: %u, expected 1..%d", c->depth, GEN_MAX_DEPTH);
	for (a = 0; a < c->nant; a++)
		for (b = a + 1; b < c->nant; b++)
			if (c->ant_ip[a] == c->ant_ip[b])
				return err_set(g->err, sizeof(g->err), -EINVAL,
					       "antenna source IP %s given twice (antennas %u and %u)",
					       ipv4_str(c->ant_ip[a], ip, sizeof(ip)), a, b);
	for (a = 0; a < c->ngroup; a++)
		for (b = a + 1; b < c->ngroup; b++)
			if (c->group[a].ip == c->group[b].ip &&
			    c->group[a].port == c->group[b].port)
				return err_set(g->err, sizeof(g->err), -EINVAL,
					       "group %s:%u given twice",
					       ipv4_str(c->group[a].ip, ip, sizeof(ip)),
					       c->group[a].port);
	mask_all = c->ngroup == 64 ? ~0ULL : (1ULL << c->ngroup) - 1;
	for (a = 0; a < c->nant; a++)
		if ((c->ant_groups[a] & mask_all) == 0 || (c->ant_groups[a] & ~mask_all) != 0)
			return err_set(g->err, sizeof(g->err), -EINVAL,
				       "antenna %u sends to no group, or to a group beyond the %u given",
				       a, c->ngroup);
	return 0;
}

/* Check the fault probabilities: each 0..1, and at most 1 together (a frame
 * gets at most one fault). */
static int
faults_check(struct gen *g)
{
	const struct gen_cfg *c = &g->cfg;
	double psum = 0;
	unsigned int f;

	for (f = GEN_F_LOSS; f < GEN_F_EVENT; f++) {
		if (c->p[f] < 0 || c->p[f] > 1)
			return err_set(g->err, sizeof(g->err), -EINVAL,
				       "%s probability %g, expected 0..1",
				       gen_fault_name((enum gen_fault)f), c->p[f]);
		psum += c->p[f];
	}
	if (psum > 1.0 + 1e-12)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "fault probabilities add up to %g, expected at most 1 "
			       "(each frame gets at most one fault)", psum);
	if (c->p_reorder < 0 || c->p_reorder > 1)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "reorder probability %g, expected 0..1", c->p_reorder);
	return 0;
}

/* Check that every frame's time (and a step's or a stray's, ahead) is an
 * int64 of ns: the last one no later than 2262-04-11. The events' shifts are
 * still in ns here. */
static int
last_time_check(struct gen *g, uint64_t fpp, int64_t period_ns)
{
	const struct gen_cfg *c = &g->cfg;
	unsigned __int128 ahead = c->frames;
	__int128 last;
	unsigned int i;
	char why[200];

	for (i = 0; i < c->nev; i++)
		if ((c->ev[i].kind == GEN_EV_STEP || c->ev[i].kind == GEN_EV_STRAY) &&
		    c->ev[i].shift > 0)
			ahead += (unsigned __int128)c->ev[i].shift * fpp / (uint64_t)period_ns + 1;
	last = (__int128)c->start_ns + (__int128)(ahead * (uint64_t)period_ns / fpp);
	if (codif_time_range_check("the last frame's time", last, why, sizeof(why)) != 0)
		return err_set(g->err, sizeof(g->err), -EINVAL, "--start and --count: %s", why);
	return 0;
}

/* Check the stream parameters (cfg.tmpl) and set t to frame 0's header: the
 * parameters, and the time of the frame that holds --start. */
static int
first_frame(struct gen *g, struct codif_hdr *t)
{
	const struct gen_cfg *c = &g->cfg;
	int64_t epoch_ns, rel, period_ns;
	char why[200];
	uint64_t fpp;

	*t = c->tmpl;
	t->frame = 0;
	t->sync = CODIF_SYNC;
	t->protocol = CODIF_PROTOCOL;
	if (codif_validate(t, SIZE_MAX, why, sizeof(why)) != 0)
		return err_set(g->err, sizeof(g->err), -EINVAL, "stream parameters: %s", why);
	if (codif_data_bytes(t) > 65536 - 64 - 8 - 20)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "data bytes %" PRIu64 ", expected at most %d (one UDP datagram)",
			       codif_data_bytes(t), 65536 - 64 - 8 - 20);
	fpp = codif_frames_per_period(t);
	epoch_ns = codif_epoch_unix(t->epoch) * 1000000000LL;
	if (c->start_ns < epoch_ns) {
		char s1[CODIF_TIMESTR_LEN], s2[CODIF_TIMESTR_LEN];

		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "start %s is before the reference epoch %u (%s)",
			       codif_time_str(c->start_ns, s1, sizeof(s1)), t->epoch,
			       codif_time_str(epoch_ns, s2, sizeof(s2)));
	}
	period_ns = (int64_t)t->period * 1000000000LL;
	rel = c->start_ns - epoch_ns;
	if (rel / period_ns * t->period > UINT32_MAX - 2 * (int64_t)t->period)
		return err_set(g->err, sizeof(g->err), -EINVAL,
			       "start is more than 2^32 s after the reference epoch %u", t->epoch);
	t->seconds = (uint32_t)(rel / period_ns * t->period);
	t->frame = (uint32_t)((unsigned __int128)(rel % period_ns) * fpp / (uint64_t)period_ns);
	return last_time_check(g, fpp, period_ns);
}

/* Build the streams (antenna x its groups x threads, in that order), each
 * with frame 0's header t and its ids, and the emission buffers.
 * @return 0 or -ENOMEM (what was allocated is left for gen_free). */
static int
streams_build(struct gen *g, const struct codif_hdr *t)
{
	const struct gen_cfg *c = &g->cfg;
	unsigned int a, gi, th, n = 0;

	for (a = 0; a < c->nant; a++)
		for (gi = 0; gi < c->ngroup; gi++)
			if (c->ant_groups[a] >> gi & 1)
				n += c->nthread;
	g->st = calloc(n, sizeof(*g->st));
	g->capout = 16;
	g->out = calloc(g->capout, sizeof(*g->out));
	if (g->st == NULL || g->out == NULL)
		return err_set(g->err, sizeof(g->err), -ENOMEM, "out of memory for %u streams", n);
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
				s->hdr = *t;
				s->hdr.threadid = (uint16_t)th;
				s->hdr.groupid = (uint16_t)(c->groupid_base + a);
				s->hdr.secondaryid = (uint16_t)gi;
				s->fpp = codif_frames_per_period(t);
				s->max_valid = -1;
				s->emitted = calloc((c->frames + 63) / 64, 8);
				s->ring_len = 2 * c->depth + 2;
				s->ring = calloc(s->ring_len, sizeof(*s->ring));
				if (s->emitted == NULL || s->ring == NULL)
					return err_set(g->err, sizeof(g->err), -ENOMEM,
						       "out of memory for %" PRIu64
						       " frames per stream", c->frames);
			}
		}
	}
	return 0;
}

/* Set the streams' clock from frame 0's header t, and the receivers'
 * timeline the truth assumes (cfg.tl, else lib/codif's defaults). */
static void
clock_init(struct gen *g, const struct codif_hdr *t)
{
	const struct gen_cfg *c = &g->cfg;

	codif_clock_init(&g->clk, t);
	codif_clock_index(&g->clk, t->seconds, t->frame, &g->idx0);
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
}

/* Set the emission pacing (packets spread over a frame's time) and each
 * stream's first and last frame times, events applied. */
static void
emission_init(struct gen *g, const struct codif_hdr *t)
{
	struct codif_hdr h;
	unsigned int si;

	g->frame_ns = codif_frame_ns(t);
	g->step_ns = g->frame_ns / (4ULL * g->nstream + 1);
	g->slot = -1;
	g->cur = g->nstream - 1;
	for (si = 0; si < g->nstream; si++) {
		struct gen_stream *s = &g->st[si];

		s->t.c.first_ns = codif_frame_time_ns(&s->hdr);
		gen_frame_hdr(g, si, (int64_t)g->cfg.frames - 1, &h);
		s->t.c.last_ns = codif_frame_time_ns(&h);
	}
}

int
gen_init(struct gen *g, const struct gen_cfg *cfg)
{
	struct codif_hdr t;
	int rc;

	memset(g, 0, sizeof(*g));
	g->cfg = *cfg;
	rc = layout_check(g);
	if (rc == 0)
		rc = faults_check(g);
	if (rc == 0)
		rc = first_frame(g, &t);
	if (rc != 0)
		return rc;
	rc = streams_build(g, &t);
	if (rc != 0)
		goto fail;
	clock_init(g, &t);
	if (cfg->nev > GEN_MAX_EVENTS) {
		rc = err_set(g->err, sizeof(g->err), -EINVAL, "%u events, at most %d",
			     cfg->nev, GEN_MAX_EVENTS);
		goto fail;
	}
	rc = gen_events_init(g);
	if (rc != 0)
		goto fail;
	emission_init(g, &t);
	return 0;
fail:
	gen_free(g);
	return rc;
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
	bool near = c->nev > 0 && gen_near_event(g, s, k);
	int rc = 0;

	for (i = 0; near && i < c->nev; i++) {
		const struct gen_event *e = &c->ev[i];
		struct gen_pkt odd = p;

		if (!gen_ev_applies(e, s))
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

static void
account(struct gen *g, const struct gen_pkt *p)
{
	struct gen_stream *s = &g->st[p->stream];
	struct codif_hdr fh;
	uint64_t data, bit = (uint64_t)p->index;

	gen_frame_hdr(g, p->stream, p->index, &fh);
	data = codif_data_bytes(&fh);
	s->t.sent++;
	s->t.sent_bytes += gen_frame_len(g, p);
	if (p->fault != GEN_F_NON_IPV4) { /* from the antenna's source address */
		s->t.c.packets++;
		s->t.c.wire_bytes += gen_frame_len(g, p);
	}
	g->packets++;
	switch (p->fault) {
	case GEN_F_EVENT: {
		char why[8];

		switch (gen_odd_class(g, p->stream, &g->cfg.ev[p->ev], why, sizeof(why))) {
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
		if (!gen_selected(g, s))
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
