/* SPDX-License-Identifier: BSD-3-Clause */
/* Options of dpdk-ibvcap: one table (lib/opt) for getopt_long, INI, --help and the print. */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>

#include "antbuf.h"
#include "codif.h"
#include "config.h"
#include "config_parse.h"
#include "err.h"
#include "opt_ini.h"
#include "parse.h"
#include "pkt.h"
#include "ql_bstate_opt.h"
#include "quicklook.h"
#include "writer.h"

#undef NS_PER_S /* DPDK's (rte_cycles.h), an int */
#define NS_PER_S 1000000000ULL

/* Rows that describe one thing: where the command line gives any of them,
 * it replaces all of the file's. */
enum { FAM_ANTENNAS = 1, FAM_GROUPS };

void
ibv_config_defaults(struct ibv_config *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->layout.nant = PKT_LAYOUT_NANT;
	for (i = 0; i < c->layout.nant; i++) {
		c->layout.ant_ip[i] = PKT_LAYOUT_ANT_IP + i;
		snprintf(c->layout.ant_name[i], ACCT_NAME_LEN, "ant%u", i);
	}
	c->layout.ngroup = PKT_LAYOUT_NGROUP;
	for (i = 0; i < c->layout.ngroup; i++) {
		c->layout.group[i].ip = PKT_LAYOUT_GROUP_IP + i;
		c->layout.group[i].port = (uint16_t)(PKT_LAYOUT_UDP_PORT + i);
		c->group_port[i] = -1;
	}
	c->threads = 2;
	c->mtu = 9000;
	c->rx_desc = 1024;
	c->burst = 64;
	c->stats_period_ns = NS_PER_S;
	c->clock_warn_ns = NS_PER_S;
	c->link_timeout_ns = 5 * NS_PER_S;
	c->quicklook_every = 1024; /* bench/capture_bench.sh QL="off 256 1024": ~1% of the zero-copy path */
	c->quicklook_window_ns = NS_PER_S;
	c->quicklook_min = QL_MIN_DEFAULT;
	qlb_cfg_defaults(&c->sampler_levels);
	codif_tl_cfg_defaults(&c->layout.tl);
	c->buffers = true;
	c->ring_frames = 1024;
	c->window_frames = 64;
	c->data_bytes = 8192;
	c->frame_rate = 62500.0 / 27.0;
	c->gpu = -1;
	c->drain_ns = 10 * NS_PER_S;
}

/* The context's values as the configuration has them (what --help shows;
 * nothing is marked given). */
static void
pstate_defaults(const struct ibv_config *c, struct pstate *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->ant_n = c->layout.nant;
	ps->ant_base_ip = c->layout.ant_ip[0];
	ps->group_n = c->layout.ngroup;
	ps->group_base_ip = c->layout.group[0].ip;
	ps->udp_port_base_v = c->layout.group[0].port;
}

static void
defaults(void *obj, void *ctx)
{
	ibv_config_defaults(obj);
	if (ctx != NULL)
		pstate_defaults(obj, ctx);
}

/* ---- the rows' own parsers (OPT_CUSTOM) ------------------------------- */

/* "N" frames or "T" with a unit (2s, 250ms): frames or ns */
static int
frames_or_time(const struct opt_arg *a, uint32_t *frames, uint64_t *ns, char *err, size_t len)
{
	const struct opt_def *d = a->def;
	uint64_t u;

	if (parse_u64(a->opt, a->val, d->min, d->max, &u, NULL, 0) == 0) {
		*frames = (uint32_t)u;
		*ns = 0;
		return 0;
	}
	if (parse_duration_ns(a->opt, a->val, 1000, 3600ULL * NS_PER_S, ns, NULL, 0) == 0 &&
	    strpbrk(a->val, "smh") != NULL) {
		*frames = 0;
		return 0;
	}
	return err_set(err, len, -EINVAL, "%s: '%s': expected a number of frames (%" PRIu64 "..%" PRIu64
		    ") or a time with a unit such as 500ms or 2s", a->opt, a->val, d->min, d->max);
}

static int
set_ring(const struct opt_arg *a, char *err, size_t len)
{
	struct ibv_config *c = a->obj;

	return frames_or_time(a, &c->ring_frames, &c->ring_ns, err, len);
}

static int
set_reorder_window(const struct opt_arg *a, char *err, size_t len)
{
	struct ibv_config *c = a->obj;

	return frames_or_time(a, &c->window_frames, &c->window_ns, err, len);
}

/* A list option's grammar: a ','-separated value of at most max elements,
 * each parsed by item() into entry k. Where count is given the entries add
 * up across uses of the option (where listed is given too, the first use
 * replaces the default list), k is *count and past cap entries the option
 * is refused naming what it holds; otherwise k is the element's place in
 * its value. */
struct list_opt {
	int max;
	bool *listed;
	unsigned int *count, cap;
	const char *what;
	int (*item)(const struct opt_arg *a, char *s, unsigned int k, char *err, size_t len);
};

/* the most elements any list option takes in one value */
#define LIST_MAX IBV_MAX_MAP
_Static_assert(ACCT_MAX_ANTENNAS <= LIST_MAX && ACCT_MAX_GROUPS <= LIST_MAX &&
	       IBV_MAX_PORTS <= LIST_MAX, "parse_list_opt's items hold every list option's");

static int
parse_list_opt(const struct opt_arg *a, const struct list_opt *l, char *err, size_t len)
{
	char *items[LIST_MAX], *store;
	int n, i, rc = 0;

	if (l->listed != NULL && !*l->listed)
		*l->count = 0;
	if (l->listed != NULL)
		*l->listed = true;
	n = parse_list(a->opt, a->val, ',', items, l->max, &store, err, len);
	if (n < 0)
		return n;
	for (i = 0; i < n && rc == 0; i++) {
		unsigned int k = l->count != NULL ? *l->count : (unsigned int)i;

		if (l->count != NULL && k == l->cap) {
			rc = err_set(err, len, -EINVAL, "%s: more than %u %s", a->opt, l->cap, l->what);
			break;
		}
		rc = l->item(a, items[i], k, err, len);
		if (rc == 0 && l->count != NULL)
			(*l->count)++;
	}
	free(store);
	return rc;
}

/* One --antenna-ip element, IP or IP=NAME; an antenna without a name is antK. */
static int
antenna_item(const struct opt_arg *a, char *s, unsigned int k, char *err, size_t len)
{
	struct ibv_config *c = a->obj;
	int rc;

	rc = parse_antenna_ip(a->opt, s, &c->layout.ant_ip[k], c->layout.ant_name[k],
			      ACCT_NAME_LEN, err, len);
	if (rc == 0 && c->layout.ant_name[k][0] == '\0')
		snprintf(c->layout.ant_name[k], ACCT_NAME_LEN, "ant%u", k);
	return rc;
}

static int
set_antenna_ip(const struct opt_arg *a, char *err, size_t len)
{
	struct ibv_config *c = a->obj;
	struct pstate *ps = a->ctx;
	const struct list_opt l = { ACCT_MAX_ANTENNAS, &ps->ant_list, &c->layout.nant,
				    ACCT_MAX_ANTENNAS, "antennas", antenna_item };

	return parse_list_opt(a, &l, err, len);
}

/* One --group element, a multicast IP:PORT, with @P to put it on port P. */
static int
group_item(const struct opt_arg *a, char *s, unsigned int k, char *err, size_t len)
{
	struct ibv_config *c = a->obj;
	char *at = strchr(s, '@');
	uint64_t pi;
	int rc;

	if (at != NULL)
		*at = '\0';
	rc = parse_ipv4_port(a->opt, s, &c->layout.group[k].ip, &c->layout.group[k].port,
			     err, len);
	if (rc != 0)
		return rc;
	if ((c->layout.group[k].ip >> 28) != 0xE)
		return err_set(err, len, -EINVAL, "%s: '%s': expected an IPv4 multicast address "
			       "(224.0.0.0/4)", a->opt, s);
	c->group_port[k] = -1;
	if (at != NULL) {
		rc = parse_u64(a->opt, at + 1, 0, IBV_MAX_PORTS - 1, &pi, err, len);
		if (rc != 0)
			return rc;
		c->group_port[k] = (int)pi;
	}
	return 0;
}

static int
set_group(const struct opt_arg *a, char *err, size_t len)
{
	struct ibv_config *c = a->obj;
	struct pstate *ps = a->ctx;
	const struct list_opt l = { ACCT_MAX_GROUPS, &ps->group_list, &c->layout.ngroup,
				    ACCT_MAX_GROUPS, "groups", group_item };

	return parse_list_opt(a, &l, err, len);
}

/* One --port element, a port id or device name. */
static int
port_item(const struct opt_arg *a, char *s, unsigned int k, char *err, size_t len)
{
	struct ibv_config *c = a->obj;

	if (strlen(s) >= sizeof(c->port[0].spec))
		return err_set(err, len, -EINVAL, "%s: '%s': expected a port id or device name",
			       a->opt, s);
	str_copy(c->port[k].spec, sizeof(c->port[0].spec), s);
	c->port[k].port_id = -1;
	return 0;
}

static int
set_port(const struct opt_arg *a, char *err, size_t len)
{
	struct ibv_config *c = a->obj;
	const struct list_opt l = { IBV_MAX_PORTS, NULL, &c->nport, IBV_MAX_PORTS, "ports",
				    port_item };

	return parse_list_opt(a, &l, err, len);
}

/* One --join-iface element, PORTINDEX=IFNAME. */
static int
join_iface_item(const struct opt_arg *a, char *s, unsigned int k, char *err, size_t len)
{
	struct ibv_config *c = a->obj;
	char *eq = strchr(s, '=');
	uint64_t p;
	int rc;

	(void)k;
	if (eq == NULL || eq[1] == '\0' || strlen(eq + 1) >= IF_NAMESIZE)
		return err_set(err, len, -EINVAL, "%s: '%s': expected PORTINDEX=IFNAME, e.g. 0=ens1f0np0",
			       a->opt, s);
	*eq = '\0';
	rc = parse_u64(a->opt, s, 0, IBV_MAX_PORTS - 1, &p, err, len);
	if (rc == 0)
		str_copy(c->port[p].iface, IF_NAMESIZE, eq + 1);
	return rc;
}

static int
set_join_iface(const struct opt_arg *a, char *err, size_t len)
{
	const struct list_opt l = { IBV_MAX_PORTS, NULL, NULL, 0, NULL, join_iface_item };

	return parse_list_opt(a, &l, err, len);
}

/* One --lcore-map element, PORTINDEX.QUEUE@LCORE, appended to the map. */
static int
lcore_map_item(const struct opt_arg *a, char *s, unsigned int k, char *err, size_t len)
{
	struct ibv_config *c = a->obj;
	char *dot = strchr(s, '.'), *at = strchr(s, '@');
	uint64_t p, q, l;
	int rc;

	(void)k;
	if (dot == NULL || at == NULL || at < dot)
		return err_set(err, len, -EINVAL, "%s: '%s': expected PORTINDEX.QUEUE@LCORE, e.g. 0.3@2",
			       a->opt, s);
	*dot = *at = '\0';
	if ((rc = parse_u64(a->opt, s, 0, IBV_MAX_PORTS - 1, &p, err, len)) != 0 ||
	    (rc = parse_u64(a->opt, dot + 1, 0, IBV_MAX_QUEUES - 1, &q, err, len)) != 0 ||
	    (rc = parse_u64(a->opt, at + 1, 0, RTE_MAX_LCORE - 1, &l, err, len)) != 0)
		return rc;
	if (c->nmap == IBV_MAX_MAP)
		return err_set(err, len, -EINVAL, "%s: too many entries", a->opt);
	c->map[c->nmap].port_idx = (uint8_t)p;
	c->map[c->nmap].queue = (uint16_t)q;
	c->map[c->nmap].lcore = (unsigned int)l;
	c->nmap++;
	return 0;
}

static int
set_lcore_map(const struct opt_arg *a, char *err, size_t len)
{
	const struct list_opt l = { IBV_MAX_MAP, NULL, NULL, 0, NULL, lcore_map_item };

	return parse_list_opt(a, &l, err, len);
}

/* The seed tool's --format raw|codifhdr|pcap (files in the working
 * directory): --write FORMAT:. */
static int
set_old_format(const struct opt_arg *a, char *err, size_t len)
{
	static const char *const from[] = { "raw", "codifhdr", "codif", "pcap", NULL };
	static const char *const to[] = { "raw", "codif", "codif", "pcap" };
	char spec[32];
	unsigned int k;
	int rc;

	rc = parse_choice(a->opt, a->val, from, 4, &k, err, len);
	if (rc != 0)
		return rc;
	snprintf(spec, sizeof(spec), "%s:.", to[k]);
	opt_note(a->cmd, "--format is an old name: use --write FORMAT:DIR (here --write %s)",
		 spec);
	return opt_set(a->cmd, opt_find(a->cmd, "write"), a->obj, a->ctx, spec, err, len);
}

/* ---- the rows' effective-configuration lines, where not generic ------- */

#define PRINT_FN(fn) \
	static void fn(const struct opt_cmd *cmd, const struct opt_def *d, const void *obj, FILE *f)

PRINT_FN(print_port)
{
	const struct ibv_config *c = obj;
	unsigned int i;

	(void)cmd;
	(void)d;
	if (c->nport == 0)
		fprintf(f, "port = (every probed port)\n");
	for (i = 0; i < c->nport; i++)
		fprintf(f, "port = %s%s%s\n", c->port[i].spec,
			c->port[i].iface[0] ? "  join-iface=" : "", c->port[i].iface);
}

PRINT_FN(print_join_iface)
{
	const struct ibv_config *c = obj;
	unsigned int i, n = 0;

	(void)cmd;
	for (i = 0; i < IBV_MAX_PORTS; i++)
		if (c->port[i].iface[0] != '\0' && ++n)
			fprintf(f, "join-iface = %u=%s\n", i, c->port[i].iface);
	if (n == 0)
		opt_print_note(d, f, "each port's own interface");
}

PRINT_FN(print_antenna_ip)
{
	const struct acct_layout *l = &((const struct ibv_config *)obj)->layout;
	unsigned int i;
	char a[16];

	(void)cmd;
	(void)d;
	for (i = 0; i < l->nant; i++)
		fprintf(f, "antenna-ip = %s=%s   # queue %u\n",
			ipv4_str(l->ant_ip[i], a, sizeof(a)), l->ant_name[i], i);
}

PRINT_FN(print_group)
{
	const struct ibv_config *c = obj;
	const struct acct_layout *l = &c->layout;
	unsigned int i;
	char a[16];

	(void)cmd;
	(void)d;
	for (i = 0; i < l->ngroup; i++) {
		fprintf(f, "group = %s:%u", ipv4_str(l->group[i].ip, a, sizeof(a)),
			l->group[i].port);
		if (c->group_port[i] >= 0)
			fprintf(f, "@%d\n", c->group_port[i]);
		else
			fprintf(f, "   # joined on port index %u\n",
				c->nport ? i % c->nport : 0);
	}
}

/* antennas, antenna-base, groups, group-base, udp-port-base: folded into the
 * antenna-ip and group lines */
PRINT_FN(print_folded)
{
	const struct ibv_config *c = obj;

	(void)cmd;
	if (strcmp(d->name, "antennas") == 0)
		opt_print_note(d, f, "%u (the antenna-ip lines)", c->layout.nant);
	else if (strcmp(d->name, "groups") == 0)
		opt_print_note(d, f, "%u (the group lines)", c->layout.ngroup);
	else
		opt_print_note(d, f, "see the %s lines", d->family == FAM_ANTENNAS ?
			       "antenna-ip" : "group");
}

PRINT_FN(print_lcore_map)
{
	const struct ibv_config *c = obj;
	unsigned int i;

	(void)cmd;
	for (i = 0; i < c->nmap; i++)
		fprintf(f, "lcore-map = %u.%u@%u\n", c->map[i].port_idx, c->map[i].queue,
			c->map[i].lcore);
	if (c->nmap == 0)
		opt_print_note(d, f, "queues spread over the worker lcores");
}

PRINT_FN(print_ring)
{
	const struct ibv_config *c = obj;
	struct ibv_buf_plan p;
	char b[64], t[64], w[96] = "";

	(void)cmd;
	if (!c->buffers) {
		opt_print_note(d, f, "no buffers");
		return;
	}
	ibv_buffer_plan(c, &p);
	if (strcmp(d->name, "ring") != 0) {
		fprintf(f, "%s = %u\n", d->name, p.window);
		return;
	}
	/* the exact bytes each buffer takes, as the start reserves them */
	if (p.grown)
		snprintf(w, sizeof(w), ", grown from %" PRIu64 " to hold twice the reorder "
			 "window", p.asked);
	else if (p.retained)
		snprintf(w, sizeof(w), ", from --retain (not --ring)");
	fprintf(f, "ring = %u   # frames per antenna%s (%u slots x %u bytes); buffer %s%s "
		"per antenna, %u antennas: %s\n", p.rows, w, p.nslots, c->data_bytes,
		bytes_str(p.host_bytes, b, sizeof(b)),
		c->gpu >= 0 ? " of metadata (payload in GPU memory)" : "", c->layout.nant,
		bytes_str(p.host_bytes * c->layout.nant, t, sizeof(t)));
}

/* slots: the number in effect, and where it comes from */
PRINT_FN(print_slots)
{
	const struct ibv_config *c = obj;
	unsigned int n = ibv_slots(c);

	(void)cmd;
	if (c->slots != 0)
		fprintf(f, "%s = %u   # slots per antenna buffer (streams it records)\n", d->name, n);
	else
		fprintf(f, "%s = auto   # %u slots per antenna buffer: %u groups x %u threads + "
			"%u spare%s\n", d->name, n, c->layout.ngroup, c->threads,
			n - (c->layout.ngroup * c->threads < n ? c->layout.ngroup * c->threads : n),
			c->layout.ngroup * c->threads + 1 > ANTBUF_MAX_SLOTS ? " (at most 64)" : "");
}

/* retain: the time, and the rows it takes */
PRINT_FN(print_retain)
{
	const struct ibv_config *c = obj;
	char v[64];

	if (!c->buffers) {
		opt_print_note(d, f, "no buffers");
		return;
	}
	if (c->retain_ns == 0) {
		opt_print_note(d, f, "not asked: the ring keeps what --ring holds");
		return;
	}
	if (opt_format(d, obj, NULL, false, v, sizeof(v)) != 0)
		return;
	(void)cmd;
	fprintf(f, "retain = %s   # %" PRIu64 " frames at --frame-rate %.6g + the reorder window "
		"%u: a ring of at least %" PRIu64 " frames\n", v, ibv_retain_rows(c), c->frame_rate,
		(unsigned int)(c->window_ns ? (uint64_t)((double)c->window_ns / 1e9 * c->frame_rate + 0.5) :
			       c->window_frames), ibv_retain_rows(c) + (c->window_ns ?
			       (uint64_t)((double)c->window_ns / 1e9 * c->frame_rate + 0.5) : c->window_frames));
}

/* data-bytes, frame-rate: only with buffers */
PRINT_FN(print_buffers_row)
{
	if (((const struct ibv_config *)obj)->buffers)
		opt_print_row(cmd, d, obj, f);
	else
		opt_print_note(d, f, "no buffers");
}

PRINT_FN(print_gpu)
{
	const struct ibv_config *c = obj;
	char v[32];

	if (!c->buffers)
		opt_print_note(d, f, "no buffers");
	else if (c->gpu < 0)
		opt_print_note(d, f, strcmp(d->name, "gpu") == 0 ? "none: host memory" :
			       "no --gpu");
	else if (strcmp(d->name, "gpu") == 0)
		fprintf(f, "gpu = %d\n", c->gpu);
	else if (opt_format(d, obj, NULL, false, v, sizeof(v)) == 0)
		fprintf(f, "%s = %s\n", d->name, v);
	(void)cmd;
}

/* ---- the table -------------------------------------------------------- */

static const char *const steer_names[] = { "auto", "flow", "software", NULL }; /* ibv_steer_mode */
static const char *const split_names[] = { "auto", "on", "off", NULL };        /* ibv_split_mode */
static const char *const record_names[] = { "always", "idle", NULL };        /* ibv_record_mode */

static const struct opt_section sections[] = {
	{ .name = "ports", .title = "Ports and queues" },
	{ .name = "antennas", .title = "Antennas",
	  .intro = "an antenna is a source IPv4 address, received on an rx queue of its own" },
	{ .name = "groups", .title = "Multicast groups",
	  .intro = "every antenna sends to every group" },
	{ .name = "steering", .title = "Steering",
	  .intro = "one rx queue per antenna + a default queue" },
	{ .name = "join", .title = "Multicast membership",
	  .intro = "a kernel socket on the port's interface" },
	{ .name = "stop", .title = "Stop", .intro = "first one wins; SIGINT/SIGTERM/SIGHUP always" },
	{ .name = "reporting", .title = "Reporting" },
	{ .name = "timeline", .title = "Timeline",
	  .intro = "(docs/architecture.md) a frame more than --reorder-window ahead or --window "
		   "behind is held until --confirm frames agree on it" },
	{ .name = "buffers", .title = "Per-antenna buffers",
	  .intro = "shared memory; writers attach with their own cursor" },
	{ .name = "writers", .title = "Writers" },
	{ .name = "eal", .title = "EAL", .intro = "a --config file's [eal] section only" },
	{ .name = "config", .title = "Configuration" },
	{ .name = NULL },
};

/*
 * One row per option, in the order of the effective-configuration print;
 * --help groups them by section. Ranges, units and defaults are shown by
 * --help from the row and from ibv_config_defaults().
 */
#define C struct ibv_config
#define P struct pstate
/* --sampler-levels' keys: the sampler verdict's thresholds (lib/quicklook
 * ql_bstate.h; codifcheck bstate's options of the same names). */
#define LEVEL(f) f
static const struct opt_def sampler_level_keys[] = {
	QLB_CFG_OPT_ROWS(struct qlb_cfg, LEVEL),
	{ .name = NULL },
};
#undef LEVEL

static void
sampler_level_defaults(void *obj)
{
	qlb_cfg_defaults(obj);
}

static const struct opt_kv sampler_levels_kv = {
	.name = "--sampler-levels",
	.keys = sampler_level_keys,
	.defaults = sampler_level_defaults,
	.obj_size = sizeof(struct qlb_cfg),
};

static int
set_sampler_levels(const struct opt_arg *a, char *err, size_t len)
{
	struct ibv_config *c = a->obj;

	return opt_kv_parse(&sampler_levels_kv, &c->sampler_levels, a->ctx, a->val, NULL,
			    err, len);
}

PRINT_FN(print_sampler_levels)
{
	const struct qlb_cfg *q = &((const struct ibv_config *)obj)->sampler_levels;

	(void)cmd;
	(void)d;
	fprintf(f, "sampler-levels = under=%g,over=%g,dead=%g,saturated=%g,min-samples=%" PRIu64
		"\n", q->under, q->over, q->dead, q->sat, q->min_samples);
}

static const struct opt_def ibv_opts[] = {
	{"config", .kind = OPT_PATH, .flags = OPT_F_CLI | OPT_F_CONFIG, .section = "config",
	 .metavar = "FILE", .unset = "none", OPT_AT(C, config_file),
	 .help = "INI file: keys are these option names, in any section (the [section] "
		 "after each heading is where the shipped files put them); flags take yes/no; "
		 "the command line wins, and its lists replace the file's"},
	{"port", .kind = OPT_CUSTOM, .flags = OPT_F_REPEAT, .section = "ports",
	 .metavar = "P[,P...]", .def = "every probed port", .example = "0",
	 .set = set_port, .print = print_port, .help = "ports by id or device name"},
	{"join-iface", .kind = OPT_CUSTOM, .flags = OPT_F_REPEAT, .section = "join",
	 .metavar = "P=IFNAME[,...]", .def = "the port's own", .example = "0=eth0",
	 .set = set_join_iface, .print = print_join_iface,
	 .help = "interface joining for port index P"},
	{"antenna-ip", .kind = OPT_CUSTOM, .flags = OPT_F_REPEAT, .section = "antennas",
	 .family = FAM_ANTENNAS, .metavar = "IP[=NAME][,...]", .example = "10.1.2.3=ak01",
	 .def = "--antennas from --antenna-base", .set = set_antenna_ip,
	 .print = print_antenna_ip,
	 .help = "explicit antennas; NAME (letters, digits, '_') names files, reports and "
		 "telemetry keys (default ant<i>)"},
	{"antennas", .kind = OPT_UINT, .section = "antennas", .family = FAM_ANTENNAS,
	 .metavar = "N", .min = 1, .max = ACCT_MAX_ANTENNAS, OPT_CTX(P, ant_n),
	 OPT_SEEN(P, ant_count), .print = print_folded,
	 .help = "N antennas from --antenna-base"},
	{"antenna-base", .kind = OPT_IPV4, .flags = OPT_F_UCAST, .section = "antennas",
	 .family = FAM_ANTENNAS,
	 .metavar = "IP", OPT_CTX(P, ant_base_ip), OPT_SEEN(P, ant_base), .print = print_folded,
	 .help = "first antenna source address, +1 each"},
	{"group", .kind = OPT_CUSTOM, .flags = OPT_F_REPEAT, .section = "groups",
	 .family = FAM_GROUPS, .metavar = "IP:PORT[@P][,...]", .example = "239.1.2.3:5000",
	 .def = "--groups from --group-base and --udp-port-base", .set = set_group,
	 .print = print_group,
	 .help = "explicit groups; @P: index in --port of the port that joins it (default: "
		 "group i on port i mod ports)"},
	{"groups", .kind = OPT_UINT, .section = "groups", .family = FAM_GROUPS, .metavar = "N",
	 .min = 1, .max = ACCT_MAX_GROUPS, OPT_CTX(P, group_n), OPT_SEEN(P, group_count),
	 .print = print_folded, .help = "N groups from --group-base/--udp-port-base"},
	{"group-base", .kind = OPT_IPV4, .flags = OPT_F_MCAST, .section = "groups",
	 .family = FAM_GROUPS, .metavar = "IP", OPT_CTX(P, group_base_ip),
	 OPT_SEEN(P, group_base), .print = print_folded, .help = "first multicast group, +1 each"},
	{"udp-port-base", .kind = OPT_UINT, .section = "groups", .family = FAM_GROUPS,
	 .metavar = "PORT", .min = 1, .max = 65535, OPT_CTX(P, udp_port_base_v),
	 OPT_SEEN(P, udp_port_base), .print = print_folded,
	 .help = "UDP port of the first group, +1 each"},
	{"threads", .kind = OPT_UINT, .section = "antennas", .metavar = "N", .min = 1, .max = 64,
	 OPT_AT(C, threads),
	 .help = "CODIF threads per antenna and group (informs buffer sizing, never assumed "
		 "by the checks)"},
	{"slots", .kind = OPT_UINT, .section = "antennas", .metavar = "N", .min = 1,
	 .max = ANTBUF_MAX_SLOTS, .zero = "auto", OPT_AT(C, slots), .print = print_slots,
	 .help = "streams each antenna buffer records: a stream (source, destination, "
		 "CODIF station, group, secondary and thread ids) takes a slot as it first "
		 "comes; later ones are counted not_recorded (no-slot) (auto: groups x "
		 "threads and a quarter more, at least one, spare)"},
	{"mtu", .kind = OPT_UINT, .section = "ports", .metavar = "N", .min = 1280, .max = 16000,
	 OPT_AT(C, mtu), .help = "MTU to set"},
	{"mbuf-size", .kind = OPT_SIZE, .section = "ports", .metavar = "N", .min = 2048,
	 .max = 65535, .zero = "auto", OPT_AT(C, mbuf_size),
	 .help = "mbuf data room incl. headroom (auto: the MTU fits)"},
	{"mbufs", .kind = OPT_UINT, .section = "ports", .metavar = "N", .min = 512,
	 .max = 1u << 24, .zero = "auto", OPT_AT(C, nb_mbufs), .help = "mbufs per port"},
	{"rx-desc", .kind = OPT_UINT, .section = "ports", .metavar = "N", .min = 64,
	 .max = 32768, OPT_AT(C, rx_desc), .help = "rx descriptors per queue"},
	{"burst", .kind = OPT_UINT, .section = "ports", .metavar = "N", .min = 1, .max = 512,
	 OPT_AT(C, burst), .help = "rx burst size"},
	{"steer", .kind = OPT_ENUM, .section = "steering", .names = steer_names,
	 OPT_AT(C, steer),
	 .help = "auto: rte_flow rules, else software steering by source address with one "
		 "log line; flow: rules or fail; software: no rules"},
	{"isolate", .kind = OPT_FLAG, .section = "steering", OPT_AT(C, isolate),
	 .help = "flow isolation: the port delivers only what the rules match (mlx5; "
		 "implies --steer flow)"},
	{"no-join", .kind = OPT_FLAG, .section = "join", OPT_AT(C, no_join),
	 .help = "do not join the groups"},
	{"lcore-map", .kind = OPT_CUSTOM, .flags = OPT_F_REPEAT, .section = "ports",
	 .metavar = "P.Q@L[,...]", .def = "queues spread over worker lcores", .example = "0.1@1",
	 .set = set_lcore_map, .print = print_lcore_map,
	 .help = "poll queue Q of port index P on lcore L"},
	{"count", .kind = OPT_UINT, .section = "stop", .metavar = "N", .min = 1,
	 .max = UINT64_MAX, .unset = "no limit", OPT_AT(C, stop_frames),
	 .help = "after N frames per antenna: when every antenna has received N"},
	{"count-packets", .kind = OPT_UINT, .section = "stop", .metavar = "N", .min = 1,
	 .max = UINT64_MAX, .unset = "no limit", OPT_AT(C, stop_packets),
	 .help = "after N packets in total, CODIF or not (a replay of a known file: lost "
		 "or malformed frames never complete a --count)"},
	{"duration", .kind = OPT_DURATION, .section = "stop", .metavar = "T",
	 .min = NS_PER_S / 1000, .max = 400ULL * 86400 * NS_PER_S, .unset = "no limit",
	 OPT_AT(C, stop_duration_ns), .help = "after T (e.g. 30s, 10m)"},
	{"idle-timeout", .kind = OPT_DURATION, .section = "stop", .metavar = "T",
	 .min = NS_PER_S / 1000, .max = 86400ULL * NS_PER_S, .unset = "none",
	 OPT_AT(C, idle_timeout_ns), .help = "after T without packets, once traffic began"},
	{"stats-period", .kind = OPT_DURATION, .flags = OPT_F_ZERO, .section = "reporting",
	 .metavar = "T", .min = NS_PER_S / 100, .max = 86400ULL * NS_PER_S,
	 OPT_AT(C, stats_period_ns), .help = "periodic one-line report (0 = off)"},
	{"link-timeout", .kind = OPT_DURATION, .section = "ports", .metavar = "T", .min = 0,
	 .max = 3600ULL * NS_PER_S, OPT_AT(C, link_timeout_ns),
	 .help = "wait for link up, then go on with a warning"},
	{"window", .kind = OPT_UINT, .flags = OPT_F_POW2, .section = "timeline", .metavar = "N",
	 .min = 64, .max = 1u << 24, OPT_AT(C, layout.tl.window),
	 .help = "frames tracked for late/duplicate, per stream"},
	{"confirm", .kind = OPT_UINT, .section = "timeline", .metavar = "K", .min = 2,
	 .max = CODIF_MAX_CONFIRM, OPT_AT(C, layout.tl.confirm),
	 .help = "agreeing frames that move a timeline"},
	{"max-gap", .kind = OPT_DURATION, .section = "timeline", .metavar = "T", .min = 1000,
	 .max = 3600ULL * NS_PER_S, OPT_AT(C, layout.tl.max_gap_ns),
	 .help = "a confirmed jump ahead of at most T is loss; a longer one too (an outage) "
		 "when its data time and the time between the arrivals agree within T "
		 "(+100 ppm), else a resync (a clock step)"},
	{"clock-warn", .kind = OPT_DURATION, .section = "reporting", .metavar = "T",
	 .min = NS_PER_S / 1000, .max = 86400ULL * NS_PER_S, OPT_AT(C, clock_warn_ns),
	 .help = "warn when an antenna's data time (its newest frame) and the host clock "
		 "differ by more than T; the difference is exported (a scan is data time: "
		 "with the clocks apart it records other data than the host's time says)"},
	{"summary-json", .kind = OPT_PATH, .flags = OPT_F_OUTFILE, .section = "reporting",
	 .metavar = "FILE", .unset = "none", .example = "/tmp/ibvcap-summary.json",
	 OPT_AT(C, summary_json),
	 .help = "final summary as JSON (FILE.part, renamed at the end; its directory must "
		 "take new files when the capture starts)"},
	{"quicklook", .kind = OPT_UINT, .flags = OPT_F_ZERO, .section = "reporting",
	 .metavar = "N", .min = 1, .max = 1u << 24, .zero = "off", OPT_AT(C, quicklook_every),
	 .help = "quick look: the sample statistics (mean, power, saturated and zero "
		 "fractions, per channel) of one frame in N of every stream, read by the rx "
		 "lcore (0 or off: none)"},
	{"quicklook-window", .kind = OPT_DURATION, .section = "reporting", .metavar = "T",
	 .min = NS_PER_S / 10, .max = 3600ULL * NS_PER_S, OPT_AT(C, quicklook_window_ns),
	 .help = "the live quick-look figures (telemetry /ibvcap/quicklook) are those of the "
		 "last T"},
	{"quicklook-min", .kind = OPT_UINT, .flags = OPT_F_ZERO, .section = "reporting",
	 .metavar = "M", .min = 1, .max = 4096, .zero = "off", OPT_AT(C, quicklook_min),
	 .help = "quick look also samples at least M frames of every stream per "
		 "--quicklook-window (a slow stream still has figures); the sampler statistics "
		 "and spectra read M of each window's (0 or off: one in N only, and none)"},
	{"sampler-levels", .kind = OPT_CUSTOM, .section = "reporting", .metavar = "KEY=V[,...]",
	 .example = "under=0.4,over=2.5", .set = set_sampler_levels, .print = print_sampler_levels,
	 .kv = &sampler_levels_kv,
	 .help = "the sampler statistics' verdict (/ibvcap/bstate, the summary, "
		 "ibvcap_bstate_verdict): its thresholds, each as codifcheck bstate's option of "
		 "the same name"},
	{"verbose", .kind = OPT_FLAG, .letter = 'v', .section = "reporting", OPT_AT(C, verbose),
	 .help = "dump every packet's headers (slow)"},
	{"ring", .kind = OPT_CUSTOM, .section = "buffers", .metavar = "N|T", .min = 1,
	 .max = 1u << 26, .def = "1024", .example = "2s", .set = set_ring, .print = print_ring,
	 .help = "frames per antenna ring, or a time (rounded up to a power of two)"},
	{"retain", .kind = OPT_DURATION, .section = "buffers", .metavar = "T",
	 .min = NS_PER_S / 1000, .max = 3600ULL * NS_PER_S, .unset = "none", .example = "10s",
	 OPT_AT(C, retain_ns), .print = print_retain,
	 .help = "keep at least T of data time of every antenna in its ring, for triggered "
		 "dumps (/ibvcap/trigger): the ring is sized from T at --frame-rate, in place "
		 "of --ring (checked at the first frame against the stream's own frame "
		 "period)"},
	{"reorder-window", .kind = OPT_CUSTOM, .section = "buffers", .metavar = "N|T", .min = 1,
	 .max = 1u << 26, .def = "64", .example = "30ms", .set = set_reorder_window,
	 .print = print_ring, .help = "frames kept open for late frames, or a time"},
	{"data-bytes", .kind = OPT_UINT, .section = "buffers", .metavar = "N", .min = 8,
	 .max = 65536, .mult = 8, .unit = "bytes", OPT_AT(C, data_bytes),
	 .print = print_buffers_row,
	 .help = "payload bytes per frame in the buffers; frames of another size are counted, "
		 "not placed"},
	{"frame-rate", .kind = OPT_DOUBLE, .section = "buffers", .metavar = "F", .dmin = 0.001,
	 .dmax = 1e9, OPT_AT(C, frame_rate), .print = print_buffers_row,
	 .help = "frames/s per stream, to turn times into frames (ASKAP-like: 62500 frames "
		 "per 27 s)"},
	{"no-buffers", .kind = OPT_FLAG, .flags = OPT_F_INVERT, .section = "buffers",
	 OPT_AT(C, buffers), .help = "count only, no buffers"},
	{"zero-copy", .kind = OPT_BOOL, .section = "buffers", OPT_AT(C, zero_copy),
	 .help = "the antenna rings keep each frame in the mbuf it arrived in (no copy; the "
		 "mbuf pool then holds a ring's worth of frames): yes, or copy each payload "
		 "once into the ring (no)"},
	{"zero-copy-split", .kind = OPT_ENUM, .section = "buffers", .names = split_names,
	 OPT_AT(C, zc_split),
	 .help = "with --zero-copy: the NIC writes each frame's first 106 bytes to a small "
		 "mbuf and its payload to a buffer of its own, which the ring keeps, where every "
		 "port offers buffer split (auto), or fail (on); off: the rings keep whole mbufs"},
	{"gpu", .kind = OPT_UINT, .section = "buffers", .metavar = "DEV", .min = 0, .max = 63,
	 .def = "none: host memory", OPT_AT(C, gpu), .print = print_gpu,
	 .help = "payload in gpudev DEV's memory (GPUDirect)"},
	{"gpu-split", .kind = OPT_ENUM, .section = "buffers", .names = split_names,
	 OPT_AT(C, gpu_split), .print = print_gpu,
	 .help = "with --gpu: the NIC writes headers to host and payload straight to GPU "
		 "memory where every port offers buffer split (auto), or fail (on); off: host "
		 "mbufs, payload copied to GPU memory"},
	{"write", .kind = OPT_LIST, .section = "writers", .metavar = "FORMAT:DIR[,key=value...]",
	 .unit = "writers", .unset = "none", .example = "codif:/tmp",
	 OPT_LIST_AT(C, write, nwrite), .kv = &wr_opts_kv,
	 .help = "a writer on an lcore of its own: FORMAT raw, codif, pcap or pcapng into DIR, "
		 "which must exist and take new files"},
	{"consumer", .kind = OPT_LIST, .section = "writers", .metavar = "LIB.so[,key=value...]",
	 .unit = "consumers", .unset = "none", .example = "/usr/lib/beam.so,out=/tmp/beam",
	 OPT_LIST_AT(C, consumer, nconsumer),
	 .help = "an in-process consumer: LIB.so (include/ibvcap_plugin.h) on a worker lcore of "
		 "its own (lcore=N, else the last one free: give EAL one more), given "
		 "time-aligned blocks of the rings (name=, antennas=MASK, frames=T; scans=1: "
		 "only the data of its scans, as a dump writer's; the other keys are its own)"},
	{"writer-drain", .kind = OPT_DURATION, .section = "writers", .metavar = "T", .min = 0,
	 .max = 3600ULL * NS_PER_S, OPT_AT(C, drain_ns),
	 .help = "at exit, wait up to T for dpdk-ibvcap-dump writers to take the last frames "
		 "(--write writers always finish)"},
	{"record", .kind = OPT_ENUM, .section = "writers", .names = record_names,
	 OPT_AT(C, record),
	 .help = "what --write writers record before any scan is given them: always "
		 "(everything, as without scans; a writer's first scan, from --schedule or a "
		 "'record' command, ends that) or idle (nothing outside scans)"},
	{"schedule", .kind = OPT_PATH, .section = "writers", .metavar = "FILE", .unset = "none",
	 .example = "/etc/dpdk-ibvcap/scans.txt", OPT_AT(C, schedule),
	 .help = "scans for the --write writers, one a line: NAME START STOP|+DURATION "
		 "[writer=W,...] [antenna=A,...] (UTC times, '#' comments); a scan records the "
		 "frames whose CODIF data time is in [START, STOP) into DIR/NAME/; its writers "
		 "record nothing else"},
	/* not a command-line option: EAL's own arguments, read by main() before
	 * EAL init; a row so that [eal] holds no unchecked keys */
	{ .name = "args", .kind = OPT_STRING, .flags = OPT_F_INI | OPT_F_SECTION,
	  .section = "eal", .metavar = "EAL-ARGS", .unset = "none", .example = "-l 0",
	  OPT_AT(C, eal_args),
	  .help = "EAL arguments, put before the command line's own EAL arguments"},
	/* names this program had: refused, naming the new one (also as INI keys) */
	{"frames", .flags = OPT_F_GONE, .alias_of = "count"},
	{"packets", .flags = OPT_F_GONE, .alias_of = "count-packets"},
	{"port-base", .flags = OPT_F_GONE, .alias_of = "udp-port-base"},
	/* the seed tool's names (issue 13): taken with a note */
	{"num-antennas", .flags = OPT_F_CLI, .alias_of = "antennas",
	 .help = "use --antennas"},
	{"format", .flags = OPT_F_CLI, .alias_of = "write", .set = set_old_format,
	 .help = "use --write F:. (codifhdr: codif)"},
	{"check-config", .kind = OPT_FLAG, .flags = OPT_F_ACTION, .section = "config",
	 .metavar = "[FILE]", OPT_AT(C, check_only),
	 .help = "check everything the start checks before it takes a device, on this host "
		 "(EAL arguments before '--' and in [eal] args count): the options, output "
		 "directories (a file is made in each and removed), --summary-json's directory, "
		 "join interfaces, lcores, and the buffers' memory against hugepages (or -m with "
		 "--no-huge); print the effective configuration and the memory, exit 0, or exit "
		 "1 naming the option, the value and what was expected"},
	{"skip-host-checks", .kind = OPT_FLAG, .flags = OPT_F_ACTION, .section = "config",
	 OPT_AT(C, skip_host),
	 .help = "with --check-config: check the configuration alone, not this host "
		 "(directories, interfaces, lcores, memory, the --schedule file): for a file "
		 "meant for another host"},
	{"help", .kind = OPT_ACTION, .letter = 'h', .flags = OPT_F_ACTION, .section = "config",
	 .set = opt_act_help, .help = "this text"},
	{ .name = NULL },
};
#undef C
#undef P

static const struct opt_cmd ibv_cmd = {
	.prog = "dpdk-ibvcap",
	.usage = "Usage: dpdk-ibvcap [EAL options] -- [options]\n"
		 "  or:  dpdk-ibvcap [EAL options --] --check-config FILE [options]\n",
	.about = "Capture CODIF antenna streams: steer each antenna (source IPv4) to its own\n"
		 "rx queue, check every frame, count received/lost/late/duplicate/invalid/\n"
		 "malformed per antenna and stream. Stock dpdk-pdump/dpdk-dumpcap can attach.\n"
		 "Every option is also a key of a --config FILE.\n",
	.epilog = "Exit status: 0 clean stop; 1 configuration or start-up error (message\n"
		  "names the problem); 2 runtime failure; 3 a --write writer stopped at its\n"
		  "min-free (its files complete; the capture ran on, counts exact).\n"
		  "Live taps: dpdk-pdump --file-prefix PREFIX -- --pdump 'port=P,queue=N,rx-dev=F'\n"
		  "taps antenna N; dpdk-dumpcap --file-prefix PREFIX -i P -s 9000 a port.\n",
	.sections = sections,
	.opts = ibv_opts,
	.flags = OPT_CMD_INI,
	.defaults = defaults,
	.obj_size = sizeof(struct ibv_config),
	.ctx_size = sizeof(struct pstate),
};

void
ibv_usage(FILE *f)
{
	opt_help(&ibv_cmd, f);
}

void
ibv_version(FILE *f)
{
	opt_version(&ibv_cmd, f);
}

/* --consumer's file, where it is a path (a bare name is dlopen's to look
 * for): readable, so that the start refuses it before EAL and
 * --check-config says so. */
static int
check_consumer_file(const char *spec, char *err, size_t errlen)
{
	size_t n = strcspn(spec, ",");
	char path[PATH_MAX];

	if (n == 0 || n >= sizeof(path) || memchr(spec, '/', n) == NULL)
		return 0;
	memcpy(path, spec, n);
	path[n] = '\0';
	if (access(path, R_OK) != 0)
		return err_set(err, errlen, -errno, "--consumer %s: %s (expected a plugin's shared "
			       "object, include/ibvcap_plugin.h)", path, strerror(errno));
	return 0;
}

int
ibv_config_check_files(const struct ibv_config *c, char *err, size_t errlen)
{
	int rc = opt_check_files(&ibv_cmd, c, err, errlen);
	unsigned int i;

	for (i = 0; rc == 0 && i < c->nconsumer; i++)
		rc = check_consumer_file(c->consumer[i], err, errlen);
	return rc;
}

int
ibv_config_load_ini(struct ibv_config *c, const char *path, char *err,
		    size_t errlen)
{
	struct pstate ps;

	pstate_defaults(c, &ps);
	return opt_ini_load(&ibv_cmd, c, &ps, path, err, errlen);
}


int
ibv_config_parse(struct ibv_config *c, int argc, char **argv, char *err,
		 size_t errlen)
{
	struct pstate ps;
	int rc;

	pstate_defaults(c, &ps);
	rc = opt_ini_parse_argv(&ibv_cmd, c, &ps, argc, argv, NULL, err, errlen);
	if (rc != 0)
		return rc;
	return ibv_config_finish(c, &ps, err, errlen);
}

void
ibv_config_print(const struct ibv_config *c, FILE *f)
{
	fprintf(f, "# dpdk-ibvcap effective configuration\n");
	opt_print(&ibv_cmd, c, f);
}
