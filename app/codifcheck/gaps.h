/* SPDX-License-Identifier: BSD-3-Clause */
/* Sorted list of a stream's gaps: runs of frame indices that never arrived. */

#ifndef CC_GAPS_H
#define CC_GAPS_H

#include <stddef.h>
#include <stdint.h>

enum cc_gap_kind {
	CC_GAP_MISSING = 0, /**< no frame at all for these indices */
	CC_GAP_FILLED,      /**< a writer's placeholder: invalid bit, zero data */
	CC_GAP__COUNT
};

struct cc_gap {
	int64_t first, last; /**< inclusive frame indices */
	enum cc_gap_kind kind;
};

/** Non-overlapping runs in increasing order; grows with the number of gaps. */
struct cc_gaps {
	struct cc_gap *v;
	size_t n, cap;
	uint64_t frames[CC_GAP__COUNT]; /**< frames in runs of each kind */
};

void cc_gaps_init(struct cc_gaps *g);
void cc_gaps_free(struct cc_gaps *g);

/**
 * Add the run [first, last] of kind k, merged with an adjacent run of the
 * same kind. Appending after the last run is O(1).
 * @return 0, -EINVAL (empty or overlapping an existing run), -ENOMEM.
 */
int cc_gaps_add(struct cc_gaps *g, int64_t first, int64_t last,
		enum cc_gap_kind k);

/**
 * A late frame n arrived: take it out of the MISSING run holding it
 * (shrinking or splitting the run).
 * @return 0, -ENOENT (n is in no missing run), -ENOMEM.
 */
int cc_gaps_fill(struct cc_gaps *g, int64_t n);

/** Frames in all runs. */
uint64_t cc_gaps_total(const struct cc_gaps *g);

#endif /* CC_GAPS_H */
