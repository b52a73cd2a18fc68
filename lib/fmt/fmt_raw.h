/* SPDX-License-Identifier: BSD-3-Clause */
/* raw files: data rows (every stream's data bytes, slot order, gaps zero)
 * and NAME.raw.json, their index (formats.md "raw + index"): one index
 * type, written by the capture's writers and codifcheck alike, and read. */

#ifndef FMT_RAW_H
#define FMT_RAW_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "codif.h"
#include "fmt.h"

#define FMT_RAW_MAGIC "dpdk-ibvcap-raw"
#define FMT_RAW_VERSION 1
/** At most this many streams (slots) per raw file. */
#define FMT_RAW_MAX_STREAMS 4096
/** Largest index read (it grows with the number of runs). */
#define FMT_RAW_MAX_INDEX (256u << 20)
#define FMT_RAW_NAME_LEN 64

/** One stream of a raw file: its slot is its place in the index. */
struct fmt_raw_stream {
	uint32_t dst;                   /**< destination group, host order */
	uint16_t port;
	uint8_t raw_hdr[CODIF_HDR_LEN]; /**< its first CODIF header, as written */
	struct codif_hdr hdr;           /**< ... decoded */
};

/** Rows of one slot: gaps (never arrived), invalid (arrived flagged), or
 * overrun (whole rows the writer lost: slot 0). */
struct fmt_raw_run {
	uint32_t slot;
	uint64_t first, count;
};

struct fmt_raw_runs {
	struct fmt_raw_run *v;
	size_t n, cap;
	uint32_t nslot;
	size_t *begin;  /**< after fmt_raw_runs_index: the runs of slot s are
			     v[begin[s] .. begin[s+1]) */
};

struct fmt_raw_index {
	uint32_t ant_index;
	char ant_name[FMT_RAW_NAME_LEN];
	uint32_t src;                 /**< host order */
	uint32_t data_bytes;
	uint64_t rows;
	uint32_t nstream;
	struct fmt_raw_stream *st;    /**< by slot */
	/* the rows' time: row r is frame index first_index + r of clk */
	struct codif_clock clk;
	int64_t first_index;
	uint32_t first_seconds, first_frame;
	uint64_t fpp, frame_ns;
	struct fmt_raw_runs gaps, invalid, overrun;
	/* "overrun_after": the writer fell more than a ring behind right after
	 * the file's last row and ended the file there: the frames it lost
	 * from frame index ovr_index (clk) on, ovr_rows rows (0: none) */
	int64_t ovr_index;
	uint64_t ovr_rows, ovr_frames;
};

/** An empty index (no streams, no runs). */
void fmt_raw_index_init(struct fmt_raw_index *ri);
/** Free its streams and runs; it is empty again. */
void fmt_raw_index_free(struct fmt_raw_index *ri);

/**
 * Give ri n streams (zeroed, by slot), for a writer to fill.
 * @return 0, -EINVAL (n is 0 or more than FMT_RAW_MAX_STREAMS) or -ENOMEM.
 */
int fmt_raw_index_streams(struct fmt_raw_index *ri, uint32_t n);

/** Row 0 is frame index first_index of clock clk (the first frame's time). */
void fmt_raw_index_set_time(struct fmt_raw_index *ri, const struct codif_clock *clk,
			    int64_t first_index);

/**
 * Parse and check an index: format and version, streams by slot with their
 * 64-byte headers (each a valid CODIF v3 header whose data bytes equal
 * data_bytes, one clock and one frame size for all, ids as the header
 * says, parameters equal to "params"), first_frame, and gap / invalid /
 * overrun runs inside [0, rows) that do not overlap per slot (gaps and
 * invalid not on one row either). Runs are sorted by (slot, first).
 * first_index is taken from first_frame (old indexes written by codifcheck
 * said 0 there).
 * @return 0, or -EINVAL ("key: value, expected ..." in err) / -ENOMEM.
 */
int fmt_raw_index_parse(const char *text, size_t len, struct fmt_raw_index *ri, char *err,
			size_t errlen);

/**
 * Read and parse the index file at path (at most FMT_RAW_MAX_INDEX bytes).
 * @return 0; -EINVAL (not a valid index) or -ENOMEM with "PATH: why" in
 *   err; or the negative errno of reading it, -EFBIG (too large), also
 *   with "PATH: why".
 */
int fmt_raw_index_read(const char *path, struct fmt_raw_index *ri, char *err, size_t errlen);

/** s (raw) ends where its writer lost rows: its index names them
 * ("overrun_after": the frame index of the first, rows, valid frames). */
void fmt_raw_overrun_after(struct fmt_sink *s, int64_t index, uint64_t rows, uint64_t frames);

/** The index as JSON (formats.md), runs cut to ri->rows. NULL: no memory. */
json_t *fmt_raw_index_json(const struct fmt_raw_index *ri);

/** Size the raw data must have: rows * streams * data_bytes (0 on overflow). */
uint64_t fmt_raw_data_size(const struct fmt_raw_index *ri);

/**
 * Whether row of slot lies in a run of r (indexed). cursor (one per slot
 * and list, start at 0) makes a pass over increasing rows linear.
 */
bool fmt_raw_in_run(const struct fmt_raw_runs *r, uint32_t slot, uint64_t row,
		    size_t *cursor);

/** The header of row `row` of slot: the stream's, at the row's time, with
 * the invalid bit given (fmt_codif_hdr_at). */
void fmt_raw_frame_hdr(const struct fmt_raw_index *ri, uint32_t slot, uint64_t row,
		       bool invalid, struct codif_hdr *h);

/**
 * Add count rows from first of slot to r, extending the slot's last run
 * when they follow it.
 * @return 0 or -ENOMEM.
 */
int fmt_raw_runs_add(struct fmt_raw_runs *r, uint32_t slot, uint64_t first, uint64_t count);

/** Sort runs by (slot, first) and index them by slot. @return 0 or -ENOMEM. */
int fmt_raw_runs_index(struct fmt_raw_runs *r, uint32_t nslot);

#endif /* FMT_RAW_H */
