/* SPDX-License-Identifier: BSD-3-Clause */
/* The live fringe check (fringe.c): /ibvcap/fringe, a job on a control thread. */

#ifndef IBV_FRINGE_H
#define IBV_FRINGE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_telemetry.h>

struct ibv_config;
struct ibv_fringe_result;
struct ibv_pl;
struct ibv_rings;

/** What a check reads of the other components (main.c sets it up once). */
struct ibv_fringe_deps {
	const struct ibv_config *cfg;
	const struct ibv_rings *rings;    /**< the two antennas' rings */
	const struct ibv_pl *pl;          /**< their payload's CPU view */
};

/** A check as asked: antennas a and b, for how long, how many pairs. */
struct ibv_fringe_req {
	unsigned int a, b;
	double seconds;
	uint64_t pairs;
	unsigned int max_lag;
};

/** The fringe check (fringe.c): the latest job under one lock; stop is
 * read by the job without it. */
struct ibv_fringe {
	struct ibv_fringe_deps deps;
	pthread_mutex_t lock;
	uint64_t id;                      /**< the latest job, 0 none */
	bool running, joined, closed;
	bool stop;
	pthread_t tid;
	struct ibv_fringe_req r;
	struct ibv_fringe_result *res;
};

/** No check yet, reading deps' components (before telemetry opens). */
void ibv_fringe_init(struct ibv_fringe *fr, const struct ibv_fringe_deps *deps);

/** /ibvcap/fringe,A,B[,SECONDS][,pairs=N][,max_lag=N]: start the live
 * fringe check of a baseline on a control thread (one at a time), or refuse. */
int ibv_fringe_tel_start(struct ibv_fringe *fr, const char *params, struct rte_tel_data *d);
/** /ibvcap/fringe/status: the latest check's state and, once ended, its result. */
int ibv_fringe_tel_status(struct ibv_fringe *fr, const char *params, struct rte_tel_data *d);
/** Teardown, while telemetry still answers: a running check stops, no new one. */
void ibv_fringe_end(struct ibv_fringe *fr);

#endif /* IBV_FRINGE_H */
