/* SPDX-License-Identifier: BSD-3-Clause */
/* libibvcap's side of the capture's payload-memory contract
 * (app/dpdk-ibvcap/payload.h): which payload memories another process can
 * read (host: inline in the antenna memzones; mbuf: offsets that are
 * addresses in hugepage memory, the same in every process; both read with
 * a NULL base through antbuf_payload_of), and the refusal of GPU memory. */

#include <errno.h>

#include "consumer.h"
#include "err.h"

int
cons_payload_check(const struct shm_ctl *ctl, const char *instance, char *err, size_t len)
{
	switch (ctl->payload_mem) {
	case IBV_PAYLOAD_HOST:
	case IBV_PAYLOAD_MBUF:
		return 0;
	case IBV_PAYLOAD_GPU:
		return err_set(err, len, -ENOTSUP, "instance '%s': its antenna payload is in GPU "
			       "memory, which another process cannot map for the CPU (payload mode "
			       "gpu-copy or gpu-split): read it inside the capture instead",
			       instance);
	default:
		return err_set(err, len, -EPROTO, "instance '%s': payload memory kind %u is not one "
			       "this library reads (host 0, mbuf 2)", instance, ctl->payload_mem);
	}
}
