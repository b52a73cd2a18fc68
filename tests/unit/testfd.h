/* SPDX-License-Identifier: BSD-3-Clause */
/* A frame descriptor as lib/acct makes one, for tests and benchmarks that
 * place frames without going through accounting. */

#ifndef TESTS_TESTFD_H
#define TESTS_TESTFD_H

#include <string.h>

#include "acct.h"
#include "codif.h"

/** L2-L4 bytes before the CODIF header in test packets. */
#define TEST_L2 42

/**
 * Fill pkt (TEST_L2 + 64 + data_bytes) with zeroed L2-L4 headers, header h
 * and data (NULL: left as is), and fd for it on clock clk: in slot `slot`,
 * timeline segment tseg, flags (CODIF_OUT_*), arrival time arrival.
 */
static inline void
test_fd(struct acct_fd *fd, uint8_t *pkt, const struct codif_hdr *h, const uint8_t *data,
	uint32_t data_bytes, const struct codif_clock *clk, uint16_t slot, uint32_t tseg,
	uint8_t flags, int64_t arrival)
{
	memset(pkt, 0, TEST_L2);
	codif_encode(h, pkt + TEST_L2);
	if (data != NULL)
		memcpy(pkt + TEST_L2 + CODIF_HDR_LEN, data, data_bytes);
	memset(fd, 0, sizeof(*fd));
	fd->pkt = pkt;
	fd->clk = clk;
	if (!codif_clock_index(clk, h->seconds, h->frame, &fd->index))
		fd->index = -1;
	fd->arrival_ns = arrival;
	fd->tseg = tseg;
	fd->dst_ip = 0xEF110001;
	fd->dport = 36001;
	fd->codif_len = CODIF_HDR_LEN + data_bytes;
	fd->wirelen = TEST_L2 + CODIF_HDR_LEN + data_bytes;
	fd->codif_off = TEST_L2;
	fd->ant = 0;
	fd->stream = (int16_t)slot;
	fd->slot = slot;
	fd->cls = CODIF_SEQ_IN_ORDER;
	fd->flags = (uint8_t)(flags | (h->invalid ? ACCT_FD_INVALID : 0));
}

#endif
