/* SPDX-License-Identifier: BSD-3-Clause */
/* The raw file's JSON index (formats.md "raw + index"): parse, check, write. */

#ifndef CC_RAWIDX_H
#define CC_RAWIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "codif.h"

#define CC_RI_FORMAT "dpdk-ibvcap-raw"
#define CC_RI_VERSION 1
/** At most this many streams (slots) per raw file. */
#define CC_RI_MAX_STREAMS 4096

struct cc_ri_stream {
	uint32_t dst;                /**< host order */
	uint16_t port;
	struct codif_hdr hdr;        /**< decoded "header" */
	uint8_t raw_hdr[CODIF_HDR_LEN];
};

/** A run of rows of one slot (gaps: never arrived; invalid: flagged). */
struct cc_ri_run {
	uint32_t slot;
	uint64_t first, count;
};

struct cc_ri_runs {
	struct cc_ri_run *v;
	size_t n, cap;
	uint32_t nslot;
	size_t *begin;  /**< nslot + 1 entries: runs of slot s are [begin[s], begin[s+1]) */
	size_t *last;   /**< while adding: 1 + index of the slot's newest run, 0 if none */
};

struct cc_raw_index {
	uint64_t ant_index;
	char ant_name[64];
	uint32_t src;                /**< host order */
	uint64_t data_bytes, rows, first_index;
	uint32_t nstream;
	struct cc_ri_stream *st;     /**< by slot */
	uint64_t fpp, frame_ns;
	uint32_t first_seconds, first_frame;
	struct codif_clock clk;      /**< the rows' clock (lib/codif) */
	int64_t idx0;                /**< its index of row 0 */
	struct cc_ri_runs gaps, invalid;
};

/** Row 0 is the frame of header h (its time and clock). */
void cc_ri_set_first(struct cc_raw_index *ri, const struct codif_hdr *h);

void cc_ri_init(struct cc_raw_index *ri);
void cc_ri_free(struct cc_raw_index *ri);

/**
 * Parse and check an index: format and version, streams by slot with
 * their 64-byte headers (each a valid CODIF v3 header whose data bytes
 * equal data_bytes and whose parameters equal "params"), first_frame,
 * and gap/invalid runs inside [0, rows) that do not overlap per slot.
 * Runs are sorted by (slot, first) for cc_ri_in_run.
 * @return 0, or -EINVAL / -ENOMEM with the reason in err.
 */
int cc_ri_parse(const char *text, size_t len, struct cc_raw_index *ri,
		char *err, size_t errlen);

/** Size the raw file must have: rows * streams * data_bytes (0 on overflow). */
uint64_t cc_ri_raw_size(const struct cc_raw_index *ri);

/**
 * Whether row of slot lies in a run. cursor (one per slot and list,
 * start at 0) makes a pass over increasing rows linear.
 */
bool cc_ri_in_run(const struct cc_ri_runs *r, uint32_t slot, uint64_t row,
		  size_t *cursor);

/** Header of row r of slot s: seconds/frame from first_frame, invalid set. */
void cc_ri_frame_hdr(const struct cc_raw_index *ri, uint32_t slot, uint64_t row,
		     bool invalid, struct codif_hdr *h);

/**
 * Add row of slot to the runs, extending the slot's newest run when row
 * follows it (rows must come in increasing order per slot; nslot slots).
 * @return 0 or -ENOMEM.
 */
int cc_ri_runs_add(struct cc_ri_runs *r, uint32_t nslot, uint32_t slot,
		   uint64_t row);

/** Sort runs by (slot, first) and index them by slot. @return 0 or -ENOMEM. */
int cc_ri_runs_index(struct cc_ri_runs *r, uint32_t nslot);

/** Write the index as JSON (formats.md). @return 0 or -EIO. */
int cc_ri_write(FILE *f, const struct cc_raw_index *ri);

#endif /* CC_RAWIDX_H */
