/* SPDX-License-Identifier: BSD-3-Clause */
/* Quick look: live sample statistics of a stream from a sampled subset of its
 * frames, accumulated by the rx lcore and read by telemetry (pure C, no DPDK). */

#ifndef QUICKLOOK_H
#define QUICKLOOK_H

/*
 * This library keeps, per stream, live sample statistics of a sampled
 * subset of its frames: the mean, the power (mean square), the RMS and
 * the fractions of saturated and of zero samples, for the whole frame and
 * for each channel bin, and a verdict (ok, dead, saturated, no data). A
 * dead or saturated digitiser looks healthy in packet counts; these
 * figures show it.
 *
 * The sample encoding belongs to lib/codif (codif_signal.h): the layout,
 * the value of each code in steps, the zero code and the extreme codes.
 * Encodings it does not decode are counted as unsupported. A sample is one
 * component, so I and Q of a complex channel are two. Up to QL_MAX_BINS
 * channels each have a bin; with more, each bin holds ceil(nchan / 64)
 * adjacent channels, so the whole band is always seen.
 *
 * The sampling rule: ql_sample() is called for every accepted frame of the
 * stream. It says yes to the first frame, then to the first frame at least
 * cfg.every frames after the last sampled one (and, when cfg.min_gap is
 * set, at least min_gap of the caller's clock after it). It also says yes
 * while the stream has fewer sampled frames than the floor a reader sets
 * once per interval with ql_grant(), so that a slow stream still gets
 * cfg.min frames an interval. It costs an increment and two compares per
 * frame and never reads a clock. A sampled frame with the invalid bit set
 * or a data length other than framelength8 * 8 is counted and not used.
 *
 * Threads: one writer per struct ql_acc (the rx lcore that owns the
 * stream) calls ql_sample() and ql_frame(); it never blocks, allocates or
 * logs. Any number of readers call ql_read() at any time. The writer
 * publishes its cumulative sums after each sampled frame under a sequence
 * lock, so a reader never sees a torn copy and never holds the writer up.
 * The sums only grow; a reader keeps the copy it read last, and
 * ql_figs(now, prev) gives the figures of the interval between the two.
 * When a stream's format (nbits, representation, complex, nchan) changes,
 * the writer restarts its sums and moves the generation (gen).
 *
 * Cost: a sampled frame is read once, by kernels picked per encoding (also
 * built for AVX2 on x86-64 and chosen at load time). The writer's stack
 * holds about 40 KiB while it decodes; struct ql_acc is about 12 KiB.
 * bench/quicklook_bench.c measures the cost per frame; docs/performance.md
 * has the figures. The tests' tolerances are in tests/unit/test_quicklook.c.
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
/** ql_cfg_defaults' one frame in this many (the capture sets its own). */
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
