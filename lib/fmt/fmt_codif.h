/* SPDX-License-Identifier: BSD-3-Clause */
/* codif files: whole CODIF v3 frames one after the other, no file header;
 * a frame that never arrived is its stream's header at its time with the
 * invalid bit set, and zero data (formats.md "codif"). */

#ifndef FMT_CODIF_H
#define FMT_CODIF_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "codif.h"
#include "fmt.h"

/**
 * Set h (a stream's header) to frame index idx of clock clk, with the
 * invalid bit as given: how every placeholder and every header rebuilt
 * from a raw index is made.
 */
void fmt_codif_hdr_at(struct codif_hdr *h, const struct codif_clock *clk, int64_t idx,
		      bool invalid);

/**
 * The header of a frame that never arrived: ref (its stream's 64-byte
 * header) at frame index idx of clk, the invalid bit set, into out.
 */
void fmt_codif_placeholder(const uint8_t ref[CODIF_HDR_LEN], const struct codif_clock *clk,
			   int64_t idx, uint8_t out[CODIF_HDR_LEN]);

/** A codif file read frame by frame (strict: damage ends the reading). */
struct fmt_codif_reader {
	int fd;
	char path[PATH_MAX];
	uint8_t *buf;
	size_t cap, lo, hi;
	uint64_t off;            /**< file offset of buf[lo] */
	bool eof;
};

/**
 * Open path for reading.
 * @return 0, -ENOMEM, or the negative errno of open(2), naming the file
 *   in err.
 */
int fmt_codif_open_read(struct fmt_codif_reader *r, const char *path, char *err,
			size_t errlen);

/**
 * The next frame: *frame points at its header and data (valid until the
 * next call), h holds the decoded header.
 * @return 1, 0 at the end of the file, or -EPROTO (not a valid CODIF v3
 *   header), -ENODATA (the file ends inside a frame), -EIO; err names the
 *   file, the offset, the value found and what was expected.
 */
int fmt_codif_next(struct fmt_codif_reader *r, const uint8_t **frame, struct codif_hdr *h,
		   char *err, size_t errlen);

/** Close the file and free the reader's buffer. */
void fmt_codif_close_read(struct fmt_codif_reader *r);

#endif /* FMT_CODIF_H */
