/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory a configuration asks EAL for, and whether it fits what EAL will have (pure: no host reads). */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mbuf_core.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "antbuf.h"
#include "err.h"
#include "host.h"
#include "parse.h"
#include "shm.h"
#include "writer.h"

#define MiB (1024ULL * 1024)
/* EAL's memory with --no-huge and no -m (MEMSIZE_IF_NO_HUGE_PAGE) */
#define NO_HUGE_DEFAULT_MB 64ULL
/* what rte_memzone_reserve_aligned adds to a buffer: the malloc element's
 * header and trailer and the alignment (generous) */
#define MZ_OVERHEAD (2 * ANTBUF_PAGE)

/* Bytes a size takes of memory in pages of `page`: a page or more in
 * whole pages (EAL's heap grows by the pages an allocation needs), less
 * packed beside others. */
static uint64_t
in_pages(uint64_t bytes, uint64_t page)
{
	if (page == 0 || bytes < page)
		return bytes;
	return (bytes + MZ_OVERHEAD + page - 1) / page * page;
}

/* One rte_pktmbuf_pool_create(n, cache 256, priv 0, room) in pages of
 * `page`: its objects (header, mbuf, room, cache-line padding; none across
 * a page boundary), its ring, and its header with the per-lcore caches. */
static uint64_t
pool_bytes(uint64_t n, uint32_t room, uint64_t page)
{
	struct rte_mempool_objsz sz;
	uint64_t obj = rte_mempool_calc_obj_size(sizeof(struct rte_mbuf) + room, 0, &sz);
	uint64_t objs, hdr, ring;

	if (page >= obj && page > 0) {
		uint64_t per = page / obj;

		objs = (n + per - 1) / per * page;
	} else {
		objs = n * obj;
	}
	/* the pool's ring: a power of two above n (rte_mempool's ring ops) */
	ring = rte_ring_get_memsize(rte_align32pow2((uint32_t)(n < (1u << 30) ? n + 1 : 1u << 30)));
	hdr = sizeof(struct rte_mempool) + RTE_MAX_LCORE * sizeof(struct rte_mempool_cache) +
	      sizeof(struct rte_pktmbuf_pool_private);
	return objs + in_pages(ring, page) + hdr;
}

void
ibv_mem_need(const struct ibv_config *c, const struct ibv_eal_view *v, struct ibv_mem_need *m)
{
	struct ibv_buf_plan p;
	uint64_t nb, slots = 0;

	memset(m, 0, sizeof(*m));
	ibv_buffer_plan(c, &p);
	if (c->buffers) {
		struct antbuf_geom g = { .nrows = p.rows, .window = p.window, .nslots = p.nslots,
					 .data_bytes = c->data_bytes };

		m->nant = c->layout.nant;
		/* --zero-copy: rings of references, the frames in the mbufs */
		m->ant_bytes = c->zero_copy && c->gpu < 0 ? antbuf_size(&g, false) : p.host_bytes;
		m->gpu_bytes = p.gpu_bytes;
		m->ctl_bytes = sizeof(struct shm_ctl) + sizeof(struct wr_sched);
		if (c->zero_copy) {
			slots = (uint64_t)p.rows * p.nslots;
			m->refs_bytes = slots * sizeof(uintptr_t);
			slots *= m->nant;
		}
	}
	/* mbuf pools: the ports named, else one, one queue each (a port may
	 * have more: the start says); with --gpu buffer split replaces them */
	m->nport = c->nport ? c->nport : 1;
	if (c->gpu < 0) {
		nb = c->nb_mbufs ? c->nb_mbufs : ibv_mbufs_auto(c, 1, v->nlcore ? v->nlcore : 1);
		/* --zero-copy: one pool, every ring slot besides the ports' */
		m->nmbuf = c->zero_copy ? slots + nb * m->nport : nb * m->nport;
		m->pool_bytes = c->zero_copy ? pool_bytes(m->nmbuf, ibv_mbuf_room(c), 0) :
				m->nport * pool_bytes(nb, ibv_mbuf_room(c), 0);
	}
	m->total = (uint64_t)m->nant * (m->ant_bytes + MZ_OVERHEAD + m->refs_bytes) +
		   m->ctl_bytes + m->pool_bytes;
	ibv_mem_pages(c, m, 0);
}

void
ibv_mem_pages(const struct ibv_config *c, struct ibv_mem_need *m, uint64_t page)
{
	uint64_t t = IBV_EAL_BASE + m->ctl_bytes, nb;

	m->page = page;
	t += (uint64_t)m->nant * (in_pages(m->ant_bytes, page) + in_pages(m->refs_bytes, page));
	if (c->gpu < 0) {
		if (c->zero_copy) {
			t += pool_bytes(m->nmbuf, ibv_mbuf_room(c), page);
		} else {
			nb = m->nmbuf / (m->nport ? m->nport : 1);
			t += m->nport * pool_bytes(nb, ibv_mbuf_room(c), page);
		}
	}
	m->hp_bytes = page ? (t + page - 1) / page * page : t;
}

/* Bytes one memory segment list holds with pages of this size. */
static uint64_t
list_bytes(uint64_t page)
{
	uint64_t a = (uint64_t)RTE_MAX_MEMSEG_PER_LIST * page,
		 b = (uint64_t)RTE_MAX_MEM_MB_PER_LIST * MiB;

	return a < b ? a : b;
}

static const char *
page_name(uint64_t page, char *buf, size_t len)
{
	if (page >= (1ULL << 30))
		snprintf(buf, len, "%" PRIu64 " GiB", page >> 30);
	else if (page >= MiB)
		snprintf(buf, len, "%" PRIu64 " MiB", page >> 20);
	else
		snprintf(buf, len, "%" PRIu64 " KiB", page >> 10);
	return buf;
}

const char *
ibv_human(uint64_t bytes, char *buf, size_t len)
{
	char full[64], *p;

	bytes_str(bytes, full, sizeof(full));
	p = strchr(full, '(');
	if (p != NULL) {
		snprintf(buf, len, "%s", p + 1);
		buf[strcspn(buf, ")")] = '\0';
	} else {
		snprintf(buf, len, "%s", full);
	}
	return buf;
}

/* "1000 x 2 MiB free in /dev/hugepages" (sizes with no pages left out) */
static void
pages_str(const struct ibv_hp_info *h, const char *huge_dir, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;
	char pn[32];

	buf[0] = '\0';
	for (i = 0; i < h->n && off < len; i++) {
		const struct ibv_hp_size *s = &h->s[i];

		if (s->total == 0 && s->free == 0)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%" PRIu64 " x %s free%s%s",
					off ? ", " : "", s->free, page_name(s->page, pn, sizeof(pn)),
					s->usable ? (s->dir[0] ? " in " : " (in memory)") :
					huge_dir[0] ? " but --huge-dir is on no hugetlbfs mount of "
						      "them: " : " but no hugetlbfs mounted for them",
					s->usable ? s->dir : huge_dir);
	}
	if (off == 0)
		snprintf(buf, len, "no hugepages reserved");
}

/* What to lower, with the values in force. */
static void
lower_str(const struct ibv_config *c, char *buf, size_t len)
{
	struct ibv_buf_plan p;

	ibv_buffer_plan(c, &p);
	if (p.retained) {
		snprintf(buf, len, "lower --retain (%.9g s: %" PRIu64 " frames at --frame-rate "
			 "%.6g, a ring of %u frames), --reorder-window (%u frames) or --antennas "
			 "(%u)", (double)c->retain_ns / 1e9, p.retain_rows, c->frame_rate, p.rows,
			 p.window, c->layout.nant);
		return;
	}
	snprintf(buf, len, "lower --ring (%u frames%s), --reorder-window (%u frames; the ring "
		 "is at least twice it) or --antennas (%u)", p.rows,
		 p.grown ? ", grown for the reorder window" : "", p.window, c->layout.nant);
}

/* --no-huge: the buffers and pools within -m (EAL's 64 MiB without it). */
static int
fit_no_huge(const struct ibv_config *c, const struct ibv_mem_need *m,
	    const struct ibv_eal_view *v, uint64_t *avail, char *err, size_t len)
{
	char need[64], have[64], per[64], low[300];
	uint64_t mb = v->mem_mb ? v->mem_mb : NO_HUGE_DEFAULT_MB;

	if (avail != NULL)
		*avail = mb * MiB;
	if (m->total <= mb * MiB)
		return 0;
	lower_str(c, low, sizeof(low));
	return err_set(err, len, -ENOMEM, "memory: antenna buffers %u x %s and mbuf pools of "
		    "at least %s need %s, more than the %" PRIu64 " MiB EAL has with "
		    "--no-huge%s: %s, or give a larger -m", m->nant,
		    ibv_human(m->ant_bytes, per, sizeof(per)),
		    ibv_human(m->pool_bytes, have, sizeof(have)),
		    ibv_human(m->total, need, sizeof(need)), mb,
		    v->mem_mb ? " -m" : " (no -m)", low);
}

/* What the hugepages offer EAL: the bytes (each size capped by EAL's
 * per-type limit, then by --legacy-mem's -m/--socket-mem or
 * --socket-limit), the largest segment list and its page size, and how
 * many antenna buffers of `ant` bytes fit, each in one list. */
struct hp_offer {
	uint64_t total, maxlist, maxpage, fits;
};

static void
hp_offer(const struct ibv_eal_view *v, const struct ibv_hp_info *h, uint64_t ant,
	 struct hp_offer *o)
{
	uint64_t type_cap = (uint64_t)RTE_MAX_MEM_MB_PER_TYPE * MiB * h->nsocket;
	unsigned int i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < h->n; i++) {
		const struct ibv_hp_size *s = &h->s[i];
		uint64_t b = s->free * s->page;

		if (!s->usable || s->total + s->free == 0)
			continue;
		if (b > type_cap)
			b = type_cap;
		o->total += b;
		if (list_bytes(s->page) > o->maxlist) {
			o->maxlist = list_bytes(s->page);
			o->maxpage = s->page;
		}
		/* a buffer lies in pages of one size, in one segment list */
		if (ant <= list_bytes(s->page))
			o->fits += b / ant;
	}
	if (v->legacy_mem && (v->mem_mb || v->socket_mem_mb)) {
		uint64_t pre = (v->mem_mb ? v->mem_mb : v->socket_mem_mb) * MiB;

		if (pre < o->total)
			o->total = pre;
	} else if (v->socket_limit_mb && v->socket_limit_mb * MiB < o->total) {
		o->total = v->socket_limit_mb * MiB;
	}
}

/* The refusal when the hugepages are too few: what is needed, what EAL
 * can have, and the pages other DPDK processes hold. */
static int
too_few_pages(const struct ibv_config *c, const struct ibv_mem_need *m,
	      const struct ibv_eal_view *v, const struct ibv_hp_info *h, uint64_t total,
	      const char *pages, char *err, size_t len)
{
	char need[64], have[64], per[64], low[300], tot[64], held[300] = "";
	uint64_t heldb = 0;
	unsigned int i;

	lower_str(c, low, sizeof(low));
	for (i = 0; i < h->n; i++)
		heldb += h->s[i].usable ? h->s[i].held * h->s[i].page : 0;
	if (heldb > 0)
		/* --check-config while the capture to be replaced still runs */
		snprintf(held, sizeof(held), "; %s more are held by running DPDK processes "
			 "(--file-prefix %s): if this replaces one, give its --file-prefix",
			 ibv_human(heldb, need, sizeof(need)), h->others);
	return err_set(err, len, -ENOMEM, "memory: antenna buffers %u x %s and mbuf pools of at "
		    "least %s need %s, more than the %s of hugepages EAL can have (%s%s%s): %s, or "
		    "reserve more hugepages", m->nant, ibv_human(m->ant_bytes, per, sizeof(per)),
		    ibv_human(m->pool_bytes, have, sizeof(have)), ibv_human(m->total, need, sizeof(need)),
		    ibv_human(total, tot, sizeof(tot)), pages,
		    v->socket_limit_mb ? ", --socket-limit" : v->legacy_mem ? ", --legacy-mem" : "",
		    held, low);
}

int
ibv_mem_fit(const struct ibv_config *c, const struct ibv_mem_need *m,
	    const struct ibv_eal_view *v, const struct ibv_hp_info *h, uint64_t *avail,
	    char *err, size_t len)
{
	char have[64], per[64], low[300], pages[PATH_MAX + 300], pn[64];
	uint64_t asked = v->mem_mb ? v->mem_mb : v->socket_mem_mb;
	struct hp_offer o;

	if (v->no_huge)
		return fit_no_huge(c, m, v, avail, err, len);
	if (avail != NULL)
		*avail = 0;
	if (h->huge_dir_bad)
		return err_set(err, len, -ENOENT, "--huge-dir %s: not a directory here: EAL would "
			    "find no hugepages", v->huge_dir);
	pages_str(h, v->huge_dir, pages, sizeof(pages));
	hp_offer(v, h, m->ant_bytes + MZ_OVERHEAD, &o);
	if (avail != NULL)
		*avail = o.total;
	if (o.total == 0 || o.maxlist == 0)
		return err_set(err, len, -ENOMEM, "memory: no hugepages EAL could use (%s): reserve "
			    "and mount some (scripts/setup.sh), or run without them: --no-huge -m "
			    "MiB (EAL arguments, before '--' or in [eal] args)", pages);
	if (asked * MiB > o.total)
		return err_set(err, len, -ENOMEM, "%s %" PRIu64 ": EAL takes that many MiB of "
			    "hugepages at start, only %s can be had (%s): give less, or reserve "
			    "more hugepages", v->mem_mb ? "-m" : "--socket-mem", asked,
			    ibv_human(o.total, have, sizeof(have)), pages);
	if (m->nant > 0 && m->ant_bytes + MZ_OVERHEAD > o.maxlist) {
		lower_str(c, low, sizeof(low));
		return err_set(err, len, -ENOMEM, "memory: an antenna buffer of %s must lie in one of "
			    "EAL's memory segment lists, at most %s with %s pages (%u pages or %u "
			    "MiB a list): %s", ibv_human(m->ant_bytes, per, sizeof(per)),
			    ibv_human(o.maxlist, have, sizeof(have)),
			    page_name(o.maxpage, pn, sizeof(pn)), RTE_MAX_MEMSEG_PER_LIST,
			    RTE_MAX_MEM_MB_PER_LIST, low);
	}
	if (m->total <= o.total && o.fits >= m->nant)
		return 0;
	return too_few_pages(c, m, v, h, o.total, pages, err, len);
}
