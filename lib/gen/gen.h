/* SPDX-License-Identifier: BSD-3-Clause */
/* CODIF multi-antenna stream model: emission order, faults, ground truth. */

#ifndef GEN_H
#define GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "codif.h"

#define GEN_MAX_ANTENNAS 64
#define GEN_MAX_GROUPS 64
#define GEN_MAX_THREADS 64
#define GEN_MAX_DEPTH 1024
/** Largest frame built: Ethernet + VLAN + IPv4 + UDP + 64 + data. */
#define GEN_MAX_FRAME (14 + 4 + 20 + 8 + 64 + 65536)

/** What happens to one frame (at most one per frame). */
enum gen_fault {
	GEN_F_NONE = 0,
	GEN_F_LOSS,       /**< never sent */
	GEN_F_INVALID,    /**< sent with the invalid bit set */
	GEN_F_DUPLICATE,  /**< sent twice */
	GEN_F_VLAN,       /**< sent with an 802.1Q tag (valid) */
	GEN_F_BAD_SYNC,   /**< sync word corrupted (replaces the frame) */
	GEN_F_BAD_LENGTH, /**< UDP payload shorter than the header says */
	GEN_F_TRUNCATED,  /**< Ethernet frame cut inside the payload */
	GEN_F_NON_CODIF,  /**< a VDIF frame in its place */
	GEN_F_NON_IPV4,   /**< an IPv6 frame in its place */
	GEN_F__COUNT
};

struct gen_group {
	uint32_t ip;
	uint16_t port;
};

struct gen_cfg {
	unsigned int nant, nthread, ngroup;
	uint32_t ant_ip[GEN_MAX_ANTENNAS];
	struct gen_group group[GEN_MAX_GROUPS];
	uint64_t ant_groups[GEN_MAX_ANTENNAS]; /**< bit g: antenna sends to group g */
	uint64_t select;                       /**< bit a: emit antenna a (0 = all) */
	struct codif_hdr tmpl;  /**< parameters; ids and time are filled in */
	uint16_t groupid_base;  /**< groupid = base + antenna index */
	int64_t start_ns;       /**< Unix ns of the first frame (rounded to a frame) */
	uint64_t frames;        /**< frames per stream (>= 2) */
	uint64_t seed;
	double p[GEN_F__COUNT]; /**< probability of each fault per frame */
	double p_reorder;       /**< probability a frame is delayed */
	unsigned int depth;     /**< delay of 1..depth frames (reorder, duplicate copies) */
	uint16_t vlan_id;
	uint8_t ttl;
};

/** Ground truth of one stream, as a receiver must count it. */
struct gen_truth {
	uint64_t frames;     /**< expected: last - first + 1 */
	uint64_t sent;       /**< packets emitted for the stream */
	uint64_t received, lost, late, duplicate, invalid;
	uint64_t malformed;  /**< attributable to the antenna (IPv4 source) */
	uint64_t non_ipv4;   /**< replaced by non-IPv4: not attributable */
	uint64_t vlan;       /**< valid frames sent with a VLAN tag */
	uint64_t bytes;      /**< CODIF bytes (64 + data) of received frames */
	uint64_t wire_bytes; /**< Ethernet bytes of every packet sent */
	uint64_t fault[GEN_F__COUNT];
	int64_t first_ns, last_ns;
};

struct gen_stream {
	unsigned int ant, thread, group;
	struct codif_hdr hdr;   /**< ids, params; time of frame 0 */
	uint64_t fpp;
	struct gen_truth t;
	int64_t max_valid;      /**< highest frame emitted validly so far */
	uint64_t *emitted;      /**< bit per frame: a valid copy went out */
	/* per-slot pending packets (delayed frames, duplicate copies) */
	struct gen_pend *ring;
	unsigned int ring_len;
};

/** One packet to emit. */
struct gen_pkt {
	unsigned int stream;
	int64_t index;        /**< frame index in the stream, 0-based */
	enum gen_fault fault;
	bool copy;            /**< the second copy of a duplicate */
	int64_t ts_ns;        /**< timestamp (frame time based, monotonic) */
};

struct gen {
	struct gen_cfg cfg;
	unsigned int nstream;
	struct gen_stream *st;
	uint64_t rng;
	int64_t slot;         /**< current slot (frame index being emitted) */
	unsigned int cur;     /**< stream being visited in this slot */
	struct gen_pkt *out;  /**< packets of the current (slot, stream) */
	unsigned int nout, iout, capout;
	struct codif_clock clk; /**< the streams' clock */
	int64_t idx0;         /**< its index of every stream's frame 0 */
	uint64_t frame_ns;    /**< exact CODIF frame duration (rounded down) */
	uint64_t step_ns;     /**< spacing of packets within a slot */
	unsigned int in_slot; /**< packets emitted in the current slot */
	uint64_t packets;     /**< packets emitted so far */
	char err[256];
};

/** Fill cfg with the ASKAP-like defaults (6 antennas, 2 threads, 4 groups). */
void gen_cfg_defaults(struct gen_cfg *cfg);

/**
 * Check cfg and build the streams.
 * @return 0, or -EINVAL/-ENOMEM with the reason in g->err.
 */
int gen_init(struct gen *g, const struct gen_cfg *cfg);
void gen_free(struct gen *g);

/**
 * The next packet in emission order.
 * @return 1 with *p filled, 0 when every stream is done.
 */
int gen_next(struct gen *g, struct gen_pkt *p);

/**
 * Build the Ethernet frame of p into buf (cap >= GEN_MAX_FRAME).
 * @return frame length.
 */
uint32_t gen_build(const struct gen *g, const struct gen_pkt *p, uint8_t *buf);

/**
 * UDP payload of p as a kernel socket would send it (no L2-L4 headers).
 * Faults below UDP (truncated, non-IPv4, VLAN) have no socket form.
 * @return payload length.
 */
uint32_t gen_build_payload(const struct gen *g, const struct gen_pkt *p,
			   uint8_t *buf);

/** Header of frame index of stream s (time filled in, no faults). */
void gen_frame_hdr(const struct gen *g, unsigned int s, int64_t index,
		   struct codif_hdr *h);

/** Name of a fault, as used on the command line ("bad-sync"). */
const char *gen_fault_name(enum gen_fault f);

/** Write the ground truth as JSON. @return 0 or -EIO. */
int gen_truth_json(const struct gen *g, FILE *f);

#endif /* GEN_H */
