/* SPDX-License-Identifier: BSD-3-Clause */
/* The live fringe check (fringe.c): /ibvcap/fringe, a job on a control thread. */

#ifndef IBV_FRINGE_H
#define IBV_FRINGE_H

#include <rte_telemetry.h>

struct ibv_app;

/** /ibvcap/fringe,A,B[,SECONDS][,pairs=N][,max_lag=N]: start the live
 * fringe check of a baseline on a control thread (one at a time), or refuse. */
int ibv_fringe_tel_start(struct ibv_app *app, const char *params, struct rte_tel_data *d);
/** /ibvcap/fringe/status: the latest check's state and, once ended, its result. */
int ibv_fringe_tel_status(struct ibv_app *app, const char *params, struct rte_tel_data *d);
/** Teardown, while telemetry still answers: a running check stops, no new one. */
void ibv_fringe_end(void);

#endif /* IBV_FRINGE_H */
