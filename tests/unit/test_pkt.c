/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of lib/pkt (L2-L4 parsing, header building), lib/util/parse and tconv. */

#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "parse.h"
#include "pkt.h"
#include "tconv.h"

static uint32_t
build(uint8_t *b, bool vlan, uint32_t plen)
{
	struct pkt_udp4_spec sp;

	memset(&sp, 0, sizeof(sp));
	sp.src_ip = 0x0A1100D3; /* 10.17.0.211 */
	sp.dst_ip = 0xEF110001; /* 239.17.0.1 */
	sp.sport = 36001;
	sp.dport = 36001;
	sp.ttl = 1;
	sp.vlan = vlan;
	sp.vlan_tci = 100;
	pkt_mcast_mac(sp.dst_ip, sp.dst_mac);
	memset(b + (vlan ? 46 : 42), 0x5a, plen);
	return pkt_build_udp4(b, &sp, plen) + plen;
}

static void
test_parse_ok(void)
{
	static uint8_t b[9100];
	struct pkt_info pi;
	uint32_t len;

	len = build(b, false, 8256);
	CHECK_EQ_U(len, 8298);
	CHECK(pkt_parse(b, len, &pi) == PKT_OK);
	CHECK_EQ_U(pi.src_ip, 0x0A1100D3);
	CHECK_EQ_U(pi.dst_ip, 0xEF110001);
	CHECK_EQ_U(pi.dport, 36001);
	CHECK_EQ_U(pi.payload_off, 42);
	CHECK_EQ_U(pi.payload_len, 8256);
	CHECK_EQ_U(pi.nvlan, 0);
	CHECK_EQ_U(b[0], 0x01);
	CHECK_EQ_U(b[2], 0x5e);
	CHECK_EQ_U(b[3], 0x11);
	CHECK_EQ_U(b[5], 0x01);
	/* the IPv4 checksum verifies to zero */
	CHECK_EQ_U(pkt_ip_csum(b + 14, 20), 0);
	/* Ethernet padding beyond the IP length is fine */
	CHECK(pkt_parse(b, len + 10, &pi) == PKT_OK);
	CHECK_EQ_U(pi.payload_len, 8256);

	len = build(b, true, 8256);
	CHECK_EQ_U(len, 8302);
	CHECK(pkt_parse(b, len, &pi) == PKT_OK);
	CHECK_EQ_U(pi.nvlan, 1);
	CHECK_EQ_U(pi.vlan_tci, 100);
	CHECK_EQ_U(pi.payload_off, 46);

	/* buffer split: only the head is readable, lengths from the wire */
	len = build(b, false, 8256);
	{
		uint8_t *head = malloc(106); /* exactly: ASan catches a read past it */

		memcpy(head, b, 106);
		CHECK(pkt_parse_len(head, 106, len, &pi) == PKT_OK);
		CHECK_EQ_U(pi.payload_off, 42);
		CHECK_EQ_U(pi.payload_len, 8256);
		CHECK(pkt_parse_len(head, 40, len, &pi) == PKT_ERR_IP_SHORT); /* UDP cut */
		CHECK(pkt_parse_len(head, 106, len - 1, &pi) == PKT_ERR_IP_LEN);
		free(head);
	}
}

/* The IPv4 header at b + off (IHL from it) with its checksum set anew. */
static void
resum(uint8_t *b, uint32_t off)
{
	uint32_t ihl = (uint32_t)(b[off] & 0xf) * 4;
	uint16_t c;

	b[off + 10] = b[off + 11] = 0;
	c = pkt_ip_csum(b + off, ihl);
	b[off + 10] = (uint8_t)(c >> 8);
	b[off + 11] = (uint8_t)c;
}

/* The IPv4 header checksum: built right, every single-bit error found in
 * software, the port's verdict taken as it is (offload). */
static void
test_ip_checksum(void)
{
	static uint8_t b[9100];
	struct pkt_info pi;
	uint32_t len, bit, missed = 0;

	len = build(b, false, 100);
	CHECK(pkt_ip_csum_ok(b + 14, 20));
	CHECK(pkt_parse(b, len, &pi) == PKT_OK);
	for (bit = 0; bit < 20 * 8; bit++) {
		enum pkt_err e;

		if (bit / 8 == 0)
			continue; /* version and IHL: their own errors first */
		b[14 + bit / 8] ^= (uint8_t)(1u << (bit % 8));
		e = pkt_parse(b, len, &pi);
		missed += e != PKT_ERR_IP_CSUM;
		b[14 + bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	CHECK_EQ_U(missed, 0);
	/* a bad one still names its source (the antenna it claims) */
	b[24] ^= 0x01;
	CHECK(pkt_parse(b, len, &pi) == PKT_ERR_IP_CSUM);
	CHECK(pi.have_ip);
	CHECK_EQ_U(pi.src_ip, 0x0A1100D3);
	CHECK_STR(pkt_err_name(PKT_ERR_IP_CSUM), "ip-checksum");
	/* the port's verdict: good skips the software check, bad is bad */
	CHECK(pkt_parse_csum(b, len, len, PKT_CSUM_GOOD, &pi) == PKT_OK);
	b[24] ^= 0x01;
	CHECK(pkt_parse_csum(b, len, len, PKT_CSUM_BAD, &pi) == PKT_ERR_IP_CSUM);
	CHECK(pkt_parse_csum(b, len, len, PKT_CSUM_UNKNOWN, &pi) == PKT_OK);
	/* with options (IHL 6) the options are summed too */
	len = build(b, false, 100);
	memmove(b + 38, b + 34, len - 34);
	b[14] = 0x46;
	b[16] = 0; b[17] = 20 + 4 + 8 + 100;
	b[34] = b[35] = b[36] = b[37] = 0x01; /* NOPs */
	resum(b, 14);
	CHECK(pkt_parse(b, len + 4, &pi) == PKT_OK);
	b[36] = 0x00;
	CHECK(pkt_parse(b, len + 4, &pi) == PKT_ERR_IP_CSUM);
}

static void
test_parse_errors(void)
{
	static uint8_t b[9100];
	struct pkt_info pi;
	uint32_t len;

	len = build(b, false, 100);
	CHECK(pkt_parse(b, 13, &pi) == PKT_ERR_ETH_SHORT);
	CHECK(pkt_parse(b, 20, &pi) == PKT_ERR_IP_SHORT);
	CHECK(pkt_parse(b, len - 1, &pi) == PKT_ERR_IP_LEN); /* truncated */
	CHECK(pi.have_ip);
	CHECK_EQ_U(pi.src_ip, 0x0A1100D3);

	b[12] = 0x86; b[13] = 0xDD;
	CHECK(pkt_parse(b, len, &pi) == PKT_ERR_NOT_IPV4);
	CHECK(!pi.have_ip);
	CHECK_EQ_U(pi.ethertype, 0x86DD);
	len = build(b, false, 100);
	b[14] = 0x65;
	CHECK(pkt_parse(b, len, &pi) == PKT_ERR_IP_VERSION);
	b[14] = 0x44;
	CHECK(pkt_parse(b, len, &pi) == PKT_ERR_IP_IHL);
	b[14] = 0x45;
	b[20] = 0x20; /* MF */
	resum(b, 14);
	CHECK(pkt_parse(b, len, &pi) == PKT_ERR_IP_FRAG);
	b[20] = 0x40; /* DF only: fine */
	resum(b, 14);
	CHECK(pkt_parse(b, len, &pi) == PKT_OK);
	b[23] = 6;
	resum(b, 14);
	CHECK(pkt_parse(b, len, &pi) == PKT_ERR_NOT_UDP);
	b[23] = 17;
	resum(b, 14);
	b[38] = 0; b[39] = 7; /* UDP length 7 */
	CHECK(pkt_parse(b, len, &pi) == PKT_ERR_UDP_LEN);
	b[38] = 0x10; /* longer than the IP payload */
	CHECK(pkt_parse(b, len, &pi) == PKT_ERR_UDP_LEN);
	/* IHL 6 (options): payload moves by 4 */
	len = build(b, false, 100);
	memmove(b + 38, b + 34, len - 34);
	b[14] = 0x46;
	b[16] = 0; b[17] = 20 + 4 + 8 + 100;
	resum(b, 14);
	CHECK(pkt_parse(b, len + 4, &pi) == PKT_OK);
	CHECK_EQ_U(pi.payload_off, 46);
	/* three stacked tags: not parsed further */
	len = build(b, true, 100);
	memmove(b + 20, b + 16, len - 16);
	b[16] = 0x81; b[17] = 0x00;
	memmove(b + 24, b + 20, len - 16);
	b[20] = 0x81; b[21] = 0x00;
	CHECK(pkt_parse(b, len + 8, &pi) == PKT_ERR_NOT_IPV4);
	CHECK_STR(pkt_err_name(PKT_ERR_IP_LEN), "ip-length");
}

static void
test_parse_util(void)
{
	char err[256];
	uint64_t v;
	double d;
	uint32_t ip;
	uint16_t port;
	char *items[4], *store;

	/* names that go into file names and log lines */
	{
		char e[16];

		CHECK(parse_name("prefix", "trig.1-a", 63, err, sizeof(err)) == 0);
		CHECK(parse_name("prefix", "ant\xc3\xa9", 63, err, sizeof(err)) == 0);
		CHECK(parse_name("prefix", "a\nb", 63, err, sizeof(err)) == -EINVAL);
		CHECK_STR(err, "prefix: 'a\\nb': expected a name of 1 to 63 characters, without "
			  "control characters or '/'");
		CHECK(parse_name("--name", "a/b", 8, err, sizeof(err)) == -EINVAL);
		CHECK_STR(err, "--name: 'a/b': expected a name of 1 to 8 characters, without "
			  "control characters or '/'");
		CHECK(parse_name("--name", "", 8, err, sizeof(err)) == -EINVAL);
		CHECK(parse_name("--name", "123456789", 8, err, sizeof(err)) == -EINVAL);
		CHECK(parse_name("--name", "12345678", 8, err, sizeof(err)) == 0);
		CHECK(parse_name("x", "tab\there", 63, err, sizeof(err)) == -EINVAL);
		CHECK(parse_name("x", "del\x7f", 63, err, sizeof(err)) == -EINVAL);
		CHECK(parse_name("x", "esc\x1b[2J", 63, err, sizeof(err)) == -EINVAL);
		CHECK_STR(err, "x: 'esc\\x1b[2J': expected a name of 1 to 63 characters, without "
			  "control characters or '/'");
		CHECK_STR(str_escape("a\\b\r\t", e, sizeof(e)), "a\\\\b\\r\\t");
		CHECK_STR(str_escape("0123456789abcdefgh", e, sizeof(e)), "0123456789ab...");
		CHECK_STR(str_escape("\n\n\n\n\n\n\n\n", e, 8), "\\n\\n...");
	}

	{
		static const char *const m[] = { "auto", "on", "off" };
		unsigned int k = 9;

		CHECK(parse_choice("--m", "off", m, 3, &k, err, sizeof(err)) == 0);
		CHECK_EQ_U(k, 2);
		CHECK(parse_choice("--m", "of", m, 3, &k, err, sizeof(err)) == -EINVAL);
		CHECK_STR(err, "--m: 'of': expected auto, on or off");
		CHECK_EQ_U(k, 2); /* untouched on failure */
		CHECK(parse_choice("--m", "x", m, 1, &k, err, sizeof(err)) == -EINVAL);
		CHECK_STR(err, "--m: 'x': expected auto");
	}
	CHECK(parse_u64("--n", "42", 0, 100, &v, err, sizeof(err)) == 0);
	CHECK_EQ_U(v, 42);
	CHECK(parse_u64("--n", "0x10", 0, 100, &v, err, sizeof(err)) == 0);
	CHECK_EQ_U(v, 16);
	CHECK(parse_u64("--n", "101", 0, 100, &v, err, sizeof(err)) == -ERANGE);
	CHECK_STR(err, "--n: '101': expected an integer between 0 and 100");
	CHECK(parse_u64("--n", "-1", 0, 100, &v, err, sizeof(err)) == -EINVAL);
	CHECK(parse_u64("--n", "4x", 0, 100, &v, err, sizeof(err)) == -EINVAL);
	CHECK(parse_u64("--n", "", 0, 100, &v, err, sizeof(err)) == -EINVAL);
	CHECK(parse_u64("--n", "99999999999999999999999", 0, UINT64_MAX, &v, err,
			sizeof(err)) == -EINVAL);
	CHECK(parse_size("--s", "2G", 0, UINT64_MAX, &v, err, sizeof(err)) == 0);
	CHECK_EQ_U(v, 2ULL << 30);
	CHECK(parse_size("--s", "5MB", 0, UINT64_MAX, &v, err, sizeof(err)) == 0);
	CHECK_EQ_U(v, 5000000);
	CHECK(parse_size("--s", "5Q", 0, UINT64_MAX, &v, err, sizeof(err)) == -EINVAL);
	CHECK_HAS(err, "--s: '5Q': expected a size");
	CHECK(parse_double("--p", "0.25", 0, 1, &d, err, sizeof(err)) == 0);
	CHECK(d == 0.25);
	CHECK(parse_double("--p", "1.5", 0, 1, &d, err, sizeof(err)) == -ERANGE);
	CHECK_STR(err, "--p: '1.5': expected a number between 0 and 1");
	CHECK(parse_double("--p", "nan", 0, 1, &d, err, sizeof(err)) == -EINVAL);
	CHECK(parse_duration_ns("--d", "250ms", 0, UINT64_MAX, &v, err, sizeof(err)) == 0);
	CHECK_EQ_U(v, 250000000);
	CHECK(parse_duration_ns("--d", "2", 0, UINT64_MAX, &v, err, sizeof(err)) == 0);
	CHECK_EQ_U(v, 2000000000);
	CHECK(parse_duration_ns("--d", "1.5m", 0, UINT64_MAX, &v, err, sizeof(err)) == 0);
	CHECK_EQ_U(v, 90000000000ULL);
	CHECK(parse_duration_ns("--d", "3 days", 0, UINT64_MAX, &v, err, sizeof(err)) == -EINVAL);
	CHECK(parse_ipv4("--ip", "10.0.0.1", &ip, err, sizeof(err)) == 0);
	CHECK_EQ_U(ip, 0x0A000001);
	CHECK(parse_ipv4("--ip", "10.0.0.256", &ip, err, sizeof(err)) == -EINVAL);
	CHECK_STR(err, "--ip: '10.0.0.256': expected an IPv4 address such as 10.0.0.1");
	CHECK(parse_ipv4("--ip", "10.0.0", &ip, err, sizeof(err)) == -EINVAL);
	CHECK(parse_ipv4_port("--g", "239.17.0.1:36001", &ip, &port, err, sizeof(err)) == 0);
	CHECK_EQ_U(ip, 0xEF110001);
	CHECK_EQ_U(port, 36001);
	CHECK(parse_ipv4_port("--g", "239.17.0.1:0", &ip, &port, err, sizeof(err)) == -EINVAL);
	CHECK(parse_ipv4_port("--g", "239.17.0.1:70000", &ip, &port, err, sizeof(err)) == -EINVAL);
	CHECK(parse_ipv4_port("--g", "239.17.0.1", &ip, &port, err, sizeof(err)) == -EINVAL);
	CHECK(parse_ipv4_port("--g", "239.17.0.1:5x", &ip, &port, err, sizeof(err)) == -EINVAL);
	CHECK(parse_list("--l", "a,b,c", ',', items, 4, &store, err, sizeof(err)) == 3);
	CHECK_STR(items[2], "c");
	free(store);
	CHECK(parse_list("--l", "a,,c", ',', items, 4, &store, err, sizeof(err)) == -EINVAL);
	CHECK(parse_list("--l", "a,b,c,d,e", ',', items, 4, &store, err, sizeof(err)) == -E2BIG);
	CHECK_HAS(err, "at most 4");
	{
		/* the antennas' one spelling: IP[=NAME], and A[,A...] by name or index */
		const char *names[3] = { "ak01", "ak02", "7" };
		char name[8];
		uint64_t mask = 99;

		CHECK(parse_antenna_ip("--a", "10.0.0.1=ak_1", &ip, name, sizeof(name), err,
				       sizeof(err)) == 0);
		CHECK_EQ_U(ip, 0x0a000001);
		CHECK_STR(name, "ak_1");
		CHECK(parse_antenna_ip("--a", "10.0.0.2", &ip, name, sizeof(name), err,
				       sizeof(err)) == 0);
		CHECK_STR(name, "");
		CHECK(parse_antenna_ip("--a", "10.0.0.1=ak-1", &ip, name, sizeof(name), err,
				       sizeof(err)) == -EINVAL);
		CHECK_STR(err, "--a: 'ak-1': expected a name of 1..7 letters, digits or '_'");
		CHECK(parse_antenna_ip("--a", "10.0.0.1=", &ip, name, sizeof(name), err,
				       sizeof(err)) == -EINVAL);
		CHECK(parse_antenna_ip("--a", "10.0.0.1=abcdefgh", &ip, name, sizeof(name), err,
				       sizeof(err)) == -EINVAL);
		CHECK(parse_antenna_ip("--a", "239.0.0.1=x", &ip, name, sizeof(name), err,
				       sizeof(err)) == -EINVAL);
		CHECK_STR(err, "--a: '239.0.0.1': expected a sender's unicast address: "
			  "224.0.0.0/4 is multicast: a group, never a sender's address");
		CHECK(parse_antenna_select("--s", "ak02,0", names, 3, &mask, err, sizeof(err)) == 0);
		CHECK_EQ_U(mask, 3);
		/* a name wins over an index: "7" is antenna 2 */
		CHECK(parse_antenna_select("--s", "7", names, 3, &mask, err, sizeof(err)) == 0);
		CHECK_EQ_U(mask, 4);
		mask = 99;
		CHECK(parse_antenna_select("--s", "3", names, 3, &mask, err, sizeof(err)) == -EINVAL);
		CHECK_STR(err, "--s: '3': expected an antenna name or index (0=ak01, 1=ak02, 2=7)");
		CHECK_EQ_U(mask, 99);
		CHECK(parse_antenna_select("--s", "ak01,,1", names, 3, &mask, err,
					   sizeof(err)) == -EINVAL);
	}
	/* durations in cycles: --duration 2h at 3 GHz, 30 days at 3.69 GHz,
	 * where ns * hz overflows 64 bits; sub-ns hz; saturation */
	CHECK_EQ_U(ns_to_cycles(7200ULL * 1000000000ULL, 3000000000ULL), 21600000000000ULL);
	CHECK_EQ_U(ns_to_cycles(30ULL * 86400 * 1000000000ULL, 3690000000ULL),
		   30ULL * 86400 * 3690000000ULL);
	CHECK_EQ_U(ns_to_cycles(5000000000ULL, 3690000000ULL), 18450000000ULL);
	CHECK_EQ_U(ns_to_cycles(1, 999999999ULL), 0);
	CHECK_EQ_U(ns_to_cycles(1000, 2500000000ULL), 2500);
	CHECK_EQ_U(ns_to_cycles(UINT64_MAX, UINT64_MAX), UINT64_MAX);
}

int
main(void)
{
	test_parse_ok();
	test_parse_errors();
	test_ip_checksum();
	test_parse_util();
	return check_report("test_pkt");
}
