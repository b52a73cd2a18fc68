/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/fmt inside: what fmt.c calls in each format's file (not for users). */

#ifndef FMT_INT_H
#define FMT_INT_H

#include "fmt.h"

/* The bytes so far end a record (a row; a pcap packet): a cut keeps it;
 * what it holds (s->cur) is counted when it reaches the file (fmt.c). */
void fmt_record_end(struct fmt_sink *s);

/* Count the records written out so far (after a flush). */
void fmt_settle(struct fmt_sink *s);

/* Take back staged records ending after mark (a row taken back). */
void fmt_unstage(struct fmt_sink *s, uint64_t mark);

/* At the close: the file holds `kept` bytes (0: none, not kept); what was
 * staged beyond is cut (fmt_record.c). */
void fmt_settle_close(struct fmt_sink *s, uint64_t staged, uint64_t kept);

/* Free the record queue. */
void fmt_pend_free(struct fmt_sink *s);

/* A frame of flags (FMT_F_*) went into the record in progress. */
static inline void
fmt_count(struct fmt_sink *s, uint32_t flags)
{
	if (flags & FMT_F_GAP)
		s->cur.gaps++;
	else if (flags & FMT_F_OVERRUN)
		s->cur.overrun++;
	else
		s->cur.frames++;
}

/* pcap (fmt_pcap.c) */
int fmt_pcap_start(struct fmt_sink *s);
int fmt_pcap_put(struct fmt_sink *s, const struct fmt_frame *fr);

/* pcapng (fmt_pcapng.c) */
int fmt_pcapng_start(struct fmt_sink *s, const struct fmt_opts *o);
uint8_t *fmt_pcapng_record(struct fmt_sink *s, uint32_t iface, int64_t t_ns, uint32_t caplen,
			   uint32_t len);

/* either: a record of a packet's caplen bytes on interface iface (pcap
 * has none: iface is not used); the caller fills them (fmt_pcap.c) */
uint8_t *fmt_pkt_record(struct fmt_sink *s, uint32_t iface, int64_t t_ns, uint32_t caplen,
			uint32_t len);

/* codif (fmt_codif.c) */
int fmt_codif_put(struct fmt_sink *s, const struct fmt_frame *fr);

/* raw (fmt_raw.c) */
int fmt_raw_start(struct fmt_sink *s, const struct fmt_raw_index *idx, char *err,
		  size_t errlen);
int fmt_raw_put(struct fmt_sink *s, const struct fmt_frame *fr);
int fmt_raw_row_end(struct fmt_sink *s);
/* by reference: take the oldest unconfirmed row off the queue, its runs
 * added as intact or overrun; *was: its end and counts as queued */
int fmt_raw_confirm(struct fmt_sink *s, bool intact, struct fmt_pending *was);
uint32_t fmt_raw_nstream(const struct fmt_sink *s);
/* the index of the rows kept in *bytes of raw data, beside the file; on a
 * full disk whole rows are cut off the data until it fits (*bytes less) */
int fmt_raw_finish(struct fmt_sink *s, uint64_t *bytes, char *err, size_t errlen);
void fmt_raw_free(struct fmt_sink *s);
size_t fmt_raw_index_bytes_max(const struct fmt_sink *s);

#endif /* FMT_INT_H */
