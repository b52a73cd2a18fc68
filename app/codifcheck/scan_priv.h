/* SPDX-License-Identifier: BSD-3-Clause */
/* What the scan engine's files (scan*.c) share, and no caller sees: a frame
 * as a stream takes it, held frames, and the steps each format calls. */

#ifndef CC_SCAN_PRIV_H
#define CC_SCAN_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "scan.h"

/* A frame with everything a scan needs after its stream took it (or held
 * it: then these point into a copy). */
struct frame_in {
	const uint8_t *codif;     /* header + data */
	size_t len;
	struct codif_hdr h;
	uint64_t off, data_off;   /* file offsets of the header, of the data */
	int64_t ts;               /* capture arrival time, else INT64_MIN */
	int filled;               /* codif/raw: a placeholder (1), not (0), tell (-1) */
	int ant, stream;          /* capture: lib/acct's indices */
};

/* A frame held aside: a copy of its bytes. */
struct held {
	struct frame_in fi;
	struct cc_stream *st;
	uint8_t bytes[];
};

/* scan.c: a new stream of scan s (zeroed, its timeline set); NULL when out
 * of memory (s->err then -ENOMEM). */
struct cc_stream *cc_stream_add(struct cc_scan *s);

/* scan_seq.c: the sequence of a stream. */

/* A copy of frame fi and of the n bytes at base that hold it; NULL when out
 * of memory. */
struct held *cc_hold_copy(const struct frame_in *fi, struct cc_stream *st,
			  const uint8_t *base, size_t n);
/* Stream st takes frame fi as its timeline placed it (o): gaps, segments,
 * checks, the callback. @return 0 or a negative errno (s->err). */
int cc_take(struct cc_scan *s, struct cc_stream *st, const struct frame_in *fi,
	    const struct codif_out *o);
/* Held frame k dropped (its time or parameters never confirmed): counted
 * and reported. */
void cc_seq_dropped(struct cc_scan *s, struct held *k, enum codif_drop why);
/* Carry out the actions of a codif/raw stream's own timeline. @return 0 or
 * a negative errno. */
int cc_file_actions(struct cc_scan *s, struct cc_stream *st);
/* With --pattern: check the frame's data against codifgen's pattern. */
void cc_pattern_check(struct cc_scan *s, struct cc_stream *st, const struct codif_hdr *h,
		      const uint8_t *data, size_t len, uint64_t data_off, int64_t idx,
		      int64_t utc);

/* A frame of a codif or raw file before its stream's newest (they must
 * come in each stream's frame order): reported. */
void cc_backwards(struct cc_scan *s, struct cc_stream *st, enum codif_seq_class cls,
		  int64_t idx, uint64_t off, int64_t t);
/* The arrival timing of a capture's frame (ts: arrival ns). @return 0 or
 * -ENOMEM. */
int cc_timing(struct cc_stream *st, int64_t ts, const struct codif_hdr *h);

/* scan_pcap.c: a capture's antennas. */

/* The held frames of antenna ant released or dropped. @return 0 or a
 * negative errno. */
int cc_pcap_actions(struct cc_scan *s, int ant);

#endif /* CC_SCAN_PRIV_H */
