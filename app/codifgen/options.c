/* SPDX-License-Identifier: BSD-3-Clause */
/* codifgen's options: the table (lib/opt), the setters of its compound
 * values, and the checks between options once all are read. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codif.h"
#include "codifgen.h"
#include "err.h"
#include "opt.h"
#include "parse.h"

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
			err_set(err, ERRLEN, -EINVAL, "--map: '%s': expected "
				"ANTENNA:GROUP[+GROUP...] (indices), e.g. 0:0+1", items[i]);
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
		if (rc == 0 && (c->group[i].ip >> 28) != 0xE)
			rc = err_set(err, errlen, -EINVAL,
				     "%s: '%s': expected an IPv4 multicast address (224.0.0.0/4)",
				     a->opt, items[i]);
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
	if (strlen(a->val) != 2)
		return err_set(err, errlen, -EINVAL, "%s: '%s': expected two characters, e.g. AK",
			       a->opt, a->val);
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

	if (c->nev == GEN_MAX_EVENTS)
		return err_set(err, errlen, -E2BIG, "%s: at most %d", a->opt, GEN_MAX_EVENTS);
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

/* Set the antennas and groups from their counts and bases, or from the
 * lists given (--antennas/--antenna-base vs --antenna-ip, --groups/
 * --group-base/--udp-port-base vs --group), whatever the options' order. */
static int
layout_finish(struct gen_cfg *c, const struct pargs *pa)
{
	unsigned int i;

	if (pa->ant_ip && pa->ant_count_set && pa->ant_count != c->nant) {
		fprintf(stderr, "codifgen: --antennas %u and --antenna-ip (%u given) disagree\n",
			pa->ant_count, c->nant);
		return -1;
	}
	if (pa->group_list && pa->group_count_set && pa->group_count != c->ngroup) {
		fprintf(stderr, "codifgen: --groups %u and --group (%u given) disagree\n",
			pa->group_count, c->ngroup);
		return -1;
	}
	if (!pa->ant_ip && pa->ant_count_set)
		c->nant = pa->ant_count;
	if (!pa->group_list && pa->group_count_set)
		c->ngroup = pa->group_count;
	if (!pa->ant_ip) {
		for (i = 0; i < c->nant; i++)
			c->ant_ip[i] = pa->ant_base + i;
	} else if (pa->ant_base_set) {
		fprintf(stderr, "codifgen: --antenna-base and --antenna-ip exclude each other\n");
		return -1;
	}
	if (!pa->group_list) {
		for (i = 0; i < c->ngroup; i++) {
			c->group[i].ip = pa->group_base + i;
			c->group[i].port = (uint16_t)(pa->udp_port_base + i);
		}
	} else if (pa->group_base_set) {
		fprintf(stderr, "codifgen: --group-base and --group exclude each other\n");
		return -1;
	}
	return 0;
}

/* Set which antenna sends to which groups (--map all, rr or a list), now
 * that the counts are known; a list must name every antenna, and only
 * antennas and groups that exist. */
static int
map_finish(struct gen_cfg *c, int map_kind)
{
	uint64_t gmask = c->ngroup == 64 ? ~0ULL : (1ULL << c->ngroup) - 1;
	unsigned int i;

	if (map_kind == 0) {
		for (i = 0; i < GEN_MAX_ANTENNAS; i++)
			c->ant_groups[i] = gmask;
		return 0;
	}
	if (map_kind == 1) {
		for (i = 0; i < GEN_MAX_ANTENNAS; i++)
			c->ant_groups[i] = 1ULL << (i % c->ngroup);
		return 0;
	}
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
	return 0;
}

/* Resolve --antenna (names or indices) against the antennas' names. */
static int
select_finish(struct opts *o)
{
	struct gen_cfg *c = &o->cfg;
	const char *names[GEN_MAX_ANTENNAS];
	char dflt[GEN_MAX_ANTENNAS][16], err[ERRLEN];
	unsigned int i;

	if (o->select == NULL)
		return 0;
	for (i = 0; i < c->nant; i++) {
		snprintf(dflt[i], sizeof(dflt[i]), "ant%u", i);
		names[i] = o->ant_name[i][0] != '\0' ? o->ant_name[i] : dflt[i];
	}
	if (parse_antenna_select("--antenna", o->select, names, c->nant, &c->select, err,
				 sizeof(err)) != 0) {
		fprintf(stderr, "codifgen: %s\n", err);
		return -1;
	}
	return 0;
}

/* Set the epoch from --start unless given, and the frames per stream from
 * --data-duration (which --count excludes). */
static int
time_finish(struct opts *o)
{
	struct gen_cfg *c = &o->cfg;
	uint64_t fpp, fns;

	if (!o->epoch_set)
		c->tmpl.epoch = (uint8_t)codif_epoch_for_unix(c->start_ns / 1000000000LL);
	if (o->duration_ns == 0)
		return 0;
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
	return 0;
}

/* Check the outputs: at least one, one rate, no fault below UDP on kernel
 * sockets, and a --signal only for antennas and encodings that exist. */
static int
output_check(const struct opts *o)
{
	static const enum gen_fault l2[] = { GEN_F_TRUNCATED, GEN_F_NON_IPV4, GEN_F_VLAN,
					     GEN_F_BAD_IP_CSUM };
	const struct gen_cfg *c = &o->cfg;
	struct codif_signal_enc e;
	char err[ERRLEN];
	unsigned int i;

	if (o->rate_fps >= 0 && o->rate_gbps > 0) {
		fprintf(stderr, "codifgen: --rate-fps and --rate-gbps exclude each other\n");
		return -1;
	}
	if (o->pcap_path == NULL && !o->socket && !o->dpdk) {
		fprintf(stderr, "codifgen: no output: give --pcap FILE, --socket or --tx-port N\n");
		return -1;
	}
	for (i = 0; o->socket && i < sizeof(l2) / sizeof(l2[0]); i++)
		if (c->p[l2[i]] > 0) {
			fprintf(stderr, "codifgen: --%s: not possible with --socket (the kernel "
				"builds Ethernet/IPv4 headers); use --pcap or --tx-port\n",
				gen_fault_name(l2[i]));
			return -1;
		}
	if (c->sig_mask == 0)
		return 0;
	if (c->sig_mask >> c->nant != 0) {
		fprintf(stderr, "codifgen: --signal: antenna %d of %u antennas (0..%u)\n",
			63 - __builtin_clzll(c->sig_mask), c->nant, c->nant - 1);
		return -1;
	}
	if (codif_signal_enc_init(&e, &c->tmpl, err, sizeof(err)) != 0) {
		fprintf(stderr, "codifgen: --signal: %s (nbits 1, 2, 4, 8, 16 or 32)\n", err);
		return -1;
	}
	return 0;
}

int
cg_parse_args(int argc, char **argv, struct opts *o)
{
	char err[ERRLEN];
	struct pargs pa;
	int rc;

	defaults(o, &pa);
	rc = opt_parse_argv(&gen_cmd, o, &pa, argc, argv, NULL, err, sizeof(err));
	if (rc > 0)
		exit(0); /* --help */
	if (rc < 0) {
		fprintf(stderr, "codifgen: %s\n", err);
		return -1;
	}
	if (layout_finish(&o->cfg, &pa) != 0 || map_finish(&o->cfg, pa.map_kind) != 0 ||
	    select_finish(o) != 0 || time_finish(o) != 0)
		return -1;
	return output_check(o);
}

void
cg_opts_print(const struct opts *o, FILE *f)
{
	opt_print(&gen_cmd, o, f);
}
