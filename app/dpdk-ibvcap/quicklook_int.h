/* SPDX-License-Identifier: BSD-3-Clause */
/* Quick look's own types and readers, shared by quicklook.c (the
 * accumulators, the window, the summary) and quicklook_tel.c (its
 * telemetry); not for other components. */

#ifndef IBV_QUICKLOOK_INT_H
#define IBV_QUICKLOOK_INT_H

#include "config.h"
#include "quicklook_app.h"
#include "run.h"
#include "rx.h"
#include "ql_bstate.h"
#include "ql_spec.h"
#include "stats.h"

/** A pool entry's stream, written before the entry is published. */
struct ibv_ql_ent {
	uint16_t ant, stream;
};

/** The main lcore's two snapshots of a pool entry: the window's ends. */
struct ibv_ql_win {
	struct ql_snap prev, cur;
};

/** The main lcore's analysis of a pool entry's kept frames. */
struct ibv_ql_live {
	uint64_t key;              /**< format of cur (0: none yet) */
	bool ok;                   /**< cur counts (else why) */
	uint32_t taken;            /**< kept frames read in this window */
	uint32_t last_frames;      /**< ... in the last */
	uint64_t run_frames;       /**< ... in the ended windows */
	struct qlb_acc cur, last;  /**< this window's counts, the last window's */
	struct qlb_acc run;        /**< the ended windows' (the summary) */
	struct qls_acc spec, spec_last; /**< spectra of this window, the last (nfft 0: none) */
	uint64_t spec_key;         /**< format of spec */
	char why[96];
};

/** Channel groups of the live sampler statistics (at most the channels). */
#define IBV_QL_GROUPS 8u

/* the window's ends, now, or the final figures (the rx lcores have stopped) */
enum which { W_PREV, W_CUR, W_LIVE, W_FINAL };

/** Entry k's snapshot: one end of the window, or read now. */
void ibv_ql_snap_of(const struct ibv_qlc *q, unsigned int k, enum which w, struct ql_snap *s);
/** fn(lc, k, ctx) for each of antenna a's streams, on every lcore that
 * samples it (entry k of lc's quick look). @return streams seen. */
unsigned int ibv_ql_ant_each(const struct ibv_ql *ql, unsigned int a,
			     void (*fn)(const struct ibv_lcore *lc, unsigned int k, void *ctx),
			     void *ctx);
/** Antenna a's streams (every lcore) summed. @return streams seen. */
unsigned int ibv_ql_ant_sum(const struct ibv_ql *ql, unsigned int a, enum which w,
			    struct ql_snap *out);
/** The last window's length in seconds. */
double ibv_ql_window_s(const struct ibv_ql *ql);
/** The live record of antenna a: the last window (lock held). */
void ibv_ql_ant_live(const struct ibv_ql *ql, unsigned int a, struct stats_ql *r,
		     struct ql_figs *f);

#endif /* IBV_QUICKLOOK_INT_H */
