/* SPDX-License-Identifier: BSD-3-Clause */
/* The fringe command: frames of the same time from two antennas' files,
 * cross-correlated per channel (lib/quicklook ql_fringe). */

#ifndef CC_FRINGE_H
#define CC_FRINGE_H

#include <stdbool.h>
#include <stdint.h>

#include "scan.h"

struct cc_fringe_opts {
	const char *channels;        /**< "0,2-3" or NULL: all */
	unsigned int max_lag;        /**< samples (0: ql_fringe's default) */
	unsigned int max_frames;     /**< frames of FILE_A held for pairing */
	bool json;
	const char *plot;            /**< PNG path, or NULL */
	struct cc_scan_opts so;
};

/**
 * Parse a channel list "0,2,5-7" into a mask (channels < 64).
 * @return 0, or -EINVAL with the reason in err.
 */
int cc_fringe_channels(const char *s, uint64_t *mask, char *err, size_t len);

/** @return an exit status: 0, 1 (a file unreadable, no pair, a plot failed). */
int cc_cmd_fringe(const char *path_a, const char *path_b, const struct cc_fringe_opts *o);

#endif /* CC_FRINGE_H */
