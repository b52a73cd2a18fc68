/* SPDX-License-Identifier: BSD-3-Clause */
/* Output files: written as NAME.part, renamed to NAME when complete. */

#ifndef CC_OUT_H
#define CC_OUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cc_out {
	char path[PATH_MAX];
	char part[PATH_MAX];
	int fd;
	FILE *f;      /**< when opened as a stream (cc_out_stream) */
	bool force;
};

/**
 * Create path.part for writing. Refused when path exists (or path.part:
 * another writer, or a cut run) unless force.
 * @return 0, or -EEXIST / -errno with the reason in err.
 */
int cc_out_open(struct cc_out *o, const char *path, bool force, char *err,
		size_t errlen);

/** A stdio stream over the open file (owned by o). @return NULL on ENOMEM. */
FILE *cc_out_stream(struct cc_out *o);

/** Write len bytes at off (pwrite, EINTR and short writes handled). */
int cc_out_pwrite(struct cc_out *o, const void *buf, size_t len, uint64_t off,
		  char *err, size_t errlen);

/** Append len bytes (write). */
int cc_out_write(struct cc_out *o, const void *buf, size_t len, char *err,
		 size_t errlen);

/**
 * Flush, close and rename NAME.part to NAME (never replacing NAME unless
 * force). On failure NAME.part is removed.
 * @return 0 or -errno with the reason in err.
 */
int cc_out_commit(struct cc_out *o, char *err, size_t errlen);

/** Close and remove NAME.part (after an error). */
void cc_out_abort(struct cc_out *o);

#endif /* CC_OUT_H */
