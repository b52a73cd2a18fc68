/* SPDX-License-Identifier: BSD-3-Clause */
/* The antenna buffers' geometry and the mbufs a configuration asks for (rows, window, slots, bytes). */

#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf_core.h>

#include "antbuf.h"
#include "config.h"
#include "pkt.h"

uint64_t
ibv_retain_rows(const struct ibv_config *c)
{
	double r = (double)c->retain_ns / 1e9 * c->frame_rate;
	uint64_t n = (uint64_t)r;

	return n + ((double)n < r - 1e-9);
}

void
ibv_buffer_rows(const struct ibv_config *c, uint32_t *rows, uint32_t *window)
{
	uint64_t r = c->ring_ns ? (uint64_t)((double)c->ring_ns / 1e9 * c->frame_rate + 0.5) :
				  c->ring_frames;
	uint64_t w = c->window_ns ? (uint64_t)((double)c->window_ns / 1e9 * c->frame_rate + 0.5) :
				    c->window_frames;
	uint64_t p = 2;

	if (w < 1)
		w = 1;
	/* a consumer reads the rows up to a ring behind the newest opened,
	 * less the window still open: --retain's rows are those */
	if (c->retain_ns)
		r = ibv_retain_rows(c) + w;
	while (p < r || p < 2 * w)
		p <<= 1;
	*rows = (uint32_t)p;
	*window = (uint32_t)w;
}

void
ibv_buffer_plan(const struct ibv_config *c, struct ibv_buf_plan *p)
{
	struct antbuf_geom g;

	memset(p, 0, sizeof(*p));
	ibv_buffer_rows(c, &p->rows, &p->window);
	p->asked = c->ring_ns ? (uint64_t)((double)c->ring_ns / 1e9 * c->frame_rate + 0.5) :
				c->ring_frames;
	{
		uint64_t r = 2;

		while (r < p->asked)
			r <<= 1;
		p->retain_rows = ibv_retain_rows(c);
		p->retained = c->retain_ns != 0;
		p->grown = !p->retained && p->rows > r; /* the window asked for more */
	}
	p->nslots = ibv_slots(c);
	if (!c->buffers)
		return;
	g.nrows = p->rows;
	g.window = p->window;
	g.nslots = p->nslots;
	g.data_bytes = c->data_bytes;
	p->host_bytes = antbuf_size(&g, c->gpu < 0);
	if (c->gpu >= 0)
		p->gpu_bytes = antbuf_payload_size(&g);
}

unsigned int
ibv_slots(const struct ibv_config *c)
{
	unsigned int n, spare;

	if (c->slots != 0)
		return c->slots;
	n = c->layout.ngroup * c->threads;
	spare = n / 4 > 0 ? n / 4 : 1;
	n += spare;
	return n > ANTBUF_MAX_SLOTS ? ANTBUF_MAX_SLOTS : n;
}

uint32_t
ibv_frame_bytes(const struct ibv_config *c)
{
	return c->mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN + 2 * PKT_VLAN_LEN;
}

uint32_t
ibv_mbuf_room(const struct ibv_config *c)
{
	return c->mbuf_size ? c->mbuf_size :
			      RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL(ibv_frame_bytes(c), 1024);
}

uint32_t
ibv_mbufs_auto(const struct ibv_config *c, unsigned int nq, unsigned int nlcore)
{
	return nq * c->rx_desc + nlcore * (c->burst + 512u) + 2048;
}
