/* SPDX-License-Identifier: BSD-3-Clause */
/* L2-L4 parsing of Ethernet/VLAN/IPv4/UDP frames and header synthesis. */

#include <string.h>

#include "pkt.h"
#include "wire.h"

enum pkt_err
pkt_parse(const uint8_t *f, uint32_t len, struct pkt_info *pi)
{
	return pkt_parse_len(f, len, len, pi);
}

enum pkt_err
pkt_parse_len(const uint8_t *f, uint32_t caplen, uint32_t wirelen,
	      struct pkt_info *pi)
{
	return pkt_parse_csum(f, caplen, wirelen, PKT_CSUM_UNKNOWN, pi);
}

bool
pkt_ip_csum_ok(const uint8_t *ip, uint32_t ihl)
{
	/* the one's complement sum of the header, its checksum included, is
	 * 0xffff; summed as 32-bit words (ihl is a multiple of 4), folded */
	uint64_t sum = 0;
	uint32_t i, w;

	for (i = 0; i < ihl; i += 4) {
		memcpy(&w, ip + i, 4);
		sum += w;
	}
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

enum pkt_err
pkt_parse_csum(const uint8_t *f, uint32_t caplen, uint32_t wirelen, enum pkt_csum csum,
	       struct pkt_info *pi)
{
	uint32_t off = 12, ihl, tot, ulen, len = caplen;
	uint16_t et;
	const uint8_t *ip;

	memset(pi, 0, sizeof(*pi));
	if (len < PKT_ETH_LEN)
		return PKT_ERR_ETH_SHORT;
	et = ld_be16(f + off);
	while (et == PKT_ETHERTYPE_VLAN || et == PKT_ETHERTYPE_QINQ) {
		if (pi->nvlan == PKT_MAX_VLAN || len < off + 2 + PKT_VLAN_LEN + 2) {
			pi->ethertype = et;
			return pi->nvlan == PKT_MAX_VLAN ? PKT_ERR_NOT_IPV4 :
							   PKT_ERR_ETH_SHORT;
		}
		if (pi->nvlan == 0)
			pi->vlan_tci = ld_be16(f + off + 2);
		pi->nvlan++;
		off += PKT_VLAN_LEN;
		et = ld_be16(f + off);
	}
	pi->ethertype = et;
	off += 2;
	if (et != PKT_ETHERTYPE_IPV4)
		return PKT_ERR_NOT_IPV4;
	pi->l3_off = (uint16_t)off;
	if (len < off + PKT_IPV4_MIN_LEN)
		return PKT_ERR_IP_SHORT;
	ip = f + off;
	if ((ip[0] >> 4) != 4)
		return PKT_ERR_IP_VERSION;
	pi->src_ip = ld_be32(ip + 12);
	pi->dst_ip = ld_be32(ip + 16);
	pi->have_ip = true;
	ihl = (uint32_t)(ip[0] & 0xf) * 4;
	if (ihl < PKT_IPV4_MIN_LEN)
		return PKT_ERR_IP_IHL;
	if (csum == PKT_CSUM_BAD ||
	    (csum == PKT_CSUM_UNKNOWN && off + ihl <= len && !pkt_ip_csum_ok(ip, ihl)))
		return PKT_ERR_IP_CSUM;
	tot = ld_be16(ip + 2);
	if (tot < ihl || off + tot > wirelen)
		return PKT_ERR_IP_LEN;
	if ((ld_be16(ip + 6) & 0x3fff) != 0)
		return PKT_ERR_IP_FRAG;
	if (ip[9] != 17)
		return PKT_ERR_NOT_UDP;
	pi->l4_off = (uint16_t)(off + ihl);
	if (tot - ihl < PKT_UDP_LEN)
		return PKT_ERR_UDP_LEN;
	if (off + ihl + PKT_UDP_LEN > len)
		return PKT_ERR_IP_SHORT; /* headers beyond what is readable */
	ulen = ld_be16(f + pi->l4_off + 4);
	if (ulen < PKT_UDP_LEN || ulen > tot - ihl)
		return PKT_ERR_UDP_LEN;
	pi->sport = ld_be16(f + pi->l4_off);
	pi->dport = ld_be16(f + pi->l4_off + 2);
	pi->payload_off = pi->l4_off + PKT_UDP_LEN;
	pi->payload_len = ulen - PKT_UDP_LEN;
	return PKT_OK;
}

const char *
pkt_err_name(enum pkt_err e)
{
	static const char *const names[PKT__ERR_COUNT] = {
		[PKT_OK] = "ok",
		[PKT_ERR_ETH_SHORT] = "eth-short",
		[PKT_ERR_NOT_IPV4] = "not-ipv4",
		[PKT_ERR_IP_SHORT] = "ip-short",
		[PKT_ERR_IP_VERSION] = "ip-version",
		[PKT_ERR_IP_IHL] = "ip-ihl",
		[PKT_ERR_IP_LEN] = "ip-length",
		[PKT_ERR_IP_FRAG] = "ip-fragment",
		[PKT_ERR_NOT_UDP] = "not-udp",
		[PKT_ERR_UDP_LEN] = "udp-length",
		[PKT_ERR_IP_CSUM] = "ip-checksum",
	};

	if ((unsigned int)e >= PKT__ERR_COUNT)
		return "?";
	return names[e];
}

void
pkt_mcast_mac(uint32_t group, uint8_t mac[6])
{
	mac[0] = 0x01;
	mac[1] = 0x00;
	mac[2] = 0x5e;
	mac[3] = (uint8_t)((group >> 16) & 0x7f);
	mac[4] = (uint8_t)(group >> 8);
	mac[5] = (uint8_t)group;
}

uint16_t
pkt_ip_csum(const uint8_t *hdr, uint32_t len)
{
	uint32_t sum = 0, i;

	for (i = 0; i + 1 < len; i += 2)
		sum += ld_be16(hdr + i);
	if (len & 1)
		sum += (uint32_t)hdr[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint32_t
pkt_build_udp4(uint8_t *buf, const struct pkt_udp4_spec *sp,
	       uint32_t payload_len)
{
	uint32_t off = 12;
	uint8_t *ip, *udp;

	memcpy(buf, sp->dst_mac, 6);
	memcpy(buf + 6, sp->src_mac, 6);
	if (sp->vlan) {
		st_be16(buf + off, PKT_ETHERTYPE_VLAN);
		st_be16(buf + off + 2, sp->vlan_tci);
		off += PKT_VLAN_LEN;
	}
	st_be16(buf + off, PKT_ETHERTYPE_IPV4);
	off += 2;
	ip = buf + off;
	ip[0] = 0x45;
	ip[1] = 0;
	st_be16(ip + 2, (uint16_t)(PKT_IPV4_MIN_LEN + PKT_UDP_LEN + payload_len));
	st_be16(ip + 4, sp->ip_id);
	st_be16(ip + 6, 0x4000); /* DF */
	ip[8] = sp->ttl;
	ip[9] = 17;
	st_be16(ip + 10, 0);
	st_be32(ip + 12, sp->src_ip);
	st_be32(ip + 16, sp->dst_ip);
	st_be16(ip + 10, pkt_ip_csum(ip, PKT_IPV4_MIN_LEN));
	udp = ip + PKT_IPV4_MIN_LEN;
	st_be16(udp, sp->sport);
	st_be16(udp + 2, sp->dport);
	st_be16(udp + 4, (uint16_t)(PKT_UDP_LEN + payload_len));
	st_be16(udp + 6, 0);
	return off + PKT_IPV4_MIN_LEN + PKT_UDP_LEN;
}
