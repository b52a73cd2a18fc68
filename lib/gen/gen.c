/* SPDX-License-Identifier: BSD-3-Clause */
/* CODIF stream generator core: per-stream fates, emission order, truth. */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "codif_pattern.h"
#include "gen.h"
#include "jsonw.h"
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
	};

	return (unsigned int)f < GEN_F__COUNT ? names[f] : "?";
}

void
gen_cfg_defaults(struct gen_cfg *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->nant = 6;
	c->nthread = 2;
	c->ngroup = 4;
	for (i = 0; i < c->nant; i++) {
		c->ant_ip[i] = (10u << 24 | 17u << 16 | 0u << 8) + 211 + i;
		c->ant_groups[i] = (1ULL << c->ngroup) - 1;
	}
	for (i = 0; i < c->ngroup; i++) {
		c->group[i].ip = (239u << 24 | 17u << 16) + 1 + i;
		c->group[i].port = (uint16_t)(36001 + i);
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

void
gen_frame_hdr(const struct gen *g, unsigned int s, int64_t index,
	      struct codif_hdr *h)
{
	const struct gen_stream *st = &g->st[s];

	*h = st->hdr;
	codif_clock_hdr_time(&g->clk, g->idx0 + index, &h->seconds, &h->frame);
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
	for (a = GEN_F_LOSS; a < GEN_F__COUNT; a++) {
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
		for (gi = 0; gi < c->ngroup; gi++) {
			if (!(c->ant_groups[a] >> gi & 1))
				continue;
			for (th = 0; th < c->nthread; th++) {
				struct gen_stream *s = &g->st[n++];

				s->ant = a;
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
	g->frame_ns = codif_frame_ns(&t);
	g->step_ns = g->frame_ns / (4ULL * g->nstream + 1);
	g->slot = -1;
	g->cur = g->nstream - 1;
	/* one RNG per stream so --select does not change any stream's fate */
	for (a = 0; a < g->nstream; a++) {
		struct gen_stream *s = &g->st[a];
		int64_t last;

		s->t.first_ns = codif_frame_time_ns(&s->hdr);
		gen_frame_hdr(g, a, (int64_t)c->frames - 1, &t);
		last = codif_frame_time_ns(&t);
		s->t.last_ns = last;
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
	struct gen_pkt p = { .stream = si, .index = k, .fault = GEN_F_NONE };
	uint64_t r = frame_rng(g, si, k);
	unsigned int d = 0, f;
	int rc = 0;

	if (k > 0 && k < (int64_t)c->frames - 1) {
		double u = rand01(&r), acc = 0;

		for (f = GEN_F_LOSS; f < GEN_F__COUNT; f++) {
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
	uint32_t data = (uint32_t)codif_data_bytes(&g->cfg.tmpl);
	uint32_t full = PKT_HDRS_LEN + CODIF_HDR_LEN + data;

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
	uint64_t data = codif_data_bytes(&g->cfg.tmpl);
	uint64_t bit = (uint64_t)p->index;

	s->t.sent++;
	s->t.wire_bytes += frame_len(g, p);
	g->packets++;
	switch (p->fault) {
	case GEN_F_NONE:
	case GEN_F_INVALID:
	case GEN_F_DUPLICATE:
	case GEN_F_VLAN:
		if (s->emitted[bit / 64] >> (bit % 64) & 1) {
			s->t.duplicate++;
			break;
		}
		s->emitted[bit / 64] |= 1ULL << (bit % 64);
		s->t.received++;
		s->t.bytes += CODIF_HDR_LEN + data;
		if (p->index < s->max_valid)
			s->t.late++;
		else
			s->max_valid = p->index;
		if (p->fault == GEN_F_INVALID)
			s->t.invalid++;
		if (p->fault == GEN_F_VLAN)
			s->t.vlan++;
		break;
	case GEN_F_NON_IPV4:
		s->t.non_ipv4++;
		break;
	default:
		s->t.malformed++;
		break;
	}
	s->t.frames = (uint64_t)(s->max_valid + 1);
	s->t.lost = s->t.frames - s->t.received;
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

		p->ts_ns = g->st[0].t.first_ns + (int64_t)slot_off +
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

uint32_t
gen_build_payload(const struct gen *g, const struct gen_pkt *p, uint8_t *buf)
{
	struct codif_hdr h;
	uint32_t data = (uint32_t)codif_data_bytes(&g->cfg.tmpl);
	uint32_t len = CODIF_HDR_LEN + data;

	gen_frame_hdr(g, p->stream, p->index, &h);
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
	codif_pattern_fill(&h, buf + CODIF_HDR_LEN, len - CODIF_HDR_LEN);
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
	return hl + plen;
}

static void
truth_fields(struct jsonw *w, const struct gen_truth *t)
{
	char ts[CODIF_TIMESTR_LEN];

	jsonw_u64(w, "frames", t->frames);
	jsonw_u64(w, "sent", t->sent);
	jsonw_u64(w, "received", t->received);
	jsonw_u64(w, "lost", t->lost);
	jsonw_u64(w, "late", t->late);
	jsonw_u64(w, "duplicate", t->duplicate);
	jsonw_u64(w, "invalid", t->invalid);
	jsonw_u64(w, "malformed", t->malformed);
	jsonw_u64(w, "non_ipv4", t->non_ipv4);
	jsonw_u64(w, "vlan", t->vlan);
	jsonw_u64(w, "bytes", t->bytes);
	jsonw_u64(w, "wire_bytes", t->wire_bytes);
	jsonw_i64(w, "first_frame_ns", t->first_ns);
	jsonw_str(w, "first_frame_utc", codif_time_str(t->first_ns, ts, sizeof(ts)));
	jsonw_i64(w, "last_frame_ns", t->last_ns);
	jsonw_str(w, "last_frame_utc", codif_time_str(t->last_ns, ts, sizeof(ts)));
}

static void
truth_add(struct gen_truth *sum, const struct gen_truth *t)
{
	unsigned int f;

	sum->frames += t->frames;
	sum->sent += t->sent;
	sum->received += t->received;
	sum->lost += t->lost;
	sum->late += t->late;
	sum->duplicate += t->duplicate;
	sum->invalid += t->invalid;
	sum->malformed += t->malformed;
	sum->non_ipv4 += t->non_ipv4;
	sum->vlan += t->vlan;
	sum->bytes += t->bytes;
	sum->wire_bytes += t->wire_bytes;
	for (f = 0; f < GEN_F__COUNT; f++)
		sum->fault[f] += t->fault[f];
	if (sum->first_ns == 0 || t->first_ns < sum->first_ns)
		sum->first_ns = t->first_ns;
	if (t->last_ns > sum->last_ns)
		sum->last_ns = t->last_ns;
}

int
gen_truth_json(const struct gen *g, FILE *f)
{
	const struct gen_cfg *c = &g->cfg;
	struct gen_truth tot, ant[GEN_MAX_ANTENNAS];
	struct jsonw w;
	char ip[16], st[3];
	unsigned int i, fl;
	uint64_t nstreams_ant[GEN_MAX_ANTENNAS] = { 0 };

	memset(&tot, 0, sizeof(tot));
	memset(ant, 0, sizeof(ant));
	jsonw_init(&w, f, true);
	jsonw_obj_begin(&w, NULL);
	jsonw_str(&w, "generator", "codifgen");
	jsonw_obj_begin(&w, "config");
	jsonw_u64(&w, "seed", c->seed);
	jsonw_u64(&w, "antennas", c->nant);
	jsonw_u64(&w, "threads", c->nthread);
	jsonw_u64(&w, "groups", c->ngroup);
	jsonw_u64(&w, "frames_per_stream", c->frames);
	jsonw_u64(&w, "data_bytes", codif_data_bytes(&c->tmpl));
	jsonw_u64(&w, "nchan", c->tmpl.nchan);
	jsonw_u64(&w, "nbits", c->tmpl.nbits);
	jsonw_bool(&w, "complex", c->tmpl.complex);
	jsonw_u64(&w, "period", c->tmpl.period);
	jsonw_u64(&w, "totalsamples", c->tmpl.totalsamples);
	jsonw_u64(&w, "frames_per_period", codif_frames_per_period(&c->tmpl));
	jsonw_u64(&w, "frame_ns", g->frame_ns);
	jsonw_u64(&w, "epoch", c->tmpl.epoch);
	codif_station_str(c->tmpl.stationid, st);
	jsonw_str(&w, "station", st);
	jsonw_u64(&w, "reorder_depth", c->depth);
	jsonw_obj_begin(&w, "probabilities");
	for (fl = GEN_F_LOSS; fl < GEN_F__COUNT; fl++)
		jsonw_dbl(&w, gen_fault_name((enum gen_fault)fl), c->p[fl]);
	jsonw_dbl(&w, "reorder", c->p_reorder);
	jsonw_obj_end(&w);
	jsonw_obj_end(&w);

	jsonw_arr_begin(&w, "streams");
	for (i = 0; i < g->nstream; i++) {
		const struct gen_stream *s = &g->st[i];

		struct gen_truth t = s->t;
		struct codif_hdr h;

		if (!selected(g, s))
			continue;
		/* a run cut short ends at the newest frame sent */
		if (s->max_valid >= 0) {
			gen_frame_hdr(g, i, s->max_valid, &h);
			t.last_ns = codif_frame_time_ns(&h);
		}
		truth_add(&ant[s->ant], &t);
		nstreams_ant[s->ant]++;
		truth_add(&tot, &t);
		jsonw_obj_begin(&w, NULL);
		jsonw_u64(&w, "antenna", s->ant);
		jsonw_str(&w, "src", ipv4_str(c->ant_ip[s->ant], ip, sizeof(ip)));
		jsonw_str(&w, "dst", ipv4_str(c->group[s->group].ip, ip, sizeof(ip)));
		jsonw_u64(&w, "port", c->group[s->group].port);
		codif_station_str(s->hdr.stationid, st);
		jsonw_str(&w, "station", st);
		jsonw_u64(&w, "groupid", s->hdr.groupid);
		jsonw_u64(&w, "secondaryid", s->hdr.secondaryid);
		jsonw_u64(&w, "threadid", s->hdr.threadid);
		truth_fields(&w, &t);
		jsonw_obj_begin(&w, "faults");
		for (fl = GEN_F_LOSS; fl < GEN_F__COUNT; fl++)
			jsonw_u64(&w, gen_fault_name((enum gen_fault)fl), s->t.fault[fl]);
		jsonw_obj_end(&w);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);

	jsonw_arr_begin(&w, "antennas");
	for (i = 0; i < c->nant; i++) {
		if (nstreams_ant[i] == 0)
			continue;
		jsonw_obj_begin(&w, NULL);
		jsonw_u64(&w, "antenna", i);
		jsonw_str(&w, "src", ipv4_str(c->ant_ip[i], ip, sizeof(ip)));
		jsonw_u64(&w, "streams", nstreams_ant[i]);
		truth_fields(&w, &ant[i]);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);

	jsonw_obj_begin(&w, "totals");
	jsonw_u64(&w, "packets", g->packets);
	truth_fields(&w, &tot);
	jsonw_obj_end(&w);
	jsonw_obj_end(&w);
	return jsonw_finish(&w) == 0 ? 0 : -EIO;
}
