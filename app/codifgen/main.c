/* SPDX-License-Identifier: BSD-3-Clause */
/* codifgen: CODIF multi-antenna traffic to pcap, kernel UDP multicast or a DPDK port. */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "codif.h"
#include "fmt_pcap.h"
#include "gen.h"
#include "opt.h"
#include "parse.h"
#include "pkt.h"
#include "quirks.h"
#include "tconv.h"

#define ERRLEN 512

enum out_mode { OUT_NONE, OUT_PCAP, OUT_SOCKET, OUT_DPDK };

struct opts {
	struct gen_cfg cfg;
	const char *pcap_path;
	const char *truth_path;
	bool socket;
	bool dpdk;
	uint16_t tx_port;
	double rate_fps;   /* per stream; <0: real time */
	double rate_gbps;  /* total; 0: unset */
	bool epoch_set;
	uint64_t duration_ns;
	bool frames_set;
	bool quiet;
	bool queue_per_antenna;
	bool tx_drop;
	unsigned int nb_mbufs;
	uint64_t linger_ns;
	char ant_name[GEN_MAX_ANTENNAS][32]; /* --antenna-ip IP=NAME, else "" (ant<i>) */
	const char *select;                  /* --antenna, resolved after the layout */
	bool check_only;                     /* --check-config */
};

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* ---- options (one table, lib/opt) ------------------------------------- */

/* What the command line gave, for the checks between options. */
struct pargs {
	bool ant_ip, group_list, ant_count_set, group_count_set;
	bool ant_base_set, group_base_set;
	unsigned int ant_count, group_count;
	uint32_t ant_base, group_base;
	uint16_t udp_port_base;
	int map_kind;
};

static void
defaults(void *obj, void *ctx)
{
	struct opts *o = obj;
	struct pargs *pa = ctx;

	memset(o, 0, sizeof(*o));
	gen_cfg_defaults(&o->cfg);
	codif_tl_cfg_defaults(&o->cfg.tl); /* what lib/gen takes for 0 */
	o->rate_fps = -1;
	o->nb_mbufs = 8191;
	o->linger_ns = 1000000000ULL;
	if (pa != NULL) {
		memset(pa, 0, sizeof(*pa));
		pa->ant_count = o->cfg.nant;
		pa->ant_base = o->cfg.ant_ip[0];
		pa->group_count = o->cfg.ngroup;
		pa->group_base = o->cfg.group[0].ip;
		pa->udp_port_base = o->cfg.group[0].port;
	}
}

static int
parse_map(const char *s, struct gen_cfg *c, char *err)
{
	char *items[GEN_MAX_ANTENNAS], *store = NULL, *grp[GEN_MAX_GROUPS];
	char *gstore = NULL;
	int n, i, j, m;
	unsigned int a;

	if (strcmp(s, "all") == 0) {
		for (a = 0; a < GEN_MAX_ANTENNAS; a++)
			c->ant_groups[a] = ~0ULL;
		return 0;
	}
	if (strcmp(s, "rr") == 0) {
		for (a = 0; a < GEN_MAX_ANTENNAS; a++)
			c->ant_groups[a] = 1ULL << (a % 64);
		c->ant_groups[0] |= 1ULL << 63; /* marker: rr, fixed up later */
		return 1;
	}
	memset(c->ant_groups, 0, sizeof(c->ant_groups));
	n = parse_list("--map", s, ',', items, GEN_MAX_ANTENNAS, &store, err, ERRLEN);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		char *colon = strchr(items[i], ':');
		uint64_t ai, gi;

		if (colon == NULL) {
			snprintf(err, ERRLEN,
				 "--map: '%s': expected ANTENNA:GROUP[+GROUP...] "
				 "(indices), e.g. 0:0+1", items[i]);
			goto fail;
		}
		*colon = '\0';
		if (parse_u64("--map antenna", items[i], 0, GEN_MAX_ANTENNAS - 1,
			      &ai, err, ERRLEN) != 0)
			goto fail;
		m = parse_list("--map groups", colon + 1, '+', grp,
			       GEN_MAX_GROUPS, &gstore, err, ERRLEN);
		if (m < 0)
			goto fail;
		for (j = 0; j < m; j++) {
			if (parse_u64("--map group", grp[j], 0, GEN_MAX_GROUPS - 1,
				      &gi, err, ERRLEN) != 0)
				goto fail;
			c->ant_groups[ai] |= 1ULL << gi;
		}
		free(gstore);
		gstore = NULL;
	}
	free(store);
	return 2;
fail:
	free(gstore);
	free(store);
	return -1;
}


static int
set_map(const struct opt_arg *a, char *err, size_t errlen)
{
	struct pargs *pa = a->ctx;

	(void)errlen;
	pa->map_kind = parse_map(a->val, &((struct opts *)a->obj)->cfg, err);
	return pa->map_kind < 0 ? -EINVAL : 0;
}

static int
set_antenna_ip(const struct opt_arg *a, char *err, size_t errlen)
{
	struct opts *o = a->obj;
	struct gen_cfg *c = &o->cfg;
	char *items[GEN_MAX_ANTENNAS], *store;
	int n = parse_list(a->opt, a->val, ',', items, GEN_MAX_ANTENNAS, &store, err, errlen);
	int i, rc = 0;

	if (n < 0)
		return n;
	for (i = 0; i < n && rc == 0; i++)
		rc = parse_antenna_ip(a->opt, items[i], &c->ant_ip[i], o->ant_name[i],
				      sizeof(o->ant_name[i]), err, errlen);
	c->nant = (unsigned int)n;
	((struct pargs *)a->ctx)->ant_ip = true;
	free(store);
	return rc;
}

static int
set_group(const struct opt_arg *a, char *err, size_t errlen)
{
	struct gen_cfg *c = &((struct opts *)a->obj)->cfg;
	char *items[GEN_MAX_GROUPS], *store;
	int n = parse_list(a->opt, a->val, ',', items, GEN_MAX_GROUPS, &store, err, errlen);
	int i, rc = 0;

	if (n < 0)
		return n;
	for (i = 0; i < n && rc == 0; i++) {
		rc = parse_ipv4_port(a->opt, items[i], &c->group[i].ip, &c->group[i].port, err,
				     errlen);
		if (rc == 0 && (c->group[i].ip >> 28) != 0xE) {
			snprintf(err, errlen,
				 "%s: '%s': expected an IPv4 multicast address (224.0.0.0/4)",
				 a->opt, items[i]);
			rc = -EINVAL;
		}
	}
	c->ngroup = (unsigned int)n;
	((struct pargs *)a->ctx)->group_list = true;
	free(store);
	return rc;
}

static int
set_signal(const struct opt_arg *a, char *err, size_t errlen)
{
	return gen_signal_parse(a->val, &((struct opts *)a->obj)->cfg, err, errlen);
}

static int
set_data_bytes(const struct opt_arg *a, char *err, size_t errlen)
{
	uint64_t v;
	int rc = opt_value_u64(a, &v, err, errlen);

	if (rc == 0)
		((struct opts *)a->obj)->cfg.tmpl.framelength8 = (uint32_t)(v / 8);
	return rc;
}

static int
set_station(const struct opt_arg *a, char *err, size_t errlen)
{
	if (strlen(a->val) != 2) {
		snprintf(err, errlen, "%s: '%s': expected two characters, e.g. AK", a->opt, a->val);
		return -EINVAL;
	}
	((struct opts *)a->obj)->cfg.tmpl.stationid =
		(uint16_t)((uint8_t)a->val[0] << 8 | (uint8_t)a->val[1]);
	return 0;
}

static int
set_start(const struct opt_arg *a, char *err, size_t errlen)
{
	return codif_parse_time_arg(a->opt, a->val, &((struct opts *)a->obj)->cfg.start_ns, err,
				    errlen);
}

static int
set_event(const struct opt_arg *a, char *err, size_t errlen)
{
	struct gen_cfg *c = &((struct opts *)a->obj)->cfg;

	if (c->nev == GEN_MAX_EVENTS) {
		snprintf(err, errlen, "%s: at most %d", a->opt, GEN_MAX_EVENTS);
		return -E2BIG;
	}
	if (gen_event_parse(a->val, &c->ev[c->nev], err, errlen) != 0)
		return -EINVAL;
	c->nev++;
	return 0;
}

static void
print_tx_port(const struct opt_cmd *cmd, const struct opt_def *d, const void *obj, FILE *f)
{
	const struct opts *o = obj;

	(void)cmd;
	if (o->dpdk)
		fprintf(f, "%s = %u\n", d->name, o->tx_port);
	else
		opt_print_note(d, f, "none");
}

static const struct opt_section sections[] = {
	{ .name = "output", .title = "Output", .intro = "at least one of --pcap, --socket, "
	  "--tx-port" },
	{ .name = "layout", .title = "Layout", .intro = "defaults: ASKAP-like" },
	{ .name = "stream", .title = "Stream parameters",
	  .intro = "read from the header by receivers, never assumed" },
	{ .name = "rate", .title = "Rate", .intro = "socket and DPDK output; pcap timestamps "
	  "always follow frame times" },
	{ .name = "faults", .title = "Faults",
	  .intro = "each frame gets at most one; never the first or last frame" },
	{ .name = "events", .title = "Timeline events",
	  .intro = "deterministic; random faults keep clear of them\n"
		   " flip:FIELD.BIT     frame FRAME's header with one bit flipped (FIELD:\n"
		   "                    frame, seconds, epoch, nbits, complex,\n"
		   "                    representation, period, nchan, framelength8,\n"
		   "                    totalsamples, sync); a lone odd frame\n"
		   " stray:+-DURATION   frame FRAME at a time DURATION away; a lone odd frame\n"
		   " step:+-DURATION    every frame from FRAME on DURATION away (a clock step)\n"
		   " param:FIELD=VALUE  a stream parameter changed from FRAME on\n"
		   " burst:N            N frames from FRAME on never sent: an outage (the\n"
		   "                    packets' times go on through it; a receiver that sees\n"
		   "                    them, or a real-time sender, counts the frames lost)\n"
		   " outage:DURATION    a burst of the frames of DURATION (e.g. 2s)\n"
		   "ant=A: antenna A only (all); stream=S: the antenna's S-th stream (flip, "
		   "stray: 0; others: all); extra: the odd frame besides frame FRAME, not in "
		   "its place. The truth counts as a receiver with the timeline options below "
		   "must." },
	{ .name = "socket", .title = "Socket output" },
	{ .name = "dpdk", .title = "DPDK output" },
	{ .name = NULL },
};

/* a fault's probability per frame, in cfg.p[] */
#define FAULT(f) .kind = OPT_DOUBLE, .section = "faults", .metavar = "P", .dmin = 0, \
	.dmax = 1, .unset = "none", OPT_AT(struct opts, cfg.p[f])

#define O struct opts
#define A struct pargs
static const struct opt_def long_opts[] = {
	{"pcap", .kind = OPT_PATH, .section = "output", .metavar = "FILE", OPT_PTR(O, pcap_path),
	 .help = "write a nanosecond pcap (timestamps = frame times)"},
	{"socket", .kind = OPT_FLAG, .section = "output", OPT_AT(O, socket),
	 .help = "send real UDP multicast from kernel sockets bound to each antenna's source "
		 "address (paced)"},
	{"tx-port", .kind = OPT_UINT, .section = "output", .metavar = "N", .min = 0,
	 .max = RTE_MAX_ETHPORTS - 1, .unset = "none", OPT_AT(O, tx_port), OPT_SEEN(O, dpdk),
	 .print = print_tx_port,
	 .help = "send on DPDK port N (EAL options before '--', e.g. --vdev "
		 "net_pcap0,tx_pcap=F or net_memif)"},
	{"truth", .kind = OPT_PATH, .section = "output", .metavar = "FILE",
	 OPT_PTR(O, truth_path), .help = "write the ground truth as JSON ('-' = stdout)"},
	{"quiet", .kind = OPT_FLAG, .section = "output", OPT_AT(O, quiet),
	 .help = "no summary on stderr"},
	{"antennas", .kind = OPT_UINT, .section = "layout", .metavar = "N", .min = 1,
	 .max = GEN_MAX_ANTENNAS, OPT_CTX(A, ant_count), OPT_SEEN(A, ant_count_set),
	 .help = "number of antennas"},
	{"antenna-base", .kind = OPT_IPV4, .section = "layout", .metavar = "IP",
	 OPT_CTX(A, ant_base), OPT_SEEN(A, ant_base_set),
	 .help = "first source IPv4, the others follow"},
	{"antenna-ip", .kind = OPT_CUSTOM, .section = "layout", .metavar = "IP[=NAME][,...]",
	 .set = set_antenna_ip,
	 .help = "explicit antennas: source IPv4s (sets --antennas); NAME for --antenna "
		 "(default ant<i>)"},
	{"threads", .kind = OPT_UINT, .section = "layout", .metavar = "N", .min = 1,
	 .max = GEN_MAX_THREADS, OPT_AT(O, cfg.nthread),
	 .help = "threads per antenna and group"},
	{"groups", .kind = OPT_UINT, .section = "layout", .metavar = "N", .min = 1,
	 .max = GEN_MAX_GROUPS, OPT_CTX(A, group_count), OPT_SEEN(A, group_count_set),
	 .help = "multicast groups"},
	{"group-base", .kind = OPT_IPV4, .flags = OPT_F_MCAST, .section = "layout",
	 .metavar = "IP", OPT_CTX(A, group_base), OPT_SEEN(A, group_base_set),
	 .help = "first group, the others follow"},
	{"udp-port-base", .kind = OPT_UINT, .section = "layout", .metavar = "PORT", .min = 1,
	 .max = 65535, OPT_CTX(A, udp_port_base), .help = "UDP port of the first group, +1 per group"},
	{"group", .kind = OPT_CUSTOM, .section = "layout", .metavar = "IP:PORT[,...]",
	 .set = set_group, .help = "explicit groups (sets --groups)"},
	{"map", .kind = OPT_CUSTOM, .section = "layout", .metavar = "all|rr|A:G+G,...",
	 .def = "all", .set = set_map,
	 .help = "which antenna sends to which groups: all, rr (antenna a to group a mod "
		 "groups), or a list of antenna:groups (indices), e.g. 0:0+1,1:2+3"},
	{"antenna", .kind = OPT_STRING, .section = "layout", .metavar = "A[,A...]",
	 .def = "all", OPT_PTR(O, select),
	 .help = "emit only these antennas (names or indices); the same fates as a run of "
		 "all, so N senders make one whole run"},
	{"signal", .kind = OPT_CUSTOM, .flags = OPT_F_REPEAT, .section = "stream",
	 .metavar = "A:LEVEL[,stuck=BIT:V][,tone=F:AMP][,common=RHO][,delay=D]", .set = set_signal,
	 .help = "antenna A's data: Gaussian noise of RMS LEVEL (steps of the encoding, "
		 "e.g. 3.5, or a power in dB, e.g. 10dB), dead (every sample zero) or "
		 "saturated (the extreme codes), in the encoding of --nbits/--real/--complex; "
		 ",stuck=BIT:V forces bit BIT of every code to V (a stuck sampler bit; give "
		 "--nbits before it); ,tone=F:AMP adds a tone of F cycles per time sample (-0.5..0.5) "
		 "and AMP steps to every channel (I cos, Q sin); ,common=RHO makes the share RHO (0..1) "
		 "of the noise power a signal common to every antenna with common=, as a function "
		 "of absolute sample time, late by ,delay=D samples (two antennas then correlate "
		 "with coefficient sqrt(RHO_A*RHO_B) at lag D_B-D_A: the truth's fringe list gives it "
		 "after quantisation); the truth gets its expected quick-look figures (none with "
		 "stuck=) (default: the deterministic pattern that codifcheck --pattern verifies)"},
	{"data-bytes", .kind = OPT_CUSTOM, .section = "stream", .metavar = "N", .min = 8,
	 .max = 65536 - 64 - 28, .mult = 8, .unit = "bytes", .def = "8192",
	 .set = set_data_bytes, .help = "data bytes per frame, a multiple of 8"},
	{"nchan", .kind = OPT_UINT, .section = "stream", .metavar = "N", .min = 1, .max = 65535,
	 OPT_AT(O, cfg.tmpl.nchan), .help = "channels"},
	{"nbits", .kind = OPT_UINT, .section = "stream", .metavar = "N", .min = 1, .max = 255,
	 OPT_AT(O, cfg.tmpl.nbits), .help = "bits per sample component"},
	{"real", .kind = OPT_FLAG, .flags = OPT_F_INVERT, .section = "stream",
	 OPT_AT(O, cfg.tmpl.complex), .help = "real samples"},
	{"complex", .kind = OPT_FLAG, .section = "stream", OPT_AT(O, cfg.tmpl.complex),
	 .help = "complex samples (the default)"},
	{"period", .kind = OPT_UINT, .section = "stream", .metavar = "S", .min = 1, .max = 65535,
	 OPT_AT(O, cfg.tmpl.period), .help = "alignment period in seconds"},
	{"total-samples", .kind = OPT_UINT, .section = "stream", .metavar = "N", .min = 1,
	 .max = UINT64_MAX, OPT_AT(O, cfg.tmpl.totalsamples),
	 .help = "samples per channel per period"},
	{"station", .kind = OPT_CUSTOM, .section = "stream", .metavar = "XY", .def = "AK",
	 .set = set_station, .help = "two-character station id"},
	{"groupid-base", .kind = OPT_UINT, .section = "stream", .metavar = "N", .min = 0,
	 .max = 65535, OPT_AT(O, cfg.groupid_base),
	 .help = "CODIF groupid of antenna 0, +1 per antenna"},
	{"start", .kind = OPT_CUSTOM, .section = "stream", .metavar = "TIME",
	 .def = "2025-01-01T00:00:00Z", .set = set_start,
	 .help = "UTC of the first frame, ISO-8601 or @unix-seconds (aligned down to the frame "
		 "that holds it)"},
	{"epoch", .kind = OPT_UINT, .section = "stream", .metavar = "N", .min = 0, .max = 255,
	 .def = "from --start", OPT_AT(O, cfg.tmpl.epoch), OPT_SEEN(O, epoch_set),
	 .help = "reference epoch in half-years since 2000"},
	{"count", .kind = OPT_UINT, .section = "stream", .metavar = "N", .min = 2,
	 .max = UINT32_MAX, OPT_AT(O, cfg.frames), OPT_SEEN(O, frames_set),
	 .help = "stop after N frames per stream"},
	{"data-duration", .kind = OPT_DURATION, .section = "stream", .metavar = "T",
	 .min = 1000, .max = 86400ULL * 1000000000ULL, .unset = "none", OPT_AT(O, duration_ns),
	 .help = "frames per stream = T of CODIF (data) time, e.g. 2s; not wall time, which "
		 "--rate-fps/--rate-gbps set"},
	{"rate-fps", .kind = OPT_DOUBLE, .section = "rate", .metavar = "F", .dmin = 0, .dmax = 1e9,
	 .def = "real time, as the CODIF times say", OPT_AT(O, rate_fps),
	 .help = "frames per second per stream (0 = as fast as possible)"},
	{"rate-gbps", .kind = OPT_DOUBLE, .section = "rate", .metavar = "G", .dmin = 1e-6,
	 .dmax = 1e4, .unset = "none", OPT_AT(O, rate_gbps), .help = "total wire rate in Gb/s"},
	{"seed", .kind = OPT_UINT, .section = "faults", .metavar = "N", .min = 0,
	 .max = UINT64_MAX, OPT_AT(O, cfg.seed), .help = "fault RNG seed"},
	{"loss", FAULT(GEN_F_LOSS), .help = "frame not sent"},
	{"reorder", .kind = OPT_DOUBLE, .section = "faults", .metavar = "P", .dmin = 0, .dmax = 1,
	 .unset = "none", OPT_AT(O, cfg.p_reorder),
	 .help = "frame delayed by 1..depth frames (late)"},
	{"reorder-depth", .kind = OPT_UINT, .section = "faults", .metavar = "N", .min = 1,
	 .max = GEN_MAX_DEPTH, OPT_AT(O, cfg.depth), .help = "maximum delay, frames"},
	{"duplicate", FAULT(GEN_F_DUPLICATE),
	 .help = "frame sent twice (second copy up to depth later)"},
	{"invalid", FAULT(GEN_F_INVALID), .help = "invalid bit set (received, flagged)"},
	{"vlan", FAULT(GEN_F_VLAN), .help = "sent with an 802.1Q tag (valid)"},
	{"vlan-id", .kind = OPT_UINT, .section = "faults", .metavar = "N", .min = 0, .max = 4095,
	 OPT_AT(O, cfg.vlan_id), .help = "VLAN id"},
	{"bad-sync", FAULT(GEN_F_BAD_SYNC), .help = "sync word corrupted (malformed, frame lost)"},
	{"bad-length", FAULT(GEN_F_BAD_LENGTH),
	 .help = "UDP payload too short (malformed, frame lost)"},
	{"truncated", FAULT(GEN_F_TRUNCATED),
	 .help = "Ethernet frame cut short (malformed, frame lost)"},
	{"non-codif", FAULT(GEN_F_NON_CODIF),
	 .help = "a VDIF frame instead (malformed, frame lost)"},
	{"non-ipv4", FAULT(GEN_F_NON_IPV4),
	 .help = "an IPv6 frame instead (not attributable, lost)"},
	{"bad-ip-checksum", FAULT(GEN_F_BAD_IP_CSUM),
	 .help = "IPv4 header checksum wrong (malformed ip-checksum, frame lost)"},
	{"event", .kind = OPT_CUSTOM, .flags = OPT_F_REPEAT, .section = "events",
	 .metavar = "KIND:ARG@FRAME[,ant=A][,stream=S|all][,extra]", .set = set_event,
	 .help = "a timeline event (KIND:ARG above) at frame FRAME"},
	{"window", .kind = OPT_UINT, .section = "events", .metavar = "N", .min = 1,
	 .max = 1u << 30, OPT_AT(O, cfg.tl.window),
	 .help = "the receivers' timeline, for the truth: frames behind (dpdk-ibvcap's and "
		 "codifcheck's --window)"},
	{"reorder-window", .kind = OPT_UINT, .section = "events", .metavar = "N", .min = 1,
	 .max = 1u << 30, OPT_AT(O, cfg.tl.ahead),
	 .help = "... frames ahead taken at once (their --reorder-window)"},
	{"confirm", .kind = OPT_UINT, .section = "events", .metavar = "K", .min = 2,
	 .max = CODIF_MAX_CONFIRM, OPT_AT(O, cfg.tl.confirm),
	 .help = "... agreeing frames that move a timeline (their --confirm)"},
	{"max-gap", .kind = OPT_DURATION, .section = "events", .metavar = "T", .min = 1000,
	 .max = 3600ULL * 1000000000ULL, OPT_AT(O, cfg.tl.max_gap_ns),
	 .help = "... a confirmed jump ahead counted as loss, at most (their --max-gap)"},
	{"ttl", .kind = OPT_UINT, .section = "socket", .metavar = "N", .min = 1, .max = 255,
	 OPT_AT(O, cfg.ttl), .help = "multicast TTL"},
	{"mbufs", .kind = OPT_UINT, .section = "dpdk", .metavar = "N", .min = 63,
	 .max = 1u << 24, OPT_AT(O, nb_mbufs), .help = "DPDK mbufs in the tx pool"},
	{"queue-per-antenna", .kind = OPT_FLAG, .section = "dpdk", OPT_AT(O, queue_per_antenna),
	 .help = "antenna a's frames on tx queue a (antennas + 1 queues): into a memif peer, "
		 "each antenna lands on its own rx queue, as NIC steering would do"},
	{"linger", .kind = OPT_DURATION, .section = "dpdk", .metavar = "T", .min = 0,
	 .max = 3600ULL * 1000000000ULL, OPT_AT(O, linger_ns),
	 .help = "keep the port open T after the last frame, so a peer (memif) can drain it"},
	{"tx-drop", .kind = OPT_FLAG, .section = "dpdk", OPT_AT(O, tx_drop),
	 .help = "drop what a full tx ring refuses, as a NIC would (counted; the truth is then "
		 "not exact): for load tests against a capture that falls behind"},
	/* names this program had: refused, naming the new one */
	{"frames", .flags = OPT_F_GONE, .alias_of = "count"},
	{"duration", .flags = OPT_F_GONE, .alias_of = "data-duration",
	 .help = "--data-duration (CODIF time; --duration means wall time)"},
	{"select", .flags = OPT_F_GONE, .alias_of = "antenna"},
	{"port-base", .flags = OPT_F_GONE, .alias_of = "udp-port-base"},
	{"check-config", .kind = OPT_FLAG, .flags = OPT_F_ACTION, OPT_AT(O, check_only),
	 .help = "check the options and the stream they make, print the effective "
		 "configuration and exit 0, or exit 1 naming the option; sends and writes "
		 "nothing, and EAL is not started"},
	{"help", .kind = OPT_ACTION, .letter = 'h', .flags = OPT_F_ACTION, .set = opt_act_help,
	 .help = "this text"},
	{ .name = NULL },
};
#undef O
#undef A
#undef FAULT

static const struct opt_cmd gen_cmd = {
	.prog = "codifgen",
	.usage = "Usage: codifgen [EAL options --] [options]\n",
	.about = "Generate CODIF v3 streams of many antennas, with known faults and a\n"
		 "ground-truth summary. Payload is deterministic from each frame's ids and\n"
		 "time, so any later stage can verify it byte for byte.\n",
	.epilog = "Exit status: 0 done; 1 bad option or output error; 2 interrupted (the\n"
		  "truth then covers what was sent).\n",
	.sections = sections,
	.opts = long_opts,
	.unknown = "unrecognized", /* getopt's word, as before the table */
	.defaults = defaults,
	.obj_size = sizeof(struct opts),
	.ctx_size = sizeof(struct pargs),
};

static int
parse_args(int argc, char **argv, struct opts *o)
{
	char err[ERRLEN];
	struct gen_cfg *c = &o->cfg;
	struct pargs pa;
	unsigned int i;
	int rc;

	defaults(o, &pa);
	rc = opt_parse_argv(&gen_cmd, o, &pa, argc, argv, NULL, err, sizeof(err));
	if (rc > 0)
		exit(0); /* --help */
	if (rc < 0) {
		fprintf(stderr, "codifgen: %s\n", err);
		return -1;
	}
	/* whatever the order of the options */
	if (pa.ant_ip && pa.ant_count_set && pa.ant_count != c->nant) {
		fprintf(stderr, "codifgen: --antennas %u and --antenna-ip (%u given) disagree\n",
			pa.ant_count, c->nant);
		return -1;
	}
	if (pa.group_list && pa.group_count_set && pa.group_count != c->ngroup) {
		fprintf(stderr, "codifgen: --groups %u and --group (%u given) disagree\n",
			pa.group_count, c->ngroup);
		return -1;
	}
	if (!pa.ant_ip && pa.ant_count_set)
		c->nant = pa.ant_count;
	if (!pa.group_list && pa.group_count_set)
		c->ngroup = pa.group_count;
	if (!pa.ant_ip) {
		for (i = 0; i < c->nant; i++)
			c->ant_ip[i] = pa.ant_base + i;
	} else if (pa.ant_base_set) {
		fprintf(stderr, "codifgen: --antenna-base and --antenna-ip exclude each other\n");
		return -1;
	}
	if (!pa.group_list) {
		for (i = 0; i < c->ngroup; i++) {
			c->group[i].ip = pa.group_base + i;
			c->group[i].port = (uint16_t)(pa.udp_port_base + i);
		}
	} else if (pa.group_base_set) {
		fprintf(stderr, "codifgen: --group-base and --group exclude each other\n");
		return -1;
	}
	if (pa.map_kind == 0) {
		for (i = 0; i < GEN_MAX_ANTENNAS; i++)
			c->ant_groups[i] = c->ngroup == 64 ? ~0ULL : (1ULL << c->ngroup) - 1;
	} else if (pa.map_kind == 1) {
		for (i = 0; i < GEN_MAX_ANTENNAS; i++)
			c->ant_groups[i] = 1ULL << (i % c->ngroup);
	} else {
		uint64_t gmask = c->ngroup == 64 ? ~0ULL : (1ULL << c->ngroup) - 1;

		for (i = c->nant; i < GEN_MAX_ANTENNAS; i++)
			if (c->ant_groups[i] != 0) {
				fprintf(stderr, "codifgen: --map: antenna %u: expected an antenna "
					"index 0..%u (%u antennas)\n", i, c->nant - 1, c->nant);
				return -1;
			}
		for (i = 0; i < c->nant; i++)
			if ((c->ant_groups[i] & ~gmask) != 0) {
				fprintf(stderr, "codifgen: --map: antenna %u: group %d: expected a "
					"group index 0..%u (%u groups)\n", i,
					__builtin_ctzll(c->ant_groups[i] & ~gmask), c->ngroup - 1,
					c->ngroup);
				return -1;
			}
		for (i = 0; i < c->nant; i++)
			if (c->ant_groups[i] == 0) {
				fprintf(stderr, "codifgen: --map: antenna %u has no group "
					"(every antenna 0..%u must be listed)\n", i, c->nant - 1);
				return -1;
			}
	}
	if (o->select != NULL) {
		const char *names[GEN_MAX_ANTENNAS];
		char dflt[GEN_MAX_ANTENNAS][16];

		for (i = 0; i < c->nant; i++) {
			snprintf(dflt[i], sizeof(dflt[i]), "ant%u", i);
			names[i] = o->ant_name[i][0] != '\0' ? o->ant_name[i] : dflt[i];
		}
		if (parse_antenna_select("--antenna", o->select, names, c->nant, &c->select, err,
					 sizeof(err)) != 0) {
			fprintf(stderr, "codifgen: %s\n", err);
			return -1;
		}
	}
	if (!o->epoch_set)
		c->tmpl.epoch = (uint8_t)codif_epoch_for_unix(c->start_ns / 1000000000LL);
	if (o->duration_ns != 0) {
		uint64_t fpp, fns;

		if (o->frames_set) {
			fprintf(stderr, "codifgen: --count and --data-duration exclude each other\n");
			return -1;
		}
		fpp = codif_frames_per_period(&c->tmpl);
		fns = codif_frame_ns(&c->tmpl);
		if (fpp == 0 || fns == 0) {
			fprintf(stderr, "codifgen: --data-duration: stream parameters give no "
				"whole frames per period\n");
			return -1;
		}
		c->frames = o->duration_ns / fns;
		if (c->frames < 2)
			c->frames = 2;
	}
	if (o->rate_fps >= 0 && o->rate_gbps > 0) {
		fprintf(stderr, "codifgen: --rate-fps and --rate-gbps exclude each other\n");
		return -1;
	}
	if (o->pcap_path == NULL && !o->socket && !o->dpdk) {
		fprintf(stderr, "codifgen: no output: give --pcap FILE, --socket or --tx-port N\n");
		return -1;
	}
	if (o->socket) {
		static const enum gen_fault l2[] = { GEN_F_TRUNCATED, GEN_F_NON_IPV4, GEN_F_VLAN,
						     GEN_F_BAD_IP_CSUM };

		for (i = 0; i < 4; i++)
			if (c->p[l2[i]] > 0) {
				fprintf(stderr,
					"codifgen: --%s: not possible with --socket (the kernel "
					"builds Ethernet/IPv4 headers); use --pcap or --tx-port\n",
					gen_fault_name(l2[i]));
				return -1;
			}
	}
	if (c->sig_mask != 0) {
		struct codif_signal_enc e;

		if (c->sig_mask >> c->nant != 0) {
			fprintf(stderr, "codifgen: --signal: antenna %d of %u antennas (0..%u)\n",
				63 - __builtin_clzll(c->sig_mask), c->nant, c->nant - 1);
			return -1;
		}
		if (codif_signal_enc_init(&e, &c->tmpl, err, sizeof(err)) != 0) {
			fprintf(stderr, "codifgen: --signal: %s (nbits 1, 2, 4, 8, 16 or 32)\n",
				err);
			return -1;
		}
	}
	return 0;
}

/* ---- pacing ---------------------------------------------------------- */


struct pacer {
	uint64_t t0;        /* monotonic start */
	int64_t ts0;        /* first packet's frame time */
	double scale;       /* ns of wall per ns of frame time (fps mode) */
	double ns_per_bit;  /* gbps mode */
	uint64_t bits;
	bool none;
};

static void
pacer_init(struct pacer *p, const struct opts *o, const struct gen *g)
{
	memset(p, 0, sizeof(*p));
	p->ts0 = INT64_MIN;
	if (o->rate_gbps > 0) {
		p->ns_per_bit = 1.0 / o->rate_gbps;
	} else if (o->rate_fps == 0) {
		p->none = true;
	} else if (o->rate_fps > 0) {
		p->scale = 1e9 / o->rate_fps / (double)g->frame_ns;
	} else {
		p->scale = 1.0;
	}
}

/* Wait until packet (frame time ts, len bytes) is due. */
static void
pacer_wait(struct pacer *p, int64_t ts, uint32_t len)
{
	uint64_t due, now;

	if (p->none)
		return;
	if (p->ts0 == INT64_MIN) {
		p->ts0 = ts;
		p->t0 = (uint64_t)mono_ns();
	}
	if (p->ns_per_bit > 0) {
		due = p->t0 + (uint64_t)((double)p->bits * p->ns_per_bit);
		p->bits += (uint64_t)(len + 24) * 8; /* + preamble, FCS, IFG */
	} else {
		due = p->t0 + (uint64_t)((double)(ts - p->ts0) * p->scale);
	}
	now = (uint64_t)mono_ns();
	if (due > now + 200000) {
		struct timespec req;
		uint64_t sl = due - now - 100000;

		req.tv_sec = (time_t)(sl / 1000000000ULL);
		req.tv_nsec = (long)(sl % 1000000000ULL);
		nanosleep(&req, NULL);
	}
	while ((uint64_t)mono_ns() < due && !stop_requested)
		;
}

/* ---- outputs --------------------------------------------------------- */

/* --pcap FILE: the pcap sink (lib/fmt), written as FILE.part and renamed;
 * an existing FILE is replaced, as a generator's output always was. */
static int
pcap_out_open(struct fmt_sink *op, const char *path)
{
	struct fmt_opts fo = { .bufsize = 4u << 20, .fio_flags = FIO_REPLACE, .snaplen = 65535 };
	char err[PATH_MAX + 256];

	if (fmt_open(op, FMT_PCAP, path, &fo, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "codifgen: --pcap: '%s': %s\n", path, err);
		return -1;
	}
	return 0;
}

/* Every packet whole (the largest, 64 KiB of data, is longer than the
 * file's snaplen 65535: kept whole, as libpcap's dumper did). */
static int
pcap_out_write(struct fmt_sink *op, const char *path, int64_t ts, const uint8_t *buf,
	       uint32_t len)
{
	uint8_t *p = fmt_pcap_record(op, ts, len, len);
	int rc = -E2BIG;

	if (p != NULL) {
		memcpy(p, buf, len);
		rc = fmt_pcap_record_end(op);
	} else if (fio_error(&op->f) != 0) {
		rc = -fio_error(&op->f);
	}
	if (rc != 0)
		fprintf(stderr, "codifgen: --pcap: '%s': write failed: %s\n", path, strerror(-rc));
	return rc;
}

static int
pcap_out_close(struct fmt_sink *op, const char *path)
{
	char err[PATH_MAX + 256];

	if (fmt_close(op, true, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "codifgen: --pcap: '%s': write failed: %s\n", path, err);
		return -1;
	}
	return 0;
}

struct out_sock {
	int fd[GEN_MAX_ANTENNAS];
	uint64_t retries;
};

static int
sock_open(struct out_sock *os, const struct gen_cfg *c)
{
	unsigned int a;
	char ip[16];

	for (a = 0; a < GEN_MAX_ANTENNAS; a++)
		os->fd[a] = -1;
	for (a = 0; a < c->nant; a++) {
		struct sockaddr_in sin;
		struct in_addr ifa;
		int fd, v;
		unsigned char ttl = c->ttl, loop = 0;

		if (c->select != 0 && !(c->select >> a & 1))
			continue;
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0) {
			fprintf(stderr, "codifgen: socket: %s\n", strerror(errno));
			return -1;
		}
		os->fd[a] = fd;
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(c->ant_ip[a]);
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
			fprintf(stderr,
				"codifgen: antenna %u: cannot bind to source %s: %s "
				"(the address must be on an interface of this host or "
				"namespace: ip addr add, or choose --antenna-ip/--antenna)\n",
				a, ipv4_str(c->ant_ip[a], ip, sizeof(ip)), strerror(errno));
			return -1;
		}
		ifa.s_addr = htonl(c->ant_ip[a]);
		v = 4 << 20;
		if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &ifa, sizeof(ifa)) != 0 ||
		    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl)) != 0 ||
		    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof(loop)) != 0) {
			fprintf(stderr, "codifgen: antenna %u: multicast options: %s\n",
				a, strerror(errno));
			return -1;
		}
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
		v = IP_PMTUDISC_DO; /* never fragment: a CODIF frame is one datagram */
		setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v));
	}
	return 0;
}

static int
sock_send(struct out_sock *os, const struct gen *g, const struct gen_pkt *p,
	  const uint8_t *payload, uint32_t len)
{
	const struct gen_stream *s = &g->st[p->stream];
	struct sockaddr_in dst;
	char ip[16];
	int tries = 0;

	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_addr.s_addr = htonl(g->cfg.group[s->group].ip);
	dst.sin_port = htons(g->cfg.group[s->group].port);
	for (;;) {
		ssize_t n = sendto(os->fd[s->ant], payload, len, 0,
				   (struct sockaddr *)&dst, sizeof(dst));

		if (n == (ssize_t)len)
			return 0;
		if (n < 0 && (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) &&
		    tries++ < 100000 && !stop_requested) {
			struct timespec ts = { 0, 20000 };

			os->retries++;
			nanosleep(&ts, NULL);
			continue;
		}
		if (n < 0 && errno == EMSGSIZE)
			fprintf(stderr,
				"codifgen: antenna %u: a %u-byte datagram does not fit the "
				"MTU of the route to %s (set MTU 9000 on the interface)\n",
				s->ant, len, ipv4_str(g->cfg.group[s->group].ip, ip, sizeof(ip)));
		else
			fprintf(stderr, "codifgen: antenna %u: sendto %s: %s\n", s->ant,
				ipv4_str(g->cfg.group[s->group].ip, ip, sizeof(ip)),
				n < 0 ? strerror(errno) : "short send");
		return -1;
	}
}

static void
sock_close(struct out_sock *os)
{
	unsigned int a;

	for (a = 0; a < GEN_MAX_ANTENNAS; a++)
		if (os->fd[a] >= 0)
			close(os->fd[a]);
}

#define TXQ_MAX (GEN_MAX_ANTENNAS + 1)

struct out_dpdk {
	uint16_t port;
	struct rte_mempool *mp;
	unsigned int nq;
	bool per_antenna;
	struct rte_mbuf *burst[TXQ_MAX][32];
	unsigned int n[TXQ_MAX];
	uint64_t sent, retries, dropped;
	bool started;
	bool pace;
	bool drop;
};

static int
dpdk_open(struct out_dpdk *od, const struct opts *o, const struct gen *g)
{
	/* largest frame: VLAN tag or IPv6 header (+20) on top of the usual */
	uint32_t max_frame = PKT_HDRS_LEN + PKT_VLAN_LEN + 20 + CODIF_HDR_LEN +
			     (uint32_t)codif_data_bytes(&g->cfg.tmpl);
	uint32_t room = RTE_PKTMBUF_HEADROOM + max_frame;

	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_txconf txc;
	char name[RTE_ETH_NAME_MAX_LEN];
	unsigned int q;
	int rc;

	memset(od, 0, sizeof(*od));
	od->port = o->tx_port;
	if (!rte_eth_dev_is_valid_port(od->port)) {
		fprintf(stderr,
			"codifgen: --tx-port %u: no such DPDK port (%u available; "
			"give one with --vdev or -a before '--')\n",
			od->port, rte_eth_dev_count_avail());
		return -1;
	}
	if (room > UINT16_MAX) {
		fprintf(stderr, "codifgen: --tx-port: %u-byte frames do not fit one mbuf "
			"(at most %u bytes); lower --data-bytes\n", max_frame,
			UINT16_MAX - RTE_PKTMBUF_HEADROOM);
		return -1;
	}
	rte_eth_dev_get_name_by_port(od->port, name);
	rc = rte_eth_dev_info_get(od->port, &info);
	if (rc != 0) {
		fprintf(stderr, "codifgen: port %u (%s): info: %s\n", od->port, name,
			strerror(-rc));
		return -1;
	}
	/* a cache may hold at most 2/3 of the pool (DPDK's rule) */
	od->mp = rte_pktmbuf_pool_create("codifgen_tx", o->nb_mbufs,
					 RTE_MIN(256u, o->nb_mbufs * 2 / 3), 0,
					 (uint16_t)room,
					 rte_eth_dev_socket_id(od->port) < 0 ? (int)rte_socket_id() :
					 rte_eth_dev_socket_id(od->port));
	if (od->mp == NULL) {
		fprintf(stderr, "codifgen: tx mbuf pool of %u x %u bytes: %s "
			"(reserve more hugepages or lower --mbufs)\n",
			o->nb_mbufs, room,
			rte_strerror(rte_errno));
		return -1;
	}
	od->per_antenna = o->queue_per_antenna;
	od->nq = o->queue_per_antenna ? g->cfg.nant + 1 : 1;
	if (od->nq > info.max_tx_queues) {
		fprintf(stderr, "codifgen: --queue-per-antenna: port %u (%s) has %u tx "
			"queues, %u needed (antennas + 1)\n", od->port, name,
			info.max_tx_queues, od->nq);
		return -1;
	}
	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(od->port, 1, (uint16_t)od->nq, &conf);
	if (rc != 0) {
		fprintf(stderr, "codifgen: port %u (%s): configure: %s\n", od->port,
			name, strerror(-rc));
		return -1;
	}
	rc = rte_eth_dev_set_mtu(od->port, 9000);
	if (rc != 0 && info.max_mtu < 9000)
		fprintf(stderr,
			"codifgen: port %u (%s): MTU 9000 not settable (max %u): %s; "
			"jumbo frames may be refused\n",
			od->port, name, info.max_mtu, strerror(-rc));
	rc = rte_eth_rx_queue_setup(od->port, 0, 256, rte_eth_dev_socket_id(od->port),
				    NULL, od->mp);
	if (rc != 0) {
		fprintf(stderr, "codifgen: port %u (%s): rx queue: %s\n", od->port,
			name, strerror(-rc));
		return -1;
	}
	txc = info.default_txconf;
	for (q = 0; q < od->nq; q++) {
		rc = rte_eth_tx_queue_setup(od->port, (uint16_t)q, 1024,
					    rte_eth_dev_socket_id(od->port), &txc);
		if (rc != 0) {
			fprintf(stderr, "codifgen: port %u (%s): tx queue %u: %s\n",
				od->port, name, q, strerror(-rc));
			return -1;
		}
	}
	rc = rte_eth_dev_start(od->port);
	if (rc != 0) {
		fprintf(stderr, "codifgen: port %u (%s): start: %s\n", od->port,
			name, strerror(-rc));
		return -1;
	}
	od->started = true;
	/* a memif client's link comes up when the server answers */
	{
		struct rte_eth_link link;
		uint64_t end = (uint64_t)mono_ns() + 10000000000ULL;

		do {
			memset(&link, 0, sizeof(link));
			rte_eth_link_get_nowait(od->port, &link);
			if (link.link_status == RTE_ETH_LINK_UP)
				break;
			usleep(10000);
		} while ((uint64_t)mono_ns() < end && !stop_requested);
		if (link.link_status != RTE_ETH_LINK_UP)
			fprintf(stderr, "codifgen: port %u (%s): link still down after 10 s; "
				"sending anyway\n", od->port, name);
	}
	return 0;
}

static int
dpdk_flush_q(struct out_dpdk *od, unsigned int q)
{
	unsigned int done = 0, n = od->n[q];
	uint64_t t0 = (uint64_t)mono_ns();

	while (done < n) {
		uint16_t k = rte_eth_tx_burst(od->port, (uint16_t)q, od->burst[q] + done,
					      (uint16_t)(n - done));

		done += k;
		if (done < n && od->drop) {
			/* a full ring drops, as a NIC's would */
			rte_pktmbuf_free_bulk(od->burst[q] + done, n - done);
			od->dropped += n - done;
			break;
		}
		if (done < n) {
			od->retries++;
			if ((uint64_t)mono_ns() - t0 > 5000000000ULL) {
				fprintf(stderr,
					"codifgen: port %u queue %u: tx stalled for 5 s with %u "
					"frames left (is the peer receiving?)\n",
					od->port, q, n - done);
				rte_pktmbuf_free_bulk(od->burst[q] + done, n - done);
				od->sent += done;
				od->n[q] = 0;
				return -1;
			}
		}
	}
	od->sent += done;
	od->n[q] = 0;
	return 0;
}

static int
dpdk_flush(struct out_dpdk *od)
{
	unsigned int q;
	int rc = 0;

	for (q = 0; q < od->nq; q++)
		if (od->n[q] && dpdk_flush_q(od, q) != 0)
			rc = -1;
	return rc;
}

static int
dpdk_send(struct out_dpdk *od, const struct gen *g, const struct gen_pkt *p)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(od->mp);
	unsigned int q = od->per_antenna ? g->st[p->stream].ant : 0;
	uint8_t *d;
	uint32_t len;

	if (m == NULL) {
		if (dpdk_flush(od) != 0)
			return -1;
		m = rte_pktmbuf_alloc(od->mp);
		if (m == NULL) {
			fprintf(stderr, "codifgen: tx pool exhausted (raise --mbufs)\n");
			return -1;
		}
	}
	d = rte_pktmbuf_mtod(m, uint8_t *);
	len = gen_build(g, p, d);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	od->burst[q][od->n[q]++] = m;
	/* in order per queue; a paced run sends each packet at once */
	if (od->n[q] == RTE_DIM(od->burst[q]) || od->pace)
		return dpdk_flush_q(od, q);
	return 0;
}

static void
dpdk_close(struct out_dpdk *od, uint64_t linger_ns)
{
	if (od->started) {
		dpdk_flush(od);
		if (linger_ns) {
			struct timespec ts = { (time_t)(linger_ns / 1000000000ULL),
					       (long)(linger_ns % 1000000000ULL) };

			nanosleep(&ts, NULL);
		}
		rte_eth_dev_stop(od->port);
		rte_eth_dev_close(od->port);
	}
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct gen g;
	struct gen_pkt p;
	struct fmt_sink op;
	struct out_sock os;
	struct out_dpdk od;
	struct pacer pc;
	uint8_t *buf = NULL;
	int i, eal_args = 0, rc = 1, have_pcap = 0, have_sock = 0, have_dpdk = 0;
	uint64_t t_start, bytes = 0;
	double el;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			eal_args = i;
			break;
		}
	for (i = eal_args + 1; eal_args > 0 && i < argc; i++)
		if (strcmp(argv[i], "--check-config") == 0) {
			/* parse only: no EAL, the EAL arguments not looked at */
			argv[eal_args] = argv[0];
			argc -= eal_args;
			argv += eal_args;
			eal_args = -1;
			break;
		}
	if (eal_args > 0) {
		int n = rte_eal_init(argc, argv);

		if (n < 0) {
			fprintf(stderr, "codifgen: EAL init failed: %s\n",
				rte_strerror(rte_errno));
			return 1;
		}
		argc -= n;
		argv += n;
	}
	if (parse_args(argc, argv, &o) != 0)
		goto out_eal;
	if (o.check_only) {
		if (gen_init(&g, &o.cfg) != 0) {
			fprintf(stderr, "codifgen: %s\n", g.err);
			return 1;
		}
		gen_free(&g);
		opt_print(&gen_cmd, &o, stdout);
		return 0;
	}
	if (o.dpdk && eal_args == 0) {
		fprintf(stderr, "codifgen: --tx-port needs EAL options before '--' "
			"(e.g. codifgen --no-pci --vdev net_pcap0,tx_pcap=out.pcap -- --tx-port 0 ...)\n");
		goto out_eal;
	}
	if (gen_init(&g, &o.cfg) != 0) {
		fprintf(stderr, "codifgen: %s\n", g.err);
		goto out_eal;
	}
	buf = malloc(GEN_MAX_FRAME);
	if (buf == NULL)
		goto out_gen;
	if (o.pcap_path != NULL) {
		if (pcap_out_open(&op, o.pcap_path) != 0)
			goto out_buf;
		have_pcap = 1;
	}
	if (o.socket) {
		if (sock_open(&os, &o.cfg) != 0) {
			sock_close(&os);
			goto out_outputs;
		}
		have_sock = 1;
	}
	if (o.dpdk) {
		if (dpdk_open(&od, &o, &g) != 0) {
			dpdk_close(&od, 0);
			goto out_outputs;
		}
		od.pace = !(o.rate_fps == 0);
		od.drop = o.tx_drop;
		have_dpdk = 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	pacer_init(&pc, &o, &g);
	t_start = (uint64_t)mono_ns();
	rc = 0;
	while (!stop_requested && gen_next(&g, &p) == 1) {
		uint32_t len = gen_build(&g, &p, buf);

		bytes += len;
		if (have_pcap && pcap_out_write(&op, o.pcap_path, p.ts_ns, buf, len) != 0) {
			rc = 1;
			break;
		}
		if (have_sock || have_dpdk)
			pacer_wait(&pc, p.ts_ns, len);
		if (have_sock) {
			uint32_t pl = gen_build_payload(&g, &p, buf);

			if (sock_send(&os, &g, &p, buf, pl) != 0) {
				rc = 1;
				break;
			}
		}
		if (have_dpdk && dpdk_send(&od, &g, &p) != 0) {
			rc = 1;
			break;
		}
	}
	if (stop_requested && rc == 0)
		rc = 2;
	el = (double)((uint64_t)mono_ns() - t_start) / 1e9;
	if (!o.quiet) {
		fprintf(stderr,
			"codifgen: %u streams (%u antennas, %u groups, %u threads), "
			"%" PRIu64 " packets, %" PRIu64 " bytes in %.3f s "
			"(%.3f Mpps, %.3f Gb/s)%s\n",
			g.nstream, o.cfg.nant, o.cfg.ngroup, o.cfg.nthread, g.packets, bytes, el,
			el > 0 ? (double)g.packets / el / 1e6 : 0.0,
			el > 0 ? (double)bytes * 8 / el / 1e9 : 0.0,
			stop_requested ? " [interrupted]" : "");
		if (have_sock && os.retries)
			fprintf(stderr, "codifgen: socket send retried %" PRIu64
				" times (kernel queue full)\n", os.retries);
	}
out_outputs:
	if (have_dpdk) {
		dpdk_close(&od, stop_requested ? 0 : o.linger_ns);
		if (!o.quiet)
			fprintf(stderr, "codifgen: port %u: %" PRIu64 " frames sent, %"
				PRIu64 " tx retries, %" PRIu64 " dropped (tx ring full)\n",
				od.port, od.sent, od.retries, od.dropped);
	}
	if (have_sock)
		sock_close(&os);
	if (have_pcap && pcap_out_close(&op, o.pcap_path) != 0)
		rc = 1;
	if (o.truth_path != NULL && (have_pcap || have_sock || have_dpdk)) {
		FILE *f = strcmp(o.truth_path, "-") == 0 ? stdout :
			  fopen(o.truth_path, "w");

		if (f == NULL || gen_truth_json(&g, f) != 0) {
			fprintf(stderr, "codifgen: --truth: '%s': %s\n", o.truth_path,
				strerror(errno));
			rc = 1;
		}
		if (f != NULL && f != stdout && fclose(f) != 0) {
			fprintf(stderr, "codifgen: --truth: '%s': %s\n", o.truth_path,
				strerror(errno));
			rc = 1;
		}
	} else if (!have_pcap && !have_sock && !have_dpdk) {
		rc = 1;
	}
out_buf:
	free(buf);
out_gen:
	gen_free(&g);
out_eal:
	fflush(stdout);
	if (eal_args > 0 && quirk_eal_cleanup_safe()) /* not with net_memif: quirks.h */
		rte_eal_cleanup();
	return rc;
}
