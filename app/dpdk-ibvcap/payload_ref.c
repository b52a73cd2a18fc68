/* SPDX-License-Identifier: BSD-3-Clause */
/* What the payload modes share: the pools they made, the rings' reference
 * tables and the zeroed frame that gaps point at. */

#include <errno.h>
#include <stdio.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "err.h"
#include "payload.h"

void
ibv_pl_pool_keep(struct ibv_pl *pl, struct rte_mempool *mp)
{
	if (mp != NULL && pl->npools < IBV_PL_MAX_POOLS)
		pl->pools[pl->npools++] = mp;
}

/* A slot of an indexed ring is reused: the mbuf that held its payload (the
 * whole packet, or its payload segment) goes back to its pool. */
static void
release_mbuf(void *ctx, uintptr_t ref)
{
	(void)ctx;
	rte_pktmbuf_free((struct rte_mbuf *)ref);
}

int
ibv_pl_refs_attach(struct ibv_pl *pl, unsigned int a, struct antbuf_prod *p,
		   uint64_t zero_off, const char *what, char *err, size_t len)
{
	const struct antbuf_geom *g = &p->b->g;
	size_t nref = (size_t)g->nrows * g->nslots;

	pl->refs[a] = rte_zmalloc("ibvcap_refs", nref * sizeof(uintptr_t), 0);
	if (pl->refs[a] == NULL)
		return err_set(err, len, -EINVAL, "antenna %u: out of memory for %zu %s references",
			       a, nref, what);
	antbuf_set_indexed(p, zero_off, pl->refs[a], release_mbuf, NULL);
	return 0;
}

int
ibv_pl_zero_create(struct ibv_pl *pl, const char *opt, char *err, size_t len)
{
	pl->zero = rte_zmalloc("ibvcap_zero", pl->conf.data_bytes, ANTBUF_PAGE);
	if (pl->zero == NULL)
		return err_set(err, len, -EINVAL, "%s: out of memory for a zeroed frame", opt);
	return 0;
}
