/* SPDX-License-Identifier: BSD-3-Clause */
/* --consumer: the capture's side. Its rings, their payload bases from the
 * payload-memory layer and the antennas' names go to plugin_run.c. */

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
		 const struct ibv_rings *rings, const struct ibv_pl *pl, char *err, size_t len)
{
	struct ibv_plugin_src src = {
		.spec = c->consumer,
		.instance = rings->instance,
		.ctl = rings->ctl,
		.nant = c->layout.nant,
		.gpu_dev = c->gpu,
	};
	unsigned int a;

	*out = NULL;
	if (c->consumer[0] == '\0')
		return 0;
	for (a = 0; a < src.nant && a < SHM_MAX_ANT; a++) {
		src.b[a] = rings->b[a];
		src.base[a] = payload_base(rings, pl, a);
		src.ant_name[a] = c->layout.ant_name[a];
	}
	return ibv_plugin_open(&src, out, err, len);
}
