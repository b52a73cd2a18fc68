/* SPDX-License-Identifier: BSD-3-Clause */
/* The primary's own writers (writers.c): each --write on lcores of its own,
 * lib/writer's loop as dpdk-ibvcap-dump runs it. */

#ifndef IBV_WRITERS_H
#define IBV_WRITERS_H

#include <limits.h>
#include <stdbool.h>

#include <rte_lcore.h>

#include "config.h"
#include "writer.h"

struct ibv_pl;
struct ibv_rings;
struct shm_ctl;
struct wr_sched;

/** A writer on an lcore of the primary (--write). */
struct ibv_wlcore {
	unsigned int lcore;
	char spec[PATH_MAX + 64];
	struct wr_writer w;
	int reg;                  /**< writer registry entry (-1: none) */
	struct shm_writer *regw;  /**< ... its figures (NULL: none) */
	const volatile int *stop; /**< the rx lcores stopped: its writers' stop */
	unsigned int spec_idx;    /**< its --write: the schedule's writer bit */
	unsigned int part, parts; /**< part of lcores=parts: antennas a with
				       a mod parts == part */
	int rc;
	enum wr_end end;          /**< why it ended */
	bool done;
};

/** Every writer lcore, and the flag that says the rx lcores have stopped. */
struct ibv_writers {
	unsigned int n;
	struct ibv_wlcore *wl[IBV_MAX_WLCORES]; /**< lcores=N: N of one --write */
	volatile int stop;
};

/** The --write writers of c on the worker lcores, each reading the rings
 * (their payload through pl), gated by the schedule sched and registered
 * in the rings' registry. */
int ibv_writers_setup(struct ibv_writers *ws, const struct ibv_config *c,
		      const struct ibv_rings *rings, const struct ibv_pl *pl,
		      struct wr_sched *sched, char *err, size_t len);
void ibv_writers_launch(struct ibv_writers *ws);
/* Wait for the --write writers: 0, -1 one failed (said), 1 one stopped at
 * its min-free (said when it stopped). */
int ibv_writers_wait(struct ibv_writers *ws);
/** Free them, letting go of their entries in the registry reg (NULL: none). */
void ibv_writers_free(struct ibv_writers *ws, struct shm_ctl *reg);
/** Is this lcore a writer's? */
bool ibv_is_writer_lcore(const struct ibv_writers *ws, unsigned int lcore);

#endif /* IBV_WRITERS_H */
