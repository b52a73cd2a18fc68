/* SPDX-License-Identifier: BSD-3-Clause */
/* The extract command: the frames of a window of data time [from, to) cut
 * out of recorded files and directories (scan directories included). */

#ifndef CC_EXTRACT_H
#define CC_EXTRACT_H

#include <stdbool.h>
#include <stdint.h>

#include "convert.h"

struct cc_extract_opts {
	int64_t from, to;            /**< the window, Unix ns of data time */
	bool have_format;            /**< conv.to given; else each source's own */
	const char *antennas;        /**< --antenna NAME[,NAME...] (file names'), or NULL */
	struct cc_conv_opts conv;    /**< outdir (--out), to, prefix, force, ... */
};

/**
 * Extract the window from the sources (files and directories), writing
 * o->conv.outdir's files and its report PREFIX_extract.json.
 * @return an exit status: 0 written (the window wholly or in part; the
 *   report says what it missed), 1 nothing of the window in the sources,
 *   or an error (said on stderr).
 */
int cc_cmd_extract(char **src, int n, const struct cc_extract_opts *o);

#endif /* CC_EXTRACT_H */
