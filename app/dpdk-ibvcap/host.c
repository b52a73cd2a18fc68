/* SPDX-License-Identifier: BSD-3-Clause */
/* What the start needs from this host, checked before EAL init and by --check-config. */

#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "err.h"
#include "fsprobe.h"
#include "host.h"
#include "parse.h"
#include "writer.h"

/* Longest file name a writer makes: DIR/PREFIX_ANTENNA_TIME.EXT.json.part */
static size_t
longest_name(const struct ibv_config *c, const struct wr_opts *o)
{
	size_t ant = 3, i; /* "all" */

	for (i = 0; i < c->layout.nant; i++)
		if (strlen(c->layout.ant_name[i]) > ant)
			ant = strlen(c->layout.ant_name[i]);
	/* 20250310T120013.500000000Z */
	return strlen(o->dir) + 1 + strlen(o->prefix) + 1 + ant + 1 + 26 + 1 +
	       strlen(wr_format_name(o->format)) + sizeof(".json.part") - 1;
}

static int
check_writers(const struct ibv_config *c, char *err, size_t len)
{
	static char real[IBV_MAX_WRITERS][PATH_MAX];
	const struct wr_opts *o = c->wo; /* parsed with the configuration */
	char why[PATH_MAX + 128];
	unsigned int i, j;
	int rc;

	for (i = 0; i < c->nwrite; i++) {
		rc = fs_dir_takes_files(o[i].dir, why, sizeof(why));
		if (rc != 0)
			return err_set(err, len, rc, "--write %s: directory '%s' %s", c->write[i],
				    o[i].dir, why);
		rc = wr_budget_check(&o[i], why, sizeof(why));
		if (rc != 0)
			return err_set(err, len, rc, "--write %s: %s", c->write[i], why);
		if (longest_name(c, &o[i]) >= PATH_MAX)
			return err_set(err, len, -ENAMETOOLONG, "--write %s: file names in '%s' would "
				    "be %zu characters, more than the %d a path may have",
				    c->write[i], o[i].dir, longest_name(c, &o[i]), PATH_MAX - 1);
		if (realpath(o[i].dir, real[i]) == NULL)
			return err_set(err, len, -errno, "--write %s: directory '%s': %s",
				    c->write[i], o[i].dir, strerror(errno));
		/* files are DIR/PREFIX_ANTENNA_TIME.FORMAT (+ .json for raw):
		 * two writers collide only with the same directory, format
		 * and prefix; the second would stop at its first file */
		for (j = 0; j < i; j++)
			if (strcmp(real[i], real[j]) == 0 && o[i].format == o[j].format &&
			    strcmp(o[i].prefix, o[j].prefix) == 0)
				return err_set(err, len, -EEXIST, "--write %s and --write %s: both write "
					    "%s files named %s_* into %s: their names would collide; "
					    "give one another directory or prefix=",
					    c->write[j], c->write[i], wr_format_name(o[i].format),
					    o[i].prefix, real[i]);
	}
	return 0;
}

static int
check_ifaces(const struct ibv_config *c, char *err, size_t len)
{
	unsigned int i, g, joins[IBV_MAX_PORTS] = { 0 };
	uint64_t max = ibv_sys_u64("/proc/sys/net/ipv4", "igmp_max_memberships");

	if (c->no_join)
		return 0;
	for (i = 0; i < IBV_MAX_PORTS; i++)
		if (c->port[i].iface[0] != '\0' && if_nametoindex(c->port[i].iface) == 0)
			return err_set(err, len, -ENODEV, "--join-iface %u=%s: no such interface here "
				    "(ip link shows them; or --no-join)", i, c->port[i].iface);
	/* one socket per port joins its groups: the kernel allows each socket
	 * igmp_max_memberships (known where the port's interface is named) */
	for (g = 0; g < c->layout.ngroup; g++) {
		if (c->group_port[g] >= 0)
			joins[c->group_port[g]]++;
		else if (c->nport != 0)
			joins[g % c->nport]++;
	}
	for (i = 0; i < IBV_MAX_PORTS && max > 0; i++)
		if (c->port[i].iface[0] != '\0' && joins[i] > max)
			return err_set(err, len, -ENOBUFS, "port index %u joins %u groups on %s, more than "
				    "the kernel lets one socket join (net.ipv4.igmp_max_memberships = %"
				    PRIu64 "): raise it (sysctl -w net.ipv4.igmp_max_memberships=%u) or "
				    "spread the groups over ports (--group IP:PORT@P)", i, joins[i],
				    c->port[i].iface, max, joins[i]);
	return 0;
}

static int
check_lcores(const struct ibv_config *c, const struct ibv_eal_view *v, char *err, size_t len)
{
	unsigned int workers[RTE_MAX_LCORE], nw = 0, i, k, main_l;
	const char *how = v->lcores_given ? v->lcores_arg : "EAL's default: every CPU of this "
			  "process (taskset)";

	if (v->service_cores)
		return 0; /* service cores: EAL's to say */
	for (i = 0; v->lcores_given && i < IBV_MAX_CPUS; i++)
		if (v->cpu[i] && !ibv_cpu_detected(i))
			return err_set(err, len, -EINVAL, "%s: CPU %u is not on this host (lcores run on "
				    "CPUs that exist: lscpu)", v->lcores_arg, i);
	if (v->nlcore == 0)
		return err_set(err, len, -EINVAL, "lcores (%s): none", how);
	for (main_l = 0; !v->lcore[main_l]; main_l++)
		;
	if (v->main_lcore >= 0) {
		if (!v->lcore[v->main_lcore])
			return err_set(err, len, -EINVAL, "--main-lcore %d: not one of the lcores (%s)",
				    v->main_lcore, how);
		main_l = (unsigned int)v->main_lcore;
	}
	for (i = 0; i < RTE_MAX_LCORE; i++)
		if (v->lcore[i] && i != main_l)
			workers[nw++] = i;
	/* as wr.c and rx.c: the last workers are the writers', the rest rx */
	if (c->nwlcore > 0 && nw < c->nwlcore + 1)
		return err_set(err, len, -EINVAL,
			    "--write: %u writer%s need%s an lcore each%s besides at least one rx "
			    "lcore: %s gives %u worker lcore%s besides the main lcore %u (give more "
			    "with -l, or map several lcores to CPUs with --lcores, e.g. --lcores "
			    "0@0,1@1,2@0)", c->nwlcore, c->nwlcore == 1 ? "" : "s",
			    c->nwlcore == 1 ? "s" : "", c->nwlcore > c->nwrite ?
			    " (lcores=N: N)" : "", how, nw, nw == 1 ? "" : "s", main_l);
	if (nw == 0)
		return err_set(err, len, -EINVAL,
			    "no worker lcore: the main lcore reports, rx needs at least one more "
			    "(e.g. -l 0,1): %s gives none", how);
	for (k = 0; k < c->nmap; k++) {
		const struct ibv_map *m = &c->map[k];
		bool writer = false;

		for (i = nw - c->nwlcore; i < nw; i++)
			writer |= workers[i] == m->lcore;
		if (m->lcore >= RTE_MAX_LCORE || !v->lcore[m->lcore] || m->lcore == main_l ||
		    writer)
			return err_set(err, len, -EINVAL, "--lcore-map %u.%u@%u: lcore %u is not a "
				    "worker lcore of this process (%s; main lcore %u%s)", m->port_idx,
				    m->queue, m->lcore, m->lcore, how, main_l,
				    writer ? "; it writes" : "");
	}
	return 0;
}

/* The memory the configuration takes of EAL's, in the pages EAL's heap
 * grows by (the smallest hugepage size it can use; 4 KiB with --no-huge),
 * and the host's hugepages (h zeroed with --no-huge). */
static void
mem_measure(const struct ibv_config *c, const struct ibv_eal_view *v, struct ibv_mem_need *m,
	    struct ibv_hp_info *h)
{
	uint64_t page = 0;
	unsigned int i;

	ibv_mem_need(c, v, m);
	if (v->no_huge) {
		memset(h, 0, sizeof(*h));
		page = 4096;
	} else {
		ibv_hp_read(v, h);
		for (i = 0; i < h->n; i++)
			if (h->s[i].usable && h->s[i].free > 0 && (page == 0 || h->s[i].page < page))
				page = h->s[i].page;
	}
	ibv_mem_pages(c, m, page);
	if (m->hp_bytes > m->total)
		m->total = m->hp_bytes;
}

/* A refusal of memory, led by --retain's rows when --retain sized the rings. */
static int
retain_first(const struct ibv_config *c, const struct ibv_mem_need *m, uint64_t avail, int rc,
	     char *err, size_t len)
{
	struct ibv_buf_plan bp;
	char why[IBV_ERRLEN], a[64], b[64];

	if (rc != -ENOMEM || !c->retain_ns || !c->buffers)
		return rc;
	ibv_buffer_plan(c, &bp);
	if (!bp.retained)
		return rc;
	str_copy(why, sizeof(why), err);
	return err_set(err, len, rc, "--retain %.9gs: %u antenna rings of %u frames (%" PRIu64
		       " frames of data time at --frame-rate %.6g + the reorder window) need "
		       "%s in all, %s free: %s", (double)c->retain_ns / 1e9, m->nant, bp.rows,
		       bp.retain_rows, c->frame_rate, ibv_human(m->total, a, sizeof(a)),
		       ibv_human(avail, b, sizeof(b)), why);
}

/* The memory statement: per antenna, pools, what the capture takes, what EAL has. */
static void
mem_statement(const struct ibv_config *c, const struct ibv_eal_view *v,
	      const struct ibv_mem_need *m, uint64_t avail, FILE *out, const char *lead)
{
	char a[64], b[64], t[64], p[64];

	if (m->nant > 0)
		fprintf(out, "%smemory: antenna buffers %u x %s = %s%s; control block %s\n",
			lead, m->nant, bytes_str(m->ant_bytes, a, sizeof(a)),
			bytes_str((uint64_t)m->nant * m->ant_bytes, t, sizeof(t)),
			m->gpu_bytes ? " (metadata; the payload in GPU memory, not checked "
				       "here)" : "",
			bytes_str(m->ctl_bytes, b, sizeof(b)));
	if (m->refs_bytes)
		fprintf(out, "%smemory: --zero-copy: the rings hold references (%s each), "
			"the frames one mbuf pool of %" PRIu64 " mbufs\n", lead,
			bytes_str(m->refs_bytes, a, sizeof(a)), m->nmbuf);
	fprintf(out, "%smemory: mbuf pools %s (%" PRIu64 " mbufs, %u port%s%s)\n", lead,
		bytes_str(m->pool_bytes, p, sizeof(p)), m->nmbuf, m->nport,
		m->nport == 1 ? "" : "s", c->nport ? "" : " counted: every probed port is used");
	fprintf(out, "%smemory: the capture takes %s of %s (its buffers and pools in whole "
		"pages, EAL's own ~%llu MiB); EAL can have %s (%s)\n", lead,
		bytes_str(m->hp_bytes, t, sizeof(t)),
		v->no_huge ? "its memory (--no-huge)" : m->page >= (1ULL << 30) ? "1 GiB pages" :
		m->page >= (2ULL << 20) ? "2 MiB pages" : "hugepages",
		IBV_EAL_BASE >> 20, bytes_str(avail, b, sizeof(b)),
		v->no_huge ? (v->mem_mb ? "-m with --no-huge" : "--no-huge, EAL's default -m") :
			     v->legacy_mem ? "hugepages, --legacy-mem" :
			     "free hugepages of the sizes EAL can use");
}

int
ibv_host_check(const struct ibv_config *c, const struct ibv_eal_view *v, FILE *out,
	       const char *lead, char *err, size_t len)
{
	struct ibv_mem_need m;
	struct ibv_hp_info h;
	uint64_t avail = 0;
	int rc;

	if ((rc = ibv_config_check_files(c, err, len)) != 0 ||
	    (rc = check_writers(c, err, len)) != 0 || (rc = check_ifaces(c, err, len)) != 0)
		return rc;
	if (v->bad[0] != '\0')
		return err_set(err, len, -EINVAL, "EAL arguments: %s", v->bad);
	if ((rc = check_lcores(c, v, err, len)) != 0)
		return rc;
	/* what EAL's own parse refused, once the lcores are known to exist */
	if (v->refused[0] != '\0')
		return err_set(err, len, -EINVAL, "EAL arguments: %s", v->refused);
	mem_measure(c, v, &m, &h);
	rc = ibv_mem_fit(c, &m, v, &h, &avail, err, len);
	rc = retain_first(c, &m, avail, rc, err, len);
	if (out != NULL)
		mem_statement(c, v, &m, avail, out, lead);
	return rc;
}
