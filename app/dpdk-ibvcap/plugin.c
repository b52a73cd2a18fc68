/* SPDX-License-Identifier: BSD-3-Clause */
/* --consumer: the capture's side. Its rings, their payload bases from the
 * payload-memory layer and the antennas' names go to plugin_run.c. */

#include <string.h>

#include "plugin.h"

/* Antenna a's payload base for the views: the device address with the
 * payload in GPU memory (gpu-copy: its own memory; gpu-split: the pool's
 * region), else the CPU view (NULL: inline, or addresses). */
static uint8_t *
payload_base(const struct ibv_rings *rings, const struct ibv_pl *pl, unsigned int a)
{
	if (rings->ctl->payload_mem == IBV_PAYLOAD_GPU)
		return pl->gpu_ptr[a] != NULL ? pl->gpu_ptr[a] : pl->gpu;
	return ibv_pl_base(pl, a);
}

int
ibv_plugin_setup(struct ibv_plugin **out, const struct ibv_config *c,
		 const struct ibv_rings *rings, const struct ibv_pl *pl,
		 const struct ibv_writers *writers, struct wr_sched *sched, char *err,
		 size_t len)
{
	static struct ibv_plugin_src src; /* two lcore tables: off the stack */
	unsigned int a, i, l;

	*out = NULL;
	if (c->nconsumer == 0)
		return 0; /* also: no rings (--no-buffers) */
	memset(&src, 0, sizeof(src));
	src.instance = rings->instance;
	src.ctl = rings->ctl;
	src.nant = c->layout.nant;
	src.gpu_dev = c->gpu;
	src.sched = sched;
	for (a = 0; a < src.nant && a < SHM_MAX_ANT; a++) {
		src.b[a] = rings->b[a];
		src.base[a] = payload_base(rings, pl, a);
		src.ant_name[a] = c->layout.ant_name[a];
	}
	for (l = 0; l < RTE_MAX_LCORE; l++)
		src.writer_lcore[l] = ibv_is_writer_lcore(writers, l);
	for (i = 0; i < c->nmap; i++)
		if (c->map[i].lcore < RTE_MAX_LCORE)
			src.rx_lcore[c->map[i].lcore] = true;
	for (i = 0; i < c->nconsumer; i++) {
		src.spec = c->consumer[i];
		if (ibv_plugin_open(&src, out, err, len) != 0)
			return -1;
	}
	return 0;
}
