/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-packet classification: L2-L4, CODIF, stream lookup, timeline, counters,
 * and the frame descriptor for placement. */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "wire.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* where a check writes its reason: nowhere when quiet (no string per
 * packet on the rx path; the cause is counted as a number) */
#define WHY(a) (a)->quiet ? NULL : (a)->err, (a)->quiet ? 0 : sizeof((a)->err)

static void reason(struct acct *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The reason of a malformed or held frame into a->err, unless quiet. */
static void
reason(struct acct *a, const char *fmt, ...)
{
	va_list ap;

	if (a->quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
}

static inline unsigned int
ant_hash(uint32_t ip)
{
	return (ip * 0x9e3779b1u) >> 24; /* Fibonacci hashing: 8 bits */
}

/* The antenna of source address ip, -1 none: by the hash, or in learn mode
 * by the layout's list. */
static inline int
find_ant(const struct acct *a, uint32_t ip)
{
	unsigned int h = ant_hash(ip), k;

	if (a->layout->learn)
		return acct_find_antenna(a->layout, ip);
	while ((k = a->ant_hash[h]) != 0) {
		if (a->layout->ant_ip[k - 1] == ip)
			return (int)k - 1;
		h = (h + 1) % ACCT_ANT_HASH;
	}
	return -1;
}

/* early_antenna: the packet is from no antenna (counted unknown-source) */
#define EARLY_UNKNOWN (-2)

/* The antenna of an IPv4 packet without a VLAN tag, from its source address
 * before anything else of it is read or checked; -1 undecided (tagged, not
 * IPv4, short, learn mode: the long way, pkt_parse's first fault names the
 * cause). From no antenna: the early drop, EARLY_UNKNOWN with r's address
 * fields set (its other faults are no antenna's business: a flood of them
 * costs a hash lookup each). */
static inline int
early_antenna(const struct acct *a, const uint8_t *f, uint32_t caplen, struct acct_result *r)
{
	uint32_t src;
	int ant;

	if (a->layout->learn || caplen < PKT_ETH_LEN + PKT_IPV4_MIN_LEN || f[12] != 0x08 ||
	    f[13] != 0x00 || f[14] >> 4 != 4)
		return -1;
	src = ld_be32(f + PKT_ETH_LEN + 12);
	ant = find_ant(a, src);
	if (ant >= 0)
		return ant;
	memset(&r->pi, 0, sizeof(r->pi));
	r->pi.ethertype = PKT_ETHERTYPE_IPV4;
	r->pi.have_ip = true;
	r->pi.l3_off = PKT_ETH_LEN;
	r->pi.src_ip = src;
	r->pi.dst_ip = ld_be32(f + PKT_ETH_LEN + 16);
	r->cause = ACCT_C_UNKNOWN_SOURCE;
	return EARLY_UNKNOWN;
}

struct acct *
acct_create(const struct acct_layout *layout)
{
	struct acct *a;
	unsigned int i;

	if (layout == NULL || layout->nant > ACCT_MAX_ANTENNAS ||
	    layout->ngroup > ACCT_MAX_GROUPS) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return NULL;
	if (layout->learn) {
		a->learned = *layout;
		a->layout = &a->learned;
	} else {
		a->layout = layout;
	}
	for (i = 0; i < layout->nant && !layout->learn; i++) {
		unsigned int h = ant_hash(layout->ant_ip[i]);

		if (acct_find_antenna(layout, layout->ant_ip[i]) != (int)i)
			continue; /* the address twice: the first antenna has it */
		while (a->ant_hash[h] != 0)
			h = (h + 1) % ACCT_ANT_HASH;
		a->ant_hash[h] = (uint8_t)(i + 1);
	}
	for (i = 0; i < ACCT_MAX_ANTENNAS; i++) {
		a->ant[i].last = -1;
		if (codif_tl_init(&a->ant[i].tl, &layout->tl) != 0) {
			acct_free(a);
			errno = EINVAL;
			return NULL;
		}
	}
	return a;
}

void
acct_free(struct acct *a)
{
	unsigned int i, j;

	if (a == NULL)
		return;
	for (i = 0; i < ACCT_MAX_ANTENNAS; i++) {
		for (j = 0; j < a->ant[i].nstream; j++)
			codif_seq_free(&a->ant[i].stream[j].seq);
		free(a->ant[i].stream);
		codif_tl_free(&a->ant[i].tl);
	}
	free(a);
}

const struct acct_layout *
acct_layout_of(const struct acct *a)
{
	return a->layout;
}

int
acct_find_antenna(const struct acct_layout *l, uint32_t ip)
{
	unsigned int i;

	for (i = 0; i < l->nant; i++)
		if (l->ant_ip[i] == ip)
			return (int)i;
	return -1;
}

int
acct_find_group(const struct acct_layout *l, uint32_t ip, uint16_t port)
{
	unsigned int i;
	int rc = -1;

	for (i = 0; i < l->ngroup; i++) {
		if (l->group[i].ip != ip)
			continue;
		if (l->group[i].port == port)
			return (int)i;
		rc = -2;
	}
	return rc;
}

static inline bool
stream_is(const struct acct_stream *s, const struct codif_hdr *h, uint32_t dst,
	  uint16_t dport)
{
	return s->stationid == h->stationid && s->groupid == h->groupid &&
	       s->secondaryid == h->secondaryid && s->threadid == h->threadid &&
	       s->dst_ip == dst && s->dport == dport;
}

/* The stream is keyed by CODIF ids and by destination (group, port), so one
 * antenna sending the same ids to two groups makes two streams. */
static int
find_stream(struct acct_ant *an, const struct codif_hdr *h, uint32_t dst,
	    uint16_t dport)
{
	unsigned int i;

	if (an->last >= 0 && stream_is(&an->stream[an->last], h, dst, dport))
		return an->last;
	for (i = 0; i < an->nstream; i++) {
		if (stream_is(&an->stream[i], h, dst, dport)) {
			an->last = (int)i;
			return (int)i;
		}
	}
	return -1;
}

static int
add_stream(struct acct *a, struct acct_ant *an, const struct codif_hdr *h,
	   uint32_t dst, uint16_t dport)
{
	struct acct_stream *s;

	if (an->nstream == ACCT_MAX_STREAMS)
		return -1;
	if (an->stream == NULL) {
		an->stream = calloc(ACCT_MAX_STREAMS, sizeof(*an->stream));
		if (an->stream == NULL)
			return -1;
	}
	s = &an->stream[an->nstream];
	memset(s, 0, sizeof(*s));
	(void)a;
	if (codif_seq_init(&s->seq, &an->tl) != 0)
		return -1;
	s->stationid = h->stationid;
	s->groupid = h->groupid;
	s->secondaryid = h->secondaryid;
	s->threadid = h->threadid;
	s->dst_ip = dst;
	s->dport = dport;
	s->slot = ACCT_SLOT_NEW;
	an->last = (int)an->nstream;
	/* publish the initialised stream to readers on other lcores */
	__atomic_store_n(&an->nstream, an->nstream + 1, __ATOMIC_RELEASE);
	return (int)an->nstream - 1;
}

/* Learn mode: add an antenna/group on first sight. */
static int
learn_antenna(struct acct *a, uint32_t ip)
{
	struct acct_layout *l = &a->learned;

	if (l->nant == ACCT_MAX_ANTENNAS)
		return -1;
	l->ant_ip[l->nant] = ip;
	snprintf(l->ant_name[l->nant], ACCT_NAME_LEN, "%u.%u.%u.%u", ip >> 24,
		 (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
	return (int)l->nant++;
}

static int
learn_group(struct acct *a, uint32_t ip, uint16_t port)
{
	struct acct_layout *l = &a->learned;

	if (l->ngroup == ACCT_MAX_GROUPS)
		return -1;
	l->group[l->ngroup].ip = ip;
	l->group[l->ngroup].port = port;
	return (int)l->ngroup++;
}

static void
malformed(struct acct *a, struct acct_result *r, enum acct_malformed m)
{
	struct acct_ant *an = &a->ant[r->ant];

	an->malformed++;
	an->mal[m]++;
	r->fd.cls = CODIF_SEQ_MALFORMED;
	r->mal = m;
}

/* A frame number beyond the stream's frames per period: a bad header. */
static void
frame_beyond(struct acct *a, struct acct_result *r, struct acct_stream *s)
{
	reason(a, "frame %u, expected < %llu (frames per period)", r->hdr.frame,
	       (unsigned long long)s->seq.fpp);
	malformed(a, r, ACCT_M_HEADER);
	codif_seq_malformed(&s->seq);
}

/* Fill the descriptor of a frame of stream s the tracker took (or released):
 * its slot is the stream's own (cached: no lookup per frame). */
static inline void
fd_fill(struct acct_fd *fd, const struct acct_ant *an, const struct acct_stream *s,
	const struct codif_hdr *h, const struct codif_out *o)
{
	fd->clk = &an->tl.clk;
	fd->index = o->index;
	fd->nlost = o->nlost;
	fd->tseg = o->seg;
	fd->slot = s->slot;
	fd->cls = (uint8_t)o->cls;
	fd->flags = (uint8_t)(o->flags | (h->invalid ? ACCT_FD_INVALID : 0));
}

static void malformed_drop(struct acct *a, struct acct_ant *an, enum codif_drop why);

/* Word 1's bits that may change from frame to frame of one stream with the
 * same parameters: atypical (16), invalid (17), cal (19). */
#define W1_FRAME_FLAGS (1ull << 16 | 1ull << 17 | 1ull << 19)

/* The header fast path: the stream of group g whose cached words 1-4 this
 * CODIF header's equal (its ids, its parameters as seq.ref has them) with
 * the sync word in place and the same UDP payload length, or NULL: the
 * full checks decide. Such a header passes codif_identify, find_stream
 * and codif_params_equal as the cached frame did, so they are skipped. */
static inline struct acct_stream *
fast_stream(struct acct_ant *an, int g, const uint8_t *cp, uint32_t plen)
{
	uint64_t w2 = ld_le64(cp + 16);
	unsigned int k = an->fast[ACCT_FAST_KEY(g, w2 & 0xffff)];
	struct acct_stream *s;

	if (k == 0)
		return NULL;
	s = &an->stream[k - 1];
	if (s->fast_len != plen || s->fast_gen != s->seq.ref_gen || s->group != g ||
	    s->fast_w[1] != w2 || s->fast_w[0] != (ld_le64(cp + 8) & ~W1_FRAME_FLAGS) ||
	    s->fast_w[2] != ld_le64(cp + 24) || s->fast_w[3] != ld_le64(cp + 32) ||
	    (uint32_t)ld_le64(cp + 40) != CODIF_SYNC)
		return NULL;
	return s;
}

/* The header of a fast-path frame, as codif_decode gives it: the cached
 * frame's fields but those that change per frame. */
static inline void
fast_hdr(const struct acct_stream *s, const uint8_t *cp, struct codif_hdr *h)
{
	uint64_t w0 = ld_le64(cp), w1 = ld_le64(cp + 8);

	*h = s->fast_h;
	h->frame = (uint32_t)w0;
	h->seconds = (uint32_t)(w0 >> 32);
	h->atypical = w1 >> 16 & 1;
	h->invalid = w1 >> 17 & 1;
	h->cal = w1 >> 19 & 1;
	h->metaid = (uint16_t)(ld_le64(cp + 40) >> 32);
	memcpy(h->metadata, cp + 46, sizeof(h->metadata));
}

/* A frame of stream k passed every check with its ref's parameters: its
 * words become the fast path's. */
static void
fast_learn(struct acct_ant *an, int k, int g, const uint8_t *cp, uint32_t plen,
	   const struct codif_hdr *h)
{
	struct acct_stream *s = &an->stream[k];

	s->fast_w[0] = ld_le64(cp + 8) & ~W1_FRAME_FLAGS;
	s->fast_w[1] = ld_le64(cp + 16);
	s->fast_w[2] = ld_le64(cp + 24);
	s->fast_w[3] = ld_le64(cp + 32);
	s->fast_len = plen;
	s->fast_gen = s->seq.ref_gen;
	s->fast_h = *h;
	an->fast[ACCT_FAST_KEY(g, h->threadid)] = (uint8_t)(k + 1);
}

void
acct_frame(struct acct *a, unsigned int port, const uint8_t *f, uint32_t len,
	   struct acct_result *r)
{
	acct_frame2(a, port, f, len, len, r);
}

void
acct_frame2(struct acct *a, unsigned int port, const uint8_t *f, uint32_t caplen,
	    uint32_t len, struct acct_result *r)
{
	acct_frame_rx(a, port, f, caplen, len, NULL, r);
}

/* The steps of acct_frame_rx, in the order a frame takes them; each is
 * inlined into it (the per-frame path makes no call of its own). */
#define RX_STEP static inline __attribute__((always_inline))

/* The result before any check: no antenna, no group, no stream. */
RX_STEP void
rx_result_init(struct acct_result *r, const uint8_t *f, uint32_t len, int64_t arr)
{
	r->ant = -1;
	r->group = -1;
	r->hold = NULL;
	r->tail = 0;
	r->fd.pkt = f;
	r->fd.ant = -1;
	r->fd.stream = -1;
	r->fd.cls = CODIF_SEQ_MALFORMED;
	r->fd.index = 0;
	r->fd.nlost = 0;
	r->fd.flags = 0;
	r->fd.codif_off = 0;
	r->fd.codif_len = 0;
	r->fd.wirelen = len;
	r->fd.slot = ACCT_NO_SLOT;
	r->fd.arrival_ns = arr;
}

/* The antenna the frame came from, by its IPv4 source (or learnt), with
 * valid IPv4/UDP headers. @return it, or NULL: counted on the port (not
 * from an antenna) or as the antenna's malformed frame. */
RX_STEP struct acct_ant *
rx_antenna(struct acct *a, struct acct_port *pt, const uint8_t *f, uint32_t caplen,
	   uint32_t len, const struct acct_rx *rx, struct acct_result *r)
{
	struct acct_ant *an;
	enum pkt_err pe;
	int early;

	early = early_antenna(a, f, caplen, r);
	if (unlikely(early == EARLY_UNKNOWN)) {
		pt->cause[ACCT_C_UNKNOWN_SOURCE]++;
		return NULL;
	}
	pe = pkt_parse_csum(f, caplen, len,
			    rx != NULL ? (enum pkt_csum)rx->ip_csum : PKT_CSUM_UNKNOWN, &r->pi);
	if (r->pi.have_ip) {
		/* found early by the same address bytes, or looked up now */
		r->ant = early >= 0 ? early : find_ant(a, r->pi.src_ip);
		if (r->ant < 0 && a->layout->learn)
			r->ant = learn_antenna(a, r->pi.src_ip);
	}
	if (r->ant < 0) {
		/* not from an antenna: count by what was wrong first */
		r->cause = pe != PKT_OK ? (enum acct_cause)pe : ACCT_C_UNKNOWN_SOURCE;
		pt->cause[r->cause]++;
		return NULL;
	}
	r->fd.ant = (int16_t)r->ant;
	an = &a->ant[r->ant];
	an->pkts++;
	an->wire_bytes += len;
	if (pe != PKT_OK) {
		reason(a, "IPv4/UDP: %s", pkt_err_name(pe));
		malformed(a, r, pe == PKT_ERR_IP_CSUM ? ACCT_M_IP_CSUM : ACCT_M_L3L4);
		return NULL;
	}
	return an;
}

/* The group of its destination address and port (or learnt), and where
 * its CODIF payload lies. @return the group, or -1: counted on the port,
 * the frame then from no antenna. */
RX_STEP int
rx_group(struct acct *a, struct acct_port *pt, struct acct_result *r)
{
	int g = acct_find_group(a->layout, r->pi.dst_ip, r->pi.dport);

	if (g < 0 && a->layout->learn)
		g = learn_group(a, r->pi.dst_ip, r->pi.dport);
	if (g < 0) {
		r->cause = g == -2 ? ACCT_C_UNKNOWN_PORT : ACCT_C_UNKNOWN_GROUP;
		pt->cause[r->cause]++;
		r->ant = -1;
		r->fd.ant = -1;
		return -1;
	}
	r->group = g;
	r->fd.dst_ip = r->pi.dst_ip;
	r->fd.dport = r->pi.dport;
	r->fd.codif_off = (uint16_t)r->pi.payload_off;
	r->fd.codif_len = r->pi.payload_len;
	return g;
}

/* The full checks of a CODIF header the fast path did not take: a whole
 * header in the buffer, CODIF, its stream (added if new, with valid
 * parameters), its parameters (validated only when they differ from the
 * stream's) and its length. params_ok says whether they are the stream's.
 * @return the stream, or NULL: counted as the antenna's malformed frame. */
RX_STEP struct acct_stream *
rx_checked_stream(struct acct *a, struct acct_ant *an, int g, const uint8_t *cp,
		  uint32_t caplen, uint32_t len, struct acct_result *r, bool *params_ok)
{
	struct acct_stream *s;

	if (caplen < len && r->pi.payload_off + CODIF_HDR_LEN > caplen) {
		reason(a, "CODIF header at byte %u, beyond the %u-byte head of a split buffer",
		       r->pi.payload_off, caplen);
		malformed(a, r, ACCT_M_SPLIT);
		return NULL;
	}
	if (codif_identify(cp, r->pi.payload_len, WHY(a)) != 0) {
		malformed(a, r, ACCT_M_NOT_CODIF);
		return NULL;
	}
	codif_decode(cp, r->pi.payload_len, &r->hdr, NULL, 0);
	r->fd.stream = (int16_t)find_stream(an, &r->hdr, r->pi.dst_ip, r->pi.dport);
	s = r->fd.stream >= 0 ? &an->stream[r->fd.stream] : NULL;
	/* Full validation (three 64-bit divisions) only for a new stream or
	 * when the parameters differ from the stream's; else the cheap check.
	 * A header that fails never creates a stream. */
	*params_ok = s != NULL && s->seq.have_ref &&
		     codif_params_equal(&s->seq.ref, &r->hdr, NULL, 0);
	if (!*params_ok) {
		if (codif_validate(&r->hdr, SIZE_MAX, WHY(a)) != 0) {
			malformed(a, r, ACCT_M_HEADER);
			if (s != NULL)
				codif_seq_malformed(&s->seq);
			return NULL;
		}
	} else if (r->hdr.frame >= s->seq.fpp) {
		frame_beyond(a, r, s);
		return NULL;
	}
	if ((uint64_t)r->pi.payload_len != CODIF_HDR_LEN + codif_data_bytes(&r->hdr)) {
		reason(a, "UDP payload %u bytes, expected 64 + framelength8*8 = %llu",
		       r->pi.payload_len,
		       (unsigned long long)(CODIF_HDR_LEN + codif_data_bytes(&r->hdr)));
		malformed(a, r, ACCT_M_LENGTH);
		if (s != NULL)
			codif_seq_malformed(&s->seq);
		return NULL;
	}
	if (s == NULL) {
		int k = add_stream(a, an, &r->hdr, r->pi.dst_ip, r->pi.dport);

		if (k < 0) {
			reason(a, "antenna has %d streams already (the most tracked)",
			       ACCT_MAX_STREAMS);
			malformed(a, r, ACCT_M_TOO_MANY_STREAMS);
			return NULL;
		}
		r->fd.stream = (int16_t)k;
		s = &an->stream[k];
		s->group = g;
	}
	/* the full checks passed with the stream's parameters: its next
	 * frames like this one take the fast path */
	if (*params_ok)
		fast_learn(an, r->fd.stream, g, cp, r->pi.payload_len, &r->hdr);
	return s;
}

/* The frame into its stream's sequence and the antenna's timeline: its
 * class and index into the descriptor; a suspect is held (what an action
 * needs to rebuild its descriptor kept with it) or, no memory, dropped. */
RX_STEP void
rx_push(struct acct *a, struct acct_ant *an, struct acct_stream *s, int g, uint32_t len,
	bool params_ok, int64_t arr, struct acct_result *r)
{
	struct codif_out o;

	codif_seq_push_same(&an->tl, &s->seq, &r->hdr, r->pi.payload_len, params_ok, arr, &o);
	fd_fill(&r->fd, an, s, &r->hdr, &o);
	r->tail = o.tail;
	if (o.cls == CODIF_SEQ_SUSPECT) {
		int64_t d = o.index - an->tl.newest;

		reason(a, "held as a suspect: frame index %lld is %lld frames %s the newest "
		       "(seconds %u, frame %u)%s", (long long)o.index,
		       (long long)(d < 0 ? -d : d), d < 0 ? "behind" : "ahead of",
		       r->hdr.seconds, r->hdr.frame,
		       o.hold == NULL ? ": dropped, no memory to hold it" : "");
		r->hold = o.hold;
		if (o.hold != NULL)
			o.hold->aux = (uint64_t)r->fd.codif_off | (uint64_t)(uint32_t)g << 16 |
				      (uint64_t)len << 32;
		else
			malformed_drop(a, an, CODIF_DROP_TIME);
	}
}

void
acct_frame_rx(struct acct *a, unsigned int port, const uint8_t *f, uint32_t caplen,
	      uint32_t len, const struct acct_rx *rx, struct acct_result *r)
{
	int64_t arr = rx != NULL ? rx->arrival_ns : CODIF_NO_ARRIVAL;
	struct acct_port *pt = &a->port[port < ACCT_MAX_PORTS ? port : ACCT_MAX_PORTS - 1];
	struct acct_ant *an;
	struct acct_stream *s;
	const uint8_t *cp;
	bool params_ok = true;
	int g;

	rx_result_init(r, f, len, arr);
	pt->pkts++;
	pt->bytes += len;
	an = rx_antenna(a, pt, f, caplen, len, rx, r);
	if (an == NULL)
		return;
	g = rx_group(a, pt, r);
	if (g < 0)
		return;
	cp = f + r->pi.payload_off;
	if (likely(r->pi.payload_off + CODIF_HDR_LEN <= caplen) && !a->fast_off &&
	    (s = fast_stream(an, g, cp, r->pi.payload_len)) != NULL) {
		/* the cached words matched: its stream's parameters */
		fast_hdr(s, cp, &r->hdr);
		r->fd.stream = (int16_t)(s - an->stream);
		if (unlikely(r->hdr.frame >= s->seq.fpp)) {
			frame_beyond(a, r, s);
			return;
		}
	} else {
		s = rx_checked_stream(a, an, g, cp, caplen, len, r, &params_ok);
		if (s == NULL)
			return;
	}
	rx_push(a, an, s, g, len, params_ok, arr, r);
}

/* A held frame dropped: its antenna's malformed packets, by cause. */
static void
malformed_drop(struct acct *a, struct acct_ant *an, enum codif_drop why)
{
	enum acct_malformed m = why == CODIF_DROP_PARAMS ? ACCT_M_PARAM_CHANGE :
							   ACCT_M_IMPLAUSIBLE;

	(void)a;
	an->malformed++;
	an->mal[m]++;
}

/* A resync of antenna ant's timeline, or an outage, into the event log. */
static void
log_resyncs(struct acct *a, int ant)
{
	struct acct_ant *an = &a->ant[ant];

	struct acct_event *e;

	if (an->tl.outages != an->outages_logged) {
		an->outages_logged = an->tl.outages;
		e = &a->ev[a->nev % ACCT_EVENTS];
		e->ant = ant;
		e->outage = true;
		e->o = an->tl.last_outage;
		__atomic_store_n(&a->nev, a->nev + 1, __ATOMIC_RELEASE);
	}
	if (an->tl.resyncs == an->resyncs_logged)
		return;
	an->resyncs_logged = an->tl.resyncs;
	e = &a->ev[a->nev % ACCT_EVENTS];
	e->ant = ant;
	e->outage = false;
	e->r = an->tl.last;
	__atomic_store_n(&a->nev, a->nev + 1, __ATOMIC_RELEASE);
}

bool
acct_action(struct acct *a, int ant, struct acct_action *act)
{
	struct acct_ant *an;
	struct codif_act ca;
	const struct acct_stream *s;
	int g;

	if (ant < 0 || ant >= ACCT_MAX_ANTENNAS)
		return false;
	an = &a->ant[ant];
	if (!codif_tl_action(&an->tl, &ca)) {
		log_resyncs(a, ant);
		return false;
	}
	log_resyncs(a, ant);
	memset(act, 0, sizeof(*act));
	act->handle = ca.handle;
	act->drop = ca.drop;
	act->why = ca.why;
	act->tail = ca.out.tail;
	if (ca.drop) {
		malformed_drop(a, an, ca.why);
		return true;
	}
	s = (const struct acct_stream *)((const uint8_t *)ca.s -
					 offsetof(struct acct_stream, seq));
	g = (int)(uint32_t)(ca.aux >> 16 & 0xffff);
	act->fd.pkt = NULL;
	act->fd.ant = (int16_t)ant;
	act->fd.stream = (int16_t)(s - an->stream);
	act->fd.codif_off = (uint16_t)(ca.aux & 0xffff);
	act->fd.wirelen = (uint32_t)(ca.aux >> 32);
	act->fd.codif_len = (uint32_t)(CODIF_HDR_LEN + codif_data_bytes(&ca.h));
	act->fd.dst_ip = s->dst_ip;
	act->fd.dport = s->dport;
	act->fd.arrival_ns = 0;
	(void)g;
	fd_fill(&act->fd, an, s, &ca.h, &ca.out);
	return true;
}

void
acct_flush(struct acct *a)
{
	struct codif_seq *v[ACCT_MAX_STREAMS];
	unsigned int i, k;

	for (i = 0; i < ACCT_MAX_ANTENNAS; i++) {
		struct acct_ant *an = &a->ant[i];

		for (k = 0; k < an->nstream; k++)
			v[k] = &an->stream[k].seq;
		if (an->tl.started)
			codif_tl_flush(&an->tl, v, an->nstream);
	}
}

void
acct_unplaced(struct acct *a, const struct acct_fd *fd)
{
	if (fd->ant < 0 || fd->stream < 0)
		return;
	codif_seq_unreceive(&a->ant[fd->ant].stream[fd->stream].seq,
			    (enum codif_seq_class)fd->cls, (fd->flags & ACCT_FD_INVALID) != 0,
			    fd->codif_len);
}

void
acct_set_slot(struct acct *a, const struct acct_fd *fd, uint16_t slot)
{
	if (fd->ant < 0 || fd->stream < 0)
		return;
	a->ant[fd->ant].stream[fd->stream].slot = slot;
}

uint16_t
acct_home_slot(const struct acct *a, const struct acct_fd *fd)
{
	const struct acct_stream *s;
	unsigned int nt = a->layout->nthread;

	if (fd->ant < 0 || fd->stream < 0)
		return ACCT_NO_SLOT;
	s = &a->ant[fd->ant].stream[fd->stream];
	if (s->threadid >= nt || s->group < 0)
		return ACCT_NO_SLOT;
	return (uint16_t)((unsigned int)s->group * nt + s->threadid);
}

void
acct_seq_add(const struct codif_seq *q, struct acct_counts *c)
{
	const struct codif_seq_stats *st = &q->st;

	c->expected += codif_seq_expected(q);
	c->received += st->received;
	c->lost += st->lost;
	c->late += st->late;
	c->duplicate += st->duplicate;
	c->invalid += st->invalid;
	c->too_late += st->too_late;
	c->implausible += st->implausible;
	c->param_change += st->param_change;
	c->resyncs += st->resyncs;
	c->resync_skipped += st->resync_skipped;
	c->new_params += st->new_params;
	c->bytes += st->bytes;
	if (q->started) {
		if (q->first_time_ns < c->first_ns)
			c->first_ns = q->first_time_ns;
		if (q->newest_time_ns > c->last_ns)
			c->last_ns = q->newest_time_ns;
	}
}

void
acct_stream_add(const struct acct_stream *s, struct acct_counts *c)
{
	uint64_t nr = 0;
	unsigned int i;

	acct_seq_add(&s->seq, c);
	for (i = 0; i < ACCT_NR__COUNT; i++) {
		uint64_t v = __atomic_load_n(&s->nr[i], __ATOMIC_RELAXED);

		c->nr[i] += v;
		nr += v;
	}
	c->not_recorded += nr;
	/* received is counted before placement: what it did not record is
	 * the rest (a snapshot may see a frame's receipt before its refusal) */
	c->recorded += s->seq.st.received >= nr ? s->seq.st.received - nr : 0;
}

void
acct_ant_add(const struct acct *a, unsigned int ant, struct acct_counts *c)
{
	const struct acct_ant *an = &a->ant[ant];
	unsigned int i, n = __atomic_load_n(&an->nstream, __ATOMIC_ACQUIRE);

	c->streams += n;
	for (i = 0; i < n; i++)
		acct_stream_add(&an->stream[i], c);
	/* malformed is counted per antenna (a malformed packet cannot be
	 * trusted to name its stream), so it is not summed from streams */
	c->malformed += an->malformed;
	for (i = 0; i < ACCT_M__COUNT; i++)
		c->mal[i] += an->mal[i];
	c->packets += an->pkts;
	c->wire_bytes += an->wire_bytes;
	c->timeline_resyncs += __atomic_load_n(&an->tl.resyncs, __ATOMIC_RELAXED);
}

const char *
acct_cause_name(enum acct_cause c)
{
	if ((unsigned int)c < PKT__ERR_COUNT)
		return pkt_err_name((enum pkt_err)c);
	switch (c) {
	case ACCT_C_UNKNOWN_SOURCE: return "unknown-source";
	case ACCT_C_UNKNOWN_GROUP: return "unknown-group";
	case ACCT_C_UNKNOWN_PORT: return "unknown-port";
	default: return "?";
	}
}

const char *
acct_nr_name(enum acct_nr c)
{
	static const char *const names[ACCT_NR__COUNT] = {
		[ACCT_NR_NO_SLOT] = "no-slot",
		[ACCT_NR_WRONG_SIZE] = "wrong-size",
		[ACCT_NR_SLOT_HELD] = "slot-held",
		[ACCT_NR_OTHER_CLOCK] = "other-clock",
	};

	if ((unsigned int)c >= ACCT_NR__COUNT)
		return "?";
	return names[c];
}

const char *
acct_malformed_name(enum acct_malformed m)
{
	static const char *const names[ACCT_M__COUNT] = {
		[ACCT_M_L3L4] = "ipv4-udp",
		[ACCT_M_NOT_CODIF] = "not-codif",
		[ACCT_M_HEADER] = "bad-header",
		[ACCT_M_LENGTH] = "bad-length",
		[ACCT_M_IMPLAUSIBLE] = "implausible-time",
		[ACCT_M_PARAM_CHANGE] = "parameter-change",
		[ACCT_M_SPLIT] = "split-offset",
		[ACCT_M_TOO_MANY_STREAMS] = "too-many-streams",
		[ACCT_M_IP_CSUM] = "ip-checksum",
	};

	if ((unsigned int)m >= ACCT_M__COUNT)
		return "?";
	return names[m];
}
