/* SPDX-License-Identifier: BSD-3-Clause */
/* --gpu: antenna payload arrays in gpudev memory, CPU-mapped for the rx
 * copy and the in-primary writers, registered and DMA-mapped for the ports.
 * Untested on hardware here (no GPU, no gpudev driver in Debian 12): what
 * runs here are the capability checks and their error paths. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_gpudev.h>
#include <rte_mbuf.h>

#include "err.h"
#include "gpumem.h"
#include "ibvcap.h"

int
ibv_gpu_setup(struct ibv_app *app, char *err, size_t len)
{
	int16_t dev = (int16_t)app->cfg.gpu;
	struct rte_gpu_info info;
	int16_t n = rte_gpu_count_avail();

	if (n <= 0 || !rte_gpu_is_valid(dev))
		return err_set(err, len, -EINVAL,
			    "--gpu %d: no GPU device %d (rte_gpu_count_avail() = %d): a gpudev "
			    "driver must be loaded (e.g. -d librte_gpu_cuda.so with the CUDA "
			    "driver and a GPU present; Debian 12's DPDK packages none)",
			    dev, dev, n);
	if (rte_gpu_info_get(dev, &info) != 0)
		return err_set(err, len, -rte_errno, "--gpu %d: cannot read device info: %s", dev,
			    rte_strerror(rte_errno));
	printf("dpdk-ibvcap: GPU %d: %s, %zu MiB, page %zu bytes\n", dev,
	       info.name ? info.name : "?", info.total_memory >> 20, info.page_size);
	app->bufs.gpu_page = info.page_size ? info.page_size : 65536;
	return 0;
}

/* The GPU's page (alignment of allocations and registrations). */
static size_t
bf_page(const struct ibv_app *app)
{
	return app->bufs.gpu_page ? app->bufs.gpu_page : 65536;
}

/* Register a GPU range and DMA-map it for every port (a NIC can write
 * into it); vdevs cannot map and are fed by the rx copy. */
static int
dma_map_ports(struct ibv_app *app, void *ptr, size_t size, char *err, size_t len)
{
	uint16_t ports[IBV_MAX_PORTS];
	unsigned int i, unmapped;
	char why[256];

	for (i = 0; i < app->nport; i++)
		ports[i] = app->port[i].port_id;
	if (gpumem_register(ptr, size, app->bufs.gpu_page, ports, app->nport, &unmapped, why,
			    sizeof(why)) != 0)
		return err_set(err, len, -EINVAL, "--gpu: %s", why);
	if (unmapped)
		printf("dpdk-ibvcap: --gpu: %u port%s cannot DMA-map GPU memory: payload "
		       "reaches it by CPU copy\n", unmapped, unmapped == 1 ? "" : "s");
	return 0;
}

int
ibv_gpu_alloc_payload(struct ibv_app *app, unsigned int a, char *err, size_t len)
{
	struct ibv_bufs *bf = &app->bufs;
	int16_t dev = (int16_t)app->cfg.gpu;
	size_t size = antbuf_payload_size(&bf->geom);
	void *d, *cpu;

	d = rte_gpu_mem_alloc(dev, size, ANTBUF_PAGE);
	if (d == NULL)
		return err_set(err, len, -rte_errno, "--gpu %d: %zu bytes of GPU memory for antenna %u: %s",
			    dev, size, a, rte_strerror(rte_errno));
	bf->gpu_ptr[a] = d;
	/* the rx copy and the writers need a CPU mapping: never read GPU
	 * memory through a pointer that is not mapped for it */
	cpu = rte_gpu_mem_cpu_map(dev, size, d);
	if (cpu == NULL)
		return err_set(err, len, -rte_errno,
			    "--gpu %d: GPU memory cannot be mapped for the CPU (%s): the rx "
			    "lcores could not place payload (needs nvidia-peermem/gdrcopy)",
			    dev, rte_strerror(rte_errno));
	bf->payload[a] = cpu;
	bf->prod[a].payload = cpu;
	return dma_map_ports(app, d, size, err, len);
}

void
ibv_gpu_free(struct ibv_app *app)
{
	struct ibv_bufs *bf = &app->bufs;
	int16_t dev = (int16_t)app->cfg.gpu;
	unsigned int a, i;

	if (app->cfg.gpu < 0)
		return;
	for (a = 0; a < SHM_MAX_ANT; a++) {
		size_t size = antbuf_payload_size(&bf->geom);

		if (bf->gpu_ptr[a] == NULL)
			continue;
		{
			uint16_t ports[IBV_MAX_PORTS];

			for (i = 0; i < app->nport; i++)
				ports[i] = app->port[i].port_id;
			gpumem_unregister(bf->gpu_ptr[a], size, ports, app->nport);
		}
		if (bf->payload[a] != NULL)
			rte_gpu_mem_cpu_unmap(dev, bf->gpu_ptr[a]);
		rte_gpu_mem_free(dev, bf->gpu_ptr[a]);
		bf->gpu_ptr[a] = NULL;
		bf->payload[a] = NULL;
	}
}

/* ---- buffer split into GPU memory (split.c decides) --------------------- */

int
ibv_gpu_split_create(struct ibv_app *app, char *err, size_t len)
{
	const struct ibv_config *c = &app->cfg;
	struct ibv_split *sp = &app->split;
	int16_t dev = (int16_t)c->gpu;
	uint32_t room = ibv_split_payload_room(app);
	uint64_t held, inflight, n;
	uint16_t ports[IBV_MAX_PORTS];
	unsigned int i, unmapped;
	char why[256];

	ibv_split_counts(app, &held, &inflight);
	n = held + inflight;
	if (n > UINT32_MAX)
		return err_set(err, len, -EINVAL, "--gpu: %" PRIu64 " payload buffers: over 2^32, use a "
			    "smaller --ring", n);
	if (gpumem_pool_layout((uint32_t)n, room, c->data_bytes, bf_page(app), &sp->l, why,
			       sizeof(why)) != 0)
		return err_set(err, len, -EINVAL, "--gpu: %s", why);
	printf("dpdk-ibvcap: --gpu: payload pool: %u buffers x %u bytes (%" PRIu64 " ring slots "
	       "+ %" PRIu64 " in flight) = %.1f MiB of GPU memory\n", sp->l.n, sp->l.elt_size,
	       held, inflight, (double)sp->l.total / 1048576.0);

	sp->gpu = rte_gpu_mem_alloc(dev, sp->l.total, bf_page(app));
	if (sp->gpu == NULL)
		return err_set(err, len, -rte_errno, "--gpu %d: %zu bytes of GPU memory for the payload pool: %s "
			    "(a smaller --ring needs less)", dev, sp->l.total,
			    rte_strerror(rte_errno));
	/* writers and the zero frame need a CPU mapping: never read GPU
	 * memory through a pointer that is not mapped for it */
	sp->cpu = rte_gpu_mem_cpu_map(dev, sp->l.total, sp->gpu);
	if (sp->cpu == NULL)
		return err_set(err, len, -rte_errno,
			    "--gpu %d: GPU memory cannot be mapped for the CPU (%s): writers "
			    "could not read payload (needs nvidia-peermem/gdrcopy)",
			    dev, rte_strerror(rte_errno));
	memset(sp->cpu + sp->l.zero_off, 0, sp->l.total - sp->l.zero_off);
	for (i = 0; i < app->nport; i++)
		ports[i] = app->port[i].port_id;
	if (gpumem_register(sp->gpu, sp->l.total, bf_page(app), ports, app->nport, &unmapped, why,
			    sizeof(why)) != 0)
		return err_set(err, len, -EINVAL, "--gpu: %s", why);
	sp->registered = true;
	if (unmapped)
		return err_set(err, len, -EINVAL, "--gpu: %u port%s cannot DMA-map GPU memory: buffer split "
			    "needs every port to (use --gpu-split off)", unmapped,
			    unmapped == 1 ? "" : "s");
	sp->pay_mp = gpumem_pool_create("ibvcap_gpu_pay", sp->gpu, &sp->l, (int)rte_socket_id(),
					why, sizeof(why));
	if (sp->pay_mp == NULL)
		return err_set(err, len, -EINVAL, "--gpu: %s", why);
	return ibv_split_hdr_pool(app, inflight, err, len);
}

void
ibv_gpu_split_free(struct ibv_app *app)
{
	struct ibv_split *sp = &app->split;
	uint16_t ports[IBV_MAX_PORTS];
	unsigned int i;

	if (sp->registered) {
		for (i = 0; i < app->nport; i++)
			ports[i] = app->port[i].port_id;
		gpumem_unregister(sp->gpu, sp->l.total, ports, app->nport);
		sp->registered = false;
	}
	if (sp->cpu != NULL)
		rte_gpu_mem_cpu_unmap((int16_t)app->cfg.gpu, sp->gpu);
	sp->cpu = NULL;
	if (sp->gpu != NULL)
		rte_gpu_mem_free((int16_t)app->cfg.gpu, sp->gpu);
	sp->gpu = NULL;
}
