/* SPDX-License-Identifier: BSD-3-Clause */
/* Scanning pcap and pcapng captures: link headers, filters, streams keyed
 * by addresses and CODIF ids, arrival timing. */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codif_pattern.h"
#include "fmt_pcap.h"
#include "parse.h"
#include "scan.h"
#include "scan_priv.h"

/* Scratch for re-framed capture packets: the largest pcap record. */
#define CC_SCRATCH (256u << 10)


/* Link layers read, and how long their header is: other than Ethernet,
 * a packet is re-framed behind a 14-byte Ethernet header for lib/acct. */
static int
link_header(int dlt, uint32_t *hdrlen)
{
	switch (dlt) {
	case DLT_EN10MB:
		*hdrlen = 14;
		return 0;
	case DLT_LINUX_SLL:
		*hdrlen = 16;
		return 0;
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
		*hdrlen = 20;
		return 0;
#endif
	case DLT_RAW:
#ifdef DLT_IPV4
	case DLT_IPV4:
#endif
		*hdrlen = 0;
		return 0;
	default:
		return -EPROTONOSUPPORT;
	}
}

/* The packet as an Ethernet frame (pointer into data, or s->scratch). */
static const uint8_t *
as_ethernet(struct cc_scan *s, const uint8_t *data, uint32_t caplen,
	    uint32_t hdrlen, uint32_t *len)
{
	uint16_t proto;
	uint32_t n;

	if (s->linktype == DLT_EN10MB) {
		*len = caplen;
		return data;
	}
	if (caplen < hdrlen) {
		*len = 0;
		return s->scratch;
	}
	if (hdrlen == 16)
		proto = (uint16_t)(data[14] << 8 | data[15]);
	else if (hdrlen == 20)
		proto = (uint16_t)(data[0] << 8 | data[1]);
	else
		proto = caplen > 0 && data[0] >> 4 == 4 ? PKT_ETHERTYPE_IPV4 : 0;
	n = caplen - hdrlen;
	if (n > CC_SCRATCH - PKT_ETH_LEN)
		n = CC_SCRATCH - PKT_ETH_LEN;
	memset(s->scratch, 0, 12);
	s->scratch[12] = (uint8_t)(proto >> 8);
	s->scratch[13] = (uint8_t)proto;
	memcpy(s->scratch + PKT_ETH_LEN, data + hdrlen, n);
	*len = n + PKT_ETH_LEN;
	return s->scratch;
}

bool
cc_filter_pass(const struct cc_filter *f, const struct pkt_info *pi,
	       enum pkt_err pe, enum acct_cause *cause)
{
	bool port_seen = false;
	unsigned int i;

	if (!pi->have_ip) {
		*cause = (enum acct_cause)pe; /* not IPv4: nobody's */
		return false;
	}
	for (i = 0; i < f->nant && f->ant_ip[i] != pi->src_ip; i++)
		;
	if (f->nant != 0 && i == f->nant) {
		*cause = ACCT_C_UNKNOWN_SOURCE;
		return false;
	}
	/* an antenna's packet that is not UDP is its malformed packet */
	if (f->ngroup == 0 || pe != PKT_OK)
		return true;
	for (i = 0; i < f->ngroup; i++) {
		if (f->group[i].ip != pi->dst_ip)
			continue;
		if (f->group[i].port == pi->dport)
			return true;
		port_seen = true;
	}
	*cause = port_seen ? ACCT_C_UNKNOWN_PORT : ACCT_C_UNKNOWN_GROUP;
	return false;
}

static enum cc_pkind
malformed_kind(enum acct_malformed m)
{
	switch (m) {
	case ACCT_M_L3L4: return CC_P_IPUDP;
	case ACCT_M_NOT_CODIF: return CC_P_SYNC;
	case ACCT_M_LENGTH: return CC_P_LENGTH;
	case ACCT_M_PARAM_CHANGE: return CC_P_PARAM;
	case ACCT_M_TOO_MANY_STREAMS: return CC_P_LIMIT;
	default: return CC_P_HEADER;
	}
}

static struct cc_stream *
pcap_stream(struct cc_scan *s, int ant, int stream)
{
	struct acct_stream *as = &s->acct->ant[ant].stream[stream];
	struct cc_stream *st = s->side[ant][stream];

	if (st != NULL)
		return st;
	st = cc_stream_add(s);
	if (st == NULL) {
		s->err = -ENOMEM;
		return NULL;
	}
	st->net = true;
	st->src = acct_layout_of(s->acct)->ant_ip[ant];
	st->dst = as->dst_ip;
	st->port = as->dport;
	st->stationid = as->stationid;
	st->groupid = as->groupid;
	st->secondaryid = as->secondaryid;
	st->threadid = as->threadid;
	st->ant = ant;
	st->seq = &as->seq;
	st->tl = &s->acct->ant[ant].tl;
	s->side[ant][stream] = st;
	return st;
}

struct rec {
	const uint8_t *data;
	uint32_t caplen, len;
	uint64_t off;       /* file offset of the record */
	uint64_t data_off;  /* file offset of its first captured byte */
	int64_t ts;
};

/* The tracker's verdict on a capture's frame, as lib/acct gave it. */
static void
out_of(const struct acct_fd *fd, uint64_t tail, struct codif_out *o)
{
	memset(o, 0, sizeof(*o));
	o->cls = (enum codif_seq_class)fd->cls;
	o->flags = fd->flags & (CODIF_OUT_SEG_START | CODIF_OUT_RESYNC | CODIF_OUT_NEW_PARAMS);
	o->seg = fd->tseg;
	o->index = fd->index;
	o->nlost = fd->nlost;
	o->tail = tail;
}

/* The held frames of antenna ant released or dropped. */
int
cc_pcap_actions(struct cc_scan *s, int ant)
{
	struct acct_action act;
	int rc = 0;

	while (acct_action(s->acct, ant, &act)) {
		struct held *k = (struct held *)(uintptr_t)act.handle;

		if (k == NULL)
			continue;
		if (act.drop) {
			cc_seq_dropped(s, k, act.why);
		} else if (rc == 0) {
			struct cc_stream *st = pcap_stream(s, ant, act.fd.stream);
			struct codif_out o;

			if (st == NULL) {
				rc = s->err;
			} else {
				out_of(&act.fd, act.tail, &o);
				rc = cc_take(s, st, &k->fi, &o);
			}
		}
		free(k);
	}
	return rc;
}

static int
pcap_packet(struct cc_scan *s, const struct rec *k, uint32_t hdrlen)
{
	struct acct_result r;
	struct cc_stream *st;
	struct frame_in fi;
	struct codif_out o;
	const uint8_t *f;
	uint32_t flen;
	char ip[16];
	int rc = 0;

	f = as_ethernet(s, k->data, k->caplen, hdrlen, &flen);
	if (s->o.filter != NULL && (s->o.filter->nant != 0 || s->o.filter->ngroup != 0)) {
		struct pkt_info pi;
		enum acct_cause cause;

		if (!cc_filter_pass(s->o.filter, &pi, pkt_parse(f, flen, &pi), &cause)) {
			s->unattributed[cause]++;
			return 0;
		}
	}
	{
		/* the record's time is the arrival: an outage is told from a
		 * clock step as the capture does it live */
		struct acct_rx rx = { .arrival_ns = k->ts, .ip_csum = PKT_CSUM_UNKNOWN };

		acct_frame_rx(s->acct, 0, f, flen, flen, &rx, &r);
	}
	if (r.ant < 0) {
		s->unattributed[r.cause]++;
		return 0; /* not from an antenna */
	}
	if (r.fd.cls == CODIF_SEQ_MALFORMED) {
		char snap[64] = "";

		if (k->caplen < k->len)
			snprintf(snap, sizeof(snap), " (record cut to %u of %u bytes)",
				 k->caplen, k->len);
		cc_scan_problem(s, malformed_kind(r.mal), k->off, k->ts,
				"packet from %s: %s%s",
				ipv4_str(acct_layout_of(s->acct)->ant_ip[r.ant], ip, sizeof(ip)),
				s->acct->err, snap);
		goto actions;
	}
	st = pcap_stream(s, r.ant, r.fd.stream);
	if (st == NULL)
		return s->err;
	memset(&fi, 0, sizeof(fi));
	fi.codif = f + r.fd.codif_off;
	fi.len = r.fd.codif_len;
	fi.h = r.hdr;
	fi.off = k->data_off + r.fd.codif_off - PKT_ETH_LEN + hdrlen;
	fi.data_off = fi.off + CODIF_HDR_LEN;
	fi.ts = k->ts;
	fi.filled = 0;
	fi.ant = r.ant;
	fi.stream = r.fd.stream;
	if (r.fd.cls == CODIF_SEQ_SUSPECT) {
		if (r.hold != NULL) {
			struct held *kp = cc_hold_copy(&fi, st, f, flen);

			if (kp == NULL)
				return s->err = -ENOMEM;
			r.hold->handle = (uintptr_t)kp;
		}
	} else if (acct_placeable(r.fd.cls)) {
		out_of(&r.fd, r.tail, &o);
		rc = cc_take(s, st, &fi, &o);
	} else if (s->o.pattern) {
		/* late and duplicate copies still carry codifgen's pattern */
		cc_pattern_check(s, st, &r.hdr, fi.codif + CODIF_HDR_LEN,
			      fi.len - CODIF_HDR_LEN, fi.data_off, r.fd.index, k->ts);
	}
actions:
	if (rc == 0 && acct_busy(s->acct, r.ant))
		rc = cc_pcap_actions(s, r.ant);
	return rc;
}

int
cc_scan_pcap(struct cc_scan *s, pcap_t *p)
{
	struct acct_layout l;
	struct fmt_pcap_rec r;
	char err[PCAP_ERRBUF_SIZE + 64];
	uint32_t hdrlen;
	int rc;

	/* libpcap reports pcapng as version 2.4 too: the caller says which */
	if (s->fmt != CC_FMT_PCAPNG)
		s->fmt = CC_FMT_PCAP;
	s->linktype = pcap_datalink(p);
	if (link_header(s->linktype, &hdrlen) != 0) {
		s->damaged = true;
		cc_scan_problem(s, CC_P_FORMAT, UINT64_MAX, INT64_MIN,
				"link type %d (%s) not read: expected Ethernet, Linux "
				"cooked (SLL/SLL2) or raw IP", s->linktype,
				pcap_datalink_val_to_name(s->linktype) ?
				pcap_datalink_val_to_name(s->linktype) : "?");
		return 0;
	}
	memset(&l, 0, sizeof(l));
	l.learn = true;
	l.tl = s->o.tl;
	s->acct = acct_create(&l);
	s->scratch = malloc(CC_SCRATCH);
	if (s->acct == NULL || s->scratch == NULL)
		return s->err = -ENOMEM;
	/* lib/fmt's reader: the records, their times in ns and where they lie */
	while ((rc = fmt_pcap_next(p, &r, err, sizeof(err))) == 1) {
		struct rec k;

		k.data = r.data;
		k.caplen = r.caplen;
		k.len = r.len;
		fmt_pcap_rec_where(&r, s->fmt == CC_FMT_PCAPNG, &k.off, &k.data_off);
		k.ts = r.t_ns;
		s->records++;
		rc = pcap_packet(s, &k, hdrlen);
		if (rc != 0)
			return rc;
	}
	if (rc < 0) {
		int64_t end = fmt_pcap_tell(p);

		s->damaged = true;
		cc_scan_problem(s, strstr(err, "truncated") != NULL ? CC_P_TRUNCATED : CC_P_PCAP,
				end >= 0 ? (uint64_t)end : UINT64_MAX, s->last_good_ns,
				"pcap record damage after %" PRIu64 " records: %s",
				s->records, err);
	}
	return 0;
}
