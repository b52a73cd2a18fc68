/* SPDX-License-Identifier: BSD-3-Clause */
/* The convert command: a capture, codif or raw file to another of these formats. */

#ifndef CC_CONVERT_H
#define CC_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "codif.h"
#include "pkt.h"

#include "detect.h"
#include "scan.h"

/** Defaults for synthesised headers (codifgen's first antenna and group). */
/* codifgen's layout's first antenna and group (lib/pkt) */
#define CC_DEFAULT_SRC PKT_LAYOUT_ANT_IP
#define CC_DEFAULT_DST PKT_LAYOUT_GROUP_IP
#define CC_DEFAULT_PORT PKT_LAYOUT_UDP_PORT
#define CC_DEFAULT_PREFIX "ibvcap"

struct cc_conv_opts {
	enum cc_fmt to;        /**< CC_FMT_CODIF, CC_FMT_PCAP or CC_FMT_RAW */
	const char *output;    /**< exact output path (one output only), or NULL */
	const char *outdir;    /**< directory for formats.md names */
	const char *prefix;    /**< NULL: the input's (formats.md name), else ibvcap */
	const char *antenna;   /**< NULL: the input's name/index, else ant<i> */
	uint32_t src;          /**< codif -> pcap/raw: source IPv4 (host order) */
	uint32_t dst;          /**< destination of secondaryid 0; + secondaryid */
	uint16_t port;         /**< UDP port of secondaryid 0; + secondaryid */
	bool force;            /**< replace existing outputs */
	struct codif_tl_cfg tl;     /**< timelines (lib/codif) */
	unsigned int max_problems;
	const struct cc_filter *filter; /**< captures: antennas and groups, or NULL */
};

/** Convert in. @return an exit status (0, 1 errors or input problems). */
int cc_cmd_convert(const char *in, const struct cc_conv_opts *o);

/* ---- extract: frames of a window of data time from several inputs -------- */

#define CC_XRES_FILES 256
#define CC_XRES_STREAMS 64

/** What one antenna's inputs gave a window [from, to). */
struct cc_xres {
	int64_t from, to;            /**< the window (Unix ns of data time) */
	int64_t first, end;          /**< written: the first frame's time, the last's
					  end (INT64_MIN: none) */
	int64_t rec_first, rec_end;  /**< the inputs read: their first frame and
					  the end of their last (INT64_MIN: none) */
	uint64_t frame_ns;
	uint64_t frames, placeholders, bytes;
	unsigned int nfiles, inputs, nstreams;
	struct codif_hdr ids[CC_XRES_STREAMS]; /**< the streams written */
	char file[CC_XRES_FILES][PATH_MAX];
};

struct cc_xseq;

/**
 * A window's frames from codif and raw inputs, in time order, into the
 * outputs of o->to (o->outdir, formats.md names): one output while the
 * rows follow each other, a new one at a hole, a resync or new
 * parameters. x: from, to set; the rest zero, first/end/rec_* INT64_MIN.
 */
struct cc_xseq *cc_xseq_new(const struct cc_conv_opts *o, struct cc_xres *x);
/** One input, read whole (constant memory). @return 0, 1 (the input had
 * problems: reported, its good frames taken) or -1 (err says why). */
int cc_xseq_file(struct cc_xseq *q, const char *in, const struct cc_scan_opts *so, char *err,
		 size_t errlen);
/** The last output finished; q freed. @return 0 or -1 (err). */
int cc_xseq_end(struct cc_xseq *q, char *err, size_t errlen);

#endif /* CC_CONVERT_H */
