/* SPDX-License-Identifier: BSD-3-Clause */
/* File names of formats.md: <PREFIX>_<ANTENNA>_<UTC>.<ext>, and their UTC stamp. */

#ifndef CC_NAMES_H
#define CC_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** "YYYYMMDDTHHMMSS.nnnnnnnnnZ" plus NUL. */
#define CC_NAME_UTC_LEN 27
#define CC_NAME_PART_LEN 64

/** Format ns since the Unix epoch as YYYYMMDDTHHMMSS.nnnnnnnnnZ. @return buf. */
char *cc_name_utc(int64_t unix_ns, char *buf, size_t len);

/**
 * Parse the UTC stamp of a file name (exactly as cc_name_utc writes it).
 * @return 0, or -EINVAL.
 */
int cc_parse_name_utc(const char *s, int64_t *unix_ns);

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
