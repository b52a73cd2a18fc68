/* SPDX-License-Identifier: BSD-3-Clause */
/* Accounting of antenna traffic: one Ethernet frame in, classified and
 * counted, out as one frame descriptor (struct acct_fd) that placement takes
 * as it is. Owns each antenna's timeline (lib/codif) and its streams. */

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
	/* PKT_ERR_* values 1..PKT__ERR_COUNT-1 come first: a packet that is
	 * not IPv4, or a VLAN-tagged one whose source is no known antenna, by
	 * its first fault */
	ACCT_C_UNKNOWN_SOURCE = PKT__ERR_COUNT, /**< IPv4 from no antenna (an
						     untagged one counted before
						     its other faults are looked
						     for: the early drop) */
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
	ACCT_M_IMPLAUSIBLE,   /**< held for a time no timeline took (never
				   confirmed): a bit flip, a stray frame */
	ACCT_M_PARAM_CHANGE,  /**< held for parameters never confirmed */
	ACCT_M_SPLIT,         /**< CODIF header not within the readable head
				   (buffer split at another offset) */
	ACCT_M_TOO_MANY_STREAMS, /**< antenna has ACCT_MAX_STREAMS already */
	ACCT_M_IP_CSUM,       /**< IPv4 header checksum wrong (port offload or
				   software check) */
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
	/** CODIF threads per group: informs the buffers' sizing only (a
	 * stream's slot is assigned by its identity, acct_stream.slot). */
	unsigned int nthread;
	/** Each antenna's timeline: window, reorder window, confirm, max gap
	 * (all 0: lib/codif's defaults). */
	struct codif_tl_cfg tl;
};

/** fd.slot of a frame whose stream has no buffer slot (the buffer's slots
 * were all taken by other streams when it asked). */
#define ACCT_NO_SLOT 0xffffu
/** fd.slot of a frame whose stream has not asked its buffer for a slot yet:
 * placement assigns one by the stream's identity (antbuf_slot_assign) and
 * caches it in the stream (acct_set_slot), once per stream. */
#define ACCT_SLOT_NEW 0xfffeu

/** Why a received frame was not recorded (placed in its antenna's buffer):
 * per stream, struct acct_stream.nr. */
enum acct_nr {
	ACCT_NR_NO_SLOT = 0,  /**< the buffer's slots are all other streams' */
	ACCT_NR_WRONG_SIZE,   /**< data bytes more than the buffer's slot holds
				   (or, by reference, not whole in one segment) */
	ACCT_NR_SLOT_HELD,    /**< its row and slot already hold a frame */
	ACCT_NR_OTHER_CLOCK,  /**< another clock within one timeline segment */
	ACCT_NR__COUNT
};

/** struct acct_fd.flags: CODIF_OUT_SEG_START, _RESYNC, _NEW_PARAMS and */
#define ACCT_FD_INVALID 0x80 /**< the CODIF invalid bit */

/**
 * One frame, as accounting decided it and placement takes it: where it
 * goes (antenna, stream, slot), when (index on the antenna's clock, segment),
 * what it is (class, flags) and where its bytes are.
 */
struct acct_fd {
	const uint8_t *pkt;          /**< the frame from its Ethernet header
					  (NULL in an action: the caller's copy) */
	const struct codif_clock *clk; /**< the antenna's timeline clock */
	int64_t index;               /**< frame index on clk */
	int64_t arrival_ns;          /**< the caller's: arrival time */
	uint64_t nlost;              /**< frames newly lost just before it */
	uint32_t tseg;               /**< the antenna timeline's segment */
	uint32_t dst_ip;             /**< host order */
	uint32_t codif_len;          /**< UDP payload: 64 + data bytes */
	uint32_t wirelen;            /**< frame length on the wire */
	uint16_t codif_off;          /**< CODIF header offset in pkt */
	uint16_t dport;
	int16_t ant;                 /**< antenna, -1 none */
	int16_t stream;              /**< stream in the antenna, -1 none */
	uint16_t slot;               /**< buffer slot, ACCT_NO_SLOT none */
	uint8_t cls;                 /**< enum codif_seq_class */
	uint8_t flags;               /**< CODIF_OUT_* | ACCT_FD_INVALID */
};

/** Whether a frame of this class is placed (first, in order, gap, late). */
static inline bool
acct_placeable(unsigned int cls)
{
	return cls <= CODIF_SEQ_LATE;
}

/** One stream: CODIF ids + destination, and its tracker. */
struct acct_stream {
	uint32_t dst_ip;
	uint16_t dport;
	uint16_t stationid, groupid, secondaryid, threadid;
	int group;         /**< index of (dst_ip, dport) in the layout's groups */
	uint16_t slot;     /**< its buffer slot: ACCT_SLOT_NEW until placement
			        asked, ACCT_NO_SLOT none was free */
	struct codif_seq seq;
	/** The header fast path: words 1-4 of a frame that passed every check
	 * with seq.ref's parameters (word 1's per-frame flags masked), and its
	 * UDP payload length. A frame whose words equal them is this stream's
	 * with those parameters: no decode, search or compare. Valid while
	 * fast_gen == seq.ref_gen (ref assigned anew: stale). */
	uint64_t fast_w[4];
	uint32_t fast_len;  /**< 0: nothing cached */
	uint32_t fast_gen;
	struct codif_hdr fast_h; /**< that frame decoded: words 1-4's fields */
	/** received frames not recorded, by cause (placement's, rx lcore) */
	uint64_t nr[ACCT_NR__COUNT];
	/** causes of nr already logged (bit per cause): the main lcore's */
	uint32_t nr_logged;
};

/** The header fast path's table of an antenna: a stream's slot from its
 * group index and the low bits of its thread id. */
#define ACCT_FAST_SLOTS 64
#define ACCT_FAST_KEY(g, thread) ((((unsigned int)(g) << 3) ^ (unsigned int)(thread)) & \
				  (ACCT_FAST_SLOTS - 1))

/** Counters of an antenna that belong to no stream. */
struct acct_ant {
	uint64_t pkts;        /**< packets from this source IP */
	uint64_t wire_bytes;  /**< their frame bytes */
	uint64_t malformed;   /**< sum of mal[] */
	uint64_t mal[ACCT_M__COUNT];
	unsigned int nstream;
	struct acct_stream *stream; /**< ACCT_MAX_STREAMS entries */
	int last;                   /**< last stream hit (cache) */
	/** The streams of the header fast path by group and thread id
	 * (ACCT_FAST_KEY): index + 1, 0 none. */
	uint8_t fast[ACCT_FAST_SLOTS];
	struct codif_tl tl;         /**< the antenna's timeline (its streams') */
	uint64_t resyncs_logged;    /**< tl.resyncs already in the event log */
	uint64_t outages_logged;    /**< tl.outages already in the event log */
};

/**
 * A stream's or an antenna's counts: a snapshot taken by acct_stream_add /
 * acct_ant_add. lib/stats (stats_counts) describes every field once: its
 * name, unit, help and merge rule; the summary, JSON, telemetry and the
 * generator's truth all use those names. Zero it with stats_zero.
 */
struct acct_counts {
	uint64_t streams;          /**< antenna: streams seen */
	uint64_t expected;         /**< frame indices from first to newest, per segment */
	uint64_t received, lost, late, duplicate, invalid;
	uint64_t malformed;        /**< antenna: sum of mal[] */
	uint64_t implausible, param_change, too_late;
	uint64_t resyncs, resync_skipped, timeline_resyncs, new_params;
	uint64_t bytes;            /**< CODIF bytes of received frames */
	uint64_t recorded;         /**< received - not_recorded */
	uint64_t not_recorded;     /**< sum of nr[] */
	uint64_t packets;          /**< antenna: packets from its source address */
	uint64_t wire_bytes;       /**< antenna: their Ethernet bytes */
	int64_t first_ns;          /**< earliest frame time, INT64_MAX if none */
	int64_t last_ns;           /**< latest frame time, INT64_MIN if none */
	uint64_t mal[ACCT_M__COUNT]; /**< antenna: malformed by cause */
	uint64_t nr[ACCT_NR__COUNT]; /**< not recorded by cause */
};

/** Per port counters of one instance. */
struct acct_port {
	uint64_t pkts, bytes;
	uint64_t cause[ACCT_C__COUNT];
};

/** What acct_frame decided about one packet. */
struct acct_result {
	int ant;                  /**< antenna index, -1 if none */
	int group;                /**< group index of the destination, -1 none */
	enum acct_cause cause;    /**< when ant < 0 */
	enum acct_malformed mal;  /**< when fd.cls == CODIF_SEQ_MALFORMED */
	struct acct_fd fd;        /**< the frame (fd.stream -1: none) */
	struct codif_hold *hold;  /**< fd.cls SUSPECT: keep the frame, put its
				       handle in hold->handle (NULL: dropped) */
	uint64_t tail;            /**< frames lost at the end of the stream's
				       previous segment (fd starts a segment) */
	struct pkt_info pi;
	struct codif_hdr hdr;     /**< decoded when a CODIF header was found */
};

/** A held frame released or dropped (acct_action). */
struct acct_action {
	bool drop;                /**< dropped (counted): free the caller's copy */
	uint64_t handle;          /**< the caller's copy */
	struct acct_fd fd;        /**< released: place it; fd.pkt is NULL, the
				       caller points it at its copy */
	enum codif_drop why;      /**< dropped: why */
	uint64_t tail;            /**< as struct acct_result.tail */
};

/** A resync of an antenna's timeline, or an outage, for the log. */
struct acct_event {
	int ant;
	bool outage;              /**< an outage (lost frames): o, else r */
	struct codif_resync r;
	struct codif_outage o;
};

#define ACCT_EVENTS 64

/** The antennas by source address (open addressing, 4x their number). */
#define ACCT_ANT_HASH 256

/** One accounting instance (one per rx lcore, single writer). */
struct acct {
	const struct acct_layout *layout;
	struct acct_layout learned;  /**< the layout in learn mode */
	/** antenna index + 1 by hash of its address, 0 empty (not in learn
	 * mode: the layout does not change) */
	uint8_t ant_hash[ACCT_ANT_HASH];
	struct acct_ant ant[ACCT_MAX_ANTENNAS];
	struct acct_port port[ACCT_MAX_PORTS];
	char err[160];               /**< last reason (malformed/param), unless quiet */
	bool fast_off;               /**< the full checks for every frame, no
					  header fast path (tests compare the
					  two) */
	bool quiet;                  /**< no reason text per packet: the causes
					  are counted as numbers; a line that
					  shows one (the capture's -v) formats it */
	/* resyncs, for the log: written here, read by another thread */
	struct acct_event ev[ACCT_EVENTS];
	uint64_t nev;                /**< events so far (release) */
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
 * Reasons for malformed frames are left in a->err. r->fd is the frame for
 * placement when acct_placeable(r->fd.cls). On CODIF_SEQ_SUSPECT the caller
 * keeps the frame (its bytes must stay readable) and stores a handle to its
 * copy in r->hold->handle. Then, after every call, it takes the antenna's
 * actions (acct_action) until there are none.
 */
void acct_frame(struct acct *a, unsigned int port, const uint8_t *frame,
		uint32_t len, struct acct_result *r);

/** What the receiver knows of a packet besides its bytes. */
struct acct_rx {
	int64_t arrival_ns;  /**< arrival time (Unix ns), CODIF_NO_ARRIVAL unknown:
				  tells an outage from a clock step (lib/codif) */
	uint8_t ip_csum;     /**< enum pkt_csum: the port's verdict on the IPv4
				  header checksum; PKT_CSUM_UNKNOWN: checked here */
};

/**
 * acct_frame2 with what the receiver knows: the arrival time (also put in
 * r->fd.arrival_ns) and the port's checksum verdict. rx NULL: neither.
 */
void acct_frame_rx(struct acct *a, unsigned int port, const uint8_t *frame,
		   uint32_t caplen, uint32_t wirelen, const struct acct_rx *rx,
		   struct acct_result *r);

/**
 * acct_frame of a frame of which only the first caplen bytes are readable
 * (buffer split: headers in host memory, payload elsewhere); the CODIF
 * header must lie within them. Nothing past caplen is read.
 */
void acct_frame2(struct acct *a, unsigned int port, const uint8_t *frame,
		 uint32_t caplen, uint32_t wirelen, struct acct_result *r);

/** Whether antenna ant may have actions pending (cheap). */
static inline bool
acct_busy(const struct acct *a, int ant)
{
	return ant >= 0 && codif_tl_busy(&a->ant[ant].tl);
}

/**
 * The next held frame of antenna ant released (place act->fd, pointing
 * fd.pkt at the copy of act->handle, then free the copy) or dropped (free
 * the copy; counted).
 * @return true with *act filled, false when there is none.
 */
bool acct_action(struct acct *a, int ant, struct acct_action *act);

/**
 * End of input: every held frame is dropped (take the actions of every
 * antenna after this), and each stream's segment runs to its antenna's
 * newest frame (what it lacks there is lost).
 */
void acct_flush(struct acct *a);

/**
 * A frame taken as received that placement refused as too late (its row
 * was final): counted too_late and lost instead of received, so the counts
 * equal what the buffer holds.
 */
void acct_unplaced(struct acct *a, const struct acct_fd *fd);

/**
 * The slot the buffer assigned to fd's stream (or ACCT_NO_SLOT): cached in
 * the stream, so its later frames (fd.slot) carry it without a lookup.
 */
void acct_set_slot(struct acct *a, const struct acct_fd *fd, uint16_t slot);

/**
 * The slot fd's stream would have if the layout's groups x threads were all
 * there is (group index x nthread + threadid), ACCT_NO_SLOT when its
 * threadid is beyond nthread: where the buffer puts it when that slot is
 * free, so declared streams keep one order from run to run.
 */
uint16_t acct_home_slot(const struct acct *a, const struct acct_fd *fd);

/** A frame taken as received that placement could not record, for cause. */
static inline void
acct_not_recorded(struct acct *a, const struct acct_fd *fd, enum acct_nr cause)
{
	if (fd->ant >= 0 && fd->stream >= 0)
		a->ant[fd->ant].stream[fd->stream].nr[cause]++;
}

/** Layout in use (the learned one in learn mode). */
const struct acct_layout *acct_layout_of(const struct acct *a);

/** Add antenna ant of instance a into c (its streams and its own counts). */
void acct_ant_add(const struct acct *a, unsigned int ant, struct acct_counts *c);
/** Add one stream's counts into c. */
void acct_stream_add(const struct acct_stream *s, struct acct_counts *c);
/** Add the counts of a stream tracker into c (acct_stream_add's). */
void acct_seq_add(const struct codif_seq *q, struct acct_counts *c);

/** Short names. */
const char *acct_cause_name(enum acct_cause c);
const char *acct_malformed_name(enum acct_malformed m);
const char *acct_nr_name(enum acct_nr c);

#endif /* ACCT_H */
