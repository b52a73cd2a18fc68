/* SPDX-License-Identifier: BSD-3-Clause */
/* File names of docs/formats.md, <DIR>/<PREFIX>_<ANTENNA>_<UTC>.<ext>: the
 * one place their UTC stamp is written and read (capture writers,
 * dpdk-ibvcap-dump, codifcheck convert and its name parser), and the clock
 * it is on (a packet's frame time). */

#ifndef FMT_NAME_H
#define FMT_NAME_H

#include <stddef.h>
#include <stdint.h>

/** "YYYYMMDDTHHMMSS.nnnnnnnnnZ" plus NUL. */
#define FMT_NAME_UTC_LEN 27

/** ns since the Unix epoch as YYYYMMDDTHHMMSS.nnnnnnnnnZ. @return buf. */
char *fmt_name_utc(int64_t unix_ns, char *buf, size_t len);

/**
 * Parse a file name's UTC stamp (exactly as fmt_name_utc writes it).
 * @return 0, or -EINVAL.
 */
int fmt_parse_name_utc(const char *s, int64_t *unix_ns);

/**
 * The time a file that begins with this packet is named after: one clock,
 * the frame's, in every file name (docs/formats.md). The CODIF time of the
 * frame the packet carries (an IPv4/UDP datagram, VLAN tags allowed, whose
 * payload is a valid CODIF v3 frame); its arrival time only when it carries
 * none (not CODIF, or its header beyond the caplen bytes at pkt).
 * @param wirelen its length on the wire (caplen: the bytes at pkt)
 */
int64_t fmt_name_time(const uint8_t *pkt, uint32_t caplen, uint32_t wirelen,
		      int64_t arrival_ns);

/**
 * "<dir>/<prefix>_<antenna>_<UTC of t_ns>.<ext>" into out.
 * @return 0, or -ENAMETOOLONG when it does not fit len bytes.
 */
int fmt_file_name(char *out, size_t len, const char *dir, const char *prefix,
		  const char *antenna, int64_t t_ns, const char *ext);

#endif /* FMT_NAME_H */
