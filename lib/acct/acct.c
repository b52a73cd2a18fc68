/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-packet classification: L2-L4, CODIF, stream lookup, sequence, counters. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"

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
	for (i = 0; i < ACCT_MAX_ANTENNAS; i++)
		a->ant[i].last = -1;
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
	if (codif_seq_init(&s->seq, a->layout->window) != 0)
		return -1;
	s->stationid = h->stationid;
	s->groupid = h->groupid;
	s->secondaryid = h->secondaryid;
	s->threadid = h->threadid;
	s->dst_ip = dst;
	s->dport = dport;
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
	r->cls = CODIF_SEQ_MALFORMED;
	r->mal = m;
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
	const struct acct_layout *l = a->layout;
	struct acct_port *pt = &a->port[port < ACCT_MAX_PORTS ? port : ACCT_MAX_PORTS - 1];
	struct acct_ant *an;
	struct acct_stream *s;
	const uint8_t *cp;
	enum pkt_err pe;
	bool params_ok;
	int g;

	r->ant = -1;
	r->stream = -1;
	r->group = -1;
	r->cls = CODIF_SEQ_MALFORMED;
	r->index = 0;
	r->nlost = 0;
	r->codif_off = r->codif_len = 0;
	pt->pkts++;
	pt->bytes += len;

	pe = pkt_parse_len(f, caplen, len, &r->pi);
	if (r->pi.have_ip) {
		r->ant = acct_find_antenna(l, r->pi.src_ip);
		if (r->ant < 0 && l->learn)
			r->ant = learn_antenna(a, r->pi.src_ip);
	}
	if (r->ant < 0) {
		/* not from an antenna: count by what was wrong first */
		r->cause = pe != PKT_OK ? (enum acct_cause)pe : ACCT_C_UNKNOWN_SOURCE;
		pt->cause[r->cause]++;
		return;
	}
	an = &a->ant[r->ant];
	an->pkts++;
	an->wire_bytes += len;
	if (pe != PKT_OK) {
		snprintf(a->err, sizeof(a->err), "IPv4/UDP: %s", pkt_err_name(pe));
		malformed(a, r, ACCT_M_L3L4);
		return;
	}
	g = acct_find_group(l, r->pi.dst_ip, r->pi.dport);
	if (g < 0 && l->learn)
		g = learn_group(a, r->pi.dst_ip, r->pi.dport);
	if (g < 0) {
		r->cause = g == -2 ? ACCT_C_UNKNOWN_PORT : ACCT_C_UNKNOWN_GROUP;
		pt->cause[r->cause]++;
		r->ant = -1;
		return;
	}
	r->group = g;
	r->codif_off = r->pi.payload_off;
	r->codif_len = r->pi.payload_len;
	cp = f + r->pi.payload_off;
	if (caplen < len && r->pi.payload_off + CODIF_HDR_LEN > caplen) {
		snprintf(a->err, sizeof(a->err),
			 "CODIF header at byte %u, beyond the %u-byte head of a split buffer",
			 r->pi.payload_off, caplen);
		malformed(a, r, ACCT_M_SPLIT);
		return;
	}
	if (codif_identify(cp, r->pi.payload_len, a->err, sizeof(a->err)) != 0) {
		malformed(a, r, ACCT_M_NOT_CODIF);
		return;
	}
	codif_decode(cp, r->pi.payload_len, &r->hdr, NULL, 0);
	r->stream = find_stream(an, &r->hdr, r->pi.dst_ip, r->pi.dport);
	s = r->stream >= 0 ? &an->stream[r->stream] : NULL;
	/* Full validation (three 64-bit divisions) only for a new stream or
	 * when the parameters differ from the stream's; else the cheap check.
	 * A header that fails never creates a stream. */
	params_ok = s != NULL && s->seq.started &&
		    codif_params_equal(&s->seq.ref, &r->hdr, NULL, 0);
	if (!params_ok) {
		if (codif_validate(&r->hdr, SIZE_MAX, a->err, sizeof(a->err)) != 0) {
			malformed(a, r, ACCT_M_HEADER);
			if (s != NULL)
				codif_seq_malformed(&s->seq);
			return;
		}
	} else if (r->hdr.frame >= s->seq.fpp) {
		snprintf(a->err, sizeof(a->err),
			 "frame %u, expected < %llu (frames per period)",
			 r->hdr.frame, (unsigned long long)s->seq.fpp);
		malformed(a, r, ACCT_M_HEADER);
		codif_seq_malformed(&s->seq);
		return;
	}
	if ((uint64_t)r->pi.payload_len != CODIF_HDR_LEN + codif_data_bytes(&r->hdr)) {
		snprintf(a->err, sizeof(a->err),
			 "UDP payload %u bytes, expected 64 + framelength8*8 = %llu",
			 r->pi.payload_len,
			 (unsigned long long)(CODIF_HDR_LEN + codif_data_bytes(&r->hdr)));
		malformed(a, r, ACCT_M_LENGTH);
		if (s != NULL)
			codif_seq_malformed(&s->seq);
		return;
	}
	if (s == NULL) {
		r->stream = add_stream(a, an, &r->hdr, r->pi.dst_ip, r->pi.dport);
		if (r->stream >= 0)
			an->stream[r->stream].group = g;
		if (r->stream < 0) {
			snprintf(a->err, sizeof(a->err),
				 "antenna has %d streams already (the most tracked)",
				 ACCT_MAX_STREAMS);
			malformed(a, r, ACCT_M_TOO_MANY_STREAMS);
			return;
		}
		s = &an->stream[r->stream];
	}
	if (!s->seq.started || params_ok)
		r->cls = codif_seq_push_trusted(&s->seq, &r->hdr, r->pi.payload_len,
						&r->index, &r->nlost, a->err,
						sizeof(a->err));
	else
		r->cls = codif_seq_push(&s->seq, &r->hdr, r->pi.payload_len, &r->index,
					&r->nlost, a->err, sizeof(a->err));
	if (r->cls == CODIF_SEQ_MALFORMED || r->cls == CODIF_SEQ_PARAM_CHANGE) {
		/* codif_seq_push counted it in the stream already */
		r->mal = r->cls == CODIF_SEQ_MALFORMED ? ACCT_M_SECONDS :
							 ACCT_M_PARAM_CHANGE;
		an->malformed++;
		an->mal[r->mal]++;
	}
	if (r->cls == CODIF_SEQ_FIRST)
		s->fpp = s->seq.fpp;
}

void
acct_totals_init(struct acct_ant_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->first_ns = INT64_MAX;
	t->last_ns = INT64_MIN;
}

void
acct_stream_add(const struct acct_stream *s, struct acct_ant_totals *t)
{
	const struct codif_seq_stats *st = &s->seq.st;

	t->streams++;
	t->expected += codif_seq_expected(&s->seq);
	t->received += st->received;
	t->lost += st->lost;
	t->late += st->late;
	t->duplicate += st->duplicate;
	t->invalid += st->invalid;
	t->too_old += st->too_old;
	t->param_change += st->param_change;
	t->bytes += st->bytes;
	if (s->seq.started) {
		if (s->seq.first_time_ns < t->first_ns)
			t->first_ns = s->seq.first_time_ns;
		if (s->seq.newest_time_ns > t->last_ns)
			t->last_ns = s->seq.newest_time_ns;
	}
}

void
acct_ant_add(const struct acct *a, unsigned int ant, struct acct_ant_totals *t)
{
	const struct acct_ant *an = &a->ant[ant];
	unsigned int i, n = __atomic_load_n(&an->nstream, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		acct_stream_add(&an->stream[i], t);
	/* malformed is counted per antenna (a malformed packet cannot be
	 * trusted to name its stream), so it is not summed from streams */
	t->malformed += an->malformed;
	for (i = 0; i < ACCT_M__COUNT; i++)
		t->mal[i] += an->mal[i];
	t->pkts += an->pkts;
	t->wire_bytes += an->wire_bytes;
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
acct_malformed_name(enum acct_malformed m)
{
	static const char *const names[ACCT_M__COUNT] = {
		[ACCT_M_L3L4] = "ipv4-udp",
		[ACCT_M_NOT_CODIF] = "not-codif",
		[ACCT_M_HEADER] = "bad-header",
		[ACCT_M_LENGTH] = "bad-length",
		[ACCT_M_SECONDS] = "bad-seconds",
		[ACCT_M_PARAM_CHANGE] = "parameter-change",
		[ACCT_M_SPLIT] = "split-offset",
		[ACCT_M_TOO_MANY_STREAMS] = "too-many-streams",
	};

	if ((unsigned int)m >= ACCT_M__COUNT)
		return "?";
	return names[m];
}
