/* SPDX-License-Identifier: BSD-3-Clause */
/* L2-L4 validation of one Ethernet frame (IPv4/UDP), and header building. */

#ifndef PKT_H
#define PKT_H

#include <stdbool.h>
#include <stdint.h>

#define PKT_ETH_LEN 14
#define PKT_VLAN_LEN 4
#define PKT_IPV4_MIN_LEN 20
#define PKT_UDP_LEN 8
/** Ethernet + IPv4 (no options) + UDP. */
#define PKT_HDRS_LEN (PKT_ETH_LEN + PKT_IPV4_MIN_LEN + PKT_UDP_LEN)
/** At most this many stacked VLAN tags are parsed. */
#define PKT_MAX_VLAN 2

/* The default layout, the one place it is written: codifgen sends it and
 * the capture and codifcheck expect it unless told otherwise. Antenna i
 * (of 6) sends from 10.17.0.211 + i; group g (of 4) is 239.17.0.1 + g, UDP
 * port 36001 + g. Addresses in host byte order. */
#define PKT_LAYOUT_NANT 6
#define PKT_LAYOUT_NGROUP 4
#define PKT_LAYOUT_ANT_IP 0x0A1100D3u    /**< 10.17.0.211, antenna 0 */
#define PKT_LAYOUT_GROUP_IP 0xEF110001u  /**< 239.17.0.1, group 0 */
#define PKT_LAYOUT_UDP_PORT 36001        /**< group 0's */

#define PKT_ETHERTYPE_IPV4 0x0800
#define PKT_ETHERTYPE_IPV6 0x86DD
#define PKT_ETHERTYPE_ARP 0x0806
#define PKT_ETHERTYPE_VLAN 0x8100
#define PKT_ETHERTYPE_QINQ 0x88A8

/** Why a frame is not a usable IPv4/UDP datagram; one counter each. */
enum pkt_err {
	PKT_OK = 0,
	PKT_ERR_ETH_SHORT,   /**< shorter than an Ethernet header (+ tags) */
	PKT_ERR_NOT_IPV4,    /**< ethertype is not IPv4 (ARP, IPv6, ...) */
	PKT_ERR_IP_SHORT,    /**< frame ends inside the IPv4 header */
	PKT_ERR_IP_VERSION,  /**< version field is not 4 */
	PKT_ERR_IP_IHL,      /**< IHL < 5 */
	PKT_ERR_IP_LEN,      /**< total length < header, or > frame (truncated) */
	PKT_ERR_IP_FRAG,     /**< a fragment (MF set or offset != 0) */
	PKT_ERR_NOT_UDP,     /**< protocol is not UDP */
	PKT_ERR_UDP_LEN,     /**< UDP length < 8 or > IPv4 payload */
	PKT_ERR_IP_CSUM,     /**< IPv4 header checksum wrong (the port's offload
				  said so, or the software check) */
	PKT__ERR_COUNT
};

/** What the port's receive offload says of the IPv4 header checksum. */
enum pkt_csum {
	PKT_CSUM_UNKNOWN = 0, /**< nothing: checked in software */
	PKT_CSUM_GOOD,        /**< the port checked it: good */
	PKT_CSUM_BAD,         /**< the port checked it: bad */
};

/** What pkt_parse found; fields are valid as far as parsing got. */
struct pkt_info {
	uint16_t ethertype;   /**< innermost ethertype */
	uint8_t nvlan;        /**< VLAN tags seen */
	uint16_t vlan_tci;    /**< outermost tag's TCI */
	bool have_ip;         /**< src_ip/dst_ip are valid */
	uint32_t src_ip;      /**< host byte order */
	uint32_t dst_ip;      /**< host byte order */
	uint16_t l3_off;
	uint16_t l4_off;
	uint16_t sport;       /**< host order, valid when PKT_OK */
	uint16_t dport;
	uint32_t payload_off; /**< UDP payload offset */
	uint32_t payload_len; /**< UDP length - 8 */
};

/**
 * Parse an Ethernet frame down to its UDP payload. Never reads past len.
 * @return PKT_OK or the first problem found.
 */
enum pkt_err pkt_parse(const uint8_t *frame, uint32_t len, struct pkt_info *pi);

/**
 * pkt_parse of a frame of which only the first caplen bytes are readable
 * here (buffer split: the rest is in another segment, e.g. GPU memory):
 * reads stay within caplen, lengths are checked against wirelen.
 */
enum pkt_err pkt_parse_len(const uint8_t *frame, uint32_t caplen,
			   uint32_t wirelen, struct pkt_info *pi);

/**
 * pkt_parse_len with the port's verdict on the IPv4 header checksum
 * (PKT_CSUM_UNKNOWN: checked here, in software, as pkt_parse and
 * pkt_parse_len do). A wrong checksum is PKT_ERR_IP_CSUM, found after the
 * version and IHL (the addresses are then in pi, unverified).
 */
enum pkt_err pkt_parse_csum(const uint8_t *frame, uint32_t caplen, uint32_t wirelen,
			    enum pkt_csum csum, struct pkt_info *pi);

/** Whether the IPv4 header of ihl bytes at ip has a correct checksum. */
bool pkt_ip_csum_ok(const uint8_t *ip, uint32_t ihl);

/** Short name of a parse error, e.g. "not-ipv4". */
const char *pkt_err_name(enum pkt_err e);

/** Multicast MAC of an IPv4 group (01:00:5e + low 23 bits). */
void pkt_mcast_mac(uint32_t group, uint8_t mac[6]);

/** Header fields for pkt_build_udp4. */
struct pkt_udp4_spec {
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
	bool vlan;             /**< insert an 802.1Q tag */
	uint16_t vlan_tci;
	uint32_t src_ip;       /**< host order */
	uint32_t dst_ip;
	uint16_t sport;
	uint16_t dport;
	uint8_t ttl;
	uint16_t ip_id;
};

/**
 * Write Ethernet [+ VLAN] + IPv4 + UDP headers for a payload of
 * payload_len bytes (IPv4 checksum computed, UDP checksum 0).
 * @return header length written (42 or 46).
 */
uint32_t pkt_build_udp4(uint8_t *buf, const struct pkt_udp4_spec *sp,
			uint32_t payload_len);

/** IPv4 header checksum over len bytes. */
uint16_t pkt_ip_csum(const uint8_t *hdr, uint32_t len);

#endif /* PKT_H */
