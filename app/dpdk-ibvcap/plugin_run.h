/* SPDX-License-Identifier: BSD-3-Clause */
/* The in-process consumer itself (plugin_run.c), apart from the capture's
 * own headers (its "ibvcap.h" is not libibvcap's): the plugin loaded and
 * checked, lib/consumer's blocks over the rings given, its thread. */

#ifndef IBV_PLUGIN_RUN_H
#define IBV_PLUGIN_RUN_H

#include <stdint.h>

#include "antbuf.h"
#include "shm.h"

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
};

/** Load, check, make its blocks and registry entry, init.
 * @return 0 (*out set; also on failure, for ibv_plugin_close), -1 err said. */
int ibv_plugin_open(const struct ibv_plugin_src *src, struct ibv_plugin **out, char *err,
		    size_t len);
/** Its thread. @return 0 (also for NULL: no plugin), or a positive errno
 * (said on stderr). */
int ibv_plugin_start(struct ibv_plugin *p);
/** Wait for the thread to end (the capture stopped: every block handed
 * over), its line on stdout. @return 0, -1 it stopped itself (said). */
int ibv_plugin_join(struct ibv_plugin *p);
/** Stop (teardown), fini if not yet, unload, free. */
void ibv_plugin_close(struct ibv_plugin *p);

#endif /* IBV_PLUGIN_RUN_H */
