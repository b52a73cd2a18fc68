/* SPDX-License-Identifier: BSD-3-Clause */
/* CODIF v3 header decode/encode/validate, time and frame-index arithmetic. */

#ifndef CODIF_H
#define CODIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Size of a CODIF v3 header: 8 little-endian 64-bit words. */
#define CODIF_HDR_LEN 64
/** The sync word of CODIF v3 (word 5, bits 0-31). */
#define CODIF_SYNC 0xFEEDCAFEu
/** Legacy (pre-v3, 32-bit word) CODIF sync words. */
#define CODIF_SYNC_LEGACY1 0xADEADBEEu
#define CODIF_SYNC_LEGACY2 0xABADDEEDu
/** The protocol field value that marks CODIF (VDIF holds 0 or 1 there). */
#define CODIF_PROTOCOL 7
/** Unix time of the CODIF/VDIF reference 2000-01-01T00:00:00Z. */
#define CODIF_Y2K_UNIX 946684800LL
/** Length of an ISO-8601 time string with ns, incl. NUL. */
#define CODIF_TIMESTR_LEN 40

/** Every field of a CODIF v3 header, decoded to host order. */
struct codif_hdr {
	uint32_t frame;          /**< frame number in the alignment period */
	uint32_t seconds;        /**< seconds since epoch at period start */
	uint8_t epoch;           /**< half-years since 2000-01-01 */
	uint8_t nbits;           /**< bits per sample component */
	bool atypical;           /**< "power" flag, carried */
	bool invalid;            /**< frame data must not be used */
	bool complex;            /**< complex (I,Q) samples */
	bool cal;                /**< noise-cal enabled */
	uint8_t representation;  /**< 4 bits, 1 = two's complement */
	uint8_t version;         /**< 5 bits, 3 today (2 seen) */
	uint8_t protocol;        /**< 3 bits, 7 = CODIF */
	uint16_t reserved;       /**< word 1 bits 32-47 */
	uint16_t period;         /**< alignment period, seconds */
	uint16_t threadid;
	uint16_t groupid;
	uint16_t secondaryid;
	uint16_t stationid;      /**< two ASCII chars, c0<<8 | c1 */
	uint16_t nchan;          /**< number of channels */
	uint16_t blocklength;    /**< sample block length, 8-byte units */
	uint32_t framelength8;   /**< data bytes / 8, header excluded */
	uint64_t totalsamples;   /**< samples per channel per period */
	uint32_t sync;           /**< CODIF_SYNC */
	uint16_t metaid;
	uint8_t metadata[18];
};

/** What a stream tracker made of one frame (struct codif_out.cls). */
enum codif_seq_class {
	CODIF_SEQ_FIRST = 0,  /**< first frame of the stream in this segment */
	CODIF_SEQ_IN_ORDER,   /**< N == newest + 1 */
	CODIF_SEQ_GAP,        /**< N > newest + 1: frames lost before it */
	CODIF_SEQ_LATE,       /**< N < newest, not seen before: fills a gap */
	CODIF_SEQ_DUPLICATE,  /**< N <= newest, seen before: dropped */
	CODIF_SEQ_TOO_LATE,   /**< behind the window (or refused by the buffer):
				   not received, its slot stays lost */
	CODIF_SEQ_SUSPECT,    /**< held aside: its time (or clock, or parameters)
				   does not fit the timeline; released or dropped
				   later (struct codif_act) */
	CODIF_SEQ_MALFORMED,  /**< (callers) header failed validation */
	CODIF_SEQ__COUNT
};

/**
 * Decode a CODIF v3 header. Fails (with a reason) only when fewer than
 * CODIF_HDR_LEN bytes are given; decode never judges the contents.
 *
 * @return 0, or -EINVAL (truncated buffer, reason in errbuf).
 */
int codif_decode(const void *buf, size_t len, struct codif_hdr *h,
		 char *errbuf, size_t errlen);

/** Encode h into 64 bytes at buf (little-endian words). */
void codif_encode(const struct codif_hdr *h, void *buf);

/**
 * Tell whether the 64+ bytes at buf hold a CODIF v3 header at all. Reports
 * VDIF ("VDIF version N, not CODIF") and legacy sync words by value.
 *
 * @return 0 when sync is 0xFEEDCAFE and protocol is 7, else -EPROTO
 *   (not CODIF v3; reason in errbuf) or -EINVAL (truncated).
 */
int codif_identify(const void *buf, size_t len, char *errbuf, size_t errlen);

/**
 * Validate a decoded header on its own: sync, protocol, non-zero nchan,
 * nbits, period and framelength8, integral samples per frame and frames
 * per period, frame < FPP. When payload_len is not SIZE_MAX it must equal
 * framelength8 * 8.
 *
 * @return 0, or -EPROTO with "field value, expected ..." in errbuf.
 */
int codif_validate(const struct codif_hdr *h, size_t payload_len,
		   char *errbuf, size_t errlen);

/** framelength8 * 8. */
uint64_t codif_data_bytes(const struct codif_hdr *h);
/** nchan * nbits * (complex ? 2 : 1): bits of one time sample. */
uint64_t codif_bits_per_sample(const struct codif_hdr *h);
/** Samples (per channel) in one frame; 0 when not integral. */
uint64_t codif_samples_per_frame(const struct codif_hdr *h);
/** Frames per alignment period; 0 when not integral. */
uint64_t codif_frames_per_period(const struct codif_hdr *h);
/** Frame duration in ns, rounded down (exact: period*1e9/FPP). */
uint64_t codif_frame_ns(const struct codif_hdr *h);
/** Data rate of one stream in bits per second (payload only). */
double codif_data_rate_bps(const struct codif_hdr *h);

/** Unix time (s) of the reference epoch: 2000 + epoch/2, Jan or Jul 1. */
int64_t codif_epoch_unix(unsigned int epoch);
/** Reference epoch (half-years since 2000) holding Unix time t. */
unsigned int codif_epoch_for_unix(int64_t t);

/** The latest time an int64 of ns since 1970 holds: 2262-04-11T23:47:16.854775807Z. */
#define CODIF_TIME_MAX INT64_MAX
/** The earliest time this code holds: 1677-09-21T00:12:43.145224193Z
 * (INT64_MIN itself means "no time"). */
#define CODIF_TIME_MIN (INT64_MIN + 1)
/** What a time out of that range was expected to be (the tools' refusals). */
#define CODIF_TIME_RANGE_EXPECTED "a UTC time within 1677-09-21T00:12:44Z .. " \
	"2262-04-11T23:47:16Z (int64 ns since 1970): out of range"


/**
 * Start time of the frame in h: integer ns since the Unix epoch
 * (epoch_date + seconds + frame * period / FPP, exact, no leap seconds).
 * Returns INT64_MIN when FPP is 0 (header not valid) or the time is after
 * CODIF_TIME_MAX (epoch 255 with a late seconds field; codif_validate
 * refuses such a header): never a wrapped time.
 */
int64_t codif_frame_time_ns(const struct codif_hdr *h);

/**
 * Whether a time (ns, computed wide) lies in CODIF_TIME_MIN .. CODIF_TIME_MAX.
 * @return 0, or -ERANGE with "WHAT is after|before the times this program
 *   can hold: MIN .. MAX" in err.
 */
int codif_time_range_check(const char *what, __int128 ns, char *err, size_t len);

/**
 * Format ns since the Unix epoch as "YYYY-MM-DDThh:mm:ss.nnnnnnnnnZ".
 * @return buf.
 */
char *codif_time_str(int64_t unix_ns, char *buf, size_t len);

/**
 * Parse a UTC time: "YYYY-MM-DDThh:mm:ss[.frac][Z]" (T or space), or
 * "@SECONDS" / plain integer seconds since the Unix epoch.
 * @return 0, -EINVAL (not such a time), or -ERANGE: a time outside
 *   CODIF_TIME_MIN .. CODIF_TIME_MAX (1677-09-21 .. 2262-04-11), which
 *   int64 ns cannot hold (codif_time_range_check words the message).
 */
int codif_parse_time(const char *s, int64_t *unix_ns);

/** What a time was expected to be, for a codif_parse_time() result rc. */
const char *codif_time_expected(int rc);

/**
 * codif_parse_time() for an option or field called what: on a refusal, err
 * says "WHAT: 'S': expected ..." (codif_time_expected's words).
 * @return 0, or -EINVAL.
 */
int codif_parse_time_arg(const char *what, const char *s, int64_t *unix_ns, char *err,
			 size_t len);

/** Station id as two printable chars (non-printables as '.'), NUL ended. */
void codif_station_str(uint16_t stationid, char out[3]);

/* ---- The clock: one frame index, one frame time ------------------------ */

/**
 * The clock of a timeline: what turns (seconds, frame) into one frame index
 * and back. The index counts frames from the start of the alignment grid
 * (the periods start at seconds = phase + k * period), so every stream on
 * the same clock gets the same index for the same time, whatever its first
 * frame. This is the only place a frame index is computed.
 */
struct codif_clock {
	uint64_t fpp;        /**< frames per period */
	uint64_t period_ns;  /**< period * 1e9 */
	uint64_t step_q;     /**< period_ns / fpp: a frame's duration, rounded down */
	uint64_t step_r;     /**< period_ns % fpp */
	int64_t epoch_ns;    /**< Unix ns of the reference epoch */
	uint32_t phase;      /**< seconds of every period start, mod period */
	uint16_t period;     /**< alignment period, s */
	uint8_t epoch;       /**< reference epoch (half-years since 2000) */
	uint8_t pad;
};

/**
 * The clock of a validated header (codif_validate): its period, epoch,
 * frames per period, and the grid its seconds lie on.
 * @return 0, or -EINVAL when the header has no frames per period.
 */
int codif_clock_init(struct codif_clock *c, const struct codif_hdr *h);

/** Whether two clocks count the same frames (period, epoch, FPP, phase). */
bool codif_clock_equal(const struct codif_clock *a, const struct codif_clock *b);

/**
 * Frame index of (seconds, frame) on clock c.
 * @return false when seconds is not on the clock's grid (phase + k*period)
 *   or the index would not fit 63 bits; frame < FPP is the caller's check.
 */
bool codif_clock_index(const struct codif_clock *c, uint32_t seconds, uint32_t frame,
		       int64_t *n);

/** Start time of frame n (Unix ns, exact, no leap seconds). */
int64_t codif_clock_time_ns(const struct codif_clock *c, int64_t n);

/** (seconds, frame) of frame n: the header fields that give it. */
void codif_clock_hdr_time(const struct codif_clock *c, int64_t n, uint32_t *seconds,
			  uint32_t *frame);

/** Frames of c in ns of data time, rounded down (0 when ns < a frame). */
uint64_t codif_clock_frames_in(const struct codif_clock *c, uint64_t ns);

/* ---- Timelines and stream trackers --------------------------------------
 *
 * A timeline (struct codif_tl) is the clock and the newest frame index of a
 * group of streams that share one clock: an antenna's streams in the
 * capture, one stream in a file. Each stream (struct codif_seq) keeps its
 * own counts, duplicate window, first and newest frame.
 *
 * A frame moves nothing on its own. One that does not fit the timeline --
 * more than `ahead` frames ahead of the newest, more than `window` behind,
 * off the clock's grid, another clock or other parameters -- is held aside
 * as a suspect (CODIF_SEQ_SUSPECT): the caller keeps the frame and gives
 * its handle. When `confirm` suspects of one stream agree (same clock and
 * parameters, each one going on from the last, at most `confirm` frames
 * on) before the timeline advances `confirm` times, the timeline follows
 * them (and the other streams' suspects that then fit it go with them):
 *
 *  - same clock, ahead, the data time skipped agreeing with the arrival
 *    times (within max_gap; see codif_tl_cfg): an outage, however long;
 *    the streams just lost those frames (counted lost), nothing else
 *    changes;
 *  - otherwise a resync: a new segment of the timeline begins (its clock
 *    the suspects'), each stream's next segment starts at its first frame
 *    there, and the frames a forward resync skipped are counted apart
 *    (resync_skipped), not as lost;
 *  - a stream's own suspects with new parameters on the same clock start
 *    a new segment of that stream only (new_params).
 *
 * The held frames are then released, in frame order, as actions
 * (struct codif_act): classified as if they had just arrived. Suspects
 * that `confirm` advances of the timeline pass without their agreement (a
 * lone bit flip, a stray frame, reordering beyond the window) are dropped
 * and counted: implausible (time) or param_change (parameters). So no header alone moves the timeline, and no
 * good frame is dropped for being held.
 */

/** No arrival time known (a codif or raw file; a caller that has none). */
#define CODIF_NO_ARRIVAL INT64_MIN
/** Most agreeing suspects a timeline can ask for. */
#define CODIF_MAX_CONFIRM 16
/** Default number of frames behind the newest told late from duplicate. */
#define CODIF_SEQ_WINDOW_DEFAULT 4096u
/** Default frames ahead of the newest taken without question. */
#define CODIF_AHEAD_DEFAULT 64u
/** Default agreeing suspects that move a timeline. */
#define CODIF_CONFIRM_DEFAULT 4u
/** Default largest confirmed jump counted as loss (data time, ns). */
#define CODIF_MAX_GAP_NS_DEFAULT 1000000000ULL

struct codif_tl_cfg {
	uint32_t window;     /**< W: bitmap of frames behind the newest (power of two) */
	uint32_t ahead;      /**< A: frames ahead taken at once (the reorder window) */
	uint32_t confirm;    /**< K: agreeing suspects that move the timeline (>= 2) */
	/**
	 * A confirmed jump ahead on the same clock is counted as loss when it
	 * skips at most max_gap_ns of data time, and beyond that (an outage)
	 * when the data time it skips differs from the arrival-time gap around
	 * it by at most max_gap_ns + 1/10000 of that gap (100 ppm: host and
	 * sender clocks drifting over a long outage); else it is a resync (a
	 * clock step). Without arrival times (a file; fast replay) only the
	 * first rule applies.
	 */
	uint64_t max_gap_ns;
};

/** W 4096, A 64, K 4, max gap 1 s. */
void codif_tl_cfg_defaults(struct codif_tl_cfg *c);

/**
 * Check a configuration: window 64..2^30, ahead 1..window, confirm
 * 2..CODIF_MAX_CONFIRM, max_gap_ns >= 1 us.
 * @return 0, or -EINVAL with "what value, expected ..." in err.
 */
int codif_tl_cfg_check(const struct codif_tl_cfg *c, char *err, size_t len);

/** Counters of one stream; received + lost == frames expected at all times. */
struct codif_seq_stats {
	uint64_t received;     /**< distinct frames taken (in order + late), incl. invalid */
	uint64_t lost;         /**< frames of its segments never received */
	uint64_t late;         /**< arrived after a newer frame, filled its gap */
	uint64_t duplicate;    /**< second and later copies, dropped */
	uint64_t invalid;      /**< received with the invalid bit set */
	uint64_t malformed;    /**< counted by the caller: bad header or length */
	uint64_t too_late;     /**< behind the window or refused by the buffer */
	uint64_t implausible;  /**< held for their time, never confirmed: dropped */
	uint64_t param_change; /**< held for other parameters, never confirmed: dropped */
	uint64_t resyncs;      /**< segments begun by a resync of its timeline */
	uint64_t resync_skipped; /**< frames those resyncs skipped (forward, same clock) */
	uint64_t new_params;   /**< segments begun with new parameters */
	uint64_t gaps;         /**< gap events */
	uint64_t bytes;        /**< bytes of received frames (header + data) */
};

/** Why a held frame was dropped. */
enum codif_drop {
	CODIF_DROP_TIME = 0,   /**< its time fitted no timeline (counted implausible) */
	CODIF_DROP_PARAMS,     /**< its parameters were never confirmed (param_change) */
};

struct codif_seq;

/** A frame held aside. The caller fills handle (and aux) for its copy. */
struct codif_hold {
	uint64_t handle;       /**< the caller's: its copy of the frame */
	uint64_t aux;          /**< the caller's, carried along */
	struct codif_seq *s;
	struct codif_hdr h;
	int64_t index;         /**< on the suspects' clock */
	int64_t arrival_ns;    /**< when it arrived (CODIF_NO_ARRIVAL: unknown) */
	uint32_t bytes;
};

/** A stream's suspects that agree with each other. */
struct codif_cand {
	uint32_t n;            /**< frames held */
	uint32_t age;          /**< advances (of the timeline, or of the stream
				    for new parameters) since its first frame */
	enum codif_drop kind;
	bool timeline;         /**< would move the timeline (time, clock); else
				    the stream's new parameters on the same clock */
	bool new_clock;        /**< clock differs from the timeline's */
	struct codif_clock clk;
	int64_t lo, hi;        /**< lowest, highest index held */
	struct codif_hold hold[CODIF_MAX_CONFIRM];
};

/** struct codif_out.flags */
#define CODIF_OUT_SEG_START 0x01  /**< first frame of a new segment of the stream */
#define CODIF_OUT_RESYNC 0x02     /**< ... begun by a resync of the timeline */
#define CODIF_OUT_NEW_PARAMS 0x04 /**< ... with parameters other than before */

/** What one push made of a frame. */
struct codif_out {
	enum codif_seq_class cls;
	uint8_t flags;         /**< CODIF_OUT_* */
	uint32_t seg;          /**< timeline segment */
	int64_t index;         /**< frame index on the timeline's clock */
	uint64_t nlost;        /**< frames newly lost just before it (GAP), or
				    between it and the old first (LATE) */
	uint64_t tail;         /**< SEG_START: frames lost at the end of the
				    stream's previous segment, closed now */
	struct codif_hold *hold; /**< SUSPECT: fill hold->handle (and aux) now;
				      NULL: not held after all (no memory:
				      dropped and counted at once) */
};

/** A held frame's fate, handed to the caller after a push or a flush. */
struct codif_act {
	uint64_t handle, aux;
	struct codif_seq *s;
	bool drop;             /**< dropped (counted); else released as out */
	enum codif_drop why;   /**< when dropped */
	struct codif_hdr h;    /**< its header */
	struct codif_out out;  /**< when released: as if it had just arrived */
};

/** A resync of a timeline. */
struct codif_resync {
	uint32_t seg;          /**< the new segment */
	bool new_clock;        /**< the clock (period, epoch, FPP or grid) changed */
	int64_t old_ns;        /**< time of the newest frame before it */
	int64_t new_ns;        /**< time of the first frame after it */
	int64_t skipped;       /**< frames skipped (same clock, forward), else 0 */
};

/** A silence of the sender that the arrival times confirm (counted lost). */
struct codif_outage {
	int64_t old_ns;        /**< time of the newest frame before it */
	int64_t new_ns;        /**< time of the first frame after it */
	int64_t frames;        /**< frames lost in between */
	int64_t arrival_gap_ns; /**< the silence, by arrival times */
};

struct codif_tl {
	struct codif_tl_cfg cfg;
	bool started;
	uint32_t seg;            /**< segment: 0, +1 per resync */
	struct codif_clock clk;
	int64_t newest;          /**< highest index taken in this segment */
	int64_t newest_arr;      /**< arrival of the frame that made it newest
				      (CODIF_NO_ARRIVAL: unknown) */
	int64_t prev_newest;     /**< ... in the segment before: streams close there */
	uint64_t max_gap;        /**< cfg.max_gap_ns in frames of clk */
	uint32_t hint_sec;       /**< division-free index: seconds of a period start */
	int64_t hint_base;       /**< ... and the index of its frame 0 */
	struct codif_seq *clist; /**< streams holding timeline suspects */
	struct codif_cand *pending; /**< confirmed, to run at the next action */
	struct codif_act *act;   /**< pending actions */
	uint32_t nact, iact, capact;
	uint64_t resyncs;        /**< resyncs so far */
	struct codif_resync last; /**< the latest */
	uint64_t outages;        /**< confirmed jumps beyond max_gap counted as
				      loss: the arrival times agreed (an outage) */
	struct codif_outage last_outage; /**< the latest */
	int err;                 /**< -ENOMEM: a suspect could not be held (dropped) */
};

/** Sequence state of one stream (within a timeline). */
struct codif_seq {
	bool started;            /**< has a segment (frames in the timeline) */
	bool have_ref;
	uint32_t seg;            /**< timeline segment of its current segment */
	uint32_t window;         /**< bitmap size, power of two */
	uint64_t *seen;          /**< window bits, slot = index & (window-1) */
	struct codif_hdr ref;    /**< parameters in force: its segment's first frame */
	uint32_t ref_gen;        /**< counts the assignments of ref: a caller that
				      cached what it knows of ref (lib/acct's
				      header fast path) sees it changed */
	uint64_t fpp;            /**< frames per period of ref */
	int64_t first;           /**< lowest index of the segment accounted for */
	int64_t newest;          /**< highest index received in the segment */
	int64_t end;             /**< the segment is counted up to here (>= newest;
				      more at a flush: the timeline's newest) */
	bool renew;              /**< its next frame starts a new segment */
	uint64_t closed;         /**< frames expected in its earlier segments */
	struct codif_seq_stats st;
	int64_t first_time_ns;   /**< its first frame (first segment) */
	int64_t newest_time_ns;  /**< newest frame of the current segment */
	uint32_t newest_sec;     /**< seconds of frame `newest` (time stepping) */
	uint64_t newest_rem;     /**< (frame * period_ns) % fpp of newest */
	struct codif_cand *cand[2]; /**< its held frames: two sets at most */
	struct codif_seq *cnext; /**< next on its timeline's clist */
	bool listed;             /**< on the clist */
};

/**
 * Initialise a timeline (cfg checked by codif_tl_cfg_check; NULL, or a field
 * left 0: the defaults).
 * @return 0 or -EINVAL.
 */
int codif_tl_init(struct codif_tl *t, const struct codif_tl_cfg *cfg);
/** Free what a timeline allocated (held frames are forgotten: flush first). */
void codif_tl_free(struct codif_tl *t);

/**
 * Initialise a stream tracker with the timeline's window.
 * @return 0, or -ENOMEM.
 */
int codif_seq_init(struct codif_seq *s, const struct codif_tl *t);
/** Free the tracker's window and held-frame space. */
void codif_seq_free(struct codif_seq *s);

/**
 * Whether h has the parameters of ref (nchan, nbits, complex,
 * representation, period, totalsamples, epoch, framelength8). When not,
 * the first differing field is described.
 */
bool codif_params_equal(const struct codif_hdr *ref, const struct codif_hdr *h,
			char *errbuf, size_t errlen);

/**
 * Account one frame of stream s, whose header was decoded and validated
 * (codif_validate; or, when s already has a ref, codif_params_equal and
 * frame < s->fpp). On CODIF_SEQ_SUSPECT the caller keeps the frame and
 * stores its handle in o->hold. Then, and after every push, it takes the
 * actions (codif_tl_action) that the push may have produced: held frames
 * released (place them as o says) or dropped.
 */
void codif_seq_push(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h,
		    uint32_t frame_bytes, struct codif_out *o);

/**
 * codif_seq_push of a frame that arrived at arrival_ns (Unix ns, the host's
 * or the NIC's clock; a pcap record's time; CODIF_NO_ARRIVAL: unknown).
 * Arrival times tell an outage from a clock step (see codif_tl_cfg).
 */
void codif_seq_push_at(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h,
		       uint32_t frame_bytes, int64_t arrival_ns, struct codif_out *o);

/** Whether actions may be pending (cheap; then call codif_tl_action). */
static inline bool
codif_tl_busy(const struct codif_tl *t)
{
	return t->pending != NULL || t->iact < t->nact;
}

/** Run a pending confirmation (codif_tl_action does this first). */
void codif_tl_run(struct codif_tl *t);

/**
 * codif_seq_push_at for a caller that has compared h with s->ref already
 * (codif_params_equal: same) and need not compare again.
 */
void codif_seq_push_same(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h,
			 uint32_t frame_bytes, bool same, int64_t arrival_ns,
			 struct codif_out *o);

/**
 * The next pending action, if any.
 * @return true with *a filled.
 */
bool codif_tl_action(struct codif_tl *t, struct codif_act *a);

/**
 * End of input: every held frame is dropped (actions follow), and each
 * stream of the timeline closes its segment at the timeline's newest frame
 * (the frames it lacks there are lost). streams: the timeline's streams.
 */
void codif_tl_flush(struct codif_tl *t, struct codif_seq *const *streams, unsigned int n);

/**
 * A frame taken as received (a push said FIRST .. LATE) that the caller
 * could not keep after all (its buffer refused it as too late): counted
 * too_late and lost instead of received.
 */
void codif_seq_unreceive(struct codif_seq *s, enum codif_seq_class cls, bool invalid,
			 uint32_t frame_bytes);

/** Count a malformed packet against this stream. */
void codif_seq_malformed(struct codif_seq *s);

/** Frames expected so far: all its segments, first to newest. */
uint64_t codif_seq_expected(const struct codif_seq *s);

/** Name of a sequence class, e.g. "late". */
const char *codif_seq_class_name(enum codif_seq_class c);

#ifdef __cplusplus
}
#endif

#endif /* CODIF_H */
