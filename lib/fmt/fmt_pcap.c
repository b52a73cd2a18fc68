/* SPDX-License-Identifier: BSD-3-Clause */
/* The pcap format: file and record headers written into lib/fio's staging,
 * records read back through libpcap (pcapng too). A frame's packet is put
 * here for both: fmt_pkt_record chooses the record's form. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "fmt_int.h"
#include "fmt_pcap.h"

int
fmt_pcap_start(struct fmt_sink *s)
{
	/* magic (ns resolution), version 2.4, zone, sigfigs, snaplen, Ethernet */
	const uint32_t hdr[6] = { FMT_PCAP_MAGIC_NS, 2 | 4u << 16, 0, 0, s->snaplen,
				  DLT_EN10MB };
	int rc = fio_append(&s->f, hdr, sizeof(hdr));

	fmt_record_end(s);
	return rc;
}

uint8_t *
fmt_pkt_record(struct fmt_sink *s, uint32_t iface, int64_t t_ns, uint32_t caplen, uint32_t len)
{
	if (s->kind == FMT_PCAPNG)
		return fmt_pcapng_record(s, iface, t_ns, caplen, len);
	return fmt_pcap_record(s, t_ns, caplen, len); /* one link: no interfaces */
}

uint8_t *
fmt_pcap_record(struct fmt_sink *s, int64_t t_ns, uint32_t caplen, uint32_t len)
{
	const uint32_t rec[4] = { (uint32_t)(t_ns / 1000000000LL),
				  (uint32_t)(t_ns % 1000000000LL), caplen, len };
	uint8_t *p;

	if (s->kind == FMT_PCAPNG)
		return fmt_pcapng_record(s, 0, t_ns, caplen, len);
	p = fio_reserve(&s->f, sizeof(rec) + caplen);
	if (p == NULL)
		return NULL;
	memcpy(p, rec, sizeof(rec));
	s->cur.frames++; /* a packet */
	return p + sizeof(rec);
}

int
fmt_pcap_record_end(struct fmt_sink *s)
{
	int rc;

	fmt_record_end(s);
	rc = fio_maybe_flush(&s->f);
	fmt_settle(s);
	return rc;
}

static int
reserve_err(const struct fmt_sink *s, uint32_t iface)
{
	if (s->kind == FMT_PCAPNG && iface >= s->nifaces)
		return -EINVAL;
	return fio_error(&s->f) != 0 ? -fio_error(&s->f) : -E2BIG;
}

int
fmt_pcap_packet(struct fmt_sink *s, int64_t t_ns, const void *pkt, uint32_t len)
{
	uint32_t cap = len < s->snaplen ? len : s->snaplen;
	uint8_t *p = fmt_pcap_record(s, t_ns, cap, len);

	if (p == NULL)
		return reserve_err(s, 0);
	memcpy(p, pkt, cap);
	return fmt_pcap_record_end(s);
}

/* A frame of a row: its packet (L2-L4 headers, CODIF header, data) cut to
 * the snaplen; a frame that never arrived has no packet. */
int
fmt_pcap_put(struct fmt_sink *s, const struct fmt_frame *fr)
{
	uint32_t len, cap, off, n;
	uint8_t *p;

	if (fr->flags & (FMT_F_GAP | FMT_F_OVERRUN))
		return 0;
	len = fr->l2len + CODIF_HDR_LEN + fr->data_bytes;
	cap = len < s->snaplen ? len : s->snaplen;
	p = fmt_pkt_record(s, fr->iface, fr->t_ns, cap, len);
	if (p == NULL)
		return reserve_err(s, fr->iface);
	n = fr->l2len < cap ? fr->l2len : cap;
	if (n > 0)
		memcpy(p, fr->l2, n);
	off = n;
	n = cap - off < CODIF_HDR_LEN ? cap - off : CODIF_HDR_LEN;
	memcpy(p + off, fr->hdr, n);
	off += n;
	if (fr->data != NULL)
		memcpy(p + off, fr->data, cap - off);
	else
		memset(p + off, 0, cap - off);
	/* each packet a record: a cut keeps whole packets */
	fmt_record_end(s);
	return 1;
}

pcap_t *
fmt_pcap_open_read(const char *path, char *err, size_t errlen)
{
	char eb[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO,
							    eb);

	if (p == NULL)
		err_set(err, errlen, -EINVAL, "%s", eb);
	return p;
}

int
fmt_pcap_next(pcap_t *p, struct fmt_pcap_rec *r, char *err, size_t errlen)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int rc = pcap_next_ex(p, &h, &d);

	if (rc == PCAP_ERROR_BREAK)
		return 0;
	if (rc != 1) {
		return err_set(err, errlen, -EIO, "%s", pcap_geterr(p));
	}
	/* opened with nanosecond precision: tv_usec holds ns */
	r->t_ns = (int64_t)h->ts.tv_sec * 1000000000LL + h->ts.tv_usec;
	r->caplen = h->caplen;
	r->len = h->len;
	r->data = d;
	r->end = fmt_pcap_tell(p);
	return 1;
}

int64_t
fmt_pcap_tell(pcap_t *p)
{
	FILE *f = pcap_file(p);

	return f != NULL ? (int64_t)ftell(f) : -1;
}

void
fmt_pcap_rec_where(const struct fmt_pcap_rec *r, bool pcapng, uint64_t *off, uint64_t *data_off)
{
	/* pcap: a 16-byte record header, then the packet; pcapng: a 28-byte
	 * block header, the packet padded to 4 bytes, the 4-byte trailing length */
	uint32_t head = pcapng ? 28 : 16;
	uint32_t tail = pcapng ? 4 + (4 - r->caplen % 4) % 4 : 0;

	*data_off = r->end >= (int64_t)r->caplen + tail ? (uint64_t)r->end - r->caplen - tail : 0;
	*off = *data_off >= head ? *data_off - head : 0;
}
