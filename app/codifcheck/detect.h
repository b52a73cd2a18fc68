/* SPDX-License-Identifier: BSD-3-Clause */
/* Which format a file holds, told by its first bytes (and name, for raw). */

#ifndef CC_DETECT_H
#define CC_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "fmt.h"

/** Bytes of a file's start that detection wants (VDIF needs a 2nd header). */
#define CC_DETECT_HEAD 65536

enum cc_fmt {
	CC_FMT_UNKNOWN = 0,
	CC_FMT_EMPTY,
	CC_FMT_CODIF,
	CC_FMT_RAW,          /**< raw data; its index is NAME.json */
	CC_FMT_RAW_INDEX,    /**< the index NAME.raw.json */
	CC_FMT_PCAP,
	CC_FMT_PCAPNG,
	CC_FMT_VDIF,
	CC_FMT_LEGACY_CODIF,
	CC_FMT_SHORT_CODIF,  /**< starts like CODIF, shorter than one header */
	CC_FMT__COUNT
};

struct cc_detect {
	enum cc_fmt fmt;
	/** What the file is ("pcap, nanosecond, little-endian"), or why it is
	 * not readable ("VDIF version 0, not CODIF ..."). */
	char desc[256];
};

/**
 * Detect the format of a file from head (its first n bytes, n = min(file
 * size, CC_DETECT_HEAD)), its size and its name. Pure.
 * @return d->fmt.
 */
enum cc_fmt cc_detect(const uint8_t *head, size_t n, uint64_t file_size,
		      const char *name, struct cc_detect *d);

/** Short name: "codif", "raw", "raw-index", "pcap", "pcapng", "vdif", ... */
const char *cc_fmt_name(enum cc_fmt f);

/** The format lib/fmt calls k (fmt_names). */
enum cc_fmt cc_fmt_of_kind(enum fmt_kind k);

/** Whether codifcheck can read the format (codif, raw, raw index, pcap, pcapng). */
int cc_fmt_readable(enum cc_fmt f);

/** "first bytes: 7f 45 4c 46 ... |.ELF....|" for an error message. */
void cc_describe_bytes(const uint8_t *p, size_t n, char *out, size_t len);

#endif /* CC_DETECT_H */
