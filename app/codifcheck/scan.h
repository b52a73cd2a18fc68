/* SPDX-License-Identifier: BSD-3-Clause */
/* One pass over a codif, raw or pcap file: streams, counts, gaps, problems. */

#ifndef CC_SCAN_H
#define CC_SCAN_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>

#include "acct.h"
#include "codif.h"
#include "detect.h"
#include "gaps.h"
#include "hist.h"
#include "fmt_raw.h"
#include "rd.h"

/** Largest CODIF data part read (one frame is held in memory at a time). */
#define CC_MAX_DATA (64u << 20)
/** Streams tracked per codif/raw file (pcap: lib/acct's limits). */
#define CC_MAX_STREAMS 4096
#define CC_MSG_LEN 256

/** What is wrong. All of these are problems for verify; see cc_scan.damaged. */
enum cc_pkind {
	CC_P_FORMAT = 0, /**< not recognised, not readable, unsupported */
	CC_P_SYNC,       /**< no CODIF v3 header where a frame should start */
	CC_P_HEADER,     /**< header fails validation (fields, seconds) */
	CC_P_LENGTH,     /**< frame/packet length differs from its header */
	CC_P_PARAM,      /**< stream parameters changed (a lone frame: never confirmed) */
	CC_P_IMPLAUSIBLE, /**< a frame whose time fits no timeline (never confirmed) */
	CC_P_BACKWARDS,  /**< codif/raw: a frame older than the stream's newest */
	CC_P_TRUNCATED,  /**< file ends inside a frame or record */
	CC_P_PCAP,       /**< pcap record damage (libpcap cannot read on) */
	CC_P_IPUDP,      /**< antenna packet with a bad IPv4/UDP header */
	CC_P_PATTERN,    /**< payload differs from codifgen's pattern */
	CC_P_INDEX,      /**< raw index and raw data disagree */
	CC_P_LIMIT,      /**< more streams than tracked */
	CC_P_IO,         /**< read error */
	CC_P__COUNT
};

const char *cc_pkind_name(enum cc_pkind k);

struct cc_problem {
	enum cc_pkind kind;
	uint64_t off;     /**< byte offset in the file; UINT64_MAX: none */
	int64_t utc_ns;   /**< frame (codif/raw) or arrival (pcap) time; INT64_MIN: none */
	char msg[CC_MSG_LEN];
};

/**
 * One segment of a stream: from its start (a resync of its timeline, or new
 * parameters) to the next. Frame indices are on the segment's clock; gap
 * runs are kept as positions, index + off, which grow across segments.
 */
struct cc_seg {
	uint32_t tseg;            /**< the timeline's segment */
	uint8_t flags;            /**< CODIF_OUT_* of its first frame */
	struct codif_clock clk;
	struct codif_hdr ref;     /**< its first frame's header */
	int64_t first_index;      /**< its first frame's index */
	int64_t off;              /**< position of index n: n + off */
	int64_t skipped;          /**< frames a resync skipped before it */
};

struct cc_stream {
	bool net;                 /**< src/dst/port are known (pcap, raw index) */
	uint32_t src, dst;
	uint16_t port;
	uint16_t stationid, groupid, secondaryid, threadid;
	int ant;                  /**< pcap: lib/acct antenna index; raw: the index's */
	struct codif_seq *seq;    /**< lib/acct's (pcap) or &own */
	struct codif_tl *tl;      /**< its timeline: lib/acct's antenna's (pcap) or &own_tl */
	struct codif_seq own;
	struct codif_tl own_tl;
	struct cc_seg *seg;       /**< its segments, in order */
	unsigned int nseg, capseg;
	int64_t hi;               /**< highest position taken */
	struct cc_gaps gaps;
	int64_t first;            /**< lowest index accounted (as seq->first) */
	uint64_t filled;          /**< placeholders: invalid bit + zero data */
	uint64_t backwards;       /**< codif/raw: frames older than the newest */
	uint64_t pattern_bad;
	struct cc_hist *offset;   /**< pcap: arrival - CODIF frame time */
	struct cc_hist *jitter;   /**< pcap: |offset - previous offset| */
	int64_t last_offset;
	bool have_offset;
	uint64_t rfc_jitter16;    /**< RFC 3550 interarrival jitter x 16, ns */
};

/* Counts of a stream as the report states them: a placeholder frame is
 * lost (it never arrived), not received/invalid. */
uint64_t cc_stream_received(const struct cc_stream *st);
uint64_t cc_stream_lost(const struct cc_stream *st);
uint64_t cc_stream_invalid(const struct cc_stream *st);
/** "AK/257/0/0", or "10.17.0.211>239.17.0.1:36001 AK/257/0/0" with net. */
char *cc_stream_name(const struct cc_stream *st, char *buf, size_t len);

/** One frame accepted into a stream, for a caller's callback. */
struct cc_frame_ev {
	struct cc_stream *st;
	const struct codif_hdr *h;
	const uint8_t *codif;     /**< header + data */
	size_t len;
	enum codif_seq_class cls; /**< FIRST .. LATE (others are not handed out) */
	uint8_t flags;            /**< CODIF_OUT_*: a new segment starts here */
	uint32_t tseg;            /**< its timeline's segment */
	int64_t index;            /**< on the timeline's clock */
	uint64_t off;             /**< file offset of the CODIF header (pcap: of its bytes) */
	int64_t ts_ns;            /**< pcap arrival time, else INT64_MIN */
	bool filled;              /**< a placeholder frame */
	int ant, stream;          /**< pcap: lib/acct indices, else -1 */
};

/** Return non-zero to stop the scan (cc_scan_* then return -ECANCELED). */
typedef int (*cc_frame_cb)(void *ctx, const struct cc_frame_ev *ev);

/**
 * Which capture packets belong to the antennas. lib/acct's learn mode
 * takes every IPv4 source for an antenna and every destination for a
 * group; a capture with other traffic names its antennas and groups here,
 * and the rest is counted as from no antenna (unknown-source, -group, -port).
 */
struct cc_filter {
	unsigned int nant, ngroup;    /**< 0: any */
	uint32_t ant_ip[ACCT_MAX_ANTENNAS];
	char ant_name[ACCT_MAX_ANTENNAS][ACCT_NAME_LEN]; /**< --antenna-ip IP=NAME, or "" */
	struct acct_group group[ACCT_MAX_GROUPS];
};

struct cc_scan_opts {
	bool pattern;               /**< check payloads against codifgen's pattern */
	struct codif_tl_cfg tl;     /**< timelines: window, reorder window, confirm,
				         max gap (all 0: the defaults) */
	unsigned int max_problems;  /**< problems kept with their text (counts are exact) */
	const struct cc_filter *filter; /**< captures: NULL or nothing set = all */
};

struct cc_scan {
	struct cc_scan_opts o;
	enum cc_fmt fmt;
	uint64_t records;           /**< frames (codif, raw) or records (pcap) read */
	int linktype;
	struct cc_stream **st;      /**< in order of first appearance */
	unsigned int nst, capst;
	int last_hit;
	struct acct *acct;          /**< pcap */
	struct cc_stream *side[ACCT_MAX_ANTENNAS][ACCT_MAX_STREAMS];
	uint8_t *scratch;           /**< pcap: re-framed packets; raw: one frame */
	struct cc_problem *pr;      /**< the first max_problems problems */
	unsigned int npr;
	uint64_t nprob[CC_P__COUNT];
	uint64_t problems;
	/** Captures: packets from no antenna, by cause: lib/acct's and the
	 * filter's together. */
	uint64_t unattributed[ACCT_C__COUNT];
	/** The file could not be read cleanly to its end: truncated, damaged
	 * structure (codif sync/length, raw index), unreadable. Malformed
	 * packets in a pcap are faithful records, not damage. */
	bool damaged;
	int64_t last_good_ns;       /**< time of the last good frame (context) */
	int err;                    /**< -ENOMEM etc. that stopped the scan */
	cc_frame_cb cb;
	void *cb_ctx;
};

/** @return a scan, or NULL (ENOMEM). */
struct cc_scan *cc_scan_new(const struct cc_scan_opts *o);
void cc_scan_free(struct cc_scan *s);
void cc_scan_set_cb(struct cc_scan *s, cc_frame_cb cb, void *ctx);

/** Record a problem (counted always; its text kept for the first max). */
void cc_scan_problem(struct cc_scan *s, enum cc_pkind k, uint64_t off,
		     int64_t utc_ns, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/**
 * Scan CODIF frames from rd to its end: sync, length, header, parameter,
 * order checks; resynchronises after damage.
 * @return 0 (read to the end; problems in s), or -EIO / -ENOMEM / -ECANCELED.
 */
int cc_scan_codif(struct cc_scan *s, struct cc_rd *rd);

/** Scan a raw file (rd) with its parsed index. Same returns. */
int cc_scan_raw(struct cc_scan *s, const struct fmt_raw_index *ri,
		struct cc_rd *rd, uint64_t raw_size);

/**
 * Scan every record of an opened capture (Ethernet, Linux SLL/SLL2, raw
 * IP) through lib/acct in learn mode. Set s->fmt to CC_FMT_PCAPNG first
 * for a pcapng file (record offsets differ). Same returns.
 */
int cc_scan_pcap(struct cc_scan *s, pcap_t *p);

/**
 * The end of the input (after a cc_scan_*): frames still held aside are
 * dropped (problems), and each stream's last segment is closed at its
 * timeline's newest frame. @return 0, -ENOMEM or -ECANCELED.
 */
int cc_scan_finish(struct cc_scan *s);

/** Order of streams: (src, dst, port, station, groupid, secondaryid, threadid). */
int cc_stream_cmp(const struct cc_stream *x, const struct cc_stream *y);
/** Sort the streams of s by cc_stream_cmp. */
void cc_scan_sort(struct cc_scan *s);

/** Whether a frame of this class took its place in the stream (first,
 * in order, after a gap, or late into one). */
bool cc_seq_placed(enum codif_seq_class c);

/** Start time of position pos of stream st (its segment's clock). */
int64_t cc_stream_pos_ns(const struct cc_stream *st, int64_t pos);
/** Frame index and segment of position pos. */
const struct cc_seg *cc_stream_pos_seg(const struct cc_stream *st, int64_t pos, int64_t *index);

/** Whether the filter sends this parsed packet to lib/acct; else *cause. */
bool cc_filter_pass(const struct cc_filter *f, const struct pkt_info *pi,
		    enum pkt_err pe, enum acct_cause *cause);

/** Whether len bytes at p are all zero. */
bool cc_all_zero(const uint8_t *p, size_t len);

#endif /* CC_SCAN_H */
