/* SPDX-License-Identifier: BSD-3-Clause */
/* Finding a capture instance's shared memory through EAL memzones. */

#ifndef IBV_SHM_EAL_H
#define IBV_SHM_EAL_H

#include "shm.h"

/** The instance name of this EAL process (from its --file-prefix). */
void ibv_shm_eal_instance(char out[IBV_SHM_NAMELEN]);

/** A secondary's view of the primary's buffers. */
struct ibv_shm_view {
	char instance[IBV_SHM_NAMELEN];
	struct ibv_shm_ctl *ctl;
	unsigned int nant;
	struct antbuf *b[IBV_SHM_MAX_ANT];
};

/**
 * Look up the control block and every antenna buffer, checking versions
 * and layouts. @return 0, or a negative errno with the reason in err.
 */
int ibv_shm_attach(struct ibv_shm_view *v, char *err, size_t len);

#endif /* IBV_SHM_EAL_H */
