/* SPDX-License-Identifier: BSD-3-Clause */
/* Frame synthesis: a packet's bytes (Ethernet to CODIF data, with its
 * fault), and the --signal grammar that sets an antenna's samples. */


#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codif_pattern.h"
#include "err.h"
#include "gen.h"
#include "gen_priv.h"
#include "json.h"
#include "stats.h"
#include "parse.h"
#include "pkt.h"

uint32_t
gen_frame_len(const struct gen *g, const struct gen_pkt *p)
{
	struct codif_hdr h;
	uint32_t data, full;

	gen_frame_hdr(g, p->stream, p->index, &h);
	data = (uint32_t)codif_data_bytes(&h);
	full = PKT_HDRS_LEN + CODIF_HDR_LEN + data;
	switch (p->fault) {
	case GEN_F_VLAN:
		return full + PKT_VLAN_LEN;
	case GEN_F_BAD_LENGTH:
		return full - (data / 2 < 512 ? (data / 2) & ~7u : 512);
	case GEN_F_TRUNCATED:
		return PKT_HDRS_LEN + CODIF_HDR_LEN + data / 2;
	case GEN_F_NON_IPV4:
		return full + 20; /* IPv6 header is 40 bytes, IPv4 20 */
	default:
		return full;
	}
}
static void
build_vdif(const struct gen *g, const struct codif_hdr *h, uint8_t *b,
	   uint32_t len)
{
	uint32_t w[8] = { 0 };
	unsigned int i;

	(void)g;
	w[0] = h->seconds & 0x3fffffff;
	w[1] = (h->frame & 0xffffff) | (uint32_t)(h->epoch & 0x3f) << 24;
	w[2] = (len / 8) & 0xffffff; /* version 0 in bits 29-31 */
	w[3] = h->stationid | (uint32_t)(h->nbits - 1) << 26;
	for (i = 0; i < 8; i++) {
		b[4 * i] = (uint8_t)w[i];
		b[4 * i + 1] = (uint8_t)(w[i] >> 8);
		b[4 * i + 2] = (uint8_t)(w[i] >> 16);
		b[4 * i + 3] = (uint8_t)(w[i] >> 24);
	}
	codif_pattern_fill(h, b + 32, len - 32);
}

/* A frame's data: its antenna's signal where one is set, else the pattern. */
static void
fill_data(const struct gen *g, unsigned int si, const struct codif_hdr *h, uint8_t *d,
	  size_t len)
{
	unsigned int a = g->st[si].ant;

	if ((g->cfg.sig_mask >> a & 1) == 0 ||
	    codif_signal_fill(&g->cfg.sig[a], h, d, len) != 0)
		codif_pattern_fill(h, d, len);
}

/* One ",KEY=VALUE" of a --signal (stuck, tone, common, delay). */
static int
signal_opt(struct codif_signal *sg, uint64_t a, const char *kv, unsigned int nbits,
	   char *err, size_t len)
{
	uint64_t bit, val;
	char *e2;

	errno = 0;
	if (strncmp(kv, "tone=", 5) == 0) {
		/* a tone of F cycles per time sample (I cos, Q sin), AMP steps */
		sg->tone_freq = strtod(kv + 5, &e2);
		if (e2 == kv + 5 || *e2 != ':' || errno != 0 || !isfinite(sg->tone_freq) ||
		    fabs(sg->tone_freq) > 0.5)
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: tone=F:AMP, "
				       "F cycles per time sample in -0.5..0.5 (e.g. tone=0.125:"
				       "50)", a, kv);
		sg->tone_amp = strtod(e2 + 1, &e2);
		if (*e2 != '\0' || !isfinite(sg->tone_amp) || sg->tone_amp < 0)
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: tone=F:AMP, "
				       "AMP in steps >= 0", a, kv);
	} else if (strncmp(kv, "stuck=", 6) == 0) {
		/* that bit of every code forced */
		char b[16], *c2;

		snprintf(b, sizeof(b), "%s", kv + 6);
		c2 = strchr(b, ':');
		if (c2 == NULL)
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: stuck=BIT:"
				       "VALUE, e.g. stuck=1:0 (bit 1 of every code always 0)",
				       a, kv);
		*c2 = '\0';
		if (parse_u64("--signal stuck bit", b, 0, 31, &bit, err, len) != 0 ||
		    parse_u64("--signal stuck value", c2 + 1, 0, 1, &val, err, len) != 0)
			return -EINVAL;
		if (bit >= nbits && nbits != 0)
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: bit %" PRIu64
				       ", expected 0..%u (a bit of the --nbits code; give "
				       "--nbits first)", a, kv, bit, nbits - 1u);
		sg->stuck_mask = 1u << bit;
		sg->stuck_val = (uint32_t)val << bit;
	} else if (strncmp(kv, "common=", 7) == 0) {
		/* the share of the noise power common to the antennas */
		sg->common_rho = strtod(kv + 7, &e2);
		if (e2 == kv + 7 || *e2 != '\0' || errno != 0 || !(sg->common_rho >= 0) ||
		    sg->common_rho > 1)
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: common=RHO, "
				       "RHO the common share of the noise power in 0..1 (e.g. "
				       "common=0.5)", a, kv);
	} else if (strncmp(kv, "delay=", 6) == 0) {
		/* the common part late by D samples */
		long long d = strtoll(kv + 6, &e2, 10);

		if (e2 == kv + 6 || *e2 != '\0' || errno != 0 || d < -1000000 || d > 1000000)
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: delay=D, "
				       "D whole time samples in -1000000..1000000 (e.g. delay=3)",
				       a, kv);
		sg->common_delay = d;
	} else {
		return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":...,%s: unknown option, "
			       "expected stuck=BIT:V, tone=F:AMP, common=RHO or delay=D", a, kv);
	}
	return 0;
}

int
gen_signal_parse(const char *spec, struct gen_cfg *cfg, char *err, size_t len)
{
	const char *colon = strchr(spec, ':');
	struct codif_signal *sg;
	uint64_t a;
	char num[64], buf[256], *end, *opt, *save = NULL;
	double v;
	size_t n;

	if (colon == NULL || colon == spec)
		return err_set(err, len, -EINVAL, "--signal '%s': expected A:LEVEL (antenna "
			       "index, then an RMS in steps, a power in dB, dead or saturated)",
			       spec);
	n = (size_t)(colon - spec);
	if (n >= sizeof(num))
		n = sizeof(num) - 1;
	memcpy(num, spec, n);
	num[n] = '\0';
	if (parse_u64("--signal antenna", num, 0, GEN_MAX_ANTENNAS - 1, &a, err, len) != 0)
		return -EINVAL;
	sg = &cfg->sig[a];
	codif_signal_noise(sg, 0, a); /* the frames' ids make each antenna's noise its own */
	if (snprintf(buf, sizeof(buf), "%s", colon + 1) >= (int)sizeof(buf))
		return err_set(err, len, -EINVAL, "--signal '%s': longer than %zu characters",
			       spec, sizeof(buf) - 1);
	spec = strtok_r(buf, ",", &save);
	if (spec == NULL)
		spec = "";
	while ((opt = strtok_r(NULL, ",", &save)) != NULL)
		if (signal_opt(sg, a, opt, cfg->tmpl.nbits, err, len) != 0)
			return -EINVAL;
	if (strcmp(spec, "dead") == 0) {
		sg->kind = CODIF_SIGNAL_DEAD;
	} else if (strcmp(spec, "saturated") == 0) {
		sg->kind = CODIF_SIGNAL_SATURATED;
	} else {
		errno = 0;
		v = strtod(spec, &end);
		if (end == spec || errno != 0 || !isfinite(v) ||
		    (strcmp(end, "dB") != 0 && *end != '\0') ||
		    (*end == '\0' && v < 0))
			return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":%s: expected an RMS "
				       "in steps (>= 0, e.g. 3.5), a power in dB (e.g. 10dB), dead "
				       "or saturated", a, spec);
		sg->rms = *end == '\0' ? v : sqrt(pow(10.0, v / 10.0));
	}
	if ((sg->common_rho > 0 || sg->common_delay != 0) && sg->kind != CODIF_SIGNAL_NOISE)
		return err_set(err, len, -EINVAL, "--signal %" PRIu64 ":%s: common= and delay= "
			       "need a noise LEVEL (an RMS or dB)", a, spec);
	cfg->sig_mask |= 1ULL << a;
	return 0;
}

uint32_t
gen_build_payload(const struct gen *g, const struct gen_pkt *p, uint8_t *buf)
{
	struct codif_hdr h;
	uint32_t data, len;

	gen_frame_hdr(g, p->stream, p->index, &h);
	data = (uint32_t)codif_data_bytes(&h);
	len = CODIF_HDR_LEN + data;
	if (p->fault == GEN_F_EVENT) {
		/* the odd header over the frame's own data: a flipped bit or a
		 * wrong time does not change the packet */
		struct codif_hdr odd;

		gen_ev_odd_hdr(g, p->stream, &g->cfg.ev[p->ev], &odd);
		codif_encode(&odd, buf);
		fill_data(g, p->stream, &h, buf + CODIF_HDR_LEN, len - CODIF_HDR_LEN);
		return len;
	}
	if (p->fault == GEN_F_NON_CODIF) {
		build_vdif(g, &h, buf, len);
		return len;
	}
	if (p->fault == GEN_F_INVALID)
		h.invalid = true;
	if (p->fault == GEN_F_BAD_SYNC)
		h.sync = CODIF_SYNC ^ 0x00010001u;
	codif_encode(&h, buf);
	if (p->fault == GEN_F_BAD_LENGTH)
		len -= data / 2 < 512 ? (data / 2) & ~7u : 512;
	fill_data(g, p->stream, &h, buf + CODIF_HDR_LEN, len - CODIF_HDR_LEN);
	return len;
}

uint32_t
gen_build(const struct gen *g, const struct gen_pkt *p, uint8_t *buf)
{
	const struct gen_stream *s = &g->st[p->stream];
	struct pkt_udp4_spec sp;
	uint32_t hl, plen;

	memset(&sp, 0, sizeof(sp));
	sp.src_mac[0] = 0x02;
	sp.src_mac[3] = 0x17;
	sp.src_mac[5] = (uint8_t)s->ant;
	pkt_mcast_mac(g->cfg.group[s->group].ip, sp.dst_mac);
	sp.src_ip = g->cfg.ant_ip[s->ant];
	sp.dst_ip = g->cfg.group[s->group].ip;
	sp.sport = g->cfg.group[s->group].port;
	sp.dport = g->cfg.group[s->group].port;
	sp.ttl = g->cfg.ttl;
	sp.ip_id = (uint16_t)p->index;
	sp.vlan = p->fault == GEN_F_VLAN;
	sp.vlan_tci = g->cfg.vlan_id;

	if (p->fault == GEN_F_NON_IPV4) {
		/* the same datagram over IPv6: fd00::17:<ant> -> ff15::<group> */
		struct gen_pkt q = *p;
		uint8_t *ip6 = buf + 14;

		q.fault = GEN_F_NONE;
		memcpy(buf, sp.dst_mac, 6);
		buf[0] = 0x33;
		buf[1] = 0x33;
		memcpy(buf + 6, sp.src_mac, 6);
		buf[12] = 0x86;
		buf[13] = 0xDD;
		plen = gen_build_payload(g, &q, ip6 + 48);
		memset(ip6, 0, 48);
		ip6[0] = 0x60;
		ip6[4] = (uint8_t)((plen + 8) >> 8);
		ip6[5] = (uint8_t)(plen + 8);
		ip6[6] = 17;
		ip6[7] = 1;
		ip6[8] = 0xfd;
		ip6[21] = 0x17;
		ip6[23] = (uint8_t)s->ant;
		ip6[24] = 0xff;
		ip6[25] = 0x15;
		ip6[38] = (uint8_t)(sp.dst_ip >> 8);
		ip6[39] = (uint8_t)sp.dst_ip;
		ip6[40] = (uint8_t)(sp.sport >> 8);
		ip6[41] = (uint8_t)sp.sport;
		ip6[42] = (uint8_t)(sp.dport >> 8);
		ip6[43] = (uint8_t)sp.dport;
		ip6[44] = (uint8_t)((plen + 8) >> 8);
		ip6[45] = (uint8_t)(plen + 8);
		return 14 + 40 + 8 + plen;
	}
	if (p->fault == GEN_F_TRUNCATED) {
		struct gen_pkt q = *p;

		q.fault = GEN_F_NONE;
		plen = gen_build_payload(g, &q, buf + PKT_HDRS_LEN);
		pkt_build_udp4(buf, &sp, plen);
		return gen_frame_len(g, p);
	}
	hl = sp.vlan ? PKT_HDRS_LEN + PKT_VLAN_LEN : PKT_HDRS_LEN;
	plen = gen_build_payload(g, p, buf + hl);
	pkt_build_udp4(buf, &sp, plen);
	if (p->fault == GEN_F_BAD_IP_CSUM) {
		/* one bit of each checksum byte: never again a valid sum
		 * (the change, +-0x0101 or +-0x00ff, is no multiple of 0xffff) */
		buf[hl - PKT_UDP_LEN - PKT_IPV4_MIN_LEN + 10] ^= 0x01;
		buf[hl - PKT_UDP_LEN - PKT_IPV4_MIN_LEN + 11] ^= 0x01;
	}
	return hl + plen;
}
