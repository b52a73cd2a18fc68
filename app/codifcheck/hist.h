/* SPDX-License-Identifier: BSD-3-Clause */
/* Fixed-size log-scale histogram of signed nanosecond values: constant memory. */

#ifndef CC_HIST_H
#define CC_HIST_H

#include <stdint.h>

/*
 * Resolution: values of magnitude below 16 ns have a bucket each (exact);
 * above, every power of two is split into 16 buckets, so a bucket is at
 * most 1/16 of its lower edge wide. Quantiles are reported as the bucket's
 * midpoint: within 1/32 (3.2 %) of the true value. min and max are exact.
 */
#define CC_HIST_SUB 16
/** Buckets per sign: 16 exact + 60 octaves (2^4 .. 2^63) x 16. */
#define CC_HIST_NB (CC_HIST_SUB + 60 * CC_HIST_SUB)

struct cc_hist {
	uint64_t n;
	int64_t min, max;
	/** [0, NB): negative values, most negative first; [NB, 2NB): >= 0. */
	uint64_t c[2 * CC_HIST_NB];
};

void cc_hist_init(struct cc_hist *h);
void cc_hist_add(struct cc_hist *h, int64_t v);

/**
 * Value at quantile q (0..1): the midpoint of the bucket holding the
 * ceil(q*n)-th smallest value, clamped to [min, max]. 0 when empty.
 */
int64_t cc_hist_quantile(const struct cc_hist *h, double q);

/** Bucket of magnitude u (0 .. CC_HIST_NB-1), and its [lo, hi] range. */
unsigned int cc_hist_bucket(uint64_t u);
void cc_hist_bucket_range(unsigned int b, uint64_t *lo, uint64_t *hi);

#endif /* CC_HIST_H */
