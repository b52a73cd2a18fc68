/* SPDX-License-Identifier: BSD-3-Clause */
/* CODIF multi-antenna stream model: emission order, faults, ground truth. */

#ifndef GEN_H
#define GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "acct.h"
#include "codif.h"
#include "codif_signal.h"

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
	GEN_F_BAD_IP_CSUM, /**< IPv4 header checksum wrong (malformed ip-checksum) */
	GEN_F_EVENT,      /**< the odd frame of a flip or stray event (struct gen_event) */
	GEN_F__COUNT
};

/** Deterministic timeline faults at a chosen frame (struct gen_event). */
enum gen_ev_kind {
	GEN_EV_FLIP = 0,  /**< one header bit flipped: a lone odd frame */
	GEN_EV_STRAY,     /**< one frame's time moved: a lone odd frame */
	GEN_EV_STEP,      /**< from the frame on, every frame's time moved (a clock step) */
	GEN_EV_PARAM,     /**< from the frame on, a stream parameter changed */
	GEN_EV_BURST,     /**< `value` frames from the frame on never sent: an
			       outage (the packets' times, and a real-time
			       sender, go on through it: counted lost) */
	GEN_EV__COUNT
};

#define GEN_MAX_EVENTS 16

struct gen_event {
	enum gen_ev_kind kind;
	int64_t at;          /**< the frame (0-based) of each stream it touches */
	int ant;             /**< antenna index, -1: every antenna */
	int stream;          /**< the antenna's n-th stream, -1: all of them */
	bool extra;          /**< flip, stray: an extra packet (else in place of frame at) */
	char field[16];      /**< flip, param: the header field */
	unsigned int bit;    /**< flip */
	int64_t shift;       /**< stray, step: frames (of the stream's clock) */
	uint64_t value;      /**< param: the new value; burst: frames */
};

/**
 * Parse "KIND:ARG@FRAME[,ant=A][,stream=S][,extra]": flip:FIELD.BIT,
 * stray:[+-]DURATION, step:[+-]DURATION, param:FIELD=VALUE, burst:FRAMES,
 * outage:DURATION (a burst of the frames of DURATION: the sender silent
 * that long while its data clock goes on).
 * @return 0, or -EINVAL with "what, expected what" in err.
 */
int gen_event_parse(const char *spec, struct gen_event *e, char *err, size_t len);

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
	struct gen_event ev[GEN_MAX_EVENTS];
	unsigned int nev;
	/** the receivers' timeline (reorder window, window, confirm, max
	 * gap): the ground truth counts as they must (0: lib/codif defaults) */
	struct codif_tl_cfg tl;
	/** opt-in: antenna a's data is the synthetic signal sig[a] (lib/codif
	 * codif_signal: noise of an RMS, dead, saturated) instead of the
	 * deterministic pattern; the truth then has its expected statistics */
	uint64_t sig_mask;
	struct codif_signal sig[GEN_MAX_ANTENNAS];
};

/**
 * Parse a --signal value "A:LEVEL" into cfg: LEVEL is an RMS in steps of
 * the encoding (e.g. 3.5), a power in dB of steps^2 (e.g. 10dB: RMS
 * sqrt(10)), "dead" (every sample the zero code) or "saturated" (the
 * extreme codes). @return 0, or -EINVAL with "what, expected what" in err.
 */
int gen_signal_parse(const char *spec, struct gen_cfg *cfg, char *err, size_t len);

/** Ground truth of one stream, as a receiver must count it. */
struct gen_truth {
	/** What a receiver must count, under lib/stats' names (stats_counts):
	 * expected, received, lost, ..., packets and wire_bytes of the packets
	 * that carry the antenna's source address, first/last frame times. */
	struct acct_counts c;
	uint64_t sent;       /**< packets emitted for the stream (non-IPv4 too) */
	uint64_t sent_bytes; /**< their Ethernet bytes */
	uint64_t non_ipv4;   /**< replaced by non-IPv4: not attributable */
	uint64_t vlan;       /**< valid frames sent with a VLAN tag */
	uint64_t fault[GEN_F__COUNT];
};

struct gen_stream {
	unsigned int ant, thread, group;
	unsigned int nth;       /**< its place among its antenna's streams */
	int ev_param;           /**< its param event, -1 none */
	int64_t ev_idx2;        /**< ... the new clock's index of that frame */
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
	int ev;               /**< GEN_F_EVENT: the event, else -1 */
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
	struct codif_tl_cfg tl; /**< the receivers' timeline (cfg.tl or defaults) */
	uint64_t max_gap;       /**< tl.max_gap_ns in frames */
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

/** The configuration's antennas, groups and threads as the capture's
 * layout (lib/acct): what accounting of the generated traffic expects. */
void gen_layout(const struct gen_cfg *c, struct acct_layout *l);

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

/** Header of frame index of stream s (time filled in, no faults; steps and
 * parameter changes of events applied). */
void gen_frame_hdr(const struct gen *g, unsigned int s, int64_t index,
		   struct codif_hdr *h);

/** Name of an event kind ("step"). */
const char *gen_event_kind_name(enum gen_ev_kind k);

/** Name of a fault, as used on the command line ("bad-sync"). */
const char *gen_fault_name(enum gen_fault f);

/**
 * Stream si's ground truth as a receiver must count it: what was sent, and
 * what the events make of it (steps, bursts, new parameters).
 */
void gen_truth(const struct gen *g, unsigned int si, struct gen_truth *t);

/** Write the ground truth as JSON. @return 0 or -EIO. */
int gen_truth_json(const struct gen *g, FILE *f);

#endif /* GEN_H */
