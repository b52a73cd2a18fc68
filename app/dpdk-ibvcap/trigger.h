/* SPDX-License-Identifier: BSD-3-Clause */
/* Triggered dumps (trigger.c): /ibvcap/trigger, each a job on its own
 * thread, writing a window of the rings to files. */

#ifndef IBV_TRIGGER_H
#define IBV_TRIGGER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_telemetry.h>

#include "acct.h"
#include "config.h"
#include "err.h"
#include "writer.h"

struct ibv_config;
struct ibv_counts_src;
struct ibv_pl;
struct ibv_rings;

#define IBV_TRIG_MAX_FILES 512 /* RTE_TEL_MAX_ARRAY_ENTRIES */
#define IBV_TRIG_JOBS 64       /**< jobs kept (the oldest finished aged out) */
#define IBV_TRIG_RUNNING 32    /**< jobs running at once (more refused) */
#define IBV_TRIG_MAX_TIMEOUT_NS (600ULL * 1000000000ULL) /**< timeout= at most */
#define IBV_TRIG_MAX_WINDOW_NS (3600LL * 1000000000LL)   /**< T1 - T0 at most */

/** A trigger as asked: [t0, t1) of data time, antennas, where, how long to
 * wait for data not yet in. */
struct ibv_trig_req {
	int64_t t0, t1;           /**< Unix ns (CODIF data time), t0 < t1 */
	uint64_t ants;            /**< antennas (bit a) */
	uint64_t timeout_ns;      /**< wait at most this long for a new row */
	struct wr_opts o;         /**< format, dir, prefix; the window */
};

/** Why a dump ended. */
enum ibv_trig_end {
	IBV_TRIG_DONE = 0,     /**< every antenna reached T1 or was blocked */
	IBV_TRIG_TIMEOUT,      /**< no new row of the window for timeout */
	IBV_TRIG_STOPPED,      /**< the capture stopped before T1 */
	IBV_TRIG_CLOSING,      /**< cancelled: the capture is tearing down */
};

/** What a dump wrote of its window. */
enum ibv_trig_outcome {
	IBV_TRIG_COMPLETE = 0, /**< every antenna's whole window */
	IBV_TRIG_PARTIAL,      /**< some of it (the antennas say what not, why) */
	IBV_TRIG_OVERWRITTEN,  /**< none: overwritten in the rings before */
	IBV_TRIG_EMPTY,        /**< none, for another reason (not arrived,
				    blocked, before the capture, no data) */
};

/** One antenna's part of a dump; spans are [from, to) of data time. */
struct ibv_trig_ant {
	bool on, complete, blocked;
	unsigned int streams;
	uint64_t window_frames;                  /**< rows x streams of [t0, t1)
						      (0: no clock known) */
	uint64_t files, frames, placeholders, overrun_placeholders, bytes;
	int64_t from_ns, to_ns;                  /**< what it wrote */
	int64_t oldest_ns;                       /**< the oldest row in its ring
						      when the dump began */
	int64_t over_from, over_to;              /**< already overwritten */
	uint64_t over_frames;                    /**< rows x streams */
	int64_t before_from, before_to;          /**< before its first frame */
	uint64_t before_frames;
	int64_t future_from, future_to;          /**< not arrived */
	uint64_t future_frames;
	int64_t nodata_from, nodata_to;          /**< no frame of it at all */
	int64_t blocked_from, blocked_to;        /**< not written: blocked */
	uint64_t blocked_frames;
	char why[256];                           /**< blocked: why (its file's
						      error) */
	uint64_t overrun;                        /**< frames of the window the
						      ring overwrote while this dump
						      was inside it (written as gaps) */
};

struct ibv_trig_result {
	enum ibv_trig_end end;
	enum ibv_trig_outcome outcome;
	struct ibv_trig_ant ant[ACCT_MAX_ANTENNAS];
	unsigned int nfiles;
	char file[IBV_TRIG_MAX_FILES][RTE_TEL_MAX_STRING_LEN]; /**< base names */
	uint64_t overrun;
	int64_t wall_ns;
};

/** What a dump reads of the other components (main.c sets it up once). */
struct ibv_trig_deps {
	const struct ibv_config *cfg;
	const struct ibv_rings *rings;        /**< the rings a dump reads */
	const struct ibv_pl *pl;              /**< their payload's CPU view */
	const struct ibv_counts_src *counts;  /**< the totals (frames lost) */
};

/** A job: a dump on a control thread of its own (trigger_jobs.c's). */
struct ibv_trig_job {
	uint64_t id;               /**< 0: a free entry */
	bool done;                 /**< ended, res final */
	bool read;                 /**< res read since it ended */
	bool joined;
	int64_t polled_ns;         /**< monotonic: the last status read of it */
	int64_t start_ns;          /**< monotonic */
	pthread_t tid;
	struct ibv_trig_req r;
	struct ibv_trig_result *res;
	struct ibv_trig *owner;    /**< its table */
};

/** The triggers (trigger_jobs.c): the jobs in a table under one lock;
 * closing is read by the jobs without it. */
struct ibv_trig {
	struct ibv_trig_deps deps;
	pthread_mutex_t lock;
	struct ibv_trig_job job[IBV_TRIG_JOBS];
	uint64_t next_id;
	unsigned int running;
	bool closing;              /**< running jobs end now */
	bool closed;               /**< no new job */
};

/** An empty table, reading deps' components (before telemetry opens). */
void ibv_trig_init(struct ibv_trig *jobs, const struct ibv_trig_deps *deps);
void ibv_trig_defaults(struct ibv_trig_req *r);
/**
 * Parse "T0,T1,FORMAT,DIR[,ANTENNA[+ANTENNA...]...][,timeout=T][,prefix=P]".
 * @return 0, or -EINVAL with the input, its value and what was expected in e.
 */
int ibv_trig_parse(const struct ibv_config *c, const char *params, struct ibv_trig_req *r,
		   struct err_refusal *e);
/** The dump of r's window, each antenna to its own files, until every
 * antenna reached T1 or was blocked, *closing (the teardown), the capture
 * stopped with nothing left to take, or r's timeout without a new row.
 * Blocks: the job's thread (trigger_jobs.c). */
void ibv_trig_run(const struct ibv_trig_deps *deps, const struct ibv_trig_req *r,
		  const bool *closing, struct ibv_trig_result *res);
const char *ibv_trig_end_name(enum ibv_trig_end e);
const char *ibv_trig_outcome_name(enum ibv_trig_outcome o);
/** /ibvcap/trigger: start a job (its id at once), or refuse (nothing
 * written). The telemetry thread. */
int ibv_trig_tel_start(struct ibv_trig *jobs, const char *params, struct rte_tel_data *d);
/** /ibvcap/trigger/status[,ID]: one job's state and, once it ended, its
 * result; without ID every job kept. */
int ibv_trig_tel_status(struct ibv_trig *jobs, const char *params, struct rte_tel_data *d);
/** Teardown, while telemetry still answers: running jobs end (those the
 * stop lets finish first, up to 2 s), the results a client is polling for
 * are read (up to 2 s), then new triggers are refused. Idempotent. */
void ibv_trig_jobs_end(struct ibv_trig *jobs);

#endif /* IBV_TRIGGER_H */
