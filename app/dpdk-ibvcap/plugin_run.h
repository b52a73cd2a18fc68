/* SPDX-License-Identifier: BSD-3-Clause */
/* The in-process consumers themselves (plugin_run.c), apart from the
 * capture's own headers (its "ibvcap.h" is not libibvcap's): each plugin
 * loaded and checked, lib/consumer's blocks over the rings given, its
 * lcore. The plugins form a list (struct ibv_plugin *, NULL: none). */

#ifndef IBV_PLUGIN_RUN_H
#define IBV_PLUGIN_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_config.h>

#include "antbuf.h"
#include "shm.h"
#include "wr_sched.h"

struct ibv_plugin;

/** What the capture gives the plugin. */
struct ibv_plugin_src {
	const char *spec;                /**< --consumer LIB.so[,key=value...] */
	const char *instance;
	struct shm_ctl *ctl;
	unsigned int nant;
	struct antbuf *b[SHM_MAX_ANT];
	uint8_t *base[SHM_MAX_ANT];      /**< payload bases for the views (device
					      addresses with payload_mem GPU) */
	const char *ant_name[SHM_MAX_ANT];
	int gpu_dev;                     /**< -1: host memory */
	struct wr_sched *sched;          /**< the scans' schedule (scans=1) */
	bool writer_lcore[RTE_MAX_LCORE]; /**< the --write writers' lcores */
	bool rx_lcore[RTE_MAX_LCORE];    /**< the rx lcores --lcore-map names */
};

/** Add src->spec's plugin to *list: its lcore chosen (lcore=N, or the
 * last worker lcore free, one left for rx), loaded, checked, its blocks
 * and registry entry made, its init run on its lcore. @return 0, -1 err
 * said (the plugin is on the list all the same, for ibv_plugin_close). */
int ibv_plugin_open(const struct ibv_plugin_src *src, struct ibv_plugin **list, char *err,
		    size_t len);
/** Whether a plugin of list runs on lcore (then not an rx lcore). */
bool ibv_plugin_on_lcore(const struct ibv_plugin *list, unsigned int lcore);
/** Each plugin's loop launched on its lcore (list NULL: none). */
void ibv_plugin_start(struct ibv_plugin *list);
/** Wait for each loop to end (the capture stopped: every block handed
 * over), a line each on stdout. @return 0, -1 one stopped itself (said). */
int ibv_plugin_join(struct ibv_plugin *list);
/** Stop (teardown), fini (on its lcore) if not yet, unload, free: each. */
void ibv_plugin_close(struct ibv_plugin *list);

#endif /* IBV_PLUGIN_RUN_H */
