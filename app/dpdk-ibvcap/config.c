/* SPDX-License-Identifier: BSD-3-Clause */
/* Options of dpdk-ibvcap: one table serves getopt_long and the INI file. */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <rte_cfgfile.h>
#include <rte_common.h>

#include "antbuf.h"
#include "codif.h"
#include "config.h"
#include "parse.h"
#include "writer.h"

#define NS_PER_S 1000000000ULL

static int
errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

enum {
	O_CONFIG = 256, O_PORT, O_ANTENNAS, O_ANT_BASE, O_ANT_IP, O_GROUPS,
	O_GROUP_BASE, O_PORT_BASE, O_GROUP, O_THREADS, O_MTU, O_MBUF_SIZE,
	O_MBUFS, O_RX_DESC, O_BURST, O_STEER, O_ISOLATE, O_NO_JOIN,
	O_JOIN_IFACE, O_LCORE_MAP, O_PACKETS, O_FRAMES, O_DURATION,
	O_IDLE_TIMEOUT, O_STATS_PERIOD, O_LINK_TIMEOUT, O_SUMMARY_JSON,
	O_WINDOW, O_CHECK_CONFIG, O_RING, O_REORDER_WINDOW, O_DATA_BYTES,
	O_FRAME_RATE, O_NO_BUFFERS, O_GPU, O_GPU_SPLIT, O_WRITE, O_WRITER_DRAIN,
	O_CONFIRM, O_MAX_GAP,
	O_VERBOSE = 'v', O_HELP = 'h',
};

/* the words of the choice options, in their enums' order */
static const char *const steer_names[] = { "auto", "flow", "software" }; /* ibv_steer_mode */
static const char *const split_names[] = { "auto", "on", "off" };        /* ibv_split_mode */

static const struct option long_opts[] = {
	{"config", required_argument, NULL, O_CONFIG},
	{"port", required_argument, NULL, O_PORT},
	{"antennas", required_argument, NULL, O_ANTENNAS},
	{"antenna-base", required_argument, NULL, O_ANT_BASE},
	{"antenna-ip", required_argument, NULL, O_ANT_IP},
	{"groups", required_argument, NULL, O_GROUPS},
	{"group-base", required_argument, NULL, O_GROUP_BASE},
	{"port-base", required_argument, NULL, O_PORT_BASE},
	{"group", required_argument, NULL, O_GROUP},
	{"threads", required_argument, NULL, O_THREADS},
	{"mtu", required_argument, NULL, O_MTU},
	{"mbuf-size", required_argument, NULL, O_MBUF_SIZE},
	{"mbufs", required_argument, NULL, O_MBUFS},
	{"rx-desc", required_argument, NULL, O_RX_DESC},
	{"burst", required_argument, NULL, O_BURST},
	{"steer", required_argument, NULL, O_STEER},
	{"isolate", no_argument, NULL, O_ISOLATE},
	{"no-join", no_argument, NULL, O_NO_JOIN},
	{"join-iface", required_argument, NULL, O_JOIN_IFACE},
	{"lcore-map", required_argument, NULL, O_LCORE_MAP},
	{"packets", required_argument, NULL, O_PACKETS},
	{"frames", required_argument, NULL, O_FRAMES},
	{"duration", required_argument, NULL, O_DURATION},
	{"idle-timeout", required_argument, NULL, O_IDLE_TIMEOUT},
	{"stats-period", required_argument, NULL, O_STATS_PERIOD},
	{"link-timeout", required_argument, NULL, O_LINK_TIMEOUT},
	{"summary-json", required_argument, NULL, O_SUMMARY_JSON},
	{"window", required_argument, NULL, O_WINDOW},
	{"confirm", required_argument, NULL, O_CONFIRM},
	{"max-gap", required_argument, NULL, O_MAX_GAP},
	{"check-config", no_argument, NULL, O_CHECK_CONFIG},
	{"ring", required_argument, NULL, O_RING},
	{"reorder-window", required_argument, NULL, O_REORDER_WINDOW},
	{"data-bytes", required_argument, NULL, O_DATA_BYTES},
	{"frame-rate", required_argument, NULL, O_FRAME_RATE},
	{"no-buffers", no_argument, NULL, O_NO_BUFFERS},
	{"gpu", required_argument, NULL, O_GPU},
	{"gpu-split", required_argument, NULL, O_GPU_SPLIT},
	{"write", required_argument, NULL, O_WRITE},
	{"writer-drain", required_argument, NULL, O_WRITER_DRAIN},
	{"verbose", no_argument, NULL, O_VERBOSE},
	{"help", no_argument, NULL, O_HELP},
	{NULL, 0, NULL, 0},
};

void
ibv_usage(FILE *f)
{
	fprintf(f,
"Usage: dpdk-ibvcap [EAL options] -- [options]\n"
"       dpdk-ibvcap --check-config FILE [options]\n"
"Capture CODIF antenna streams: steer each antenna (source IPv4) to its own\n"
"rx queue, check every frame, count received/lost/late/duplicate/invalid/\n"
"malformed per antenna and stream. Stock dpdk-pdump/dpdk-dumpcap can attach.\n"
"\n"
"Layout (default: 6 antennas 10.17.0.211.., 4 groups 239.17.0.1:36001..):\n"
"  --antennas N            N antennas from --antenna-base, 1..64 (6)\n"
"  --antenna-base IP       first antenna source address (10.17.0.211)\n"
"  --antenna-ip IP[=NAME][,...]  explicit antennas (repeatable); NAME\n"
"                          (letters, digits, '_') names files, reports and\n"
"                          telemetry keys (default ant<i>)\n"
"  --groups N              N groups from --group-base/--port-base (4)\n"
"  --group-base IP         first multicast group (239.17.0.1)\n"
"  --port-base PORT        UDP port of the first group (36001), +1 each\n"
"  --group IP:PORT[@P][,...] explicit groups (repeatable); @P: index in\n"
"                          --port of the port that joins it (default:\n"
"                          group i on port i mod ports)\n"
"  --threads N             CODIF threads per antenna and group (2; informs\n"
"                          buffer sizing, never assumed by the checks)\n"
"Ports and queues:\n"
"  --port P[,P...]         ports by id or device name (default: all probed)\n"
"  --mtu N                 MTU to set (9000)\n"
"  --mbuf-size N           mbuf data room incl. headroom (auto: MTU fits)\n"
"  --mbufs N               mbufs per port (auto)\n"
"  --rx-desc N             rx descriptors per queue (1024)\n"
"  --burst N               rx burst size, 1..512 (64)\n"
"  --lcore-map P.Q@L[,...] poll queue Q of port index P on lcore L\n"
"                          (default: queues spread over worker lcores)\n"
"Steering (one rx queue per antenna + a default queue):\n"
"  --steer auto|flow|software  auto: rte_flow rules, else software steering\n"
"                          by source address with one log line (default);\n"
"                          flow: rules or fail; software: no rules\n"
"  --isolate               flow isolation: the port delivers only what the\n"
"                          rules match (mlx5; implies --steer flow)\n"
"Multicast membership (a kernel socket on the port's interface):\n"
"  --no-join               do not join the groups\n"
"  --join-iface P=IFNAME[,...] interface joining for port index P\n"
"Stop (first one wins; SIGINT/SIGTERM always):\n"
"  --packets N             after N packets in total\n"
"  --frames N              when every antenna has received N frames\n"
"  --duration T            after T (e.g. 30s, 10m)\n"
"  --idle-timeout T        after T without packets, once traffic began\n"
"Reporting:\n"
"  --stats-period T        periodic one-line report (1s; 0 = off)\n"
"  --summary-json FILE     final summary as JSON\n"
"  -v, --verbose           dump every packet's headers (slow)\n"
"  --window N              frames tracked for late/duplicate, per stream (4096)\n"
"Timeline (docs/architecture.md): a frame more than --reorder-window ahead\n"
"or --window behind is held until --confirm frames agree on it:\n"
"  --confirm K             agreeing frames that move a timeline (4)\n"
"  --max-gap T             a confirmed jump ahead of at most T is loss, more\n"
"                          is a resync (1s)\n"
"  --link-timeout T        wait for link up (5s), then go on with a warning\n"
"Per-antenna buffers (shared memory; writers attach with their own cursor):\n"
"  --ring N|T              frames per antenna ring, or a time (1024; rounded\n"
"                          up to a power of two)\n"
"  --reorder-window N|T    frames kept open for late frames (64)\n"
"  --data-bytes N          payload bytes per frame in the buffers (8192);\n"
"                          frames of another size are counted, not placed\n"
"  --frame-rate F          frames/s per stream, to turn times into frames\n"
"                          (2314.81: ASKAP-like 62500 frames per 27 s)\n"
"  --no-buffers            count only, no buffers\n"
"  --gpu DEV               payload in gpudev DEV's memory (GPUDirect)\n"
"  --gpu-split auto|on|off  with --gpu: the NIC writes headers to host and\n"
"                          payload straight to GPU memory where every port\n"
"                          offers buffer split (auto), or fail (on); off:\n"
"                          host mbufs, payload copied to GPU memory\n"
"  --write FORMAT:DIR[,key=value...]  a writer on an lcore of its own\n"
"                          (repeatable): raw|codif|pcap; keys prefix,\n"
"                          rotate-size, rotate-time, snaplen, all, direct\n"
"  --writer-drain T        at exit, wait up to T for dpdk-ibvcap-dump writers\n"
"                          to take the last frames (10s; --write writers\n"
"                          always finish)\n"
"Configuration:\n"
"  --config FILE           INI file: any section, keys are these option\n"
"                          names (flags take yes/no); the command line wins,\n"
"                          and its lists replace the file's\n"
"  --check-config [FILE]   print the effective configuration (of FILE, as\n"
"                          --config FILE, and the options) and exit 0, or\n"
"                          exit 1 naming each bad key and value\n"
"  -h, --help              this text\n"
"\n"
"Exit status: 0 clean stop; 1 configuration or start-up error (message\n"
"names the problem); 2 runtime failure.\n"
"Live taps: dpdk-pdump --file-prefix PREFIX -- --pdump 'port=P,queue=N,rx-dev=F'\n"
"taps antenna N; dpdk-dumpcap --file-prefix PREFIX -i P -s 9000 a port.\n");
}

void
ibv_config_defaults(struct ibv_config *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->layout.nant = 6;
	for (i = 0; i < c->layout.nant; i++) {
		c->layout.ant_ip[i] = (10u << 24 | 17u << 16) + 211 + i;
		snprintf(c->layout.ant_name[i], ACCT_NAME_LEN, "ant%u", i);
	}
	c->layout.ngroup = 4;
	for (i = 0; i < c->layout.ngroup; i++) {
		c->layout.group[i].ip = (239u << 24 | 17u << 16) + 1 + i;
		c->layout.group[i].port = (uint16_t)(36001 + i);
		c->group_port[i] = -1;
	}
	c->threads = 2;
	c->mtu = 9000;
	c->rx_desc = 1024;
	c->burst = 64;
	c->stats_period_ns = NS_PER_S;
	c->link_timeout_ns = 5 * NS_PER_S;
	codif_tl_cfg_defaults(&c->layout.tl);
	c->buffers = true;
	c->ring_frames = 1024;
	c->window_frames = 64;
	c->data_bytes = 8192;
	c->frame_rate = 62500.0 / 27.0;
	c->gpu = -1;
	c->drain_ns = 10 * NS_PER_S;
}

/* "N" frames or "T" with a unit (2s, 250ms): frames or ns */
static int
frames_or_time(const char *opt, const char *v, uint32_t *frames, uint64_t *ns,
	       char *err, size_t len)
{
	uint64_t u;

	if (parse_u64(opt, v, 1, 1u << 26, &u, NULL, 0) == 0) {
		*frames = (uint32_t)u;
		*ns = 0;
		return 0;
	}
	if (parse_duration_ns(opt, v, 1000, 3600ULL * NS_PER_S, ns, NULL, 0) == 0 &&
	    strpbrk(v, "smh") != NULL) {
		*frames = 0;
		return 0;
	}
	return errf(err, len, "%s: '%s': expected a number of frames (1..%u) or a time "
		    "with a unit such as 500ms or 2s", opt, v, 1u << 26);
}

void
ibv_buffer_rows(const struct ibv_config *c, uint32_t *rows, uint32_t *window)
{
	uint64_t r = c->ring_ns ? (uint64_t)((double)c->ring_ns / 1e9 * c->frame_rate + 0.5) :
				  c->ring_frames;
	uint64_t w = c->window_ns ? (uint64_t)((double)c->window_ns / 1e9 * c->frame_rate + 0.5) :
				    c->window_frames;
	uint64_t p = 2;

	if (w < 1)
		w = 1;
	while (p < r || p < 2 * w)
		p <<= 1;
	*rows = (uint32_t)p;
	*window = (uint32_t)w;
}

/* Parse state across options: what was given explicitly. */
struct pstate {
	bool ant_list, ant_count, ant_base, group_list, group_count, group_base,
	     port_base;
	uint32_t ant_base_ip, group_base_ip;
	uint16_t port_base_v;
	unsigned int ant_n, group_n;
};

static int
errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static bool
parse_flag_value(const char *v, bool *out)
{
	if (v == NULL || strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0 ||
	    strcmp(v, "1") == 0 || strcasecmp(v, "on") == 0 || *v == '\0') {
		*out = true;
		return true;
	}
	if (strcasecmp(v, "no") == 0 || strcasecmp(v, "false") == 0 ||
	    strcmp(v, "0") == 0 || strcasecmp(v, "off") == 0) {
		*out = false;
		return true;
	}
	return false;
}

static int
add_antennas(struct ibv_config *c, struct pstate *ps, const char *opt,
	     const char *v, char *err, size_t len)
{
	char *items[ACCT_MAX_ANTENNAS], *store;
	int n, i;

	if (!ps->ant_list)
		c->layout.nant = 0;
	ps->ant_list = true;
	n = parse_list(opt, v, ',', items, ACCT_MAX_ANTENNAS, &store, err, len);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		char *eq = strchr(items[i], '=');
		unsigned int k = c->layout.nant;

		if (k == ACCT_MAX_ANTENNAS) {
			free(store);
			return errf(err, len, "%s: more than %d antennas", opt,
				    ACCT_MAX_ANTENNAS);
		}
		if (eq != NULL)
			*eq = '\0';
		if (parse_ipv4(opt, items[i], &c->layout.ant_ip[k], err, len) != 0) {
			free(store);
			return -1;
		}
		if (eq != NULL) {
			if (eq[1] == '\0' || strlen(eq + 1) >= ACCT_NAME_LEN ||
			    strspn(eq + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
				    strlen(eq + 1)) {
				/* the name keys DPDK telemetry, whose keys take
				 * only these, and names files */
				errf(err, len,
				     "%s: '%s': expected a name of 1..%d letters, digits or '_'",
				     opt, eq + 1, ACCT_NAME_LEN - 1);
				free(store);
				return -1;
			}
			str_copy(c->layout.ant_name[k], ACCT_NAME_LEN, eq + 1);
		} else {
			snprintf(c->layout.ant_name[k], ACCT_NAME_LEN, "ant%u", k);
		}
		c->layout.nant++;
	}
	free(store);
	return 0;
}

static int
add_groups(struct ibv_config *c, struct pstate *ps, const char *opt,
	   const char *v, char *err, size_t len)
{
	char *items[ACCT_MAX_GROUPS], *store;
	int n, i;

	if (!ps->group_list)
		c->layout.ngroup = 0;
	ps->group_list = true;
	n = parse_list(opt, v, ',', items, ACCT_MAX_GROUPS, &store, err, len);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		char *at = strchr(items[i], '@');
		unsigned int k = c->layout.ngroup;
		uint64_t pi;

		if (k == ACCT_MAX_GROUPS) {
			free(store);
			return errf(err, len, "%s: more than %d groups", opt, ACCT_MAX_GROUPS);
		}
		if (at != NULL)
			*at = '\0';
		if (parse_ipv4_port(opt, items[i], &c->layout.group[k].ip,
				    &c->layout.group[k].port, err, len) != 0) {
			free(store);
			return -1;
		}
		if ((c->layout.group[k].ip >> 28) != 0xE) {
			errf(err, len, "%s: '%s': expected an IPv4 multicast address (224.0.0.0/4)",
			     opt, items[i]);
			free(store);
			return -1;
		}
		c->group_port[k] = -1;
		if (at != NULL) {
			if (parse_u64(opt, at + 1, 0, IBV_MAX_PORTS - 1, &pi, err, len) != 0) {
				free(store);
				return -1;
			}
			c->group_port[k] = (int)pi;
		}
		c->layout.ngroup++;
	}
	free(store);
	return 0;
}

static int
add_ports(struct ibv_config *c, const char *opt, const char *v, char *err,
	  size_t len)
{
	char *items[IBV_MAX_PORTS], *store;
	int n, i;

	n = parse_list(opt, v, ',', items, IBV_MAX_PORTS, &store, err, len);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (c->nport == IBV_MAX_PORTS) {
			free(store);
			return errf(err, len, "%s: more than %d ports", opt, IBV_MAX_PORTS);
		}
		if (strlen(items[i]) >= sizeof(c->port[0].spec)) {
			errf(err, len, "%s: '%s': expected a port id or device name", opt, items[i]);
			free(store);
			return -1;
		}
		str_copy(c->port[c->nport].spec, sizeof(c->port[0].spec), items[i]);
		c->port[c->nport].port_id = -1;
		c->nport++;
	}
	free(store);
	return 0;
}

static int
add_join_ifaces(struct ibv_config *c, const char *opt, const char *v, char *err,
		size_t len)
{
	char *items[IBV_MAX_PORTS], *store;
	int n, i;

	n = parse_list(opt, v, ',', items, IBV_MAX_PORTS, &store, err, len);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		char *eq = strchr(items[i], '=');
		uint64_t p;

		if (eq == NULL || eq[1] == '\0' || strlen(eq + 1) >= IF_NAMESIZE) {
			errf(err, len, "%s: '%s': expected PORTINDEX=IFNAME, e.g. 0=ens1f0np0",
			     opt, items[i]);
			free(store);
			return -1;
		}
		*eq = '\0';
		if (parse_u64(opt, items[i], 0, IBV_MAX_PORTS - 1, &p, err, len) != 0) {
			free(store);
			return -1;
		}
		str_copy(c->port[p].iface, IF_NAMESIZE, eq + 1);
	}
	free(store);
	return 0;
}

static int
add_lcore_map(struct ibv_config *c, const char *opt, const char *v, char *err,
	      size_t len)
{
	char *items[IBV_MAX_MAP], *store;
	int n, i;

	n = parse_list(opt, v, ',', items, IBV_MAX_MAP, &store, err, len);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		char *dot = strchr(items[i], '.'), *at = strchr(items[i], '@');
		uint64_t p, q, l;

		if (dot == NULL || at == NULL || at < dot) {
			errf(err, len, "%s: '%s': expected PORTINDEX.QUEUE@LCORE, e.g. 0.3@2",
			     opt, items[i]);
			free(store);
			return -1;
		}
		*dot = *at = '\0';
		if (parse_u64(opt, items[i], 0, IBV_MAX_PORTS - 1, &p, err, len) ||
		    parse_u64(opt, dot + 1, 0, IBV_MAX_QUEUES - 1, &q, err, len) ||
		    parse_u64(opt, at + 1, 0, RTE_MAX_LCORE - 1, &l, err, len)) {
			free(store);
			return -1;
		}
		if (c->nmap == IBV_MAX_MAP) {
			free(store);
			return errf(err, len, "%s: too many entries", opt);
		}
		c->map[c->nmap].port_idx = (uint8_t)p;
		c->map[c->nmap].queue = (uint16_t)q;
		c->map[c->nmap].lcore = (unsigned int)l;
		c->nmap++;
	}
	free(store);
	return 0;
}

/* Apply one option (from argv or the INI file). */
static int
apply(struct ibv_config *c, struct pstate *ps, int id, const char *name,
      const char *v, char *err, size_t len)
{
	char opt[80];
	uint64_t u;
	bool b;

	snprintf(opt, sizeof(opt), "--%s", name);
	switch (id) {
	case O_CONFIG:
		return 0; /* loaded before everything else */
	case O_PORT:
		return add_ports(c, opt, v, err, len);
	case O_ANTENNAS:
		if (parse_u64(opt, v, 1, ACCT_MAX_ANTENNAS, &u, err, len))
			return -1;
		ps->ant_count = true;
		ps->ant_n = (unsigned int)u;
		return 0;
	case O_ANT_BASE:
		ps->ant_base = true;
		return parse_ipv4(opt, v, &ps->ant_base_ip, err, len);
	case O_ANT_IP:
		return add_antennas(c, ps, opt, v, err, len);
	case O_GROUPS:
		if (parse_u64(opt, v, 1, ACCT_MAX_GROUPS, &u, err, len))
			return -1;
		ps->group_count = true;
		ps->group_n = (unsigned int)u;
		return 0;
	case O_GROUP_BASE:
		ps->group_base = true;
		if (parse_ipv4(opt, v, &ps->group_base_ip, err, len))
			return -1;
		if ((ps->group_base_ip >> 28) != 0xE)
			return errf(err, len, "%s: '%s': expected an IPv4 multicast address (224.0.0.0/4)",
				    opt, v);
		return 0;
	case O_PORT_BASE:
		if (parse_u64(opt, v, 1, 65535, &u, err, len))
			return -1;
		ps->port_base = true;
		ps->port_base_v = (uint16_t)u;
		return 0;
	case O_GROUP:
		return add_groups(c, ps, opt, v, err, len);
	case O_THREADS:
		if (parse_u64(opt, v, 1, 64, &u, err, len))
			return -1;
		c->threads = (unsigned int)u;
		return 0;
	case O_MTU:
		if (parse_u64(opt, v, 1280, 16000, &u, err, len))
			return -1;
		c->mtu = (uint32_t)u;
		return 0;
	case O_MBUF_SIZE:
		if (parse_size(opt, v, 2048, 65535, &u, err, len))
			return -1;
		c->mbuf_size = (uint32_t)u;
		return 0;
	case O_MBUFS:
		if (parse_u64(opt, v, 512, 1u << 24, &u, err, len))
			return -1;
		c->nb_mbufs = (uint32_t)u;
		return 0;
	case O_RX_DESC:
		if (parse_u64(opt, v, 64, 32768, &u, err, len))
			return -1;
		c->rx_desc = (uint16_t)u;
		return 0;
	case O_BURST:
		if (parse_u64(opt, v, 1, 512, &u, err, len))
			return -1;
		c->burst = (uint16_t)u;
		return 0;
	case O_STEER: {
		unsigned int k;

		if (parse_choice(opt, v, steer_names, RTE_DIM(steer_names), &k, err, len))
			return -1;
		c->steer = (enum ibv_steer_mode)k;
		return 0;
	}
	case O_ISOLATE:
	case O_NO_JOIN:
	case O_CHECK_CONFIG:
	case O_VERBOSE:
		if (!parse_flag_value(v, &b))
			return errf(err, len, "%s: '%s': expected yes or no", opt, v);
		if (id == O_ISOLATE)
			c->isolate = b;
		else if (id == O_NO_JOIN)
			c->no_join = b;
		else if (id == O_CHECK_CONFIG)
			c->check_only = b;
		else
			c->verbose = b;
		return 0;
	case O_JOIN_IFACE:
		return add_join_ifaces(c, opt, v, err, len);
	case O_LCORE_MAP:
		return add_lcore_map(c, opt, v, err, len);
	case O_PACKETS:
		return parse_u64(opt, v, 1, UINT64_MAX, &c->stop_packets, err, len) ? -1 : 0;
	case O_FRAMES:
		return parse_u64(opt, v, 1, UINT64_MAX, &c->stop_frames, err, len) ? -1 : 0;
	case O_DURATION:
		return parse_duration_ns(opt, v, 1000000, 400ULL * 86400 * NS_PER_S,
					 &c->stop_duration_ns, err, len) ? -1 : 0;
	case O_IDLE_TIMEOUT:
		return parse_duration_ns(opt, v, 1000000, 86400ULL * NS_PER_S,
					 &c->idle_timeout_ns, err, len) ? -1 : 0;
	case O_STATS_PERIOD:
		if (strcmp(v, "0") == 0) {
			c->stats_period_ns = 0;
			return 0;
		}
		return parse_duration_ns(opt, v, 10000000, 86400ULL * NS_PER_S,
					 &c->stats_period_ns, err, len) ? -1 : 0;
	case O_LINK_TIMEOUT:
		return parse_duration_ns(opt, v, 0, 3600ULL * NS_PER_S,
					 &c->link_timeout_ns, err, len) ? -1 : 0;
	case O_SUMMARY_JSON:
		if (strlen(v) >= sizeof(c->summary_json) || *v == '\0')
			return errf(err, len, "%s: '%s': expected a file path", opt, v);
		str_copy(c->summary_json, sizeof(c->summary_json), v);
		return 0;
	case O_WINDOW:
		if (parse_u64(opt, v, 64, 1u << 24, &u, err, len))
			return -1;
		if (u & (u - 1))
			return errf(err, len, "%s: '%s': expected a power of two", opt, v);
		c->layout.tl.window = (uint32_t)u;
		return 0;
	case O_CONFIRM:
		if (parse_u64(opt, v, 2, CODIF_MAX_CONFIRM, &u, err, len))
			return -1;
		c->layout.tl.confirm = (uint32_t)u;
		return 0;
	case O_MAX_GAP:
		return parse_duration_ns(opt, v, 1000, 3600ULL * NS_PER_S, &c->layout.tl.max_gap_ns,
					 err, len) ? -1 : 0;
	case O_RING:
		return frames_or_time(opt, v, &c->ring_frames, &c->ring_ns, err, len);
	case O_REORDER_WINDOW:
		return frames_or_time(opt, v, &c->window_frames, &c->window_ns, err, len);
	case O_DATA_BYTES:
		if (parse_u64(opt, v, 8, 65536, &u, err, len))
			return -1;
		if (u % 8 != 0)
			return errf(err, len, "%s: '%s': expected a multiple of 8 bytes", opt, v);
		c->data_bytes = (uint32_t)u;
		return 0;
	case O_FRAME_RATE: {
		double d;

		if (parse_double(opt, v, 0.001, 1e9, &d, err, len))
			return -1;
		c->frame_rate = d;
		return 0;
	}
	case O_NO_BUFFERS:
		if (!parse_flag_value(v, &b))
			return errf(err, len, "%s: '%s': expected yes or no", opt, v);
		c->buffers = !b;
		return 0;
	case O_GPU:
		if (parse_u64(opt, v, 0, 63, &u, err, len))
			return -1;
		c->gpu = (int)u;
		return 0;
	case O_GPU_SPLIT: {
		unsigned int k;

		if (parse_choice(opt, v, split_names, RTE_DIM(split_names), &k, err, len))
			return -1;
		c->gpu_split = (enum ibv_split_mode)k;
		return 0;
	}
	case O_WRITE:
		if (c->nwrite == IBV_MAX_WRITERS)
			return errf(err, len, "%s: at most %d writers", opt, IBV_MAX_WRITERS);
		if (strlen(v) >= sizeof(c->write[0]))
			return errf(err, len, "%s: '%s': too long", opt, v);
		str_copy(c->write[c->nwrite++], sizeof(c->write[0]), v);
		return 0;
	case O_WRITER_DRAIN:
		return parse_duration_ns(opt, v, 0, 3600ULL * NS_PER_S, &c->drain_ns, err, len) ?
			       -1 : 0;
	default:
		return errf(err, len, "%s: unknown option", opt);
	}
}

static const struct option *
find_opt(const char *name)
{
	unsigned int i;

	for (i = 0; long_opts[i].name != NULL; i++)
		if (strcmp(long_opts[i].name, name) == 0)
			return &long_opts[i];
	return NULL;
}

/* rte_cfgfile accepts lines that are neither sections nor key = value;
 * an operator's typo must not be silently ignored. */
static int
ini_lint(const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned int n = 0;
	bool section = false;

	if (f == NULL)
		return errf(err, len, "--config: '%s': %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line + strspn(line, " \t");

		n++;
		p[strcspn(p, "\r\n")] = '\0';
		if (*p == '\0' || *p == ';' || *p == '#')
			continue;
		if (*p == '[' && strchr(p, ']') != NULL) {
			section = true;
			continue;
		}
		if (strchr(p, '=') == NULL || *p == '=' || !section) {
			fclose(f);
			return errf(err, len,
				    "%s: line %u: '%s': expected [section] or key = value "
				    "(inside a section); not a valid INI file",
				    path, n, p);
		}
	}
	fclose(f);
	return 0;
}

#define O_MAXVAL 512

/* Options that describe one thing together: where the command line sets
 * any of them, it replaces all of the file's. */
static int
opt_family(int val)
{
	switch (val) {
	case O_ANTENNAS:
	case O_ANT_BASE:
	case O_ANT_IP:
		return O_ANT_IP;
	case O_GROUPS:
	case O_GROUP_BASE:
	case O_PORT_BASE:
	case O_GROUP:
		return O_GROUP;
	default:
		return val;
	}
}

/*
 * Load an INI into c. Keys whose family the command line sets (cli, may be
 * NULL) are still checked, against a scratch configuration, but not used:
 * the command line wins, for lists too (--port on the command line replaces
 * the file's ports rather than adding to them).
 */
static int
load_ini(struct ibv_config *c, struct pstate *ps, const char *path, const bool *cli,
	 char *err, size_t len)
{
	struct rte_cfgfile *cf;
	struct ibv_config *scratch = NULL;
	struct pstate sps;
	int nsec, s, rc = 0;
	char **secs;

	if (access(path, R_OK) != 0)
		return errf(err, len, "--config: '%s': %s", path, strerror(errno));
	if (ini_lint(path, err, len) != 0)
		return -1;
	cf = rte_cfgfile_load(path, CFG_FLAG_EMPTY_VALUES);
	if (cf == NULL)
		return errf(err, len, "--config: '%s': not a valid INI file "
			    "(expected [section] lines and key = value lines)", path);
	nsec = rte_cfgfile_num_sections(cf, NULL, 0);
	secs = calloc(nsec > 0 ? (size_t)nsec : 1, sizeof(*secs));
	for (s = 0; secs != NULL && s < nsec; s++)
		secs[s] = malloc(CFG_NAME_LEN);
	if (secs == NULL) {
		rte_cfgfile_close(cf);
		return errf(err, len, "--config: out of memory");
	}
	rte_cfgfile_sections(cf, secs, nsec);
	for (s = 0; s < nsec && rc == 0; s++) {
		int ne = rte_cfgfile_section_num_entries(cf, secs[s]), e;
		struct rte_cfgfile_entry *ent;

		if (strcmp(secs[s], "eal") == 0)
			continue; /* EAL arguments: read by main() before EAL init */
		ent = calloc(ne > 0 ? (size_t)ne : 1, sizeof(*ent));
		if (ent == NULL) {
			rc = errf(err, len, "--config: out of memory");
			break;
		}
		rte_cfgfile_section_entries(cf, secs[s], ent, ne);
		for (e = 0; e < ne && rc == 0; e++) {
			const struct option *o = find_opt(ent[e].name);
			char sub[IBV_ERRLEN - 160];

			if (o != NULL && (o->val == O_CONFIG || o->val == O_HELP ||
					  o->val == O_CHECK_CONFIG)) {
				rc = errf(err, len,
					  "%s: [%s] %s: not a configuration key (a command-line "
					  "action)", path, secs[s], ent[e].name);
				break;
			}
			if (o == NULL) {
				rc = errf(err, len,
					  "%s: [%s] %s = %s: unknown key (keys are the "
					  "long option names of --help)",
					  path, secs[s], ent[e].name, ent[e].value);
				break;
			}
			if (o->has_arg == required_argument && ent[e].value[0] == '\0') {
				rc = errf(err, len, "%s: [%s] %s: expected a value", path,
					  secs[s], ent[e].name);
				break;
			}
			if (cli != NULL && cli[opt_family(o->val)]) {
				if (scratch == NULL) {
					scratch = malloc(sizeof(*scratch));
					if (scratch == NULL) {
						rc = errf(err, len, "--config: out of memory");
						break;
					}
					ibv_config_defaults(scratch);
					memset(&sps, 0, sizeof(sps));
				}
				if (apply(scratch, &sps, o->val, o->name, ent[e].value, sub,
					  sizeof(sub)) != 0)
					rc = errf(err, len, "%s: [%s] %s", path, secs[s], sub);
			} else if (apply(c, ps, o->val, o->name, ent[e].value, sub, sizeof(sub)) != 0) {
				rc = errf(err, len, "%s: [%s] %s", path, secs[s], sub);
			}
		}
		free(ent);
	}
	for (s = 0; s < nsec; s++)
		free(secs[s]);
	free(secs);
	rte_cfgfile_close(cf);
	free(scratch);
	return rc;
}

int
ibv_config_load_ini(struct ibv_config *c, const char *path, char *err,
		    size_t errlen)
{
	struct pstate ps;

	memset(&ps, 0, sizeof(ps));
	return load_ini(c, &ps, path, NULL, err, errlen);
}

/* Everything that can be checked without a device. */
static int
finish(struct ibv_config *c, struct pstate *ps, char *err, size_t len)
{
	struct acct_layout *l = &c->layout;
	unsigned int i, j, np;
	char a[16], b[16];

	if (ps->ant_list && (ps->ant_count || ps->ant_base)) {
		if (ps->ant_count && ps->ant_n != l->nant)
			return errf(err, len, "--antennas %u and --antenna-ip (%u addresses) disagree",
				    ps->ant_n, l->nant);
		if (ps->ant_base)
			return errf(err, len, "--antenna-base and --antenna-ip exclude each other");
	}
	if (!ps->ant_list && (ps->ant_count || ps->ant_base)) {
		uint32_t base = ps->ant_base ? ps->ant_base_ip : l->ant_ip[0];

		if (ps->ant_count)
			l->nant = ps->ant_n;
		for (i = 0; i < l->nant; i++) {
			l->ant_ip[i] = base + i;
			snprintf(l->ant_name[i], ACCT_NAME_LEN, "ant%u", i);
		}
	}
	if (ps->group_list && (ps->group_count || ps->group_base || ps->port_base))
		return errf(err, len, "--group and --groups/--group-base/--port-base exclude each other");
	if (!ps->group_list && (ps->group_count || ps->group_base || ps->port_base)) {
		uint32_t base = ps->group_base ? ps->group_base_ip : l->group[0].ip;
		uint16_t pb = ps->port_base ? ps->port_base_v : l->group[0].port;

		if (ps->group_count)
			l->ngroup = ps->group_n;
		for (i = 0; i < l->ngroup; i++) {
			l->group[i].ip = base + i;
			l->group[i].port = (uint16_t)(pb + i);
			c->group_port[i] = -1;
		}
	}
	for (i = 0; i < l->nant; i++)
		for (j = i + 1; j < l->nant; j++) {
			if (l->ant_ip[i] == l->ant_ip[j])
				return errf(err, len,
					    "antenna %u and antenna %u have the same source address %s",
					    i, j, ipv4_str(l->ant_ip[i], a, sizeof(a)));
			if (strcmp(l->ant_name[i], l->ant_name[j]) == 0)
				return errf(err, len, "antennas %u and %u are both named '%s'",
					    i, j, l->ant_name[i]);
		}
	for (i = 0; i < l->ngroup; i++)
		for (j = i + 1; j < l->ngroup; j++)
			if (l->group[i].ip == l->group[j].ip &&
			    l->group[i].port == l->group[j].port)
				return errf(err, len, "group %s:%u given twice",
					    ipv4_str(l->group[i].ip, a, sizeof(a)),
					    l->group[i].port);
	for (i = 0; i < l->nant; i++)
		if ((l->ant_ip[i] >> 28) == 0xE || l->ant_ip[i] == 0)
			return errf(err, len, "antenna %u: source address %s is not a unicast address",
				    i, ipv4_str(l->ant_ip[i], a, sizeof(a)));
	np = c->nport ? c->nport : 1;
	for (i = 0; i < l->ngroup; i++) {
		if (c->group_port[i] >= (int)np && c->nport != 0)
			return errf(err, len,
				    "group %s:%u: joined on port index %d, but only %u ports (--port) are given",
				    ipv4_str(l->group[i].ip, b, sizeof(b)), l->group[i].port,
				    c->group_port[i], c->nport);
	}
	for (i = c->nport; c->nport != 0 && i < IBV_MAX_PORTS; i++)
		if (c->port[i].iface[0] != '\0')
			return errf(err, len, "--join-iface: port index %u (%s), but only %u "
				    "ports (--port) are given", i, c->port[i].iface, c->nport);
	for (i = 0; i < c->nmap; i++) {
		if (c->nport != 0 && c->map[i].port_idx >= c->nport)
			return errf(err, len, "--lcore-map: port index %u, but only %u ports are given",
				    c->map[i].port_idx, c->nport);
		if (c->map[i].queue >= ibv_queues_needed(c))
			return errf(err, len, "--lcore-map: queue %u, but ports have %u queues "
				    "(%u antennas + 1 default)", c->map[i].queue,
				    ibv_queues_needed(c), l->nant);
		for (j = 0; j < i; j++)
			if (c->map[j].port_idx == c->map[i].port_idx &&
			    c->map[j].queue == c->map[i].queue)
				return errf(err, len, "--lcore-map: queue %u.%u mapped twice",
					    c->map[i].port_idx, c->map[i].queue);
	}
	if (c->isolate && c->steer == IBV_STEER_SOFTWARE)
		return errf(err, len, "--isolate needs rte_flow rules: it excludes --steer software");
	if (c->isolate)
		c->steer = IBV_STEER_FLOW;
	if (c->mbuf_size != 0 && c->mbuf_size < 2048)
		return errf(err, len, "--mbuf-size %u: expected >= 2048", c->mbuf_size);
	/* the timeline takes at once what the buffers can still place late:
	 * frames up to the reorder window ahead */
	c->layout.nthread = c->threads;
	{
		uint32_t rows, win;
		char why[200];

		ibv_buffer_rows(c, &rows, &win);
		c->layout.tl.ahead = win;
		if (codif_tl_cfg_check(&c->layout.tl, why, sizeof(why)) != 0)
			return errf(err, len, "--window, --reorder-window, --confirm, --max-gap: %s",
				    why);
	}
	if (c->buffers) {
		struct antbuf_geom g;
		char why[256];

		ibv_buffer_rows(c, &g.nrows, &g.window);
		g.nslots = l->ngroup * c->threads;
		g.data_bytes = c->data_bytes;
		if (antbuf_geom_check(&g, why, sizeof(why)) != 0)
			return errf(err, len, "antenna buffers (--ring, --reorder-window, "
				    "--groups x --threads, --data-bytes): %s", why);
	}
	if (c->nwrite > 0 && !c->buffers)
		return errf(err, len, "--write needs the antenna buffers: it excludes --no-buffers");
	if (c->gpu >= 0 && !c->buffers)
		return errf(err, len, "--gpu places payload in the antenna buffers: it excludes --no-buffers");
	if (c->gpu_split == IBV_SPLIT_ON && c->gpu < 0)
		return errf(err, len, "--gpu-split on splits payload into GPU memory: it needs --gpu DEV");
	for (i = 0; i < c->nwrite; i++) {
		struct wr_opts wo;

		if (wr_opts_parse(&wo, "--write", c->write[i], err, len) != 0)
			return -1;
	}
	return 0;
}

int
ibv_config_parse(struct ibv_config *c, int argc, char **argv, char *err,
		 size_t errlen)
{
	struct pstate ps;
	bool cli[O_MAXVAL] = { false };
	int opt, i;

	memset(&ps, 0, sizeof(ps));
	/* which options the command line sets (errors are reported below) */
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":hv", long_opts, NULL)) != -1)
		if (opt > 0 && opt < O_MAXVAL)
			cli[opt_family(opt)] = true;
	/* the file first, wherever --config is: the command line wins */
	for (i = 1; i < argc; i++) {
		const char *path = NULL;

		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			path = argv[i + 1];
		else if (strncmp(argv[i], "--config=", 9) == 0)
			path = argv[i] + 9;
		if (path != NULL) {
			str_copy(c->config_file, sizeof(c->config_file), path);
			if (load_ini(c, &ps, path, cli, err, errlen) != 0)
				return -1;
		}
	}
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":hv", long_opts, NULL)) != -1) {
		const char *name = NULL;

		if (opt == 'h') {
			ibv_usage(stdout);
			return 1;
		}
		if (opt == '?')
			return errf(err, errlen, "unknown option '%s' (see --help)",
				    argv[optind - 1]);
		if (opt == ':')
			return errf(err, errlen, "option '%s' needs a value",
				    argv[optind - 1]);
		for (i = 0; long_opts[i].name != NULL; i++)
			if (long_opts[i].val == opt)
				name = long_opts[i].name;
		if (apply(c, &ps, opt, name, optarg, err, errlen) != 0)
			return -1;
	}
	if (optind < argc)
		return errf(err, errlen, "unexpected argument '%s' (options start with --)",
			    argv[optind]);
	return finish(c, &ps, err, errlen);
}

void
ibv_config_print(const struct ibv_config *c, FILE *f)
{
	const struct acct_layout *l = &c->layout;
	char a[16];
	unsigned int i;

	fprintf(f, "# dpdk-ibvcap effective configuration\n");
	if (c->config_file[0])
		fprintf(f, "config = %s\n", c->config_file);
	if (c->nport == 0)
		fprintf(f, "port = (every probed port)\n");
	for (i = 0; i < c->nport; i++)
		fprintf(f, "port = %s%s%s\n", c->port[i].spec,
			c->port[i].iface[0] ? "  join-iface=" : "", c->port[i].iface);
	for (i = 0; i < l->nant; i++)
		fprintf(f, "antenna-ip = %s=%s   # queue %u\n",
			ipv4_str(l->ant_ip[i], a, sizeof(a)), l->ant_name[i], i);
	for (i = 0; i < l->ngroup; i++) {
		fprintf(f, "group = %s:%u", ipv4_str(l->group[i].ip, a, sizeof(a)),
			l->group[i].port);
		if (c->group_port[i] >= 0)
			fprintf(f, "@%d\n", c->group_port[i]);
		else
			fprintf(f, "   # joined on port index %u\n",
				c->nport ? i % c->nport : 0);
	}
	fprintf(f, "threads = %u\n", c->threads);
	fprintf(f, "mtu = %u\n", c->mtu);
	if (c->mbuf_size)
		fprintf(f, "mbuf-size = %u\n", c->mbuf_size);
	else
		fprintf(f, "mbuf-size = auto\n");
	if (c->nb_mbufs)
		fprintf(f, "mbufs = %u\n", c->nb_mbufs);
	else
		fprintf(f, "mbufs = auto\n");
	fprintf(f, "rx-desc = %u\nburst = %u\n", c->rx_desc, c->burst);
	fprintf(f, "steer = %s\nisolate = %s\nno-join = %s\n", steer_names[c->steer],
		c->isolate ? "yes" : "no", c->no_join ? "yes" : "no");
	for (i = 0; i < c->nmap; i++)
		fprintf(f, "lcore-map = %u.%u@%u\n", c->map[i].port_idx, c->map[i].queue,
			c->map[i].lcore);
	if (c->stop_packets)
		fprintf(f, "packets = %" PRIu64 "\n", c->stop_packets);
	if (c->stop_frames)
		fprintf(f, "frames = %" PRIu64 "\n", c->stop_frames);
	if (c->stop_duration_ns)
		fprintf(f, "duration = %.3fs\n", (double)c->stop_duration_ns / 1e9);
	if (c->idle_timeout_ns)
		fprintf(f, "idle-timeout = %.3fs\n", (double)c->idle_timeout_ns / 1e9);
	fprintf(f, "stats-period = %.3fs\n", (double)c->stats_period_ns / 1e9);
	fprintf(f, "link-timeout = %.3fs\n", (double)c->link_timeout_ns / 1e9);
	fprintf(f, "window = %u\n", l->tl.window);
	fprintf(f, "confirm = %u\n", l->tl.confirm);
	fprintf(f, "max-gap = %.3fs\n", (double)l->tl.max_gap_ns / 1e9);
	if (c->summary_json[0])
		fprintf(f, "summary-json = %s\n", c->summary_json);
	fprintf(f, "verbose = %s\n", c->verbose ? "yes" : "no");
	if (c->buffers) {
		uint32_t rows, win;

		ibv_buffer_rows(c, &rows, &win);
		fprintf(f, "ring = %u   # frames per antenna (%u streams x %u bytes: %.1f MiB)\n",
			rows, c->layout.ngroup * c->threads, c->data_bytes,
			(double)rows * c->layout.ngroup * c->threads * c->data_bytes / 1048576.0);
		fprintf(f, "reorder-window = %u\ndata-bytes = %u\nframe-rate = %g\n", win,
			c->data_bytes, c->frame_rate);
		if (c->gpu >= 0)
			fprintf(f, "gpu = %d\ngpu-split = %s\n", c->gpu, split_names[c->gpu_split]);
	} else {
		fprintf(f, "no-buffers = yes\n");
	}
	for (i = 0; i < c->nwrite; i++)
		fprintf(f, "write = %s\n", c->write[i]);
	fprintf(f, "writer-drain = %.3fs\n", (double)c->drain_ns / 1e9);
}
