/* SPDX-License-Identifier: BSD-3-Clause */
/* The bstate command: sampler-state occupancy per stream and channel group
 * (lib/quicklook's ql_bstate), with its verdict. */

#ifndef CC_BSTATE_H
#define CC_BSTATE_H

#include <stdbool.h>

#include "ql_bstate.h"
#include "scan.h"

struct cc_bstate_opts {
	struct qlb_cfg cfg;          /**< the verdict's thresholds */
	unsigned int groups;         /**< channel groups per stream (1..16) */
	bool json;
	const char *plot;            /**< PNG of the last file's streams, or NULL */
	struct cc_scan_opts so;
};

/** @return an exit status: 0, 1 (a file unreadable, or a stream not ok). */
int cc_cmd_bstate(char **paths, int n, const struct cc_bstate_opts *o);

#endif /* CC_BSTATE_H */
