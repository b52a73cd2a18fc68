/* SPDX-License-Identifier: BSD-3-Clause */
/* The configuration as a whole, once every option is read: layout, ports, buffers, payload modes, writers. */

#include <errno.h>
#include <string.h>

#include "antbuf.h"
#include "codif.h"
#include "config_parse.h"
#include "err.h"
#include "parse.h"
#include "writer.h"

/* --antennas, --antenna-base, --groups, --group-base and --udp-port-base
 * expanded into the layout's lists, where no list was given. */
static int
expand_layout(struct ibv_config *c, const struct pstate *ps, char *err, size_t len)
{
	struct acct_layout *l = &c->layout;
	unsigned int i;

	if (ps->ant_list && (ps->ant_count || ps->ant_base)) {
		if (ps->ant_count && ps->ant_n != l->nant)
			return err_set(err, len, -EINVAL, "--antennas %u and --antenna-ip (%u addresses) disagree",
				    ps->ant_n, l->nant);
		if (ps->ant_base)
			return err_set(err, len, -EINVAL, "--antenna-base and --antenna-ip exclude each other");
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
	if (ps->group_list && (ps->group_count || ps->group_base || ps->udp_port_base))
		return err_set(err, len, -EINVAL, "--group and --groups/--group-base/--udp-port-base "
			       "exclude each other");
	if (!ps->group_list && (ps->group_count || ps->group_base || ps->udp_port_base)) {
		uint32_t base = ps->group_base ? ps->group_base_ip : l->group[0].ip;
		uint16_t pb = ps->udp_port_base ? ps->udp_port_base_v : l->group[0].port;

		if (ps->group_count)
			l->ngroup = ps->group_n;
		for (i = 0; i < l->ngroup; i++) {
			l->group[i].ip = base + i;
			l->group[i].port = (uint16_t)(pb + i);
			c->group_port[i] = -1;
		}
	}
	return 0;
}

/* The layout's antennas and groups, each once and usable, and what refers
 * to them by index (--group's port, --join-iface, --lcore-map). */
static int
check_layout(const struct ibv_config *c, char *err, size_t len)
{
	const struct acct_layout *l = &c->layout;
	unsigned int i, j, np;
	char a[16], b[16];

	for (i = 0; i < l->nant; i++)
		for (j = i + 1; j < l->nant; j++) {
			if (l->ant_ip[i] == l->ant_ip[j])
				return err_set(err, len, -EINVAL,
					    "antenna %u and antenna %u have the same source address %s",
					    i, j, ipv4_str(l->ant_ip[i], a, sizeof(a)));
			if (strcmp(l->ant_name[i], l->ant_name[j]) == 0)
				return err_set(err, len, -EINVAL, "antennas %u and %u are both named '%s'",
					    i, j, l->ant_name[i]);
		}
	for (i = 0; i < l->ngroup; i++)
		for (j = i + 1; j < l->ngroup; j++)
			if (l->group[i].ip == l->group[j].ip &&
			    l->group[i].port == l->group[j].port)
				return err_set(err, len, -EINVAL, "group %s:%u given twice",
					    ipv4_str(l->group[i].ip, a, sizeof(a)),
					    l->group[i].port);
	/* --antenna-base + i may run into what no sender uses */
	for (i = 0; i < l->nant; i++)
		if (ipv4_source_why(l->ant_ip[i]) != NULL)
			return err_set(err, len, -EINVAL, "antenna %u: source address %s (--antenna-base %s + %u) "
				    "is not a sender's unicast address: %s", i,
				    ipv4_str(l->ant_ip[i], a, sizeof(a)),
				    ipv4_str(l->ant_ip[0], b, sizeof(b)), i,
				    ipv4_source_why(l->ant_ip[i]));
	np = c->nport ? c->nport : 1;
	for (i = 0; i < l->ngroup; i++) {
		if (c->group_port[i] >= (int)np && c->nport != 0)
			return err_set(err, len, -EINVAL,
				    "group %s:%u: joined on port index %d, but only %u ports (--port) are given",
				    ipv4_str(l->group[i].ip, b, sizeof(b)), l->group[i].port,
				    c->group_port[i], c->nport);
	}
	for (i = c->nport; c->nport != 0 && i < IBV_MAX_PORTS; i++)
		if (c->port[i].iface[0] != '\0')
			return err_set(err, len, -EINVAL, "--join-iface: port index %u (%s), but only %u "
				    "ports (--port) are given", i, c->port[i].iface, c->nport);
	for (i = 0; i < c->nmap; i++) {
		if (c->nport != 0 && c->map[i].port_idx >= c->nport)
			return err_set(err, len, -EINVAL, "--lcore-map: port index %u, but only %u ports are given",
				    c->map[i].port_idx, c->nport);
		if (c->map[i].queue >= ibv_queues_needed(c))
			return err_set(err, len, -EINVAL, "--lcore-map: queue %u, but ports have %u queues "
				    "(%u antennas + 1 default)", c->map[i].queue,
				    ibv_queues_needed(c), l->nant);
		for (j = 0; j < i; j++)
			if (c->map[j].port_idx == c->map[i].port_idx &&
			    c->map[j].queue == c->map[i].queue)
				return err_set(err, len, -EINVAL, "--lcore-map: queue %u.%u mapped twice",
					    c->map[i].port_idx, c->map[i].queue);
	}
	return 0;
}

/* Steering and mbufs: what the port options allow together. */
static int
check_ports(struct ibv_config *c, char *err, size_t len)
{
	if (c->isolate && c->steer == IBV_STEER_SOFTWARE)
		return err_set(err, len, -EINVAL, "--isolate needs rte_flow rules: it excludes --steer software");
	if (c->isolate)
		c->steer = IBV_STEER_FLOW;
	if (c->mbuf_size != 0 && c->mbuf_size < 2048)
		return err_set(err, len, -EINVAL, "--mbuf-size %u: expected >= 2048", c->mbuf_size);
	return 0;
}

/* The timeline's window and the antenna buffers' geometry. */
static int
buffer_geometry(struct ibv_config *c, char *err, size_t len)
{
	/* the timeline takes at once what the buffers can still place late:
	 * frames up to the reorder window ahead */
	c->layout.nthread = c->threads;
	{
		uint32_t rows, win;
		char why[200];

		ibv_buffer_rows(c, &rows, &win);
		c->layout.tl.ahead = win;
		if (codif_tl_cfg_check(&c->layout.tl, why, sizeof(why)) != 0)
			return err_set(err, len, -EINVAL, "--window, --reorder-window, --confirm, --max-gap: %s",
				    why);
	}
	if (c->buffers) {
		struct antbuf_geom g;
		char why[256];

		ibv_buffer_rows(c, &g.nrows, &g.window);
		g.nslots = ibv_slots(c);
		g.data_bytes = c->data_bytes;
		if (antbuf_geom_check(&g, why, sizeof(why)) != 0)
			return err_set(err, len, -EINVAL, "antenna buffers (--ring, --reorder-window, "
				    "--slots (auto: groups x threads + spare), --data-bytes): %s", why);
	}
	return 0;
}

/* The payload modes (--no-buffers, --gpu, --zero-copy and their splits):
 * what each needs of the others. */
static int
check_payload_modes(const struct ibv_config *c, char *err, size_t len)
{
	if (c->nwrite > 0 && !c->buffers)
		return err_set(err, len, -EINVAL, "--write needs the antenna buffers: it excludes --no-buffers");
	if (c->nconsumer > 0 && !c->buffers)
		return err_set(err, len, -EINVAL, "--consumer reads the antenna buffers: it excludes --no-buffers");
	if (c->gpu >= 0 && !c->buffers)
		return err_set(err, len, -EINVAL, "--gpu places payload in the antenna buffers: it excludes --no-buffers");
	if (c->zero_copy && (!c->buffers || c->gpu >= 0))
		return err_set(err, len, -EINVAL, "--zero-copy keeps frames in host mbufs for the antenna "
			    "buffers: it excludes --no-buffers and --gpu");
	if (c->zero_copy && c->mbuf_size != 0)
		return err_set(err, len, -EINVAL, "--zero-copy needs each frame whole in one mbuf: leave "
			    "--mbuf-size auto");
	if (c->zc_split == IBV_SPLIT_ON && !c->zero_copy)
		return err_set(err, len, -EINVAL, "--zero-copy-split on splits payload into buffers the "
			    "rings keep: it needs --zero-copy yes");
	if (c->gpu_split == IBV_SPLIT_ON && c->gpu < 0)
		return err_set(err, len, -EINVAL, "--gpu-split on splits payload into GPU memory: it needs --gpu DEV");
	return 0;
}

/* Each --write parsed once, into c->wo: the host checks, the writers and
 * the scan commands take it from there. */
static int
parse_writers(struct ibv_config *c, char *err, size_t len)
{
	unsigned int i;
	int rc;

	c->nwlcore = 0;
	for (i = 0; i < c->nwrite; i++) {
		rc = wr_opts_parse(&c->wo[i], "--write", c->write[i], err, len);
		if (rc != 0)
			return rc;
		/* Antenna i goes on its (i mod N)th lcore, so each lcore needs one. */
		if (c->wo[i].lcores > c->layout.nant)
			return err_set(err, len, -EINVAL, "--write %s: lcores: '%u': more writer "
				    "lcores than the %u antennas it writes (antenna i on lcore i mod "
				    "N): expected 1..%u", c->write[i], c->wo[i].lcores,
				    c->layout.nant, c->layout.nant);
		c->nwlcore += c->wo[i].lcores;
	}
	if (c->nwlcore > IBV_MAX_WLCORES)
		return err_set(err, len, -EINVAL, "--write: %u writer lcores in all (lcores= of "
			    "each --write summed): at most %d, the writer table's entries",
			    c->nwlcore, IBV_MAX_WLCORES);
	return 0;
}

int
ibv_config_finish(struct ibv_config *c, const struct pstate *ps, char *err, size_t len)
{
	int rc;

	if ((rc = expand_layout(c, ps, err, len)) != 0 ||
	    (rc = check_layout(c, err, len)) != 0 ||
	    (rc = check_ports(c, err, len)) != 0 ||
	    (rc = buffer_geometry(c, err, len)) != 0 ||
	    (rc = check_payload_modes(c, err, len)) != 0)
		return rc;
	return parse_writers(c, err, len);
}
