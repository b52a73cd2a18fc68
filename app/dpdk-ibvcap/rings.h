/* SPDX-License-Identifier: BSD-3-Clause */
/* The antenna rings in shared memory (rings.c): their memzones, the
 * control block other processes attach to, the writer registry. */

#ifndef IBV_RINGS_H
#define IBV_RINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_memzone.h>

#include "antbuf.h"
#include "shm.h"

struct ibv_config;
struct ibv_pl;
struct ibv_scans;

/** Antenna buffers in shared memory (rings.c); their payload memory is the
 * payload layer's (payload.h). */
struct ibv_rings {
	bool on;
	char instance[SHM_NAMELEN];
	struct antbuf_geom geom;
	uint32_t threads;
	const struct rte_memzone *ctl_mz;
	struct shm_ctl *ctl;
	const struct rte_memzone *mz[SHM_MAX_ANT];
	struct antbuf *b[SHM_MAX_ANT];
	struct antbuf_prod prod[SHM_MAX_ANT]; /**< the rx lcores' side of each */
	bool keep_memory;   /**< a secondary lingers: no memzone_free at exit */
	bool retain_checked[SHM_MAX_ANT]; /**< --retain checked at its first frame */
};

void ibv_instance_name(char out[SHM_NAMELEN]);
/** The rings of c's antennas (--buffers), their payload memory through pl,
 * the control block, and the schedule shared (ibv_scans_share). */
int ibv_rings_create(struct ibv_rings *bf, const struct ibv_config *c, struct ibv_pl *pl,
		     struct ibv_scans *scans, int64_t start_unix_ns, char *err, size_t len);
/** Flush each of the nant rings and say the capture stopped. */
void ibv_rings_stop(struct ibv_rings *bf, unsigned int nant);
/** --retain against each antenna's own frame period, once its first frame
 * is in (main lcore): a warning when its ring holds less data time. */
void ibv_rings_retain_check(struct ibv_rings *bf, const struct ibv_config *c, FILE *f);
/** The writers of other processes: one that died is marked dead (and
 * said on f, once; NULL: not said), one without a heartbeat hung
 * (shm_writer_reap). Main lcore, telemetry. @return those attached. */
unsigned int ibv_rings_writers_check(const struct ibv_rings *rings, FILE *f);
/** Wait up to drain_ns for other processes' writers to take the last
 * frames, then briefly for their processes to end (else keep_memory). */
void ibv_rings_drain_external(struct ibv_rings *rings, uint64_t drain_ns);
/** At the end of the process: what the rings hold by reference back to
 * pl, the schedule back into scans (ibv_scans_unshare); the antenna
 * buffers' memory left to the process exit (rings.c says why). */
void ibv_rings_free(struct ibv_rings *bf, struct ibv_pl *pl, struct ibv_scans *scans,
		    unsigned int nant);

#endif /* IBV_RINGS_H */
