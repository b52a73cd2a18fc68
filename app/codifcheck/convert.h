/* SPDX-License-Identifier: BSD-3-Clause */
/* The convert command: a capture, codif or raw file to another of these formats. */

#ifndef CC_CONVERT_H
#define CC_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "codif.h"

#include "detect.h"
#include "scan.h"

/** Defaults for synthesised headers (codifgen's first antenna and group). */
#define CC_DEFAULT_SRC 0x0A1100D3u   /* 10.17.0.211 */
#define CC_DEFAULT_DST 0xEF110001u   /* 239.17.0.1 */
#define CC_DEFAULT_PORT 36001
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

#endif /* CC_CONVERT_H */
