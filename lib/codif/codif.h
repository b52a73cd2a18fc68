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

/** Result of classifying one frame of a stream. */
enum codif_seq_class {
	CODIF_SEQ_FIRST = 0,  /**< first frame of the stream */
	CODIF_SEQ_IN_ORDER,   /**< N == expected */
	CODIF_SEQ_GAP,        /**< N > expected: frames lost before it */
	CODIF_SEQ_LATE,       /**< N < expected, not seen before: fills a gap */
	CODIF_SEQ_DUPLICATE,  /**< N < expected, seen before */
	CODIF_SEQ_TOO_OLD,    /**< N older than the tracking window */
	CODIF_SEQ_MALFORMED,  /**< header failed validation */
	CODIF_SEQ_PARAM_CHANGE, /**< valid header, parameters differ */
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

/**
 * Start time of the frame in h: integer ns since the Unix epoch
 * (epoch_date + seconds + frame * period / FPP, exact, no leap seconds).
 * Returns INT64_MIN when FPP is 0 (header not valid).
 */
int64_t codif_frame_time_ns(const struct codif_hdr *h);

/**
 * Format ns since the Unix epoch as "YYYY-MM-DDThh:mm:ss.nnnnnnnnnZ".
 * @return buf.
 */
char *codif_time_str(int64_t unix_ns, char *buf, size_t len);

/**
 * Parse a UTC time: "YYYY-MM-DDThh:mm:ss[.frac][Z]" (T or space), or
 * "@SECONDS" / plain integer seconds since the Unix epoch.
 * @return 0, or -EINVAL.
 */
int codif_parse_time(const char *s, int64_t *unix_ns);

/**
 * Absolute frame index relative to a stream's first seconds value:
 * ((seconds - seconds_first) / period) * FPP + frame (may be negative).
 */
int64_t codif_frame_index(const struct codif_hdr *h, uint32_t seconds_first,
			  uint64_t fpp);

/** (seconds, frame) of absolute index n relative to seconds_first. */
void codif_index_to_time(int64_t n, uint32_t seconds_first, uint16_t period,
			 uint64_t fpp, uint32_t *seconds, uint32_t *frame);

/** Station id as two printable chars (non-printables as '.'), NUL ended. */
void codif_station_str(uint16_t stationid, char out[3]);

/** Name of a sequence class, e.g. "late". */
const char *codif_seq_class_name(enum codif_seq_class c);

/* ---- Per-stream sequence tracker -------------------------------------- */

/** Default number of frames behind the newest one tracked for late/dup. */
#define CODIF_SEQ_WINDOW_DEFAULT 4096u

/** Counters of one stream; received + lost == expected at all times. */
struct codif_seq_stats {
	uint64_t received;   /**< distinct frames (in order + late), incl. invalid */
	uint64_t lost;       /**< frames in [first, newest] never received */
	uint64_t late;       /**< arrived after a newer frame, filled its gap */
	uint64_t duplicate;  /**< second and later copies, dropped */
	uint64_t invalid;    /**< received with the invalid bit set */
	uint64_t malformed;  /**< failed validation (not counted as received) */
	uint64_t too_old;    /**< older than the window: cannot tell late/dup */
	uint64_t param_change; /**< valid frames whose parameters changed */
	uint64_t gaps;       /**< number of gap events */
	uint64_t bytes;      /**< bytes of accepted frames (header + data) */
};

/** Sequence state of one stream. Treat as opaque; init with codif_seq_init. */
struct codif_seq {
	bool started;
	uint32_t seconds_first;   /**< seconds of the first frame */
	uint64_t fpp;             /**< frames per period of the stream */
	int64_t first;            /**< lowest index accounted for */
	int64_t newest;           /**< highest index received */
	struct codif_hdr ref;     /**< parameters of the first valid frame */
	uint32_t window;          /**< bitmap size in frames, power of two */
	uint64_t *seen;           /**< window bits, slot = index & (window-1) */
	struct codif_seq_stats st;
	int64_t first_time_ns;    /**< start time of frame `first` */
	int64_t newest_time_ns;   /**< start time of frame `newest` */
	/* fast path state: no division per in-order frame */
	uint32_t newest_sec;      /**< seconds of frame `newest` */
	int64_t newest_base;      /**< index of frame 0 of newest's period */
	uint64_t newest_rem;      /**< (frame * period_ns) % fpp of newest */
	uint64_t period_ns, step_q, step_r; /**< period_ns = step_q*fpp + step_r */
	int64_t epoch_ns;         /**< Unix ns of the reference epoch */
};

/**
 * Initialise a tracker. window is rounded up to a power of two (>= 64);
 * 0 means CODIF_SEQ_WINDOW_DEFAULT.
 * @return 0, or -ENOMEM.
 */
int codif_seq_init(struct codif_seq *s, uint32_t window);
/** Free the tracker's window. */
void codif_seq_free(struct codif_seq *s);
/** Forget the stream (counters too), keep the window allocation. */
void codif_seq_reset(struct codif_seq *s);

/**
 * Whether h has the same stream parameters as the stream's first frame
 * (nchan, nbits, complex, representation, period, totalsamples, epoch,
 * framelength8). When not, the first differing field is described.
 */
bool codif_params_equal(const struct codif_hdr *ref, const struct codif_hdr *h,
			char *errbuf, size_t errlen);

/**
 * Account one frame whose header was decoded and validated. Parameters
 * are checked against the stream's first frame; a change is counted as
 * CODIF_SEQ_PARAM_CHANGE, a seconds value that is not a whole number of
 * periods from the first as CODIF_SEQ_MALFORMED; neither is placed.
 *
 * @param index  out: absolute frame index (valid for FIRST .. TOO_OLD)
 * @param nlost  out: for GAP, frames lost before this one; for a LATE
 *               frame older than the stream's first, the frames between it
 *               and that first (now lost); else 0
 * @param errbuf optional reason for PARAM_CHANGE / MALFORMED (may be NULL)
 */
enum codif_seq_class codif_seq_push(struct codif_seq *s,
				    const struct codif_hdr *h, size_t frame_bytes,
				    int64_t *index, uint64_t *nlost,
				    char *errbuf, size_t errlen);

/**
 * codif_seq_push for a caller that has already checked the parameters
 * against s->ref (codif_params_equal) for every frame after the first:
 * the capture path, which must not compare twice.
 */
enum codif_seq_class codif_seq_push_trusted(struct codif_seq *s,
					    const struct codif_hdr *h,
					    size_t frame_bytes, int64_t *index,
					    uint64_t *nlost, char *errbuf,
					    size_t errlen);

/** Count a malformed packet against this stream. */
void codif_seq_malformed(struct codif_seq *s);

/** Frames expected so far: newest - first + 1 (0 before the first). */
uint64_t codif_seq_expected(const struct codif_seq *s);

#ifdef __cplusplus
}
#endif

#endif /* CODIF_H */
