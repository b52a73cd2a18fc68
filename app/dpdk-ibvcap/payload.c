/* SPDX-License-Identifier: BSD-3-Clause */
/* The payload-memory layer's entry points: the mode chosen once, then asked. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mempool.h>

#include "err.h"
#include "payload.h"

int
ibv_pl_plan(struct ibv_pl *pl, const struct ibv_config *c, const uint16_t *port_ids,
	    const char *const *port_names, unsigned int nport, char *err, size_t len)
{
	uint32_t rows, window;

	ibv_buffer_rows(c, &rows, &window);
	pl->conf = (struct ibv_pl_conf){
		.gpu = c->gpu, .zero_copy = c->zero_copy,
		.gpu_split = c->gpu_split, .zc_split = c->zc_split,
		.mtu = c->mtu, .frame_bytes = ibv_frame_bytes(c), .mbuf_room = ibv_mbuf_room(c),
		.data_bytes = c->data_bytes,
		.ring_slots = (uint64_t)c->layout.nant * rows * ibv_slots(c),
		.queues = ibv_queues_needed(c), .rx_desc = c->rx_desc, .burst = c->burst,
	};
	pl->nport = nport;
	memcpy(pl->port_id, port_ids, nport * sizeof(*port_ids));
	if (ibv_pl_split_plan(pl, port_ids, port_names, err, len) != 0)
		return -1;
	if (c->gpu >= 0) {
		/* the GPU itself, before any memory is taken */
		if (ibv_pl_gpu_setup(pl, err, len) != 0)
			return -1;
		pl->ops = pl->split ? &ibv_pl_gpu_split : &ibv_pl_gpu_copy;
	} else if (c->zero_copy) {
		pl->ops = pl->split ? &ibv_pl_zero_copy_split : &ibv_pl_zero_copy;
	} else {
		pl->ops = &ibv_pl_copy;
	}
	return 0;
}

int
ibv_pl_create(struct ibv_pl *pl, char *err, size_t len)
{
	return pl->ops->create != NULL ? pl->ops->create(pl, err, len) : 0;
}

int
ibv_pl_port_rx(struct ibv_pl *pl, const struct ibv_pl_port *pp, struct ibv_pl_rx *rx,
	       char *err, size_t len)
{
	memset(rx, 0, sizeof(*rx));
	return pl->ops->port_rx(pl, pp, rx, err, len);
}

int
ibv_pl_ring_attach(struct ibv_pl *pl, unsigned int a, struct antbuf_prod *p, char *err,
		   size_t len)
{
	return pl->ops->ring_attach != NULL ? pl->ops->ring_attach(pl, a, p, err, len) : 0;
}

void
ibv_pl_rings_release(struct ibv_pl *pl, struct antbuf_prod *prod, unsigned int nant)
{
	unsigned int a;

	for (a = 0; a < SHM_MAX_ANT; a++) {
		if (pl->refs[a] == NULL)
			continue;
		/* no reader left: what the ring still holds goes back */
		if (a < nant && prod[a].b != NULL)
			antbuf_release_all(&prod[a]);
		rte_free(pl->refs[a]);
		pl->refs[a] = NULL;
	}
	if (pl->ops != NULL && pl->ops->rings_free != NULL)
		pl->ops->rings_free(pl);
	rte_free(pl->zero);
	pl->zero = NULL;
}

void
ibv_pl_free(struct ibv_pl *pl, bool keep_memory)
{
	unsigned int i;

	if (keep_memory)
		return; /* a secondary lingers: left to the process exit */
	for (i = 0; i < pl->npools; i++)
		rte_mempool_free(pl->pools[i]);
	pl->npools = 0;
	pl->zc_pool = NULL;
	pl->hdr_mp = NULL;
	pl->pay_mp = NULL;
	if (pl->ops != NULL && pl->ops->free != NULL)
		pl->ops->free(pl);
}
