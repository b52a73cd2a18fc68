/* SPDX-License-Identifier: BSD-3-Clause */
/* Open one file, detect its format and run the matching scan over it. */

#ifndef CC_INSPECT_H
#define CC_INSPECT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "detect.h"
#include "fmt_raw.h"
#include "scan.h"

struct cc_file {
	char path[PATH_MAX];       /**< as given (the raw file for raw + index) */
	char index_path[PATH_MAX]; /**< raw: its index */
	struct cc_detect det;
	uint64_t size;
	struct cc_scan *scan;
	struct fmt_raw_index ri;   /**< raw: the parsed index (lib/fmt) */
	bool have_ri;
};

/**
 * Inspect path: detect, then scan with opts (cb, if not NULL, sees every
 * frame). Problems that stop the reading (not recognised, unreadable,
 * bad index) are recorded as problems of f->scan, with damaged set.
 * @return 0 when the file was read (problems or not), -ENOMEM, or
 *   -ECANCELED when cb stopped the scan.
 */
int cc_inspect(struct cc_file *f, const char *path, const struct cc_scan_opts *o,
	       cc_frame_cb cb, void *ctx);
void cc_file_free(struct cc_file *f);

/**
 * Start time of a file without reading it all: the UTC stamp of its
 * name (formats.md), else its first frame (codif), first_frame of its
 * index (raw), or its first record's arrival time (pcap).
 * @return 0, or -ENOENT when none can be told.
 */
int cc_file_start_ns(const char *path, int64_t *ns);

/** Read the first min(size, max) bytes of path. @return bytes, or -errno. */
long cc_read_head(const char *path, uint8_t *buf, size_t max, uint64_t *size);

#endif /* CC_INSPECT_H */
