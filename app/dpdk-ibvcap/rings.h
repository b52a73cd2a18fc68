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

struct ibv_app;

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
int ibv_rings_create(struct ibv_app *app, char *err, size_t len);
void ibv_rings_stop(struct ibv_app *app);
/** --retain against each antenna's own frame period, once its first frame
 * is in (main lcore): a warning when its ring holds less data time. */
void ibv_rings_retain_check(struct ibv_app *app, FILE *f);
/** The writers of other processes: one that died is marked dead (and
 * said on f, once; NULL: not said), one without a heartbeat hung
 * (shm_writer_reap). Main lcore, telemetry. @return those attached. */
unsigned int ibv_rings_writers_check(struct ibv_app *app, FILE *f);
void ibv_rings_drain_external(struct ibv_app *app);
void ibv_rings_free(struct ibv_app *app);

#endif /* IBV_RINGS_H */
