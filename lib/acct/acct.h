/* SPDX-License-Identifier: BSD-3-Clause */
/* Accounting of antenna traffic: one Ethernet frame in, classified and counted. */

#ifndef ACCT_H
#define ACCT_H

#include <stdbool.h>
#include <stdint.h>

#include "codif.h"
#include "pkt.h"

#define ACCT_MAX_ANTENNAS 64
#define ACCT_MAX_GROUPS 64
#define ACCT_MAX_PORTS 8
#define ACCT_MAX_STREAMS 64 /**< per antenna */
#define ACCT_NAME_LEN 32

/** Why a packet was not attributed to an antenna (per port counters). */
enum acct_cause {
	/* PKT_ERR_* values 1..PKT__ERR_COUNT-1 come first, from a source
	 * that is not a known antenna (or not IPv4 at all) */
	ACCT_C_UNKNOWN_SOURCE = PKT__ERR_COUNT, /**< IPv4/UDP from no antenna */
	ACCT_C_UNKNOWN_GROUP,  /**< antenna, but destination not a group */
	ACCT_C_UNKNOWN_PORT,   /**< antenna and group, wrong UDP port */
	ACCT_C__COUNT
};

/** Why an antenna's packet was malformed (per antenna counters). */
enum acct_malformed {
	ACCT_M_L3L4 = 0,      /**< bad IPv4/UDP (truncated, lengths, fragment) */
	ACCT_M_NOT_CODIF,     /**< no CODIF v3 header (sync, protocol, VDIF) */
	ACCT_M_HEADER,        /**< CODIF header fails validation */
	ACCT_M_LENGTH,        /**< UDP payload length != 64 + framelength8*8 */
	ACCT_M_SECONDS,       /**< seconds not a whole number of periods on */
	ACCT_M_PARAM_CHANGE,  /**< stream parameters differ from its first frame */
	ACCT_M_SPLIT,         /**< CODIF header not within the readable head
				   (buffer split at another offset) */
	ACCT_M_TOO_MANY_STREAMS, /**< antenna has ACCT_MAX_STREAMS already */
	ACCT_M__COUNT
};

struct acct_group {
	uint32_t ip;   /**< host order */
	uint16_t port;
};

/** Who is expected: read-only configuration shared by all instances. */
struct acct_layout {
	unsigned int nant;
	uint32_t ant_ip[ACCT_MAX_ANTENNAS];      /**< host order */
	char ant_name[ACCT_MAX_ANTENNAS][ACCT_NAME_LEN];
	unsigned int ngroup;
	struct acct_group group[ACCT_MAX_GROUPS];
	/** Learn antennas (any source) and groups (any dst) as they come:
	 * for offline tools reading unknown captures. */
	bool learn;
	uint32_t window; /**< tracker window, frames (0 = default) */
};

/** One stream: CODIF ids + destination, and its tracker. */
struct acct_stream {
	uint32_t dst_ip;
	uint16_t dport;
	uint16_t stationid, groupid, secondaryid, threadid;
	int group;         /**< index of (dst_ip, dport) in the layout's groups */
	uint64_t fpp;
	struct codif_seq seq;
};

/** Counters of an antenna that belong to no stream. */
struct acct_ant {
	uint64_t pkts;        /**< packets from this source IP */
	uint64_t wire_bytes;  /**< their frame bytes */
	uint64_t malformed;   /**< sum of mal[] */
	uint64_t mal[ACCT_M__COUNT];
	unsigned int nstream;
	struct acct_stream *stream; /**< ACCT_MAX_STREAMS entries */
	int last;                   /**< last stream hit (cache) */
};

/** Per antenna sums (over streams and instances). */
struct acct_ant_totals {
	uint64_t streams;
	uint64_t expected, received, lost, late, duplicate, invalid;
	uint64_t too_old, param_change, malformed, bytes, pkts, wire_bytes;
	uint64_t mal[ACCT_M__COUNT];
	int64_t first_ns;  /**< earliest frame time, INT64_MAX if none */
	int64_t last_ns;   /**< latest frame time, INT64_MIN if none */
};

/** Per port counters of one instance. */
struct acct_port {
	uint64_t pkts, bytes;
	uint64_t cause[ACCT_C__COUNT];
};

/** What acct_frame decided about one packet. */
struct acct_result {
	int ant;                  /**< antenna index, -1 if none */
	int stream;               /**< stream index in antenna, -1 if none */
	int group;                /**< group index of the destination, -1 none */
	enum codif_seq_class cls; /**< valid when stream >= 0 */
	enum acct_cause cause;    /**< when ant < 0 */
	enum acct_malformed mal;  /**< when cls == CODIF_SEQ_MALFORMED */
	int64_t index;            /**< absolute frame index in the stream */
	uint64_t nlost;           /**< frames lost before it (GAP) */
	uint32_t codif_off;       /**< CODIF header offset in the frame */
	uint32_t codif_len;       /**< UDP payload length */
	struct pkt_info pi;
	struct codif_hdr hdr;     /**< decoded when a CODIF header was found */
};

/** One accounting instance (one per rx lcore, single writer). */
struct acct {
	const struct acct_layout *layout;
	struct acct_layout learned;  /**< the layout in learn mode */
	struct acct_ant ant[ACCT_MAX_ANTENNAS];
	struct acct_port port[ACCT_MAX_PORTS];
	char err[160];               /**< last reason (malformed/param) */
};

/**
 * Create an instance over layout (which must outlive it, unless learn).
 * @return pointer, or NULL (errno ENOMEM or EINVAL).
 */
struct acct *acct_create(const struct acct_layout *layout);
void acct_free(struct acct *a);

/** Index of the antenna with source IP ip, or -1. */
int acct_find_antenna(const struct acct_layout *l, uint32_t ip);
/** Index of the group ip:port, -1 if no such ip, -2 if ip but not port. */
int acct_find_group(const struct acct_layout *l, uint32_t ip, uint16_t port);

/**
 * Classify and count one frame that arrived on port (< ACCT_MAX_PORTS).
 * Reasons for malformed/param-change are left in a->err.
 */
void acct_frame(struct acct *a, unsigned int port, const uint8_t *frame,
		uint32_t len, struct acct_result *r);

/**
 * acct_frame of a frame of which only the first caplen bytes are readable
 * (buffer split: headers in host memory, payload elsewhere); the CODIF
 * header must lie within them. Nothing past caplen is read.
 */
void acct_frame2(struct acct *a, unsigned int port, const uint8_t *frame,
		 uint32_t caplen, uint32_t wirelen, struct acct_result *r);

/** Layout in use (the learned one in learn mode). */
const struct acct_layout *acct_layout_of(const struct acct *a);

/** Zero t for summing. */
void acct_totals_init(struct acct_ant_totals *t);
/** Add antenna ant of instance a into t. */
void acct_ant_add(const struct acct *a, unsigned int ant,
		  struct acct_ant_totals *t);
/** Add one stream's counters into t. */
void acct_stream_add(const struct acct_stream *s, struct acct_ant_totals *t);

/** Short names. */
const char *acct_cause_name(enum acct_cause c);
const char *acct_malformed_name(enum acct_malformed m);

#endif /* ACCT_H */
