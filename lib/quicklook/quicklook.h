/* SPDX-License-Identifier: BSD-3-Clause */
/* Quick look: live sample statistics of a stream from a sampled subset of its
 * frames, accumulated by the rx lcore and read by telemetry (pure C, no DPDK). */

#ifndef QUICKLOOK_H
#define QUICKLOOK_H

/*
 * What it owns
 * ------------
 * Whether a stream's signal is alive: per stream (one struct ql_acc), from
 * one frame in `every` (and at most one per `min_gap` of the caller's
 * clock), the mean, power (mean square), RMS, fraction of saturated and of
 * zero samples of the whole frame and of each channel (or channel group),
 * and a verdict (ok, dead, saturated, no data). A dead or saturated
 * digitiser looks healthy in packet counts; these figures show it.
 *
 * It does not own the sample encoding: lib/codif's codif_signal.h defines
 * the layout (time-major, channels in order, I then Q, sub-byte components
 * from the least significant bit, 16/32-bit little-endian), the value of
 * each code, the zero code and the extreme codes. Read it there; in short:
 *
 *   nbits 1, 2, 4, 8, 16, 32, representation 0 (offset binary) or 1 (two's
 *   complement); nbits 32 representation 2 (IEEE binary32). Values in steps
 *   of the encoding: nbits >= 4 are the integers (mid-tread), nbits 1 and 2
 *   the half-integers +-1/2, +-3/2 (mid-rise, no zero level). Zero = the
 *   code of value 0, or for 1/2 bits the code with every bit clear (what a
 *   zero-filled payload holds). Saturated = the most negative or positive
 *   level (1 bit: every sample; floats: Inf/NaN, left out of the sums).
 *   Other encodings are counted (unsupported) and not decoded.
 *
 * Figures (struct ql_stat), over the samples of an interval: a sample is
 * one component (I and Q of a complex channel are two). mean_re/mean_im:
 * mean of the real / imaginary parts; power: mean of x^2 over all parts
 * (for complex data E|z|^2 = 2 * power); rms: sqrt(power - mean^2), the
 * parts' mean square deviation; sat, zero: fractions of samples.
 *
 * Channels: at most QL_MAX_BINS (64) bins per stream. With nchan <= 64 each
 * channel is its own bin; otherwise bin b holds channels [b*g, (b+1)*g),
 * g = ceil(nchan / 64) (the last bin may hold fewer), so the whole band is
 * always seen, averaged in groups.
 *
 * The sampling rule
 * -----------------
 * ql_sample() is called for every frame of the stream that the rx path
 * accepts (after accounting); it says yes to the first, then to the first
 * frame at least cfg.every frames after the last sampled one that is also
 * at least cfg.min_gap (caller's clock, e.g. TSC cycles) after it. With
 * min_gap 0 that is exactly one frame in every; with min_gap it is also at
 * most one per min_gap, whatever the stream's rate. The minimum: it also
 * says yes while the stream's sampled frames are fewer than its floor, and
 * a reader moves the floor on once per interval of its own (ql_grant: the
 * sampled count it read plus cfg.min, unless one in `every` gave at least
 * cfg.min in the interval before), so every interval has at least cfg.min
 * sampled frames (or all of them, when the stream has fewer): a slow
 * stream is not left without figures, a fast one gets nothing added. The
 * writer never reads a clock for it. It costs an increment and two
 * compares per frame. A sampled frame with the invalid bit set, or
 * whose data length is not framelength8 * 8, is counted and not used.
 *
 * Cost (bench/quicklook_bench.c measures it): a sampled frame is read once.
 * 1, 2 and 4-bit data (when a period -- S components rounded up to whole
 * bytes -- is at most 64 components in at most 16 bytes) by byte
 * histograms, one increment a byte, the codes read off them per lane
 * afterwards; 8-bit data (and sub-byte data with longer periods, expanded
 * through a table) by rows of 16 int8 lanes in 16-byte vectors; 16/32-bit
 * and float data by lanes the compiler vectorises. Up to 1024 components per time sample the lanes
 * are kept apart and folded into bins once per 8192 components; beyond,
 * each bin's run of components per time sample is reduced on its own. On
 * x86-64 the kernels are also compiled for AVX2 and picked at load time.
 * An 8 KiB frame of 4 complex channels costs ~0.7-5 us (1.7k-13k TSC
 * cycles on a shared EPYC vCPU; 32-bit the least, sub-byte the most), so at
 * the default one frame in QL_EVERY_DEFAULT (256) ~5-23 ns per received
 * frame, 1-3.5% of an 8298-byte frame's time at 100 Gb/s (ASKAP's streams
 * come far slower: ~2315 frames/s each). The writer's stack holds ~40 KiB
 * of lanes and histograms while it decodes; struct ql_acc is ~12 KiB.
 *
 * Writer and readers
 * ------------------
 * One writer per struct ql_acc (the rx lcore that owns the stream) calls
 * ql_sample() and ql_frame(); any number of reader threads call ql_read()
 * at any time. The writer keeps cumulative sums in its own copy and, after
 * each sampled frame, publishes them through a sequence lock: the count
 * is odd while it copies, and a reader retries until it has copied the
 * words between two equal even counts, so it never sees a torn set of
 * figures and never blocks the writer (the writer neither waits nor
 * allocates). The sums only grow (doubles for the value sums, integers for
 * the counts), so a reader's "reset" is its own: it keeps the snapshot it
 * read last and ql_figs(now, prev) gives the figures of the interval
 * between the two. When a stream's format (nbits, representation,
 * complex, nchan) changes, the writer starts the sums afresh and bumps
 * the generation (gen): an interval across a change reports the sums since
 * the change.
 *
 * Tolerances (tests/unit/test_quicklook.c)
 * ----------------------------------------
 * The figures are sums over the sampled samples: per frame in integers up
 * to 16 bits, in doubles for 32-bit and float data; then added to doubles
 * (exact while below 2^53, relative 1e-16 beyond).
 * Against codif_signal's expectation over N samples the tests allow 6
 * standard deviations of the per-sample figure / sqrt(N) plus 1e-9
 * (relative), and for the fractions 4 / N more (rare events are Poisson);
 * hand-built frames must give exact figures; dead and saturated channels
 * must get exactly those verdicts.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codif.h"
#include "codif_signal.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Channel bins per stream, at most. */
#define QL_MAX_BINS 64
/** Default: one frame sampled in this many per stream. */
#define QL_EVERY_DEFAULT 256u
/** Default of the capture's --quicklook-min: frames per window, at least. */
#define QL_MIN_DEFAULT 8u
/** Dead: at least this fraction of zero samples ... */
#define QL_DEAD_ZERO_FRAC 0.99
/** ... or a constant signal: variance <= this * power. */
#define QL_CONST_REL 1e-9
/** Saturated: at least this fraction at the extreme codes (nbits >= 4, float). */
#define QL_SAT_FRAC 0.5
/** Saturated, 2-bit: noise of RMS 1 step puts 32% at the outer levels, RMS 4 80%. */
#define QL_SAT_FRAC_2BIT 0.8

/** Sampling configuration. */
struct ql_cfg {
	uint32_t every;    /**< sample one frame in `every` (>= 1) */
	uint64_t min_gap;  /**< and at least this much of the caller's clock
			        between two samples (0: no time limit) */
	uint32_t min;      /**< and at least this many per interval (ql_grant;
				0: no minimum) */
};

/** Cumulative sums of one bin (or the whole stream). */
struct ql_sums {
	uint64_t n;       /**< samples (components) seen */
	uint64_t sat;     /**< at an extreme code (floats: non-finite) */
	uint64_t zero;    /**< at the zero code */
	uint64_t excl;    /**< left out of the value sums (non-finite floats) */
	double sum_re;    /**< sum of the real parts (I), steps */
	double sum_im;    /**< sum of the imaginary parts (Q) */
	double sumsq;     /**< sum of the squares of all parts */
};

/** What a reader gets: a consistent copy of a stream's cumulative figures. */
struct ql_snap {
	uint64_t gen;         /**< format generation: sums restart when it moves */
	uint64_t offered;     /**< frames given to ql_sample (as of the last
				   sampled frame: published with it) */
	uint64_t sampled;     /**< frames given to ql_frame */
	uint64_t used;        /**< ... whose samples are in the sums */
	uint64_t invalid;     /**< ... not used: invalid bit set */
	uint64_t bad_len;     /**< ... not used: data length != framelength8 * 8 */
	uint64_t unsupported; /**< ... not used: encoding not decoded */
	uint8_t nbits;        /**< format of the sums (0: none yet) */
	uint8_t repr;
	uint8_t complex;
	uint8_t pad;
	uint16_t nchan;
	uint16_t nbin;        /**< bins in use */
	uint32_t chan_per_bin;
	uint32_t pad2;
	struct ql_sums total;
	struct ql_sums bin[QL_MAX_BINS];
};

/** Number of 64-bit words of struct ql_snap (the published copy). */
#define QL_SNAP_WORDS (sizeof(struct ql_snap) / 8)

/** Lanes (components of a period) the kernels keep apart, at most. */
#define QL_LANES 1024

/** Processing plan of one format (private to the writer). */
struct ql_layout {
	uint64_t key;            /**< nbits, repr, complex, nchan; 0: none */
	bool ok;                 /**< encoding decoded */
	struct codif_signal_enc enc;
	uint32_t L;              /**< lanes (a multiple of S), 0: by runs */
	uint32_t L16;            /**< int8 values by rows of 16: lcm(S, 16), 0: not */
	uint32_t hP, hR;         /**< sub-byte by byte histograms: bytes per
				      period, rows; 0: not */
	uint32_t run;            /**< by runs: components per bin in a time sample */
	uint32_t nbin, cpb;      /**< bins, channels per bin */
	int32_t lo_v, hi_v, zero_v; /**< kernel values of the extreme and zero codes */
	uint32_t flip;           /**< XOR to two's complement in the kernel */
	double scale;            /**< kernel value * scale = steps (1/2: 1, 2 bits) */
	uint8_t lane_bin[QL_LANES]; /**< lane k (component k % S) -> bin */
	uint8_t lane_im[QL_LANES];  /**< lane -> 0 real/I, 1 Q */
	int8_t kv[16];           /**< sub-byte code -> kernel value */
	uint8_t ksat[16], kzero[16]; /**< sub-byte code -> extreme, zero */
	int8_t lut[256][8];      /**< sub-byte: a byte's components, kernel values */
};

/** A stream's quick look: the writer's state and the published copy. */
struct ql_acc {
	/* the writer's (rx lcore) */
	struct ql_cfg cfg;
	uint64_t since;          /**< frames offered since the last sample */
	uint64_t last;           /**< clock of the last sample */
	bool have_last;
	uint64_t floor;          /**< sample while own.sampled < floor (ql_grant) */
	struct ql_layout lay;
	struct ql_snap own;      /**< cumulative, the writer's copy */
	/* shared with readers */
	uint64_t seq __attribute__((aligned(64)));   /**< odd while publishing */
	uint64_t pub[QL_SNAP_WORDS] __attribute__((aligned(64)));
};

/** every QL_EVERY_DEFAULT, no time limit. */
void ql_cfg_defaults(struct ql_cfg *c);

/**
 * Initialise a stream's accumulator (no format yet; sums zero). a must be
 * 64-byte aligned (static, aligned_alloc, rte_zmalloc; or ql_create).
 * @return 0, or -EINVAL (cfg NULL or every 0).
 */
int ql_init(struct ql_acc *a, const struct ql_cfg *cfg);

/**
 * Allocate (64-byte aligned) and initialise a stream's accumulator.
 * @return the accumulator, or NULL with errno EINVAL (bad cfg) or ENOMEM.
 */
struct ql_acc *ql_create(const struct ql_cfg *cfg);

/** Free an accumulator from ql_create (NULL: nothing). */
void ql_free(struct ql_acc *a);

/**
 * The sampling decision, for every frame of the stream (writer only).
 * @param now the caller's clock (TSC of the burst, ns...), only compared
 *   with cfg.min_gap; pass 0 when min_gap is 0.
 * @return true: give this frame to ql_frame().
 */
static inline bool
ql_sample(struct ql_acc *a, uint64_t now)
{
	a->own.offered++;
	if (++a->since < a->cfg.every) {
		/* the interval's minimum (a reader's floor, relaxed: it moves
		 * once per interval) */
		return a->own.sampled < __atomic_load_n(&a->floor, __ATOMIC_RELAXED);
	}
	if (a->cfg.min_gap != 0 && a->have_last && now - a->last < a->cfg.min_gap)
		return false;
	a->since = 0;
	a->last = now;
	a->have_last = true;
	return true;
}

/**
 * A new interval of the minimum (one reader, the interval's owner): at
 * least cfg.min more frames are sampled from now, unless one in `every`
 * of the frames offered in the interval that ended gave that many (then
 * none are added). now: a ql_read() of a, just now; prev: the one at the
 * interval's start (zeroed: the stream's start).
 */
static inline void
ql_grant(struct ql_acc *a, const struct ql_snap *now, const struct ql_snap *prev)
{
	uint64_t by_every = (now->offered - prev->offered) / a->cfg.every;

	__atomic_store_n(&a->floor, now->sampled + (by_every >= a->cfg.min ? 0 : a->cfg.min),
			 __ATOMIC_RELAXED);
}

/**
 * Accumulate one sampled frame (writer only): its header h (decoded and
 * validated) and its data (len bytes after the 64-byte header), then
 * publish. Never blocks, never allocates, never logs.
 * @return 0 (used), -EINVAL (invalid bit set: counted, not used),
 *   -EBADMSG (len != framelength8 * 8: counted bad_len), -ENOTSUP
 *   (encoding not decoded: counted unsupported).
 */
int ql_frame(struct ql_acc *a, const struct codif_hdr *h, const void *data, size_t len);

/**
 * A consistent copy of a stream's cumulative figures (any thread, any
 * time; retries while the writer publishes, a few hundred ns at most).
 */
void ql_read(const struct ql_acc *a, struct ql_snap *out);

/**
 * Add src's sums into dst (the streams of one antenna, say). Bins are added
 * when both have the same format; otherwise dst keeps totals only (nbin 0).
 * gen becomes the sum of both, so it still moves when either one does.
 * A zeroed dst takes src's format; a src with no format yet (nbits 0) adds
 * its frame counters only.
 */
void ql_snap_add(struct ql_snap *dst, const struct ql_snap *src);

/** A stream's (or bin's) state in an interval. */
enum ql_verdict {
	QL_NODATA = 0,   /**< no sample in the interval */
	QL_OK,
	QL_DEAD,         /**< >= 99% zero samples, or a constant signal */
	QL_SATURATED,    /**< >= QL_SAT_FRAC (2-bit: QL_SAT_FRAC_2BIT) at the
			      extremes; never said for 1-bit data */
};

/** Figures of one bin or the whole stream over an interval. */
struct ql_stat {
	uint64_t n;        /**< samples */
	double mean_re;    /**< mean of the real parts (I), steps */
	double mean_im;    /**< mean of Q (0 for real data) */
	double power;      /**< mean square of all parts */
	double rms;        /**< sqrt(power - mean^2), averaged over the parts */
	double sat;        /**< fraction saturated */
	double zero;       /**< fraction zero */
	enum ql_verdict verdict;
};

/** The figures of an interval. */
struct ql_figs {
	uint64_t offered, sampled, used, invalid, bad_len, unsupported; /**< in the interval */
	uint8_t nbits, repr;
	bool complex;
	uint16_t nchan, nbin;
	uint32_t chan_per_bin;
	bool restarted;    /**< the format changed in the interval: sums since then */
	struct ql_stat total;
	struct ql_stat bin[QL_MAX_BINS];
};

/**
 * Figures of the interval from prev to now (two ql_read()s of one stream,
 * or two ql_snap_add() sums built the same way). prev NULL: since the start.
 */
void ql_figs(const struct ql_snap *now, const struct ql_snap *prev, struct ql_figs *f);

/** Name of a verdict: "nodata", "ok", "dead", "saturated". */
const char *ql_verdict_name(enum ql_verdict v);

#ifdef __cplusplus
}
#endif

#endif /* QUICKLOOK_H */
