/* SPDX-License-Identifier: BSD-3-Clause */
/* pcap as written and read here: classic libpcap format, nanosecond
 * timestamps (magic 0xa1b23c4d), Ethernet, host byte order (formats.md). */

#ifndef FMT_PCAP_H
#define FMT_PCAP_H

#include <pcap/pcap.h>
#include <stdint.h>

#include "fmt.h"

#define FMT_PCAP_MAGIC_NS 0xA1B23C4Du
#define FMT_PCAP_FILE_HDR 24   /**< file header bytes */
#define FMT_PCAP_REC_HDR 16    /**< record header bytes */

/**
 * Reserve one record of caplen bytes (of a packet of len bytes on the wire)
 * at time t_ns in a pcap sink: its header is written, the caller fills the
 * caplen bytes returned and ends it with fmt_pcap_record_end.
 * @return where the packet bytes go, or NULL after an I/O error
 *   (fio_error(&s->f)) or when the record exceeds the staging buffer.
 */
uint8_t *fmt_pcap_record(struct fmt_sink *s, int64_t t_ns, uint32_t caplen, uint32_t len);

/**
 * End the record reserved last: it is whole (a cut keeps it); writes out
 * the staged bytes when half the buffer is used.
 * @return 0, or the negative errno of an I/O error.
 */
int fmt_pcap_record_end(struct fmt_sink *s);

/**
 * One whole packet of len bytes at time t_ns as a record, cut to the
 * sink's snaplen.
 * @return 0, -E2BIG (larger than the staging buffer), or the negative
 *   errno of an I/O error.
 */
int fmt_pcap_packet(struct fmt_sink *s, int64_t t_ns, const void *pkt, uint32_t len);

/** One record read. */
struct fmt_pcap_rec {
	int64_t t_ns;            /**< its time, Unix ns (µs files: whole µs) */
	uint32_t caplen, len;    /**< bytes kept, bytes on the wire */
	const uint8_t *data;     /**< caplen bytes (valid until the next read) */
	int64_t end;             /**< the file offset just past it, -1 unknown */
};

/**
 * Open a pcap or pcapng file for reading through libpcap, with timestamps
 * in nanoseconds whatever the file's resolution.
 * @return the handle (pcap_close it), or NULL with libpcap's reason in
 *   err (it names the file when it cannot be opened).
 */
pcap_t *fmt_pcap_open_read(const char *path, char *err, size_t errlen);

/**
 * The next record of p.
 * @return 1 (r filled), 0 at the end, or -EIO (damage: libpcap's reason in
 *   err).
 */
int fmt_pcap_next(pcap_t *p, struct fmt_pcap_rec *r, char *err, size_t errlen);

/**
 * Where record r lies in its file (pcapng: the file is one, its packets
 * enhanced packet blocks as fmt_pcapng writes them, without options): off,
 * its record header's offset (pcap 16 bytes, the block's 28); data_off,
 * its packet bytes'. Both 0 when its end is not known.
 */
void fmt_pcap_rec_where(const struct fmt_pcap_rec *r, bool pcapng, uint64_t *off,
			uint64_t *data_off);

/** p's file offset now (after the last record read, or where damage began), -1 unknown. */
int64_t fmt_pcap_tell(pcap_t *p);

#endif /* FMT_PCAP_H */
