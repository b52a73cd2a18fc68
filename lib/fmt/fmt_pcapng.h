/* SPDX-License-Identifier: BSD-3-Clause */
/* pcapng as written here (docs/formats.md, "pcapng"): one section in the
 * host's byte order; its header block names the writing program
 * (shb_userappl) and carries a comment (the scan); an interface description
 * block per antenna (if_name, if_IPv4addr, if_tsresol 9: nanoseconds),
 * Ethernet, the sink's snaplen; then one enhanced packet block per packet,
 * without options. Read back through libpcap (fmt_pcap_open_read), as
 * libpcap >= 1.10, tshark and Wireshark read any pcapng. */

#ifndef FMT_PCAPNG_H
#define FMT_PCAPNG_H

#include <stdint.h>

#include "fmt.h"
#include "fmt_pcap.h"

#define FMT_PCAPNG_SHB 0x0A0D0D0Au      /**< section header block */
#define FMT_PCAPNG_IDB 0x00000001u      /**< interface description block */
#define FMT_PCAPNG_EPB 0x00000006u      /**< enhanced packet block */
#define FMT_PCAPNG_BOM 0x1A2B3C4Du      /**< byte-order magic */
#define FMT_PCAPNG_EPB_HDR 28           /**< an EPB's bytes before the packet */
#define FMT_PCAPNG_EPB_TAIL 4           /**< and after it (beyond padding) */

/* option codes (pcapng draft, section 4) */
#define FMT_PCAPNG_OPT_END 0
#define FMT_PCAPNG_OPT_COMMENT 1
#define FMT_PCAPNG_SHB_USERAPPL 4
#define FMT_PCAPNG_IF_NAME 2
#define FMT_PCAPNG_IF_IPV4 4
#define FMT_PCAPNG_IF_TSRESOL 9

/** Bytes an EPB of caplen bytes of packet takes. */
static inline uint32_t
fmt_pcapng_epb_bytes(uint32_t caplen)
{
	return FMT_PCAPNG_EPB_HDR + ((caplen + 3u) & ~3u) + FMT_PCAPNG_EPB_TAIL;
}

#endif /* FMT_PCAPNG_H */
