/* SPDX-License-Identifier: BSD-3-Clause */
/* File names of formats.md, <PREFIX>_<ANTENNA>_<UTC>.<ext>, taken apart (their
 * UTC stamp: lib/fmt fmt_name.h). */

#ifndef CC_NAMES_H
#define CC_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CC_NAME_PART_LEN 64

/** What a formats.md file name says. */
struct cc_name {
	char prefix[CC_NAME_PART_LEN];
	char antenna[CC_NAME_PART_LEN];
	int64_t utc_ns;
	char ext[16];     /**< "codif", "raw", "raw.json", "pcap" ... */
	bool part;        /**< ends in ".part": still being written, or cut */
};

/**
 * Split a file name (a path is allowed; only its last component is read)
 * into prefix, antenna, time and extension. The antenna is the part
 * between the last two '_' before the time; the prefix may hold '_'.
 * @return 0, or -EINVAL when the name does not follow formats.md.
 */
int cc_parse_name(const char *path, struct cc_name *n);

/** Whether name ends with suffix. */
bool cc_ends_with(const char *name, const char *suffix);

#endif /* CC_NAMES_H */
