/* SPDX-License-Identifier: BSD-3-Clause */
/* --consumer LIB.so[,key=value...]: in-process consumers
 * (include/ibvcap_plugin.h). plugin.c hands the capture's rings and its
 * lcores taken to plugin_run.c, which loads each plugin and runs it on an
 * lcore of its own (ibv_plugin_start, _join, _close there; each takes the
 * list, NULL: no plugin). */

#ifndef IBV_PLUGIN_H
#define IBV_PLUGIN_H

#include <stddef.h>

#include "config.h"
#include "payload.h"
#include "plugin_run.h"
#include "rings.h"
#include "writers.h"

/** Each --consumer's plugin on its lcore (not the main lcore's, the
 * writers' (after ibv_writers_setup) or --lcore-map's), loaded, its init
 * run there, over the rings (after ibv_rings_create), its registry entry
 * claimed, following the schedule sched with scans=1 (the memzone's); *out NULL without --consumer. @return 0, or -1 with the reason
 * in err (naming the file; *out is then for ibv_plugin_close). */
int ibv_plugin_setup(struct ibv_plugin **out, const struct ibv_config *c,
		     const struct ibv_rings *rings, const struct ibv_pl *pl,
		     const struct ibv_writers *writers, struct wr_sched *sched, char *err,
		     size_t len);

#endif /* IBV_PLUGIN_H */
