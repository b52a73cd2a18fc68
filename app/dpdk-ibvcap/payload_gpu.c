/* SPDX-License-Identifier: BSD-3-Clause */
/* The GPU modes (--gpu): gpu-copy, the payload copied by the rx lcores into
 * gpudev memory through its CPU mapping, one region per antenna; gpu-split,
 * buffer split with the payload pool in one gpudev region that the ports
 * write into. Both register and DMA-map their memory for every port.
 * Untested on hardware here (no GPU, no gpudev driver in Debian 12): what
 * runs here are the capability checks and their error paths. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_mbuf.h>

#include "err.h"
#include "gpumem.h"
#include "payload.h"

int
ibv_pl_gpu_setup(struct ibv_pl *pl, char *err, size_t len)
{
	int16_t dev = (int16_t)pl->conf.gpu;
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
	pl->gpu_page = info.page_size ? info.page_size : 65536;
	return 0;
}

/* The GPU's page (alignment of allocations and registrations). */
static size_t
gpu_page(const struct ibv_pl *pl)
{
	return pl->gpu_page ? pl->gpu_page : 65536;
}

/* ---- gpu-copy ----------------------------------------------------------- */

/* Register a GPU range and DMA-map it for every port (a port can write
 * into it); vdevs cannot map and are fed by the rx copy. */
static int
dma_map_ports(struct ibv_pl *pl, void *ptr, size_t size, char *err, size_t len)
{
	unsigned int unmapped;
	char why[256];

	if (gpumem_register(ptr, size, pl->gpu_page, pl->port_id, pl->nport, &unmapped, why,
			    sizeof(why)) != 0)
		return err_set(err, len, -EINVAL, "--gpu: %s", why);
	if (unmapped)
		printf("dpdk-ibvcap: --gpu: %u port%s cannot DMA-map GPU memory: payload "
		       "reaches it by CPU copy\n", unmapped, unmapped == 1 ? "" : "s");
	return 0;
}

static int
gpu_copy_ring_attach(struct ibv_pl *pl, unsigned int a, struct antbuf_prod *p, char *err,
		     size_t len)
{
	int16_t dev = (int16_t)pl->conf.gpu;
	size_t size = antbuf_payload_size(&p->b->g);
	void *d, *cpu;

	d = rte_gpu_mem_alloc(dev, size, ANTBUF_PAGE);
	if (d == NULL)
		return err_set(err, len, -rte_errno,
			       "--gpu %d: %zu bytes of GPU memory for antenna %u: %s", dev, size,
			       a, rte_strerror(rte_errno));
	pl->gpu_ptr[a] = d;
	pl->gpu_size = size;
	/* the rx copy and the writers need a CPU mapping: never read GPU
	 * memory through a pointer that is not mapped for it */
	cpu = rte_gpu_mem_cpu_map(dev, size, d);
	if (cpu == NULL)
		return err_set(err, len, -rte_errno,
			       "--gpu %d: GPU memory cannot be mapped for the CPU (%s): the rx "
			       "lcores could not place payload (needs nvidia-peermem/gdrcopy)",
			       dev, rte_strerror(rte_errno));
	pl->payload[a] = cpu;
	p->payload = cpu;
	return dma_map_ports(pl, d, size, err, len);
}

static void
gpu_copy_rings_free(struct ibv_pl *pl)
{
	int16_t dev = (int16_t)pl->conf.gpu;
	unsigned int a;

	for (a = 0; a < SHM_MAX_ANT; a++) {
		if (pl->gpu_ptr[a] == NULL)
			continue;
		gpumem_unregister(pl->gpu_ptr[a], pl->gpu_size, pl->port_id, pl->nport);
		if (pl->payload[a] != NULL)
			rte_gpu_mem_cpu_unmap(dev, pl->gpu_ptr[a]);
		rte_gpu_mem_free(dev, pl->gpu_ptr[a]);
		pl->gpu_ptr[a] = NULL;
		pl->payload[a] = NULL;
	}
}

const struct ibv_pl_ops ibv_pl_gpu_copy = {
	.name = "gpu-copy",
	.where = "GPU memory",
	.mem = IBV_PAYLOAD_GPU,
	.inline_payload = false,
	.cpu_packets = true,
	.head_segs = 1,
	.port_rx = ibv_pl_whole_rx,
	.ring_attach = gpu_copy_ring_attach,
	.placer = IBV_PL_PLACE_COPY,
	.frame_payload = ibv_pl_whole_payload,
	.rings_free = gpu_copy_rings_free,
};

/* ---- gpu-split ---------------------------------------------------------- */

static int
gpu_split_create(struct ibv_pl *pl, char *err, size_t len)
{
	int16_t dev = (int16_t)pl->conf.gpu;
	uint32_t room = ibv_pl_split_payload_room(pl);
	uint64_t held, inflight, n;
	unsigned int unmapped;
	char why[256];

	ibv_pl_split_counts(pl, &held, &inflight);
	n = held + inflight;
	if (n > UINT32_MAX)
		return err_set(err, len, -EINVAL, "--gpu: %" PRIu64 " payload buffers: over 2^32, "
			       "use a smaller --ring", n);
	if (gpumem_pool_layout((uint32_t)n, room, pl->conf.data_bytes, gpu_page(pl), &pl->l, why,
			       sizeof(why)) != 0)
		return err_set(err, len, -EINVAL, "--gpu: %s", why);
	printf("dpdk-ibvcap: --gpu: payload pool: %u buffers x %u bytes (%" PRIu64 " ring slots "
	       "+ %" PRIu64 " in flight) = %.1f MiB of GPU memory\n", pl->l.n, pl->l.elt_size,
	       held, inflight, (double)pl->l.total / 1048576.0);

	pl->gpu = rte_gpu_mem_alloc(dev, pl->l.total, gpu_page(pl));
	if (pl->gpu == NULL)
		return err_set(err, len, -rte_errno, "--gpu %d: %zu bytes of GPU memory for the "
			       "payload pool: %s (a smaller --ring needs less)", dev, pl->l.total,
			       rte_strerror(rte_errno));
	/* writers and the zero frame need a CPU mapping: never read GPU
	 * memory through a pointer that is not mapped for it */
	pl->cpu = rte_gpu_mem_cpu_map(dev, pl->l.total, pl->gpu);
	if (pl->cpu == NULL)
		return err_set(err, len, -rte_errno,
			       "--gpu %d: GPU memory cannot be mapped for the CPU (%s): writers "
			       "could not read payload (needs nvidia-peermem/gdrcopy)",
			       dev, rte_strerror(rte_errno));
	memset(pl->cpu + pl->l.zero_off, 0, pl->l.total - pl->l.zero_off);
	if (gpumem_register(pl->gpu, pl->l.total, gpu_page(pl), pl->port_id, pl->nport,
			    &unmapped, why, sizeof(why)) != 0)
		return err_set(err, len, -EINVAL, "--gpu: %s", why);
	pl->registered = true;
	if (unmapped)
		return err_set(err, len, -EINVAL, "--gpu: %u port%s cannot DMA-map GPU memory: "
			       "buffer split needs every port to (use --gpu-split off)", unmapped,
			       unmapped == 1 ? "" : "s");
	pl->pay_mp = gpumem_pool_create("ibvcap_gpu_pay", pl->gpu, &pl->l, (int)rte_socket_id(),
					why, sizeof(why));
	if (pl->pay_mp == NULL)
		return err_set(err, len, -EINVAL, "--gpu: %s", why);
	ibv_pl_pool_keep(pl, pl->pay_mp);
	return ibv_pl_split_hdr_pool(pl, inflight, err, len);
}

static int
gpu_split_ring_attach(struct ibv_pl *pl, unsigned int a, struct antbuf_prod *p, char *err,
		      size_t len)
{
	/* offsets are from the region; gaps point at its zeroed frame */
	if (ibv_pl_refs_attach(pl, a, p, pl->l.zero_off, "payload", err, len) != 0)
		return -1;
	pl->payload[a] = pl->cpu;
	p->payload = pl->cpu;
	return 0;
}

/* No CPU view of a packet's payload on the rx lcore (quick look is off). */
static const uint8_t *
gpu_split_payload(const struct rte_mbuf *m, const uint8_t *data, uint32_t cap, uint32_t off,
		  uint32_t len)
{
	(void)m;
	(void)data;
	(void)cap;
	(void)off;
	(void)len;
	return NULL;
}

/* After the pools: the GPU region they were in. */
static void
gpu_split_free(struct ibv_pl *pl)
{
	if (pl->registered) {
		gpumem_unregister(pl->gpu, pl->l.total, pl->port_id, pl->nport);
		pl->registered = false;
	}
	if (pl->cpu != NULL)
		rte_gpu_mem_cpu_unmap((int16_t)pl->conf.gpu, pl->gpu);
	pl->cpu = NULL;
	if (pl->gpu != NULL)
		rte_gpu_mem_free((int16_t)pl->conf.gpu, pl->gpu);
	pl->gpu = NULL;
}

const struct ibv_pl_ops ibv_pl_gpu_split = {
	.name = "gpu-split",
	.where = "GPU memory",
	.mem = IBV_PAYLOAD_GPU,
	.inline_payload = false,
	.cpu_packets = false,
	.head_segs = UINT16_MAX,
	.create = gpu_split_create,
	.port_rx = ibv_pl_split_rx,
	.ring_attach = gpu_split_ring_attach,
	.placer = IBV_PL_PLACE_SPLIT,
	.frame_payload = gpu_split_payload,
	.free = gpu_split_free,
};
