/* SPDX-License-Identifier: BSD-3-Clause */
/* Finding a capture instance's shared memory through EAL memzones. */

#ifndef SHM_EAL_H
#define SHM_EAL_H

#include "shm.h"

/** The instance name of this EAL process (from its --file-prefix). */
void shm_eal_instance(char out[SHM_NAMELEN]);

/** A secondary's view of the primary's buffers. */
struct shm_view {
	char instance[SHM_NAMELEN];
	struct shm_ctl *ctl;
	unsigned int nant;
	struct antbuf *b[SHM_MAX_ANT];
	void *sched;            /**< the schedule (ctl->sched_zone), or NULL */
	size_t sched_len;       /**< its memzone's length */
};

/**
 * Look up the control block and every antenna buffer, checking versions
 * and layouts. @return 0, or a negative errno with the reason in err.
 */
int shm_attach(struct shm_view *v, char *err, size_t len);

#endif /* SHM_EAL_H */
