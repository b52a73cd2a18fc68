/* SPDX-License-Identifier: BSD-3-Clause */
/* Scans: which data times a writer records, and under which name. The
 * schedule (a table of scans with UTC bounds on CODIF data time) is kept by
 * the control side and published to writers through a sequence counter;
 * each writer decides row by row, on the row's data time, whether the row
 * belongs to a scan. Pure C, no DPDK: the table holds no pointers, so it
 * lives in shared memory (the primary's memzone ibv_<inst>_sch, lib/shm),
 * where the --write writers and every dpdk-ibvcap-dump read the one copy.
 *
 * Publication is a seqlock: the one changing thread makes gen odd, changes,
 * makes gen even again; a reader copies the whole table into a private
 * buffer between two reads of an equal, even gen and only then takes it
 * (wr_sched_snapshot), so a reader never uses a torn table: at worst it
 * keeps its previous copy for a row and takes the new one at the next. */

#ifndef WR_SCHED_H
#define WR_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define WR_SCAN_NAMELEN 32
#define WR_MAX_SCANS 64
#define WR_SCHED_MAX_WRITERS 64
/** A scan with no stop yet ("record on" without --for or --until). */
#define WR_SCAN_OPEN INT64_MAX
/** Writer bits: 0..WR_SCHED_DUMP_BASE-1 the primary's --write writers by
 * index; WR_SCHED_DUMP_BASE + slot the writer in registry slot slot (lib/shm,
 * a dpdk-ibvcap-dump). */
#define WR_SCHED_DUMP_BASE 32
#define WR_SCHED_DUMP_SLOTS 16
#define WR_SCHED_DUMPS (((1ULL << WR_SCHED_DUMP_SLOTS) - 1) << WR_SCHED_DUMP_BASE)
/** A writer never put under scan control: it records continuously. */
#define WR_FREE_RUNNING INT64_MAX

/** One scan: a name, data-time bounds [start, stop), writers, antennas. */
struct wr_scan {
	char name[WR_SCAN_NAMELEN];
	int64_t start_ns;     /**< first data time in the scan (Unix ns, UTC) */
	int64_t stop_ns;      /**< first data time after it (WR_SCAN_OPEN) */
	uint64_t writers;     /**< bit i: writer i records it */
	uint64_t ants;        /**< bit a: antenna a is recorded */
	uint32_t id;          /**< > 0, unique in the table's life */
	char origin[12];      /**< "schedule" or "command" */
};

/**
 * The schedule. Changed by one thread at a time (the caller's lock);
 * read by writers with wr_sched_snapshot (gen odd while it changes).
 */
struct wr_sched {
	uint64_t gen;
	uint32_t n;
	uint32_t next_id;
	/** per writer: data time from which it records only inside scans
	 * (WR_FREE_RUNNING: records everything, as without scans) */
	int64_t ctl_from[WR_SCHED_MAX_WRITERS];
	struct wr_scan s[WR_MAX_SCANS];
};

/** Empty; every writer free-running, or (idle) recording nothing. */
void wr_sched_init(struct wr_sched *sc, bool idle);

/** Begin / end a change (a sequence counter the writers read under). */
void wr_sched_begin(struct wr_sched *sc);
void wr_sched_end(struct wr_sched *sc);

/**
 * Copy sc into snap when it changed since *seen. Writer side, lock-free:
 * snap changes only to a whole, consistent table (a copy made while sc
 * changed is dropped, snap kept, and tried again at the next call).
 * @return true when snap was renewed.
 */
bool wr_sched_snapshot(const struct wr_sched *sc, struct wr_sched *snap, uint64_t *seen);

/** What a writer does with a row. */
#define WR_ROW_FREE 0u       /**< record, not in a scan (legacy names) */
#define WR_ROW_SKIP UINT32_MAX /**< not recorded */

/**
 * The scan id a row of antenna ant at data time t_ns belongs to, for writer
 * wi: a scan's id, WR_ROW_FREE or WR_ROW_SKIP. *scan: the scan (NULL else).
 */
uint32_t wr_sched_lookup(const struct wr_sched *sc, unsigned int wi, unsigned int ant,
			 int64_t t_ns, const struct wr_scan **scan);

/** A scan name: 1..31 of [A-Za-z0-9_.-], not starting with '.' or '-'. */
bool wr_scan_name_ok(const char *name);

/**
 * Add scan in (its id and origin are set here). Refused, changing nothing,
 * when its name is bad or taken, stop <= start, start before now (now
 * INT64_MIN: no check, a schedule file's rows before the capture starts
 * are checked by their caller), no writer, or it overlaps a scan of a
 * common writer. From the scan on, its writers record only inside scans
 * (ctl_from = now; INT64_MIN: from the capture's start).
 * @return 0, or -EINVAL with *why set; the new scan's index in *idx.
 */
int wr_sched_add(struct wr_sched *sc, const struct wr_scan *in, int64_t now,
		 unsigned int *idx, struct err_refusal *why);

/**
 * Stop recording at data time stop (>= now): the scan named (NULL: every
 * scan of the writers in mask that is running at stop) ends at stop. With
 * no such scan, free-running writers in mask stop recording at stop.
 * @return scans changed (>= 0: 0 = only free-running writers stopped), or
 *   -EINVAL (unknown scan, stop before its start, stop in the past,
 *   nothing recording) with *why set, nothing changed.
 */
int wr_sched_stop(struct wr_sched *sc, const char *name, uint64_t mask, int64_t stop,
		  int64_t now, struct err_refusal *why);

/**
 * Remove scan name, which has not begun at now.
 * @return 0, or -EINVAL (unknown, or begun) with *why set.
 */
int wr_sched_cancel(struct wr_sched *sc, const char *name, int64_t now,
		    struct err_refusal *why);

/** The scan named, or NULL. */
const struct wr_scan *wr_sched_find(const struct wr_sched *sc, const char *name);

/** The scan of writer mask running at t (or NULL), and the next one after t. */
void wr_sched_current(const struct wr_sched *sc, uint64_t mask, int64_t t,
		      const struct wr_scan **cur, const struct wr_scan **next);

#endif /* WR_SCHED_H */
